// Identification of band stiffness and natural length, A(26) (see
// band_identification.h for the method).
#include "suitsim/eval/band_identification.h"

#include "suitsim/core/statistics.h"
#include "suitsim/core/levenberg_marquardt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>

#include "suitsim/core/stop.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {

using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Squared residuals this small next to Σ ‖τ_s‖² are round-off.
constexpr double kRoundOff = 1e-24;

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

// The fitted part of A(26): stiffness of each fitted group (eliminated,
// see the design note) and natural length of each fitted band (searched).
struct Problem {
  const WireSamples* samples = nullptr;
  VectorXd torque;                    // τ_s flattened, entry t m + c, (N m)
  std::vector<int> band;              // sample band of each fitted band, (nf)
  std::vector<int> band_k;            // fitted group of each fitted band, (nf)
  int num_k = 0;                      // fitted groups
  double torque_sq = 0.0;             // Σ ‖τ_s‖²
  VectorXd l0_lower, l0_upper;        // box for each fitted band's l0 (m), (nf)

  int numBands() const { return static_cast<int>(band.size()); }
};

// Everything one evaluation at fixed l0 gives.
struct Projection {
  MatrixXd phi;      // Φ: τ̂ = Φ k, (N m x num_k)
  MatrixXd e;        // ∂r/∂l0 per unit stiffness, (N m x nf)
  VectorXd k;        // least-squares stiffness at this l0, (num_k)
  VectorXd r;        // residual τ_s − Φ k, (N m)
  double cost = 0.0; // ‖r‖²
  MatrixXd A;        // Golub–Pereyra normal matrix of the reduced problem, (nf x nf)
  VectorXd g;        // gradient of ½ cost in l0, (nf)
  // Scratch, kept between evaluations so that they do not reallocate it.
  Eigen::ColPivHouseholderQR<MatrixXd> qr;
  MatrixXd jl;       // ∂r/∂l0 at fixed k, then its part outside range(Φ), (N m x nf)
  VectorXd c;        // E_iᵀ r, (nf)
};

// Φ and E at l0 with the hinge h_w of each fitted band (w = 0: A(25)
// exactly). A(21), tension positive: τ̂ = −Σ J_iᵀ k h(l_i − l0_i), so
// column g of Φ gathers −J_i h_i over the group's bands, and with
// r = τ_s − τ̂, ∂r/∂l0_i = −k h'_i J_i = k E_i, E_i = −h'_i J_i.
void buildColumns(const Problem& p, const VectorXd& l0, const VectorXd& width, Projection& out) {
  const WireSamples& s = *p.samples;
  const int n = s.numSamples(), m = s.numJoints(), nf = p.numBands();
  out.phi.setZero(static_cast<Eigen::Index>(n) * m, p.num_k);
  out.e.setZero(static_cast<Eigen::Index>(n) * m, nf);
  for (int b = 0; b < nf; ++b) {
    const int i = p.band[b];
    const MatrixXd& J = s.jacobian[i];
    for (int t = 0; t < n; ++t) {
      const Hinge h = hinge(s.length(t, i) - l0[b], width[b]);
      if (h.value == 0.0 && h.slope == 0.0) continue;  // A(25): slack, pulls nothing
      for (int c = 0; c < m; ++c) {
        out.phi(t * m + c, p.band_k[b]) -= h.value * J(t, c);
        out.e(t * m + c, b) = -h.slope * J(t, c);
      }
    }
  }
}

// Variable projection at l0: k by least squares, the residual and, when
// `jacobian`, the Golub–Pereyra normal equations of the reduced problem.
void project(const Problem& p, const VectorXd& l0, const VectorXd& width, bool jacobian, Projection& out) {
  buildColumns(p, l0, width, out);
  Eigen::ColPivHouseholderQR<MatrixXd>& qr = out.qr;
  // A group whose column is round-off next to the strongest acts nowhere at
  // this l0: k = 0 for it rather than a huge value fitted to nothing.
  qr.setThreshold(1e-12);
  qr.compute(out.phi);
  out.k = qr.solve(p.torque);
  if (!out.k.allFinite()) out.k.setZero();
  out.r = p.torque;
  out.r.noalias() -= out.phi * out.k;
  out.cost = out.r.squaredNorm();
  if (!jacobian) return;
  const int nf = p.numBands();
  const int rank = static_cast<int>(qr.rank());
  // Kaufman's term: the part of ∂r/∂l0 = k E outside the range of Φ,
  // (I − Q₁Q₁ᵀ) k E, applied in place as Q [0; (Qᵀ k E) below row rank].
  out.jl = out.e;
  for (int b = 0; b < nf; ++b) out.jl.col(b) *= out.k[p.band_k[b]];
  // The gradient needs only this term: r is orthogonal to range(Φ).
  out.g.noalias() = out.jl.transpose() * out.r;
  qr.householderQ().adjoint().applyThisOnTheLeft(out.jl);
  out.jl.topRows(rank).setZero();
  qr.householderQ().applyThisOnTheLeft(out.jl);
  out.A.noalias() = out.jl.transpose() * out.jl;
  // Golub–Pereyra's second term, in the range of Φ (so orthogonal to the
  // first): the change of k with l0 moving the fit, Φ (ΦᵀΦ)⁻¹ ∂Φᵀ/∂l0 r.
  // Its Gram matrix is c_i c_j [(ΦᵀΦ)⁻¹]_{g(i) g(j)} with c_i = E_iᵀ r.
  if (rank > 0) {
    const MatrixXd R = qr.matrixR().topLeftCorner(rank, rank).triangularView<Eigen::Upper>();
    const MatrixXd R_inv = R.triangularView<Eigen::Upper>().solve(MatrixXd::Identity(rank, rank));
    const MatrixXd S_perm = R_inv * R_inv.transpose();
    MatrixXd S = MatrixXd::Zero(p.num_k, p.num_k);
    const auto& perm = qr.colsPermutation().indices();
    for (int a = 0; a < rank; ++a) {
      for (int c = 0; c < rank; ++c) S(perm[a], perm[c]) = S_perm(a, c);
    }
    out.c.noalias() = out.e.transpose() * out.r;
    for (int a = 0; a < nf; ++a) {
      for (int b = 0; b < nf; ++b) out.A(a, b) += out.c[a] * out.c[b] * S(p.band_k[a], p.band_k[b]);
    }
  }
}

struct LmOutcome {
  double cost = 0.0;
  int iterations = 0;
};

// Levenberg–Marquardt on the reduced problem in l0, with Marquardt's scaling
// D = diag(A) (floored so a natural length that acts nowhere gets a zero
// step, not a singular system), kept in the box [l0_lower, l0_upper]: a
// natural length at a bound that the gradient pushes outward is held there
// for the step, and every trial point is clipped into the box.
LmOutcome levenbergMarquardt(const Problem& p, VectorXd& l0, const VectorXd& width, int max_iterations) {
  const int nf = p.numBands();
  Projection buffers[2];
  Projection* here = &buffers[0];
  Projection* trial = &buffers[1];
  MatrixXd M(nf, nf);
  VectorXd delta(nf), l0_trial(nf), g(nf), d(nf);
  Eigen::LDLT<MatrixXd> ldlt(nf);
  LmOutcome out;
  project(p, l0, width, true, *here);
  out.cost = here->cost;
  // An exact fit: stop at round-off of the torques themselves.
  const double cost_floor = 1e-28 * std::max(p.torque_sq, std::numeric_limits<double>::min());
  // The schedule (core/levenberg_marquardt.h): the budget counts damped
  // solves, each of which costs a projection; a damping past 1e16 means no
  // damped step descends any more.
  const LevenbergMarquardtSettings settings{.initial_damping = 1e-3, .increase = 4.0, .decrease = 3.0,
                                            .min_damping = 1e-15, .max_damping = 1e16,
                                            .budget = LevenbergMarquardtSettings::Budget::kSolves,
                                            .max_iterations = max_iterations};
  const auto linearise = [&] {
    if (!(out.cost > cost_floor)) return false;
    const double max_diag = here->A.diagonal().maxCoeff();
    if (!(max_diag > 0.0)) return false;  // no natural length changes the fit
    d = here->A.diagonal().cwiseMax(1e-12 * max_diag);
    return true;
  };
  const auto attempt = [&](double lambda) {
    M = here->A;
    M.diagonal() += lambda * d;
    g = here->g;
    for (int b = 0; b < nf; ++b) {
      const bool held = (l0[b] <= p.l0_lower[b] && g[b] > 0.0) || (l0[b] >= p.l0_upper[b] && g[b] < 0.0);
      if (!held) continue;
      M.row(b).setZero();
      M.col(b).setZero();
      M(b, b) = 1.0;
      g[b] = 0.0;
    }
    // Normal-equation form on purpose (unlike the robot identification's
    // least squares, least_squares.h): M is nf x nf (one row per fitted
    // band, a handful), Marquardt's λ D bounds its conditioning, and an
    // inexact step only costs an iteration, since the step is accepted
    // on the cost and the cost, the gradient and k come from the QR of Φ
    // above. The estimate's accuracy does not pass through this solve.
    ldlt.compute(M);
    delta = -ldlt.solve(g);
    l0_trial = (l0 + delta).cwiseMax(p.l0_lower).cwiseMin(p.l0_upper);
    delta = l0_trial - l0;
    project(p, l0_trial, width, true, *trial);
    if (!(std::isfinite(trial->cost) && trial->cost < out.cost && delta.allFinite())) return LmStep::kRejected;
    const double decrease = out.cost - trial->cost;
    const double old_cost = out.cost;
    l0 = l0_trial;
    std::swap(here, trial);
    out.cost = here->cost;
    // Converged: the cost no longer moves, or the step is round-off.
    const bool tiny_step = (delta.array().abs() <= 1e-13 * (l0.array().abs() + 1e-9)).all();
    return decrease <= 1e-15 * old_cost || tiny_step ? LmStep::kConverged : LmStep::kAccepted;
  };
  out.iterations = suitsim::levenbergMarquardt(settings, linearise, attempt).solves;
  return out;
}

std::string figure(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

// The residual's autocorrelation time (core/statistics.h: each joint's, by
// its share of the residual power); r is N m with entry t m + c, one
// unbroken stretch of n samples.
double residualCorrelationTime(const VectorXd& r, int n, int m) {
  if (n < 3) return 1.0;
  const auto autocovariance = [&](int j, int lag) {
    double c = 0.0;
    for (int t = 0; t + lag < n; ++t) c += r[t * m + j] * r[(t + lag) * m + j];
    return c;
  };
  return meanAutocorrelationTime(m, autocovariance, n / 2);
}

VectorXd parameterStd(const MatrixXd& G, double sigma2) {
  const Eigen::Index np = G.cols();
  // Parameters that act nowhere (a never-taut band's l0, a group all of
  // whose bands are slack) are left out: they have no std at all.
  std::vector<Eigen::Index> kept;
  VectorXd scale(np);
  for (Eigen::Index j = 0; j < np; ++j) {
    scale[j] = G.col(j).norm();
    if (scale[j] > 0.0) kept.push_back(j);
  }
  const auto nk = static_cast<Eigen::Index>(kept.size());
  VectorXd std_dev = VectorXd::Constant(np, std::numeric_limits<double>::infinity());
  if (nk == 0 || !std::isfinite(sigma2)) return std_dev;
  MatrixXd Gs(G.rows(), nk);
  for (Eigen::Index a = 0; a < nk; ++a) Gs.col(a) = G.col(kept[a]) / scale[kept[a]];
  const Eigen::JacobiSVD<MatrixXd> svd(Gs, Eigen::ComputeFullV);
  const VectorXd& sv = svd.singularValues();
  const MatrixXd& V = svd.matrixV();
  // Directions with a singular value below this are not seen by the data
  // (e.g. l0 of mirror-image bands on a symmetric motion: only their sum).
  const double tol = 1e-9 * sv[0];
  for (Eigen::Index a = 0; a < nk; ++a) {
    double variance = 0.0, null_part = 0.0;
    for (Eigen::Index c = 0; c < nk; ++c) {
      if (sv[c] > tol) {
        variance += V(a, c) * V(a, c) / (sv[c] * sv[c]);
      } else {
        null_part += V(a, c) * V(a, c);
      }
    }
    if (null_part <= 1e-12) std_dev[kept[a]] = std::sqrt(sigma2 * variance) / scale[kept[a]];
  }
  return std_dev;
}

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

std::vector<StiffnessGroup> stiffnessGroups(const std::vector<RobotBand>& bands) {
  std::vector<StiffnessGroup> groups;
  for (const RobotBand& b : bands) {
    const std::string& name = b.group.empty() ? b.name : b.group;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const StiffnessGroup& g) { return g.name == name; });
    if (it == groups.end()) {
      groups.push_back({name, {b.name}});
    } else {
      it->bands.push_back(b.name);
    }
  }
  return groups;
}

namespace {

// identifyBands' options, checked.
void checkOptions(const char* function, const BandIdentificationOptions& options) {
  if (options.groups.empty()) argumentError(function, "no stiffness groups");
  if (options.num_starts < 1) {
    argumentError(function, "num_starts must be >= 1 (got " + std::to_string(options.num_starts) + ")");
  }
  if (options.max_iterations < 1) {
    argumentError(function,
                  "max_iterations must be >= 1 (got " + std::to_string(options.max_iterations) + ")");
  }
  if (!(options.relevance_threshold >= 0.0 && options.relevance_threshold < 1.0)) {
    argumentError(function, "relevance_threshold must be in [0, 1) (got " +
                                 std::to_string(options.relevance_threshold) + ")");
  }
  for (double w : options.smoothing_widths) {
    if (!(w > 0.0) || !std::isfinite(w)) {
      argumentError(function, "smoothing widths must be > 0 (got " + std::to_string(w) + ")");
    }
  }
  if (!(options.max_relative_std > 0.0) || !std::isfinite(options.max_relative_std)) {
    argumentError(function, "max_relative_std must be > 0 (got " + std::to_string(options.max_relative_std) + ")");
  }
  if (!(options.twin_taut_ratio >= 0.0 && options.twin_taut_ratio < 1.0)) {
    argumentError(function, "twin_taut_ratio must be in [0, 1) (got " + std::to_string(options.twin_taut_ratio) + ")");
  }
  if (!(options.torque_noise_std >= 0.0) || !std::isfinite(options.torque_noise_std)) {
    argumentError(function, "torque_noise_std must be >= 0 (got " + std::to_string(options.torque_noise_std) + ")");
  }
}

// Each band's stiffness group (res.band, res.band_group), checked.
void assignGroups(const char* function, const WireSamples& samples, const BandIdentificationOptions& options,
                  BandIdentificationResult& res) {
  res.band = samples.band;
  res.band_group.assign(static_cast<std::size_t>(samples.numBands()), -1);
  for (std::size_t gi = 0; gi < options.groups.size(); ++gi) {
    const StiffnessGroup& group = options.groups[gi];
    if (group.bands.empty()) argumentError(function, "stiffness group '" + group.name + "' has no bands");
    for (const std::string& name : group.bands) {
      const auto it = std::find(samples.band.begin(), samples.band.end(), name);
      if (it == samples.band.end()) {
        argumentError(function, "stiffness group '" + group.name + "': unknown band '" + name + "'");
      }
      const auto i = static_cast<std::size_t>(it - samples.band.begin());
      if (res.band_group[i] >= 0) {
        argumentError(function, "band '" + name + "' is in two stiffness groups ('" +
                                     options.groups[res.band_group[i]].name + "' and '" + group.name + "')");
      }
      res.band_group[i] = static_cast<int>(gi);
    }
  }
}

// Each band's observed length range, and the relevance screen: the bands
// whose largest possible torque is under the threshold of the strongest
// band's are not fitted (res.relevance, res.fitted).
void screenRelevance(const WireSamples& samples, const BandIdentificationOptions& options, VectorXd& l_min,
                     VectorXd& l_range, BandIdentificationResult& res) {
  const int n = samples.numSamples(), nb = samples.numBands();
  l_min.resize(nb);
  l_range.resize(nb);
  VectorXd effect(nb);
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
  }
}

// The multi-start continuation in l0 (see the design note): the natural
// lengths of the best start into `best_l0` (res.best_start, res.iterations;
// best_start stays -1 when every start diverged).
void multiStart(const Problem& p, const WireSamples& samples, const BandIdentificationOptions& options,
                const VectorXd& l_min, const VectorXd& l_range, BandIdentificationResult& res, VectorXd& best_l0) {
  const int nf = p.numBands();
  best_l0.resize(nf);
  VectorXd l0(nf), width(nf);
  double best_cost = std::numeric_limits<double>::infinity();
  bool best_plausible = false;
  // Twins: fitted bands of one group whose lengths correlate by
  // kTwinCorrelation or more over the samples.
  std::vector<std::pair<int, int>> twins;
  for (int a = 0; a < nf && options.twin_taut_ratio > 0.0; ++a) {
    for (int b = a + 1; b < nf; ++b) {
      if (res.band_group[p.band[a]] != res.band_group[p.band[b]]) continue;
      const VectorXd la = samples.length.col(p.band[a]).array() - samples.length.col(p.band[a]).mean();
      const VectorXd lb = samples.length.col(p.band[b]).array() - samples.length.col(p.band[b]).mean();
      const double norm = la.norm() * lb.norm();
      if (norm > 0.0 && la.dot(lb) / norm >= kTwinCorrelation) twins.emplace_back(a, b);
    }
  }
  for (int s = 0; s < options.num_starts; ++s) {
    throwIfStopped();
    const double fraction = options.num_starts == 1 ? 0.5 : double(s) / (options.num_starts - 1);
    for (int b = 0; b < nf; ++b) l0[b] = l_min[p.band[b]] + fraction * l_range[p.band[b]];
    int iterations = 0;
    for (double w : options.smoothing_widths) {
      for (int b = 0; b < nf; ++b) width[b] = w * l_range[p.band[b]];
      iterations += levenbergMarquardt(p, l0, width, options.max_iterations).iterations;
    }
    width.setZero();  // finally the exact hinge of A(25)
    const LmOutcome exact = levenbergMarquardt(p, l0, width, options.max_iterations);
    iterations += exact.iterations;
    // A solution in which a band is taut far less often than its twin is
    // kept only while no start gives one without (twin_taut_ratio).
    bool plausible = true;
    for (const auto& [a, b] : twins) {
      const auto taut_a = (samples.length.col(p.band[a]).array() > l0[a]).count();
      const auto taut_b = (samples.length.col(p.band[b]).array() > l0[b]).count();
      if (static_cast<double>(std::min(taut_a, taut_b)) <
          options.twin_taut_ratio * static_cast<double>(std::max(taut_a, taut_b))) {
        plausible = false;
      }
    }
    if (plausible && !best_plausible && std::isfinite(exact.cost)) {
      best_plausible = true;
      best_cost = std::numeric_limits<double>::infinity();
    }
    if (plausible == best_plausible && exact.cost < best_cost) {
      best_cost = exact.cost;
      best_l0 = l0;
      res.best_start = s;
      res.iterations = iterations;
    }
  }
}

// Per fitted group: its stiffness, std and whether it is identifiable, with
// the reason and the figures behind it.
void judgeGroups(const Problem& p, const WireSamples& samples, const BandIdentificationOptions& options,
                 const std::vector<int>& param_group, const VectorXd& best_l0, const Projection& fit,
                 const VectorXd& std_dev, int nk, BandIdentificationResult& res) {
  const int n = samples.numSamples(), m = samples.numJoints(), nf = p.numBands();
  const Eigen::Index rows = static_cast<Eigen::Index>(n) * m;
  const std::string threshold = figure("%.3g %%", 100.0 * options.max_relative_std);
  for (int kp = 0; kp < p.num_k; ++kp) {
    const int g = param_group[kp];
    const double k = fit.k[kp];
    res.stiffness_fit[g] = k;
    res.stiffness_std[g] = std_dev[kp];
    res.relative_std[g] = std_dev[kp] / std::abs(k);
    double stretch = 0.0;
    int taut = 0;
    for (int b = 0; b < nf; ++b) {
      if (p.band_k[b] != kp) continue;
      const int i = p.band[b];
      // How much the stretch max(0, l − l0) varies over the samples: with l0
      // free, a constant stretch cannot tell k from l0.
      const double longest = samples.length.col(i).maxCoeff() - best_l0[b];
      const double shortest = samples.length.col(i).minCoeff() - best_l0[b];
      stretch = std::max(stretch, std::max(longest, 0.0) - std::max(shortest, 0.0));
      taut = std::max(taut, res.taut_samples[i]);
    }
    res.group_stretch[g] = stretch;
    res.group_torque_rms[g] = std::abs(k) * fit.phi.col(kp).norm() / std::sqrt(static_cast<double>(rows));
    const std::string context = "; stretch " + figure("%.3g mm", 1e3 * stretch) +
                                " and RMS torque " + figure("%.3g N m", res.group_torque_rms[g]) + " over " +
                                std::to_string(n) + " samples";
    std::string reason;
    bool ok = false;
    if (taut == 0) {
      reason = "never taut at the estimate (0 of " + std::to_string(n) + " samples)";
    } else if (!std::isfinite(res.noise_std)) {
      reason = "too few samples for the parameters (" + std::to_string(rows) + " torques, " +
               std::to_string(nk) + " parameters)";
    } else if (!std::isfinite(std_dev[kp])) {
      reason = "not separable from the natural lengths or the other groups' stiffness";
    } else if (!(k > 0.0)) {
      reason = "stiffness " + figure("%.3g N/m", k) + " is not positive (std " + figure("%.3g N/m", std_dev[kp]) + ")";
    } else {
      ok = res.relative_std[g] <= options.max_relative_std;
      reason = "relative std " + figure("%.3g %%", 100.0 * res.relative_std[g]) + (ok ? " <= " : " > ") + threshold;
    }
    res.group_identifiable[g] = ok;
    res.group_reason[g] = reason + context;
    if (ok) res.stiffness[g] = k;
  }
}

// Every estimate of the result unknown (NaN) until the fit gives it.
void clearEstimates(const BandIdentificationOptions& options, int nb, BandIdentificationResult& res) {
  const auto ng = static_cast<int>(options.groups.size());
  res.group.reserve(ng);
  for (const StiffnessGroup& group : options.groups) res.group.push_back(group.name);
  res.stiffness = VectorXd::Constant(ng, kNaN);
  res.stiffness_fit = VectorXd::Constant(ng, kNaN);
  res.stiffness_std = VectorXd::Constant(ng, kNaN);
  res.relative_std = VectorXd::Constant(ng, kNaN);
  res.group_stretch = VectorXd::Constant(ng, kNaN);
  res.group_torque_rms = VectorXd::Constant(ng, kNaN);
  res.group_identifiable.assign(ng, false);
  res.group_reason.assign(ng, "");
  res.natural_length = VectorXd::Constant(nb, kNaN);
  res.natural_length_std = VectorXd::Constant(nb, kNaN);
  res.taut_samples.assign(nb, 0);
  res.never_taut.assign(nb, false);
}

}  // namespace

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
  checkOptions(kFunction, options);
  BandIdentificationResult res;
  assignGroups(kFunction, samples, options, res);
  VectorXd l_min, l_range;
  screenRelevance(samples, options, l_min, l_range, res);
  // ---- parameters -----------------------------------------------------------------
  const auto ng = static_cast<int>(options.groups.size());
  std::vector<int> group_param(ng, -1);
  Problem p;
  p.samples = &samples;
  p.torque.resize(static_cast<Eigen::Index>(n) * m);
  for (int t = 0; t < n; ++t) {
    for (int c = 0; c < m; ++c) p.torque[t * m + c] = supporting_torque(t, c);
  }
  p.torque_sq = p.torque.squaredNorm();
  std::vector<int> param_group;  // group of each fitted stiffness
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
  const int nf = p.numBands();

  clearEstimates(options, nb, res);
  res.torque_rms = std::sqrt(p.torque_sq / (static_cast<double>(n) * m));
  res.rmse = res.torque_rms;
  for (int g = 0; g < ng; ++g) {
    if (group_param[g] >= 0) continue;
    double relevance = 0.0;
    for (const std::string& name : options.groups[g].bands) {
      const auto i = std::find(samples.band.begin(), samples.band.end(), name) - samples.band.begin();
      relevance = std::max(relevance, res.relevance[i]);
    }
    res.group_reason[g] = "not fitted: its bands' relevance " + figure("%.3g", relevance) + " < " +
                          figure("%.3g", options.relevance_threshold) + " on these joints";
  }
  for (int i = 0; i < nb; ++i) {
    if (!res.fitted[i]) res.band_group[i] = -1;
  }
  res.group_observable = res.group_identifiable;
  if (nf == 0) return res;  // nothing left to fit: τ̂ = 0

  // The box for l0 (see the design note): a natural length is not negative,
  // and one range above the longest length the band is slack throughout.
  p.l0_lower = VectorXd::Zero(nf);
  p.l0_upper.resize(nf);
  for (int b = 0; b < nf; ++b) p.l0_upper[b] = l_min[p.band[b]] + 2.0 * l_range[p.band[b]];

  VectorXd best_l0;
  multiStart(p, samples, options, l_min, l_range, res, best_l0);
  if (res.best_start < 0) return res;  // every start diverged (non-finite cost)
  // A group whose pull the data do not need (k fits to zero: its torque is
  // round-off) can have its bands slack or taut alike; the smoothing stages
  // tend to leave them taut at some arbitrary l0. Such bands are made
  // slack: "never taut" is what the result then says. (Only at round-off: a
  // band whose mirror image carries its pull, on a symmetric motion, is not
  // touched, since one band at 2k and two at k fit alike.)
  VectorXd width = VectorXd::Zero(nf);
  {
    Projection at_best;
    project(p, best_l0, width, false, at_best);
    for (int b = 0; b < nf; ++b) {
      const int kp = p.band_k[b];
      if ((at_best.k[kp] * at_best.phi.col(kp)).squaredNorm() <= kRoundOff * p.torque_sq) {
        best_l0[b] = p.l0_upper[b];
      }
    }
  }

  // ---- the estimate ---------------------------------------------------------------------
  Projection fit;
  width.setZero();
  project(p, best_l0, width, false, fit);
  for (int b = 0; b < nf; ++b) {
    const int i = p.band[b];
    res.natural_length[i] = best_l0[b];
    res.taut_samples[i] = static_cast<int>((samples.length.col(i).array() > best_l0[b]).count());
    res.never_taut[i] = res.taut_samples[i] == 0;
  }
  res.rmse = std::sqrt(fit.cost / (static_cast<double>(n) * m));

  // ---- uncertainty: σ² c (GᵀG)⁺ with G = ∂r/∂[k, l0] ------------------------------------
  const int np = p.num_k + nf;
  const Eigen::Index rows = static_cast<Eigen::Index>(n) * m;
  MatrixXd G(rows, np);
  G.leftCols(p.num_k) = -fit.phi;
  for (int b = 0; b < nf; ++b) G.col(p.num_k + b) = fit.k[p.band_k[b]] * fit.e.col(b);
  // Parameters that act nowhere (zero columns) have no std and cost no
  // degree of freedom.
  const int nk = static_cast<int>((G.colwise().norm().array() > 0.0).count());
  if (options.torque_noise_std > 0.0) {
    res.noise_std = options.torque_noise_std;
    res.noise_correlation = 1.0;
  } else {
    res.noise_std = rows > nk ? std::sqrt(fit.cost / static_cast<double>(rows - nk)) : kInf;
    res.noise_correlation = residualCorrelationTime(fit.r, n, m);
  }
  const VectorXd std_dev = parameterStd(G, res.noise_std * res.noise_std * res.noise_correlation);
  res.group_parameter.assign(static_cast<std::size_t>(ng), -1);
  for (int kp = 0; kp < p.num_k; ++kp) {
    res.group_parameter[static_cast<std::size_t>(param_group[kp])] = kp;
    res.parameter.push_back("k:" + options.groups[static_cast<std::size_t>(param_group[kp])].name);
  }
  for (int b = 0; b < nf; ++b) res.parameter.push_back("l0:" + samples.band[static_cast<std::size_t>(p.band[b])]);
  for (int b = 0; b < nf; ++b) res.natural_length_std[p.band[b]] = std_dev[p.num_k + b];

  judgeGroups(p, samples, options, param_group, best_l0, fit, std_dev, nk, res);
  res.group_observable = res.group_identifiable;
  res.jacobian = std::move(G);
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
