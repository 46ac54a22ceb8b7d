// The greedy choice (design/selection.h) and the predicted reliability
// (reliability.h) on small synthetic problems whose answers are obvious.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "suitsim/design/excitation.h"
#include "reliability.h"
#include "suitsim/design/selection.h"

namespace suitsim::design {
namespace {

Eigen::MatrixXd diag(double a, double b, double c) { return Eigen::Vector3d(a, b, c).asDiagonal(); }

TEST(Selection, PicksTheCandidateThatExcitesWhatIsMissing) {
  // What is measured cannot tell the second parameter from the third: their
  // columns are nearly parallel.
  Eigen::MatrixXd rows(3, 3);
  rows << 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.001;
  const Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(3, 3);
  const Eigen::MatrixXd start = stackTriangles(zero, rows);
  // Only the second candidate moves them apart; the fourth is empty (rejected).
  const std::vector<Eigen::MatrixXd> pool = {stackTriangles(zero, Eigen::RowVector3d(1.0, 0.0, 0.0)),
                                             stackTriangles(zero, Eigen::RowVector3d(0.0, 1.0, -1.0)),
                                             stackTriangles(zero, Eigen::RowVector3d(0.0, 1.0, 1.0)),
                                             Eigen::MatrixXd()};
  const Selection pick = greedySelect(start, pool, 1, conditionScore, 1);
  ASSERT_EQ(pick.chosen.size(), 1u);
  EXPECT_EQ(pick.chosen[0], 1);
  EXPECT_GT(conditionScore(start), 1000.0);
  EXPECT_LT(pick.score[0], 3.0);
  // Asked for more than there is: the empty one is never chosen.
  EXPECT_EQ(greedySelect(start, pool, 5, conditionScore, 1).chosen.size(), 3u);
}

TEST(Selection, EachChoiceLowersTheConditionNumber) {
  // Rows of a random-looking regressor in four blocks; start from nothing.
  Eigen::MatrixXd rows(40, 6);
  for (int i = 0; i < rows.rows(); ++i) {
    for (int j = 0; j < rows.cols(); ++j) rows(i, j) = std::sin(1.3 * i + 0.7 * j * j + 0.1 * i * j);
  }
  std::vector<Eigen::MatrixXd> pool;
  for (int b = 0; b < 4; ++b) {
    Eigen::MatrixXd block = rows.middleRows(10 * b, 10);
    block.col(b) *= 0.01;  // each block leaves one column weak
    pool.push_back(stackTriangles(Eigen::MatrixXd::Zero(6, 6), block));
  }
  const Selection pick = greedySelect(Eigen::MatrixXd::Zero(6, 6), pool, 3, conditionScore, 2);
  ASSERT_EQ(pick.chosen.size(), 3u);
  for (std::size_t k = 1; k < pick.score.size(); ++k) EXPECT_LT(pick.score[k], pick.score[k - 1]);
  // The same choice on any thread count.
  EXPECT_EQ(greedySelect(Eigen::MatrixXd::Zero(6, 6), pool, 3, conditionScore, 1).chosen, pick.chosen);
  // The stacked triangle is that of the chosen blocks.
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(6, 6);
  for (int c : pick.chosen) expected = stackTriangles(expected, pool[static_cast<std::size_t>(c)]);
  EXPECT_NEAR((pick.triangle.transpose() * pick.triangle - expected.transpose() * expected).norm(), 0.0, 1e-10);
}

TEST(Excitation, MeasuresOfADiagonalRegressor) {
  const ExcitationMeasures m = measureExcitation(diag(3.0, 2.0, 0.5));
  // Unit-norm columns make any diagonal the identity.
  EXPECT_NEAR(m.condition_number, 1.0, 1e-12);
  EXPECT_NEAR(m.log_det, 0.0, 1e-12);
  Eigen::MatrixXd skew = diag(1.0, 1.0, 1.0);
  skew(0, 1) = 1.0;  // columns (1, 0, 0) and (1, 1, 0)/√2: singular values of [[1, c], [0, c]], c = 1/√2
  const ExcitationMeasures s = measureExcitation(skew);
  const double c = 1.0 / std::sqrt(2.0);
  // det = c, so log det of the information matrix = 2 log c.
  EXPECT_NEAR(s.log_det, 2.0 * std::log(c), 1e-12);
  EXPECT_GT(s.condition_number, 1.0);
  const ExcitationMeasures z = measureExcitation(diag(1.0, 0.0, 1.0));
  EXPECT_EQ(z.unexcited_columns, 1);
  EXPECT_EQ(z.unseen_directions, 1);
}

TEST(Reliability, PredictionsCalibrateOnWhatWasMeasured) {
  const Eigen::MatrixXd measured = diag(2.0, 1.0, 0.1);
  const Eigen::Vector3d phi(1.0, -2.0, 0.5);
  const Eigen::Vector3d rs(0.004, 0.03, std::nan(""));
  const ReliabilityModel model = calibrateReliability(measured, phi, rs, 0.01);
  const Eigen::VectorXd same = predictRelativeStd(model, measured);
  EXPECT_NEAR(same(0), 0.004, 1e-15);
  EXPECT_NEAR(same(1), 0.03, 1e-15);
  EXPECT_TRUE(std::isfinite(same(2)));  // the median ratio stands in
  // Twice the data: stds shrink by √2.
  const Eigen::VectorXd twice = predictRelativeStd(model, stackTriangles(measured, measured));
  EXPECT_NEAR(twice(1), 0.03 / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(countBelow(twice, 0.01), 1);
  // The score counts only what is above the target: more of the third
  // parameter lowers it, more of the first (already determined) does not.
  const double base = reliabilityScore(model, measured);
  EXPECT_LT(reliabilityScore(model, stackTriangles(measured, diag(0.0, 0.0, 1.0))), base);
  EXPECT_NEAR(reliabilityScore(model, stackTriangles(measured, diag(5.0, 0.0, 0.0))), base, 1e-12);
}

}  // namespace
}  // namespace suitsim::design
