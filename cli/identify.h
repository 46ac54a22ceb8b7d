// The identification pipeline shared by `suitsim identify` and `suitsim
// evaluate`: streams in, identified robot and validation figures out
// (A §3, §5.2; B(4)). Sees only an EvaluatorView and the sensor streams.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluator_view.h"
#include "suitsim/eval/base_parameters.h"
#include "suitsim/eval/identification.h"
#include "suitsim/eval/rigid_model.h"

namespace suitsim::cli {

struct IdentifyOptions {
  eval::ConditioningOptions conditioning;
  eval::IdentificationOptions identification;
  std::string validation_joint = "WAIST_P";  ///< joint whose torque RMSE is reported (A §5.2)
};

struct IdentifyOutcome {
  eval::RigidModel model;       ///< the a-priori rigid model
  eval::BaseParameters base;
  eval::RobotIdentification full;
  eval::BaseLinkIdentification base_only;
  std::vector<std::string> fit_trials, validation_trials;
  nlohmann::ordered_json json;  ///< identification.json
  std::string summary;          ///< human-readable lines
};

/// "exclude" or "sign-rule" (the --rest-rows option); false for anything else.
bool parseRestRows(const std::string& text, eval::IdentificationOptions::RestRows* rows);

/// Path of a trial's sensor stream under `streams_dir`.
std::filesystem::path streamPath(const std::filesystem::path& streams_dir, const io::TrialSpec& trial);

/// Reads one trial's stream and conditions it (throws eval::StreamError).
eval::MotionData loadMotion(const EvaluatorView& view, const eval::RigidModel& model, const TrialView& trial,
                            const std::filesystem::path& streams_dir, const IdentifyOptions& options);

/// Identifies the robot from the identification trials' streams and
/// validates on the suit-free evaluation trials. Throws eval::StreamError
/// for bad streams, std::invalid_argument for an experiment it cannot use.
IdentifyOutcome identifyFromStreams(const EvaluatorView& view, const std::filesystem::path& streams_dir,
                                    const IdentifyOptions& options = {});

}  // namespace suitsim::cli
