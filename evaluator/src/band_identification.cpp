// Identification of band stiffness and natural length, A(26) (see
// band_identification.h for the method).
#include "suitsim/eval/band_identification.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "suitsim/eval/kinematics.h"

namespace suitsim::eval {

using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

[[noreturn]] void argumentError(const char* function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

std::string shape(const MatrixXd& m) {
  return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

void checkSamples(const char* function, const WireSamples& s) {
  const long n = s.length.rows(), b = s.numBands(), m = s.numJoints();
  if (n == 0) argumentError(function, "no samples (N = 0)");
  if (b == 0) argumentError(function, "no bands in the samples");
  if (m == 0) argumentError(function, "no joints in the samples");
  if (s.length.cols() != b) {
    argumentError(function, "length is " + shape(s.length) + ", expected N x " + std::to_string(b) +
                                " (one column per band)");
  }
  if (static_cast<long>(s.jacobian.size()) != b) {
    argumentError(function, "jacobian has " + std::to_string(s.jacobian.size()) +
                                " matrices, expected one per band (" + std::to_string(b) + ")");
  }
  for (long i = 0; i < b; ++i) {
    const MatrixXd& J = s.jacobian[i];
    if (J.rows() != n || J.cols() != m) {
      argumentError(function, "jacobian of band '" + s.band[i] + "' is " + shape(J) + ", expected " +
                                  std::to_string(n) + " x " + std::to_string(m));
    }
    if (!J.allFinite()) {
      argumentError(function, "jacobian of band '" + s.band[i] + "' has non-finite entries");
    }
  }
  if (!s.length.allFinite()) argumentError(function, "length has non-finite entries");
}

// Smoothed hinge h_w(x) ≈ max(0, x) and its slope: w softplus(x / w), written
// so neither branch overflows; w <= 0 is the exact hinge of A(25).
struct Hinge {
  double value;
  double slope;
};

Hinge hinge(double x, double w) {
  if (w <= 0.0) return x > 0.0 ? Hinge{x, 1.0} : Hinge{0.0, 0.0};
  const double z = x / w;
  const double e = std::exp(-std::abs(z));
  const double value = std::max(x, 0.0) + w * std::log1p(e);
  const double slope = z >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
  return {value, slope};
}

// The fitted part of A(26): parameters x = [k of each fitted group, l0 of
// each fitted band].
struct Problem {
  const WireSamples* samples = nullptr;
  const MatrixXd* torque = nullptr;   // τ_s, N x m
  std::vector<int> band;              // sample band of each fitted band
  std::vector<int> band_k;            // parameter index of its group's k
  int num_k = 0;                      // fitted groups
  double torque_sq = 0.0;             // Σ ‖τ_s‖²

  int numParams() const { return num_k + static_cast<int>(band.size()); }
};

// Σ_t ‖r_t‖² with r_t = τ_s − τ̂ (A(21) with the hinge h_w), and when A and g
// are given the Gauss-Newton normal equations A = Σ G_tᵀ G_t, g = Σ G_tᵀ r_t
// with G_t = ∂r_t/∂x. `width`: smoothing width of each fitted band (m).
double evaluate(const Problem& p, const VectorXd& x, const VectorXd& width, MatrixXd* A,
                VectorXd* g) {
  const WireSamples& s = *p.samples;
  const int n = s.numSamples(), m = s.numJoints(), np = p.numParams();
  const auto nb = static_cast<int>(p.band.size());
  VectorXd r(m);
  MatrixXd G(m, np);
  if (A != nullptr) {
    A->setZero(np, np);
    g->setZero(np);
  }
  double cost = 0.0;
  for (int t = 0; t < n; ++t) {
    r = p.torque->row(t).transpose();
    if (A != nullptr) G.setZero();
    for (int b = 0; b < nb; ++b) {
      const int i = p.band[b];
      const double k = x[p.band_k[b]];
      const Hinge h = hinge(s.length(t, i) - x[p.num_k + b], width[b]);
      if (h.value == 0.0 && h.slope == 0.0) continue;  // slack: no torque, no gradient
      const auto J = s.jacobian[i].row(t).transpose();
      // A(21), tension positive: τ̂ = −J k h, so r = τ_s + J k h.
      r.noalias() += (k * h.value) * J;
      if (A != nullptr) {
        G.col(p.band_k[b]).noalias() += h.value * J;
        G.col(p.num_k + b).noalias() = (-k * h.slope) * J;
      }
    }
    cost += r.squaredNorm();
    if (A != nullptr) {
      A->noalias() += G.transpose() * G;
      g->noalias() += G.transpose() * r;
    }
  }
  return cost;
}

struct LmOutcome {
  double cost = 0.0;
  int iterations = 0;
};

// Levenberg–Marquardt with Marquardt's scaling D = diag(A) (floored so a
// parameter that acts nowhere gets a zero step, not a singular system).
LmOutcome levenbergMarquardt(const Problem& p, VectorXd& x, const VectorXd& width,
                             int max_iterations) {
  const int np = p.numParams();
  MatrixXd A(np, np), A_trial(np, np), M(np, np);
  VectorXd g(np), g_trial(np), delta(np), x_trial(np);
  Eigen::LDLT<MatrixXd> ldlt(np);
  LmOutcome out;
  out.cost = evaluate(p, x, width, &A, &g);
  // An exact fit: stop at round-off of the torques themselves.
  const double cost_floor = 1e-28 * std::max(p.torque_sq, std::numeric_limits<double>::min());
  double lambda = 1e-3;
  while (out.iterations < max_iterations && out.cost > cost_floor) {
    const double max_diag = A.diagonal().maxCoeff();
    if (!(max_diag > 0.0)) break;  // no parameter changes the torque
    const VectorXd d = A.diagonal().cwiseMax(1e-12 * max_diag);
    bool accepted = false;
    while (!accepted && out.iterations < max_iterations) {
      ++out.iterations;
      M = A;
      M.diagonal() += lambda * d;
      ldlt.compute(M);
      delta = -ldlt.solve(g);
      x_trial = x + delta;
      const double cost = evaluate(p, x_trial, width, &A_trial, &g_trial);
      if (std::isfinite(cost) && cost < out.cost && delta.allFinite()) {
        accepted = true;
        const double decrease = out.cost - cost;
        const double old_cost = out.cost;
        x = x_trial;
        A.swap(A_trial);
        g.swap(g_trial);
        out.cost = cost;
        lambda = std::max(lambda / 3.0, 1e-15);
        // Converged: the cost no longer moves, or the step is round-off.
        const bool tiny_step =
            (delta.array().abs() <= 1e-13 * (x.array().abs() + 1e-9)).all();
        if (decrease <= 1e-15 * old_cost || tiny_step) return out;
      } else {
        lambda *= 4.0;
        if (lambda > 1e16) return out;  // no descent left along any damped step
      }
    }
  }
  return out;
}

}  // namespace

WireSamples sampleWires(const RigidModel& model, const std::vector<WireGeometry>& wires,
                        const Eigen::MatrixXd& joint_angles, const std::vector<std::string>& joints) {
  constexpr const char* kFunction = "sampleWires";
  if (joint_angles.rows() == 0) argumentError(kFunction, "no samples (joint_angles has 0 rows)");
  if (joint_angles.cols() != model.num_joints) {
    argumentError(kFunction, "joint_angles is " + shape(joint_angles) + ", expected N x " +
                                 std::to_string(model.num_joints) + " (num_joints)");
  }
  if (!joint_angles.allFinite()) argumentError(kFunction, "joint_angles has non-finite entries");
  if (wires.empty()) argumentError(kFunction, "no wires");
  if (joints.empty()) argumentError(kFunction, "no joints chosen");
  std::vector<int> column;
  for (const std::string& name : joints) {
    const int j = jointIndex(model, name);
    if (j < 0) argumentError(kFunction, "unknown joint '" + name + "'");
    column.push_back(j);
  }
  const auto n = joint_angles.rows();
  const auto m = static_cast<Eigen::Index>(joints.size());
  WireSamples s;
  s.joint = joints;
  s.length.resize(n, static_cast<Eigen::Index>(wires.size()));
  for (const WireGeometry& w : wires) {
    s.band.push_back(w.name);
    s.jacobian.emplace_back(n, m);
  }
  RigidData data(model);
  Configuration q(VectorXd::Zero(model.num_joints));
  Eigen::RowVectorXd J(model.num_joints);
  for (Eigen::Index t = 0; t < n; ++t) {
    q.joints = joint_angles.row(t).transpose();
    forwardKinematics(model, data, q);
    for (std::size_t i = 0; i < wires.size(); ++i) {
      s.length(t, static_cast<Eigen::Index>(i)) = wireLengthJacobian(model, data, wires[i], J);
      for (Eigen::Index c = 0; c < m; ++c) s.jacobian[i](t, c) = J[column[c]];
    }
  }
  return s;
}

Eigen::MatrixXd predictSupportingTorque(const WireSamples& samples, const Eigen::VectorXd& stiffness,
                                        const Eigen::VectorXd& natural_length) {
  constexpr const char* kFunction = "predictSupportingTorque";
  checkSamples(kFunction, samples);
  const int b = samples.numBands();
  if (stiffness.size() != b || natural_length.size() != b) {
    argumentError(kFunction, "stiffness and natural_length need one entry per band (" +
                                 std::to_string(b) + "), got " + std::to_string(stiffness.size()) +
                                 " and " + std::to_string(natural_length.size()));
  }
  MatrixXd tau = MatrixXd::Zero(samples.numSamples(), samples.numJoints());
  for (int i = 0; i < b; ++i) {
    for (int t = 0; t < samples.numSamples(); ++t) {
      const double f = wireTension(samples.length(t, i), stiffness[i], natural_length[i]);
      // A(21): τ_support = −J_iᵀ f_i.
      if (f != 0.0) tau.row(t).noalias() -= f * samples.jacobian[i].row(t);
    }
  }
  return tau;
}

BandIdentificationResult identifyBands(const WireSamples& samples,
                                       const Eigen::MatrixXd& supporting_torque,
                                       const BandIdentificationOptions& options) {
  constexpr const char* kFunction = "identifyBands";
  checkSamples(kFunction, samples);
  const int n = samples.numSamples(), nb = samples.numBands(), m = samples.numJoints();
  if (supporting_torque.rows() != n || supporting_torque.cols() != m) {
    argumentError(kFunction, "supporting_torque is " + shape(supporting_torque) + ", expected " +
                                 std::to_string(n) + " x " + std::to_string(m) +
                                 " (samples x chosen joints)");
  }
  if (!supporting_torque.allFinite()) {
    argumentError(kFunction, "supporting_torque has non-finite entries");
  }
  // ---- options ----------------------------------------------------------------
  if (options.groups.empty()) argumentError(kFunction, "no stiffness groups");
  if (options.num_starts < 1) {
    argumentError(kFunction, "num_starts must be >= 1 (got " + std::to_string(options.num_starts) + ")");
  }
  if (options.max_iterations < 1) {
    argumentError(kFunction,
                  "max_iterations must be >= 1 (got " + std::to_string(options.max_iterations) + ")");
  }
  if (!(options.relevance_threshold >= 0.0 && options.relevance_threshold < 1.0)) {
    argumentError(kFunction, "relevance_threshold must be in [0, 1) (got " +
                                 std::to_string(options.relevance_threshold) + ")");
  }
  for (double w : options.smoothing_widths) {
    if (!(w > 0.0) || !std::isfinite(w)) {
      argumentError(kFunction, "smoothing widths must be > 0 (got " + std::to_string(w) + ")");
    }
  }
  BandIdentificationResult res;
  res.band = samples.band;
  res.band_group.assign(nb, -1);
  for (std::size_t gi = 0; gi < options.groups.size(); ++gi) {
    const StiffnessGroup& group = options.groups[gi];
    if (group.bands.empty()) argumentError(kFunction, "stiffness group '" + group.name + "' has no bands");
    if (!(group.stiffness_guess > 0.0) || !std::isfinite(group.stiffness_guess)) {
      argumentError(kFunction, "stiffness group '" + group.name + "': stiffness_guess must be > 0 (got " +
                                   std::to_string(group.stiffness_guess) + ")");
    }
    for (const std::string& name : group.bands) {
      const auto it = std::find(samples.band.begin(), samples.band.end(), name);
      if (it == samples.band.end()) {
        argumentError(kFunction, "stiffness group '" + group.name + "': unknown band '" + name + "'");
      }
      const auto i = static_cast<std::size_t>(it - samples.band.begin());
      if (res.band_group[i] >= 0) {
        argumentError(kFunction, "band '" + name + "' is in two stiffness groups ('" +
                                     options.groups[res.band_group[i]].name + "' and '" + group.name + "')");
      }
      res.band_group[i] = static_cast<int>(gi);
    }
  }
  // ---- observed length ranges and the relevance screen --------------------------
  VectorXd l_min(nb), l_range(nb), effect(nb);
  for (int i = 0; i < nb; ++i) {
    l_min[i] = samples.length.col(i).minCoeff();
    l_range[i] = samples.length.col(i).maxCoeff() - l_min[i];
    // Largest possible torque of band i at unit stiffness: taut from its
    // shortest observed length on.
    double sum = 0.0;
    for (int t = 0; t < n; ++t) {
      const double stretch = samples.length(t, i) - l_min[i];
      sum += stretch * stretch * samples.jacobian[i].row(t).squaredNorm();
    }
    effect[i] = std::sqrt(sum / n);
  }
  const double strongest = effect.maxCoeff();
  res.relevance.resize(nb);
  res.fitted.assign(nb, false);
  for (int i = 0; i < nb; ++i) {
    res.relevance[i] = strongest > 0.0 ? effect[i] / strongest : 0.0;
    res.fitted[i] = res.band_group[i] >= 0 && (options.relevance_threshold == 0.0 ||
                                               res.relevance[i] >= options.relevance_threshold);
    if (!res.fitted[i]) res.band_group[i] = -1;
  }
  // ---- parameters -----------------------------------------------------------------
  const auto ng = static_cast<int>(options.groups.size());
  std::vector<int> group_param(ng, -1);
  Problem p;
  p.samples = &samples;
  p.torque = &supporting_torque;
  p.torque_sq = supporting_torque.squaredNorm();
  std::vector<int> param_group;  // group of each k parameter
  for (int i = 0; i < nb; ++i) {
    if (!res.fitted[i]) continue;
    const int gi = res.band_group[i];
    if (group_param[gi] < 0) {
      group_param[gi] = static_cast<int>(param_group.size());
      param_group.push_back(gi);
    }
    p.band.push_back(i);
  }
  p.num_k = static_cast<int>(param_group.size());
  for (int i : p.band) p.band_k.push_back(group_param[res.band_group[i]]);
  const int np = p.numParams();
  const auto nf = static_cast<int>(p.band.size());

  res.group.reserve(ng);
  for (const StiffnessGroup& group : options.groups) res.group.push_back(group.name);
  res.stiffness = VectorXd::Constant(ng, kNaN);
  res.natural_length = VectorXd::Constant(nb, kNaN);
  res.taut_samples.assign(nb, 0);
  res.never_taut.assign(nb, false);
  res.group_observable.assign(ng, false);
  res.torque_rms = std::sqrt(p.torque_sq / (static_cast<double>(n) * m));
  res.rmse = res.torque_rms;
  if (np == 0) return res;  // nothing left to fit: τ̂ = 0

  // ---- multi-start continuation (see the design note) ------------------------------
  VectorXd best_x(np), x(np), width(nf);
  double best_cost = std::numeric_limits<double>::infinity();
  for (int s = 0; s < options.num_starts; ++s) {
    const double fraction = options.num_starts == 1 ? 0.5 : double(s) / (options.num_starts - 1);
    for (int k = 0; k < p.num_k; ++k) x[k] = options.groups[param_group[k]].stiffness_guess;
    for (int b = 0; b < nf; ++b) x[p.num_k + b] = l_min[p.band[b]] + fraction * l_range[p.band[b]];
    int iterations = 0;
    for (double w : options.smoothing_widths) {
      for (int b = 0; b < nf; ++b) width[b] = w * l_range[p.band[b]];
      iterations += levenbergMarquardt(p, x, width, options.max_iterations).iterations;
    }
    width.setZero();  // finally the exact hinge of A(25)
    const LmOutcome exact = levenbergMarquardt(p, x, width, options.max_iterations);
    iterations += exact.iterations;
    if (exact.cost < best_cost) {
      best_cost = exact.cost;
      best_x = x;
      res.best_start = s;
      res.iterations = iterations;
    }
  }
  if (res.best_start < 0) return res;  // every start diverged (non-finite cost)

  // ---- report -------------------------------------------------------------------------
  for (int k = 0; k < p.num_k; ++k) res.stiffness[param_group[k]] = best_x[k];
  for (int b = 0; b < nf; ++b) {
    const int i = p.band[b];
    const double l0 = best_x[p.num_k + b];
    res.natural_length[i] = l0;
    res.taut_samples[i] = static_cast<int>((samples.length.col(i).array() > l0).count());
    res.never_taut[i] = res.taut_samples[i] == 0;
    if (!res.never_taut[i]) res.group_observable[res.band_group[i]] = true;
  }
  res.rmse = std::sqrt(best_cost / (static_cast<double>(n) * m));
  return res;
}

BandIdentificationResult identifyBands(const RigidModel& model,
                                       const std::vector<WireGeometry>& wires,
                                       const Eigen::MatrixXd& joint_angles,
                                       const std::vector<std::string>& joints,
                                       const Eigen::MatrixXd& supporting_torque,
                                       const BandIdentificationOptions& options) {
  return identifyBands(sampleWires(model, wires, joint_angles, joints), supporting_torque, options);
}

}  // namespace suitsim::eval
