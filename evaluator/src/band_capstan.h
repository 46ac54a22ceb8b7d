// A capstan-aware wire model for A(26): bands that rub where they turn.
//
// A(21)-(25) give a band one tension from end to end. Where a fabric band
// turns over the body at a via point it rubs, and the tensions of its two
// segments there may differ by up to exp(mu theta), theta the turn
// (docs/realism.md#capstan-friction-capstan-friction). A joint then feels
// the tensions of the segments that cross it, not one tension times
// dl/dtheta: a segment held between two sharp turns is stiffer than the
// whole band by l0 / s_j, and the pull depends on the path the band came by.
//
// The model here is the engine's (suitsim/capstan.h): the band's material
// is shared among its segments (s_j in segment j, sum s_j = l0), segment j
// pulls T_j = k l0 (L_j - s_j) / s_j while taut, and at each interior via
// point the material sticks while the two tensions keep within the
// capstan ratio and slides toward the tauter side when they would leave it.
// Without a damper or a relaxing arm every tension is k times a function of
// the geometry, and the slip, which sees only the tensions' ratios, does
// not depend on k: for given natural lengths and mu the material's history
// follows from the measured angles alone, and the torque is linear in k,
//     tau_hat = -sum_b k_g(b) sum_j t_bj J_bj,   t_bj = T_bj / k,
// J_bj = dL_j/dtheta (wires.h, wireSegments). So k is eliminated by linear
// least squares (as in band_identification.h) and only the natural lengths
// (one per band) and mu (one per fit, the suit's cover) are searched.
//
// Hysteresis too (viscoelastic-capstan). The engine's band may also carry
// a standard linear solid's Maxwell arm (band_relaxation.h), which acts on
// the whole band's stretch e = max(0, l - l0) and adds k_m a, a = e - q, to
// every taut segment alike. Per unit stiffness that is rho a with rho =
// k_m / k, so the torque stays linear in k, and the slip, which sees the
// tensions' ratios, now depends on rho and tau too: they join the searched
// parameters (one rho per group, one tau per fit), started from the
// viscoelastic fit's.
//
// The history is replayed from each motion's first sample, where the
// material is assumed shared in proportion to the segments' lengths (the
// suit settled in the starting pose, every segment equally strained); the
// via points' turns come from the wire model, so they are as good as the
// suit geometry the evaluation uses (designed or measured).
//
// Units: m, rad, N/m, N m. Bad input throws std::invalid_argument naming the
// function and the problem.
#pragma once

#include <limits>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"
#include "suitsim/eval/wires.h"

namespace suitsim::eval {

/// One motion's fit rows, as the capstan model needs them: every band's
/// segments at every sample (the material has a history), and the
/// segments' Jacobians about each fit row's joint.
struct CapstanRows {
  Eigen::VectorXd time;                   ///< the samples' times (s), (N); read only when arms are fitted
  std::vector<Eigen::MatrixXd> length;    ///< per band: L_j at every sample (m), (N x S_b)
  std::vector<Eigen::MatrixXd> turn;      ///< per band: theta_i at every sample (rad), (N x S_b), column 0 zero
  std::vector<Eigen::Index> sample;       ///< each fit row's sample, (R)
  std::vector<Eigen::MatrixXd> jacobian;  ///< per band: dL_j/dtheta about the row's joint (m/rad), (R x S_b)
  std::vector<int> band_group;            ///< each band's group column 0..G-1, -1: not fitted, (B)
  int num_groups = 0;                     ///< G
};

/// The geometry of CapstanRows for `wires` at every row of `joint_angles`
/// (N x num_joints, rad), with fit rows at samples `row_sample` about the
/// joints `row_joint` (joint indices of `model`), both (R). band_group is
/// left all -1 and num_groups 0 for the caller to set.
CapstanRows sampleCapstanRows(const RigidModel& model, const std::vector<WireGeometry>& wires,
                              const Eigen::MatrixXd& joint_angles, const std::vector<Eigen::Index>& row_sample,
                              const std::vector<int>& row_joint);

/// Each segment's tension per unit stiffness, T_j / k (m), at every sample
/// of a band with segment lengths `length` and turns `turn` (N x S each),
/// natural length `natural_length` (m, > 0) and friction coefficient
/// `friction` (>= 0): the material shared equally strained at sample 0,
/// then stuck or slid at every sample (suitsim/capstan.h). friction 0 gives
/// A(25)'s one tension max(0, l - l0) on every segment.
/// `common` (N, or empty for none) is the part every taut segment adds
/// alike per unit stiffness, the Maxwell arm's rho a (maxwellArmTension);
/// it joins the slip's tensions as the engine's common part does.
Eigen::MatrixXd capstanTensionPerStiffness(const Eigen::MatrixXd& length, const Eigen::MatrixXd& turn,
                                           double natural_length, double friction,
                                           const Eigen::VectorXd& common = Eigen::VectorXd());

/// The Maxwell arm's tension per unit stiffness, rho a, at every sample of
/// a band with segment lengths `length` (N x S) at times `time` (N): a = e -
/// q (maxwellArmStretch) for the whole band's stretch e = max(0, l - l0),
/// and 0 where the band is slack (its arm cannot push). rho = k_m / k >= 0,
/// tau > 0 (s).
Eigen::VectorXd maxwellArmTension(const Eigen::VectorXd& time, const Eigen::MatrixXd& length, double natural_length,
                                  double ratio, double relaxation_time);

/// fitCapstan's default upper bound on mu: textile on textile or skin lies
/// below about 0.5 (docs/realism.md); the bound leaves room above it.
inline constexpr double kDefaultMaxCapstanFriction = 0.8;

/// A start for the Maxwell arms fitCapstan fits beside the friction
/// (viscoelastic-capstan): one tau and one rho = k_m / k per group. The fit
/// also scans tau itself and starts from whichever fits better.
struct CapstanArmStart {
  double relaxation_time = std::numeric_limits<double>::quiet_NaN();  ///< tau (s, > 0); NaN: only the scan
  Eigen::VectorXd ratio;  ///< rho per group (>= 0), (G); may be empty when tau is NaN
};

struct CapstanFit {
  double friction = 0.0;               ///< mu (dimensionless)
  Eigen::VectorXd stiffness;           ///< k per group (N/m), (G)
  Eigen::VectorXd relative_std;        ///< std(k) / |k| per group, from sigma^2 c (G^T G)^+ over k, l0 and mu, (G)
  double friction_std = 0.0;           ///< std of mu (+inf: not separable)
  Eigen::VectorXd natural_length;      ///< l0 per band (m; NaN: not fitted), (B)
  Eigen::VectorXd fitted_torque;       ///< tau_hat at each fit row (N m), (R)
  double rmse = 0.0;                   ///< RMS of torque - tau_hat over the rows (N m)
  double frictionless_rmse = 0.0;      ///< the same at mu = 0 at the starting natural lengths, no arms
  /// With arms kept: k_m = rho k per group (N/m), (G), and tau (s).
  /// Without: zeros and NaN.
  Eigen::VectorXd relaxing_stiffness;
  double relaxation_time = 0.0;
  /// d(residual)/d(parameters) at the estimate, the matrix relative_std
  /// comes from (R x P): k per group, l0 per fitted band (parameter_band),
  /// then mu (friction_column), rho per group and log tau (arm_columns).
  Eigen::MatrixXd jacobian;
  std::vector<int> parameter_band;  ///< the band (index into the rows) of each l0 column
  bool friction_column = false;
  bool arm_columns = false;
};

/// Fits k per group, l0 per fitted band and one mu in [0, max_friction] to
/// the rows' supporting torque `torque` (R), starting the natural lengths at
/// `natural_length_start` (B; the elastic fit's). mu is searched on a grid
/// (every 0.05) at the starting natural lengths, then refined together with
/// them by Levenberg-Marquardt. With `arms`, every group's rho and the one
/// tau are then refined with them (rho in [0, 5], tau in [0.05, 30] s),
/// from `arms`' values or from the best of a scan in tau that fits k_m
/// linearly on the friction's fit, whichever fits better; arms whose tau
/// ends at an end of that range, or with every rho 0, are dropped and the
/// fit without them stands (relaxing_stiffness 0, relaxation_time NaN).
/// Throws std::invalid_argument for inconsistent sizes, no
/// fitted group, a fitted band without a finite positive start, or arms
/// without one ratio per group, times per sample or a positive tau.
CapstanFit fitCapstan(const CapstanRows& rows, const Eigen::VectorXd& torque,
                      const Eigen::VectorXd& natural_length_start, double max_friction = kDefaultMaxCapstanFriction,
                      const CapstanArmStart* arms = nullptr);

}  // namespace suitsim::eval
