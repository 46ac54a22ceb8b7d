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
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "progress.h"
#include "suitsim/io/scene.h"
#include "suitsim/recorder.h"
#include "suitsim/sensors.h"
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

// The sensor file's comment header: what a reader needs to interpret the
// columns without the scene (rate, seed, noise, units, conventions).
/// The truth channels of a robot: true joint angles, motor and friction
/// torques, band lengths and tensions, the total ground force.
std::vector<ChannelSpec> truthChannels(const Model& model) {
  std::vector<ChannelSpec> channels;
  using Kind = ChannelSpec::Kind;
  for (int h = 0; h < model.num_hinges; ++h) {
    for (Kind kind : {Kind::kJointAngle, Kind::kMotorTorque, Kind::kFrictionTorque}) {
      ChannelSpec c;
      c.kind = kind;
      c.index = h;
      c.label = model.hinge_name[h];
      channels.push_back(c);
    }
  }
  for (int b = 0; b < model.num_bands; ++b) {
    for (Kind kind : {Kind::kBandLength, Kind::kBandTension}) {
      ChannelSpec c;
      c.kind = kind;
      c.index = b;
      c.label = model.band_name[b];
      channels.push_back(c);
    }
  }
  ChannelSpec ground;
  ground.kind = Kind::kGroundForce;
  channels.push_back(ground);
  return channels;
}

void writeSensorHeader(std::FILE* f, const std::string& scene_name, const Sensors& sensors, double dt) {
  const SensorSpec& spec = sensors.spec();
  std::fprintf(f, "# scene: %s\n", scene_name.c_str());
  std::fprintf(f, "# sensor_rate_hz: %.9g\n# steps_per_sample: %ld\n# dt_s: %.9g\n",
               1.0 / (sensors.stepsPerSample() * dt), sensors.stepsPerSample(), dt);
  std::fprintf(f, "# seed: %llu\n# noise: %s\n", static_cast<unsigned long long>(spec.seed), spec.noise ? "on" : "off");
  std::fprintf(f, "# encoders: joint angle, resolution %.9g rad\n", spec.encoders.resolution);
  for (const ImuSpec& imu : spec.imus) {
    std::fprintf(f,
                 "# %s: gyro = angular velocity in the sensor frame (noise %.9g rad/s); accel = specific force "
                 "R^T (a - g) in the sensor frame (noise %.9g m/s^2)\n",
                 imu.name.c_str(), spec.noise ? imu.gyro_noise : 0.0, spec.noise ? imu.accel_noise : 0.0);
  }
  for (const ForceSensorSpec& s : spec.force_sensors) {
    std::fprintf(f,
                 "# %s: ground contact wrench on the foot in the sensor frame, moment about the sensor origin "
                 "(noise %.9g N, %.9g N*m; resolution %.9g N, %.9g N*m); sole mass below the sensor not "
                 "subtracted\n",
                 s.name.c_str(), spec.noise ? s.force_noise : 0.0, spec.noise ? s.torque_noise : 0.0,
                 s.force_resolution, s.torque_resolution);
  }
  if (!spec.currents.hinges.empty()) {
    std::fprintf(f, "# currents: commanded motor current (noise %.9g A)\n", spec.noise ? spec.currents.noise : 0.0);
  }
  std::fprintf(f, "time[s]");
  for (const std::string& c : sensors.columns()) std::fprintf(f, ",%s", c.c_str());
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
  // The robot's sensors; checked here, before anything is written, because
  // --dt may break a rate that divided the scene's own time step.
  std::unique_ptr<Sensors> sensors;
  if (scene.robot && scene.robot->sensors) {
    try {
      sensors = std::make_unique<Sensors>(model, *scene.robot->sensors, sim.dt);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "error: %s: <sensors> %s\n", opt.scene_path.c_str(), e.what());
      return 2;
    }
  }
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
  const fs::path sensors_tmp = out / ".sensors.csv.partial";
  const fs::path truth_tmp = out / ".truth.csv.partial";
  PartialFiles partial;
  partial.add(stream_tmp);
  partial.add(summary_tmp);
  if (sensors) {
    partial.add(sensors_tmp);
    partial.add(truth_tmp);
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream_file(std::fopen(stream_tmp.c_str(), "w"), &std::fclose);
  std::FILE* stream = stream_file.get();
  if (!stream) {
    std::fprintf(stderr, "error: cannot write '%s'\n", stream_tmp.c_str());
    return 1;
  }

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> sensors_file(nullptr, &std::fclose);
  std::vector<double> sensor_row;
  if (sensors) {
    sensors_file.reset(std::fopen(sensors_tmp.c_str(), "w"));
    if (!sensors_file) {
      std::fprintf(stderr, "error: cannot write '%s'\n", sensors_tmp.c_str());
      return 1;
    }
    writeSensorHeader(sensors_file.get(), scene.name, *sensors, sim.dt);
    sensor_row.resize(sensors->columns().size());
  }
  // The truth beside the sensors, at their rate: what an evaluator must
  // recover and must never read (its name says "truth").
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> truth_file(nullptr, &std::fclose);
  std::unique_ptr<Recorder> truth;
  std::vector<double> truth_row;
  if (sensors) {
    truth_file.reset(std::fopen(truth_tmp.c_str(), "w"));
    if (!truth_file) {
      std::fprintf(stderr, "error: cannot write '%s'\n", truth_tmp.c_str());
      return 1;
    }
    truth = std::make_unique<Recorder>(model, truthChannels(model));
    truth_row.resize(truth->columns().size());
    std::fprintf(truth_file.get(),
                 "# scene: %s\n# truth: the simulator's own values, noise-free; evaluators must not read this file\n"
                 "# rate_hz: %.9g\n# friction_torque: acting on the joint (from the force evaluation ending each step)\n",
                 scene.name.c_str(), 1.0 / (sensors->stepsPerSample() * sim.dt));
    std::fprintf(truth_file.get(), "time[s]");
    for (const std::string& c : truth->columns()) std::fprintf(truth_file.get(), ",%s", c.c_str());
    std::fputc('\n', truth_file.get());
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
  if (sensors) {
    sensors->sample(state, sensor_row.data());
    writeCsvRow(sensors_file.get(), state.time, sensor_row);
    truth->sample(state, &ws, truth_row.data());
    writeCsvRow(truth_file.get(), state.time, truth_row);
  }
  long steps_done = 0;
  bool diverged = false;
  for (long k = 1; k <= num_steps; ++k) {
    if (servo) servo->update(model, state);
    step(model, state, ws, sim.integrator, sim.dt);
    steps_done = k;
    // Sensors read the state only, so sampling them never moves the run.
    if (sensors && k % sensors->stepsPerSample() == 0) {
      sensors->sample(state, sensor_row.data());
      writeCsvRow(sensors_file.get(), state.time, sensor_row);
      truth->sample(state, &ws, truth_row.data());
      writeCsvRow(truth_file.get(), state.time, truth_row);
    }
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
  for (auto* file : {&sensors_file, &truth_file}) {
    if (!*file) continue;
    write_failed = std::ferror(file->get()) != 0 || write_failed;
    write_failed = std::fclose(file->release()) != 0 || write_failed;
  }

  if (diverged || write_failed) {
    if (diverged) {
      std::fprintf(stderr,
                   "error: the simulation diverged at t = %.6g s (positions or velocities became non-finite); "
                   "try a smaller --dt (omega * dt of the stiffest element is %.2f)\n",
                   state.time, omega_dt);
    } else {
      std::fprintf(stderr, "error: writing '%s' or '%s' failed\n", stream_tmp.c_str(), sensors_tmp.c_str());
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
  if (!ec && sensors) fs::rename(sensors_tmp, out / "sensors.csv", ec);
  if (!ec && sensors) fs::rename(truth_tmp, out / "truth.csv", ec);
  if (!ec) {
    // The summary goes last: it marks a finished run.
    fs::rename(summary_tmp, out / "summary.json", ec);
  }
  if (ec) {
    // A stream without its summary would look like a finished run.
    std::error_code ignored;
    fs::remove(out / "stream.csv", ignored);
    if (sensors) {
      fs::remove(out / "sensors.csv", ignored);
      fs::remove(out / "truth.csv", ignored);
    }
  }
  if (ec) {
    std::fprintf(stderr, "error: cannot move results into '%s': %s\n", opt.out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  if (!opt.quiet) {
    std::printf("%s: %ld steps of %g s (%s, %d thread%s), %.3g s simulated in %.3g s wall (%.3gx real time)\n",
                scene.name.c_str(), steps_done, sim.dt, integratorName(sim.integrator), sim.threads,
                sim.threads == 1 ? "" : "s", state.time, wall, wall > 0.0 ? state.time / wall : 0.0);
    std::printf("wrote %s%s%s and %s\n", (out / "stream.csv").c_str(), sensors ? ", " : "",
                sensors ? ((out / "sensors.csv").string() + ", " + (out / "truth.csv").string()).c_str() : "",
                (out / "summary.json").c_str());
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
