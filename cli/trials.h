// Running the trials of a scene: one for a plain scene, every <trial> of an
// experiment (A §5), in parallel across trials with OpenMP. Shared by
// `suitsim run` and `suitsim evaluate`.
//
// Each trial writes into its own directory: stream.csv (the scene's <record>
// channels), and for a robot with sensors sensors.csv (what the robot
// measures) and truth.csv (what the simulator knows; evaluators never read
// it), then summary.json. Files are written under temporary names and
// renamed only by commitTrials, after every trial has finished, so a failed
// run leaves nothing behind.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suitsim/io/scene.h"
#include "suitsim/sensors.h"

namespace suitsim::cli {

/// Command-line overrides of a scene's <simulation> (negative: keep the scene's).
struct SimulationOverrides {
  double duration = -1.0;
  double dt = -1.0;
  int threads = -1;
  int noise = -1;          ///< sensor noise: -1 as the scene says, 0 off, 1 on
  bool no_stribeck = false;  ///< switch the joints' Stribeck drop off
};

struct TrialJob {
  io::Scene scene;
  io::SimulationSettings sim;
  std::unique_ptr<Sensors> sensors;  ///< null when the robot has no <sensors>
  std::filesystem::path dir;         ///< output directory of this trial
  // Filled by simulateTrial:
  bool ok = false;
  std::string error;                  ///< why it failed (ok false)
  nlohmann::ordered_json summary;     ///< what summary.json will say
  std::vector<std::filesystem::path> written;  ///< final names of the files it wrote
};

/// Loads the scene (every trial of an experiment, each as its own scene) and
/// checks the overrides against each. On bad input prints one message
/// ("error: FILE:LINE: ...", or a usage line via `usage`) and returns 2; 0 on
/// success. `only_trial` non-empty: just that trial. `out` is the output root: trial k goes to out/<trial name> for an
/// experiment, to out itself otherwise.
int prepareTrials(const std::string& scene_path, const std::string& only_trial, const SimulationOverrides& overrides,
                  const std::filesystem::path& out, bool quiet, std::vector<TrialJob>* jobs,
                  std::string* usage_problem);

/// Runs every job (in parallel across jobs when there are several), writing
/// temporary files. Returns true when all succeeded.
bool simulateTrials(std::vector<TrialJob>& jobs, int threads, bool quiet);

/// Renames every job's temporary files to their final names (summary.json
/// last), or, when `keep` is false or a rename fails, removes them all.
/// Returns true when the results are in place.
bool commitTrials(std::vector<TrialJob>& jobs, bool keep);

}  // namespace suitsim::cli
