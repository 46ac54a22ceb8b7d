// The suitsim side of the humanoid benchmarks (bench/humanoid_bench.cpp and,
// beside MuJoCo, bench/mujoco_bench.cpp): a JVRC-1 scene stepped through the
// scene's own loop, with the real-time factor as a counter.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "suitsim/experiment/runner.h"
#include "suitsim/scene/scene.h"
#include "suitsim/servo_stability.h"

namespace suitsim::bench {

/// `scene_file` (in scenes/) with its <robot> given `link_model` ("rigid"
/// or "springs", Toda and Sankai's) and `link_frequency` (rad/s), its step
/// `dt` (s) and, unless empty or 0, `integrator` (a scene name) and the
/// hinges' `constraint_frequency` (rad/s). Written to the
/// system's temporary directory (the URDF path made absolute); returns the
/// copy's path.
inline std::string editedScene(const std::string& scene_file, const std::string& link_model, double link_frequency,
                               double dt, const std::string& integrator = "", double constraint_frequency = 0.0) {
  std::ifstream in(std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  char number[32];
  std::snprintf(number, sizeof number, "%.17g", link_frequency);
  text = std::regex_replace(text, std::regex("link_frequency=\"[^\"]*\""),
                            std::string("link_frequency=\"") + number + "\" link_model=\"" + link_model + "\"");
  std::snprintf(number, sizeof number, "%.17g", dt);
  text = std::regex_replace(text, std::regex("(<simulation[^>]*) dt=\"[^\"]*\""), std::string("$1 dt=\"") + number + "\"");
  if (constraint_frequency > 0.0) {
    std::snprintf(number, sizeof number, "%.17g", constraint_frequency);
    text = std::regex_replace(text, std::regex("constraint_frequency=\"[^\"]*\""),
                              std::string("constraint_frequency=\"") + number + "\"");
  }
  if (!integrator.empty()) {
    text = std::regex_replace(text, std::regex("(<simulation[^>]*) integrator=\"[^\"]*\""),
                              std::string("$1 integrator=\"") + integrator + "\"");
  }
  text = std::regex_replace(text, std::regex("\\.\\./models/"), std::string(SUITSIM_SOURCE_DIR) + "/models/");
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("suitsim_bench_" + link_model + integrator + "_" + scene_file);
  std::ofstream(out) << text;
  return out.string();
}

/// Real-time factor of `scene_file` (in scenes/): the full step (springs,
/// ground contact, the hinge constraint solve, friction) plus the PD servo,
/// one thread, at the scene's time step, after 0.2 s of settling.
inline void humanoidScene(benchmark::State& bench, const std::string& scene_file) {
  const std::string path = scene_file.front() == '/' ? scene_file : std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file;
  const io::Scene scene = io::loadScene(path);
  const Model& model = scene.model;
  // The loop every front end steps through: servo, then the integrator.
  experiment::TrialRunner runner(scene, 1);
  runner.start();
  const State& state = runner.state();
  const double dt = scene.simulation.dt;
  auto advance = [&](long steps) {
    for (long k = 0; k < steps; ++k) runner.advance();
  };
  advance(static_cast<long>(0.2 / dt));  // settle onto the ground first
  const long batch = static_cast<long>(0.1 / dt);  // 0.1 s of simulated time per iteration
  for (auto _ : bench) {
    advance(batch);
    benchmark::DoNotOptimize(state.position.x.data());
  }
  // A run that blew up steps NaNs no slower: no figure for it.
  for (double p : state.position.z) {
    if (!std::isfinite(p)) {
      bench.SkipWithError("the state went non-finite");
      return;
    }
  }
  const double simulated = static_cast<double>(bench.iterations()) * batch * dt;
  bench.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);  // real-time factor
  bench.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(bench.iterations()) * batch,
                                                     benchmark::Counter::kIsRate);
  bench.counters["dt_s"] = dt;
  bench.counters["hinges"] = model.num_hinges;
  bench.counters["particles"] = model.num_particles;
  // With spring links: the fastest link mode's omega dt against its bound.
  double worst = 0.0;
  for (const LinkMode& l : linkModes(model)) worst = std::max(worst, l.omega * dt / l.bound);
  if (worst > 0.0) bench.counters["link_omega_dt_of_bound"] = worst;
}

/// humanoidScene on editedScene(scene_file, link_model, link_frequency, dt).
inline void humanoidEditedScene(benchmark::State& bench, const std::string& scene_file, const std::string& link_model,
                                double link_frequency, double dt) {
  humanoidScene(bench, editedScene(scene_file, link_model, link_frequency, dt));
  bench.counters["link_frequency"] = link_frequency;
}

/// A batch of `trials` independent runs of the scene at `path`, one thread
/// each, shared out over `threads` plain threads as runTrials shares a
/// batch (experiment/src/trials.cpp): simulated seconds of all trials
/// together per second of wall time, so one thread and two compare
/// directly. Each trial settles 0.2 s first; each iteration steps every
/// trial 0.5 s (long against starting the threads).
inline void humanoidBatch(benchmark::State& bench, const std::string& path, int trials, int threads) {
  const io::Scene scene = io::loadScene(path);
  const double dt = scene.simulation.dt;
  std::vector<std::unique_ptr<experiment::TrialRunner>> runners;
  for (int k = 0; k < trials; ++k) {
    runners.push_back(std::make_unique<experiment::TrialRunner>(scene, 1));
    runners.back()->start();
  }
  auto advance = [&](int first, long steps) {
    for (int k = first; k < trials; k += threads) {
      for (long s = 0; s < steps; ++s) runners[k]->advance();
    }
  };
  auto spread = [&](long steps) {
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) workers.emplace_back(advance, t, steps);
    advance(0, steps);
    for (std::thread& w : workers) w.join();
  };
  spread(static_cast<long>(0.2 / dt));
  const long batch = static_cast<long>(0.5 / dt);
  for (auto _ : bench) {
    spread(batch);
    benchmark::DoNotOptimize(runners.front()->state().position.x.data());
  }
  for (const auto& runner : runners) {
    for (double p : runner->state().position.z) {
      if (!std::isfinite(p)) {
        bench.SkipWithError("a trial's state went non-finite");
        return;
      }
    }
  }
  const double simulated = static_cast<double>(bench.iterations()) * batch * dt * trials;
  bench.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);  // all trials together
  bench.counters["trials"] = trials;
  bench.counters["threads"] = threads;
  bench.counters["dt_s"] = dt;
}

}  // namespace suitsim::bench
