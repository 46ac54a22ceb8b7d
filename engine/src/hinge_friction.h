// Joint friction and limit torques, A(7) (hinges.cpp's design note).
#pragma once

#include <cmath>

#include "suitsim/model.h"

namespace suitsim::detail {

/// Friction torque of a slipping hinge: viscous plus Coulomb, with the
/// Stribeck rise toward tau_s^max at low speed when enabled.
inline double slipFriction(const Model& m, int h, double theta_dot) {
  double level = m.hinge_coulomb[h];
  const double vs = m.hinge_stribeck_velocity[h];
  if (vs > 0.0) {
    const double q = theta_dot / vs;
    level += (m.hinge_static_max[h] - m.hinge_coulomb[h]) * std::exp(-q * q);
  }
  const double sign = theta_dot > 0.0 ? 1.0 : (theta_dot < 0.0 ? -1.0 : 0.0);
  return -m.hinge_viscous[h] * theta_dot - level * sign;
}

inline double limitTorque(const Model& m, int h, double theta, double theta_dot) {
  if (m.hinge_limit_stiffness <= 0.0) return 0.0;
  if (theta > m.hinge_upper[h]) {
    return -m.hinge_limit_stiffness * (theta - m.hinge_upper[h]) - m.hinge_limit_damping * theta_dot;
  }
  if (theta < m.hinge_lower[h]) {
    return -m.hinge_limit_stiffness * (theta - m.hinge_lower[h]) - m.hinge_limit_damping * theta_dot;
  }
  return 0.0;
}

inline bool hasFriction(const Model& m, int h) { return m.hinge_static_max[h] > 0.0 || m.hinge_coulomb[h] > 0.0; }

}  // namespace suitsim::detail
