// How well motions excite the parameters (Kang et al. 2023, (5) and (11)):
// the stacked regressor of the motions, as the identification builds it
// (identification.h): base rows at every sample, a joint's row only while
// it slides (RestRows::Excluded), each equation divided by its residual
// scale, columns scaled to unit norm. The columns are the base parameters
// φ, then, per joint, those of ξ the identification fits beside them, A(12):
// k_T (−u, the motor current: the joint torque Y_j φ / k_T, known for a
// joint off the legs, where no contact force acts; left out on the legs,
// whose torque the two feet share in a way the plan cannot know), k_d (θ̇),
// τ_c (sgn θ̇), τ_o (−1) and the armature (θ̈). The motions are planned
// ones, sampled on the a-priori model with the feet flat
// (eval::forEachFeetFlatSample), so nothing needs simulating.
//
// A motion set is held as the triangle M of its stacked rows (MᵀM = AᵀA,
// least_squares.h): stacking motions is stacking triangles, and the
// measures below come from M alone.
#pragma once

#include <Eigen/Core>

#include "suitsim/design/design_robot.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::design {

struct ExcitationOptions {
  double slip_velocity = 0.05;  ///< a joint's row counts while |θ̇| exceeds this (rad/s), as the identification's
  /// Residual scale of each equation (nv: base rows, then joints), by which
  /// its rows are divided; empty: 1 for all. The curriculum takes the
  /// identification's rms residuals (RobotIdentification::row_rms).
  Eigen::VectorXd equation_scale;
  /// Base parameters the joint torques of the k_T column are computed with
  /// (empty: the k_T columns are left out).
  Eigen::VectorXd torque_phi;
  /// The joint rows read link-side joint torque sensors (docs/method.md,
  /// "Fixed base"): the drive is not in their equation, so every sample is
  /// a row (resting or not) and τ_o is the only joint column; the others
  /// stay zero (unexcited alike in every candidate).
  bool torque_sensors = false;
};

/// Columns of the excitation regressor: num_base, then 5 per joint
/// (k_T, k_d, τ_c, τ_o, armature of joint j at num_base + 5 j + k).
int excitationColumns(const DesignRobot& robot);
constexpr int kJointColumns = 5;

/// Row `e` of a sample's excitation regressor (excitationColumns entries)
/// into `row`, unscaled (the equation scale not applied): the base
/// parameters' regressor row and, for a joint's equation, its columns of ξ.
/// False (row untouched) where the identification leaves the row out: a
/// joint's row while it rests (A(7)) or a mimic follower's.
bool excitationRow(const DesignRobot& robot, const ExcitationOptions& options, const Eigen::MatrixXd& Yb,
                   const Eigen::VectorXd& v, const Eigen::VectorXd& a, int e, Eigen::Ref<Eigen::RowVectorXd> row);

/// Accumulates the regressor rows of feet-flat samples into a triangle.
class ExcitationRows {
 public:
  ExcitationRows(const DesignRobot& robot, const ExcitationOptions& options);
  /// Adds the rows of a sample with velocity `v` and acceleration `a` (nv)
  /// and base-parameter regressor `Yb` (nv x num_base, baseRegressor).
  void addSample(const Eigen::MatrixXd& Yb, const Eigen::VectorXd& v, const Eigen::VectorXd& a);
  /// The triangle of every row added (excitationColumns square).
  Eigen::MatrixXd triangle();

 private:
  void flush();
  const DesignRobot* robot_;
  ExcitationOptions options_;
  Eigen::MatrixXd block_, triangle_;
  Eigen::RowVectorXd row_;
  int used_ = 0;
};

/// The base-parameter regressor Y_1(q, v, a) (nv x num_base) into `Yb`,
/// using `Y` (nv x 10 num_bodies) as scratch; runs the regressor on `data`.
void baseRegressor(const DesignRobot& robot, eval::RigidData& data, const eval::Configuration& q,
                   const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::MatrixXd& Y, Eigen::MatrixXd& Yb);

/// The triangle of [a; b] (both P x P triangles of stacked rows).
Eigen::MatrixXd stackTriangles(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

struct ExcitationMeasures {
  double condition_number = 0.0;  ///< σ_max / σ_min, unit-norm columns (eval::scaledConditionNumber)
  int unexcited_columns = 0;      ///< zero or repeated columns left out of it
  /// D-optimality: log det of the unit-column information matrix, Σ 2 log σ_k
  /// over the directions the data see (σ_k > eval::kUnseenSingularValue σ_max).
  double log_det = 0.0;
  int unseen_directions = 0;      ///< directions below that floor (left out of log_det)
};
ExcitationMeasures measureExcitation(const Eigen::MatrixXd& triangle);

}  // namespace suitsim::design
