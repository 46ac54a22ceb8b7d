// Correlations of a fit's parameters and its unit-noise information
// (parameter_correlation.h) against closed forms and an independent
// Monte Carlo of the least-squares estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <Eigen/Dense>

#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/eval/parameter_correlation.h"

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using suitsim::eval::parameterCorrelation;

// Columns x, x + eps y, z with x, y, z orthonormal: GᵀG = [[1, 1, 0], [1,
// 1 + eps², 0], [0, 0, 1]], whose inverse gives r_01 = -1 / sqrt(1 + eps²)
// and r_02 = r_12 = 0.
MatrixXd nearlyCollinear(double eps, double scale) {
  MatrixXd Q = Eigen::HouseholderQR<MatrixXd>(MatrixXd::Random(50, 3)).householderQ() * MatrixXd::Identity(50, 3);
  MatrixXd G(50, 3);
  G.col(0) = Q.col(0);
  G.col(1) = (Q.col(0) + eps * Q.col(1)) * scale;  // a column scale changes no correlation
  G.col(2) = Q.col(2);
  return G;
}

TEST(ParameterCorrelation, NearlyCollinearColumnsGiveTheClosedForm) {
  for (double eps : {1.0, 0.1, 1e-3}) {
    const MatrixXd r = parameterCorrelation(nearlyCollinear(eps, 37.0));
    EXPECT_NEAR(r(0, 1), -1.0 / std::sqrt(1.0 + eps * eps), 1e-9) << eps;
    EXPECT_NEAR(r(1, 0), r(0, 1), 1e-15);
    EXPECT_NEAR(r(0, 2), 0.0, 1e-9);
    EXPECT_NEAR(r(1, 2), 0.0, 1e-9);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(r(j, j), 1.0);
  }
}

TEST(ParameterCorrelation, AgreesWithTheSpreadOfLeastSquaresEstimates) {
  // An independent answer: the sample correlation of the least-squares
  // estimates over many noise draws.
  const MatrixXd G = nearlyCollinear(0.3, 2.0);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.1);
  const int draws = 4000;
  MatrixXd estimates(draws, 3);
  const Eigen::ColPivHouseholderQR<MatrixXd> qr(G);
  for (int d = 0; d < draws; ++d) {
    VectorXd e(G.rows());
    for (Eigen::Index i = 0; i < e.size(); ++i) e[i] = noise(rng);
    estimates.row(d) = qr.solve(e).transpose();
  }
  const MatrixXd centred = estimates.rowwise() - estimates.colwise().mean();
  const MatrixXd cov = centred.transpose() * centred / (draws - 1);
  const double sample_r = cov(0, 1) / std::sqrt(cov(0, 0) * cov(1, 1));
  // The sample correlation's standard error is about (1 - r²) / sqrt(n): 0.003 here.
  EXPECT_NEAR(parameterCorrelation(G)(0, 1), sample_r, 0.015);
}

TEST(ParameterCorrelation, ParametersWithoutAStdHaveNone) {
  MatrixXd G = nearlyCollinear(0.5, 1.0);
  G.col(2).setZero();  // acts nowhere
  MatrixXd r = parameterCorrelation(G);
  EXPECT_TRUE(std::isnan(r(2, 2)));
  EXPECT_TRUE(std::isnan(r(0, 2)));
  EXPECT_NEAR(r(0, 1), -1.0 / std::sqrt(1.25), 1e-9);
  // Exactly collinear: neither is separable (parameterStd says +inf).
  G.col(1) = 3.0 * G.col(0);
  r = parameterCorrelation(G);
  const VectorXd sd = suitsim::eval::parameterStd(G, 1.0);
  EXPECT_TRUE(std::isinf(sd[0]) && std::isinf(sd[1]));
  EXPECT_TRUE(std::isnan(r(0, 1)) && std::isnan(r(0, 0)));
}

TEST(ParameterCorrelation, TheReducedFormAgreesWithTheJacobianForm) {
  const MatrixXd G = nearlyCollinear(0.05, 4.0);
  suitsim::eval::TriangularAccumulator acc(3);
  acc.addRows(G);
  const MatrixXd a = parameterCorrelation(G), b = suitsim::eval::reducedCorrelation(acc.triangle());
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(ParameterCorrelation, StrongestAndPairsAreOrderedAndCut) {
  MatrixXd r(4, 4);
  r << 1.0, -0.95, 0.6, 0.2,  //
      -0.95, 1.0, 0.4, 0.91,  //
      0.6, 0.4, 1.0, std::nan(""),  //
      0.2, 0.91, std::nan(""), 1.0;
  const std::vector<std::string> names{"k:A", "l0:a", "l0:b", "mu"};
  const auto s = suitsim::eval::strongestCorrelations(r, 0, names, 0.5, 3);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].parameter, "l0:a");
  EXPECT_EQ(s[0].r, -0.95);
  EXPECT_EQ(s[1].parameter, "l0:b");
  EXPECT_EQ(suitsim::eval::strongestCorrelations(r, 0, names, 0.5, 1).size(), 1u);
  int total = 0;
  const auto pairs = suitsim::eval::correlatedPairs(r, {3, 0, 1, 2}, 0.9, 1, &total);
  EXPECT_EQ(total, 2);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].a, 0);
  EXPECT_EQ(pairs[0].b, 1);
}

TEST(ParameterCorrelation, UnitInformationSplitsTheRowsByJoint) {
  const MatrixXd G = MatrixXd::Random(30, 3);
  std::vector<int> row_joint(30);
  for (int r = 0; r < 30; ++r) row_joint[static_cast<std::size_t>(r)] = r % 3 == 0 ? 1 : 0;
  const auto info = suitsim::eval::unitInformation(G, row_joint, {"J0", "J1", "J2"}, {"k", "a", "b"}, 0, 0.01);
  ASSERT_EQ(info.joint.size(), 2u);  // J2 has no rows
  EXPECT_EQ(info.rows[0] + info.rows[1], 30);
  MatrixXd sum = MatrixXd::Zero(3, 3);
  for (const MatrixXd& T : info.factor) sum += T.transpose() * T;
  EXPECT_LT((sum - G.transpose() * G).cwiseAbs().maxCoeff(), 1e-10);
  // With unit noise on every row, the stack of factors gives parameterStd's own std.
  MatrixXd stack(6, 3);
  stack << info.factor[0], info.factor[1];
  EXPECT_NEAR(suitsim::eval::parameterStd(stack, 1.0)[0], suitsim::eval::parameterStd(G, 1.0)[0], 1e-12);
  EXPECT_THROW(suitsim::eval::unitInformation(G, {0, 1}, {"J0"}, {"k", "a", "b"}, 0, 0.01), std::invalid_argument);
}

}  // namespace
