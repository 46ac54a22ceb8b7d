// The band fit's solve, A(26): the group stiffnesses eliminated by linear
// least squares and the natural lengths searched by Levenberg–Marquardt,
// from several starts through a smoothed hinge (variable projection, the
// design note in band_identification.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "suitsim/core/levenberg_marquardt.h"
#include "suitsim/core/stop.h"
#include "band_problem.h"

namespace suitsim::eval::band_fit {

namespace {

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

}  // namespace

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

}  // namespace suitsim::eval::band_fit
