// Real-time factor of the JVRC-1 humanoid scenes: the full step (springs,
// ground contact, the hinge constraint solve, friction) plus the PD servo,
// one thread, at the scene's time step.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "suitsim/io/scene.h"
#include "suitsim/servo.h"
#include "suitsim/step.h"

namespace {

void humanoid(benchmark::State& bench, const std::string& scene_file) {
  const suitsim::io::Scene scene = suitsim::io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file);
  const suitsim::Model& model = scene.model;
  suitsim::State state = suitsim::makeState(model);
  suitsim::Workspace ws(model, 1);
  std::unique_ptr<suitsim::JointServo> servo;
  if (scene.robot && scene.robot->has_servo) {
    servo = std::make_unique<suitsim::JointServo>(model, state, scene.robot->motion, scene.robot->gains,
                                                  scene.robot->servo_rate);
  }
  const double dt = scene.simulation.dt;
  auto advance = [&](long steps) {
    for (long k = 0; k < steps; ++k) {
      if (servo) servo->update(model, state);
      suitsim::step(model, state, ws, scene.simulation.integrator, dt);
    }
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
