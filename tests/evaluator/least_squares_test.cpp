// The identification's least squares (least_squares.h) against references
// built independently in the test: a regressor with a chosen spectrum (so the
// exact solution and the exact condition number are known by construction),
// and Eigen's SVD of the same matrix.
//
// Why these would catch the old solver: the normal equations AᵀA x = Aᵀb
// square the condition number. At κ(A) = 1e9, κ² = 1e18 is beyond 1/ε, and
// LDLT of AᵀA (what the robot's identification did before) returns no correct digit;
// the orthogonal reduction keeps about κ ε = 1e-7. Likewise a condition
// number taken as sqrt(λmax/λmin) of AᵀA is off by λmin's rounding, ε λmax,
// which at κ = 1e8 is as large as λmin itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include "suitsim/eval/least_squares.h"

namespace suitsim::eval {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

/// Random m x n matrix with orthonormal columns (Q of a Gaussian matrix).
MatrixXd orthonormalColumns(int m, int n, std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  MatrixXd g(m, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) g(i, j) = normal(rng);
  }
  const Eigen::HouseholderQR<MatrixXd> qr(g);
  return qr.householderQ() * MatrixXd::Identity(m, n);
}

/// A = U diag(s) Vᵀ with s log-spaced from 1 down to 1 / kappa: κ(A) = kappa.
/// The columns of such an A have norms within a small factor of each other,
/// so scaling them to unit norm leaves κ nearly where it is: the test
/// measures the solver, not the scaling.
MatrixXd withCondition(int m, int n, double kappa, std::mt19937& rng) {
  VectorXd s(n);
  for (int k = 0; k < n; ++k) s[k] = std::pow(kappa, -static_cast<double>(k) / (n - 1));
  return orthonormalColumns(m, n, rng) * s.asDiagonal() * orthonormalColumns(n, n, rng).transpose();
}

/// [M c] of [A b] through the accumulator, `block` rows at a time.
MatrixXd reduce(const MatrixXd& A, const VectorXd& b, int block) {
  MatrixXd Ab(A.rows(), A.cols() + 1);
  Ab << A, b;
  TriangularAccumulator acc(static_cast<int>(Ab.cols()));
  for (Eigen::Index r = 0; r < Ab.rows(); r += block) acc.addRows(Ab.middleRows(r, std::min<Eigen::Index>(block, Ab.rows() - r)));
  return acc.triangle();
}

double relativeError(const VectorXd& x, const VectorXd& truth) { return (x - truth).norm() / truth.norm(); }

TEST(LeastSquares, RecoversTheSolutionWhereTheNormalEquationsCannot) {
  std::mt19937 rng(7);
  constexpr int kRows = 3000, kCols = 40;
  constexpr double kKappa = 1e9;
  const MatrixXd A = withCondition(kRows, kCols, kKappa, rng);
  VectorXd x_true(kCols);
  for (int j = 0; j < kCols; ++j) x_true[j] = 1.0 + 0.5 * std::sin(1.7 * j);
  const VectorXd b = A * x_true;  // consistent: the exact solution is x_true

  const MatrixXd Mc = reduce(A, b, 256);  // 12 blocks: the incremental path
  const VectorXd none = VectorXd::Zero(kCols);
  const VectorXd x = solveRegularisedLeastSquares(Mc.leftCols(kCols), Mc.col(kCols), none, none);
  const double err = relativeError(x, x_true);

  // The old way, for the record: LDLT of AᵀA.
  const MatrixXd N = A.transpose() * A;
  const double err_normal = relativeError(Eigen::LDLT<MatrixXd>(N).solve(A.transpose() * b), x_true);
  std::printf("[measured] kappa 1e9: orthogonal reduction error %.3g, normal equations (LDLT) error %.3g\n", err,
              err_normal);
  // κ ε = 1e-7, with room for the accumulation over blocks.
  EXPECT_LT(err, 1e-6);
  // The reference itself shows the problem is one the normal equations fail.
  EXPECT_GT(err_normal, 1e-3);
}

TEST(LeastSquares, BlockSizeAndMergeOrderDoNotChangeTheReducedSystem) {
  std::mt19937 rng(3);
  const MatrixXd A = withCondition(500, 12, 1e4, rng);
  VectorXd b(500);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int i = 0; i < b.size(); ++i) b[i] = normal(rng);  // inconsistent: a real residual
  // MᵀM = AᵀA, Mᵀc = Aᵀb and |c|² = |b|² whatever the blocks: compare the
  // Gram matrices of [A b] and of [M c].
  MatrixXd Ab(A.rows(), A.cols() + 1);
  Ab << A, b;
  const MatrixXd gram = Ab.transpose() * Ab;
  for (int block : {1, 7, 64, 500}) {
    const MatrixXd Mc = reduce(A, b, block);
    EXPECT_LT((Mc.transpose() * Mc - gram).norm(), 1e-12 * gram.norm()) << "block " << block;
  }
  // Merging the triangles of pieces is a reduction of the whole as well.
  std::vector<MatrixXd> pieces;
  for (int r = 0; r < 500; r += 90) pieces.push_back(reduce(A.middleRows(r, std::min(90, 500 - r)), b.segment(r, std::min(90, 500 - r)), 30));
  const MatrixXd merged = mergeTriangles(pieces, 13, 2);
  EXPECT_LT((merged.transpose() * merged - gram).norm(), 1e-12 * gram.norm());
  // And the least-squares solution is the reference one (SVD of A itself).
  const VectorXd x_ref = A.jacobiSvd(Eigen::ComputeThinU | Eigen::ComputeThinV).solve(b);
  const VectorXd zero = VectorXd::Zero(12);
  const VectorXd x = solveRegularisedLeastSquares(merged.leftCols(12), merged.col(12), zero, zero);
  EXPECT_LT(relativeError(x, x_ref), 1e-10);
}

TEST(LeastSquares, MergeGivesTheSameBitsForAnyThreadCount) {
  std::mt19937 rng(5);
  std::vector<MatrixXd> pieces;
  for (int k = 0; k < 11; ++k) {  // odd: a piece without partner at some levels
    const MatrixXd A = withCondition(80, 9, 1e3, rng);
    pieces.push_back(reduce(A, A.col(0), 16));
  }
  const MatrixXd one = mergeTriangles(pieces, 10, 1);
  for (int threads : {2, 3, 8}) {
    const MatrixXd many = mergeTriangles(pieces, 10, threads);
    EXPECT_TRUE((many.array() == one.array()).all()) << threads << " threads";
  }
}

TEST(LeastSquares, RegularisationRowsGiveTheClosedFormSolution) {
  // min |A x − b|² + Σ w_j (x_j − r_j)²: (AᵀA + W) x = Aᵀb + W r. On a well
  // conditioned A the normal form is an accurate reference.
  std::mt19937 rng(11);
  const MatrixXd A = withCondition(200, 8, 10.0, rng);
  VectorXd b(200), w(8), r(8);
  for (int i = 0; i < 200; ++i) b[i] = std::cos(0.3 * i);
  for (int j = 0; j < 8; ++j) {
    w[j] = j % 3 == 0 ? 0.0 : 0.05 * (j + 1);
    r[j] = 0.1 * j - 0.3;
  }
  const MatrixXd H = A.transpose() * A + MatrixXd(w.asDiagonal());
  const VectorXd expected = Eigen::LDLT<MatrixXd>(H).solve(A.transpose() * b + w.cwiseProduct(r));
  const MatrixXd Mc = reduce(A, b, 50);
  const VectorXd x = solveRegularisedLeastSquares(Mc.leftCols(8), Mc.col(8), w, r);
  EXPECT_LT(relativeError(x, expected), 1e-12);
  // A column with no data is held at its reference by its weight alone.
  MatrixXd A0 = A;
  A0.col(4).setZero();
  const MatrixXd Mc0 = reduce(A0, b, 50);
  const VectorXd x0 = solveRegularisedLeastSquares(Mc0.leftCols(8), Mc0.col(8), w, r);
  EXPECT_NEAR(x0[4], r[4], 1e-14);
}

TEST(LeastSquares, ConditionNumberIsThatOfTheScaledRegressor) {
  std::mt19937 rng(13);
  constexpr int kCols = 30;
  MatrixXd A = withCondition(2000, kCols, 1e8, rng);
  // Columns of very different units, as φ and ξ have: the reported number
  // is that of A with unit-norm columns, not of A as given.
  for (int j = 0; j < kCols; ++j) A.col(j) *= std::pow(10.0, (j % 7) - 3);
  const MatrixXd Mc = reduce(A, VectorXd::Ones(2000), 200);
  int unexcited = -1;
  const double reported = scaledConditionNumber(Mc.leftCols(kCols), &unexcited);
  // The reference: singular values of A D itself, computed here.
  MatrixXd AD = A;
  for (int j = 0; j < kCols; ++j) AD.col(j) /= A.col(j).norm();
  const VectorXd s = AD.jacobiSvd().singularValues();
  const double expected = s.maxCoeff() / s.minCoeff();
  // And the old formula, sqrt of the eigenvalue ratio of (AD)ᵀ(AD).
  const Eigen::SelfAdjointEigenSolver<MatrixXd> es(AD.transpose() * AD, Eigen::EigenvaluesOnly);
  const double squared = std::sqrt(es.eigenvalues().maxCoeff() / std::max(es.eigenvalues().minCoeff(), 0.0));
  std::printf("[measured] scaled condition number %.6g, SVD of A D %.6g, from eig(DNDᵀ) %.6g\n", reported, expected,
              squared);
  EXPECT_EQ(unexcited, 0);
  EXPECT_NEAR(reported, expected, 1e-6 * expected);
  EXPECT_GT(expected, 1e7);  // the scaling did not hide the spectrum
}

TEST(LeastSquares, ZeroAndRepeatedColumnsAreCountedApart) {
  std::mt19937 rng(17);
  MatrixXd A = withCondition(300, 6, 50.0, rng);
  A.col(2).setZero();          // a joint that never moves: no viscous column
  A.col(5) = -3.0 * A.col(1);  // sliding one way only: Coulomb = − offset
  const MatrixXd Mc = reduce(A, VectorXd::Ones(300), 64);
  int unexcited = -1;
  const double reported = scaledConditionNumber(Mc.leftCols(6), &unexcited);
  EXPECT_EQ(unexcited, 2);
  MatrixXd kept(300, 4);
  kept << A.col(0), A.col(1), A.col(3), A.col(4);
  for (int j = 0; j < 4; ++j) kept.col(j).normalize();
  const VectorXd s = kept.jacobiSvd().singularValues();
  EXPECT_NEAR(reported, s.maxCoeff() / s.minCoeff(), 1e-10 * reported);
  // Neither has a variance; the columns that do see data keep a finite one.
  const VectorXd var = unitVariance(Mc.leftCols(6));
  for (int j : {1, 2, 5}) EXPECT_TRUE(std::isinf(var[j])) << j;
  for (int j : {0, 3, 4}) EXPECT_TRUE(std::isfinite(var[j]) && var[j] > 0.0) << j;
}

TEST(LeastSquares, UnitVarianceIsTheDiagonalOfTheInverseGramMatrix) {
  std::mt19937 rng(19);
  MatrixXd A = withCondition(400, 10, 1e5, rng);
  for (int j = 0; j < 10; ++j) A.col(j) *= 1.0 + j;
  const MatrixXd Mc = reduce(A, VectorXd::Ones(400), 100);
  const VectorXd var = unitVariance(Mc.leftCols(10));
  // Reference: (AᵀA)⁻¹ through the SVD of A, never forming AᵀA.
  const Eigen::JacobiSVD<MatrixXd> svd(A, Eigen::ComputeThinV);
  const MatrixXd Vs = svd.matrixV() * svd.singularValues().cwiseInverse().asDiagonal();
  const VectorXd expected = Vs.rowwise().squaredNorm();
  EXPECT_LT((var - expected).cwiseQuotient(expected).cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace
}  // namespace suitsim::eval
