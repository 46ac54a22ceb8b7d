// `suitsim run SCENE --out DIR`: simulate headless, write a stream and a summary.
//
// Nothing is written until the scene and the options have been checked, and
// files are written under temporary names and renamed only when the run has
// finished, so a failed run leaves no partial output behind.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "trial_jobs.h"
#include "suitsim/core/write_failure.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/log_streams.h"
#include "suitsim/experiment/interrupt.h"
#include "suitsim/experiment/trials.h"
#include "suitsim/scene/scene.h"
#include "suitsim/recorder.h"
#include "suitsim/sensors.h"
#include "suitsim/servo.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;
using experiment::TrialJob;
using experiment::commitTrials;

struct RunOptions {
  std::string scene_path;
  std::string out_dir;
  double duration = -1.0;  // < 0: from the scene
  double dt = -1.0;
  int threads = -1;
  bool quiet = false;
  std::string trial;  // empty: every trial of an experiment
  std::string log_format = "csv";  // csv: <trial>/sensors.csv; hdf5: log.h5 and its channel map log_map.xml
};

// --log-format hdf5: the trials' streams as one HDF5 log with its channel
// map (eval/log_streams.h), written under temporary names and moved into
// place, then the CSV streams removed; the truth files stay where they are.
bool writeHdf5Streams(const RunOptions& opt, const std::vector<TrialJob>& jobs, std::string* error) {
  const fs::path out(opt.out_dir);
  const fs::path h5 = out / "log.h5", map = out / "log_map.xml";
  const fs::path h5_tmp = out / ".log.h5.partial", map_tmp = out / ".log_map.xml.partial";
  std::error_code ec;
  try {
    eval::EvaluationInputs inputs = eval::loadEvaluationInputs(opt.scene_path);
    std::vector<eval::TrialInfo> ran;
    for (const eval::TrialInfo& t : inputs.trials) {
      for (const TrialJob& job : jobs) {
        if (job.scene.trial.name == t.name) ran.push_back(t);
      }
    }
    inputs.trials = ran;
    eval::writeHdf5Log(inputs, out.string(), h5_tmp.string(), map_tmp.string(), h5.filename().string());
  } catch (const std::exception& e) {
    fs::remove(h5_tmp, ec);
    fs::remove(map_tmp, ec);
    *error = e.what();
    return false;
  }
  // The map names the file it reads: log.h5, its final name.
  fs::rename(h5_tmp, h5, ec);
  if (!ec) fs::rename(map_tmp, map, ec);
  if (ec) {
    *error = "cannot move the HDF5 log into place: " + ec.message();
    return false;
  }
  for (const TrialJob& job : jobs) fs::remove(job.dir / "sensors.csv", ec);
  return true;
}

int runChecked(const RunOptions& opt, const CLI::App& app) {
  const auto usage_error = [&app](const std::string& message) { return usageError(app, message); };

  const fs::path out(opt.out_dir);
  std::vector<TrialJob> jobs;
  io::SceneOverrides overrides;
  overrides.duration = opt.duration;
  overrides.dt = opt.dt;
  overrides.threads = opt.threads;
  if (const int code = prepareJobs(opt.scene_path, opt.trial, overrides, out, opt.quiet, usage_error, &jobs)) return code;
  const bool is_experiment = !jobs.front().scene.trial.name.empty();
  if (opt.log_format == "hdf5" && !is_experiment) {
    return usage_error("--log-format hdf5 needs an experiment (named trials, one HDF5 group each)");
  }

  std::error_code ec;
  // A run that fails leaves nothing behind, not even the folder it made.
  const bool out_existed = fs::exists(out, ec);
  const auto removeOut = [&] {
    std::error_code ignored;
    if (!out_existed) fs::remove(out, ignored);  // only if empty
  };
  experiment::installInterruptHandlers();
  fs::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create output directory '%s': %s\n", opt.out_dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const int threads = opt.threads > 0 ? opt.threads : omp_get_num_procs();
  const auto wall_start = std::chrono::steady_clock::now();
  const bool ok = experiment::simulateTrials(jobs, threads, !opt.quiet, trialReporter(opt.quiet));
  // Several trials' warnings come with their "[k/n] trial" lines; a lone
  // trial has none, so its own come here.
  if (jobs.size() == 1 && !opt.quiet) {
    for (const std::string& w : jobs[0].warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!ok) {
    for (const TrialJob& job : jobs) {
      if (job.ok || job.error.empty()) continue;
      if (is_experiment) {
        std::fprintf(stderr, "error: trial %s: %s\n", job.scene.trial.name.c_str(), job.error.c_str());
      } else {
        std::fprintf(stderr, "error: %s\n", job.error.c_str());
      }
    }
    commitTrials(jobs, false);
    removeOut();
    if (const int sig = experiment::interruptSignal()) {
      std::fprintf(stderr, "interrupted: the partial results were removed\n");
      return 128 + sig;
    }
    return 1;
  }

  // An experiment's own summary lists its trials; it is written last.
  const fs::path experiment_summary = out / "experiment.json";
  const fs::path experiment_tmp = out / ".experiment.json.partial";
  if (is_experiment) {
    nlohmann::ordered_json summary;
    summary["scene"] = jobs.front().scene.name;
    summary["wall_time_s"] = wall;
    summary["threads"] = threads;
    for (const TrialJob& job : jobs) {
      nlohmann::ordered_json t;
      t["name"] = job.scene.trial.name;
      t["motion"] = job.scene.trial.motion;
      t["suit"] = job.scene.trial.suit;
      t["purpose"] = job.scene.trial.purpose;
      t["dir"] = job.scene.trial.name;
      t["sim_time_s"] = job.summary["sim_time_s"];
      t["wall_time_s"] = job.summary["wall_time_s"];
      summary["trials"].push_back(t);
    }
    std::ofstream f(experiment_tmp);
    f << summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    f.close();
    if (!f) {
      std::fprintf(stderr, "error: %s\n", writeFailure(experiment_tmp, experiment_summary).c_str());
      commitTrials(jobs, false);
      fs::remove(experiment_tmp, ec);
      removeOut();
      return 1;
    }
  }
  std::string commit_error;
  if (!commitTrials(jobs, true, &commit_error)) {
    std::fprintf(stderr, "error: %s\n", commit_error.c_str());
    fs::remove(experiment_tmp, ec);
    return 1;
  }
  if (is_experiment) {
    fs::rename(experiment_tmp, experiment_summary, ec);
    if (ec) {
      std::fprintf(stderr, "error: cannot move '%s' into place: %s\n", experiment_tmp.c_str(), ec.message().c_str());
      return 1;
    }
  }
  if (opt.log_format == "hdf5") {
    std::string error;
    if (!writeHdf5Streams(opt, jobs, &error)) {
      std::fprintf(stderr, "error: %s (the CSV streams are kept)\n", error.c_str());
      return 1;
    }
  }
  if (!opt.quiet) {
    for (const TrialJob& job : jobs) {
      const double sim_time = job.summary["sim_time_s"].get<double>();
      const double trial_wall = job.summary["wall_time_s"].get<double>();
      std::printf("%s%s%s: %ld steps of %g s (%s), %.3g s simulated in %.3g s wall (%.3gx real time)\n",
                  job.scene.name.c_str(), is_experiment ? " / " : "", job.scene.trial.name.c_str(),
                  job.summary["steps"].get<long>(), job.scene.simulation.dt, integratorName(job.scene.simulation.integrator), sim_time,
                  trial_wall, trial_wall > 0.0 ? sim_time / trial_wall : 0.0);
    }
    if (is_experiment) {
      std::printf("%zu trials in %.3g s wall (%d thread%s); wrote %s/<trial>/ and %s\n", jobs.size(), wall,
                  threads, threads == 1 ? "" : "s", out.c_str(), experiment_summary.c_str());
    } else {
      std::string files;
      for (const fs::path& p : jobs.front().written) files += (files.empty() ? "" : ", ") + p.string();
      std::printf("wrote %s\n", files.c_str());
    }
  }
  return 0;
}

}  // namespace

Command addRunCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "run", "simulate a scene (every trial of an experiment) headless; writes streams and summaries");
  addSceneArgument(*app, &opt->scene_path);
  addOutOption(*app, &opt->out_dir, "where to write the results (created if needed)");
  addNumberOption(*app, "--duration", "S", &opt->duration, {}, "simulated time in seconds, overriding the scene");
  addNumberOption(*app, "--dt", "S", &opt->dt, {}, "time step in seconds, overriding the scene");
  addThreadsOption(*app, &opt->threads,
                   "OpenMP threads for the force loops (default: the scene's threads, else one per core)");
  addTrialOption(*app, &opt->trial, "run only this trial of an experiment");
  addChoiceOption(*app, "--log-format", &opt->log_format, {"csv", "hdf5"},
                  "csv: each trial's <trial>/sensors.csv (default); hdf5: one log.h5 and its channel map "
                  "log_map.xml, read with identify/evaluate --log (docs/logs.md)");
  addQuietFlag(*app, &opt->quiet, "no progress, no summary line, no warnings");
  return {app, [opt, app] { return runChecked(*opt, *app); }};
}

}  // namespace suitsim::cli
