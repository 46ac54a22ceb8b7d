// Running the real `suitsim` binary from a test: shared by the CLI tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace suitsim::testing {

namespace fs = std::filesystem;

#ifdef SUITSIM_TIME_SCALE
inline constexpr int kTimeScale = SUITSIM_TIME_SCALE;
#else
inline constexpr int kTimeScale = 1;
#endif

inline std::string sourcePath(const std::string& relative) {
  return std::string(SUITSIM_SOURCE_DIR) + "/" + relative;
}

inline std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Single-quoted for /bin/sh.
inline std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// A command line as a trace label: " [run] [scene.xml] [--out] [dir]".
inline std::string shownArgs(const std::vector<std::string>& args) {
  std::string shown;
  for (const std::string& a : args) shown.append(" [").append(a).append("]");
  return shown;
}

/// A fresh scratch directory per test (removed afterwards unless the test
/// failed, to leave something to look at), and a way to run the binary.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("suitsim_" + std::string(info->test_suite_name()) + "_" +
                                             std::string(info->name()) + "_" +
                                             std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  /// Runs `suitsim <args>` (in `working_dir` when given), capturing stdout
  /// and stderr to files in the scratch directory. With timeout_seconds_ > 0
  /// the command runs under `timeout` and a timeout fails the test.
  CliResult run(const std::vector<std::string>& args, const fs::path& working_dir = {}) {
    std::string command;
    if (!working_dir.empty()) command.append("cd ").append(quoted(working_dir.string())).append(" && ");
    if (timeout_seconds_ > 0) command.append("timeout ").append(std::to_string(guardSeconds())).append(" ");
    command.append(quoted(SUITSIM_BINARY));
    for (const std::string& a : args) command.append(" ").append(quoted(a));
    const fs::path out = dir_ / "stdout.txt";
    const fs::path err = dir_ / "stderr.txt";
    // Appended piece by piece: "literal" + std::string&& trips GCC 12's
    // false -Wrestrict warning.
    command.append(" >").append(quoted(out.string()));
    command.append(" 2>").append(quoted(err.string()));
    command.append(" </dev/null");
    const int status = std::system(command.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + status;  // a signal is never a pass
    r.out = readFile(out);
    r.err = readFile(err);
    if (timeout_seconds_ > 0) {
      EXPECT_NE(r.exit_code, 124) << "timed out after " << guardSeconds() << " s (deadlock?)";
    }
    return r;
  }

  /// timeout_seconds_ as the build stretches it (SUITSIM_TIME_SCALE: more
  /// in a sanitizer build, tests/CMakeLists.txt).
  int guardSeconds() const { return timeout_seconds_ * kTimeScale; }

  fs::path dir_;
  int timeout_seconds_ = 0;  ///< > 0: run commands under `timeout` (release-build seconds)
};

/// tests/cli/data/tiny_experiment.xml: the short experiment (four trials)
/// the CLI tests run, identify, evaluate and design from.
inline const std::string& tinyScene() {
  static const std::string path = sourcePath("tests/cli/data/tiny_experiment.xml");
  return path;
}

/// What a CLI test file calls unqualified: `using namespace suitsim::testing::cli;`.
namespace cli {
using Result = CliResult;
using suitsim::testing::quoted;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;
using suitsim::testing::tinyScene;
}  // namespace cli

}  // namespace suitsim::testing
