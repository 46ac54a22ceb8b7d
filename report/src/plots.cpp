// The supporting-torque figures (A Figs. 12-13), drawn by
// scripts/plot_support.py. The interpreter is started with an argument
// vector (posix_spawn), never through a shell, so no file name is ever
// parsed as shell syntax.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <stdexcept>

#include "suitsim/core/stop.h"
#include "suitsim/report/report.h"

extern char** environ;

namespace suitsim::report {

namespace fs = std::filesystem;

namespace {

// Runs argv[0] with `args`, its output to `log`; returns its wait status, or
// -1 with a message in `error` when it could not start. A stop request
// (core/stop.h) ends the child: SIGTERM sent to us alone would otherwise
// wait for every figure.
int spawnAndWait(const std::vector<std::string>& args, const fs::path& log, std::string* error) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // The front ends ignore SIGXFSZ so that their own writes fail with EFBIG;
  // an ignored signal stays ignored across exec, and the plotter does not
  // check its writes: it gets the default action (its death says why).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGXFSZ);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    *error = "cannot start " + args[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  bool ended = false;
  for (pid_t got; (got = waitpid(pid, &status, ended ? 0 : WNOHANG)) != pid;) {
    if (got < 0 && errno != EINTR) {
      *error = std::string("waiting for the plotter failed: ") + std::strerror(errno);
      return -1;
    }
    if (!ended && stopSignal() != 0) {
      ::kill(pid, SIGTERM);
      ended = true;  // now wait for it to go
    } else if (!ended) {
      usleep(20000);
    }
  }
  return status;
}

}  // namespace

fs::path findScript(const fs::path& exe, const std::string& name) {
  const fs::path dir = exe.parent_path();
  for (const fs::path& p : {dir / name, dir / ".." / "share" / "suitsim" / name}) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return {};
}

fs::path findPlotScript(const fs::path& exe) { return findScript(exe, "plot_support.py"); }

bool runPythonScript(const fs::path& script, const std::vector<std::string>& args, const fs::path& log_dir,
                     std::string* note) {
  std::error_code ec;
  const std::string python = fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv = {python, script.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const fs::path log = log_dir / ".plot.log";
  std::string error;
  const int wait_status = spawnAndWait(argv, log, &error);
  std::string output;
  if (std::FILE* f = std::fopen(log.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, f)) output = buf;  // its last line says why
    std::fclose(f);
  }
  fs::remove(log, ec);
  // A stop request ended the plotter (or came while it ran); Ctrl-C reaches
  // the whole process group, the plotter too: the run was interrupted, no
  // package is missing.
  throwIfStopped();
  if (wait_status >= 0 && WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    if (signal == SIGINT || signal == SIGTERM) {
      requestStop(signal);
      throw Stopped(signal);
    }
    if (signal == SIGXFSZ) {
      throw std::runtime_error("file size limit reached writing the plots into " + log_dir.string() + " (ulimit -f)");
    }
    *note = "plots skipped: " + python + " " + script.string() + " was killed by signal " + std::to_string(signal) +
            " (" + strsignal(signal) + ")";
    return false;
  }
  const int status = wait_status >= 0 && WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  if (status == 0) return true;
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  // Python ignores SIGXFSZ, and the image writer removes the figure it could
  // not finish: the script's last line, Python's words for EFBIG, is all
  // that tells a write stopped at the file-size limit, which fails the run
  // (it is no missing package).
  if (output.find("[Errno " + std::to_string(EFBIG) + "] " + std::strerror(EFBIG)) != std::string::npos) {
    throw std::runtime_error("file size limit reached writing the plots into " + log_dir.string() + " (ulimit -f)");
  }
  *note = "plots skipped: " +
          (error.empty() ? python + " " + script.string() + " exited with status " + std::to_string(status) +
                               (output.empty() ? "" : " (" + output + ")")
                         : error) +
          " (scripts/setup.sh installs python3-matplotlib)";
  return false;
}

std::vector<std::string> writePlots(const fs::path& out_dir, const fs::path& curves_dir,
                                    const eval::EvaluationResult& result, const fs::path& script, std::string* note) {
  if (script.empty()) {
    *note = "plots skipped: plot_support.py not found beside the program or in ../share/suitsim";
    return {};
  }
  std::error_code ec;
  // Every figure's arguments, then one interpreter for all of them
  // (plot_support.py's --and): matplotlib's import is most of a figure's cost.
  std::vector<std::string> args, pngs;
  const auto addFigure = [&](const std::string& joint, const std::string& title, const fs::path& png,
                             const std::vector<fs::path>& csvs) {
    if (!args.empty()) args.push_back("--and");
    args.insert(args.end(), {"--joint", joint, "--title", title, "--out", png.string()});
    for (const fs::path& csv : csvs) args.push_back(csv.string());
    pngs.push_back(png.filename().string());
  };
  // One figure per motion, at the joint it is about (the first suit's choice).
  std::map<std::string, std::string> joint_of_motion;
  std::vector<std::string> motions;
  for (const eval::SuitFit& s : result.suits) {
    for (const eval::FitJoints& f : s.fit_joints) {
      if (joint_of_motion.emplace(f.motion, f.figure_joint).second) motions.push_back(f.motion);
    }
  }
  for (const std::string& motion : motions) {
    const std::string joint = joint_of_motion[motion];
    std::vector<fs::path> csvs;
    for (const eval::SuitFit& s : result.suits) {
      const fs::path csv = curves_dir / (motion + "_" + s.suit + ".csv");
      if (fs::exists(csv, ec)) csvs.push_back(csv);
    }
    addFigure(joint, motion, out_dir / ("support_" + motion + "_" + joint + ".png"), csvs);
  }
  // A powered device: one figure per motion, at the joint where approach A
  // puts the most torque (derived from the estimate, never the truth).
  for (const eval::DeviceEvaluation& d : result.devices) {
    for (const eval::SupportCurves& c : d.curves) {
      std::string joint;
      double largest = -1.0;
      for (const std::string& name : d.joints) {
        const int j = eval::jointIndex(result.identification.model, name);
        const double ms = c.method.front().col(j).squaredNorm();
        if (ms > largest) largest = ms, joint = name;
      }
      if (joint.empty()) continue;
      const fs::path csv = curves_dir / (c.motion + "_" + d.device + ".csv");
      if (!fs::exists(csv, ec)) continue;
      addFigure(joint, c.motion + ", device " + d.device,
                out_dir / ("support_" + c.motion + "_" + d.device + "_" + joint + ".png"), {csv});
    }
  }
  if (pngs.empty()) return pngs;
  if (!runPythonScript(script, args, out_dir, note)) return {};
  for (const std::string& png : pngs) {
    if (!fs::exists(out_dir / png, ec)) {
      *note = "plots skipped: " + script.string() + " wrote no " + png;
      return {};
    }
  }
  return pngs;
}

}  // namespace suitsim::report
