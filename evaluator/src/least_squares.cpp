#include "suitsim/eval/least_squares.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/QR>
#include <Eigen/SVD>

#include "suitsim/core/decompositions.h"

namespace suitsim::eval {

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

/// Upper triangle (cols x cols) of the Householder QR of `stacked`, padded
/// with zero rows when it has fewer rows than columns.
void upperTriangle(MatrixXd& stacked, MatrixXd& out) {
  const Index cols = stacked.cols(), rows = std::min(stacked.rows(), cols);
  out.setZero(cols, cols);
  if (stacked.rows() == 0) return;
  Eigen::HouseholderQR<Eigen::Ref<MatrixXd>> qr(stacked);  // in place
  out.topRows(rows) = qr.matrixQR().topRows(rows).triangularView<Eigen::Upper>();
}

/// Column norms of M, and the scaling to unit norm (0 for a zero column).
VectorXd unitColumnScale(const MatrixXd& M) {
  VectorXd d(M.cols());
  for (Index j = 0; j < M.cols(); ++j) {
    const double n = M.col(j).norm();
    d[j] = n > 0.0 ? 1.0 / n : 0.0;
  }
  return d;
}

}  // namespace

TriangularAccumulator::TriangularAccumulator(int cols) : triangle_(MatrixXd::Zero(cols, cols)) {}

void TriangularAccumulator::addRows(const Eigen::Ref<const MatrixXd>& block) {
  const Index n = triangle_.cols();
  if (block.cols() != n) throw std::invalid_argument("TriangularAccumulator: block has the wrong number of columns");
  if (block.rows() == 0) return;
  stacked_.resize(n + block.rows(), n);
  stacked_.topRows(n) = triangle_;
  stacked_.bottomRows(block.rows()) = block;
  upperTriangle(stacked_, triangle_);
}

MatrixXd mergeTriangles(std::vector<MatrixXd> triangles, int cols, int threads) {
  const Index n = static_cast<Index>(triangles.size());
  if (n == 0) return MatrixXd::Zero(cols, cols);
  for (const MatrixXd& t : triangles) {
    if (t.rows() != cols || t.cols() != cols) throw std::invalid_argument("mergeTriangles: a triangle of the wrong size");
  }
  const EigenSingleThreaded sequential;
  // Fixed pairs at every level: (0, 1), (2, 3), ... then (0, 2), (4, 6), ...
  for (Index width = 1; width < n; width *= 2) {
#pragma omp parallel num_threads(std::max(threads, 1))
    {
      MatrixXd stacked;
#pragma omp for schedule(dynamic, 1)
      for (Index s = 0; s < n; s += 2 * width) {
        if (s + width >= n) continue;
        stacked.resize(2 * cols, cols);
        stacked.topRows(cols) = triangles[static_cast<std::size_t>(s)];
        stacked.bottomRows(cols) = triangles[static_cast<std::size_t>(s + width)];
        upperTriangle(stacked, triangles[static_cast<std::size_t>(s)]);
        triangles[static_cast<std::size_t>(s + width)] = MatrixXd();
      }
    }
  }
  return std::move(triangles.front());
}

EigenSingleThreaded::EigenSingleThreaded() : previous_(Eigen::nbThreads()) { Eigen::setNbThreads(1); }
EigenSingleThreaded::~EigenSingleThreaded() { Eigen::setNbThreads(previous_); }

VectorXd solveRegularisedLeastSquares(const MatrixXd& M, const VectorXd& c, const VectorXd& reg_weight,
                                      const VectorXd& x_ref) {
  const Index P = M.cols(), r = M.rows();
  if (c.size() != r || reg_weight.size() != P || x_ref.size() != P) {
    throw std::invalid_argument("solveRegularisedLeastSquares: sizes do not match");
  }
  // A(15) as rows: √w_j (x_j − x_ref_j) = 0 stacked under the data.
  MatrixXd S = MatrixXd::Zero(r + P, P);
  VectorXd rhs(r + P);
  S.topRows(r) = M;
  rhs.head(r) = c;
  for (Index j = 0; j < P; ++j) {
    const double s = std::sqrt(std::max(reg_weight[j], 0.0));
    S(r + j, j) = s;
    rhs[r + j] = s * x_ref[j];
  }
  // Unit-norm columns of the whole stack: parameters of very different
  // units (kg, kg m², N m/A) then enter the factorisation on equal terms.
  const VectorXd d = unitColumnScale(S).unaryExpr([](double v) { return v > 0.0 ? v : 1.0; });
  S = S * d.asDiagonal();
  const Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(S);
  return d.asDiagonal() * cod.solve(rhs);
}

double scaledConditionNumber(const MatrixXd& M, int* unexcited) {
  const VectorXd d = unitColumnScale(M);
  std::vector<Index> used;
  for (Index j = 0; j < M.cols(); ++j) {
    if (d[j] == 0.0) continue;  // no data in this column at all
    bool duplicate = false;
    for (Index u : used) {
      // A joint sliding one way only: its Coulomb column is minus its offset column.
      const double cosine = d[j] * d[u] * M.col(j).dot(M.col(u));
      if (std::abs(cosine) > 1.0 - 1e-12) duplicate = true;
    }
    if (!duplicate) used.push_back(j);
  }
  if (unexcited) *unexcited = static_cast<int>(M.cols() - static_cast<Index>(used.size()));
  if (used.empty()) return 0.0;
  MatrixXd S(M.rows(), static_cast<Index>(used.size()));
  for (std::size_t a = 0; a < used.size(); ++a) S.col(static_cast<Index>(a)) = M.col(used[a]) * d[used[a]];
  const VectorXd s = Eigen::BDCSVD<MatrixXd>(S).singularValues();
  const double lo = s.minCoeff(), hi = s.maxCoeff();
  return lo > 0.0 ? hi / lo : std::numeric_limits<double>::infinity();
}

double UnitCovariance::variance(Index j) const {
  const auto k = static_cast<std::size_t>(j);
  return finite[k] ? scaled(j, j) * unit[j] * unit[j] : std::numeric_limits<double>::infinity();
}

namespace {

// Σ_k V_ak V_bk / s_k² over the directions k marked seen, summed in k's
// order (so the diagonal is the very sum the variances always were).
MatrixXd seenInverse(const MatrixXd& V, const VectorXd& s, const std::vector<bool>& seen) {
  const Index n = V.rows();
  MatrixXd C = MatrixXd::Zero(n, n);
  for (Index a = 0; a < n; ++a) {
    for (Index b = 0; b < n; ++b) {
      double sum = 0.0;
      for (Index k = 0; k < s.size(); ++k) {
        if (seen[static_cast<std::size_t>(k)]) sum += V(a, k) * V(b, k) / (s[k] * s[k]);
      }
      C(a, b) = sum;
    }
  }
  return C;
}

}  // namespace

UnitCovariance reducedCovariance(const MatrixXd& M) {
  const Index P = M.cols();
  UnitCovariance c;
  c.unit = unitColumnScale(M);
  const MatrixXd S = M * c.unit.asDiagonal();
  const Eigen::BDCSVD<MatrixXd> svd(S, Eigen::ComputeThinV);
  const VectorXd& s = svd.singularValues();
  const MatrixXd& V = svd.matrixV();
  const double floor = kUnseenSingularValue * std::max(s.size() > 0 ? s.maxCoeff() : 0.0, 1e-300);
  c.finite.assign(static_cast<std::size_t>(P), true);
  std::vector<bool> seen(static_cast<std::size_t>(s.size()));
  for (Index k = 0; k < s.size(); ++k) {
    seen[static_cast<std::size_t>(k)] = s[k] > floor;
    if (seen[static_cast<std::size_t>(k)]) continue;
    for (Index j = 0; j < P; ++j) {
      if (std::abs(V(j, k)) > 1e-6) c.finite[static_cast<std::size_t>(j)] = false;
    }
  }
  // M with fewer rows than columns: the missing directions are unseen too.
  for (Index j = 0; j < P; ++j) {
    if (c.unit[j] == 0.0 || (s.size() < P && V.row(j).squaredNorm() < 1.0 - 1e-12)) {
      c.finite[static_cast<std::size_t>(j)] = false;
    }
  }
  c.scaled = seenInverse(V, s, seen);
  return c;
}

UnitCovariance jacobianCovariance(const MatrixXd& G) {
  const Index np = G.cols();
  UnitCovariance c;
  c.unit = unitColumnScale(G);
  c.finite.assign(static_cast<std::size_t>(np), false);
  c.scaled = MatrixXd::Zero(np, np);
  // Parameters that act nowhere (a never-taut band's l0, a group all of
  // whose bands are slack) are left out: they have no std at all.
  std::vector<Index> kept;
  for (Index j = 0; j < np; ++j) {
    if (c.unit[j] > 0.0) kept.push_back(j);
  }
  const auto nk = static_cast<Index>(kept.size());
  if (nk == 0) return c;
  MatrixXd Gs(G.rows(), nk);
  for (Index a = 0; a < nk; ++a) Gs.col(a) = G.col(kept[a]) / G.col(kept[a]).norm();
  const Eigen::JacobiSVD<MatrixXd> svd(Gs, Eigen::ComputeFullV);
  const VectorXd& sv = svd.singularValues();
  const MatrixXd& V = svd.matrixV();
  // Directions with a singular value below this are not seen by the data
  // (e.g. l0 of mirror-image bands on a symmetric motion: only their sum).
  const double tol = 1e-9 * sv[0];
  std::vector<bool> seen(static_cast<std::size_t>(sv.size()));
  for (Index k = 0; k < sv.size(); ++k) seen[static_cast<std::size_t>(k)] = sv[k] > tol;
  const MatrixXd C = seenInverse(V, sv, seen);
  for (Index a = 0; a < nk; ++a) {
    double null_part = 0.0;
    for (Index k = 0; k < nk; ++k) {
      if (!seen[static_cast<std::size_t>(k)]) null_part += V(a, k) * V(a, k);
    }
    c.finite[static_cast<std::size_t>(kept[a])] = null_part <= 1e-12;
    for (Index b = 0; b < nk; ++b) c.scaled(kept[a], kept[b]) = C(a, b);
  }
  return c;
}

VectorXd unitVariance(const MatrixXd& M) {
  const UnitCovariance c = reducedCovariance(M);
  VectorXd variance(M.cols());
  for (Index j = 0; j < M.cols(); ++j) variance[j] = c.variance(j);
  return variance;
}

}  // namespace suitsim::eval
