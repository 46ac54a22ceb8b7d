// Correlations of a fit's parameters and its Fisher information per unit
// noise (parameter_correlation.h).
#include "suitsim/eval/parameter_correlation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/QR>
#include <Eigen/SVD>

#include "suitsim/core/decompositions.h"
#include "suitsim/eval/least_squares.h"

namespace suitsim::eval {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// r = C_ab / sqrt(C_aa C_bb) for the parameters marked `finite`; NaN
// elsewhere. C may be in scaled variables: a diagonal scaling cancels.
MatrixXd normalise(const MatrixXd& C, const std::vector<bool>& finite) {
  const Index np = C.rows();
  MatrixXd r = MatrixXd::Constant(np, np, kNaN);
  for (Index a = 0; a < np; ++a) {
    if (!finite[static_cast<std::size_t>(a)] || !(C(a, a) > 0.0)) continue;
    for (Index b = 0; b < np; ++b) {
      if (!finite[static_cast<std::size_t>(b)] || !(C(b, b) > 0.0)) continue;
      r(a, b) = a == b ? 1.0 : std::clamp(C(a, b) / std::sqrt(C(a, a) * C(b, b)), -1.0, 1.0);
    }
  }
  return r;
}

}  // namespace

MatrixXd parameterCorrelation(const MatrixXd& G) {
  const Index np = G.cols();
  // parameterStd's pseudo-inverse: zero columns left out, the rest scaled to
  // unit norm, directions under 1e-9 s_max unseen, a parameter with a share
  // (> 1e-12 of its squared weight) in them not separable.
  std::vector<Index> kept;
  for (Index j = 0; j < np; ++j) {
    if (G.col(j).norm() > 0.0) kept.push_back(j);
  }
  const auto nk = static_cast<Index>(kept.size());
  std::vector<bool> finite(static_cast<std::size_t>(np), false);
  MatrixXd C = MatrixXd::Zero(np, np);
  if (nk == 0) return normalise(C, finite);
  MatrixXd Gs(G.rows(), nk);
  for (Index a = 0; a < nk; ++a) Gs.col(a) = G.col(kept[a]) / G.col(kept[a]).norm();
  const Eigen::JacobiSVD<MatrixXd> svd(Gs, Eigen::ComputeFullV);
  const VectorXd& sv = svd.singularValues();
  const MatrixXd& V = svd.matrixV();
  const double tol = 1e-9 * sv[0];
  for (Index a = 0; a < nk; ++a) {
    double null_part = 0.0;
    for (Index c = 0; c < nk; ++c) {
      if (!(sv[c] > tol)) null_part += V(a, c) * V(a, c);
    }
    finite[static_cast<std::size_t>(kept[a])] = null_part <= 1e-12;
    for (Index b = 0; b < nk; ++b) {
      double sum = 0.0;
      for (Index c = 0; c < nk; ++c) {
        if (sv[c] > tol) sum += V(a, c) * V(b, c) / (sv[c] * sv[c]);
      }
      C(kept[a], kept[b]) = sum;
    }
  }
  return normalise(C, finite);
}

MatrixXd reducedCorrelation(const MatrixXd& M) {
  const Index np = M.cols();
  VectorXd d(np);
  for (Index j = 0; j < np; ++j) {
    const double n = M.col(j).norm();
    d[j] = n > 0.0 ? 1.0 / n : 0.0;
  }
  const Eigen::BDCSVD<MatrixXd> svd(M * d.asDiagonal(), Eigen::ComputeThinV);
  const VectorXd& s = svd.singularValues();
  const MatrixXd& V = svd.matrixV();
  // unitVariance's rule: a direction at or below kUnseenSingularValue s_max
  // is unseen, and so is every parameter with |V_jk| > 1e-6 in one.
  const double floor = kUnseenSingularValue * std::max(s.size() > 0 ? s.maxCoeff() : 0.0, 1e-300);
  std::vector<bool> finite(static_cast<std::size_t>(np), true);
  VectorXd inverse_sq = VectorXd::Zero(s.size());
  for (Index k = 0; k < s.size(); ++k) {
    if (s[k] > floor) {
      inverse_sq[k] = 1.0 / (s[k] * s[k]);
      continue;
    }
    for (Index j = 0; j < np; ++j) {
      if (std::abs(V(j, k)) > 1e-6) finite[static_cast<std::size_t>(j)] = false;
    }
  }
  for (Index j = 0; j < np; ++j) {
    if (d[j] == 0.0 || (s.size() < np && V.row(j).squaredNorm() < 1.0 - 1e-12)) finite[static_cast<std::size_t>(j)] = false;
  }
  const MatrixXd C = V * inverse_sq.asDiagonal() * V.transpose();
  return normalise(C, finite);
}

std::vector<ParameterCorrelation> strongestCorrelations(const MatrixXd& correlation, int row,
                                                        const std::vector<std::string>& names, double min_abs,
                                                        int count) {
  std::vector<int> order;
  for (Index j = 0; j < correlation.cols(); ++j) {
    const double r = correlation(row, j);
    if (j != row && std::isfinite(r) && std::abs(r) >= min_abs) order.push_back(static_cast<int>(j));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return std::abs(correlation(row, a)) > std::abs(correlation(row, b)); });
  std::vector<ParameterCorrelation> out;
  for (std::size_t i = 0; i < order.size() && static_cast<int>(i) < count; ++i) {
    out.push_back({names.at(static_cast<std::size_t>(order[i])), correlation(row, order[i])});
  }
  return out;
}

std::vector<CorrelatedPair> correlatedPairs(const MatrixXd& correlation, const std::vector<int>& columns,
                                            double min_abs, int count, int* total) {
  std::vector<int> sorted = columns;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<CorrelatedPair> pairs;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    for (std::size_t k = i + 1; k < sorted.size(); ++k) {
      const double r = correlation(sorted[i], sorted[k]);
      if (std::isfinite(r) && std::abs(r) >= min_abs) pairs.push_back({sorted[i], sorted[k], r});
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const CorrelatedPair& x, const CorrelatedPair& y) { return std::abs(x.r) > std::abs(y.r); });
  if (total) *total = static_cast<int>(pairs.size());
  if (static_cast<int>(pairs.size()) > count) pairs.resize(static_cast<std::size_t>(std::max(count, 0)));
  return pairs;
}

UnitInformation unitInformation(const MatrixXd& G, const std::vector<int>& row_joint,
                                const std::vector<std::string>& joint_names, std::vector<std::string> parameter,
                                int stiffness, double row_interval) {
  if (static_cast<Index>(row_joint.size()) != G.rows() || static_cast<Index>(parameter.size()) != G.cols()) {
    throw std::invalid_argument("unitInformation: " + std::to_string(G.rows()) + " x " + std::to_string(G.cols()) +
                                " Jacobian with " + std::to_string(row_joint.size()) + " row joints and " +
                                std::to_string(parameter.size()) + " parameter names");
  }
  UnitInformation out;
  out.parameter = std::move(parameter);
  out.stiffness = stiffness;
  out.row_interval = row_interval;
  const Index np = G.cols();
  for (std::size_t j = 0; j < joint_names.size(); ++j) {
    std::vector<Index> rows;
    for (std::size_t r = 0; r < row_joint.size(); ++r) {
      if (row_joint[r] == static_cast<int>(j)) rows.push_back(static_cast<Index>(r));
    }
    if (rows.empty()) continue;
    // T_jᵀ T_j = Σ g_r g_rᵀ over the joint's rows, without forming the
    // product (least_squares.h: the normal matrix squares the condition).
    TriangularAccumulator acc(static_cast<int>(np));
    MatrixXd block(static_cast<Index>(rows.size()), np);
    for (std::size_t r = 0; r < rows.size(); ++r) block.row(static_cast<Index>(r)) = G.row(rows[r]);
    acc.addRows(block);
    out.joint.push_back(joint_names[j]);
    out.factor.push_back(acc.triangle());
    out.rows.push_back(static_cast<int>(rows.size()));
  }
  return out;
}

}  // namespace suitsim::eval
