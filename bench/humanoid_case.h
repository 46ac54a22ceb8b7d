// The suitsim side of the humanoid benchmarks (bench/humanoid_bench.cpp and,
// beside MuJoCo, bench/mujoco_bench.cpp): a JVRC-1 scene stepped through the
// scene's own loop, with the real-time factor as a counter.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "suitsim/experiment/runner.h"
#include "suitsim/io/scene.h"

namespace suitsim::bench {

/// Real-time factor of `scene_file` (in scenes/): the full step (springs,
/// ground contact, the hinge constraint solve, friction) plus the PD servo,
/// one thread, at the scene's time step, after 0.2 s of settling.
inline void humanoidScene(benchmark::State& bench, const std::string& scene_file) {
  const io::Scene scene = io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file);
  const Model& model = scene.model;
  // The loop every front end steps through: servo, then the integrator.
  experiment::TrialRunner runner(scene, scene.simulation.dt, 1);
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
  const double simulated = static_cast<double>(bench.iterations()) * batch * dt;
  bench.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);  // real-time factor
  bench.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(bench.iterations()) * batch,
                                                     benchmark::Counter::kIsRate);
  bench.counters["dt_s"] = dt;
  bench.counters["hinges"] = model.num_hinges;
  bench.counters["particles"] = model.num_particles;
}

}  // namespace suitsim::bench
