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
// integrator's order.
//
// The spring is stiff: the two-inertia mode, omega^2 = k (1 / I_a +
// 1 / I_link), runs at 1e3-1e4 rad/s for a realistic drive, beyond what an
// explicit step of a protocol's dt follows (omega dt < 2). So it is taken
// linearly implicitly over the step h = dt, as the armature already is at
// the acceleration level (hinges.cpp): the torque is the one at the step's
// end, its twist and rate carried forward by the accelerations being solved
// for, with Delta = phi - theta wound past the dead band:
//
//   tau_g = k (Delta_w + h Delta') + b Delta' + c (phi'' - theta''),
//   c = k h^2 + b h.
//
// With the rotor's equation, phi'' = (F - tau_g) / I_a (F = eta tau_m), that
// is solved for tau_g:
//
//   tau_g = A - B theta'',   A = (I_a tau_0 + c F) / (I_a + c),
//   B = I_a c / (I_a + c),   tau_0 = k (Delta_w + h Delta') + b Delta',
//
// so the link feels the explicit torque A and a rotor of inertia B on its
// angle row (the rigid armature's row with B for I_a, which gives the
// joint's response to the torque exactly). B runs from 0 (a soft gear: the
// explicit spring) to I_a (a stiff one: the rigid rotor). Under symplectic
// Euler the twist's mode then steps as by backward Euler (for the twist
// alone, Delta'' = -omega^2 (Delta + h Delta') / (1 + (omega h)^2), the
// map is backward Euler's), stable for any omega dt; its spectral radius
// stays below 0.75 under velocity Verlet and 0.8 under RK4 for omega dt
// >= 1. The price is damping the scheme adds to the twist, a damping ratio
// of about omega dt / 2 while omega dt is small, so a study of the gear's
// own vibration resolves it with dt well below 1 / omega; the motion of the
// links, slow against the gear, is changed to first order in dt
// (docs/engine.md#gear-compliance gives the measured difference). With
// backlash the teeth are taken as touching over the step when they touch at
// its start or will by its end at the present rates (the side the twist
// then lies on), and as parted when tau_0 would pull them (the damper cannot).
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

/// The compliant gear over one step of length dt (the note): whether its
/// teeth touch, and if so the explicit torque A on the link and the inertia
/// B of its rotor row; the rotor's drive F = eta tau_m.
struct GearStep {
  bool engaged = false;
  double torque = 0.0;   ///< A (N m); the whole tau_g when not engaged or when B = 0
  double inertia = 0.0;  ///< B (kg m^2), 0 while dt is 0 (an evaluation before any step)
  double drive = 0.0;    ///< F (N m)
};

inline GearStep gearStep(const Model& m, int h, double phi, double phi_dot, double theta, double theta_dot,
                         double motor, double dt) {
  GearStep s;
  s.drive = motor * gearFactor(m, h, motor, phi_dot);
  const double d = 0.5 * m.hinge_gear_backlash[h];
  const double twist = phi - theta, rate = phi_dot - theta_dot;
  double side = 1.0;  // which flank of the teeth bears (no backlash: wound = twist)
  if (d > 0.0) {
    const double ahead = twist + dt * rate;
    if (twist > d || (twist >= -d && ahead > d)) {
      side = 1.0;
    } else if (twist < -d || ahead < -d) {
      side = -1.0;
    } else {
      return s;  // in the dead band over the whole step
    }
  }
  const double k = m.hinge_gear_stiffness[h], b = m.hinge_gear_damping[h];
  const double tau0 = k * (twist - side * d + dt * rate) + b * rate;
  if (d > 0.0 && side * tau0 <= 0.0) return s;  // the teeth part: the damper cannot pull them
  const double ia = m.hinge_armature[h];
  const double c = k * dt * dt + b * dt;
  s.engaged = true;
  s.inertia = ia * c / (ia + c);
  s.torque = (ia * tau0 + c * s.drive) / (ia + c);
  return s;
}

/// The spring's energy 0.5 k (|phi - theta| - d)^2 beyond the dead band.
inline double gearSpringEnergy(const Model& m, int h, double phi, double theta) {
  const double wound = std::max(0.0, std::abs(phi - theta) - 0.5 * m.hinge_gear_backlash[h]);
  return 0.5 * m.hinge_gear_stiffness[h] * wound * wound;
}

}  // namespace suitsim::detail
