#include "scene_loading.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "suitsim/scene/scene.h"
#include "suitsim/core/number_text.h"

namespace suitsim::python {

namespace {

}  // namespace

void checkOptions(const SceneOptions& o) {
  // The same bounds the command line puts on --dt, --duration and --threads.
  if (o.dt && !(std::isfinite(*o.dt) && *o.dt > 0.0)) {
    throw std::invalid_argument("dt: needs a number of seconds > 0 (got " + significantText(*o.dt, 6) + ")");
  }
  if (o.duration && !(std::isfinite(*o.duration) && *o.duration > 0.0)) {
    throw std::invalid_argument("duration: needs a number of seconds > 0 (got " + significantText(*o.duration, 6) + ")");
  }
  if (o.threads && (*o.threads < 1 || *o.threads > 1024)) {
    throw std::invalid_argument("threads: needs a whole number from 1 to 1024 (got " + std::to_string(*o.threads) +
                                ")");
  }
}

std::optional<io::Realism> realismOverride(const SceneOptions& o) {
  if (!o.realism) return std::nullopt;
  return io::realismOption(*o.realism);  // throws SceneError for a bad file
}

int threadsOption(const SceneOptions& o) { return o.threads ? *o.threads : 0; }

std::vector<experiment::TrialJob> prepare(const SceneSource& source, const std::filesystem::path& out,
                                          std::vector<std::string>* warnings) {
  checkOptions(source.options);
  const SceneOptions& o = source.options;
  io::SceneOverrides overrides;
  if (o.duration) overrides.duration = *o.duration;
  if (o.dt) overrides.dt = *o.dt;
  if (o.threads) overrides.threads = *o.threads;
  if (o.noise) overrides.noise = *o.noise ? 1 : 0;
  if (o.stribeck) overrides.no_stribeck = !*o.stribeck;
  overrides.realism = realismOverride(o);
  return experiment::prepareTrials(source.path, source.trial, overrides, out, warnings);
}

std::vector<experiment::TrialJob> prepare(const SceneSource& source, const std::filesystem::path& out,
                                          const std::vector<std::string>& names) {
  std::vector<experiment::TrialJob> jobs = prepare(source, out);
  if (names.empty()) return jobs;
  for (const std::string& n : names) {
    if (std::none_of(jobs.begin(), jobs.end(), [&](const experiment::TrialJob& j) { return j.scene.trial.name == n; })) {
      throw std::invalid_argument(source.path + ": no trial named '" + n + "'");
    }
  }
  std::vector<experiment::TrialJob> kept;
  kept.reserve(names.size());
  for (experiment::TrialJob& j : jobs) {
    if (std::find(names.begin(), names.end(), j.scene.trial.name) == names.end()) continue;
    kept.push_back(std::move(j));
    // The sensors point at the scene's model, which the move relocated:
    // made again for the model where it now is, as prepareTrials made them.
    experiment::TrialJob& moved = kept.back();
    if (moved.sensors) {
      moved.sensors = std::make_unique<Sensors>(moved.scene.model, *moved.scene.robot->sensors, moved.scene.simulation.dt);
    }
  }
  return kept;
}

}  // namespace suitsim::python
