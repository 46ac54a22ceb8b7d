// Real-time factor of the JVRC-1 humanoid scenes: the full step (springs,
// ground contact, the hinge constraint solve, friction) plus the PD servo,
// one thread, at the scene's time step.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "suitsim/io/scene.h"
#include "suitsim/experiment/runner.h"

namespace {

void humanoid(benchmark::State& bench, const std::string& scene_file) {
  const suitsim::io::Scene scene = suitsim::io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file);
  const suitsim::Model& model = scene.model;
  // The loop every front end steps through: servo, then the integrator.
  suitsim::experiment::TrialRunner runner(scene, scene.simulation.dt, 1);
  runner.start();
  const suitsim::State& state = runner.state();
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

BENCHMARK_CAPTURE(humanoid, stand, std::string("jvrc1_stand.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(humanoid, bend, std::string("jvrc1_bend.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
