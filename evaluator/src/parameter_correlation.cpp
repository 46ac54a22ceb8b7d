// Correlations of a fit's parameters and its Fisher information per unit
// noise (parameter_correlation.h).
#include "suitsim/eval/parameter_correlation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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

MatrixXd correlation(const UnitCovariance& c) { return normalise(c.scaled, c.finite); }

MatrixXd parameterCorrelation(const MatrixXd& G) { return correlation(jacobianCovariance(G)); }

MatrixXd reducedCorrelation(const MatrixXd& M) { return correlation(reducedCovariance(M)); }

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
