// How the Python module turns `load_scene(path, dt=..., duration=..., ...)`
// into trials: the one place that knows how the command line's overrides
// reach the scene (io::SceneOverrides, applied by the scene reader, through
// prepareTrials, experiment/trials.h). Everything else in the module asks this file for
// prepared trials, so a change of that route touches only these two files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "suitsim/experiment/trials.h"

namespace suitsim::python {

/// The keyword arguments of load_scene, as Python gave them (nullopt: not
/// given, the scene's own value holds). Checked like the command line's
/// options: a bad value throws std::invalid_argument naming the keyword.
struct SceneOptions {
  std::optional<double> dt;        ///< time step (s), like --dt
  std::optional<double> duration;  ///< simulated time per trial (s), like --duration
  std::optional<bool> noise;       ///< sensor noise on/off, like --noise on|off
  std::optional<bool> stribeck;    ///< false: no Stribeck drop, like --stribeck off
  std::optional<std::string> realism;  ///< a preset's name or a realism file, like --realism
  std::optional<int> threads;      ///< threads, like --threads
};

/// The scene file, the trial it was narrowed to (empty: every trial) and
/// the options: what every later call re-reads the scene with.
struct SceneSource {
  std::string path;
  std::string trial;
  SceneOptions options;
};

/// Checks the options' values (not yet against the scene).
void checkOptions(const SceneOptions& options);

/// The trials of the scene with the options applied, checked before
/// anything runs (as `suitsim run` checks them), outputs under `out`
/// (nothing is written here). Throws io::SceneError ("path:line: ...") and
/// std::invalid_argument, as prepareTrials does. Advice goes to `warnings`.
std::vector<experiment::TrialJob> prepare(const SceneSource& source, const std::filesystem::path& out,
                                          std::vector<std::string>* warnings = nullptr);

/// prepare() narrowed to the trials named in `names` (empty: all), in the
/// scene's order. Throws std::invalid_argument for a name the scene lacks.
std::vector<experiment::TrialJob> prepare(const SceneSource& source, const std::filesystem::path& out,
                                          const std::vector<std::string>& names);

/// The realism the scene's truth is scored with: the option's, when given.
std::optional<io::Realism> realismOverride(const SceneOptions& options);

/// The threads a run or an evaluation uses (0: not given).
int threadsOption(const SceneOptions& options);

}  // namespace suitsim::python
