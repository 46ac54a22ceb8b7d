#include "scene_source.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "suitsim/experiment/trials.h"

namespace suitsim::viewer {

SceneSource::SceneSource(std::string path) : path_(std::move(path)) {}

SceneSource::Stamp SceneSource::stamp() const {
  // Error codes, not exceptions: an editor that saves by delete-and-rename
  // leaves the file missing for a moment, which is not an error yet.
  std::error_code ec;
  Stamp s;
  s.time = std::filesystem::last_write_time(path_, ec);
  if (ec) return s;
  s.size = std::filesystem::file_size(path_, ec);
  s.exists = !ec;
  return s;
}

io::Scene SceneSource::read(const std::string& trial) {
  // The stamp is taken before reading: a save during the read changes it
  // again, and the next poll reads the file once more.
  last_stamp_ = stamp();
  std::vector<io::TrialSpec> trials = io::listTrials(path_);
  // A trial that vanished from the edited file falls back to the first one.
  std::string wanted = trial;
  if (!wanted.empty() &&
      std::none_of(trials.begin(), trials.end(), [&](const io::TrialSpec& t) { return t.name == wanted; })) {
    wanted.clear();
  }
  io::Scene scene = io::loadScene(path_, wanted);
  // The same servo check as `suitsim run`: a loop that reverses is a scene error.
  std::vector<std::string> warnings;
  experiment::checkServoLoops(scene, path_, &warnings);
  warnings_ = std::move(warnings);
  trials_ = std::move(trials);
  trial_ = scene.trial.name;
  return scene;
}

io::Scene SceneSource::loadInitial(const std::string& trial) {
  io::Scene scene = read(trial);
  error_.clear();
  return scene;
}

std::optional<io::Scene> SceneSource::reload(const std::string& trial) {
  try {
    io::Scene scene = read(trial);
    error_.clear();
    return scene;
  } catch (const io::SceneError& e) {
    error_ = e.what();  // already "path:line: <element> problem"
  } catch (const std::exception& e) {
    // Anything else the readers or the builder throw (a model the builder
    // refuses, memory): shown the same way, never fatal.
    error_ = path_ + ": " + e.what();
  }
  return std::nullopt;
}

std::optional<io::Scene> SceneSource::poll() {
  const Stamp now = stamp();
  if (now == last_stamp_) return std::nullopt;
  if (!now.exists) {
    last_stamp_ = now;
    error_ = path_ + ": cannot read the file (missing or unreadable); showing the last good scene";
    return std::nullopt;
  }
  std::optional<io::Scene> scene = reload(trial_);
  if (scene) ++reloads_;
  return scene;
}

}  // namespace suitsim::viewer
