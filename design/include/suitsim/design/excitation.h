// How well motions excite the base parameters (Kang et al. 2023, (5) and
// (11)): the stacked base-parameter regressor of the motions, as the
// identification builds it (identification.h): base rows at every sample,
// a joint's row only while it slides (RestRows::Excluded), each equation
// divided by its residual scale, columns scaled to unit norm. The motions
// are planned ones, sampled on the a-priori model with the feet flat
// (eval::forEachFeetFlatSample), so nothing needs simulating.
//
// A motion set is held as the triangle M of its stacked rows (MᵀM = AᵀA,
// least_squares.h): stacking motions is stacking triangles, and the
// measures below come from M alone.
#pragma once

#include <Eigen/Core>

#include "suitsim/design/design_robot.h"
#include "suitsim/eval/rigid_model.h"

namespace suitsim::design {

struct ExcitationOptions {
  double slip_velocity = 0.05;  ///< a joint's row counts while |θ̇| exceeds this (rad/s), as the identification's
  /// Residual scale of each equation (nv: base rows, then joints), by which
  /// its rows are divided; empty: 1 for all. The curriculum takes the
  /// identification's rms residuals (RobotIdentification::row_rms).
  Eigen::VectorXd equation_scale;
};

/// Accumulates the regressor rows of feet-flat samples into a triangle.
class ExcitationRows {
 public:
  ExcitationRows(const DesignRobot& robot, const ExcitationOptions& options);
  /// Adds the rows of a sample with velocity `v` (nv) and base-parameter
  /// regressor `Yb` (nv x num_base, baseRegressor).
  void addSample(const Eigen::MatrixXd& Yb, const Eigen::VectorXd& v);
  /// The triangle of every row added (num_base x num_base).
  Eigen::MatrixXd triangle();

 private:
  void flush();
  const DesignRobot* robot_;
  ExcitationOptions options_;
  Eigen::MatrixXd block_, triangle_;
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
