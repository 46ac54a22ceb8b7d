// Real-time factor of the JVRC-1 humanoid scenes: the full step (springs,
// ground contact, the hinge constraint solve, friction) plus the PD servo,
// one thread, at the scene's time step.
#include <benchmark/benchmark.h>

#include <string>

#include "humanoid_case.h"

namespace {

// Named "humanoid" so the benchmarks keep their names (humanoid/stand, humanoid/bend).
void humanoid(benchmark::State& bench, const std::string& scene_file) { suitsim::bench::humanoidScene(bench, scene_file); }

BENCHMARK_CAPTURE(humanoid, stand, std::string("jvrc1_stand.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(humanoid, bend, std::string("jvrc1_bend.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(humanoid, h1_stand, std::string("h1_stand.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
// The same robot with its motors' rotors at 1 ms, one evaluation a step
// (drift-kick-drift): goal 2's standing humanoid (docs/benchmarks.md).
BENCHMARK_CAPTURE(humanoid, stand_1ms, std::string("jvrc1_stand_1ms.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The two link models on the same robot (docs/engine.md, "The two link
// models"): Toda and Sankai's spring links at the stiffest link_frequency
// a 2e-5 s step can follow, and the rigid links at that step too, so that
// the cost of a step and the cost of the step length show apart.
void linkModel(benchmark::State& bench, const std::string& scene_file, const std::string& link_model,
               double link_frequency, double dt) {
  suitsim::bench::humanoidEditedScene(bench, scene_file, link_model, link_frequency, dt);
}

BENCHMARK_CAPTURE(linkModel, jvrc1_stand_springs_6e4_dt2e-5, std::string("jvrc1_stand.xml"), std::string("springs"), 6e4, 2e-5)
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(linkModel, jvrc1_stand_rigid_dt2e-5, std::string("jvrc1_stand.xml"), std::string("rigid"), 1e3, 2e-5)
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(linkModel, h1_stand_springs_6e4_dt2e-5, std::string("h1_stand.xml"), std::string("springs"), 6e4, 2e-5)
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(linkModel, h1_stand_rigid_dt2e-5, std::string("h1_stand.xml"), std::string("rigid"), 1e3, 2e-5)
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);

constexpr double kConstraintFrequency = 500.0;  // (rad/s) x 1 ms = 0.5, as the scene's 1000 x 0.5 ms

// The standing robot at a 1 ms step, the servo's period: velocity Verlet
// evaluates the forces twice a step there (the servo's new torques void the
// cached ones), drift-kick-drift once (docs/benchmarks.md, "Humanoid").
// Both with the hinges' stabilisation at the scene's rate x dt of 0.5
// (drift-kick-drift diverges at 1).
void standAt1ms(benchmark::State& bench, const std::string& integrator) {
  suitsim::bench::humanoidScene(
      bench, suitsim::bench::editedScene("jvrc1_stand.xml", "rigid", 1e3, 1e-3, integrator, kConstraintFrequency));
}

BENCHMARK_CAPTURE(standAt1ms, velocity_verlet, std::string("velocity_verlet"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(standAt1ms, position_verlet, std::string("position_verlet"))->Unit(benchmark::kMillisecond)->MinTime(2.0);

// A batch of trials, one thread each (as `suitsim evaluate` runs its
// trials): two standing trials of scenes/jvrc1_stand_1ms.xml (rotors,
// drift-kick-drift at 1 ms), on one thread and on two. Wall time: the
// counters are rates of the whole batch.
void batch(benchmark::State& bench, int threads) {
  suitsim::bench::humanoidBatch(bench, SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand_1ms.xml", 2, threads);
}

BENCHMARK_CAPTURE(batch, stand_1ms_2trials_1thread, 1)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(batch, stand_1ms_2trials_2threads, 2)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime()->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
