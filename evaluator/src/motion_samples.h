// What the identification and the inverse dynamics read off one sample of
// a conditioned trial (MotionData), and the pieces of A(6)-(7) both
// evaluate per sample. Private to the evaluator.
#pragma once

#include <omp.h>

#include <Eigen/Core>

#include "suitsim/eval/identification.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval::samples {

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

inline Vector3d row3(const MatrixXd& m, int t) { return m.row(t).transpose(); }

/// The model with gravity off: the accelerometer's specific force already
/// carries gravity into the base acceleration (A §3.2). A fixed base keeps
/// it: no accelerometer measures it, the rig's pose says where down is.
inline RigidModel withoutGravity(const RigidModel& model) {
  RigidModel m = model;
  if (m.floating_base) m.gravity.setZero();
  return m;
}

inline Configuration sampleConfiguration(const MotionData& d, int t) {
  Configuration q;
  q.joints = d.q.row(t).transpose();
  // Floating base: base frame = reference frame, base_R = I, base_p = 0.
  // Fixed base: the rig's orientation (MotionData::base_R).
  q.base_R = d.base_R;
  return q;
}

inline void sampleVelocityAcceleration(const RigidModel& model, const MotionData& d, int t, VectorXd& v, VectorXd& a) {
  v.setZero(model.nv);
  a.setZero(model.nv);
  if (!model.floating_base) {
    v = d.qd.row(t).transpose();
    a = d.qdd.row(t).transpose();
    return;
  }
  // The base origin's velocity does not enter once its acceleration is the
  // classical one (ω × v_o folded in): set v_o = 0, v̇_o = measured.
  v.segment<3>(3) = row3(d.omega, t);
  a.head<3>() = row3(d.base_acc, t);
  a.segment<3>(3) = row3(d.omegad, t);
  v.tail(model.num_joints) = d.qd.row(t).transpose();
  a.tail(model.num_joints) = d.qdd.row(t).transpose();
}

/// OpenMP threads to use: `threads`, or OpenMP's default for 0.
inline int threadCount(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

/// b (u + τ_o / k_T) of the gear's column (identification.h): the motor's
/// torque in amperes while the link drives it (torque against the rate),
/// zero while the motor drives or the joint is exactly at rest.
inline double backdrivenLoad(const JointParameters& xi, int i, double u, double qd) {
  const double k = xi.motor_constant[i];
  const double amperes = k != 0.0 ? u + xi.offset[i] / k : u;
  return amperes * (k * amperes * qd < 0.0 ? 1.0 : 0.0);
}

}  // namespace suitsim::eval::samples
