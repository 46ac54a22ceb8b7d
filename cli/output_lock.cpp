#include "output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

namespace suitsim::cli {

namespace fs = std::filesystem;

namespace {

// The process id the lock's owner wrote, or "" when it cannot be read. The
// owner writes it right after taking the lock: a reader that comes in
// between waits a little for it.
std::string ownerPid(const fs::path& file) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (std::FILE* f = std::fopen(file.c_str(), "r")) {
      char buf[32] = {};
      const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      std::string pid(buf, n);
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      if (!pid.empty()) return pid;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

}  // namespace

int OutputLock::acquire(const fs::path& out, const char* remedy) {
  // Every spelling of one folder ("out", "./out/", a symlink to it) must
  // meet at one lock file.
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(out, ec), ec);
  if (ec) dir = fs::absolute(out).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  // Beside the folder, so that a folder a run made and leaves empty can
  // still be removed; inside it for the root, which has no parent.
  const bool inside = dir == dir.root_path();
  const fs::path parent = inside ? dir : dir.parent_path();
  for (fs::path p = parent; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    made_.push_back(p);
    if (p == p.root_path()) break;
  }
  fs::create_directories(parent, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create '%s': %s\n", parent.c_str(), ec.message().c_str());
    return 1;
  }
  // Appended piece by piece: "literal" + std::string&& trips GCC 12's false
  // -Wrestrict warning (bug 105329).
  std::string name = ".";
  name.append(dir.filename().string()).append(".suitsim-lock");
  file_ = inside ? dir / ".suitsim.lock" : parent / name;
  // The owner removes the file when done: a lock taken on a file already
  // removed is no lock, so it is taken again on the new one.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      std::fprintf(stderr, "error: cannot create the lock file '%s': %s\n", file_.c_str(), std::strerror(errno));
      return 1;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err != EWOULDBLOCK) {
        std::fprintf(stderr, "error: cannot lock '%s': %s\n", file_.c_str(), std::strerror(err));
        return 1;
      }
      const std::string pid = ownerPid(file_);
      std::fprintf(stderr,
                   "error: '%s' is in use by another suitsim run (process %s, its lock '%s'); %s\n", out.c_str(),
                   pid.empty() ? "unknown" : pid.c_str(), file_.c_str(), remedy);
      return 2;
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(file_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) != 0 || ::write(fd, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size())) {
        // The lock holds without its process id; others then print "unknown".
      }
      fd_ = fd;
      return 0;
    }
    ::close(fd);
  }
  std::fprintf(stderr, "error: cannot take the lock '%s': it keeps being replaced\n", file_.c_str());
  return 1;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) {
    // Removed before it is released: whoever opened it meanwhile finds it
    // gone and takes a new one.
    ::unlink(file_.c_str());
    ::close(fd_);
  }
  std::error_code ignored;
  for (const fs::path& p : made_) fs::remove(p, ignored);  // only if empty
}

}  // namespace suitsim::cli
