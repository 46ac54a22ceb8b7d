// `suitsim run SCENE --out DIR`: simulate headless, write a stream and a summary.
//
// Nothing is written until the scene and the options have been checked, and
// files are written under temporary names and renamed only when the run has
// finished, so a failed run leaves no partial output behind.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "progress.h"
#include "suitsim/io/scene.h"
#include "suitsim/recorder.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::string scene_path;
  std::string out_dir;
  double duration = -1.0;  // < 0: from the scene
  double dt = -1.0;
  int threads = -1;
  bool quiet = false;
};

int usageError(const std::string& message) {
  std::fprintf(stderr, "suitsim run: %s\n", message.c_str());
  std::fprintf(stderr, "usage: suitsim run SCENE --out DIR [--duration S] [--dt S] [--threads N] [--quiet]\n");
  return 2;
}

bool parsePositive(const std::string& text, double* out) {
  std::size_t used = 0;
  try {
    *out = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size() && std::isfinite(*out) && *out > 0.0;
}

// Returns 0 on success, else the exit code after printing the problem.
int parseOptions(int argc, char** argv, RunOptions* opt) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--out") {
      if (!value(&opt->out_dir) || opt->out_dir.empty()) return usageError("--out needs a directory");
    } else if (arg == "--duration") {
      if (!value(&v) || !parsePositive(v, &opt->duration)) return usageError("--duration needs a number > 0 (s)");
    } else if (arg == "--dt") {
      if (!value(&v) || !parsePositive(v, &opt->dt)) return usageError("--dt needs a number > 0 (s)");
    } else if (arg == "--threads") {
      double t = 0.0;
      if (!value(&v) || !parsePositive(v, &t) || t != std::floor(t) || t > 1024) {
        return usageError("--threads needs a whole number from 1 to 1024");
      }
      opt->threads = static_cast<int>(t);
    } else if (arg == "--quiet") {
      opt->quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (opt->scene_path.empty()) {
      opt->scene_path = arg;
    } else {
      return usageError("more than one scene given ('" + opt->scene_path + "' and '" + arg + "')");
    }
  }
  if (opt->scene_path.empty()) return usageError("no scene file given");
  if (opt->out_dir.empty()) return usageError("--out DIR is required");
  return 0;
}

void writeCsvRow(std::FILE* f, double time, const std::vector<double>& row) {
  std::fprintf(f, "%.9g", time);
  for (double v : row) std::fprintf(f, ",%.12g", v);
  std::fputc('\n', f);
}

}  // namespace

int runCommand(int argc, char** argv) {
  RunOptions opt;
  if (const int code = parseOptions(argc, argv, &opt)) return code;

  io::Scene scene;
  try {
    scene = io::loadScene(opt.scene_path);
  } catch (const io::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  io::SimulationSettings sim = scene.simulation;
  if (opt.duration > 0.0) sim.duration = opt.duration;
  if (opt.dt > 0.0) sim.dt = opt.dt;
  if (opt.threads > 0) sim.threads = opt.threads;
  if (sim.threads == 0) sim.threads = omp_get_num_procs();
  if (sim.dt > sim.duration) return usageError("the time step is longer than the duration");

  const Model& model = scene.model;
  const double omega_dt = maxNaturalFrequency(model) * sim.dt;
  if (omega_dt > 1.0 && !opt.quiet) {
    std::fprintf(stderr,
                 "warning: dt = %g s is large for the stiffest element (omega * dt = %.2f; explicit "
                 "integrators need well below 2)\n",
                 sim.dt, omega_dt);
  }

  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create output directory '%s': %s\n", opt.out_dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const fs::path out(opt.out_dir);
  const fs::path stream_tmp = out / ".stream.csv.partial";
  std::FILE* stream = std::fopen(stream_tmp.c_str(), "w");
  if (!stream) {
    std::fprintf(stderr, "error: cannot write '%s'\n", stream_tmp.c_str());
    return 1;
  }

  State state = makeState(model);
  Workspace ws(model, sim.threads);
  Recorder recorder(model, scene.channels);
  std::vector<double> row(recorder.columns().size());

  const long num_steps = std::max(1L, std::lround(sim.duration / sim.dt));
  const long sample_every = std::max(1L, std::lround(1.0 / (sim.output_rate * sim.dt)));
  std::fprintf(stream, "# scene: %s\n# integrator: %s\n# dt_s: %.9g\n# output_rate_hz: %.9g\n", scene.name.c_str(),
               integratorName(sim.integrator), sim.dt, 1.0 / (sample_every * sim.dt));
  std::fprintf(stream, "time[s]");
  for (const std::string& c : recorder.columns()) std::fprintf(stream, ",%s", c.c_str());
  std::fputc('\n', stream);

  const Energy energy_start = computeEnergy(model, state);
  Progress progress(!opt.quiet);
  const auto wall_start = std::chrono::steady_clock::now();
  recorder.sample(state, row.data());
  writeCsvRow(stream, state.time, row);
  long steps_done = 0;
  bool diverged = false;
  for (long k = 1; k <= num_steps; ++k) {
    step(model, state, ws, sim.integrator, sim.dt);
    steps_done = k;
    if (k % sample_every == 0 || k == num_steps) {
      if (!stateIsFinite(state)) {
        diverged = true;
        break;
      }
      recorder.sample(state, row.data());
      writeCsvRow(stream, state.time, row);
    }
    progress.update(static_cast<double>(k) / num_steps);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  progress.finish();
  const bool write_failed = std::ferror(stream) != 0;
  std::fclose(stream);

  if (diverged || write_failed) {
    fs::remove(stream_tmp, ec);
    if (diverged) {
      std::fprintf(stderr,
                   "error: the simulation diverged at t = %.6g s (positions or velocities became non-finite); "
                   "try a smaller --dt (omega * dt of the stiffest element is %.2f)\n",
                   state.time, omega_dt);
    } else {
      std::fprintf(stderr, "error: writing '%s' failed\n", stream_tmp.c_str());
    }
    return 1;
  }

  const Energy energy_end = computeEnergy(model, state);
  nlohmann::ordered_json summary;
  summary["scene"] = scene.name;
  summary["integrator"] = integratorName(sim.integrator);
  summary["dt_s"] = sim.dt;
  summary["threads"] = sim.threads;
  summary["num_particles"] = model.num_particles;
  summary["num_springs"] = model.num_springs;
  summary["steps"] = steps_done;
  summary["sim_time_s"] = state.time;
  summary["wall_time_s"] = wall;
  summary["realtime_factor"] = wall > 0.0 ? state.time / wall : 0.0;
  summary["energy_start_j"] = energy_start.total();
  summary["energy_end_j"] = energy_end.total();
  const fs::path summary_tmp = out / ".summary.json.partial";
  {
    std::ofstream f(summary_tmp);
    f << summary.dump(2) << "\n";
    if (!f) {
      fs::remove(stream_tmp, ec);
      std::fprintf(stderr, "error: writing '%s' failed\n", summary_tmp.c_str());
      return 1;
    }
  }
  fs::rename(stream_tmp, out / "stream.csv", ec);
  if (!ec) fs::rename(summary_tmp, out / "summary.json", ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot move results into '%s': %s\n", opt.out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  if (!opt.quiet) {
    std::printf("%s: %ld steps of %g s (%s, %d thread%s), %.3g s simulated in %.3g s wall (%.3gx real time)\n",
                scene.name.c_str(), steps_done, sim.dt, integratorName(sim.integrator), sim.threads,
                sim.threads == 1 ? "" : "s", state.time, wall, wall > 0.0 ? state.time / wall : 0.0);
    std::printf("wrote %s and %s\n", (out / "stream.csv").c_str(), (out / "summary.json").c_str());
  }
  return 0;
}

}  // namespace suitsim::cli
