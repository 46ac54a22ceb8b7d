// The springs' storage order for the force kernel (springs.cpp): tiles,
// fused and edge blocks, the incidence lists the second pass sums
// (spring_layout.cpp says how and why).
#pragma once

#include <vector>

#include "kernel_layout.h"
#include "suitsim/builder.h"
#include "suitsim/model.h"

namespace suitsim {

/// Stores `springs` into `m` in the kernel's order, with its tiles, blocks
/// and incidence lists.
void layoutSprings(const std::vector<SpringSpec>& springs, int num_particles, Model& m);

}  // namespace suitsim
