// Small 3-D helpers shared by the rigid-model sources (not installed).
//
// Spatial vectors are kept as pairs of Vector3d, linear part first, as in the
// public layout of v and of the base wrench: a motion (v, ω) is the velocity
// of the frame origin and the angular velocity; a force (f, n) is the force
// and the moment about the frame origin. A rigid body's inertia about a frame
// origin is (m, h = m c, I_O) with I_O = I_c + m [c]^T [c]: the ten standard
// inertial parameters of A(11), so the same code will serve the regressor.
#pragma once

#include <cmath>

#include <Eigen/Core>
#include <Eigen/Geometry>  // cross()

namespace suitsim::eval::detail {

/// [x]: the matrix with [x] y = x × y.
inline Eigen::Matrix3d skew(const Eigen::Vector3d& x) {
  Eigen::Matrix3d s;
  s << 0.0, -x.z(), x.y(),
       x.z(), 0.0, -x.x(),
       -x.y(), x.x(), 0.0;
  return s;
}

/// Rotation by `angle` about the unit `axis` (Rodrigues).
inline Eigen::Matrix3d axisAngle(const Eigen::Vector3d& axis, double angle) {
  const Eigen::Matrix3d k = skew(axis);
  return Eigen::Matrix3d::Identity() + std::sin(angle) * k + (1.0 - std::cos(angle)) * (k * k);
}

/// Inertia about the CoM -> about the frame origin: I_O = I_c + m [c]^T [c].
inline Eigen::Matrix3d inertiaAboutOrigin(double m, const Eigen::Vector3d& c,
                                          const Eigen::Matrix3d& inertia_com) {
  return inertia_com + m * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
}

/// Re-expresses a body inertia (m, h, I about the child origin, child axes) in
/// a parent frame where the child frame has orientation R and origin p.
/// Derived from Σ m_k [R r_k + p]^T [R r_k + p]; valid for m = 0 too.
inline void inertiaToParent(const Eigen::Matrix3d& R, const Eigen::Vector3d& p, double m,
                            const Eigen::Vector3d& h, const Eigen::Matrix3d& I,
                            Eigen::Vector3d* h_parent, Eigen::Matrix3d* I_parent) {
  const Eigen::Vector3d Rh = R * h;
  const Eigen::Matrix3d P = skew(p);
  const Eigen::Matrix3d Q = skew(Rh);
  *h_parent = Rh + m * p;
  *I_parent = R * I * R.transpose() - Q * P - P * Q - m * (P * P);
}

}  // namespace suitsim::eval::detail
