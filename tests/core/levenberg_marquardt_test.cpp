// The one Levenberg-Marquardt loop (core/levenberg_marquardt.h): it solves
// a problem it is given, and its schedule (damping up and down, budgets,
// give-up rules) is the one its settings say.
#include "suitsim/core/levenberg_marquardt.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

namespace {

using suitsim::LevenbergMarquardtSettings;
using suitsim::LmStep;

// Rosenbrock's valley as least squares: r = (10 (y - x^2), 1 - x), from
// (-1.2, 1): a curved valley where undamped Gauss-Newton steps overshoot.
TEST(LevenbergMarquardt, SolvesRosenbrocksValley) {
  Eigen::Vector2d x(-1.2, 1.0);
  const auto residual = [](const Eigen::Vector2d& p) {
    return Eigen::Vector2d(10.0 * (p.y() - p.x() * p.x()), 1.0 - p.x());
  };
  Eigen::Matrix2d JtJ;
  Eigen::Vector2d g;
  const auto linearise = [&] {
    Eigen::Matrix2d J;
    J << -20.0 * x.x(), 10.0, -1.0, 0.0;
    JtJ = J.transpose() * J;
    g = J.transpose() * residual(x);
    return residual(x).squaredNorm() > 1e-30;
  };
  const auto attempt = [&](double lambda) {
    Eigen::Matrix2d A = JtJ;
    A.diagonal() += lambda * JtJ.diagonal();
    const Eigen::Vector2d trial = x - A.ldlt().solve(g);
    if (!(residual(trial).squaredNorm() < residual(x).squaredNorm())) return LmStep::kRejected;
    x = trial;
    return LmStep::kAccepted;
  };
  LevenbergMarquardtSettings s;
  s.max_iterations = 200;
  const auto out = suitsim::levenbergMarquardt(s, linearise, attempt);
  EXPECT_NEAR(x.x(), 1.0, 1e-10);
  EXPECT_NEAR(x.y(), 1.0, 1e-10);
  EXPECT_LT(out.linearisations, 200);
  EXPECT_GE(out.solves, out.accepted);
  EXPECT_GT(out.accepted, 5);
}

// Every step rejected: lambda climbs by `increase` from the initial damping
// until it passes max_damping, and the loop stops there.
TEST(LevenbergMarquardt, ADampingPastItsLimitEndsTheFit) {
  std::vector<double> tried;
  LevenbergMarquardtSettings s;
  s.initial_damping = 1e-3;
  s.increase = 10.0;
  s.max_damping = 1e2;
  const auto out = suitsim::levenbergMarquardt(
      s, [] { return true; },
      [&](double lambda) {
        tried.push_back(lambda);
        return LmStep::kRejected;
      });
  ASSERT_EQ(tried.size(), 6u);  // 1e-3, 1e-2, ..., 1e2; 1e3 is past the limit
  EXPECT_DOUBLE_EQ(tried.front(), 1e-3);
  EXPECT_NEAR(tried.back(), 1e2, 1e-10);
  EXPECT_EQ(out.linearisations, 1);
  EXPECT_EQ(out.accepted, 0);
  EXPECT_FALSE(out.converged);
}

// Accepted steps divide lambda, never below min_damping; lambda carries over
// from one linearisation to the next; max_attempts bounds each one's tries.
TEST(LevenbergMarquardt, TheScheduleIsTheSettings) {
  std::vector<double> tried;
  int call = 0;
  // accept, accept, reject, accept, then reject always
  const std::vector<LmStep> script = {LmStep::kAccepted, LmStep::kAccepted, LmStep::kRejected, LmStep::kAccepted};
  LevenbergMarquardtSettings s;
  s.initial_damping = 1.0;
  s.increase = 4.0;
  s.decrease = 3.0;
  s.min_damping = 0.2;
  s.max_attempts = 2;
  s.max_iterations = 50;
  const auto out = suitsim::levenbergMarquardt(
      s, [] { return true; },
      [&](double lambda) {
        tried.push_back(lambda);
        const LmStep step = call < static_cast<int>(script.size()) ? script[call] : LmStep::kRejected;
        ++call;
        return step;
      });
  // 1 (accepted) -> 1/3 (accepted) -> max(1/9, 0.2) = 0.2 (rejected) -> 0.8
  // (accepted, same linearisation) -> 0.8/3 (rejected) -> 16/15 (rejected):
  // two failed tries end the fit.
  const std::vector<double> expected = {1.0, 1.0 / 3.0, 0.2, 0.8, 0.8 / 3.0, 0.8 / 3.0 * 4.0};
  ASSERT_EQ(tried.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(tried[k], expected[k], 1e-15) << k;
  EXPECT_EQ(out.accepted, 3);
  EXPECT_EQ(out.linearisations, 4);
  EXPECT_EQ(out.solves, 6);
}

// The budget counts what the settings say: solves or linearisations.
TEST(LevenbergMarquardt, BudgetsCountSolvesOrLinearisations) {
  LevenbergMarquardtSettings s;
  s.max_iterations = 7;
  s.budget = LevenbergMarquardtSettings::Budget::kSolves;
  int n = 0;
  auto out = suitsim::levenbergMarquardt(
      s, [] { return true; }, [&](double) { return ++n % 2 ? LmStep::kRejected : LmStep::kAccepted; });
  EXPECT_EQ(out.solves, 7);
  s.budget = LevenbergMarquardtSettings::Budget::kLinearisations;
  out = suitsim::levenbergMarquardt(s, [] { return true; }, [](double) { return LmStep::kAccepted; });
  EXPECT_EQ(out.linearisations, 7);
  EXPECT_EQ(out.accepted, 7);
  // A converged step and a linearisation with nothing to do both end it.
  out = suitsim::levenbergMarquardt(s, [] { return true; }, [](double) { return LmStep::kConverged; });
  EXPECT_TRUE(out.converged);
  EXPECT_EQ(out.solves, 1);
  out = suitsim::levenbergMarquardt(s, [] { return false; }, [](double) { return LmStep::kAccepted; });
  EXPECT_EQ(out.solves, 0);
}

// A stop request (Ctrl-C) ends the fit at the next linearisation.
TEST(LevenbergMarquardt, AStopRequestThrows) {
  int linearisations = 0;
  LevenbergMarquardtSettings s;
  s.max_iterations = 100;
  EXPECT_THROW(suitsim::levenbergMarquardt(
                   s,
                   [&] {
                     if (++linearisations == 3) suitsim::requestStop(15);
                     return true;
                   },
                   [](double) { return LmStep::kAccepted; }),
               suitsim::Stopped);
  suitsim::requestStop(0);
  EXPECT_EQ(linearisations, 3);
}

}  // namespace
