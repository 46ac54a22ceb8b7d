#include "suitsim/experiment/trials.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <stdexcept>
#include <thread>

#include "suitsim/core/write_failure.h"
#include "suitsim/experiment/interrupt.h"
#include "progress.h"
#include "suitsim/experiment/runner.h"
#include "suitsim/centroidal.h"
#include "suitsim/recorder.h"
#include "suitsim/servo.h"
#include "suitsim/servo_stability.h"
#include "suitsim/state.h"
#include "suitsim/step.h"
#include "balance_watch.h"
#include "run_checks.h"
#include "runaway_watch.h"
#include "step_check.h"

namespace suitsim::experiment {

namespace {

namespace fs = std::filesystem;

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// The row as fprintf's "%.9g" then ",%.12g" per value would write it, to the
// byte: to_chars with a precision is specified as printf's %.*g, and it is
// several times faster than glibc's printf, which a trial spent about a
// tenth of its time in (some 250 values per sample).
void writeCsvRow(std::FILE* f, double time, const std::vector<double>& row) {
  constexpr std::size_t kMaxValue = 32;  // "-1.23456789012e-308" and the comma fit easily
  thread_local std::string line;
  line.resize(kMaxValue * (row.size() + 1) + 1);
  char* p = line.data();
  char* const end = p + line.size();
  p = std::to_chars(p, end, time, std::chars_format::general, 9).ptr;
  for (double v : row) {
    *p++ = ',';
    p = std::to_chars(p, end, v, std::chars_format::general, 12).ptr;
  }
  *p++ = '\n';
  std::fwrite(line.data(), 1, static_cast<std::size_t>(p - line.data()), f);
}

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
  // A worn device (exoskeleton.h): each strap's force, and at every joint
  // the moment of the straps beyond it, the device's true supporting torque.
  for (int s = 0; s < model.num_straps; ++s) {
    ChannelSpec c;
    c.kind = Kind::kStrapForce;
    c.index = s;
    c.label = model.strap_name[s];
    channels.push_back(c);
  }
  for (int h = 0; h < model.num_hinges && model.num_straps > 0; ++h) {
    ChannelSpec c;
    c.kind = Kind::kStrapTorque;
    c.index = h;
    c.label = model.hinge_name[h];
    channels.push_back(c);
  }
  ChannelSpec ground;
  ground.kind = Kind::kGroundForce;
  channels.push_back(ground);
  if (model.ground.enabled) {
    // The balance the evaluator estimates from the streams (centroidal.h).
    for (Kind kind : {Kind::kCom, Kind::kComVelocity, Kind::kCentreOfPressure, Kind::kPendulumFrequency, Kind::kDcm,
                      Kind::kVrp, Kind::kEcmp, Kind::kBalanceMargin}) {
      ChannelSpec c;
      c.kind = kind;
      channels.push_back(c);
    }
  }
  return channels;
}

void writeTrialHeader(std::FILE* f, const io::Scene& scene) {
  std::fprintf(f, "# scene: %s\n", scene.name.c_str());
  if (!scene.trial.name.empty()) {
    // What the experimenter did (protocol, not truth): which motion, which suit.
    std::fprintf(f, "# trial: %s\n# motion: %s\n# suit: %s\n# purpose: %s\n", scene.trial.name.c_str(),
                 scene.trial.motion.c_str(), scene.trial.suit.c_str(), scene.trial.purpose.c_str());
  }
}

// The sensor file's comment header: what a reader needs to interpret the
// columns without the scene (rate, seed, noise, units, conventions).
void writeSensorHeader(std::FILE* f, const io::Scene& scene, const Sensors& sensors, double dt) {
  const SensorSpec& spec = sensors.spec();
  writeTrialHeader(f, scene);
  std::fprintf(f, "# sensor_rate_hz: %.9g\n# steps_per_sample: %ld\n# dt_s: %.9g\n",
               1.0 / (sensors.stepsPerSample() * dt), sensors.stepsPerSample(), dt);
  std::fprintf(f, "# seed: %llu\n# noise: %s\n", static_cast<unsigned long long>(spec.seed), spec.noise ? "on" : "off");
  // Where each encoder sits is the robot's build (a datasheet's knowledge):
  // the joints whose encoders read the motor, through the gear's twist.
  std::string on_motor;
  for (std::size_t c = 0; c < spec.encoders.hinges.size(); ++c) {
    if (scene.model.hinge_encoder_on_motor[spec.encoders.hinges[c]]) on_motor += " " + spec.encoders.names[c];
  }
  if (!on_motor.empty()) std::fprintf(f, "# encoders_on_motor:%s\n", on_motor.c_str());
  if (spec.chain.causal) {
    // What the logger's configuration says (a datasheet's knowledge, which
    // the evaluator may use): each kind's filter. Its timing errors and the
    // sensors' calibration are not known to whoever reads the file.
    std::fprintf(f, "# anti_alias: causal (each channel's own filter, sampled at the stamp)\n");
    const auto filter = [&](const char* kind, double cutoff) {
      if (cutoff > 0.0) std::fprintf(f, "# lowpass.%s: butterworth2 %.9g Hz\n", kind, cutoff);
      else std::fprintf(f, "# lowpass.%s: none\n", kind);
    };
    filter("imu", spec.chain.imu_cutoff);
    filter("force", spec.chain.force_cutoff);
    filter("current", spec.chain.current_cutoff);
  } else if (spec.anti_alias && sensors.stepsPerSample() > 2) {
    std::fprintf(f, "# anti_alias: imu, force and current channels are means over %ld steps centred on the stamp\n",
                 2 * ((sensors.stepsPerSample() - 1) / 2) + 1);
  } else {
    std::fprintf(f, "# anti_alias: off (every channel is the value at the stamp)\n");
  }
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
  for (const AttitudeSpec& a : spec.attitudes) {
    std::fprintf(f,
                 "# %s: gravity = the gravity vector in the device segment's frame, the attitude its controller "
                 "reads (idealised, as the controller's: exact, at the stamp)\n",
                 a.name.c_str());
  }
  std::fprintf(f, "time[s]");
  for (const std::string& c : sensors.columns()) std::fprintf(f, ",%s", c.c_str());
  std::fputc('\n', f);
}

fs::path partialName(const fs::path& final_name) {
  return final_name.parent_path() / ("." + final_name.filename().string() + ".partial");
}

// A trial's output files, written under their partial names, and the rows
// their recorders fill.
struct TrialFiles {
  File stream{nullptr, &std::fclose}, sensors{nullptr, &std::fclose}, truth{nullptr, &std::fclose};
  std::vector<double> row, sensor_row, truth_row;
  std::unique_ptr<Recorder> truth_recorder;
};

File openPartial(const fs::path& final_name) {
  File f(std::fopen(partialName(final_name).c_str(), "w"), &std::fclose);
  if (!f) {
    throw std::runtime_error("cannot write '" + partialName(final_name).string() + "': " + std::strerror(errno));
  }
  // A trial writes several MB per file: stdio's default 4 kB buffer made
  // a write system call per 4 kB.
  std::setvbuf(f.get(), nullptr, _IOFBF, std::size_t{1} << 20);
  return f;
}

// sensors.csv and, beside it at the sensors' rate, truth.csv: what an
// evaluator must recover and must never read (its name says "truth").
void openSensorFiles(const TrialJob& job, const Sensors& sensors, TrialFiles& f) {
  const io::Scene& scene = job.scene;
  const double dt = scene.simulation.dt;
  f.sensors = openPartial(job.dir / "sensors.csv");
  writeSensorHeader(f.sensors.get(), scene, sensors, dt);
  f.sensor_row.resize(sensors.columns().size());
  f.truth = openPartial(job.dir / "truth.csv");
  f.truth_recorder = std::make_unique<Recorder>(scene.model, truthChannels(scene.model));
  f.truth_row.resize(f.truth_recorder->columns().size());
  FILE* truth = f.truth.get();
  writeTrialHeader(truth, scene);
  std::fprintf(truth,
               "# truth: the simulator's own values, noise-free; evaluators must not read this file\n"
               "# rate_hz: %.9g\n# friction_torque: acting on the joint (from the force evaluation ending each step)\n",
               1.0 / (sensors.stepsPerSample() * dt));
  if (scene.robot) {
    for (const RobotBand& b : scene.robot->bands) {
      std::fprintf(truth, "# band %s: stiffness %.9g N/m, natural length %.9g m\n", b.name.c_str(), b.stiffness,
                   b.natural_length);
    }
  }
  std::fprintf(truth, "time[s]");
  for (const std::string& c : f.truth_recorder->columns()) std::fprintf(truth, ",%s", c.c_str());
  std::fputc('\n', truth);
}

void writeStreamHeader(FILE* stream, const io::Scene& scene, const Recorder& recorder, long sample_every) {
  const io::SimulationSettings& sim = scene.simulation;
  writeTrialHeader(stream, scene);
  // The spring law's rounding too: fused and separate runs differ in their
  // last bits (engine.md#spring-arithmetic), so a stream says which it is.
  std::fprintf(stream, "# integrator: %s\n# dt_s: %.9g\n# output_rate_hz: %.9g\n# spring_arithmetic: %s\n",
               integratorName(sim.integrator), sim.dt, 1.0 / (sample_every * sim.dt),
               springArithmeticName(scene.model.spring_arithmetic));
  std::fprintf(stream, "time[s]");
  for (const std::string& c : recorder.columns()) std::fprintf(stream, ",%s", c.c_str());
  std::fputc('\n', stream);
}

struct StepOutcome {
  long steps_done = 0;
  bool diverged = false, interrupted = false;
};

// The step loop: the stream at the output rate (watching for divergence and
// the balance), the sensors at theirs, the truth between each step and the
// servo's next command; stops on a divergence, a signal or a write error.
StepOutcome runSteps(const TrialJob& job, TrialRunner& runner, Recorder& recorder, TrialFiles& f, long num_steps,
                     long sample_every, std::optional<BalanceWatch>& balance, RunawayWatch& runaway,
                     Progress& progress) {
  const Model& model = job.scene.model;
  const Sensors* sensors = job.sensors.get();
  const State& state = runner.state();
  Workspace& ws = runner.workspace();
  StepOutcome out;
  double stamp = 0.0;
  for (long k = 1; k <= num_steps; ++k) {
    // Truth between the step and the servo's next command: the motor
    // torques recorded are those that acted during the step.
    const auto sample_truth = [&](const State& st) {
      if (sensors && k % sensors->stepsPerSample() == 0) {
        f.truth_recorder->sample(st, &ws, f.truth_row.data());
        writeCsvRow(f.truth.get(), st.time, f.truth_row);
      }
    };
    if (runner.advance(sample_truth, f.sensor_row.data(), &stamp)) writeCsvRow(f.sensors.get(), stamp, f.sensor_row);
    runaway.sample(state);
    out.steps_done = k;
    if (k % sample_every == 0 || k == num_steps) {
      // A non-finite state, or a recorded value that overflowed (a velocity
      // of 1e200 is finite, its kinetic energy is not), is a divergence.
      if (!stateIsFinite(state)) {
        out.diverged = true;
        break;
      }
      recorder.sample(state, &ws, f.row.data());
      bool finite = true;
      for (std::size_t c = 0; c < f.row.size(); ++c) {
        finite = finite && (std::isfinite(f.row[c]) || (std::isnan(f.row[c]) && recorder.mayBeUndefined(c)));
      }
      if (!finite) {
        out.diverged = true;
        break;
      }
      writeCsvRow(f.stream.get(), state.time, f.row);
      if (balance) balance->sample(model, state);
    }
    if ((k & 1023) == 0 && interruptSignal() != 0) {
      out.interrupted = true;
      break;
    }
    // A full disk or the file-size limit: the rest of the trial could not be
    // kept anyway (reported below, with the file).
    if ((k & 1023) == 0 && (std::ferror(f.stream.get()) != 0 || (f.sensors && std::ferror(f.sensors.get()) != 0) ||
                            (f.truth && std::ferror(f.truth.get()) != 0))) {
      break;
    }
    progress.update(static_cast<double>(k) / num_steps);
  }
  if (sensors && !out.diverged && !out.interrupted && runner.finish(f.sensor_row.data(), &stamp)) {
    writeCsvRow(f.sensors.get(), stamp, f.sensor_row);
  }
  return out;
}

// Closes the files; fclose flushes, so a full disk may only show up here.
// Returns the first file that failed, and why (empty: none).
std::string closeFiles(const TrialJob& job, TrialFiles& f) {
  std::string write_error;
  for (auto [file, name] : {std::pair<File*, const char*>{&f.stream, "stream.csv"}, {&f.sensors, "sensors.csv"},
                            {&f.truth, "truth.csv"}}) {
    if (!*file) continue;
    bool failed = std::ferror(file->get()) != 0;
    failed = std::fclose(file->release()) != 0 || failed;
    if (failed && write_error.empty()) write_error = writeFailure(partialName(job.dir / name), job.dir / name);
  }
  return write_error;
}

// summary.json: what ran, how fast, the energy, the balance and the assist.
void writeSummary(TrialJob& job, int threads, const TrialRunner& runner, long steps_done, double wall,
                  const Energy& energy_start, const Energy& energy_end, const std::optional<BalanceWatch>& balance) {
  const io::Scene& scene = job.scene;
  const io::SimulationSettings& sim = scene.simulation;
  const State& state = runner.state();
  nlohmann::ordered_json& summary = job.summary;
  summary["scene"] = scene.name;
  if (!scene.trial.name.empty()) {
    summary["trial"] = scene.trial.name;
    summary["motion"] = scene.trial.motion;
    summary["suit"] = scene.trial.suit;
    summary["purpose"] = scene.trial.purpose;
  }
  summary["integrator"] = integratorName(sim.integrator);
  summary["spring_arithmetic"] = springArithmeticName(scene.model.spring_arithmetic);
  summary["dt_s"] = sim.dt;
  summary["threads"] = threads;
  summary["num_particles"] = scene.model.num_particles;
  summary["num_springs"] = scene.model.num_springs;
  summary["steps"] = steps_done;
  summary["sim_time_s"] = state.time;
  summary["wall_time_s"] = wall;
  summary["realtime_factor"] = wall > 0.0 ? state.time / wall : 0.0;
  summary["energy_start_j"] = energy_start.total();
  summary["energy_end_j"] = energy_end.total();
  if (balance) {
    summary["fell"] = balance->fell_at >= 0.0;
    summary["balance"] = balance->summary();
    job.warnings = balance->warnings(scene.trial.name.empty() ? scene.name : scene.trial.name);
  }
  if (const ExternalForces* external = runner.externalForces(); external && external->hasAssist()) {
    summary["assist"] = {{"peak_force_n", external->peakForce()},
                         {"impulse_n_s", external->impulse()},
                         {"time_dcm_outside_region_s", external->timeOutside()}};
  }
  std::ofstream out(partialName(job.dir / "summary.json"));
  // The scene name comes from the file and need not be valid UTF-8; the
  // default handler would throw from dump().
  out << summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) {
    job.error = writeFailure(partialName(job.dir / "summary.json"), job.dir / "summary.json");
    return;
  }
  job.ok = true;
}

// One trial, start to end, into temporary files. Sets job.ok / job.error.
void simulateTrial(TrialJob& job, int threads, bool show_progress) {
  const io::Scene& scene = job.scene;
  const Model& model = scene.model;
  const io::SimulationSettings& sim = job.scene.simulation;
  std::error_code ec;
  fs::create_directories(job.dir, ec);
  if (ec) {
    job.error = "cannot create output directory '" + job.dir.string() + "': " + ec.message();
    return;
  }
  Sensors* sensors = job.sensors.get();
  job.written = {job.dir / "stream.csv"};
  if (sensors) {
    job.written.push_back(job.dir / "sensors.csv");
    job.written.push_back(job.dir / "truth.csv");
  }
  job.written.push_back(job.dir / "summary.json");  // last: marks a finished trial

  TrialFiles f;
  f.stream = openPartial(job.dir / "stream.csv");
  if (sensors) openSensorFiles(job, *sensors, f);

  TrialRunner runner(scene, threads, sensors);
  const State& state = runner.state();
  Workspace& ws = runner.workspace();
  Recorder recorder(model, scene.channels);
  f.row.resize(recorder.columns().size());
  const long num_steps = std::max(1L, std::lround(sim.duration / sim.dt));
  // Capped at the step count: a very low rate must not overflow lround.
  const long sample_every =
      std::max(1L, std::lround(std::min(static_cast<double>(num_steps), 1.0 / (sim.output_rate * sim.dt))));
  writeStreamHeader(f.stream.get(), scene, recorder, sample_every);

  const Energy energy_start = computeEnergy(model, state);
  Progress progress(show_progress);
  const auto wall_start = std::chrono::steady_clock::now();
  recorder.sample(state, &ws, f.row.data());
  writeCsvRow(f.stream.get(), state.time, f.row);
  // A robot on the ground: watch its balance at the output rate.
  std::optional<BalanceWatch> balance;
  if (scene.robot && model.ground.enabled) {
    balance.emplace(model);
    balance->sample(model, state);
  }
  double stamp = 0.0;
  if (sensors) {
    f.truth_recorder->sample(state, &ws, f.truth_row.data());
    writeCsvRow(f.truth.get(), state.time, f.truth_row);
  }
  if (runner.start(f.sensor_row.data(), &stamp)) writeCsvRow(f.sensors.get(), stamp, f.sensor_row);
  // Which element runs away first, should the run diverge (runaway_watch.h).
  RunawayWatch runaway(model);
  runaway.sample(state);
  const StepOutcome steps = runSteps(job, runner, recorder, f, num_steps, sample_every, balance, runaway, progress);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  progress.finish();
  const std::string write_error = closeFiles(job, f);
  if (steps.interrupted) {
    job.error = "interrupted by signal " + std::to_string(interruptSignal());
    return;
  }
  const Energy energy_end = computeEnergy(model, state);
  const bool diverged = steps.diverged || !(std::isfinite(energy_start.total()) && std::isfinite(energy_end.total()));
  if (!std::isfinite(energy_start.total())) {
    job.error = "the initial state is not finite: its energy overflows (check the initial positions and velocities)";
    return;
  }
  if (diverged) {
    job.error = divergenceMessage(scene, sim, state.time, runaway.firstRunaway(model));
    return;
  }
  if (!write_error.empty()) {
    job.error = write_error;
    return;
  }
  writeSummary(job, threads, runner, steps.steps_done, wall, energy_start, energy_end, balance);
}

}  // namespace

void checkServoLoops(const io::Scene& scene, const std::string& scene_path, std::vector<std::string>* warnings) {
  std::vector<int> warned;
  refuseDivergingServo(scene, scene.simulation, scene_path, warnings, &warned);
  refuseUnstableLinks(scene, scene.simulation, scene_path, warnings);
  warnGrowingJointSpace(scene, scene.simulation, warnings);
}

std::vector<TrialJob> prepareTrials(const std::string& scene_path, const std::string& only_trial,
                                    const io::SceneOverrides& overrides, const fs::path& out,
                                    std::vector<std::string>* warnings) {
  std::vector<TrialJob> jobs;
  std::vector<io::TrialSpec> trials = io::listTrials(scene_path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  if (!only_trial.empty()) {
    const auto it =
        std::find_if(trials.begin(), trials.end(), [&](const io::TrialSpec& t) { return t.name == only_trial; });
    if (it == trials.end() || only_trial != it->name) {
      throw io::SceneError(scene_path + ": no trial named '" + only_trial + "'");
    }
    trials = {*it};
  }
  for (const io::TrialSpec& t : trials) {
    TrialJob job;
    job.scene = io::loadScene(scene_path, t.name, overrides);
    job.dir = t.name.empty() ? out : out / t.name;
    jobs.push_back(std::move(job));
  }
  std::vector<int> warned;  // hinges already warned about
  for (TrialJob& job : jobs) {
    io::SimulationSettings& sim = job.scene.simulation;
    if (sim.threads == 0) sim.threads = omp_get_num_procs();
    // The robot's sensors. The reader has checked their rate against the
    // step the run uses (--dt included) at the <sensors> line; what the
    // engine's constructor refuses beyond that is named at the same line.
    if (job.scene.robot && job.scene.robot->sensors) {
      try {
        job.sensors = std::make_unique<Sensors>(job.scene.model, *job.scene.robot->sensors, sim.dt);
      } catch (const std::invalid_argument& e) {
        throw io::SceneError(scene_path + ":" + std::to_string(job.scene.robot->sensors_line) + ": <sensors> " +
                             e.what());
      }
    }
    refuseDivergingServo(job.scene, sim, scene_path, warnings, &warned);
    refuseUnstableLinks(job.scene, sim, scene_path, &job == &jobs.front() ? warnings : nullptr);
    warnGrowingJointSpace(job.scene, sim, &job == &jobs.front() ? warnings : nullptr);
    checkStepLimits(job.scene, sim, scene_path, &job == &jobs.front() ? warnings : nullptr);
  }
  return jobs;
}

bool simulateTrials(std::vector<TrialJob>& jobs, int threads, bool show_progress, const TrialDone& on_done) {
  const int n = static_cast<int>(jobs.size());
  if (n == 1) {
    // One trial: its own force loops get the threads.
    try {
      simulateTrial(jobs[0], jobs[0].scene.simulation.threads, show_progress);
    } catch (const std::exception& e) {
      jobs[0].error = e.what();
    }
    return jobs[0].ok;
  }
  // Several trials: one thread each, trials in parallel. A humanoid is far
  // below the size where its own force loops gain from threads, and every
  // trial's result is independent of how trials are spread over threads.
  // The threads are plain ones, not an OpenMP team: a trial stepping inside
  // an OpenMP region opens a team of one per force evaluation, and libgomp
  // makes a futex system call at every implicit barrier of that team (about
  // nine per evaluation), which took a quarter of the trials' CPU time;
  // outside any region the engine runs its loops without one (forces.cpp).
  const int team = std::max(1, std::min(threads > 0 ? threads : omp_get_num_procs(), n));
  std::atomic<int> next{0};
  std::mutex report;
  int done = 0;
  const auto work = [&] {
    for (int k = next++; k < n; k = next++) {
      try {
        simulateTrial(jobs[k], 1, false);
      } catch (const std::exception& e) {
        jobs[k].error = e.what();
      }
      const std::lock_guard<std::mutex> lock(report);
      ++done;
      if (on_done) on_done(jobs[k], done, n);
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < team; ++t) workers.emplace_back(work);
  work();
  for (std::thread& w : workers) w.join();
  return std::all_of(jobs.begin(), jobs.end(), [](const TrialJob& j) { return j.ok; });
}

bool commitTrials(std::vector<TrialJob>& jobs, bool keep, std::string* error) {
  std::error_code ec;
  // Only the files this run moved into place are taken back on a failure:
  // a final name it never reached may be another run's (or an earlier one's).
  std::vector<fs::path> moved;
  if (keep) {
    for (TrialJob& job : jobs) {
      for (const fs::path& p : job.written) {
        fs::rename(partialName(p), p, ec);
        if (ec) break;
        moved.push_back(p);
      }
      if (ec) break;
    }
  }
  if (!keep || ec) {
    std::error_code ignored;
    for (const fs::path& p : moved) fs::remove(p, ignored);
    for (TrialJob& job : jobs) {
      for (const fs::path& p : job.written) fs::remove(partialName(p), ignored);
      // An experiment's trial directory, if it is empty now (remove refuses otherwise).
      if (!job.scene.trial.name.empty()) fs::remove(job.dir, ignored);
    }
    if (ec && error) *error = "cannot move results into place: " + ec.message();
    return false;
  }
  return true;
}

}  // namespace suitsim::experiment
