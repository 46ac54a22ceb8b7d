// The joints' parameters xi of A(6)-(7) (motor constant, friction, offset,
// rotor inertia, backdriven excess) as one stacked vector and from a robot
// description.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <Eigen/Geometry>

#include "suitsim/core/stop.h"
#include "suitsim/eval/identification.h"

namespace suitsim::eval {

using Eigen::VectorXd;

Eigen::VectorXd JointParameters::stacked() const {
  VectorXd xi(kXi * motor_constant.size());
  xi << motor_constant, viscous, coulomb, static_max, offset, armature, backdrive_excess;
  return xi;
}

JointParameters JointParameters::fromStacked(const Eigen::VectorXd& xi) {
  const Eigen::Index n = xi.size() / kXi;
  JointParameters j;
  j.motor_constant = xi.segment(0, n);
  j.viscous = xi.segment(n, n);
  j.coulomb = xi.segment(2 * n, n);
  j.static_max = xi.segment(3 * n, n);
  j.offset = xi.segment(4 * n, n);
  j.armature = xi.segment(5 * n, n);
  j.backdrive_excess = xi.segment(6 * n, n);
  return j;
}

Eigen::Vector3d CoupledDrive::columns(int i, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) const {
  const double ri = row[i];
  if (ri == 0.0) return Eigen::Vector3d::Zero();
  // The off-diagonal part of r_i r θ̈ and r_i r θ̇: the joint's own I_a and
  // k_d columns carry the diagonal (identification.h).
  const double motor_rate = row.dot(qd);
  const double cross_acc = row.dot(qdd) - ri * qdd[i], cross_rate = motor_rate - ri * qd[i];
  const double sign = motor_rate > 0.0 ? 1.0 : (motor_rate < 0.0 ? -1.0 : 0.0);
  return Eigen::Vector3d(ri * cross_acc, ri * cross_rate, ri * sign);
}

double CoupledDrive::torque(int i, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) const {
  return columns(i, qd, qdd).dot(Eigen::Vector3d(rotor_inertia, viscous, coulomb));
}

JointParameters jointParameters(const RigidModel& model, const RobotDescription& description) {
  const int nj = model.num_joints;
  VectorXd xi(kXi * nj);
  for (int i = 0; i < nj; ++i) {
    const JointActuation& a = description.joints[model.joint_source[i]].actuation;
    // A description's gear (JointActuation::gear_efficiency) seen as the
    // identification sees it: k_T = eta_f k while driving, k / eta_b while
    // backdriven, the offset scaled with the motor's torque.
    xi[i] = a.gear_efficiency * a.motor_constant;
    xi[nj + i] = a.viscous;
    xi[2 * nj + i] = a.coulomb;
    xi[3 * nj + i] = a.static_max;
    xi[4 * nj + i] = a.gear_efficiency * a.torque_offset;
    xi[5 * nj + i] = a.armature;
    xi[6 * nj + i] = a.motor_constant * (1.0 / a.backdrive_efficiency - a.gear_efficiency);
  }
  return JointParameters::fromStacked(xi);
}

}  // namespace suitsim::eval
