// The baseline side of Isa.CloneForThisCpuGivesTheBaselineTrajectory: the
// trajectory of isa_trajectory.h from the engine built without per-CPU
// clones, each value printed exactly (hexadecimal floating point).
#include <cstdio>

#include "isa_trajectory.h"

int main() {
  for (double v : suitsim::testing::isaTrajectory()) std::printf("%a\n", v);
  return 0;
}
