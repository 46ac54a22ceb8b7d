// Forward kinematics, Jacobians and whole-body quantities (CoM, momentum,
// energy) of the rigid model. Conventions (frames, q and v layout) are those
// of rigid_model.h. Every function checks argument sizes on entry and throws
// std::invalid_argument on a mismatch.
#pragma once

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// World pose of every body and frame at q: writes data.body_R_W, body_p_W,
/// frame_R_W, frame_p_W (and body_R_parent).
void forwardKinematics(const RigidModel& model, RigidData& data, const Configuration& q);

/// As above, plus the velocity of every body in its own axes: data.body_v
/// (origin velocity, m/s) and data.body_w (angular velocity, rad/s). v: (nv).
void forwardKinematics(const RigidModel& model, RigidData& data, const Configuration& q,
                       const VectorRef& v);

/// World velocity of frame `frame` after forwardKinematics(q, v): linear
/// velocity of the frame origin `v_W` (m/s) and angular velocity `w_W` (rad/s).
void frameVelocity(const RigidModel& model, const RigidData& data, int frame, Eigen::Vector3d* v_W,
                   Eigen::Vector3d* w_W);

/// Jacobian of frame `frame` after forwardKinematics(q): J (6 x nv) with
/// J v = [velocity of the frame origin; angular velocity], world axes. The
/// contact term of A(5) is J^T [force; moment about the frame origin] (world).
void frameJacobian(const RigidModel& model, const RigidData& data, int frame,
                   Eigen::Ref<Eigen::MatrixXd> J);

/// Jacobian of a point fixed in frame `frame` at `point_F` (frame coordinates,
/// m) after forwardKinematics(q): J (3 x nv), J v = point velocity, world.
/// With A(22) a wire's length rate is Σ over via points of (unit segment
/// directions) · J v.
void pointJacobian(const RigidModel& model, const RigidData& data, int frame,
                   const Eigen::Vector3d& point_F, Eigen::Ref<Eigen::MatrixXd> J);

/// Centre of mass of the whole robot, world (m). Runs forwardKinematics(q).
Eigen::Vector3d centerOfMass(const RigidModel& model, RigidData& data, const Configuration& q);

/// Whole-body momentum, world axes, summed body by body from the
/// forward-kinematics velocities (independent of the mass matrix).
struct Momentum {
  Eigen::Vector3d com;             ///< centre of mass (m)
  Eigen::Vector3d com_velocity;    ///< (m/s) = linear / total mass
  Eigen::Vector3d linear;          ///< P = Σ m_i ċ_i (kg m/s)
  Eigen::Vector3d angular_origin;  ///< L about the world origin (kg m^2/s)
  Eigen::Vector3d angular_com;     ///< L about the CoM (kg m^2/s) = angular_origin − com × P
};

/// Runs forwardKinematics(q, v) and sums the bodies' momenta.
Momentum momentum(const RigidModel& model, RigidData& data, const Configuration& q,
                  const VectorRef& v);

/// Kinetic energy Σ ½ (m_i |ċ_i|² + ω_iᵀ I_i ω_i) (J) from forwardKinematics(q, v).
double kineticEnergy(const RigidModel& model, RigidData& data, const Configuration& q,
                     const VectorRef& v);

/// Gravitational potential energy −Σ m_i g·c_i (J), zero at the world origin.
double potentialEnergy(const RigidModel& model, RigidData& data, const Configuration& q);

}  // namespace suitsim::eval
