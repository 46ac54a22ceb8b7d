// core/statistics.h: the one autocorrelation-time rule of the robot's and
// the bands' standard deviations.
#include "suitsim/core/statistics.h"

#include <gtest/gtest.h>

#include <vector>

namespace suitsim {
namespace {

// Autocovariance sums given as a table.
double timeOf(const std::vector<double>& c, int max_lag) {
  return integratedAutocorrelationTime([&](int l) { return l < static_cast<int>(c.size()) ? c[l] : 0.0; }, max_lag);
}

// A moving average of m white samples has rho(l) = 1 - l / m for l < m, so
// tau = 1 + 2 sum (1 - l/m) = m exactly.
TEST(AutocorrelationTime, MovingAverageOfMSamplesIsM) {
  constexpr int m = 5;
  std::vector<double> c;
  for (int l = 0; l <= m + 3; ++l) c.push_back(l < m ? 1.0 - static_cast<double>(l) / m : 0.0);
  EXPECT_DOUBLE_EQ(timeOf(c, 100), 5.0);
}

// The sum stops at the first rho <= 0 (what follows is noise) and at max_lag.
TEST(AutocorrelationTime, StopsAtTheFirstNonPositiveLagAndAtTheMaximum) {
  const std::vector<double> c = {2.0, 1.0, -0.2, 1.0, 1.0};
  EXPECT_DOUBLE_EQ(timeOf(c, 10), 2.0);       // 1 + 2 (1/2), the lags after -0.2 ignored
  const std::vector<double> slow = {1.0, 0.5, 0.5, 0.5, 0.5};
  EXPECT_DOUBLE_EQ(timeOf(slow, 2), 3.0);     // 1 + 2 (0.5 + 0.5)
  EXPECT_DOUBLE_EQ(timeOf({0.0, 1.0}, 5), 1.0);  // no power: 1
  EXPECT_DOUBLE_EQ(timeOf({1.0, -0.9}, 5), 1.0);  // anticorrelated: at least 1
}

// Series fitted together: each its own time, weighted by its power, so a
// slow series does not lend its time to a fast one.
TEST(AutocorrelationTime, SeveralSeriesAverageTheirOwnTimesByPower) {
  const std::vector<std::vector<double>> c = {{3.0, 0.0}, {1.0, 0.5, 0.5, 0.5}};
  const auto autocovariance = [&](int s, int l) {
    const auto& cs = c[static_cast<std::size_t>(s)];
    return l < static_cast<int>(cs.size()) ? cs[static_cast<std::size_t>(l)] : 0.0;
  };
  // tau_0 = 1, tau_1 = 1 + 2 (0.5 * 3) = 4; weights 3 and 1.
  EXPECT_DOUBLE_EQ(meanAutocorrelationTime(2, autocovariance, 10), (3.0 * 1.0 + 1.0 * 4.0) / 4.0);
}

}  // namespace
}  // namespace suitsim
