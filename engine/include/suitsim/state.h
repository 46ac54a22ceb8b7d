// The mutable state of a simulation: what step() advances.
#pragma once

#include <cstdint>
#include <vector>

#include "suitsim/model.h"

namespace suitsim {

namespace detail {
/// Velocity Verlet needs one force evaluation per step because the closing
/// evaluation of a step is the opening one of the next. That acceleration is
/// kept here with a copy of every State field the forces read. It is served
/// (cachedAcceleration) only while each of those fields is unchanged, bit for
/// bit, so a caller may set currents or forces, move particles or edit
/// friction state between steps without telling the engine.
struct AccelerationCache {
  bool filled = false;
  Vec3Array acceleration;  ///< (m/s^2), (num_particles)
  // The inputs it was computed from, named as in State.
  Vec3Array position, velocity, applied_force;
  std::vector<double> anchor_u, anchor_v;
  std::vector<std::uint8_t> anchor_active, contact_sliding;
  std::vector<double> hinge_current;
  std::vector<std::uint8_t> hinge_sticking;
  std::vector<double> hinge_stick_angle, hinge_angle, hinge_previous_velocity, hinge_winding_rise;
  std::vector<double> band_creep, band_material;
  std::vector<double> rotor_angle, rotor_velocity;
  std::vector<double> rotor_acceleration;  ///< the compliant gears' rotors' (not an input)
};

/// The joint angles and rates at the phase point of the last friction
/// update (the end of every step: hinge_friction.cpp reads them there
/// anyway), with the particles they were read from: each body's four frame
/// particles (Model::body_particle_begin), whose positions and velocities
/// are all a hinge's geometry reads. A hinge's reading is served
/// (detail::readHinge) only while its two bodies' particles are unchanged,
/// bit for bit, so a servo or a sensor reading the state after a step skips
/// the geometry and its atan2, and a caller may still move particles.
struct HingeReading {
  bool filled = false;
  std::vector<double> wrapped_angle;  ///< theta in (-pi, pi] before unwrapping (rad), (num_hinges)
  std::vector<double> rate;           ///< (rad/s), (num_hinges)
  /// Per body: x, y, z positions, then velocities, of its four frame
  /// particles, 4 each, (24 num_bodies).
  std::vector<double> body_particles;
};
}  // namespace detail

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
  /// The motor winding's temperature rise (K) where the joint's motor heats
  /// (Model::hinge_km > 0), updated at the end of every step, (num_hinges).
  std::vector<double> hinge_winding_rise;
  /// Each band's creep q (m): the elongation of its Maxwell arm's dashpot
  /// (Model::band_relaxing_stiffness), updated at the end of every step;
  /// 0 for a band without one, (num_bands).
  std::vector<double> band_creep;
  /// Each compliant gear's rotor (Model::hinge_gear_stiffness > 0): its
  /// angle over the gear ratio, in the joint's units and unwrapped like
  /// hinge_angle (rad), and its rate (rad/s); updated at the end of every
  /// step. For a rigid gear they are not used, (num_hinges) each.
  std::vector<double> rotor_angle;
  std::vector<double> rotor_velocity;
  /// Each band segment's unstretched length s_j (m): the band's material
  /// between two via points, which capstan friction lets slide across a
  /// via point (Model::band_capstan_friction), updated at the end of every
  /// step; a band's s_j sum to its l0. Segment v - b of band b runs from
  /// via point v to v + 1, (num_via - num_bands).
  std::vector<double> band_material;

  /// Velocity Verlet's acceleration and what it was computed from; read it
  /// through cachedAcceleration(), never directly.
  detail::AccelerationCache acceleration_cache;
  /// The joint readings the last step left (detail::HingeReading); read
  /// them through jointAngle() and the like, never directly.
  detail::HingeReading hinge_reading;
};

/// A state at the model's initial configuration must come from the scene;
/// this sizes every array and zeroes velocities, forces and anchors.
State makeState(const Model& model);

/// The acceleration at `state` (m/s^2, per particle) if the last velocity
/// Verlet step left one that still applies: nothing the forces read has
/// changed since. Otherwise nullptr, and the caller evaluates the forces.
const Vec3Array* cachedAcceleration(const State& state);

}  // namespace suitsim
