// The curriculum's measure (Kang et al. 2023, (18)-(19)): each base
// parameter's relative standard deviation, predicted for a planned motion
// set from its excitation triangle (excitation.h) and calibrated on the
// identification of the motions already run.
//
// The identification reports σ_p / |φ_p| from the data (identification.h);
// the design triangle of the same motions gives the unit variances u_p =
// diag((AᵀA)⁻¹) (eval::unitVariance). Their ratio c_p = σ_p² / u_p carries
// what the plan does not know: the residual level, its correlation time,
// the friction columns estimated beside φ, the rows at 100 Hz against the
// plan's 10 Hz. A planned set with unit variances u'_p then predicts
// σ'_p / |φ_p| = sqrt(c_p u'_p) / |φ_p|. Parameters without a measured std
// take the median ratio. The curriculum passes every column of the
// excitation regressor (excitation.h): φ and the joint parameters, so the
// motions it chooses lower the least reliable of either.
#pragma once

#include <Eigen/Core>

namespace suitsim::design {

struct ReliabilityModel {
  Eigen::VectorXd phi;          ///< identified values of the columns (base parameters first)
  Eigen::VectorXd calibration;  ///< c_p (see above)
  double target = 0.01;         ///< relative std aimed at
};

/// Calibrates on the triangle of the motions identified and their result
/// (`relative_std` NaN where the identification gave none).
ReliabilityModel calibrateReliability(const Eigen::MatrixXd& measured_triangle, const Eigen::VectorXd& phi,
                                      const Eigen::VectorXd& relative_std, double target);

/// Predicted relative stds of a planned set (+inf where it sees nothing).
Eigen::VectorXd predictRelativeStd(const ReliabilityModel& model, const Eigen::MatrixXd& triangle);

/// Σ_p log(max(rs_p, target) / target), +inf terms capped at log 1e6:
/// zero once every parameter reaches the target; the parameters furthest
/// from it weigh most, those already determined not at all.
double reliabilityScore(const ReliabilityModel& model, const Eigen::MatrixXd& triangle);

/// How many entries are finite and below `target`.
int countBelow(const Eigen::VectorXd& relative_std, double target);

}  // namespace suitsim::design
