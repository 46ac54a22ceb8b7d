// The robot's identification (identification.h has the method) in its
// parts, each a file: the stacked regressor rows A(10)-(11)
// (identification_rows.cpp), the ξ columns of the joint rows, A(12) with
// the sign rule A(8)-(9) (identification_joint_rows.cpp), the residuals
// and what is read off them (identification_residuals.cpp), and the
// weighted, regularised solve A(13)-(20) with the standard deviations
// (identification_solve.cpp); identification.cpp runs them. Private to the
// evaluator.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/identification.h"
#include "suitsim/rigid/base_parameters.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval::robot_fit {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// The ξ columns of joint row i at sample t (A(12) with our signs).
struct JointRow {
  double u = 0.0, qd = 0.0, coulomb = 0.0, stat = 0.0, offset = 0.0, qdd = 0.0, back = 0.0;
  bool used = false;  ///< false: the row is left out of the least squares
};

/// Everything the least squares needs from the trials, built once.
struct Problem {
  /// nb: the columns every equation shares, x.head(nb): the nphi base
  /// parameters φ, then J, b, c of each coupled drive (addDriveColumns).
  int nv = 0, nj = 0, nb = 0, nphi = 0;
  std::vector<CoupledDrive> drives;
  int nbase = 6;  // base rows per sample: 6 on a floating base, 0 on a fixed one
  /// Joint rows from link-side torque sensors: Y_j φ − F_j = τ_s + τ_o, the
  /// measured torque moved to the right-hand side and the sensors' offset
  /// τ_o the only ξ column (the drive, friction and rotor sit before the
  /// sensor, so none of their parameters is in the equation).
  bool sensed = false;
  /// (nj) a k_T known exactly (JointActuation::motor_constant_known): its
  /// k_T u is on the right-hand side and its column is empty.
  std::vector<char> known_gain;
  std::vector<MatrixXd> rows;      // per trial (N nv x nb)
  std::vector<MatrixXd> F;         // per trial (N x nv): contact forces minus the held loads' dynamics
  std::vector<const MotionData*> trials;
  std::vector<std::vector<JointRow>> z;  // per trial, (N nj)
  std::vector<char> follower;            // (nj): a <mimic> follower, whose row is folded into its leader's
  int samples = 0;
};

// Column of joint i's parameter k (0..kXiBlocks-1) in x = [φ; ξ].
inline int xiColumn(const Problem& p, int k, int i) { return p.nb + k * p.nj + i; }

inline double zValue(const JointRow& r, int k) {
  switch (k) {
    case 0: return r.u;
    case 1: return r.qd;
    case 2: return r.coulomb;
    case 3: return r.stat;
    case 4: return r.offset;
    case 5: return r.qdd;
    default: return r.back;
  }
}

struct Solution {
  VectorXd x, relative_std;
  MatrixXd correlation;  // of the data's covariance (parameter_correlation.h), (P x P)
  double correlation_samples = 1.0;
  double condition_number = 0.0;
  int unexcited = 0;
  VectorXd row_rms;
};


// identification_rows.cpp
MatrixXd perSample(const MatrixXd& rows, const VectorXd& phi, int nv);
Problem buildProblem(const RigidModel& model, const BaseParameters& base, const std::vector<MotionData>& trials,
                     bool joints, int threads);
void addDriveColumns(Problem& p, const std::vector<CoupledDrive>& drives);

// identification_joint_rows.cpp
int assignJointRows(Problem& p, const VectorXd& phi_ref, const JointParameters& xi_ref,
                    const IdentificationOptions& o);

// identification_residuals.cpp
VectorXd residualPower(const Problem& p, const VectorXd& x, bool joints, VectorXd* count);
VectorXd restHoldQuantile(const Problem& p, const VectorXd& x, const IdentificationOptions& o);
double residualCorrelationTime(const Problem& p, const VectorXd& x, bool joints, const VectorXd& weight);

// identification_solve.cpp
Solution solveRegularised(const Problem& p, bool joints, const VectorXd& x_ref, const IdentificationOptions& o);

}  // namespace suitsim::eval::robot_fit
