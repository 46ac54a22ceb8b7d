// One run at a time per output folder (docs/commands.md#one-run-per-output-folder).
//
// Two runs into one --out used the same temporary names, and the failing
// one's clean-up removed the other's finished files. Every command that
// writes --out takes this lock before it writes anything: an advisory
// flock(2) on a hidden file beside the folder, which dies with its process,
// so a crashed run leaves no stale lock behind.
#pragma once

#include <filesystem>
#include <vector>

namespace suitsim::cli {

class OutputLock {
 public:
  OutputLock() = default;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

  /// Takes the lock of the folder `out` (which need not exist yet). 0 when
  /// this process owns it now; 2 when another run does (the message, with
  /// that run's process id and `remedy`, printed); 1 when no lock can be
  /// made there.
  int acquire(const std::filesystem::path& out, const char* remedy = "wait for it to end or choose another --out");

 private:
  int fd_ = -1;
  std::filesystem::path file_;
  /// Folders made to hold the lock file, deepest first: removed again
  /// when still empty at the end.
  std::vector<std::filesystem::path> made_;
};

}  // namespace suitsim::cli
