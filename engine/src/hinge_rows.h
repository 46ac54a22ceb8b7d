// The hinge solve's rows (hinges.cpp's design note): per hinge, the five
// constraint rows of T(11)-(12) and the angle row, their wrenches on the
// bodies, targets and right-hand sides, the applied joint torques
// T(13)-(19), A(6)-(7), and the rows' mobility. Private to hinges.cpp, which
// inlines all of it into applyHinges' per-ISA clones (isa_clones.h): kept in
// a header so that the clones keep their vector width.
#pragma once

#include <cmath>
#include <cstring>
#include <numbers>

#include "block_kernels.h"
#include "forces.h"
#include "gear_train.h"
#include "hinge_friction.h"
#include "hinge_geometry.h"
#include "hinge_math.h"
#include "motor_heating.h"
#include "rigid_bodies.h"

namespace suitsim::detail::hinge_solve {

constexpr int kGradSize = kRows * 8 * 3;  // rows x (4 parent + 4 child particles) x xyz

// Workspace::hinge_angle_data per hinge: theta, theta', angleQuadratic,
// the angle row's moment on the parent (3) and on the child (3).
constexpr int kAngleData = 9;

inline int bodyOf(const Model& m, int h, int side) {
  return side == 0 ? m.hinge_parent_body[h] : m.hinge_child_body[h];
}

// ---- rows ------------------------------------------------------------------
// Wrenches, component-major: wrench[component * 6 + row], components force
// (0-2) and moment about the centre of mass (3-5).
inline double* wrenchOf(Workspace& ws, int h, int side) { return &ws.solver->hinge_wrench[(h * 2 + side) * kBlock]; }
// The same times the body's rigid mobility (1/m on the force, I^-1 on the moment).
inline double* mobilityOf(Workspace& ws, int h, int side) { return &ws.solver->hinge_mobility[(h * 2 + side) * kBlock]; }
// Particle gradients of a side on a fixed body: grad[(row * 8 + side * 4 + k) * 3 + xyz].
inline double* gradRow(Workspace& ws, int h, int row) { return &ws.solver->hinge_grad[(h * kRows + row) * 24]; }

// The rows' gradients at the hinge points (Workspace::hinge_point_grad):
// the plane rows' n (at C_k, minus at J_c) and t_1, t_2 (at A, minus at
// J_p), then theta's gradient at C1, J_c, B, A, J_p; the ball rows' are
// +-e_d at J_p and J_c.
constexpr int kPointGrad = 24;
constexpr int kNormal = 0, kTangent = 3, kThetaC1 = 9, kThetaJc = 12, kThetaB = 15, kThetaA = 18, kThetaJp = 21;

// Adds weight * g to the gradient slots of a point on the parent (side 0)
// or child (side 1).
inline void addPointGradient(double* row, int side, const std::array<double, 4>& w, const V3& g) {
  for (int k = 0; k < 4; ++k) {
    double* s = row + (side * 4 + k) * 3;
    s[0] += w[k] * g.x();
    s[1] += w[k] * g.y();
    s[2] += w[k] * g.z();
  }
}

inline void setColumn(double* wrench, int row, const V3& force, const V3& moment) {
  for (int d = 0; d < 3; ++d) {
    wrench[d * kStride + row] = force[d];
    wrench[(3 + d) * kStride + row] = moment[d];
  }
}

// A row that stopped taking part (a slipping hinge's angle row) has zero
// wrenches, so it drops out of K without any test in the products.
inline void clearAngleRow(Workspace& ws, int h) {
  for (int side = 0; side < 2; ++side) {
    double* w = wrenchOf(ws, h, side);
    double* mw = mobilityOf(ws, h, side);
    for (int c = 0; c < 6; ++c) w[c * kStride + 5] = mw[c * kStride + 5] = 0.0;
  }
}

// Adds `scale` times row `row` of hinge h to the forces: on a movable body
// into its wrench accumulator (Workspace::hinge_body_wrench, spread by
// flushBodyWrenches), on a fixed one to the particles by the point weights.
inline void addRow(const Model& m, Workspace& ws, int h, int row, double scale) {
  for (int side = 0; side < 2; ++side) {
    const int b = bodyOf(m, h, side);
    if (movable(ws, b)) {
      const double* w = wrenchOf(ws, h, side);
      double* acc = &ws.solver->hinge_body_wrench[b * 6];
      for (int c = 0; c < 6; ++c) acc[c] += scale * w[c * kStride + row];
      continue;
    }
    const double* g = gradRow(ws, h, row) + side * 12;
    const int first = m.body_particle_begin[b];
    for (int k = 0; k < 4; ++k) {
      ws.force.x[first + k] += scale * g[3 * k];
      ws.force.y[first + k] += scale * g[3 * k + 1];
      ws.force.z[first + k] += scale * g[3 * k + 2];
    }
  }
}

// K's blocks, stored per hinge (Workspace::hinge_block_begin): hinge a's
// diagonal block, then one block (a, model.hinge_coupled[a][k]) per hinge
// it couples to, in that list's order.
inline double* blockAt(Workspace& ws, int index) { return &ws.solver->hinge_block[static_cast<std::size_t>(index) * kBlock]; }
inline double* diagonalBlock(Workspace& ws, int h) { return blockAt(ws, ws.solver->hinge_block_begin[h]); }
inline double* coupledBlock(Workspace& ws, int h, int k) { return blockAt(ws, ws.solver->hinge_block_begin[h] + 1 + k); }

// While static friction holds a hinge with armature, its row's multiplier
// is the friction plus the rotor's torque -I_a theta'', theta'' the row's
// target plus its velocity part: the rotor's share, which static friction
// does not have to hold. With the stabilisation's w^2 (1e6 /s^2 at 1000
// rad/s) a micro-radian of drift asks for I_a N m of it, so leaving it in
// the friction breaks hinges loose that friction would hold.
// A follower has no rotor: ModelBuilder::addCoupling refuses one.
inline double heldRotorTorque(const Model& m, const Workspace& ws, int h) {
  if (!rigidRotor(m, h)) return 0.0;
  return -ws.solver->hinge_rotor_inertia[h] * (ws.solver->hinge_target[h * kRows + 5] - ws.solver->hinge_armature_target[h]);
}

// ---- one force evaluation's stages ----------------------------------------

// Each row's wrench on the two bodies, or on a body with a fixed particle
// the particle gradients (prepareHinge's rows; t the plane rows' tangents).
inline void rowWrenches(const Model& model, Workspace& ws, int h, const HingeGeometry& g, const V3 (&t)[2]) {
  const V3 n = vec(g.n);
  const V3 jp = vec(g.p[kJp]), jc = vec(g.p[kJc]), a = vec(g.p[kA]), b = vec(g.p[kB]);
  // Each row's wrench on a body that takes forces rigidly. A row's point
  // pairs (A and J_p, C_k and J_c, ...) carry opposite forces, so only the
  // ball rows have a force on a body; the moments are the arms from the
  // centre of mass crossed with the point forces. The ball rows' pair acts
  // at one point, the midpoint of J_p and J_c, on both bodies: applied at
  // J_p and J_c themselves it would have the net moment (J_p - J_c) x
  // lambda while stabilisation has not yet closed the gap, and angular
  // momentum would drift. Used as the rows' Jacobian too (K stays
  // symmetric), it differs from the exact one by arms of |J_p - J_c| / 2,
  // an error in the gap's acceleration that the stabilisation takes out.
  const V3 ball_point = 0.5 * (jp + jc);
  for (int side = 0; side < 2; ++side) {
    const int body = bodyOf(model, h, side);
    if (!movable(ws, body)) continue;
    const double* data = bodyData(ws, body);
    const V3 c = vec(data + kCentre);
    double* wrench = wrenchOf(ws, h, side);
    const double sign = side == 0 ? 1.0 : -1.0;
    const V3 centre_arm = ball_point - c;
    for (int d = 0; d < 3; ++d) {
      V3 e = V3::Zero();
      e[d] = sign;
      setColumn(wrench, d, e, centre_arm.cross(e));
    }
    const V3 zero = V3::Zero();
    if (side == 0) {
      const V3 axis = a - jp;
      setColumn(wrench, 3, zero, axis.cross(t[0]));
      setColumn(wrench, 4, zero, axis.cross(t[1]));
      setColumn(wrench, 5, zero, (b - jp).cross(vec(g.dtheta[kB])) + axis.cross(vec(g.dtheta[kA])));
    } else {
      const V3 r1 = vec(g.p[kC1]) - jc;
      setColumn(wrench, 3, zero, r1.cross(n));
      setColumn(wrench, 4, zero, (vec(g.p[kC2]) - jc).cross(n));
      setColumn(wrench, 5, zero, r1.cross(vec(g.dtheta[kC1])));
    }
  }
  // A body with a fixed particle keeps the particle gradients.
  for (int side = 0; side < 2; ++side) {
    if (movable(ws, bodyOf(model, h, side))) continue;
    for (int row = 0; row < kRows; ++row) {
      double* g_row = gradRow(ws, h, row);
      for (int q = 0; q < 12; ++q) g_row[side * 12 + q] = 0.0;
    }
    const std::array<double, 4>& centre = side == 0 ? model.hinge_centre_parent[h] : model.hinge_centre_child[h];
    for (int d = 0; d < 3; ++d) {
      V3 e = V3::Zero();
      e[d] = side == 0 ? 1.0 : -1.0;
      addPointGradient(gradRow(ws, h, d), side, centre, e);
    }
    if (side == 0) {
      for (int k = 0; k < 2; ++k) {
        addPointGradient(gradRow(ws, h, 3 + k), 0, model.hinge_axis_point[h], t[k]);
        addPointGradient(gradRow(ws, h, 3 + k), 0, model.hinge_centre_parent[h], -t[k]);
      }
      addPointGradient(gradRow(ws, h, 5), 0, model.hinge_parent_arm[h], vec(g.dtheta[kB]));
      addPointGradient(gradRow(ws, h, 5), 0, model.hinge_axis_point[h], vec(g.dtheta[kA]));
      addPointGradient(gradRow(ws, h, 5), 0, model.hinge_centre_parent[h], vec(g.dtheta[kJp]));
    } else {
      addPointGradient(gradRow(ws, h, 3), 1, model.hinge_child_arm[h], n);
      addPointGradient(gradRow(ws, h, 3), 1, model.hinge_centre_child[h], -n);
      addPointGradient(gradRow(ws, h, 4), 1, model.hinge_child_arm2[h], n);
      addPointGradient(gradRow(ws, h, 4), 1, model.hinge_centre_child[h], -n);
      addPointGradient(gradRow(ws, h, 5), 1, model.hinge_child_arm[h], vec(g.dtheta[kC1]));
      addPointGradient(gradRow(ws, h, 5), 1, model.hinge_centre_child[h], vec(g.dtheta[kJc]));
    }
  }
}

// Rows, targets, wrenches and the applied torques of hinge h.
inline void prepareHinge(const Model& model, const State& state, const PhasePoint& x, Workspace& ws, int h,
                  const HingeGeometry& g) {
  const double w = model.hinge_constraint_frequency;
  const int follows = model.hinge_follower_coupling[h];
  const bool sticking = follows < 0 && state.hinge_sticking[h] != 0 && hasFriction(model, h);
  // A rotor on a compliant gear is a degree of freedom of its own, whose
  // spring, while the teeth touch, puts a rotor of inertia B on the angle
  // row (gear_train.h); a rigid rotor puts I_a there. A follower has neither
  // (addCoupling).
  const double motor = motorTorque(model, state, h);  // the windings' heating: motor_heating.h
  const bool compliant = compliantGear(model, h);
  GearStep gear;
  if (compliant) {
    const double phi = x.rotor_angle ? x.rotor_angle[h] : state.rotor_angle[h];
    const double phi_dot = x.rotor_velocity ? x.rotor_velocity[h] : state.rotor_velocity[h];
    gear = gearStep(model, h, phi, phi_dot, g.theta, g.theta_dot, motor, ws.solver->step_dt);
  }
  const double rotor_inertia = compliant ? gear.inertia : (rigidRotor(model, h) ? model.hinge_armature[h] : 0.0);
  ws.solver->hinge_rotor_inertia[h] = rotor_inertia;
  const bool armature = rotor_inertia > 0.0;
  ws.solver->hinge_rows[h] = sticking || armature ? 6 : 5;
  ws.solver->hinge_stick_row[h] = sticking ? 1 : 0;
  double* target = &ws.solver->hinge_target[h * kRows];
  const V3 n = vec(g.n), n_dot = vec(g.n_dot);
  const V3 jp = vec(g.p[kJp]), jc = vec(g.p[kJc]), a = vec(g.p[kA]), b = vec(g.p[kB]);
  const V3 jc_dot = vec(g.v[kJc]);
  // Ball joint: J_p - J_c = 0, linear in the positions.
  for (int d = 0; d < 3; ++d) {
    target[d] = -2.0 * w * (g.v[kJp][d] - g.v[kJc][d]) - w * w * (g.p[kJp][d] - g.p[kJc][d]);
  }
  // Rotation plane, T(11)-(12): n . (C_k - J_c), gradient n at C_k, -n at
  // J_c, t_k at A and -t_k at J_p.
  double* point_grad = &ws.solver->hinge_point_grad[h * kPointGrad];
  put(n, point_grad + kNormal);
  V3 t[2];
  for (int k = 0; k < 2; ++k) {
    const int point = k == 0 ? kC1 : kC2;
    const V3 r = vec(g.p[point]) - jc;
    const V3 r_dot = vec(g.v[point]) - jc_dot;
    t[k] = (r - n * n.dot(r)) / g.axis_length;
    put(t[k], point_grad + kTangent + 3 * k);
    const double g_pos = n.dot(r);
    const double g_vel = n_dot.dot(r) + n.dot(r_dot);
    // Velocity-dependent part of g'': n'' = (1 - n n^T) w''/L - 2 n' L'/L - n |n'|^2.
    const double quadratic = 2.0 * n_dot.dot(r_dot) - 2.0 * r.dot(n_dot) * g.axis_length_rate / g.axis_length -
                             g_pos * n_dot.squaredNorm();
    target[3 + k] = -2.0 * w * g_vel - w * w * g_pos - quadratic;
  }
  // The angle row: used by static friction, and to apply joint torques.
  for (int d = 0; d < 3; ++d) {
    point_grad[kThetaC1 + d] = g.dtheta[kC1][d];
    point_grad[kThetaJc + d] = g.dtheta[kJc][d];
    point_grad[kThetaB + d] = g.dtheta[kB][d];
    point_grad[kThetaA + d] = g.dtheta[kA][d];
    point_grad[kThetaJp + d] = g.dtheta[kJp][d];
  }
  // Held by static friction: theta'' drives the angle back to where it
  // stuck. Else, with armature: the rotor's row (see the note), whose
  // target is theta'''s velocity part, also kept for a breakaway.
  const double quadratic = armature ? angleQuadratic(g) : 0.0;
  ws.solver->hinge_armature_target[h] = -quadratic;
  target[5] = sticking ? -2.0 * w * g.theta_dot - w * w * (g.theta - state.hinge_stick_angle[h]) : -quadratic;

  rowWrenches(model, ws, h, g, t);

  // Joint torques as internal pairs, T(13)-(19): motor A(6), limits, and
  // viscous friction always; Coulomb friction here only while slipping.
  // A follower is held at rest through its leader's stick row (see the note).
  const bool held = sticking || (follows >= 0 && state.hinge_sticking[model.coupling_leader[follows]] != 0 &&
                                 hasFriction(model, model.coupling_leader[follows]));
  // A compliant gear: the link feels the spring, the motor drives the rotor
  // and the gear's losses act there (gear_train.h). Rigid: what the gear
  // loses of the motor's torque counts as the joint's friction.
  double drive = motor;
  if (compliant) {
    // tau_g = A - B theta'': the row's multiplier carries -B theta'' while
    // the hinge slips; while static friction holds it, theta'' is the stick
    // row's target (plus its velocity part), and -B theta'' is put in with A.
    drive = gear.torque;
    ws.solver->gear_drive[h] = gear.drive;
    ws.solver->gear_held_torque[h] = 0.0;
    if (sticking && armature) {
      ws.solver->gear_held_torque[h] = -gear.inertia * (target[5] + angleQuadratic(g));
      drive += ws.solver->gear_held_torque[h];
    }
    // Final here unless the rotor row solves for theta'' (hinges.cpp).
    ws.rotor_acceleration[h] = (gear.drive - drive) / model.hinge_armature[h];
  }
  const double gear_loss = compliant ? 0.0 : motor * (gearFactor(model, h, motor, g.theta_dot) - 1.0);
  const double friction =
      (held ? -model.hinge_viscous[h] * g.theta_dot : slipFriction(model, h, g.theta_dot)) + gear_loss;
  const double applied = drive + friction + limitTorque(model, h, g.theta, g.theta_dot);
  addRow(model, ws, h, 5, applied);
  // From here on a row takes part in the solve only while it is active: a
  // slipping hinge's angle row drops out.
  if (!sticking && !armature) clearAngleRow(ws, h);
  ws.hinge_motor_torque[h] = motor;
  ws.hinge_friction_torque[h] = friction;
  ws.hinge_drive_torque[h] = drive;  // friction and the rotor's reaction join it after the solve (hinges.cpp)
  ws.solver->hinge_slipped[h] = 0;
  if (ws.solver->hinge_in_coupling[h]) {
    // The angle row's moments (as in its wrench above) and theta's motion,
    // for the couplings.
    double* data = &ws.solver->hinge_angle_data[h * kAngleData];
    data[0] = g.theta;
    data[1] = g.theta_dot;
    data[2] = angleQuadratic(g);
    put((b - jp).cross(vec(g.dtheta[kB])) + (a - jp).cross(vec(g.dtheta[kA])), data + 3);
    put((vec(g.p[kC1]) - jc).cross(vec(g.dtheta[kC1])), data + 6);
  }
}

// Right-hand side of hinge h: its targets minus what the free accelerations
// (every force so far, over the particle masses) give the rows.
// The hinge points' accelerations under the forces so far.
inline void pointAccelerations(const Model& model, const Workspace& ws, int h, V3* acc) {
  const std::array<double, 4>* weights[kNumPoints] = {
      &model.hinge_centre_parent[h], &model.hinge_centre_child[h], &model.hinge_axis_point[h],
      &model.hinge_parent_arm[h],    &model.hinge_child_arm[h],    &model.hinge_child_arm2[h]};
  for (int side = 0; side < 2; ++side) {
    const int first = model.body_particle_begin[bodyOf(model, h, side)];
    V3 particle[4];
    for (int k = 0; k < 4; ++k) {
      const int i = first + k;
      const double im = model.particle_inv_mass[i];
      particle[k] = V3(im * ws.force.x[i], im * ws.force.y[i], im * ws.force.z[i]);
    }
    static constexpr int kSidePoints[2][3] = {{kJp, kA, kB}, {kJc, kC1, kC2}};
    for (int point : kSidePoints[side]) {
      const std::array<double, 4>& w = *weights[point];
      acc[point] = w[0] * particle[0] + w[1] * particle[1] + w[2] * particle[2] + w[3] * particle[3];
    }
  }
}

// grad theta . p'': theta'' but for its velocity part.
inline double angleAcceleration(const Workspace& ws, int h, const V3* acc) {
  const double* point_grad = &ws.solver->hinge_point_grad[h * kPointGrad];
  return vec(point_grad + kThetaC1).dot(acc[kC1]) + vec(point_grad + kThetaJc).dot(acc[kJc]) +
         vec(point_grad + kThetaB).dot(acc[kB]) + vec(point_grad + kThetaA).dot(acc[kA]) +
         vec(point_grad + kThetaJp).dot(acc[kJp]);
}

inline void rightHandSide(const Model& model, Workspace& ws, int h) {
  V3 acc[kNumPoints];
  pointAccelerations(model, ws, h, acc);
  const double* point_grad = &ws.solver->hinge_point_grad[h * kPointGrad];
  const double* target = &ws.solver->hinge_target[h * kRows];
  double* rhs = &ws.solver->hinge_rhs[h * kStride];
  const V3 ball = acc[kJp] - acc[kJc];
  for (int d = 0; d < 3; ++d) rhs[d] = target[d] - ball[d];
  const V3 n = vec(point_grad + kNormal);
  for (int k = 0; k < 2; ++k) {
    const V3 t = vec(point_grad + kTangent + 3 * k);
    rhs[3 + k] = target[3 + k] - (n.dot(acc[k == 0 ? kC1 : kC2] - acc[kJc]) + t.dot(acc[kA] - acc[kJp]));
  }
  if (ws.solver->hinge_rows[h] == 6) {
    rhs[5] = target[5] - angleAcceleration(ws, h, acc);
  } else {
    rhs[5] = 0.0;
  }
}

// Every row's wrench times its body's rigid mobility: 1/m on the force,
// I^-1 on the moment, by block rows. A pass of its own, after all hinges
// are prepared: loading the wrench rows right after their scalar stores
// would stall on store forwarding.
inline void applyMobility(const Model& model, Workspace& ws) {
  for (int h = 0; h < model.num_hinges; ++h) {
    for (int side = 0; side < 2; ++side) {
      const int b = bodyOf(model, h, side);
      if (!movable(ws, b)) continue;
      const double* data = bodyData(ws, b);
      const double* wrench = wrenchOf(ws, h, side);
      double* mobility = mobilityOf(ws, h, side);
      Row rows[6];
      for (int c = 0; c < 6; ++c) rows[c] = loadRow(wrench + c * kStride);
      for (int c = 0; c < 3; ++c) storeRow(mobility + c * kStride, data[kInvMass] * rows[c]);
      const double* inv_inertia = data + kInvInertia;
      for (int i = 0; i < 3; ++i) {
        storeRow(mobility + (3 + i) * kStride, inv_inertia[3 * i] * rows[3] + inv_inertia[3 * i + 1] * rows[4] +
                                                   inv_inertia[3 * i + 2] * rows[5]);
      }
    }
  }
}

}  // namespace suitsim::detail::hinge_solve
