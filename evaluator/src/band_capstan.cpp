// A capstan-aware wire model for A(26) (see band_capstan.h).
//
// Solver. Variable projection as in band_identification.cpp: for given
// natural lengths and mu the torque is linear in the group stiffnesses, so
// k comes from a column-pivoted QR and only p = [l0_b, mu] is searched, by
// a small Levenberg-Marquardt on the projected residual with a
// central-difference Jacobian (the material's stick-slip history has no
// closed-form derivative; its kinks are where a via point starts or stops
// slipping, and the differences step over them). mu is first searched on a
// grid at the elastic fit's natural lengths (the residual in mu can have
// several minima where the motions' turns trade with l0), then refined
// jointly with them from the best point.
#include "suitsim/eval/band_capstan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/QR>

#include "suitsim/capstan.h"
#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/kinematics.h"

namespace suitsim::eval {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

[[noreturn]] void argumentError(const char* function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

// The grid's spacing in mu.
constexpr double kFrictionGrid = 0.05;
// Central-difference steps: l0 (m) and mu.
constexpr double kLengthStep = 1e-5;
constexpr double kFrictionStep = 1e-4;
// LM iterations of the final joint refinement.
constexpr int kMaxIterations = 40;

struct Problem {
  const CapstanRows& rows;
  const VectorXd& torque;
  std::vector<int> band;  // fitted bands (indices into rows), (F)
  VectorXd l0_lower, l0_upper;  // each fitted band's box, (F)
  double max_friction = 0.0;
};

// Phi (R x G) at natural lengths l0 (F) and friction mu.
MatrixXd columns(const Problem& p, const VectorXd& l0, double mu) {
  const CapstanRows& rows = p.rows;
  const Index nr = static_cast<Index>(rows.sample.size());
  MatrixXd phi = MatrixXd::Zero(nr, rows.num_groups);
  for (std::size_t f = 0; f < p.band.size(); ++f) {
    const int b = p.band[f];
    const int g = rows.band_group[static_cast<std::size_t>(b)];
    const MatrixXd t = capstanTensionPerStiffness(rows.length[static_cast<std::size_t>(b)],
                                                  rows.turn[static_cast<std::size_t>(b)], l0[static_cast<Index>(f)], mu);
    const MatrixXd& J = rows.jacobian[static_cast<std::size_t>(b)];
    for (Index r = 0; r < nr; ++r) {
      // A(21) per segment: each segment's tension acts as -J_j^T T_j.
      phi(r, g) -= t.row(rows.sample[static_cast<std::size_t>(r)]).dot(J.row(r));
    }
  }
  return phi;
}

struct Evaluation {
  VectorXd k;  // (G)
  VectorXd r;  // torque - Phi k, (R)
  double cost = 0.0;
};

Evaluation evaluate(const Problem& p, const VectorXd& l0, double mu) {
  const MatrixXd phi = columns(p, l0, mu);
  Evaluation e;
  // Columns scaled to unit norm; a group that pulls nowhere keeps k = 0.
  VectorXd scale = phi.colwise().norm().transpose();
  for (Index j = 0; j < scale.size(); ++j) scale[j] = scale[j] > 0.0 ? scale[j] : 1.0;
  const MatrixXd scaled = phi * scale.cwiseInverse().asDiagonal();
  e.k = scale.cwiseInverse().asDiagonal() * VectorXd(scaled.colPivHouseholderQr().solve(p.torque));
  e.r = p.torque - phi * e.k;
  e.cost = e.r.squaredNorm();
  return e;
}

// The search's parameters: l0 (F), then mu when it is free.
struct Point {
  VectorXd l0;
  double mu = 0.0;
};

Point clampToBox(const Problem& p, Point x) {
  x.l0 = x.l0.cwiseMax(p.l0_lower).cwiseMin(p.l0_upper);
  x.mu = std::clamp(x.mu, 0.0, p.max_friction);
  return x;
}

// The pair of points a central difference in parameter i (l0, then mu)
// takes, kept inside the box (one-sided at its edge: mu = 0 is the
// frictionless band, not a bound to step over); span is their distance.
struct Difference {
  Point plus, minus;
  double span = 0.0;
};
Difference difference(const Problem& p, const Point& x, Index i) {
  Difference d{x, x, 0.0};
  if (i < x.l0.size()) {
    d.plus.l0[i] = std::min(x.l0[i] + kLengthStep, p.l0_upper[i]);
    d.minus.l0[i] = std::max(x.l0[i] - kLengthStep, p.l0_lower[i]);
    d.span = d.plus.l0[i] - d.minus.l0[i];
  } else {
    d.plus.mu = std::min(x.mu + kFrictionStep, p.max_friction);
    d.minus.mu = std::max(x.mu - kFrictionStep, 0.0);
    d.span = d.plus.mu - d.minus.mu;
  }
  return d;
}

// Levenberg-Marquardt on the projected residual; mu free or held.
Point levenbergMarquardt(const Problem& p, Point x, bool free_friction) {
  const Index nf = x.l0.size();
  const Index np = nf + (free_friction ? 1 : 0);
  Evaluation at = evaluate(p, x.l0, x.mu);
  double lambda = 1e-3;
  for (int it = 0; it < kMaxIterations; ++it) {
    MatrixXd J(at.r.size(), np);
    for (Index i = 0; i < np; ++i) {
      const Difference d = difference(p, x, i);
      J.col(i) = (evaluate(p, d.plus.l0, d.plus.mu).r - evaluate(p, d.minus.l0, d.minus.mu).r) / d.span;
    }
    const MatrixXd JtJ = J.transpose() * J;
    const VectorXd g = J.transpose() * at.r;
    bool improved = false;
    for (int attempt = 0; attempt < 10 && !improved; ++attempt) {
      MatrixXd A = JtJ;
      for (Index i = 0; i < np; ++i) A(i, i) += lambda * std::max(JtJ(i, i), 1e-12);
      const VectorXd step = -A.ldlt().solve(g);
      Point trial = x;
      trial.l0 += step.head(nf);
      if (free_friction) trial.mu += step[nf];
      trial = clampToBox(p, trial);
      const Evaluation e = evaluate(p, trial.l0, trial.mu);
      if (e.cost < at.cost) {
        const double gain = (at.cost - e.cost) / std::max(at.cost, 1e-300);
        x = trial;
        at = e;
        lambda = std::max(lambda / 3.0, 1e-9);
        improved = true;
        if (gain < 1e-10) return x;
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved) break;
  }
  return x;
}

}  // namespace

CapstanRows sampleCapstanRows(const RigidModel& model, const std::vector<WireGeometry>& wires,
                              const MatrixXd& joint_angles, const std::vector<Index>& row_sample,
                              const std::vector<int>& row_joint) {
  constexpr const char* kFunction = "sampleCapstanRows";
  if (joint_angles.rows() == 0 || joint_angles.cols() != model.num_joints || !joint_angles.allFinite()) {
    argumentError(kFunction, "joint_angles must be N x " + std::to_string(model.num_joints) +
                                 " (num_joints), N >= 1, finite");
  }
  if (row_sample.size() != row_joint.size()) argumentError(kFunction, "one joint per fit row is needed");
  const Index n = joint_angles.rows(), nr = static_cast<Index>(row_sample.size());
  // The fit rows at each sample.
  std::vector<std::vector<Index>> rows_at(static_cast<std::size_t>(n));
  for (Index r = 0; r < nr; ++r) {
    const Index t = row_sample[static_cast<std::size_t>(r)];
    const int j = row_joint[static_cast<std::size_t>(r)];
    if (t < 0 || t >= n || j < 0 || j >= model.num_joints) argumentError(kFunction, "fit row out of range");
    rows_at[static_cast<std::size_t>(t)].push_back(r);
  }
  CapstanRows out;
  out.sample = row_sample;
  out.band_group.assign(wires.size(), -1);
  for (const WireGeometry& w : wires) {
    const Index ns = static_cast<Index>(w.frame.size()) - 1;
    out.length.emplace_back(n, ns);
    out.turn.emplace_back(n, ns);
    out.jacobian.emplace_back(MatrixXd::Zero(nr, ns));
  }
  RigidData data(model);
  Configuration q(VectorXd::Zero(model.num_joints));
  for (Index t = 0; t < n; ++t) {
    q.joints = joint_angles.row(t).transpose();
    forwardKinematics(model, data, q);
    for (std::size_t i = 0; i < wires.size(); ++i) {
      const Index ns = out.length[i].cols();
      VectorXd length(ns), turn(ns);
      MatrixXd J(ns, model.num_joints);
      wireSegments(model, data, wires[i], length, turn, J);
      out.length[i].row(t) = length.transpose();
      out.turn[i].row(t) = turn.transpose();
      for (Index r : rows_at[static_cast<std::size_t>(t)]) {
        out.jacobian[i].row(r) = J.col(row_joint[static_cast<std::size_t>(r)]).transpose();
      }
    }
  }
  return out;
}

MatrixXd capstanTensionPerStiffness(const MatrixXd& length, const MatrixXd& turn, double natural_length,
                                    double friction) {
  constexpr const char* kFunction = "capstanTensionPerStiffness";
  if (length.rows() != turn.rows() || length.cols() != turn.cols() || length.cols() < 1) {
    argumentError(kFunction, "length and turn must both be N x S, S >= 1");
  }
  if (!(natural_length > 0.0) || !(friction >= 0.0)) {
    argumentError(kFunction, "the natural length must be > 0 and the friction >= 0");
  }
  const Index n = length.rows();
  const int ns = static_cast<int>(length.cols());
  MatrixXd tension(n, ns);
  if (n == 0) return tension;
  if (friction == 0.0) {
    // No friction: A(25)'s one tension on every segment (the engine's
    // frictionless path).
    for (Index t = 0; t < n; ++t) tension.row(t).setConstant(std::max(0.0, length.row(t).sum() - natural_length));
    return tension;
  }
  // Per unit stiffness, k l0 = l0 and the band has no damper or arm.
  const double kl0 = natural_length;
  std::vector<double> L(static_cast<std::size_t>(ns)), ratio(static_cast<std::size_t>(ns), 1.0),
      s(static_cast<std::size_t>(ns));
  for (int j = 0; j < ns; ++j) L[static_cast<std::size_t>(j)] = length(0, j);
  shareBandMaterial(natural_length, L.data(), s.data(), ns);  // the suit settled in the first pose
  for (Index t = 0; t < n; ++t) {
    for (int j = 0; j < ns; ++j) {
      L[static_cast<std::size_t>(j)] = length(t, j);
      if (j > 0) ratio[static_cast<std::size_t>(j)] = std::exp(friction * turn(t, j));
    }
    slipBandMaterial(kl0, 0.0, natural_length, L.data(), ratio.data(), s.data(), ns);
    for (int j = 0; j < ns; ++j) {
      tension(t, j) = capstanSegmentTension(kl0, L[static_cast<std::size_t>(j)], s[static_cast<std::size_t>(j)], 0.0);
    }
  }
  return tension;
}

CapstanFit fitCapstan(const CapstanRows& rows, const VectorXd& torque, const VectorXd& natural_length_start,
                      double max_friction) {
  constexpr const char* kFunction = "fitCapstan";
  const std::size_t nb = rows.band_group.size();
  const Index nr = static_cast<Index>(rows.sample.size());
  if (rows.length.size() != nb || rows.turn.size() != nb || rows.jacobian.size() != nb ||
      natural_length_start.size() != static_cast<Index>(nb) || torque.size() != nr) {
    argumentError(kFunction, "inconsistent sizes");
  }
  if (rows.num_groups <= 0) argumentError(kFunction, "no fitted group");
  if (!(max_friction >= 0.0)) argumentError(kFunction, "the friction's upper bound must be >= 0");
  Problem p{rows, torque, {}, {}, {}, max_friction};
  std::vector<double> lower, upper, start;
  for (std::size_t b = 0; b < nb; ++b) {
    if (rows.band_group[b] < 0) continue;
    if (rows.band_group[b] >= rows.num_groups) argumentError(kFunction, "band group out of range");
    if (rows.jacobian[b].rows() != nr || rows.length[b].cols() != rows.jacobian[b].cols()) {
      argumentError(kFunction, "inconsistent sizes");
    }
    const double l0 = natural_length_start[static_cast<Index>(b)];
    if (!(l0 > 0.0) || !std::isfinite(l0)) argumentError(kFunction, "a fitted band needs a finite, positive start");
    p.band.push_back(static_cast<int>(b));
    // Not above where the band is slack throughout, nor below a tenth of
    // its shortest length (a band stretched tenfold is no fabric band).
    const VectorXd total = rows.length[b].rowwise().sum();
    lower.push_back(0.1 * total.minCoeff());
    upper.push_back(total.maxCoeff());
    start.push_back(std::clamp(l0, lower.back(), upper.back()));
  }
  if (p.band.empty()) argumentError(kFunction, "no fitted band");
  p.l0_lower = Eigen::Map<const VectorXd>(lower.data(), static_cast<Index>(lower.size()));
  p.l0_upper = Eigen::Map<const VectorXd>(upper.data(), static_cast<Index>(upper.size()));
  const VectorXd l0_start = Eigen::Map<const VectorXd>(start.data(), static_cast<Index>(start.size()));

  // The grid in mu at the starting natural lengths (refitting them at every
  // point, six times the work, chose the same basin on both shipped robots),
  // then mu and the natural lengths together from its best point. The
  // points are independent: run on the threads there are, chosen in grid order, so
  // the result does not depend on the thread count.
  CapstanFit out;
  const int n_grid = static_cast<int>(std::floor(max_friction / kFrictionGrid + 1e-9)) + 1;
  std::vector<Point> grid(static_cast<std::size_t>(n_grid));
  std::vector<double> cost(static_cast<std::size_t>(n_grid));
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < n_grid; ++i) {
    const Point x{l0_start, i * kFrictionGrid};
    grid[static_cast<std::size_t>(i)] = x;
    cost[static_cast<std::size_t>(i)] = evaluate(p, x.l0, x.mu).cost;
  }
  out.frictionless_rmse = nr > 0 ? std::sqrt(cost[0] / static_cast<double>(nr)) : 0.0;
  const std::size_t best_point = static_cast<std::size_t>(std::min_element(cost.begin(), cost.end()) - cost.begin());
  Point best = grid[best_point];
  best = levenbergMarquardt(p, best, max_friction > 0.0);
  const Evaluation e = evaluate(p, best.l0, best.mu);

  out.friction = best.mu;
  out.stiffness = e.k;
  out.natural_length = VectorXd::Constant(static_cast<Index>(nb), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t f = 0; f < p.band.size(); ++f) out.natural_length[p.band[f]] = best.l0[static_cast<Index>(f)];
  const MatrixXd phi = columns(p, best.l0, best.mu);
  out.fitted_torque = phi * e.k;
  out.rmse = nr > 0 ? std::sqrt(e.cost / static_cast<double>(nr)) : 0.0;

  // sigma^2 c (G^T G)^+ over [k, l0, mu], G = d(residual)/d(parameters)
  // with k held: -Phi for k, central differences of -Phi k for the rest.
  const Index ng = rows.num_groups, nf = static_cast<Index>(p.band.size());
  const Index np = ng + nf + (max_friction > 0.0 ? 1 : 0);
  MatrixXd G(nr, np);
  G.leftCols(ng) = -phi;
  for (Index i = 0; i < np - ng; ++i) {
    const Difference d = difference(p, best, i);
    G.col(ng + i) = -(columns(p, d.plus.l0, d.plus.mu) - columns(p, d.minus.l0, d.minus.mu)) * e.k / d.span;
  }
  const double sigma2 = nr > np ? e.cost / static_cast<double>(nr - np) * residualCorrelationTime(e.r, static_cast<int>(nr), 1)
                                : std::numeric_limits<double>::infinity();
  const VectorXd std_dev = parameterStd(G, sigma2);
  out.relative_std.resize(ng);
  for (Index g = 0; g < ng; ++g) out.relative_std[g] = std_dev[g] / std::abs(e.k[g]);
  out.friction_std = max_friction > 0.0 ? std_dev[np - 1] : 0.0;
  return out;
}

}  // namespace suitsim::eval
