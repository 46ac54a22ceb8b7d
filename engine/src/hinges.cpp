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
// conserved, and the forces strain no link: the link springs only keep the
// tetrahedra in shape against the forces that do act at points (ground,
// bands). Handing the point forces to the particles by the point weights
// instead strains the tetrahedra, and it is unstable under a joint servo: at
// the acceleration level the four particles are then free masses held only
// where the hinge points are, so a light link between two joints (the 1 kg
// hip, waist and shoulder links) answers a joint torque as if it had a
// fiftieth to a five-hundredth of the inertia the rigid robot gives the
// joint (hip roll: 4.9e-4 instead of 0.2 kg m^2), ringing against its own
// link springs. A derivative gain held over a servo period T sees that
// inertia, and kd T / I < 2 fails by far (JVRC-1's kd 30 at 1 kHz: 61):
// the joint rates grew at the servo's Nyquist rate within milliseconds of a
// joint slipping, and only static friction, while it held, hid it. With the
// rigid spread a joint sees the robot's inertia (hip roll 0.2 kg m^2: kd T /
// I = 0.15). The price is energy: the constraint forces are workless on the
// clusters' rigid motion, not on link strain, so they trade energy with the
// link springs at O(1 / link_frequency^2) (a taut band swinging an undamped
// double pendulum: 8e-5 of its energy over 1 s at 3000 rad/s, 8e-6 at 10000).
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
#include <Eigen/Dense>
#include <cmath>

#include "forces.h"

namespace suitsim::detail {

namespace {

using V3 = Eigen::Vector3d;
using M6 = Eigen::Matrix<double, 6, 6, Eigen::RowMajor>;
using V6 = Eigen::Matrix<double, 6, 1>;
using Block = Eigen::Map<M6>;
using Vec6Map = Eigen::Map<V6>;

constexpr int kRows = 6;       // ball (3), plane (2), stick (1)
constexpr int kGradSize = kRows * 8 * 3;  // rows x (4 parent + 4 child particles) x xyz

/// A hinge point: its position and velocity from its body's particles.
struct Point {
  V3 p, v;
};

Point point(const Model& m, const PhasePoint& x, int body, const std::array<double, 4>& w) {
  Point out{V3::Zero(), V3::Zero()};
  const int first = m.body_particle_begin[body];
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    out.p += w[k] * V3(x.px[i], x.py[i], x.pz[i]);
    out.v += w[k] * V3(x.vx[i], x.vy[i], x.vz[i]);
  }
  return out;
}

/// Geometry of one hinge at a phase point.
struct HingeGeometry {
  Point jp, jc, a, b, c1, c2;
  V3 n, n_dot;
  double axis_length = 0.0, axis_length_rate = 0.0;
  double theta = 0.0, theta_dot = 0.0;
  // d theta / d point for the points it depends on.
  V3 dtheta_c1, dtheta_b, dtheta_a, dtheta_jp, dtheta_jc;
};

HingeGeometry geometry(const Model& m, const PhasePoint& x, int h) {
  HingeGeometry g;
  const int pb = m.hinge_parent_body[h], cb = m.hinge_child_body[h];
  g.jp = point(m, x, pb, m.hinge_centre_parent[h]);
  g.jc = point(m, x, cb, m.hinge_centre_child[h]);
  g.a = point(m, x, pb, m.hinge_axis_point[h]);
  g.b = point(m, x, pb, m.hinge_parent_arm[h]);
  g.c1 = point(m, x, cb, m.hinge_child_arm[h]);
  g.c2 = point(m, x, cb, m.hinge_child_arm2[h]);
  const V3 w = g.a.p - g.jp.p;
  const V3 w_dot = g.a.v - g.jp.v;
  g.axis_length = w.norm();
  g.n = w / g.axis_length;
  g.axis_length_rate = g.n.dot(w_dot);
  g.n_dot = (w_dot - g.n * g.axis_length_rate) / g.axis_length;

  // theta = atan2(y, x) with y = n . (u x r), x = u . r: exact gradient.
  const V3 u = g.b.p - g.jp.p;
  const V3 r = g.c1.p - g.jc.p;
  const V3 uxr = u.cross(r);
  const double ys = g.n.dot(uxr);
  const double xs = u.dot(r);
  g.theta = std::atan2(ys, xs);
  const double inv = 1.0 / (xs * xs + ys * ys);
  g.dtheta_c1 = (xs * g.n.cross(u) - ys * u) * inv;
  g.dtheta_b = (xs * r.cross(g.n) - ys * r) * inv;
  g.dtheta_a = xs * (uxr - g.n * g.n.dot(uxr)) / g.axis_length * inv;
  g.dtheta_jp = -(g.dtheta_b + g.dtheta_a);
  g.dtheta_jc = -g.dtheta_c1;
  g.theta_dot = g.dtheta_c1.dot(g.c1.v) + g.dtheta_b.dot(g.b.v) + g.dtheta_a.dot(g.a.v) + g.dtheta_jp.dot(g.jp.v) +
                g.dtheta_jc.dot(g.jc.v);
  return g;
}

/// Friction torque of a slipping hinge: viscous plus Coulomb, with the
/// Stribeck rise toward tau_s^max at low speed when enabled.
double slipFriction(const Model& m, int h, double theta_dot) {
  double level = m.hinge_coulomb[h];
  const double vs = m.hinge_stribeck_velocity[h];
  if (vs > 0.0) {
    const double q = theta_dot / vs;
    level += (m.hinge_static_max[h] - m.hinge_coulomb[h]) * std::exp(-q * q);
  }
  const double sign = theta_dot > 0.0 ? 1.0 : (theta_dot < 0.0 ? -1.0 : 0.0);
  return -m.hinge_viscous[h] * theta_dot - level * sign;
}

double limitTorque(const Model& m, int h, double theta, double theta_dot) {
  if (m.hinge_limit_stiffness <= 0.0) return 0.0;
  if (theta > m.hinge_upper[h]) {
    return -m.hinge_limit_stiffness * (theta - m.hinge_upper[h]) - m.hinge_limit_damping * theta_dot;
  }
  if (theta < m.hinge_lower[h]) {
    return -m.hinge_limit_stiffness * (theta - m.hinge_lower[h]) - m.hinge_limit_damping * theta_dot;
  }
  return 0.0;
}

bool hasFriction(const Model& m, int h) { return m.hinge_static_max[h] > 0.0 || m.hinge_coulomb[h] > 0.0; }

// Per-hinge gradient storage: grad[(row * 8 + slot) * 3 + xyz], slots 0-3
// the parent's particles, 4-7 the child's.
inline double* gradRow(Workspace& ws, int h, int row) { return &ws.hinge_grad[(h * kRows + row) * 24]; }

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

inline int particleOf(const Model& m, int h, int slot) {
  return m.body_particle_begin[slot < 4 ? m.hinge_parent_body[h] : m.hinge_child_body[h]] + (slot & 3);
}

inline int bodyOf(const Model& m, int h, int side) {
  return side == 0 ? m.hinge_parent_body[h] : m.hinge_child_body[h];
}

// Rigid data of a body a hinge touches (Workspace::hinge_body), from its
// particles at the phase point: centre of mass c (0-2), 1/m (3), I^-1 about
// c (4-12, row-major), 1 if every particle is free (13).
constexpr int kBodyData = 14;
using Mat3Map = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>;

void rigidBodyData(const Model& m, const PhasePoint& x, int b, double* out) {
  const int first = m.body_particle_begin[b];
  double mass = 0.0;
  V3 c = V3::Zero();
  bool movable = true;
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    movable = movable && m.particle_inv_mass[i] > 0.0;
    mass += m.particle_mass[i];
    c += m.particle_mass[i] * V3(x.px[i], x.py[i], x.pz[i]);
  }
  out[13] = movable ? 1.0 : 0.0;
  if (!movable) return;
  c /= mass;
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    const V3 r = V3(x.px[i], x.py[i], x.pz[i]) - c;
    inertia += m.particle_mass[i] * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
  }
  out[0] = c.x();
  out[1] = c.y();
  out[2] = c.z();
  out[3] = 1.0 / mass;
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(out + 4) = inertia.inverse();
}

inline bool movable(const Workspace& ws, int b) { return ws.hinge_body[b * kBodyData + 13] != 0.0; }

// Row `row` of hinge h as a wrench (force, moment about the centre of mass)
// on one side's body: Workspace::hinge_wrench[((h * 2 + side) * 6 + row) * 6].
inline double* wrenchOf(Workspace& ws, int h, int side, int row) {
  return &ws.hinge_wrench[((h * 2 + side) * kRows + row) * 6];
}

inline void clearAngleWrench(Workspace& ws, int h) {
  for (int side = 0; side < 2; ++side) Vec6Map(wrenchOf(ws, h, side, 5)).setZero();
}

// Adds `scale` times row `row` of hinge h to the forces: on a movable body
// into its wrench accumulator (Workspace::hinge_body_wrench, spread by
// flushBodyWrenches), on a fixed one to the particles by the point weights.
void addRow(const Model& m, Workspace& ws, int h, int row, double scale) {
  for (int side = 0; side < 2; ++side) {
    const int b = bodyOf(m, h, side);
    if (movable(ws, b)) {
      Vec6Map(&ws.hinge_body_wrench[b * 6]) += scale * Vec6Map(wrenchOf(ws, h, side, row));
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

// Spreads each movable body's accumulated wrench over its particles as a
// rigid body takes it, and clears the accumulator.
void flushBodyWrenches(const Model& m, const PhasePoint& x, Workspace& ws) {
  for (int b = 0; b < m.num_bodies; ++b) {
    if (ws.body_hinges[b].empty() || !movable(ws, b)) continue;
    double* w = &ws.hinge_body_wrench[b * 6];
    const double* body = &ws.hinge_body[b * kBodyData];
    const V3 a = body[3] * V3(w[0], w[1], w[2]);
    const V3 alpha = Mat3Map(body + 4) * V3(w[3], w[4], w[5]);
    const V3 c(body[0], body[1], body[2]);
    const int first = m.body_particle_begin[b];
    for (int k = 0; k < 4; ++k) {
      const int i = first + k;
      const V3 f = m.particle_mass[i] * (a + alpha.cross(V3(x.px[i], x.py[i], x.pz[i]) - c));
      ws.force.x[i] += f.x();
      ws.force.y[i] += f.y();
      ws.force.z[i] += f.z();
    }
    Vec6Map(w).setZero();
  }
}

}  // namespace

double hingeAngle(const Model& model, const PhasePoint& x, int h) { return geometry(model, x, h).theta; }

double hingeVelocity(const Model& model, const PhasePoint& x, int h) { return geometry(model, x, h).theta_dot; }

void hingeAngleAndVelocity(const Model& model, const PhasePoint& x, int h, double* angle, double* velocity) {
  const HingeGeometry g = geometry(model, x, h);
  *angle = g.theta;
  *velocity = g.theta_dot;
}

void applyHinges(const Model& model, const State& state, const PhasePoint& x, Workspace& ws) {
  const int nh = model.num_hinges;
  if (nh == 0) return;
  // The hinge systems are coupled: one thread solves them all.
#pragma omp single
  {
    const double w = model.hinge_constraint_frequency;
    for (int b = 0; b < model.num_bodies; ++b) {
      if (ws.body_hinges[b].empty()) continue;
      rigidBodyData(model, x, b, &ws.hinge_body[b * kBodyData]);
      Vec6Map(&ws.hinge_body_wrench[b * 6]).setZero();
    }
    // ---- rows, targets and applied torques ----
    for (int h = 0; h < nh; ++h) {
      const HingeGeometry g = geometry(model, x, h);
      const bool sticking = state.hinge_sticking[h] != 0 && hasFriction(model, h);
      ws.hinge_rows[h] = sticking ? 6 : 5;
      std::fill(gradRow(ws, h, 0), gradRow(ws, h, 0) + kGradSize, 0.0);
      double* target = &ws.hinge_target[h * kRows];
      // Ball joint: J_p - J_c = 0, linear in the positions.
      for (int d = 0; d < 3; ++d) {
        V3 e = V3::Zero();
        e[d] = 1.0;
        addPointGradient(gradRow(ws, h, d), 0, model.hinge_centre_parent[h], e);
        addPointGradient(gradRow(ws, h, d), 1, model.hinge_centre_child[h], -e);
        target[d] = -2.0 * w * (g.jp.v[d] - g.jc.v[d]) - w * w * (g.jp.p[d] - g.jc.p[d]);
      }
      // Rotation plane, T(11)-(12).
      for (int k = 0; k < 2; ++k) {
        const Point& c = k == 0 ? g.c1 : g.c2;
        const std::array<double, 4>& wc = k == 0 ? model.hinge_child_arm[h] : model.hinge_child_arm2[h];
        const V3 r = c.p - g.jc.p;
        const V3 r_dot = c.v - g.jc.v;
        const V3 t = (r - g.n * g.n.dot(r)) / g.axis_length;
        double* row = gradRow(ws, h, 3 + k);
        addPointGradient(row, 1, wc, g.n);
        addPointGradient(row, 1, model.hinge_centre_child[h], -g.n);
        addPointGradient(row, 0, model.hinge_axis_point[h], t);
        addPointGradient(row, 0, model.hinge_centre_parent[h], -t);
        const double g_pos = g.n.dot(r);
        const double g_vel = g.n_dot.dot(r) + g.n.dot(r_dot);
        // Velocity-dependent part of g'': n'' = (1 - n n^T) w''/L - 2 n' L'/L - n |n'|^2.
        const double quadratic = 2.0 * g.n_dot.dot(r_dot) -
                                 2.0 * r.dot(g.n_dot) * g.axis_length_rate / g.axis_length -
                                 g_pos * g.n_dot.squaredNorm();
        target[3 + k] = -2.0 * w * g_vel - w * w * g_pos - quadratic;
      }
      // The angle row: used by static friction, and to apply joint torques.
      double* theta_row = gradRow(ws, h, 5);
      addPointGradient(theta_row, 1, model.hinge_child_arm[h], g.dtheta_c1);
      addPointGradient(theta_row, 1, model.hinge_centre_child[h], g.dtheta_jc);
      addPointGradient(theta_row, 0, model.hinge_parent_arm[h], g.dtheta_b);
      addPointGradient(theta_row, 0, model.hinge_axis_point[h], g.dtheta_a);
      addPointGradient(theta_row, 0, model.hinge_centre_parent[h], g.dtheta_jp);
      target[5] = -2.0 * w * g.theta_dot - w * w * (g.theta - state.hinge_stick_angle[h]);

      // Joint torques as internal pairs, T(13)-(19): motor A(6), limits, and
      // viscous friction always; Coulomb friction here only while slipping.
      const double motor = model.hinge_motor_constant[h] * state.hinge_current[h] + model.hinge_torque_offset[h];
      const double friction = sticking ? -model.hinge_viscous[h] * g.theta_dot : slipFriction(model, h, g.theta_dot);
      const double applied = motor + friction + limitTorque(model, h, g.theta, g.theta_dot);
      // Each row's wrench on the bodies that take forces rigidly: the force
      // is the sum of the row's particle gradients, the moment theirs about
      // the centre of mass.
      for (int side = 0; side < 2; ++side) {
        const int b = bodyOf(model, h, side);
        if (!movable(ws, b)) continue;
        const double* body = &ws.hinge_body[b * kBodyData];
        const V3 c(body[0], body[1], body[2]);
        V3 r[4];
        for (int k = 0; k < 4; ++k) {
          const int i = model.body_particle_begin[b] + k;
          r[k] = V3(x.px[i], x.py[i], x.pz[i]) - c;
        }
        for (int row = 0; row < kRows; ++row) {
          const double* grad = gradRow(ws, h, row) + side * 12;
          V3 f = V3::Zero(), t = V3::Zero();
          for (int k = 0; k < 4; ++k) {
            const V3 gk(grad[3 * k], grad[3 * k + 1], grad[3 * k + 2]);
            f += gk;
            t += r[k].cross(gk);
          }
          double* out = wrenchOf(ws, h, side, row);
          for (int d = 0; d < 3; ++d) {
            out[d] = f[d];
            out[3 + d] = t[d];
          }
        }
      }
      addRow(model, ws, h, 5, applied);
      // From here on a wrench row takes part in the solve only while the
      // row is active: a slipping hinge's angle row drops out.
      if (!sticking) clearAngleWrench(ws, h);
      ws.hinge_motor_torque[h] = motor;
      ws.hinge_friction_torque[h] = friction;
      ws.hinge_slipped[h] = 0;
    }

    flushBodyWrenches(model, x, ws);

    // ---- solve, and once more if static friction gave way somewhere ----
    using G = Eigen::Map<Eigen::Matrix<double, 6, 24, Eigen::RowMajor>>;
    using V24 = Eigen::Matrix<double, 24, 1>;
    for (int pass = 0; pass < 2; ++pass) {
      // Right-hand sides: target minus what the free accelerations give.
      for (int h = 0; h < nh; ++h) {
        V24 a_free;
        for (int slot = 0; slot < 8; ++slot) {
          const int i = particleOf(model, h, slot);
          const double im = model.particle_inv_mass[i];
          a_free.segment<3>(slot * 3) = im * V3(ws.force.x[i], ws.force.y[i], ws.force.z[i]);
        }
        V6 rhs = Vec6Map(&ws.hinge_target[h * kRows]) - G(gradRow(ws, h, 0)).lazyProduct(a_free);
        for (int r = ws.hinge_rows[h]; r < kRows; ++r) rhs[r] = 0.0;
        Vec6Map(&ws.hinge_rhs[h * kRows]) = rhs;
      }
      // K blocks for every pair of hinges on a common body: K_ab += W_a
      // M_b^-1 W_b^T with the rows' wrenches W on that body and its rigid
      // mobility M_b^-1 (G_a M^-1 G_b^T over its four particles for a body
      // with a fixed particle). A hinge meets itself on both its bodies, so
      // diagonal blocks start from zero here.
      for (int h = 0; h < nh; ++h) Block(&ws.hinge_block[(h * nh + h) * 36]).setZero();
      for (int b = 0; b < model.num_bodies; ++b) {
        const std::vector<std::int32_t>& list = ws.body_hinges[b];
        if (list.empty()) continue;
        if (movable(ws, b)) {
          const double* body = &ws.hinge_body[b * kBodyData];
          const Mat3Map inv_inertia(body + 4);
          for (int ha : list) {
            const int sa = model.hinge_parent_body[ha] == b ? 0 : 1;
            // (Inactive rows have zero wrenches: clearAngleWrench.)
            const Block wa(wrenchOf(ws, ha, sa, 0));
            M6 left;
            left.leftCols<3>() = body[3] * wa.leftCols<3>();
            left.rightCols<3>() = wa.rightCols<3>() * inv_inertia;  // I^-1 is symmetric
            for (int hb : list) {
              const int sb = model.hinge_parent_body[hb] == b ? 0 : 1;
              const Block right(wrenchOf(ws, hb, sb, 0));
              Block K(&ws.hinge_block[(ha * nh + hb) * 36]);
              if (ha == hb) {
                K += left.lazyProduct(right.transpose());
              } else {
                K = left.lazyProduct(right.transpose());
              }
            }
          }
          continue;
        }
        Eigen::Matrix<double, 12, 1> im;
        for (int k = 0; k < 4; ++k) im.segment<3>(3 * k).setConstant(model.particle_inv_mass[model.body_particle_begin[b] + k]);
        for (int ha : list) {
          const int sa = model.hinge_parent_body[ha] == b ? 0 : 12;
          Eigen::Matrix<double, 6, 12> left = G(gradRow(ws, ha, 0)).middleCols<12>(sa) * im.asDiagonal();
          for (int r = ws.hinge_rows[ha]; r < kRows; ++r) left.row(r).setZero();
          for (int hb : list) {
            const int sb = model.hinge_parent_body[hb] == b ? 0 : 12;
            Eigen::Matrix<double, 6, 12> right = G(gradRow(ws, hb, 0)).middleCols<12>(sb);
            for (int r = ws.hinge_rows[hb]; r < kRows; ++r) right.row(r).setZero();
            Block K(&ws.hinge_block[(ha * nh + hb) * 36]);
            if (ha == hb) {
              K += left.lazyProduct(right.transpose());
            } else {
              K = left.lazyProduct(right.transpose());
            }
          }
        }
      }
      for (int h = 0; h < nh; ++h) {
        Block K(&ws.hinge_block[(h * nh + h) * 36]);
        for (int r = ws.hinge_rows[h]; r < kRows; ++r) K(r, r) = 1.0;  // inactive rows: lambda = 0
      }
      // Block elimination, leaves first (see the design note).
      for (int h : model.hinge_order) {
        Block Khh(&ws.hinge_block[(h * nh + h) * 36]);
        const Eigen::LLT<M6> llt{M6(Khh)};
        const V6 rhs_h = Vec6Map(&ws.hinge_rhs[h * kRows]);
        for (int a : model.hinge_coupled[h]) {
          const M6 X = llt.solve(M6(Block(&ws.hinge_block[(h * nh + a) * 36])));  // K_hh^-1 K_ha
          Vec6Map(&ws.hinge_rhs[a * kRows]) -= X.transpose() * rhs_h;
          for (int c : model.hinge_coupled[h]) {
            Block(&ws.hinge_block[(c * nh + a) * 36]) -= M6(Block(&ws.hinge_block[(c * nh + h) * 36])) * X;
          }
        }
        Khh = llt.matrixLLT();  // keep the factor for the back substitution
      }
      for (auto it = model.hinge_order.rbegin(); it != model.hinge_order.rend(); ++it) {
        const int h = *it;
        V6 rhs = Vec6Map(&ws.hinge_rhs[h * kRows]);
        for (int a : model.hinge_coupled[h]) {
          rhs -= M6(Block(&ws.hinge_block[(h * nh + a) * 36])) * V6(Vec6Map(&ws.hinge_lambda[a * kRows]));
        }
        const M6 L = Block(&ws.hinge_block[(h * nh + h) * 36]);
        L.triangularView<Eigen::Lower>().solveInPlace(rhs);
        L.transpose().triangularView<Eigen::Upper>().solveInPlace(rhs);
        Vec6Map(&ws.hinge_lambda[h * kRows]) = rhs;
      }
      // Static friction, A(8)-(9): it holds up to tau_s^max in either
      // direction; beyond, the hinge breaks loose at the zero-speed friction
      // level (tau_s^max with the Stribeck term, tau_c without).
      bool resolve = false;
      for (int h = 0; h < nh; ++h) {
        if (ws.hinge_rows[h] != 6) continue;
        const double hold = ws.hinge_lambda[h * kRows + 5];
        if (std::abs(hold) <= model.hinge_static_max[h]) continue;
        const double level =
            model.hinge_stribeck_velocity[h] > 0.0 ? model.hinge_static_max[h] : model.hinge_coulomb[h];
        const double breakaway = (hold > 0.0 ? 1.0 : -1.0) * level;
        addRow(model, ws, h, 5, breakaway);
        clearAngleWrench(ws, h);
        ws.hinge_friction_torque[h] += breakaway;
        ws.hinge_slipped[h] = 1;
        ws.hinge_rows[h] = 5;
        resolve = true;
      }
      if (!resolve) break;
      flushBodyWrenches(model, x, ws);
    }

    // ---- constraint forces ----
    for (int h = 0; h < nh; ++h) {
      for (int r = 0; r < ws.hinge_rows[h]; ++r) addRow(model, ws, h, r, ws.hinge_lambda[h * kRows + r]);
      if (ws.hinge_rows[h] == 6) ws.hinge_friction_torque[h] += ws.hinge_lambda[h * kRows + 5];
    }
    flushBodyWrenches(model, x, ws);
  }
}

void updateHingeFriction(const Model& model, State& state, const PhasePoint& x, const Workspace& ws) {
  for (int h = 0; h < model.num_hinges; ++h) {
    if (!hasFriction(model, h)) continue;
    const HingeGeometry g = geometry(model, x, h);
    if (state.hinge_sticking[h]) {
      if (ws.hinge_slipped[h]) state.hinge_sticking[h] = 0;
    } else {
      // Stick when slow, or when the motion reversed within the step (friction
      // would have stopped it first: Coulomb friction never drives a reversal).
      const bool reversed = g.theta_dot * state.hinge_previous_velocity[h] < 0.0;
      if (std::abs(g.theta_dot) < model.hinge_stick_speed || reversed) {
        state.hinge_sticking[h] = 1;
        state.hinge_stick_angle[h] = g.theta;
      }
    }
    state.hinge_previous_velocity[h] = g.theta_dot;
  }
}

}  // namespace suitsim::detail
