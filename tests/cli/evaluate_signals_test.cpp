// `suitsim evaluate` stopped after its trials (issue 41): SIGTERM or SIGINT
// during the identification, the band fits or the report stops the run
// within a second or so, exits 128 + the signal and leaves nothing it made;
// so does the plotter dying of a signal. Each run is the JVRC-1 protocol cut
// to 5-s trials (its trials take a few seconds, the evaluation after them
// several more). No timing is asserted tighter than a few seconds: the
// machine may be shared. And runs that fail leave nothing they made either:
// an evaluation that fails after its trials, refused streams, the file-size
// limit reached while writing the trials, the curves or the plots.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;
using Clock = std::chrono::steady_clock;

class EvaluateSignals : public suitsim::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    err_ = dir_ / "err.txt";
  }

  // The JVRC-1 protocol with `seconds`-long trials, its files resolved
  // beside the original.
  fs::path protocol(const std::string& seconds) {
    std::string text = readFile(sourcePath("scenes/jvrc1_protocol.xml"));
    const std::string duration = "duration=\"12\"";
    const std::size_t at = text.find(duration);
    EXPECT_NE(at, std::string::npos);
    text.replace(at, duration.size(), "duration=\"" + seconds + "\"");
    const std::string root = "<scene name=\"jvrc1_protocol\"";
    text.replace(text.find(root), root.size(),
                 root + " relative_to=\"" + fs::path(sourcePath("scenes")).lexically_normal().string() + "\"");
    const fs::path scene = dir_ / ("jvrc1_" + seconds + "s.xml");
    std::ofstream(scene) << text;
    return scene;
  }

  // `suitsim args...` as a child, stderr into err_, stdout discarded; with
  // `file_limit` > 0 under that file-size limit (ulimit -f, in bytes).
  pid_t start(const std::vector<std::string>& args, rlim_t file_limit = 0) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (file_limit > 0) {
        const rlimit limit{file_limit, file_limit};
        setrlimit(RLIMIT_FSIZE, &limit);
      }
      std::FILE* devnull = std::freopen("/dev/null", "w", stdout);
      std::FILE* err = std::freopen(err_.c_str(), "w", stderr);
      (void)devnull;
      (void)err;
      std::vector<char*> argv{const_cast<char*>(SUITSIM_BINARY)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(SUITSIM_BINARY, argv.data());
      _exit(127);
    }
    return pid;
  }

  // Waits until stderr holds `mark`; false if the child ended first or
  // nothing came within the guard.
  bool waitFor(pid_t pid, const std::string& mark) {
    const auto until = Clock::now() + std::chrono::seconds(300 * suitsim::testing::kTimeScale);
    while (Clock::now() < until) {
      if (readFile(err_).find(mark) != std::string::npos) return true;
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        ended_ = status;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Waits for the child (at most the guard), returning its wait status;
  // `seconds` how long it took.
  int reap(pid_t pid, double* seconds) {
    const auto t0 = Clock::now();
    const auto until = t0 + std::chrono::seconds(60 * suitsim::testing::kTimeScale);
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) != pid) {
      if (Clock::now() > until) {
        ::kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ADD_FAILURE() << "the run did not stop within " << 60 * suitsim::testing::kTimeScale << " s";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return status;
  }

  // Whether the child is still running (not yet ended, reaped or not).
  static bool running(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  }

  fs::path err_;
  int ended_ = -1;
};

// The plotter's process (python3 running plot_support.py) started by `parent`, or 0.
pid_t plotterOf(pid_t parent) {
  for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) != 2 || ppid != parent) continue;
    if (readFile(e.path() / "cmdline").find("plot_support.py") != std::string::npos) return std::stoi(name);
  }
  return 0;
}

// SIGTERM once the trials are done, at several points of the evaluation
// after them (the identification, the band fits, the report and its
// plots): every time exit 143 within seconds, and no --out left.
TEST_F(EvaluateSignals, SigtermAfterTheTrialsStopsEveryStageExits143AndLeavesNothing) {
  const fs::path scene = protocol("5");
  struct When {
    const char* mark;
    int delay_ms;
  };
  int delivered = 0;
  for (const When& w : {When{"identifying the robot", 0}, When{"identifying the robot", 1500},
                        When{"identifying the robot", 3000}, When{"writing the report", 100}}) {
    SCOPED_TRACE(std::string(w.mark) + " + " + std::to_string(w.delay_ms) + " ms");
    err_ = dir_ / ("err_" + std::to_string(delivered) + "_" + std::to_string(w.delay_ms) + ".txt");
    const fs::path out = dir_ / "out";
    const pid_t pid = start({"evaluate", scene.string(), "--out", out.string()});
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(waitFor(pid, w.mark)) << "exit status " << ended_ << "\n" << readFile(err_);
    std::this_thread::sleep_for(std::chrono::milliseconds(w.delay_ms));
    if (!running(pid)) {
      // A fast machine finished first: nothing to stop at this point.
      int status = 0;
      waitpid(pid, &status, 0);
      fs::remove_all(out);
      continue;
    }
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    double seconds = 0.0;
    const int status = reap(pid, &seconds);
    ++delivered;
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 143) << readFile(err_);
    EXPECT_LT(seconds, 5.0) << "a stage went on after SIGTERM";
    const std::string err = readFile(err_);
    EXPECT_NE(err.find("interrupted: the partial results were removed"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(out)) << "partial results left behind";
  }
  EXPECT_GE(delivered, 2) << "the evaluation ended before most signals; cut the scene less";
}

// Ctrl-C during the identification: exit 130. A folder that existed keeps
// what it held, and only that.
TEST_F(EvaluateSignals, SigintDuringTheIdentificationExits130AndKeepsWhatTheFolderHeld) {
  const fs::path scene = protocol("5");
  const fs::path out = dir_ / "out";
  fs::create_directories(out / "mine");
  std::ofstream(out / "report.md") << "an earlier report\n";
  const pid_t pid = start({"evaluate", scene.string(), "--out", out.string()});
  ASSERT_TRUE(waitFor(pid, "identifying the robot")) << readFile(err_);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(running(pid)) << "the evaluation ended within 0.5 s of its trials";
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  double seconds = 0.0;
  const int status = reap(pid, &seconds);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 130) << readFile(err_);
  EXPECT_LT(seconds, 5.0);
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(out)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"mine", "report.md"}));
  EXPECT_EQ(readFile(out / "report.md"), "an earlier report\n");
}

// The plotter killed by SIGTERM (as Ctrl-C on a terminal kills it with
// SIGINT) is an interrupted run, not a missing python3-matplotlib: exit 143
// and nothing left.
TEST_F(EvaluateSignals, PlotterKilledBySignalIsAnInterruptNotAMissingPackage) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3-matplotlib is not installed (scripts/setup.sh installs it)";
  }
  const fs::path scene = protocol("5");
  const fs::path out = dir_ / "out";
  const pid_t pid = start({"evaluate", scene.string(), "--out", out.string()});
  ASSERT_TRUE(waitFor(pid, "writing the report")) << readFile(err_);
  pid_t plotter = 0;
  for (int k = 0; k < 1500 && !(plotter = plotterOf(pid)) && running(pid); ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_GT(plotter, 0) << "the plotter was not seen running";
  ASSERT_EQ(::kill(plotter, SIGTERM), 0);
  double seconds = 0.0;
  const int status = reap(pid, &seconds);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  const std::string err = readFile(err_);
  EXPECT_EQ(WEXITSTATUS(status), 143) << err;
  EXPECT_EQ(err.find("python3-matplotlib"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
}

// The protocol cut to 3-s trials runs its trials, then cannot fit the
// twist (exit 1): its 19 MB of trials were left behind.
TEST_F(EvaluateSignals, FailedEvaluationAfterItsTrialsLeavesNothing) {
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", protocol("3").string(), "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no fit joint moves"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << "the trials were left behind";
}

// Refused streams (exit 2) leave no --out, not even an empty one.
TEST_F(EvaluateSignals, RefusedStreamsLeaveNoOutputFolder) {
  fs::create_directories(dir_ / "no_streams");
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", sourcePath("tests/cli/data/tiny_experiment.xml"), "--streams",
                      (dir_ / "no_streams").string(), "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no_streams/ident_wave/sensors.csv"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// The file-size limit (ulimit -f) reached while writing: exit 1 with the
// file named, no .partial file and no --out left (the process used to die
// of SIGXFSZ, exit 153, its temporary files left and nothing said). For
// the trials (`run` and `evaluate`), and for the report's curves and plots
// (`evaluate --streams` of a run made without the limit).
TEST_F(EvaluateSignals, FileSizeLimitIsReportedAndLeavesNothing) {
  const std::string tiny = sourcePath("tests/cli/data/tiny_experiment.xml");
  const auto limited = [&](const std::vector<std::string>& args, rlim_t bytes) {
    err_ = dir_ / ("err_" + args.front() + "_" + std::to_string(bytes) + ".txt");
    double seconds = 0.0;
    const int status = reap(start(args, bytes), &seconds);
    EXPECT_TRUE(WIFEXITED(status)) << "status " << status << " (SIGXFSZ is " << SIGXFSZ << ")";
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + status, readFile(err_));
  };
  const fs::path out = dir_ / "out";
  for (const char* command : {"run", "evaluate"}) {
    SCOPED_TRACE(command);
    const auto [code, err] = limited({command, tiny, "--out", out.string(), "--quiet"}, 50 << 10);
    EXPECT_EQ(code, 1) << err;
    EXPECT_NE(err.find("file size limit reached writing " + out.string() + "/"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(out)) << "partial files left behind";
  }
  const fs::path earlier = dir_ / "earlier";
  ASSERT_EQ(run({"evaluate", tiny, "--out", earlier.string(), "--quiet", "--no-plots"}).exit_code, 0);
  // 4 kB stops the curves; 40 kB lets them through and stops the plot, if
  // there is a plotter.
  for (rlim_t bytes : {rlim_t{4} << 10, rlim_t{40} << 10}) {
    SCOPED_TRACE(bytes);
    const auto [code, err] =
        limited({"evaluate", tiny, "--streams", (earlier / "trials").string(), "--out", out.string(), "--quiet"}, bytes);
    if (bytes > 4096 && code == 0) {
      EXPECT_EQ(err.find("error"), std::string::npos) << err;  // no plotter: nothing large to write
      fs::remove_all(out);
      continue;
    }
    EXPECT_EQ(code, 1) << err;
    EXPECT_NE(err.find("error: file size limit reached writing "), std::string::npos) << err;
    EXPECT_NE(err.find(out.string()), std::string::npos) << err;
    EXPECT_EQ(err.find(".partial"), std::string::npos) << err;  // named as in --out
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
