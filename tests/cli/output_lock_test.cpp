// One run at a time per output folder (docs/commands.md#one-run-per-output-folder):
// a second run into a folder another run is writing is refused with exit 2
// and the other's process id, and leaves the first one's results whole; a
// lock dies with its process, so a killed run blocks nobody.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

class OutputLock : public suitsim::testing::CliTest {
 protected:
  /// Starts `suitsim run` on the spring-mass scene for `duration` simulated
  /// seconds into `out`, and waits until it holds the folder's lock.
  pid_t startRun(const fs::path& out, const char* duration) {
    const std::string scene = sourcePath("scenes/spring_mass.xml");
    const pid_t pid = fork();
    if (pid == 0) {
      std::FILE* devnull = std::freopen("/dev/null", "w", stdout);
      std::FILE* err = std::freopen((dir_ / "first_err.txt").c_str(), "w", stderr);
      (void)devnull;
      (void)err;
      execl(SUITSIM_BINARY, SUITSIM_BINARY, "run", scene.c_str(), "--out", out.c_str(), "--duration", duration,
            "--quiet", static_cast<char*>(nullptr));
      _exit(127);
    }
    const fs::path lock = out.parent_path() / ("." + out.filename().string() + ".suitsim-lock");
    // The lock file holds the process id once the lock is taken.
    for (int k = 0; k < 2000 && readFile(lock) != std::to_string(pid) + "\n"; ++k) usleep(5000);
    return pid;
  }
};

TEST_F(OutputLock, SecondRunIntoTheSameFolderIsRefusedAndTheFirstFinishes) {
  const fs::path out = dir_ / "out";
  const pid_t first = startRun(out, "600");
  ASSERT_GT(first, 0);
  // The same folder spelt differently meets the same lock.
  const auto r = run({"run", sourcePath("scenes/spring_mass.xml"), "--out", (dir_ / "." / "out" / "").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("in use by another suitsim run (process " + std::to_string(first) + ","), std::string::npos)
      << r.err;
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, 0), first);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << readFile(dir_ / "first_err.txt");
  // The first run's results are complete, and nothing else is left.
  ASSERT_TRUE(fs::exists(out / "stream.csv"));
  const auto summary = nlohmann::json::parse(readFile(out / "summary.json"));
  EXPECT_NEAR(summary["sim_time_s"].get<double>(), 600.0, 1e-6);
  int files = 0;
  for (const auto& e : fs::directory_iterator(out)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
  EXPECT_FALSE(fs::exists(dir_ / ".out.suitsim-lock")) << "the lock file is removed at the end";
}

TEST_F(OutputLock, AKilledRunLeavesNoLockBehind) {
  const fs::path out = dir_ / "out";
  const pid_t first = startRun(out, "100000");
  ASSERT_GT(first, 0);
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, 0), first);
  const auto r = run({"run", sourcePath("scenes/spring_mass.xml"), "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "summary.json"));
}

// `sweep-summary DIR` rewrites summary.md and the plots in DIR: it takes
// DIR's lock like --out, so it cannot write into a folder a sweep (here a
// run) is still writing, and says so with the other's process id.
TEST_F(OutputLock, SweepSummaryOfAFolderInUseIsRefused) {
  const fs::path out = dir_ / "out";
  const pid_t first = startRun(out, "100000");
  ASSERT_GT(first, 0);
  const auto r = run({"sweep-summary", out.string(), "--no-plots"});
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, 0), first);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "error: '" + out.string() + "' is in use by another suitsim run (process " + std::to_string(first) +
                       ", its lock '" + (dir_ / ".out.suitsim-lock").string() + "'); wait for it to end\n");
  EXPECT_FALSE(fs::exists(out / "summary.md"));
}

}  // namespace
