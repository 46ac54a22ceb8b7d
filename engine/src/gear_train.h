// The gear train between a joint's motor and its link: efficiency
// (docs/realism.md), and compliance with backlash (docs/engine.md#gear-compliance).
//
// Design note, compliance. A harmonic drive's flexspline twists under load
// (a few 1e4 N m/rad for an HRP-class joint) and its teeth have lost motion
// (about an arc minute). With JointActuation::gear_stiffness > 0 the rotor
// (its reflected inertia I_a, the armature) is a degree of freedom of its
// own, phi in the joint's units, joined to the link's angle theta by a
// torsional spring with a dead band of total width 2 d:
//
//   tau_g = k (phi - theta - d) + b (phi' - theta')   while phi - theta > d,
//   tau_g = k (phi - theta + d) + b (phi' - theta')   while phi - theta < -d,
//   tau_g = 0                                         in between,
//
// the damper acting only while the teeth touch and never pulling them
// apart (clamped to the contact's sign when d > 0). The link feels tau_g as
// an internal torque pair at its hinge, T(13)-(19), in place of the motor's
// torque; the motor drives the rotor:
//
//   I_a phi'' = eta(tau_m) tau_m - tau_g,
//
// eta the gear's efficiency factor (gearFactor), which now acts where the
// teeth mesh. As with the rigid armature (hinges.cpp), the rotor's own
// spin momentum about the stator is left out.
//
// phi and phi' are coordinates like the particles' (State::rotor_angle,
// rotor_velocity; PhasePoint carries a stage's), and every integrator
// takes them through the same stages, kicks and drifts (integrators.cpp):
// the force evaluation gives phi'' (Workspace::rotor_acceleration) beside
// the particles' accelerations, so the pair moves as one system, to the
// integrator's order. The spring is explicit like any other: the
// two-inertia mode, omega^2 = k (1 / I_a + 1 / I_link), must satisfy the
// integrator's bound (about omega dt < 2); gearModes() gives omega per
// joint and a run is refused before it starts when a gear is past it.
#pragma once

#include <algorithm>
#include <cmath>

#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim::detail {

inline bool compliantGear(const Model& m, int h) { return m.hinge_gear_stiffness[h] > 0.0; }

/// A rotor moving rigidly with its joint: the hinge's armature row (hinges.cpp).
inline bool rigidRotor(const Model& m, int h) { return m.hinge_armature[h] > 0.0 && !compliantGear(m, h); }

/// The gear's efficiency factor: the link (or, with a compliant gear, the
/// flexspline) gets eta_f times the motor's torque while the motor drives
/// it (torque and rate alike in sign), 1 / eta_b times it while it is
/// driven back, the two blended by tanh(rate / v_t) so that a reversal is
/// smooth. At rest the factor is their mean: a gear at rest holds any share
/// between them, like static friction, and the mean is one choice among those.
inline double gearFactor(const Model& m, int h, double motor, double rate) {
  const double eta_f = m.hinge_gear_efficiency[h], eta_b = m.hinge_backdrive_efficiency[h];
  if (eta_f == 1.0 && eta_b == 1.0) return 1.0;
  const double s = std::tanh(rate / m.hinge_gear_transition[h]) * (motor >= 0.0 ? 1.0 : -1.0);
  return 0.5 * (1.0 + s) * eta_f + 0.5 * (1.0 - s) / eta_b;
}

/// tau_g, the compliant gear's torque on the link (see the note), for the
/// rotor at phi, phi' and the link at theta, theta'.
inline double gearTorque(const Model& m, int h, double phi, double phi_dot, double theta, double theta_dot) {
  const double d = 0.5 * m.hinge_gear_backlash[h];
  const double twist = phi - theta;
  double wound;
  if (twist > d) {
    wound = twist - d;
  } else if (twist < -d) {
    wound = twist + d;
  } else {
    return 0.0;  // in the dead band: the teeth do not touch
  }
  const double torque = m.hinge_gear_stiffness[h] * wound + m.hinge_gear_damping[h] * (phi_dot - theta_dot);
  // The damper cannot pull touching teeth apart.
  if (d > 0.0) return wound > 0.0 ? std::max(0.0, torque) : std::min(0.0, torque);
  return torque;
}

/// The spring's energy 0.5 k (|phi - theta| - d)^2 beyond the dead band.
inline double gearSpringEnergy(const Model& m, int h, double phi, double theta) {
  const double wound = std::max(0.0, std::abs(phi - theta) - 0.5 * m.hinge_gear_backlash[h]);
  return 0.5 * m.hinge_gear_stiffness[h] * wound * wound;
}

}  // namespace suitsim::detail
