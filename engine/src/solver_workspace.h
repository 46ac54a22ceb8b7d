// The solver's scratch of one Workspace, private to the engine: the
// integrators' stage buffers and the hinge system (hinges.cpp), sized once
// by the Workspace's constructor.
#pragma once

#include <cstdint>
#include <vector>

#include "suitsim/model.h"

namespace suitsim::detail {

struct SolverWorkspace {
  // RK4 stages: stage positions/velocities and the accumulated increments.
  Vec3Array stage_position, stage_velocity;
  Vec3Array stage_acceleration;
  Vec3Array sum_dx, sum_dv;
  // The same for the compliant gears' rotors, (num_hinges) each.
  std::vector<double> stage_rotor_angle, stage_rotor_velocity, sum_rotor_angle, sum_rotor_velocity;
  /// Each spring's force on its `a` end, T u, as (x, y, z, 0) (springs.cpp), (4 num_springs).
  std::vector<double> spring_force;
  std::vector<std::uint8_t> hinge_slipped;    ///< 1 if static friction gave way, (num_hinges)
  // Capstan friction's end-of-step slip solve (bands.cpp): each segment's
  // length and each via point's capstan ratio exp(mu theta), 1 at a band's ends.
  std::vector<double> band_segment_length;  ///< L_j (m), (num_via - num_bands)
  std::vector<double> via_capstan_ratio;    ///< (num_via)
  // Hinge constraint solver scratch (hinges.cpp), laid out by
  // initHingeWorkspace: per hinge up to six rows (ball 3, plane 2, stick 1),
  // their targets, right-hand sides and multipliers; each row's wrench on
  // the two bodies; the symmetric system K stored as 6 x 6 blocks for the
  // hinge pairs that share a body only (the elimination creates no others).
  std::vector<int> hinge_rows;                          ///< active rows, (num_hinges)
  /// What a hinge's sixth (angle) row does while active: 1 static friction
  /// holds the angle, 0 the armature resists its acceleration, (num_hinges).
  std::vector<std::uint8_t> hinge_stick_row;
  std::vector<double> hinge_armature_target;  ///< the rotor row's target, -angleQuadratic, (num_hinges)
  /// The inertia on a hinge's rotor row: I_a of a rigid rotor, B of an
  /// engaged compliant gear (gear_train.h), 0 without a rotor row, (num_hinges).
  std::vector<double> hinge_rotor_inertia;
  /// An engaged compliant gear's rotor drive F and, while static friction
  /// holds the hinge, the rotor's share -B theta'' put in with A, (num_hinges).
  std::vector<double> gear_drive, gear_held_torque;
  /// The step being taken (s): the compliant gears' springs are implicit
  /// over it (gear_train.h); 0 before the first step.
  double step_dt = 0.0;
  std::vector<double> hinge_grad;                       ///< particle gradients, for bodies with a fixed particle only, (num_hinges x 6 x 8 x 3)
  std::vector<double> hinge_target, hinge_lambda;  ///< (num_hinges x 6)
  std::vector<double> hinge_rhs;  ///< right-hand sides, padded like the blocks' rows, (num_hinges x 8)
  std::vector<double> hinge_point_grad;                 ///< the rows' gradients at the hinge points, (num_hinges x 24)
  std::vector<std::int32_t> hinge_position;             ///< place of each hinge in KernelLayout::hinge_order, (num_hinges)
  /// K's blocks per hinge a: first a's diagonal block, then (a, b) for each
  /// b of KernelLayout::hinge_coupled[a], in order, (num_hinges + 1).
  std::vector<std::int32_t> hinge_block_begin;
  std::vector<std::int32_t> body_pair_begin;   ///< each body's slice of body_pair_block, (num_bodies + 1)
  std::vector<std::int32_t> body_pair_block;   ///< block of each hinge pair on a body, the first eliminated first
  std::vector<std::int32_t> hinge_fill_begin;  ///< each hinge's slice of hinge_fill_block, (num_hinges + 1)
  std::vector<std::int32_t> hinge_fill_block;  ///< blocks K_ca a hinge's elimination updates, (c, a) coupled to it
  std::vector<double> hinge_block;                      ///< 6 x 6 blocks of K (rows padded to 8), then their factors, (num_blocks x 48)
  std::vector<std::int32_t> hinge_batch_begin;          ///< batches of KernelLayout::hinge_order factored together, (num_batches + 1)
  std::vector<std::vector<std::int32_t>> body_hinges;   ///< hinges touching each body
  std::vector<double> hinge_body;    ///< per body: mass, centre of mass, I^-1, particle offsets, I (hinges.cpp), (num_bodies x 36)
  std::vector<double> hinge_wrench;  ///< each row's force and moment on each side's body, component-major, rows padded to 8, (num_hinges x 2 x 6 x 8)
  std::vector<double> hinge_mobility;  ///< the same wrenches times the body's rigid mobility, (num_hinges x 2 x 6 x 8)
  std::vector<double> hinge_body_wrench;  ///< hinge forces gathered per body before they are spread, (num_bodies x 6)
  /// Each hinge's geometry (points, axis, angle and its gradient) from the
  /// latest geometry pass, (num_hinges x hinges.cpp's record size).
  std::vector<double> hinge_geometry;
  /// True while hinge_geometry belongs to the phase point of the next force
  /// evaluation: set by an integrator between the end-of-step friction update
  /// and an evaluation at the same point, cleared by that evaluation.
  bool hinge_geometry_current = false;
  // Couplings (URDF <mimic>, hinges.cpp): solved with the hinge rows by a
  // Schur complement on the factored hinge system.
  std::vector<std::uint8_t> hinge_in_coupling;  ///< 1 if a coupling names the hinge, (num_hinges)
  /// Per coupled hinge: theta (rad), theta' (rad/s), the velocity part of
  /// theta'' (rad/s^2), the angle row's moment on the parent and on the
  /// child body (N m per unit torque), (num_hinges x 9).
  std::vector<double> hinge_angle_data;
  std::vector<std::int32_t> coupling_body;  ///< the four bodies a coupling's moments act on, (num_couplings x 4)
  std::vector<double> coupling_arm;         ///< the moment on each per unit mu (N m), (num_couplings x 4 x 3)
  std::vector<double> coupling_target;      ///< e'' wanted (rad/s^2), (num_couplings)
  std::vector<double> coupling_response;    ///< L^-1 B, B the couplings' columns over the hinge rows, (num_couplings x num_hinges x 8)
  std::vector<std::int32_t> coupling_path;  ///< the hinges each column of L^-1 B is nonzero on, (num_couplings x num_hinges)
  std::vector<int> coupling_reach;           ///< how many, (num_couplings)
  std::vector<double> coupling_schur;       ///< C - B^T K^-1 B, factored in place, (num_couplings x num_couplings)
  std::vector<double> coupling_rhs;         ///< (num_couplings)
  std::vector<double> coupling_lambda;      ///< mu: the coupling's torque on each follower joint (N m), (num_couplings)
};

}  // namespace suitsim::detail
