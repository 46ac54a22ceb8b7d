// The mutable state of a simulation: what step() advances.
#pragma once

#include <cstdint>
#include <vector>

#include "suitsim/model.h"

namespace suitsim {

struct State {
  double time = 0.0;           ///< simulated time (s)
  Vec3Array position;          ///< particle positions (m), (num_particles)
  Vec3Array velocity;          ///< particle velocities (m/s), (num_particles)
  Vec3Array applied_force;     ///< caller-set external force, held over a step (N), (num_particles)

  // Friction anchors, one per contact (see GroundModel). They change only at
  // the end of a step, so every integrator stage sees the same anchors.
  std::vector<double> anchor_u;              ///< anchor tangent coordinate u (m), (num_contacts)
  std::vector<double> anchor_v;              ///< anchor tangent coordinate v (m), (num_contacts)
  std::vector<std::uint8_t> anchor_active;   ///< 1 while the contact touches the ground, (num_contacts)
  std::vector<std::uint8_t> contact_sliding;  ///< 1 while the contact slides, (num_contacts)

  // Hinges: the caller sets motor currents; friction keeps its stick state.
  std::vector<double> hinge_current;           ///< motor current u, held over a step (A), (num_hinges)
  std::vector<std::uint8_t> hinge_sticking;    ///< 1 while static friction holds the hinge, (num_hinges)
  std::vector<double> hinge_stick_angle;       ///< angle where it stuck (rad, unwrapped like hinge_angle), (num_hinges)
  /// Joint angle at `position` (rad), tracked continuously: the hinge's
  /// geometry gives it modulo 2 pi, and each step adds the wrapped change.
  /// Limits, servo, static friction and recording use it, so a joint
  /// turning past +-pi reads on (3.2, not -3.08). Set by makeState and at
  /// the end of every step, (num_hinges).
  std::vector<double> hinge_angle;
  std::vector<double> hinge_previous_velocity;  ///< joint rate at the end of the last step (rad/s), (num_hinges)

  // Acceleration at the current state, kept by velocity Verlet so that it
  // needs one force evaluation per step. Anything that edits the state or the
  // applied forces between steps should clear the flag.
  Vec3Array acceleration;              ///< (m/s^2), (num_particles)
  bool acceleration_valid = false;
};

/// A state at the model's initial configuration must come from the scene;
/// this sizes every array and zeroes velocities, forces and anchors.
State makeState(const Model& model);

}  // namespace suitsim
