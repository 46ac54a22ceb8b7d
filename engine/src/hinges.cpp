// Hinge joints from the rotation plane, T(11)-(19), with motors, friction and
// limits.
//
// Design note. Every body a hinge touches is a tetrahedron of four particles
// holding its exact mass, centre of mass and inertia (robot_compile.cpp). A
// hinge's points (centres J_p, J_c, axis point A, arms B, C1, C2) are fixed
// affine combinations of its bodies' particles: no light particle sits at a
// joint, and the points move with the body without any Jacobian. Per hinge,
// five constraints:
//
//   J_p - J_c = 0                  ball joint (three rows)
//   g_k = n . (C_k - J_c) = 0      the child's arms stay in the rotation
//                                  plane, n = (A - J_p)/|A - J_p|      T(11)
//
// T(12) removes the acceleration normal to the rotation plane. Each g is
// unchanged when everything moves or turns together, so its point forces
// lambda dg/dp have no net force or moment: they are internal to the robot.
// lambda is chosen so that every g'' = -2 w g' - w^2 g: the normal
// acceleration goes and drift decays at the rate w. The constraints of
// hinges sharing a body are coupled through that body.
//
// How hinge forces reach the particles. Every hinge force (constraint
// forces, joint torques, static friction) acts on a body as on a rigid body:
// the point forces of a row add up to a force F and a moment M about the
// body's centre of mass c, and particle k gets m_k (F/m + alpha x (x_k - c)),
// alpha = I^-1 M (m, c and I of the four particles as they are). Net force
// and moment are the row's, so the pairs stay internal and momentum is
// conserved, and the forces strain no link. Handing the point forces to the
// particles by the point weights instead strains the tetrahedra, and it is
// unstable under a joint servo: at the acceleration level the four
// particles are then free masses held only where the hinge points are, so
// a light link between two joints (the 1 kg hip, waist and shoulder links)
// answers a joint torque as if it had a fiftieth to a five-hundredth of the
// inertia the rigid robot gives the joint (hip roll: 4.9e-4 instead of 0.2
// kg m^2), ringing against its own link springs. A derivative gain held
// over a servo period T sees that inertia, and kd T / I < 2 fails by far
// (JVRC-1's kd 30 at 1 kHz: 61): the joint rates grew at the servo's
// Nyquist rate within milliseconds of a joint slipping, and only static
// friction, while it held, hid it. With the rigid spread a joint sees the
// robot's inertia (hip roll 0.2 kg m^2: kd T / I = 0.15).
//
// Hinged bodies are rigid bodies. Before the springs and the hinges, every
// other force on a hinged body (gravity, caller-applied, ground contacts,
// bands: whatever acts at its particles or points) is spread the same way,
// and each particle is given the centripetal acceleration of the body's
// spin, omega x (omega x r_k), with alpha = I^-1 (M - omega x I omega)
// (spreadBodyForces): Euler's equations, with omega = I^-1 L from the
// particles' own velocities. The tetrahedra then move rigidly without being
// held, so the link springs (added after, acting on strain alone) only
// take out what the integrator lets drift, and may be weak: their
// stiffness, which once had to hold every body's shape against ground and
// hinge forces (and set the time step to about 1 / link_frequency), no
// longer limits the step. The hinge right-hand sides see the bodies'
// centripetal accelerations at the hinge points through the particles'
// free accelerations. With links held by stiff springs instead, the
// constraint forces traded energy with link strain at O(1 /
// link_frequency^2) (a taut band swinging an undamped double pendulum:
// 8e-5 of its energy over 1 s at 3000 rad/s, 8e-6 at 10000; now 3e-7), and
// the joint angles lagged the rigid model by the links' give.
//
// The system K lambda = rhs, K = W M_b^-1 W^T over the bodies (W the rows'
// wrenches, M_b^-1 a body's rigid mobility: 1/m on the force, I^-1 on the
// moment; a body with a fixed particle keeps the point weights and its
// particles' mobility G M^-1 G^T, its particles do not move), is solved
// exactly by block elimination from the leaves toward the root: eliminating
// a hinge only couples hinges on its parent body, which are coupled already,
// so the elimination creates no fill and costs a few 6 x 6 products per
// hinge. The rigid response of the points is exact (a point p of the body
// accelerates by F/m + alpha x (p - c)), so the constraints hold as before.
//
// Toda and Sankai's link model (LinkModel::kSprings, docs/engine.md, "The
// two link models"). Their links are held by stiff spring-dampers alone,
// T(1)-(10), and a force at a point reaches the particles by the point's
// weights. Here every hinged body then takes the path of a body with a
// fixed particle: no rigid spread (spreadBodyForces skips it), the rows'
// particle gradients G, and the particles' own mobility G M^-1 G^T in K.
// The rotation plane is the constraint of T(11)-(12) in a form that keeps
// momentum: T(12) deletes the acceleration normal to the plane; the rows
// delete it from the relative acceleration of the child's arms and the
// parent's axis, g'' = n . (C_k'' - J_c'') + ... = -2 w g' - w^2 g, with
// the least force in the metric of the particle masses (Gauss), and that
// force is a pair of gradients of g, which a rigid motion of the whole
// robot leaves alone: internal, as T(13)-(19) asks of a torque. Projecting
// one particle's acceleration, as T(12) reads literally, would take the
// removed part out of the robot's momentum. The ball joint is held the
// same way (three rows on the joint centres, exact at the acceleration
// level), not by a stiff spring: one stiffness fewer to bound the step.
// Its pair then acts at J_p and at J_c, not at their midpoint, so while
// the stabilisation has not closed the gap it has the moment (J_p - J_c)
// x lambda, a gap the stabilisation keeps to round-off size. Couplings (<mimic>) act on
// rigid bodies and are refused with springs (ModelBuilder::build).
//
// The joint angle theta = atan2(n . (u x r), u . r), u = B - J_p, r = C1 - J_c,
// is invariant in the same way, so a joint torque tau applied as the forces
// tau grad theta (spread rigidly, like the constraint forces) is an internal
// pair: moment +tau n on the child, -tau n on the parent, T(13)-(19). Motor
// A(6), viscous and Coulomb friction A(7), the optional Stribeck drop and
// the limit springs all act so. Static friction is a sixth row, theta''
// driven to hold the angle where the hinge stuck; its multiplier is the
// friction torque, accepted while |lambda| <= tau_s^max, A(7)-(9). The
// quadratic velocity term of theta'' is left to the stabilisation (it is
// small while the hinge is at rest).
//
// atan2 gives theta in (-pi, pi]; a joint whose range reaches past +-pi
// (JVRC-1's shoulder pitch stops at -pi + 2e-12) would read +3.14 just past
// -pi, and a limit spring or servo acting on that reading drives it further
// round. So the angle is tracked: State::hinge_angle holds the angle at the
// end of the last step, and every reading (stage points, end of step,
// servo, sensors) is moved by the multiple of 2 pi that brings it nearest
// to it (unwrapAngle), which holds while a joint turns less than pi per
// step. Limits, servo, stick angle and recordings all use the tracked angle.
//
// Armature (a motor's rotor seen through its gear train, I_a = I_rotor
// N^2) adds I_a to the joint's generalised inertia, as MuJoCo's joint
// armature does: the rotor pushes back on the joint with the torque
// -I_a theta''. That torque depends on the acceleration the solve is
// finding, so it cannot be added as a force beforehand (explicitly, a
// stiff servo against the small inertia of a light link would still set
// the step). It is the angle row again: a slipping hinge with armature
// keeps its sixth row, whose multiplier mu is the rotor's torque pair and
// whose equation mu = -I_a theta'' reads, theta'' = grad theta . p'' +
// angleQuadratic,
//
//   grad theta . p''(lambda) + mu / I_a = -angleQuadratic - grad theta . p''_free,
//
// the row's diagonal gaining 1 / I_a (K stays symmetric positive definite,
// and the block elimination is unchanged). Exact at the acceleration level,
// the joint then responds to a torque as a joint of inertia M_hh + I_a in
// the joint space (servo_stability.cpp), which is what lets a stiff servo
// run at a long period. The rotor's own gyroscopic and spin momentum is
// left out (as in MuJoCo); its kinetic energy 0.5 I_a theta'^2 is counted
// (energy.cpp). While static friction holds the hinge, the row holds the
// angle instead and its multiplier carries the rotor's torque too, which
// is then only the stabilisation's (theta'' about zero). A <mimic> follower
// has no rotor (ModelBuilder::addCoupling).
//
// Couplings (URDF <mimic>). A coupling holds e = theta_f - m theta_l - c
// = 0 between a follower hinge f and its leader l. Its row is the
// follower's angle row minus m times the leader's: torque mu on the
// follower's joint and -m mu on the leader's, each an internal pair like a
// motor torque (T(13)-(19)), so momentum is conserved; e'' is driven to
// -2 w e' - w^2 e like the other rows, with the velocity part of theta''
// (angleQuadratic) put in exactly, since coupled joints move fast. The row
// must be solved with the hinge rows: a coupling torque changes what the
// hinges must hold, and a separate pass after them would leave the hinge
// rows violated. Added to the block tree it would create fill, since a
// leader and its follower need not share a body (a finger's outer joint is
// two links from the thumb). So it is solved by the Schur complement on the
// factored hinge system K: with B the couplings' coupling to the hinge rows
// and C their own mobility,
//
//   (C - B^T K^-1 B) mu = r_c - B^T K^-1 r_h,   lambda = K^-1 r_h - K^-1 B mu,
//
// one forward substitution per coupling through the factors, touching only
// the hinges between its bodies and the root, before the hinges' own back
// substitution (solveCouplings). A follower has
// no stick row (it would be redundant with its leader's and the coupling):
// while the leader sticks, the leader's row holds the gear train; while it
// slips, the follower's Coulomb friction acts on its own rate.
//
// How the solve is laid out (the cost is a few thousand multiply-adds per
// hinge, so the layout is what decides its speed). K is symmetric positive
// definite, so only the blocks K_ab with a eliminated before b are stored,
// one 6 x 6 block per pair of hinges on a common body, and the elimination
// is a block L D L^T factorisation: K_hh = L D L^T, Y_a = L^-1 K_ha for the
// hinges a it couples to, K_ca -= Y_c^T D^-1 Y_a. A row's wrench on a body comes
// from its hinge points directly (a point force g at p gives the force g and
// the moment (p - c) x g), with the point pairs of one row (J_p and A, C_k
// and J_c, ...) combined first, so a plane or angle row has no net force on
// either body by construction. Wrenches are kept component-major, so every
// 6 x 6 product runs along contiguous rows. Bodies with a fixed particle
// keep the particle gradients (hinge_grad), filled for them only. The
// geometry of the end-of-step friction update is reused by the force
// evaluation that follows at the same phase point (velocity Verlet).
//
// Files: hinge_math.h (3-vectors and rows), block_kernels.h (the 6 x 6
// kernels), hinge_geometry.h/.cpp (points, axis, angle), hinge_friction.h/
// .cpp (friction, limits, stick and slip), rigid_bodies.h/.cpp (forces on a
// body as on a rigid body); this file holds the rows and the solve.
#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>
#include <string>

#include "block_kernels.h"
#include "isa_clones.h"
#include "forces.h"
#include "hinge_friction.h"
#include "gear_train.h"
#include "motor_heating.h"
#include "hinge_geometry.h"
#include "hinge_math.h"
#include "rigid_bodies.h"

namespace suitsim::detail {

namespace {

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
void addRow(const Model& m, Workspace& ws, int h, int row, double scale) {
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
  return -m.hinge_armature[h] * (ws.solver->hinge_target[h * kRows + 5] - ws.solver->hinge_armature_target[h]);
}

// ---- one force evaluation's stages ----------------------------------------

// Rows, targets, wrenches and the applied torques of hinge h.
void prepareHinge(const Model& model, const State& state, const PhasePoint& x, Workspace& ws, int h,
                  const HingeGeometry& g) {
  const double w = model.hinge_constraint_frequency;
  const int follows = model.hinge_follower_coupling[h];
  const bool sticking = follows < 0 && state.hinge_sticking[h] != 0 && hasFriction(model, h);
  // A rotor on a compliant gear is a degree of freedom of its own (gear_train.h).
  const bool armature = rigidRotor(model, h);  // never a follower's (addCoupling)
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

  // Joint torques as internal pairs, T(13)-(19): motor A(6), limits, and
  // viscous friction always; Coulomb friction here only while slipping.
  const double motor = motorTorque(model, state, h);  // the windings' heating: motor_heating.h
  // A follower is held at rest through its leader's stick row (see the note).
  const bool held = sticking || (follows >= 0 && state.hinge_sticking[model.coupling_leader[follows]] != 0 &&
                                 hasFriction(model, model.coupling_leader[follows]));
  // A compliant gear: the link feels the spring, the motor drives the rotor
  // and the gear's losses act there (gear_train.h). Rigid: what the gear
  // loses of the motor's torque counts as the joint's friction.
  const bool compliant = compliantGear(model, h);
  double drive = motor;
  if (compliant) {
    const double phi = x.rotor_angle ? x.rotor_angle[h] : state.rotor_angle[h];
    const double phi_dot = x.rotor_velocity ? x.rotor_velocity[h] : state.rotor_velocity[h];
    drive = gearTorque(model, h, phi, phi_dot, g.theta, g.theta_dot);
    ws.rotor_acceleration[h] = (motor * gearFactor(model, h, motor, phi_dot) - drive) / model.hinge_armature[h];
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
void pointAccelerations(const Model& model, const Workspace& ws, int h, V3* acc) {
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
double angleAcceleration(const Workspace& ws, int h, const V3* acc) {
  const double* point_grad = &ws.solver->hinge_point_grad[h * kPointGrad];
  return vec(point_grad + kThetaC1).dot(acc[kC1]) + vec(point_grad + kThetaJc).dot(acc[kJc]) +
         vec(point_grad + kThetaB).dot(acc[kB]) + vec(point_grad + kThetaA).dot(acc[kA]) +
         vec(point_grad + kThetaJp).dot(acc[kJp]);
}

void rightHandSide(const Model& model, Workspace& ws, int h) {
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
void applyMobility(const Model& model, Workspace& ws) {
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

// K blocks for every pair of hinges on a common body: K_ab += W_a M_b^-1
// W_b^T with the rows' wrenches W on that body and its rigid mobility
// M_b^-1 (G_a M^-1 G_b^T over its four particles for a body with a fixed
// particle). Only pairs with a eliminated first are formed. A hinge meets
// itself on both its bodies, so diagonal blocks start from zero.
void assembleBlocks(const Model& model, Workspace& ws) {
  const int nh = model.num_hinges;
  for (int h = 0; h < nh; ++h) {
    // Row by row: as a 384-byte memset GCC emits `rep stos`, whose start-up
    // cost was 3 % of the hinge solve.
    double* k = diagonalBlock(ws, h);
    for (int r = 0; r < kRows; ++r) storeRow(k + r * kStride, Row{});
  }
  for (int b = 0; b < model.num_bodies; ++b) {
    const std::vector<std::int32_t>& list = ws.solver->body_hinges[b];
    if (list.empty()) continue;
    // The body's pairs (ha, hb), ha eliminated first, in loop order.
    const std::int32_t* pair_block = ws.solver->body_pair_block.data() + ws.solver->body_pair_begin[b];
    if (movable(ws, b)) {
      for (int ha : list) {
        const int sa = model.hinge_parent_body[ha] == b ? 0 : 1;
        const double* left = mobilityOf(ws, ha, sa);
        for (int hb : list) {
          if (ws.solver->hinge_position[hb] < ws.solver->hinge_position[ha]) continue;
          const int sb = model.hinge_parent_body[hb] == b ? 0 : 1;
          double* k = blockAt(ws, *pair_block++);
          if (ha == hb) {
            productAtB<true>(left, wrenchOf(ws, hb, sb), k);
          } else {
            productAtB<false>(left, wrenchOf(ws, hb, sb), k);
          }
        }
      }
      continue;
    }
    double im[12];
    for (int k = 0; k < 4; ++k) {
      for (int d = 0; d < 3; ++d) im[3 * k + d] = model.particle_inv_mass[model.body_particle_begin[b] + k];
    }
    for (int ha : list) {
      const int sa = model.hinge_parent_body[ha] == b ? 0 : 1;
      double left[kRows][12];
      for (int r = 0; r < kRows; ++r) {
        const double* g = gradRow(ws, ha, r) + sa * 12;
        for (int q = 0; q < 12; ++q) left[r][q] = r < ws.solver->hinge_rows[ha] ? g[q] * im[q] : 0.0;
      }
      for (int hb : list) {
        if (ws.solver->hinge_position[hb] < ws.solver->hinge_position[ha]) continue;
        const int sb = model.hinge_parent_body[hb] == b ? 0 : 1;
        double* k = blockAt(ws, *pair_block++);
        for (int i = 0; i < kRows; ++i) {
          for (int j = 0; j < kRows; ++j) {
            double s = 0.0;
            if (j < ws.solver->hinge_rows[hb]) {
              const double* g = gradRow(ws, hb, j) + sb * 12;
              for (int q = 0; q < 12; ++q) s += left[i][q] * g[q];
            }
            k[i * kStride + j] = ha == hb ? k[i * kStride + j] + s : s;
          }
        }
      }
    }
  }
  for (int h = 0; h < nh; ++h) {
    double* k = diagonalBlock(ws, h);
    for (int r = ws.solver->hinge_rows[h]; r < kRows; ++r) k[r * kStride + r] = 1.0;  // inactive rows: lambda = 0
    // The rotor's row: mu / I_a joins theta'' (see the note).
    if (ws.solver->hinge_rows[h] == kRows && !ws.solver->hinge_stick_row[h]) {
      k[(kRows - 1) * kStride + kRows - 1] += 1.0 / model.hinge_armature[h];
    }
  }
}

// Eliminates hinge h, its block K_hh already factored (K_hh = L D L^T):
// Y_a = L^-1 K_ha stored over K_ha, rhs_a -= Y_a^T D^-1 L^-1 rhs_h and
// K_ca -= Y_c^T D^-1 Y_a for the hinges a, c it couples to.
void eliminate(const Model& model, Workspace& ws, int h) {
  const double* l = diagonalBlock(ws, h);
  double inv_d[kRows];
  for (int q = 0; q < kRows; ++q) inv_d[q] = l[q * kStride + q];
  double* z = &ws.solver->hinge_rhs[h * kStride];
  forwardSolve(l, z);  // kept for the back substitution
  double scaled[kRows];
  for (int q = 0; q < kRows; ++q) scaled[q] = z[q] * inv_d[q];
  const std::vector<std::int32_t>& coupled = model.hinge_coupled[h];
  const int num_coupled = static_cast<int>(coupled.size());
  for (int k = 0; k < num_coupled; ++k) {
    const int a = coupled[k];
    double* y = coupledBlock(ws, h, k);
    forwardSolveBlock(l, y);
    // rhs_a -= Y_a^T scaled, a block row at a time (each entry still
    // subtracts its terms in row order); right-hand sides are padded to
    // kStride like the block rows, the padding staying zero.
    double* rhs = &ws.solver->hinge_rhs[a * kStride];
    Row r = loadRow(rhs);
    for (int q = 0; q < kRows; ++q) r -= loadRow(y + q * kStride) * scaled[q];
    storeRow(rhs, r);
  }
  // The blocks K_ca it updates, listed once (Workspace::hinge_fill_block).
  // data() + offset, not &v[offset]: a robot whose hinges couple to none
  // (a chain of one) has no fill blocks at all, and v[0] of an empty vector
  // is undefined (UBSan: reference binding to a null pointer).
  const std::int32_t* fill = ws.solver->hinge_fill_block.data() + ws.solver->hinge_fill_begin[h];
  for (int kc = 0; kc < num_coupled; ++kc) {
    const int c = coupled[kc];
    const double* yc = coupledBlock(ws, h, kc);
    for (int ka = 0; ka < num_coupled; ++ka) {
      if (ws.solver->hinge_position[coupled[ka]] < ws.solver->hinge_position[c]) continue;
      subtractAtDB(yc, inv_d, coupledBlock(ws, h, ka), blockAt(ws, *fill++));
    }
  }
}

// The back substitution from the root, lambda_h = L^-T D^-1 (z_h - sum_a
// Y_a lambda_a), z = ws.solver->hinge_rhs as the forward elimination (and the
// couplings, solveCouplings) left it: ws.solver->hinge_lambda.
void backSubstitute(const Model& model, Workspace& ws) {
  const double* z = ws.solver->hinge_rhs.data();
  double* out = ws.solver->hinge_lambda.data();
  constexpr int stride = kRows;
  for (auto it = model.hinge_order.rbegin(); it != model.hinge_order.rend(); ++it) {
    const int h = *it;
    const double* l = diagonalBlock(ws, h);
    double x[kRows];
    for (int q = 0; q < kRows; ++q) x[q] = z[h * kStride + q];
    const std::vector<std::int32_t>& coupled = model.hinge_coupled[h];
    for (std::size_t k = 0; k < coupled.size(); ++k) {
      const int a = coupled[k];
      const double* y = coupledBlock(ws, h, static_cast<int>(k));
      const double* lambda = out + a * stride;
      for (int i = 0; i < kRows; ++i) {
        double s = 0.0;
        for (int j = 0; j < kRows; ++j) s += y[i * kStride + j] * lambda[j];
        x[i] -= s;
      }
    }
    for (int q = 0; q < kRows; ++q) x[q] *= l[q * kStride + q];
    backSolve(l, x);
    for (int q = 0; q < kRows; ++q) out[h * stride + q] = x[q];
  }
}

// Block L D L^T elimination, leaves first (see the design note): the
// factors, and the right-hand sides eliminated (z = L^-1 rhs, in
// ws.solver->hinge_rhs); backSubstitute then gives ws.solver->hinge_lambda.
void solveBlocks(const Model& model, Workspace& ws) {
  const int num_batches = static_cast<int>(ws.solver->hinge_batch_begin.size()) - 1;
  for (int batch = 0; batch < num_batches; ++batch) {
    // No hinge of a batch changes another's block: their factors, issued
    // back to back, overlap their chains of divisions in the processor.
    const int begin = ws.solver->hinge_batch_begin[batch], end = ws.solver->hinge_batch_begin[batch + 1];
    for (int k = begin; k < end; ++k) {
      const int h = model.hinge_order[k];
      factor(diagonalBlock(ws, h));
    }
    for (int k = begin; k < end; ++k) eliminate(model, ws, model.hinge_order[k]);
  }
}

// ---- couplings (URDF <mimic>), see the design note ---------------------------

// Forward substitution through the factors solveBlocks left, in place on v
// (num_hinges x kStride): v = L^-1 v, the same elimination solveBlocks does
// on the right-hand side, so that K^-1 v = L^-T D^-1 (this). A hinge whose
// entries are all zero passes nothing on: a coupling's column, nonzero on
// the few hinges at its bodies, touches only their paths to the root.
// The hinges it reached are listed in `reached`, their number returned.
int forwardSubstitute(const Model& model, Workspace& ws, double* v, std::int32_t* reached) {
  const int nh = model.num_hinges;
  int count = 0;
  for (int k = 0; k < nh; ++k) {
    const int h = model.hinge_order[k];
    double* z = v + h * kStride;
    bool nonzero = false;
    for (int q = 0; q < kRows; ++q) nonzero = nonzero || z[q] != 0.0;
    if (!nonzero) continue;
    reached[count++] = h;
    const double* l = diagonalBlock(ws, h);
    forwardSolve(l, z);
    double scaled[kRows];
    for (int q = 0; q < kRows; ++q) scaled[q] = z[q] * l[q * kStride + q];
    const std::vector<std::int32_t>& coupled = model.hinge_coupled[h];
    for (std::size_t k = 0; k < coupled.size(); ++k) {
      const int a = coupled[k];
      const double* y = coupledBlock(ws, h, static_cast<int>(k));
      double* rhs = v + a * kStride;
      for (int q = 0; q < kRows; ++q) {
        for (int i = 0; i < kRows; ++i) rhs[i] -= y[q * kStride + i] * scaled[q];
      }
    }
  }
  return count;
}

// Adds scale times coupling c's column of B (each hinge row's e'' per unit
// mu, by symmetry the row's acceleration under the coupling's moments) to
// v (num_hinges x kStride).
void addCouplingColumn(const Model& model, Workspace& ws, int c, double scale, double* v) {
  for (int e = 0; e < 4; ++e) {
    const int b = ws.solver->coupling_body[c * 4 + e];
    if (!movable(ws, b)) continue;  // all fixed (ModelBuilder::addCoupling): it does not move
    const V3 arm = scale * vec(&ws.solver->coupling_arm[(c * 4 + e) * 3]);
    for (int h : ws.solver->body_hinges[b]) {
      const double* mobility = mobilityOf(ws, h, model.hinge_parent_body[h] == b ? 0 : 1);
      for (int r = 0; r < kRows; ++r) {
        v[h * kStride + r] += mobility[3 * kStride + r] * arm[0] + mobility[4 * kStride + r] * arm[1] +
                              mobility[5 * kStride + r] * arm[2];
      }
    }
  }
}

// Each coupling's four moments (follower's angle row minus m times the
// leader's, on the two bodies of each) and its target e''.
void prepareCouplings(const Model& model, Workspace& ws) {
  const double w = model.hinge_constraint_frequency;
  for (int c = 0; c < model.num_couplings; ++c) {
    const int f = model.coupling_follower[c], l = model.coupling_leader[c];
    const double m = model.coupling_multiplier[c];
    const double* df = &ws.solver->hinge_angle_data[f * kAngleData];
    const double* dl = &ws.solver->hinge_angle_data[l * kAngleData];
    const int bodies[4] = {model.hinge_parent_body[f], model.hinge_child_body[f], model.hinge_parent_body[l],
                           model.hinge_child_body[l]};
    const double* moments[4] = {df + 3, df + 6, dl + 3, dl + 6};
    for (int e = 0; e < 4; ++e) {
      ws.solver->coupling_body[c * 4 + e] = bodies[e];
      const double scale = e < 2 ? 1.0 : -m;
      for (int d = 0; d < 3; ++d) ws.solver->coupling_arm[(c * 4 + e) * 3 + d] = scale * moments[e][d];
    }
    // e is taken modulo 2 pi: a gear train cannot tell whole turns apart,
    // and the pose may start a follower a turn away from m theta_l + c.
    const double error = std::remainder(df[0] - m * dl[0] - model.coupling_offset[c], 2.0 * std::numbers::pi);
    const double rate = df[1] - m * dl[1];
    ws.solver->coupling_target[c] = -2.0 * w * rate - w * w * error - (df[2] - m * dl[2]);
  }
}

// The couplings' multipliers mu, between the hinge solve's forward
// elimination and its back substitution (see the design note): with
// Z = L^-1 B and z = L^-1 r_h, B^T K^-1 B = Z^T D^-1 Z and B^T K^-1 r_h =
// Z^T D^-1 z; the hinges then take r_h - B mu, that is z - Z mu, into the
// back substitution. Z is nonzero only on the paths from the couplings'
// hinges to the root, so every product runs along those.
void solveCouplings(const Model& model, Workspace& ws) {
  const int nc = model.num_couplings, nh = model.num_hinges;
  if (nc == 0) return;
  const std::size_t column = static_cast<std::size_t>(nh) * kStride;
  for (int c = 0; c < nc; ++c) {
    double* z = &ws.solver->coupling_response[c * column];
    for (std::size_t q = 0; q < column; ++q) z[q] = 0.0;
    addCouplingColumn(model, ws, c, 1.0, z);
    ws.solver->coupling_reach[c] = forwardSubstitute(model, ws, z, &ws.solver->coupling_path[c * nh]);
  }
  // u^T D^-1 w over the hinges on coupling c's path (u is zero elsewhere).
  auto throughHinges = [&](int c, const double* u, const double* w) {
    double sum = 0.0;
    for (int k = 0; k < ws.solver->coupling_reach[c]; ++k) {
      const int h = ws.solver->coupling_path[c * nh + k];
      const double* inv_d = diagonalBlock(ws, h);
      for (int q = 0; q < kRows; ++q) sum += u[h * kStride + q] * inv_d[q * kStride + q] * w[h * kStride + q];
    }
    return sum;
  };
  // The Schur complement S = C - Z^T D^-1 Z and the right-hand side
  // r_c - Z^T D^-1 z, r_c = target - e'' under the forces so far.
  for (int c = 0; c < nc; ++c) {
    const int f = model.coupling_follower[c], l = model.coupling_leader[c];
    V3 acc[kNumPoints];
    pointAccelerations(model, ws, f, acc);
    double free = angleAcceleration(ws, f, acc);
    pointAccelerations(model, ws, l, acc);
    free -= model.coupling_multiplier[c] * angleAcceleration(ws, l, acc);
    const double* zc = &ws.solver->coupling_response[c * column];
    ws.solver->coupling_rhs[c] = ws.solver->coupling_target[c] - free - throughHinges(c, zc, ws.solver->hinge_rhs.data());
    for (int d = 0; d <= c; ++d) {
      double own = 0.0;
      for (int e = 0; e < 4; ++e) {
        const int b = ws.solver->coupling_body[c * 4 + e];
        if (!movable(ws, b)) continue;
        for (int k = 0; k < 4; ++k) {
          if (ws.solver->coupling_body[d * 4 + k] != b) continue;
          own += vec(&ws.solver->coupling_arm[(c * 4 + e) * 3])
                     .dot(times(bodyData(ws, b) + kInvInertia, vec(&ws.solver->coupling_arm[(d * 4 + k) * 3])));
        }
      }
      ws.solver->coupling_schur[c * nc + d] = own - throughHinges(c, zc, &ws.solver->coupling_response[d * column]);
    }
  }
  // S is symmetric positive definite and small: Cholesky on its lower
  // triangle, in place.
  double* s = ws.solver->coupling_schur.data();
  for (int j = 0; j < nc; ++j) {
    double diag = s[j * nc + j];
    for (int k = 0; k < j; ++k) diag -= s[j * nc + k] * s[j * nc + k];
    s[j * nc + j] = std::sqrt(diag);
    for (int i = j + 1; i < nc; ++i) {
      double v = s[i * nc + j];
      for (int k = 0; k < j; ++k) v -= s[i * nc + k] * s[j * nc + k];
      s[i * nc + j] = v / s[j * nc + j];
    }
  }
  double* mu = ws.solver->coupling_lambda.data();
  for (int i = 0; i < nc; ++i) {
    double v = ws.solver->coupling_rhs[i];
    for (int k = 0; k < i; ++k) v -= s[i * nc + k] * mu[k];
    mu[i] = v / s[i * nc + i];
  }
  for (int i = nc - 1; i >= 0; --i) {
    double v = mu[i];
    for (int k = i + 1; k < nc; ++k) v -= s[k * nc + i] * mu[k];
    mu[i] = v / s[i * nc + i];
  }
  // z -= Z mu.
  for (int c = 0; c < nc; ++c) {
    const double* zc = &ws.solver->coupling_response[c * column];
    for (int k = 0; k < ws.solver->coupling_reach[c]; ++k) {
      const int h = ws.solver->coupling_path[c * nh + k];
      for (int q = 0; q < kRows; ++q) ws.solver->hinge_rhs[h * kStride + q] -= zc[h * kStride + q] * mu[c];
    }
  }
}

}  // namespace

void initHingeWorkspace(const Model& model, Workspace& ws) {
  const int nh = model.num_hinges;
  ws.solver->hinge_rows.assign(nh, 5);
  ws.solver->hinge_stick_row.assign(nh, 0);
  ws.solver->hinge_armature_target.assign(nh, 0.0);
  ws.solver->hinge_grad.assign(static_cast<std::size_t>(nh) * kGradSize, 0.0);
  ws.solver->hinge_target.assign(nh * kRows, 0.0);
  ws.solver->hinge_rhs.assign(nh * kStride, 0.0);
  ws.solver->hinge_lambda.assign(nh * kRows, 0.0);
  ws.solver->hinge_point_grad.assign(nh * kPointGrad, 0.0);
  ws.solver->hinge_wrench.assign(nh * 2 * kBlock, 0.0);
  ws.solver->hinge_mobility.assign(nh * 2 * kBlock, 0.0);
  ws.solver->hinge_geometry.assign(static_cast<std::size_t>(nh) * kGeometrySize, 0.0);
  ws.solver->hinge_geometry_current = false;
  ws.solver->body_hinges.assign(model.num_bodies, {});
  for (int h = 0; h < nh; ++h) {
    ws.solver->body_hinges[model.hinge_parent_body[h]].push_back(h);
    ws.solver->body_hinges[model.hinge_child_body[h]].push_back(h);
  }
  ws.solver->hinge_body.assign(model.num_bodies * kBodyData, 0.0);
  ws.solver->hinge_body_wrench.assign(model.num_bodies * 6, 0.0);
  for (int b = 0; b < model.num_bodies; ++b) {
    if (ws.solver->body_hinges[b].empty()) continue;
    double mass = 0.0;
    bool free = true;
    for (int k = 0; k < 4; ++k) {
      const int i = model.body_particle_begin[b] + k;
      free = free && model.particle_inv_mass[i] > 0.0;
      mass += model.particle_mass[i];
    }
    ws.solver->hinge_body[b * kBodyData + kMass] = mass;
    ws.solver->hinge_body[b * kBodyData + kInvMass] = 1.0 / mass;
    // With link springs (LinkModel::kSprings) no body moves rigidly: each
    // takes the path of a body with a fixed particle (see the note).
    const bool rigid = model.hinge_link_model == LinkModel::kRigid;
    ws.solver->hinge_body[b * kBodyData + kMovable] = free && rigid ? 1.0 : 0.0;
  }
  // One block per pair of hinges on a common body, the one eliminated first
  // naming it; the elimination only ever touches these.
  ws.solver->hinge_position.assign(nh, 0);
  for (int k = 0; k < nh; ++k) ws.solver->hinge_position[model.hinge_order[k]] = k;
  // Stored per hinge a: its diagonal block, then (a, hinge_coupled[a][k]).
  // Two hinges on a common body, a eliminated first, share a's parent body
  // (a's child body carries only hinges eliminated before a), so b is in
  // hinge_coupled[a]: these are all the blocks.
  ws.solver->hinge_block_begin.assign(nh + 1, 0);
  for (int h = 0; h < nh; ++h) {
    ws.solver->hinge_block_begin[h + 1] = ws.solver->hinge_block_begin[h] + 1 + static_cast<int>(model.hinge_coupled[h].size());
  }
  auto blockIndex = [&](int a, int b) {
    if (a == b) return ws.solver->hinge_block_begin[a];
    const std::vector<std::int32_t>& coupled = model.hinge_coupled[a];
    for (std::size_t k = 0; k < coupled.size(); ++k) {
      if (coupled[k] == b) return ws.solver->hinge_block_begin[a] + 1 + static_cast<std::int32_t>(k);
    }
    throw std::logic_error("hinge solver: hinges '" + model.hinge_name[a] + "' and '" + model.hinge_name[b] +
                           "' share a body but not the elimination structure");
  };
  // Each body's pairs in assembleBlocks' loop order.
  ws.solver->body_pair_begin.assign(model.num_bodies + 1, 0);
  ws.solver->body_pair_block.clear();
  for (int b = 0; b < model.num_bodies; ++b) {
    for (int ha : ws.solver->body_hinges[b]) {
      for (int hb : ws.solver->body_hinges[b]) {
        if (ws.solver->hinge_position[hb] < ws.solver->hinge_position[ha]) continue;
        ws.solver->body_pair_block.push_back(blockIndex(ha, hb));
      }
    }
    ws.solver->body_pair_begin[b + 1] = static_cast<std::int32_t>(ws.solver->body_pair_block.size());
  }
  // The blocks K_ca each hinge's elimination updates, in eliminate's order.
  ws.solver->hinge_fill_begin.assign(nh + 1, 0);
  ws.solver->hinge_fill_block.clear();
  for (int h = 0; h < nh; ++h) {
    for (int c : model.hinge_coupled[h]) {
      for (int a : model.hinge_coupled[h]) {
        if (ws.solver->hinge_position[a] < ws.solver->hinge_position[c]) continue;
        ws.solver->hinge_fill_block.push_back(blockIndex(c, a));
      }
    }
    ws.solver->hinge_fill_begin[h + 1] = static_cast<std::int32_t>(ws.solver->hinge_fill_block.size());
  }
  ws.solver->hinge_block.assign(static_cast<std::size_t>(ws.solver->hinge_block_begin[nh]) * kBlock, 0.0);
  // Batches of consecutive hinges in the elimination order whose diagonal
  // blocks no earlier member of the batch updates (a hinge's elimination
  // updates only the hinges it couples to): their factors can be formed
  // together, before any of them is eliminated, with the same result.
  constexpr int kMaxBatch = 4;
  ws.solver->hinge_batch_begin.assign(1, 0);
  for (int k = 1; k < nh; ++k) {
    const int h = model.hinge_order[k];
    const int begin = ws.solver->hinge_batch_begin.back();
    bool independent = k - begin < kMaxBatch;
    for (int q = begin; q < k && independent; ++q) {
      for (int c : model.hinge_coupled[model.hinge_order[q]]) independent = independent && c != h;
    }
    if (!independent) ws.solver->hinge_batch_begin.push_back(k);
  }
  ws.solver->hinge_batch_begin.push_back(nh);

  const int nc = model.num_couplings;
  ws.solver->hinge_in_coupling.assign(nh, 0);
  for (int c = 0; c < nc; ++c) {
    ws.solver->hinge_in_coupling[model.coupling_leader[c]] = 1;
    ws.solver->hinge_in_coupling[model.coupling_follower[c]] = 1;
  }
  ws.solver->hinge_angle_data.assign(static_cast<std::size_t>(nh) * kAngleData, 0.0);
  ws.solver->coupling_body.assign(nc * 4, 0);
  ws.solver->coupling_arm.assign(nc * 12, 0.0);
  ws.solver->coupling_target.assign(nc, 0.0);
  ws.solver->coupling_response.assign(static_cast<std::size_t>(nc) * nh * kStride, 0.0);
  ws.solver->coupling_path.assign(static_cast<std::size_t>(nc) * nh, 0);
  ws.solver->coupling_reach.assign(nc, 0);
  ws.solver->coupling_schur.assign(static_cast<std::size_t>(nc) * nc, 0.0);
  ws.solver->coupling_rhs.assign(nc, 0.0);
  ws.solver->coupling_lambda.assign(nc, 0.0);
}

SUITSIM_HOT_FLAT void applyHinges(const Model& model, const State& state, const PhasePoint& x, Workspace& ws) {
  const int nh = model.num_hinges;
  if (nh == 0) return;
  // The hinge systems are coupled: one thread solves them all.
#pragma omp single
  {
    const bool geometry_current = ws.solver->hinge_geometry_current;
    ws.solver->hinge_geometry_current = false;
    // ---- rows, targets and applied torques ----
    for (int h = 0; h < nh; ++h) {
      HingeGeometry g;
      if (geometry_current) {
        std::memcpy(&g, &ws.solver->hinge_geometry[h * kGeometrySize], sizeof g);
      } else {
        geometry(model, x, h, g);
        // Limits, servo targets and the stick row see the tracked angle:
        // the stage points of a step lie within a step of the last one.
        g.theta = unwrapAngle(g.theta, state.hinge_angle[h]);
      }
      prepareHinge(model, state, x, ws, h, g);
    }
    applyMobility(model, ws);
    prepareCouplings(model, ws);
    flushBodyWrenches(model, ws);

    // ---- solve, and again while static friction gives way somewhere ----
    // A hinge that breaks loose changes every multiplier, so the solve is
    // repeated until no holding hinge exceeds its limit (each pass drops at
    // least one angle row, so there are at most num_hinges + 1 passes).
    // Stopping after a second pass left the constraint forces of a cascade
    // (a second hinge giving way once the first had) computed for rows that
    // were no longer held: under stick-slip chatter in the light neck and
    // shoulder links that kicked a hinge up to 1.8e-4 rad off its axis in
    // one step.
    for (;;) {
      for (int h = 0; h < nh; ++h) rightHandSide(model, ws, h);
      assembleBlocks(model, ws);
      solveBlocks(model, ws);
      solveCouplings(model, ws);
      backSubstitute(model, ws);
      // Static friction, A(8)-(9): it holds up to tau_s^max in either
      // direction; beyond, the hinge breaks loose at the zero-speed friction
      // level (tau_s^max with the Stribeck term, tau_c without).
      bool resolve = false;
      for (int h = 0; h < nh; ++h) {
        if (ws.solver->hinge_rows[h] != 6 || !ws.solver->hinge_stick_row[h]) continue;
        const double hold = ws.solver->hinge_lambda[h * kRows + 5] - heldRotorTorque(model, ws, h);
        if (std::abs(hold) <= model.hinge_static_max[h]) continue;
        const double level =
            model.hinge_stribeck_velocity[h] > 0.0 ? model.hinge_static_max[h] : model.hinge_coulomb[h];
        const double breakaway = (hold > 0.0 ? 1.0 : -1.0) * level;
        addRow(model, ws, h, 5, breakaway);
        ws.hinge_friction_torque[h] += breakaway;
        ws.solver->hinge_slipped[h] = 1;
        ws.solver->hinge_stick_row[h] = 0;
        if (rigidRotor(model, h)) {
          // Slipping now: the row turns into the rotor's.
          ws.solver->hinge_target[h * kRows + 5] = ws.solver->hinge_armature_target[h];
        } else {
          clearAngleRow(ws, h);
          ws.solver->hinge_rows[h] = 5;
        }
        resolve = true;
      }
      if (!resolve) break;
      flushBodyWrenches(model, ws);
    }

    // ---- constraint forces ----
    for (int h = 0; h < nh; ++h) {
      const int rows = ws.solver->hinge_rows[h];
      const double* lambda = &ws.solver->hinge_lambda[h * kRows];
      for (int side = 0; side < 2; ++side) {
        const int b = bodyOf(model, h, side);
        if (!movable(ws, b)) {
          for (int r = 0; r < rows; ++r) {
            const double* g = gradRow(ws, h, r) + side * 12;
            const int first = model.body_particle_begin[b];
            for (int k = 0; k < 4; ++k) {
              ws.force.x[first + k] += lambda[r] * g[3 * k];
              ws.force.y[first + k] += lambda[r] * g[3 * k + 1];
              ws.force.z[first + k] += lambda[r] * g[3 * k + 2];
            }
          }
          continue;
        }
        // W^T lambda over the active rows (an inactive row's wrench is zero).
        // The force (components 0-2) comes from the ball rows alone, row d
        // on component d (see productAtB): the other terms are exact zeros.
        const double* w = wrenchOf(ws, h, side);
        double* acc = &ws.solver->hinge_body_wrench[b * 6];
        for (int c = 0; c < 3; ++c) acc[c] += w[c * kStride + c] * lambda[c];
        for (int c = 3; c < 6; ++c) {
          double s = 0.0;
          for (int r = 0; r < kRows; ++r) s += w[c * kStride + r] * lambda[r];
          acc[c] += s;
        }
      }
      if (rows == 6 && ws.solver->hinge_stick_row[h]) ws.hinge_friction_torque[h] += lambda[5] - heldRotorTorque(model, ws, h);
    }
    // The couplings' torque pairs, mu times their moments.
    for (int c = 0; c < model.num_couplings; ++c) {
      for (int e = 0; e < 4; ++e) {
        const int b = ws.solver->coupling_body[c * 4 + e];
        if (!movable(ws, b)) continue;
        for (int d = 0; d < 3; ++d) {
          ws.solver->hinge_body_wrench[b * 6 + 3 + d] += ws.solver->coupling_lambda[c] * ws.solver->coupling_arm[(c * 4 + e) * 3 + d];
        }
      }
    }
    flushBodyWrenches(model, ws);
  }
}

}  // namespace suitsim::detail
