// A capstan-aware wire model for A(26) (see band_capstan.h).
//
// Solver. Variable projection as in band_projection.cpp: for given
// natural lengths and mu the torque is linear in the group stiffnesses, so
// k comes from a column-pivoted QR and only p = [l0_b, mu] is searched
// (with arms, rho per group and log tau too), by a small
// Levenberg-Marquardt on the projected residual with a
// central-difference Jacobian (the material's stick-slip history has no
// closed-form derivative; its kinks are where a via point starts or stops
// slipping, and the differences step over them). mu is first searched on a
// grid at the elastic fit's natural lengths (the residual in mu can have
// several minima where the motions' turns trade with l0), then refined
// jointly with them from the best point.
#include "band_capstan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/QR>

#include "suitsim/core/decompositions.h"
#include "suitsim/core/levenberg_marquardt.h"
#include "suitsim/core/stop.h"
#include "suitsim/robot/capstan.h"
#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/band_relaxation.h"
#include "suitsim/rigid/kinematics.h"

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
// Central-difference steps: l0 (m), mu, rho and log tau.
constexpr double kLengthStep = 1e-5;
constexpr double kFrictionStep = 1e-4;
constexpr double kRatioStep = 1e-4;
constexpr double kLogTauStep = 1e-3;
// The arms' box: rho = k_m / k up to 5 (an arm five times the spring is
// no fabric's), tau as band_relaxation.h searches it.
constexpr double kMaxRatio = 5.0;
constexpr double kMinTau = 0.05, kMaxTau = 30.0;
// LM iterations of the final joint refinement.
constexpr int kMaxIterations = 40;

struct Problem {
  const CapstanRows& rows;
  const VectorXd& torque;
  std::vector<int> band;  // fitted bands (indices into rows), (F)
  VectorXd l0_lower, l0_upper;  // each fitted band's box, (F)
  double max_friction = 0.0;
  bool arms = false;  // rho per group and tau are fitted too
};

// The search's parameters: l0 (F), then mu when it is free, then the arms'
// rho (G) and log tau when they are fitted.
struct Point {
  VectorXd l0;
  double mu = 0.0;
  VectorXd rho;  // (G), zeros without arms
  double log_tau = 0.0;
};

bool frictionFree(const Problem& p) { return p.max_friction > 0.0; }
Index numParameters(const Problem& p) {
  return static_cast<Index>(p.band.size()) + (frictionFree(p) ? 1 : 0) + (p.arms ? p.rows.num_groups + 1 : 0);
}

// Parameter i of the point, with its box and its difference step.
struct Slot {
  double* value;
  double lower, upper, step;
};
Slot slot(const Problem& p, Point& x, Index i) {
  const Index nf = x.l0.size();
  if (i < nf) return {&x.l0[i], p.l0_lower[i], p.l0_upper[i], kLengthStep};
  i -= nf;
  if (frictionFree(p)) {
    if (i == 0) return {&x.mu, 0.0, p.max_friction, kFrictionStep};
    --i;
  }
  if (i < x.rho.size()) return {&x.rho[i], 0.0, kMaxRatio, kRatioStep};
  return {&x.log_tau, std::log(kMinTau), std::log(kMaxTau), kLogTauStep};
}

// Fitted band f's part of its group's column of Phi at the point, (R):
// A(21) per segment, each segment's tension acting as -J_j^T T_j.
VectorXd bandPart(const Problem& p, const Point& x, std::size_t f) {
  const CapstanRows& rows = p.rows;
  const int b = p.band[f];
  const int g = rows.band_group[static_cast<std::size_t>(b)];
  const double l0 = x.l0[static_cast<Index>(f)];
  const MatrixXd& length = rows.length[static_cast<std::size_t>(b)];
  const VectorXd common =
      p.arms ? maxwellArmTension(rows.time, length, l0, x.rho[g], std::exp(x.log_tau)) : VectorXd();
  const MatrixXd t = capstanTensionPerStiffness(length, rows.turn[static_cast<std::size_t>(b)], l0, x.mu, common);
  const MatrixXd& J = rows.jacobian[static_cast<std::size_t>(b)];
  const Index nr = static_cast<Index>(rows.sample.size());
  VectorXd part(nr);
  for (Index r = 0; r < nr; ++r) part[r] = t.row(rows.sample[static_cast<std::size_t>(r)]).dot(J.row(r));
  return part;
}

// Phi (R x G) from the bands' parts, summed in band order (as columns()
// always has, so that a Phi assembled from kept parts has the same bits).
MatrixXd assemble(const Problem& p, const std::vector<VectorXd>& parts) {
  const CapstanRows& rows = p.rows;
  const Index nr = static_cast<Index>(rows.sample.size());
  MatrixXd phi = MatrixXd::Zero(nr, rows.num_groups);
  for (std::size_t f = 0; f < p.band.size(); ++f) {
    const int g = rows.band_group[static_cast<std::size_t>(p.band[f])];
    for (Index r = 0; r < nr; ++r) phi(r, g) -= parts[f][r];
  }
  return phi;
}

std::vector<VectorXd> bandParts(const Problem& p, const Point& x) {
  std::vector<VectorXd> parts(p.band.size());
  for (std::size_t f = 0; f < p.band.size(); ++f) parts[f] = bandPart(p, x, f);
  return parts;
}

// Phi (R x G) at the point.
MatrixXd columns(const Problem& p, const Point& x) { return assemble(p, bandParts(p, x)); }

// Whether parameter i moves fitted band f's part: its own l0, mu and tau
// move every band, rho_g the bands of group g.
bool movesBand(const Problem& p, Index i, std::size_t f) {
  const Index nf = static_cast<Index>(p.band.size());
  if (i < nf) return i == static_cast<Index>(f);
  i -= nf;
  if (frictionFree(p)) {
    if (i == 0) return true;
    --i;
  }
  if (i < p.rows.num_groups) return p.rows.band_group[static_cast<std::size_t>(p.band[f])] == i;
  return true;
}

struct Evaluation {
  VectorXd k;  // (G)
  VectorXd r;  // torque - Phi k, (R)
  double cost = 0.0;
};

Evaluation evaluateColumns(const Problem& p, const MatrixXd& phi) {
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

Evaluation evaluate(const Problem& p, const Point& x) { return evaluateColumns(p, columns(p, x)); }

// Phi at a point that differs from the one whose parts are kept in
// parameter i alone: only the bands i moves are solved again.
MatrixXd movedColumns(const Problem& p, const Point& y, Index i, std::vector<VectorXd> parts) {
  for (std::size_t f = 0; f < p.band.size(); ++f) {
    if (movesBand(p, i, f)) parts[f] = bandPart(p, y, f);
  }
  return assemble(p, parts);
}

Evaluation evaluateMoved(const Problem& p, const Point& y, Index i, const std::vector<VectorXd>& parts) {
  return evaluateColumns(p, movedColumns(p, y, i, parts));
}

Point clampToBox(const Problem& p, Point x) {
  for (Index i = 0; i < numParameters(p); ++i) {
    const Slot s = slot(p, x, i);
    *s.value = std::clamp(*s.value, s.lower, s.upper);
  }
  return x;
}

// The pair of points a central difference in parameter i takes, kept
// inside the box (one-sided at its edge: mu = 0 is the frictionless band
// and rho = 0 the arm-less one, not bounds to step over); span is their
// distance.
struct Difference {
  Point plus, minus;
  double span = 0.0;
};
Difference difference(const Problem& p, const Point& x, Index i) {
  Difference d{x, x, 0.0};
  const Slot plus = slot(p, d.plus, i), minus = slot(p, d.minus, i);
  *plus.value = std::min(*plus.value + plus.step, plus.upper);
  *minus.value = std::max(*minus.value - minus.step, minus.lower);
  d.span = *plus.value - *minus.value;
  return d;
}

// Levenberg-Marquardt (core/levenberg_marquardt.h) on the projected
// residual over every free parameter: Marquardt's scaling diag(JᵀJ) with a
// floor for a parameter that acts nowhere, a central-difference Jacobian,
// trial points clipped into the box. A fit whose cost moves by less than
// 1e-10 relative in a step has converged; ten damped solves that all fail
// to descend end it.
Point levenbergMarquardt(const Problem& p, Point x) {
  const Index np = numParameters(p);
  Evaluation at = evaluate(p, x);
  MatrixXd JtJ;
  VectorXd g;
  const LevenbergMarquardtSettings settings{
      .initial_damping = 1e-3, .increase = 4.0, .decrease = 3.0, .min_damping = 1e-9,
      .max_iterations = kMaxIterations, .max_attempts = 10};
  const auto linearise = [&] {
    MatrixXd J(at.r.size(), np);
    // A length's difference moves its own band alone: the other bands'
    // stick-slip solves (the fit's cost) are kept from x.
    const std::vector<VectorXd> parts = bandParts(p, x);
    for (Index i = 0; i < np; ++i) {
      const Difference d = difference(p, x, i);
      J.col(i) = (evaluateMoved(p, d.plus, i, parts).r - evaluateMoved(p, d.minus, i, parts).r) / d.span;
    }
    JtJ = J.transpose() * J;
    g = J.transpose() * at.r;
    return true;
  };
  const auto attempt = [&](double lambda) {
    MatrixXd A = JtJ;
    for (Index i = 0; i < np; ++i) A(i, i) += lambda * std::max(JtJ(i, i), 1e-12);
    const VectorXd step = -A.ldlt().solve(g);
    if (!step.allFinite()) return LmStep::kRejected;  // a nearly flat direction: damp harder
    Point trial = x;
    for (Index i = 0; i < np; ++i) *slot(p, trial, i).value += step[i];
    trial = clampToBox(p, trial);
    const Evaluation e = evaluate(p, trial);
    if (!(e.cost < at.cost)) return LmStep::kRejected;
    const double gain = (at.cost - e.cost) / std::max(at.cost, 1e-300);
    x = trial;
    at = e;
    return gain < 1e-10 ? LmStep::kConverged : LmStep::kAccepted;
  };
  suitsim::levenbergMarquardt(settings, linearise, attempt);
  return x;
}

// Where the arms start, from the fit without them at x: the caller's start
// (the viscoelastic fit's, made with one tension) or the best of a scan in
// tau, whichever fits better. The scan fits k and k_m per group linearly
// at each tau with the material's history held as x has it (the arm's pull
// adds alike to every segment, so its torque is -k_m a sum_j J_j), and
// takes rho = k_m / k (0 where k_m comes out negative).
Point startArms(Problem p, const Point& x, const CapstanArmStart& given) {
  const CapstanRows& rows = p.rows;
  const Index nr = static_cast<Index>(rows.sample.size()), ng = rows.num_groups;
  p.arms = false;
  const MatrixXd phi = columns(p, x);
  p.arms = true;
  Point best = x;
  double best_cost = std::numeric_limits<double>::infinity();
  if (std::isfinite(given.relaxation_time)) {
    best.rho = given.ratio.cwiseMin(kMaxRatio);
    best.log_tau = std::clamp(std::log(given.relaxation_time), std::log(kMinTau), std::log(kMaxTau));
    best_cost = evaluate(p, best).cost;
  }
  // Eight points per decade over the box.
  const int n_tau = static_cast<int>(std::ceil(8.0 * std::log10(kMaxTau / kMinTau))) + 1;
  std::vector<Point> scanned(static_cast<std::size_t>(n_tau), x);
  std::vector<double> cost(static_cast<std::size_t>(n_tau), std::numeric_limits<double>::infinity());
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < n_tau; ++i) {
    const double log_tau = std::log(kMinTau) + i * (std::log(kMaxTau) - std::log(kMinTau)) / (n_tau - 1);
    MatrixXd A(nr, 2 * ng);
    A.leftCols(ng) = phi;
    A.rightCols(ng).setZero();
    for (std::size_t f = 0; f < p.band.size(); ++f) {
      const int b = p.band[f];
      const int g = rows.band_group[static_cast<std::size_t>(b)];
      const VectorXd a = maxwellArmTension(rows.time, rows.length[static_cast<std::size_t>(b)],
                                           x.l0[static_cast<Index>(f)], 1.0, std::exp(log_tau));
      const MatrixXd& J = rows.jacobian[static_cast<std::size_t>(b)];
      for (Index r = 0; r < nr; ++r) A(r, ng + g) -= a[rows.sample[static_cast<std::size_t>(r)]] * J.row(r).sum();
    }
    VectorXd scale = A.colwise().norm().transpose();
    for (Index j = 0; j < scale.size(); ++j) scale[j] = scale[j] > 0.0 ? scale[j] : 1.0;
    const VectorXd c =
        scale.cwiseInverse().asDiagonal() * VectorXd((A * scale.cwiseInverse().asDiagonal()).colPivHouseholderQr().solve(p.torque));
    Point y = x;
    y.log_tau = log_tau;
    for (Index g = 0; g < ng; ++g) {
      const double rho = c[ng + g] / c[g];
      y.rho[g] = c[g] > 0.0 && std::isfinite(rho) ? std::clamp(rho, 0.0, kMaxRatio) : 0.0;
    }
    scanned[static_cast<std::size_t>(i)] = y;
    cost[static_cast<std::size_t>(i)] = evaluate(p, y).cost;
  }
  const std::size_t i = static_cast<std::size_t>(std::min_element(cost.begin(), cost.end()) - cost.begin());
  return cost[i] < best_cost ? scanned[i] : best;
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
                                    double friction, const VectorXd& common) {
  constexpr const char* kFunction = "capstanTensionPerStiffness";
  if (length.rows() != turn.rows() || length.cols() != turn.cols() || length.cols() < 1) {
    argumentError(kFunction, "length and turn must both be N x S, S >= 1");
  }
  if (!(natural_length > 0.0) || !(friction >= 0.0)) {
    argumentError(kFunction, "the natural length must be > 0 and the friction >= 0");
  }
  if (common.size() != 0 && common.size() != length.rows()) argumentError(kFunction, "one common part per sample");
  const Index n = length.rows();
  const int ns = static_cast<int>(length.cols());
  const bool has_common = common.size() != 0;
  MatrixXd tension(n, ns);
  if (n == 0) return tension;
  if (friction == 0.0) {
    // No friction: A(25)'s one tension on every segment, the arm's part
    // added while taut and the sum kept >= 0 (the engine's frictionless path).
    for (Index t = 0; t < n; ++t) {
      const double stretch = length.row(t).sum() - natural_length;
      tension.row(t).setConstant(stretch > 0.0 ? std::max(0.0, stretch + (has_common ? common[t] : 0.0)) : 0.0);
    }
    return tension;
  }
  // Per unit stiffness, k l0 = l0 and the common part is rho a.
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
    const double c = has_common ? common[t] : 0.0;
    slipBandMaterial(kl0, c, natural_length, L.data(), ratio.data(), s.data(), ns);
    for (int j = 0; j < ns; ++j) {
      tension(t, j) = capstanSegmentTension(kl0, L[static_cast<std::size_t>(j)], s[static_cast<std::size_t>(j)], c);
    }
  }
  return tension;
}

VectorXd maxwellArmTension(const VectorXd& time, const MatrixXd& length, double natural_length, double ratio,
                           double relaxation_time) {
  constexpr const char* kFunction = "maxwellArmTension";
  if (time.size() != length.rows()) argumentError(kFunction, "one time per sample");
  if (!(ratio >= 0.0) || !(relaxation_time > 0.0)) {
    argumentError(kFunction, "the arm's ratio must be >= 0 and its relaxation time > 0");
  }
  // The whole band's stretch, as the engine's creep sees it (bands.cpp).
  const VectorXd stretch = (length.rowwise().sum().array() - natural_length).max(0.0).matrix();
  VectorXd common = ratio * maxwellArmStretch(time, stretch, relaxation_time);
  // A slack band's arm pulls nothing (the engine's commonTension).
  for (Index t = 0; t < common.size(); ++t) {
    if (!(stretch[t] > 0.0)) common[t] = 0.0;
  }
  return common;
}

CapstanFit fitCapstan(const CapstanRows& rows, const VectorXd& torque, const VectorXd& natural_length_start,
                      double max_friction, const CapstanArmStart* arms) {
  constexpr const char* kFunction = "fitCapstan";
  const std::size_t nb = rows.band_group.size();
  const Index nr = static_cast<Index>(rows.sample.size());
  if (rows.length.size() != nb || rows.turn.size() != nb || rows.jacobian.size() != nb ||
      natural_length_start.size() != static_cast<Index>(nb) || torque.size() != nr) {
    argumentError(kFunction, "inconsistent sizes");
  }
  if (rows.num_groups <= 0) argumentError(kFunction, "no fitted group");
  if (!(max_friction >= 0.0)) argumentError(kFunction, "the friction's upper bound must be >= 0");
  if (arms) {
    const bool scan_only = std::isnan(arms->relaxation_time) && arms->ratio.size() == 0;
    if (!scan_only &&
        (arms->ratio.size() != rows.num_groups || !(arms->ratio.array() >= 0.0).all() || !arms->ratio.allFinite())) {
      argumentError(kFunction, "the arms need one finite ratio >= 0 per group");
    }
    if (!std::isnan(arms->relaxation_time) && (!(arms->relaxation_time > 0.0) || !std::isfinite(arms->relaxation_time))) {
      argumentError(kFunction, "the arms need a finite relaxation time > 0 (or NaN: none to start from)");
    }
    if (rows.time.size() != (rows.length.empty() ? 0 : rows.length.front().rows())) {
      argumentError(kFunction, "the arms need one time per sample");
    }
  }
  Problem p{rows, torque, {}, {}, {}, max_friction, arms != nullptr};
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
  // the result does not depend on the thread count. The arms, if fitted,
  // join after (startArms).
  CapstanFit out;
  const int n_grid = static_cast<int>(std::floor(max_friction / kFrictionGrid + 1e-9)) + 1;
  std::vector<Point> grid(static_cast<std::size_t>(n_grid));
  std::vector<double> cost(static_cast<std::size_t>(n_grid));
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < n_grid; ++i) {
    const Point x{l0_start, i * kFrictionGrid, VectorXd::Zero(rows.num_groups), 0.0};
    grid[static_cast<std::size_t>(i)] = x;
    cost[static_cast<std::size_t>(i)] = evaluate(p, x).cost;
  }
  out.frictionless_rmse = nr > 0 ? std::sqrt(cost[0] / static_cast<double>(nr)) : 0.0;
  const std::size_t best_point = static_cast<std::size_t>(std::min_element(cost.begin(), cost.end()) - cost.begin());
  Point best = grid[best_point];
  best = levenbergMarquardt(p, best);
  if (arms) {
    // As the viscoelastic fit rules (band_relaxation.h): an arm whose tau
    // ends at an end of the range, or that no group keeps, is the fit
    // borrowing it for another error; the fit without arms stands.
    const Point without = best;
    p.arms = true;
    best = levenbergMarquardt(p, startArms(p, best, *arms));
    const bool at_end = best.log_tau <= std::log(kMinTau) + kLogTauStep || best.log_tau >= std::log(kMaxTau) - kLogTauStep;
    if (at_end || !(best.rho.maxCoeff() > 0.0)) {
      p.arms = false;
      best = without;
    }
  }
  const Evaluation e = evaluate(p, best);

  out.friction = best.mu;
  out.stiffness = e.k;
  out.natural_length = VectorXd::Constant(static_cast<Index>(nb), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t f = 0; f < p.band.size(); ++f) out.natural_length[p.band[f]] = best.l0[static_cast<Index>(f)];
  out.relaxing_stiffness = VectorXd::Zero(rows.num_groups);
  out.relaxation_time = std::numeric_limits<double>::quiet_NaN();
  if (p.arms) {
    out.relaxing_stiffness = best.rho.cwiseProduct(e.k);
    out.relaxation_time = std::exp(best.log_tau);
  }
  const MatrixXd phi = columns(p, best);
  out.fitted_torque = phi * e.k;
  out.rmse = nr > 0 ? std::sqrt(e.cost / static_cast<double>(nr)) : 0.0;

  // sigma^2 c (G^T G)^+ over [k, l0, mu, rho, log tau], G =
  // d(residual)/d(parameters) with k held: -Phi for k, central differences
  // of -Phi k for the rest.
  const Index ng = rows.num_groups;
  const Index np = ng + numParameters(p);
  MatrixXd G(nr, np);
  G.leftCols(ng) = -phi;
  const std::vector<VectorXd> parts = bandParts(p, best);
  for (Index i = 0; i < np - ng; ++i) {
    const Difference d = difference(p, best, i);
    G.col(ng + i) = -(movedColumns(p, d.plus, i, parts) - movedColumns(p, d.minus, i, parts)) * e.k / d.span;
  }
  const double sigma2 = nr > np ? e.cost / static_cast<double>(nr - np) * residualCorrelationTime(e.r, static_cast<int>(nr), 1)
                                : std::numeric_limits<double>::infinity();
  const VectorXd std_dev = parameterStd(G, sigma2);
  out.relative_std.resize(ng);
  for (Index g = 0; g < ng; ++g) out.relative_std[g] = std_dev[g] / std::abs(e.k[g]);
  out.friction_std = frictionFree(p) ? std_dev[ng + static_cast<Index>(p.band.size())] : 0.0;
  out.jacobian = std::move(G);
  out.parameter_band = p.band;
  out.friction_column = frictionFree(p);
  out.arm_columns = p.arms;
  return out;
}

}  // namespace suitsim::eval
