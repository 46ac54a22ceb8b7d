// The engine's hot functions are cloned per CPU (engine/src/isa_clones.h)
// and must give the same numbers on every CPU. This test runs the engine as
// built (on this machine's clone: AVX-512 or AVX2 where the CPU has it) and
// compares its trajectory, bit for bit, with the baseline program's, the
// same code built without clones (SSE2 only).
#include <gtest/gtest.h>

#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "isa_trajectory.h"

namespace {

TEST(Isa, CloneForThisCpuGivesTheBaselineTrajectory) {
  const std::vector<double> ours = suitsim::testing::isaTrajectory();
  ASSERT_GT(ours.size(), 1000u);
  std::FILE* pipe = popen(SUITSIM_ISA_BASELINE, "r");
  ASSERT_NE(pipe, nullptr) << SUITSIM_ISA_BASELINE;
  std::vector<double> baseline;
  char line[64];
  while (std::fgets(line, sizeof line, pipe) != nullptr) baseline.push_back(std::strtod(line, nullptr));
  ASSERT_EQ(pclose(pipe), 0) << SUITSIM_ISA_BASELINE;
  ASSERT_EQ(baseline.size(), ours.size());
  int differ = 0;
  for (std::size_t k = 0; k < ours.size(); ++k) {
    if (std::memcmp(&ours[k], &baseline[k], sizeof(double)) != 0 && ++differ <= 5) {
      ADD_FAILURE() << "value " << k << ": " << ours[k] << " here, " << baseline[k] << " in the baseline build";
    }
  }
  EXPECT_EQ(differ, 0);
  double moved = 0.0;  // the run is not trivially at rest
  for (double v : ours) moved = std::max(moved, std::abs(v));
  EXPECT_GT(moved, 0.1);
}

}  // namespace
