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
// body as on a rigid body), hinge_rows.h (the rows, their targets and
// torques), hinge_tree_solver.h (K's blocks and their elimination),
// hinge_couplings.h (<mimic> couplings); this file sets the solve up and
// runs it (applyHinges).
#include <stdexcept>
#include <string>

#include "hinge_couplings.h"
#include "hinge_rows.h"
#include "hinge_tree_solver.h"
#include "isa_clones.h"
#include "kernel_layout.h"

namespace suitsim::detail {

using namespace hinge_solve;  // the solve's parts, private to this file

void initHingeWorkspace(const Model& model, Workspace& ws) {
  const int nh = model.num_hinges;
  ws.solver->hinge_rows.assign(nh, 5);
  ws.solver->hinge_stick_row.assign(nh, 0);
  ws.solver->hinge_armature_target.assign(nh, 0.0);
  ws.solver->hinge_rotor_inertia.assign(nh, 0.0);
  ws.solver->gear_drive.assign(nh, 0.0);
  ws.solver->gear_held_torque.assign(nh, 0.0);
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
  for (int k = 0; k < nh; ++k) ws.solver->hinge_position[model.kernel->hinge_order[k]] = k;
  // Stored per hinge a: its diagonal block, then (a, hinge_coupled[a][k]).
  // Two hinges on a common body, a eliminated first, share a's parent body
  // (a's child body carries only hinges eliminated before a), so b is in
  // hinge_coupled[a]: these are all the blocks.
  ws.solver->hinge_block_begin.assign(nh + 1, 0);
  for (int h = 0; h < nh; ++h) {
    ws.solver->hinge_block_begin[h + 1] = ws.solver->hinge_block_begin[h] + 1 + static_cast<int>(model.kernel->hinge_coupled[h].size());
  }
  auto blockIndex = [&](int a, int b) {
    if (a == b) return ws.solver->hinge_block_begin[a];
    const std::vector<std::int32_t>& coupled = model.kernel->hinge_coupled[a];
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
    for (int c : model.kernel->hinge_coupled[h]) {
      for (int a : model.kernel->hinge_coupled[h]) {
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
    const int h = model.kernel->hinge_order[k];
    const int begin = ws.solver->hinge_batch_begin.back();
    bool independent = k - begin < kMaxBatch;
    for (int q = begin; q < k && independent; ++q) {
      for (int c : model.kernel->hinge_coupled[model.kernel->hinge_order[q]]) independent = independent && c != h;
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
        if (ws.solver->hinge_rotor_inertia[h] > 0.0) {
          // Slipping now: the row turns into the rotor's, and a compliant
          // gear's rotor share, put in with A while held, is its multiplier's.
          ws.solver->hinge_target[h * kRows + 5] = ws.solver->hinge_armature_target[h];
          if (compliantGear(model, h)) {
            addRow(model, ws, h, 5, -ws.solver->gear_held_torque[h]);
            ws.hinge_drive_torque[h] -= ws.solver->gear_held_torque[h];
            ws.solver->gear_held_torque[h] = 0.0;
          }
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
      // What the drive passes to the link (Workspace::hinge_drive_torque):
      // the motor's (or the compliant gear's) torque, the friction as it
      // finally acted, and a rigid rotor's reaction, the angle row's
      // multiplier while it slips (the row is the rotor's, -I_a theta'')
      // and its share of the multiplier while static friction holds.
      double rotor = 0.0;
      if (rigidRotor(model, h)) rotor = ws.solver->hinge_stick_row[h] ? heldRotorTorque(model, ws, h) : lambda[5];
      if (compliantGear(model, h) && rows == kRows && !ws.solver->hinge_stick_row[h]) {
        // The engaged gear's tau_g = A + mu, mu = -B theta'' (gear_train.h); the rotor takes -tau_g.
        ws.hinge_drive_torque[h] += lambda[5];
        ws.rotor_acceleration[h] = (ws.solver->gear_drive[h] - ws.hinge_drive_torque[h]) / model.hinge_armature[h];
      }
      ws.hinge_drive_torque[h] += ws.hinge_friction_torque[h] + rotor;
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
