// Running the trials of a scene: one for a plain scene, every <trial> of an
// experiment (A §5), in parallel across trials with OpenMP. Shared by
// `suitsim run`, `suitsim evaluate` and sweeps;
// every trial steps through TrialRunner (runner.h).
//
// Each trial writes into its own directory: stream.csv (the scene's <record>
// channels), and for a robot with sensors sensors.csv (what the robot
// measures) and truth.csv (what the simulator knows; evaluators never read
// it), then summary.json. Files are written under temporary names and
// renamed only by commitTrials, after every trial has finished, so a failed
// run leaves nothing behind.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suitsim/scene/scene.h"
#include "suitsim/sensors.h"

namespace suitsim::experiment {

struct TrialJob {
  /// The trial's scene with the overrides applied: its `simulation` owns
  /// dt, the duration, the integrator and the threads (0 resolved to the
  /// machine's cores).
  io::Scene scene;
  std::unique_ptr<Sensors> sensors;  ///< null when the robot has no <sensors>
  std::filesystem::path dir;         ///< output directory of this trial
  // Filled by simulateTrial:
  bool ok = false;
  std::string error;                  ///< why it failed (ok false)
  nlohmann::ordered_json summary;     ///< what summary.json will say
  /// What the run showed that the user must hear of (the DCM leaving the
  /// support polygon, a fall: from the simulator's state), one line each
  /// naming the trial, the time and the margin.
  std::vector<std::string> warnings;
  std::vector<std::filesystem::path> written;  ///< final names of the files it wrote
};

/// Loads the scene (every trial of an experiment, each as its own scene) with
/// the overrides applied by the reader (io::SceneOverrides), and checks each
/// as it will run, before anything runs or is written.
/// `only_trial` non-empty: just that trial. `out` is the output root: trial k
/// goes to out/<trial name> for an experiment, to out itself otherwise.
/// Throws io::SceneError for a bad scene ("path:line: ...") and
/// std::invalid_argument for overrides that do not fit it. Advice that does
/// not stop the run goes to `warnings` (may be null).
std::vector<TrialJob> prepareTrials(const std::string& scene_path, const std::string& only_trial,
                                    const io::SceneOverrides& overrides, const std::filesystem::path& out,
                                    std::vector<std::string>* warnings = nullptr);

/// The servo check (servo_stability.h) of a scene as it will run, at its own
/// time step and integrator: throws io::SceneError ("path:line" of the
/// <servo> that set the gain) when a joint's held derivative gain certainly
/// makes its loop diverge; a loop that may only lag adds a line to
/// `warnings` (may be null). prepareTrials applies it to every trial, the
/// viewer to every scene it loads.
void checkServoLoops(const io::Scene& scene, const std::string& scene_path, std::vector<std::string>* warnings);

/// Called as each trial ends (serialised): the job, trials done, trials in all.
using TrialDone = std::function<void(const TrialJob&, int, int)>;

/// Runs every job (in parallel across jobs, one thread each, when there are
/// several; a single job gets its scene's threads), writing temporary files.
/// Results do not depend on `threads`. `show_progress`: a progress bar on
/// stderr for a single job. Returns true when all succeeded.
bool simulateTrials(std::vector<TrialJob>& jobs, int threads, bool show_progress = false,
                    const TrialDone& on_done = {});

/// Renames every job's temporary files to their final names (summary.json
/// last), or, when `keep` is false or a rename fails, removes them all.
/// Returns true when the results are in place; otherwise `error` says why.
bool commitTrials(std::vector<TrialJob>& jobs, bool keep, std::string* error = nullptr);

}  // namespace suitsim::experiment
