// The scene file the viewer shows, watched for edits: when its modification
// time changes the file is read again, and a scene that reads cleanly
// replaces the running one. A file with an error never replaces anything:
// the error (path:line: problem) is kept for the window to show while the
// last good scene keeps running, until the next save fixes it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "suitsim/scene/scene.h"

namespace suitsim::viewer {

class SceneSource {
 public:
  explicit SceneSource(std::string path);

  /// The first read, for startup: throws io::SceneError (file and line) on
  /// a bad scene, so the caller can exit with the message.
  io::Scene loadInitial(const std::string& trial = {});
  /// Reads the file again if its modification time (or size) changed since
  /// the last read. Returns the new scene when it read cleanly; otherwise
  /// nothing, with error() set when it did not.
  std::optional<io::Scene> poll();
  /// Reads the file now, for the trial `trial` (empty: the first). Same
  /// result rules as poll().
  std::optional<io::Scene> reload(const std::string& trial);

  const std::string& path() const { return path_; }
  /// The last read's problem; empty when it succeeded. A scene whose servo
  /// loop certainly diverges (experiment::checkServoLoops) is such a problem.
  const std::string& error() const { return error_; }
  /// Advice about the scene shown (a servo loop that may lag), as of the last good read.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// The experiment's trials (empty for a scene without one), as of the last good read.
  const std::vector<io::TrialSpec>& trials() const { return trials_; }
  /// The trial being shown (empty: not an experiment).
  const std::string& trial() const { return trial_; }
  /// How many times a changed file has been read successfully since startup.
  int reloads() const { return reloads_; }

 private:
  struct Stamp {
    std::filesystem::file_time_type time{};
    std::uintmax_t size = 0;
    bool exists = false;
    bool operator==(const Stamp&) const = default;
  };
  Stamp stamp() const;
  io::Scene read(const std::string& trial);  // throws

  std::string path_;
  Stamp last_stamp_;
  std::string error_;
  std::vector<std::string> warnings_;
  std::vector<io::TrialSpec> trials_;
  std::string trial_;
  int reloads_ = 0;
};

}  // namespace suitsim::viewer
