// The guard's prediction (suit_fit_guard.h) against the covariance written
// out: Σ = s² (AᵀA)⁻¹, each row's variance y Σ yᵀ, the RMS of the stds.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "suitsim/design/suit_fit_guard.h"
#include "suitsim/eval/least_squares.h"

namespace {

using suitsim::design::predictedFitStd;

// The triangle of A (MᵀM = AᵀA), as the design stacks its rows.
Eigen::MatrixXd triangleOf(const Eigen::MatrixXd& A) {
  suitsim::eval::TriangularAccumulator acc(static_cast<int>(A.cols()));
  acc.addRows(A);
  return acc.triangle();
}

TEST(SuitFitGuard, PredictedStdIsTheCalibratedCovarianceAlongTheRows) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  const int P = 6, N = 40, R = 5;
  Eigen::MatrixXd A(N, P), rows(R, P);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < P; ++j) A(i, j) = g(rng) * (j + 1) * 10.0;  // columns of different scales
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < P; ++j) rows(i, j) = g(rng);
  const double c = 2.5;
  const Eigen::MatrixXd sigma = c * (A.transpose() * A).inverse();
  double sum = 0.0;
  for (int i = 0; i < R; ++i) sum += rows.row(i) * sigma * rows.row(i).transpose();
  const double expected = std::sqrt(sum / R);
  EXPECT_NEAR(predictedFitStd(triangleOf(A), c, rows), expected, 1e-10 * expected);
  // Twice the data halves the variance: the std falls by sqrt(2).
  Eigen::MatrixXd twice(2 * N, P);
  twice << A, A;
  EXPECT_NEAR(predictedFitStd(triangleOf(twice), c, rows), expected / std::sqrt(2.0), 1e-10 * expected);
}

TEST(SuitFitGuard, ARowNeedingADirectionTheMotionsDoNotSeeIsInfinite) {
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  const int P = 4, N = 30;
  Eigen::MatrixXd A(N, P);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < P; ++j) A(i, j) = g(rng);
  A.col(3).setZero();  // a parameter no motion excites
  const double c = 1.0;
  Eigen::MatrixXd needs(1, P), avoids(1, P);
  needs << 0.3, -1.0, 0.2, 1.0;
  avoids << 0.3, -1.0, 0.2, 0.0;
  EXPECT_TRUE(std::isinf(predictedFitStd(triangleOf(A), c, needs)));
  EXPECT_TRUE(std::isfinite(predictedFitStd(triangleOf(A), c, avoids)));
  // Two columns that move together: their difference is unseen.
  Eigen::MatrixXd B = A;
  B.col(3) = B.col(2);
  Eigen::MatrixXd difference(1, P), sum(1, P);
  difference << 0.0, 0.0, 1.0, -1.0;
  sum << 0.0, 0.0, 1.0, 1.0;
  EXPECT_TRUE(std::isinf(predictedFitStd(triangleOf(B), c, difference)));
  EXPECT_TRUE(std::isfinite(predictedFitStd(triangleOf(B), c, sum)));
  EXPECT_TRUE(std::isnan(predictedFitStd(triangleOf(A), c, Eigen::MatrixXd(0, P))));
}

TEST(SuitFitGuard, TheResidualVarianceIsTheCalibrationsMedian) {
  Eigen::VectorXd c(5);
  c << 4.0, 1.0, 9.0, 2.0, 100.0;
  EXPECT_EQ(suitsim::design::residualVariance(c), 4.0);
}

}  // namespace
