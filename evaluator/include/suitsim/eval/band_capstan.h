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
// The history is replayed from each motion's first sample, where the
// material is assumed shared in proportion to the segments' lengths (the
// suit settled in the starting pose, every segment equally strained); the
// via points' turns come from the wire model, so they are as good as the
// suit geometry the evaluation uses (designed or measured).
//
// Units: m, rad, N/m, N m. Bad input throws std::invalid_argument naming the
// function and the problem.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/rigid_model.h"
#include "suitsim/eval/wires.h"

namespace suitsim::eval {

/// One motion's fit rows, as the capstan model needs them: every band's
/// segments at every sample (the material has a history), and the
/// segments' Jacobians about each fit row's joint.
struct CapstanRows {
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
Eigen::MatrixXd capstanTensionPerStiffness(const Eigen::MatrixXd& length, const Eigen::MatrixXd& turn,
                                           double natural_length, double friction);

struct CapstanFit {
  double friction = 0.0;               ///< mu (dimensionless)
  Eigen::VectorXd stiffness;           ///< k per group (N/m), (G)
  Eigen::VectorXd relative_std;        ///< std(k) / |k| per group, from sigma^2 c (G^T G)^+ over k, l0 and mu, (G)
  double friction_std = 0.0;           ///< std of mu (+inf: not separable)
  Eigen::VectorXd natural_length;      ///< l0 per band (m; NaN: not fitted), (B)
  Eigen::VectorXd fitted_torque;       ///< tau_hat at each fit row (N m), (R)
  double rmse = 0.0;                   ///< RMS of torque - tau_hat over the rows (N m)
  double frictionless_rmse = 0.0;      ///< the same at mu = 0 with the natural lengths refitted
};

/// Fits k per group, l0 per fitted band and one mu in [0, max_friction] to
/// the rows' supporting torque `torque` (R), starting the natural lengths at
/// `natural_length_start` (B; the elastic fit's). mu is searched on a grid
/// (every 0.05) at the starting natural lengths, then refined together with
/// them by Levenberg-Marquardt. Throws std::invalid_argument for inconsistent sizes,
/// no fitted group, or a fitted band without a finite positive start.
CapstanFit fitCapstan(const CapstanRows& rows, const Eigen::VectorXd& torque,
                      const Eigen::VectorXd& natural_length_start, double max_friction = 0.8);

}  // namespace suitsim::eval
