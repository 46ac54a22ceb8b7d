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

}  // namespace

BENCHMARK_MAIN();
