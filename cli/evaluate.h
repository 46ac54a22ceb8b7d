// The paper's evaluation, end to end (A §5.3-5.4): supporting torque by
// approaches A and B, A(3)-(4), with identified and with a-priori
// parameters; band stiffness by A(26); scored against the simulator's truth.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "evaluator_view.h"
#include "identify.h"

namespace suitsim::cli {

/// One supporting-torque estimate method.
enum class SupportMethod { kApproachA, kApproachB, kAprioriB, kAprioriA };
const char* methodKey(SupportMethod m);  ///< "approach_a", "approach_b", "apriori", "apriori_approach_a"
constexpr SupportMethod kSupportMethods[] = {SupportMethod::kApproachA, SupportMethod::kApproachB,
                                             SupportMethod::kAprioriB, SupportMethod::kAprioriA};

/// Supporting torques of one motion with one suit, sample by sample.
struct SupportCurves {
  std::string motion, suit;
  Eigen::VectorXd time;                 ///< (N) s
  Eigen::MatrixXd angle;                ///< (N x num_joints) filtered measured angles of the suit trial
  Eigen::MatrixXd velocity;             ///< (N x num_joints) their rates (rad/s)
  std::vector<Eigen::MatrixXd> method;  ///< per SupportMethod (N x num_joints), N m
  Eigen::MatrixXd model;                ///< A(21) with the true bands on the measured angles (scoring only)
};

/// Estimates the supporting torque of `suit_trial` against `bare_trial` (the
/// same motion without the suit). `truth_bands` are used only for the model
/// curve (what the score compares with).
SupportCurves supportCurves(const EvaluatorView& view, const IdentifyOutcome& id, const TrialView& bare_trial,
                            const TrialView& suit_trial, const std::vector<RobotBand>& truth_bands,
                            const std::filesystem::path& streams_dir, const IdentifyOptions& options);

}  // namespace suitsim::cli
