// The design's guard on the suit fit: a motion set is never proposed when
// it predicts a worse supporting torque on the suit's fit joints than the
// scene's own identification motions do.
//
// Approach B's supporting torque (B(4)) on a fit joint is the measured
// actuator torque less the identified model's, so what the identification
// leaves uncertain reaches it as y (p̂ − p), y the joint's excitation row
// (excitation.h: its base-parameter regressor row and its columns of ξ)
// along the evaluation motion. With the estimates' covariance Σ its
// variance is y Σ yᵀ. Σ is predicted from the planned triangle's unit
// covariance (AᵀA)⁻¹ times one residual variance s², Σ = s² (AᵀA)⁻¹: the
// median of the curriculum's per-parameter calibration c_p (reliability.h).
// One factor, not c_p per column: a joint's torque is often well known
// while the parameters it sums are not (they move together), and the
// cancellation lives in the plan's correlations, which per-column factors
// would distort. A row with a share in a direction the motions do not see
// predicts an infinite std: the identification holds it only by the
// a-priori model's regularisation.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/design/design_robot.h"
#include "suitsim/design/excitation.h"

namespace suitsim::design {

/// The rows the guard judges with: each suit-wearing evaluation trial's
/// reference motion, sampled feet-flat on the a-priori model, with the rows
/// of its fit joints where they slide (unscaled, N m per parameter unit).
struct SuitFitRows {
  Eigen::MatrixXd rows;  ///< (R x excitationColumns)
  /// Per evaluation trial with a suit: "trial (motion): joints; why" (the
  /// fit joints as the scene declares them or as chooseFitJoints derives
  /// them from the planned motion and the suit as designed).
  std::vector<std::string> trials;
};

/// Builds them from the scene's evaluation trials (none wearing a suit: no
/// rows). `dt`: sampling step (s). Throws what loading the scene's trials
/// or choosing their fit joints throws.
SuitFitRows suitFitRows(const DesignRobot& robot, const std::string& scene_path, const ExcitationOptions& options,
                        double dt);

/// The RMS over `rows` of the predicted model-torque std sqrt(y Σ yᵀ) (N m)
/// for a motion set of triangle `triangle` (scaled rows, excitation.h),
/// Σ = `residual_variance` (AᵀA)⁻¹. +inf when a row has a share in a
/// direction the set does not see; NaN without rows.
double predictedFitStd(const Eigen::MatrixXd& triangle, double residual_variance, const Eigen::MatrixXd& rows);

/// s² for predictedFitStd: the median of `calibration` (c_p, reliability.h).
double residualVariance(const Eigen::VectorXd& calibration);

}  // namespace suitsim::design
