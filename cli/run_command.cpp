// `suitsim run SCENE --out DIR`: simulate headless, write a stream and a summary.
//
// Nothing is written until the scene and the options have been checked, and
// files are written under temporary names and renamed only when the run has
// finished, so a failed run leaves no partial output behind.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "progress.h"
#include "suitsim/io/scene.h"
#include "suitsim/recorder.h"
#include "suitsim/servo.h"
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

// More steps than this is a typo (dt = 1e-300), not a run anyone can wait
// for; it also keeps the step count well inside a long.
constexpr double kMaxSteps = 1e12;

// from_chars, unlike stod, takes the whole text or nothing: no leading
// blanks, no hex, no "1e0" for a thread count.
bool parsePositive(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, *out);
  return r.ec == std::errc() && r.ptr == end && !text.empty() && std::isfinite(*out) && *out > 0.0;
}

bool parseCount(const std::string& text, int* out) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, *out);
  return r.ec == std::errc() && r.ptr == end && !text.empty();
}

// Removes the temporary files on every way out of a run, including an
// exception; after the final renames there is nothing left to remove.
class PartialFiles {
 public:
  void add(const fs::path& p) { paths_.push_back(p); }
  ~PartialFiles() {
    std::error_code ec;
    for (const fs::path& p : paths_) fs::remove(p, ec);
  }

 private:
  std::vector<fs::path> paths_;
};

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
      int t = 0;
      if (!value(&v) || !parseCount(v, &t) || t < 1 || t > 1024) {
        return usageError("--threads needs a whole number from 1 to 1024");
      }
      opt->threads = t;
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

int runChecked(int argc, char** argv) {
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
  if (!(sim.duration / sim.dt <= kMaxSteps)) {
    char message[160];
    std::snprintf(message, sizeof message, "duration / dt = %.3g steps; at most %.0e are allowed",
                  sim.duration / sim.dt, kMaxSteps);
    return usageError(message);
  }

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
  const fs::path summary_tmp = out / ".summary.json.partial";
  PartialFiles partial;
  partial.add(stream_tmp);
  partial.add(summary_tmp);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream_file(std::fopen(stream_tmp.c_str(), "w"), &std::fclose);
  std::FILE* stream = stream_file.get();
  if (!stream) {
    std::fprintf(stderr, "error: cannot write '%s'\n", stream_tmp.c_str());
    return 1;
  }

  State state = makeState(model);
  Workspace ws(model, sim.threads);
  Recorder recorder(model, scene.channels);
  std::vector<double> row(recorder.columns().size());
  // A robot with a servo follows its motion (or holds its initial pose).
  std::unique_ptr<JointServo> servo;
  if (scene.robot && scene.robot->has_servo) {
    servo = std::make_unique<JointServo>(model, state, scene.robot->motion, scene.robot->gains,
                                         scene.robot->servo_rate);
  }

  const long num_steps = std::max(1L, std::lround(sim.duration / sim.dt));
  // Capped at the step count: a very low rate must not overflow lround.
  const long sample_every =
      std::max(1L, std::lround(std::min(static_cast<double>(num_steps), 1.0 / (sim.output_rate * sim.dt))));
  std::fprintf(stream, "# scene: %s\n# integrator: %s\n# dt_s: %.9g\n# output_rate_hz: %.9g\n", scene.name.c_str(),
               integratorName(sim.integrator), sim.dt, 1.0 / (sample_every * sim.dt));
  std::fprintf(stream, "time[s]");
  for (const std::string& c : recorder.columns()) std::fprintf(stream, ",%s", c.c_str());
  std::fputc('\n', stream);

  const Energy energy_start = computeEnergy(model, state);
  Progress progress(!opt.quiet);
  const auto wall_start = std::chrono::steady_clock::now();
  recorder.sample(state, &ws, row.data());
  writeCsvRow(stream, state.time, row);
  long steps_done = 0;
  bool diverged = false;
  for (long k = 1; k <= num_steps; ++k) {
    if (servo) servo->update(model, state);
    step(model, state, ws, sim.integrator, sim.dt);
    steps_done = k;
    if (k % sample_every == 0 || k == num_steps) {
      if (!stateIsFinite(state)) {
        diverged = true;
        break;
      }
      recorder.sample(state, &ws, row.data());
      writeCsvRow(stream, state.time, row);
    }
    progress.update(static_cast<double>(k) / num_steps);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  progress.finish();
  // fclose flushes: a full disk may only show up here.
  bool write_failed = std::ferror(stream) != 0;
  write_failed = std::fclose(stream_file.release()) != 0 || write_failed;

  if (diverged || write_failed) {
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
  {
    std::ofstream f(summary_tmp);
    // The scene name comes from the file and need not be valid UTF-8; the
    // default handler would throw from dump().
    f << summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    f.close();
    if (!f) {
      std::fprintf(stderr, "error: writing '%s' failed\n", summary_tmp.c_str());
      return 1;
    }
  }
  fs::rename(stream_tmp, out / "stream.csv", ec);
  if (!ec) {
    fs::rename(summary_tmp, out / "summary.json", ec);
    // A stream without its summary would look like a finished run.
    std::error_code ignored;
    if (ec) fs::remove(out / "stream.csv", ignored);
  }
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

}  // namespace

int runCommand(int argc, char** argv) {
  // Bad input is reported and checked before anything runs; what is left
  // (out of memory for a huge scene, a filesystem error) is reported here
  // rather than ending the process with std::terminate.
  try {
    return runChecked(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace suitsim::cli
