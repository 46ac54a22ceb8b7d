// The yardstick for the spring kernel: the spring law T(6)-(10) as a plain
// loop over the springs, the way one writes it first, compiled with
// -O3 -march=native and the compiler free to fuse multiply-adds
// (bench/CMakeLists.txt), so the comparison is with what the compiler makes
// of straightforward code on this CPU.
#pragma once

#include <vector>

#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim::bench {

/// Per-thread force buffers for plainAcceleration, sized once.
struct PlainScratch {
  PlainScratch(const Model& model, int threads);
  int threads;
  std::vector<Vec3Array> force;  ///< one per thread, (num_particles) each (N)
};

/// The accelerations of a spring network under gravity, as computeAcceleration
/// gives them for a Model of particles and springs only: each particle's
/// weight, each spring's T u scattered to its two ends (one buffer per
/// thread, summed after), then a = F / m.
void plainAcceleration(const Model& model, const State& state, PlainScratch& scratch, Vec3Array& acceleration);

}  // namespace suitsim::bench
