// Hinge joints from the rotation plane, T(11)-(19), with motors, friction and
// limits.
//
// Design note. Each hinge involves five particles that belong to no other
// hinge (see Model): the centre J, the parent's axis point A and arm B, and
// the child's arms C1 and C2. Two scalar constraints keep the child arms in
// the rotation plane, the plane through J normal to the parent's axis
// n = (A - J)/|A - J|:
//
//   g_k = n . (C_k - J) = 0,   k = 1, 2                              T(11)
//
// T(12) removes the normal component of the child's acceleration. Removing it
// from C_k alone would move the robot's momentum; instead we apply the
// constraint force lambda_k grad g_k, whose parts on C_k, J and A are an
// internal set (g_k is unchanged by moving or turning everything together,
// so its gradient has zero net force and zero net moment), and choose
// lambda so that g_k'' = -2 w g_k' - w^2 g_k (Baumgarte: the normal
// acceleration is removed and any drift decays at rate w). Because the five
// particles are exclusive to their hinge, the 2 x 2 system of one hinge is
// independent of every other: no global solve, and hinges run in parallel.
//
// The joint angle theta = atan2(n . (u x r), u . r), u = B - J, r = C1 - J, is
// likewise invariant, so a joint torque tau applied as the force set
// tau grad theta is an internal pair: zero net force, moment +tau n on the
// child and -tau n on the parent, T(13)-(19) (on C1 the force is tau/|r|,
// T(19)). Motor torque A(6), viscous and Coulomb friction A(7), an optional
// Stribeck drop, and limit springs all go through it. Static friction is a
// third constraint, theta'' driven to hold the angle where the hinge stuck;
// its multiplier is the friction torque, accepted while |lambda| <= tau_s^max,
// A(7)-(9). The quadratic velocity term of theta'' is left to the
// stabilisation (it is small while the hinge is at rest).
#include <Eigen/Dense>
#include <cmath>

#include "forces.h"

namespace suitsim::detail {

namespace {

using V3 = Eigen::Vector3d;

inline V3 load(const PhasePoint& x, int i) { return {x.px[i], x.py[i], x.pz[i]}; }
inline V3 loadVelocity(const PhasePoint& x, int i) { return {x.vx[i], x.vy[i], x.vz[i]}; }
inline V3 loadForce(const Vec3Array& f, int i) { return {f.x[i], f.y[i], f.z[i]}; }
inline void addForce(Vec3Array& f, int i, const V3& v) {
  f.x[i] += v.x();
  f.y[i] += v.y();
  f.z[i] += v.z();
}

// Slot order of a hinge's particles in the local arrays below.
enum Slot { kJ = 0, kA = 1, kB = 2, kC1 = 3, kC2 = 4, kSlots = 5 };

/// Everything about one hinge at one phase point that the force pass needs.
struct HingeFrame {
  int particle[kSlots];
  V3 p[kSlots], v[kSlots];
  V3 n, n_dot;  // unit axis and its rate
  double axis_length = 0.0, axis_length_rate = 0.0;
  double theta = 0.0, theta_dot = 0.0;
  V3 grad_theta[kSlots];  // d theta / d particle
};

HingeFrame hingeFrame(const Model& m, const PhasePoint& x, int h) {
  HingeFrame f;
  f.particle[kJ] = m.hinge_centre[h];
  f.particle[kA] = m.hinge_axis_point[h];
  f.particle[kB] = m.hinge_parent_arm[h];
  f.particle[kC1] = m.hinge_child_arm[h];
  f.particle[kC2] = m.hinge_child_arm2[h];
  for (int s = 0; s < kSlots; ++s) {
    f.p[s] = load(x, f.particle[s]);
    f.v[s] = loadVelocity(x, f.particle[s]);
  }
  const V3 w = f.p[kA] - f.p[kJ];
  const V3 w_dot = f.v[kA] - f.v[kJ];
  f.axis_length = w.norm();
  f.n = w / f.axis_length;
  f.axis_length_rate = f.n.dot(w_dot);
  f.n_dot = (w_dot - f.n * f.axis_length_rate) / f.axis_length;

  // theta = atan2(y, x) with y = n . (u x r), x = u . r: exact gradient.
  const V3 u = f.p[kB] - f.p[kJ];
  const V3 r = f.p[kC1] - f.p[kJ];
  const V3 uxr = u.cross(r);
  const double ys = f.n.dot(uxr);
  const double xs = u.dot(r);
  f.theta = std::atan2(ys, xs);
  const double inv = 1.0 / (xs * xs + ys * ys);
  const V3 dy_dC1 = f.n.cross(u);
  const V3 dy_dB = r.cross(f.n);
  const V3 dy_dA = (uxr - f.n * f.n.dot(uxr)) / f.axis_length;
  f.grad_theta[kC1] = (xs * dy_dC1 - ys * u) * inv;
  f.grad_theta[kB] = (xs * dy_dB - ys * r) * inv;
  f.grad_theta[kA] = xs * dy_dA * inv;
  f.grad_theta[kC2] = V3::Zero();
  f.grad_theta[kJ] = -(f.grad_theta[kC1] + f.grad_theta[kB] + f.grad_theta[kA]);
  f.theta_dot = 0.0;
  for (int s = 0; s < kSlots; ++s) f.theta_dot += f.grad_theta[s].dot(f.v[s]);
  return f;
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

bool hasFriction(const Model& m, int h) {
  return m.hinge_static_max[h] > 0.0 || m.hinge_coulomb[h] > 0.0;
}

}  // namespace

double hingeAngle(const Model& model, const PhasePoint& x, int h) { return hingeFrame(model, x, h).theta; }

double hingeVelocity(const Model& model, const PhasePoint& x, int h) { return hingeFrame(model, x, h).theta_dot; }

void applyHinges(const Model& model, const State& state, const PhasePoint& x, Workspace& ws) {
  const double w = model.hinge_constraint_frequency;
#pragma omp for schedule(static)
  for (int h = 0; h < model.num_hinges; ++h) {
    const HingeFrame f = hingeFrame(model, x, h);
    const bool sticking = state.hinge_sticking[h] != 0 && hasFriction(model, h);

    // Joint torques as internal pairs, T(13)-(19): motor A(6), limits, and
    // viscous friction always; Coulomb friction here only while slipping.
    const double motor = model.hinge_motor_constant[h] * state.hinge_current[h] + model.hinge_torque_offset[h];
    double friction = sticking ? -model.hinge_viscous[h] * f.theta_dot : slipFriction(model, h, f.theta_dot);
    double applied = motor + friction + limitTorque(model, h, f.theta, f.theta_dot);

    // Constraint gradients (rows) over the five slots.
    V3 grad[3][kSlots];
    double target[3];
    int rows = 2;
    for (int k = 0; k < 2; ++k) {
      const int c = k == 0 ? kC1 : kC2;
      const V3 r = f.p[c] - f.p[kJ];
      const V3 r_dot = f.v[c] - f.v[kJ];
      const V3 t = (r - f.n * f.n.dot(r)) / f.axis_length;
      for (V3& g : grad[k]) g.setZero();
      grad[k][c] = f.n;
      grad[k][kA] = t;
      grad[k][kJ] = -f.n - t;
      const double g_pos = f.n.dot(r);
      const double g_vel = f.n_dot.dot(r) + f.n.dot(r_dot);
      // Velocity-dependent part of g'' (derivation in the design note's terms:
      // n'' = (1 - n n^T) w''/L - 2 n' L'/L - n |n'|^2).
      const double quadratic = 2.0 * f.n_dot.dot(r_dot) - 2.0 * r.dot(f.n_dot) * f.axis_length_rate / f.axis_length -
                               g_pos * f.n_dot.squaredNorm();
      target[k] = -2.0 * w * g_vel - w * w * g_pos - quadratic;
    }
    if (sticking) {
      for (int s = 0; s < kSlots; ++s) grad[2][s] = f.grad_theta[s];
      target[2] = -2.0 * w * f.theta_dot - w * w * (f.theta - state.hinge_stick_angle[h]);
      rows = 3;
    }

    // Free accelerations of the five particles with the applied torque in.
    V3 a_free[kSlots];
    double inv_mass[kSlots];
    for (int s = 0; s < kSlots; ++s) {
      inv_mass[s] = model.particle_inv_mass[f.particle[s]];
      a_free[s] = (loadForce(ws.force, f.particle[s]) + applied * f.grad_theta[s]) * inv_mass[s];
    }
    auto solve = [&](int n_rows, double* lambda) {
      Eigen::Matrix3d K = Eigen::Matrix3d::Identity();
      Eigen::Vector3d rhs = Eigen::Vector3d::Zero();
      for (int i = 0; i < n_rows; ++i) {
        rhs[i] = target[i];
        for (int s = 0; s < kSlots; ++s) rhs[i] -= grad[i][s].dot(a_free[s]);
        for (int j = 0; j < n_rows; ++j) {
          double kij = 0.0;
          for (int s = 0; s < kSlots; ++s) kij += inv_mass[s] * grad[i][s].dot(grad[j][s]);
          K(i, j) = kij;
        }
      }
      const Eigen::Vector3d l = K.ldlt().solve(rhs);
      for (int i = 0; i < 3; ++i) lambda[i] = i < n_rows ? l[i] : 0.0;
    };
    double lambda[3];
    solve(rows, lambda);
    bool slipped = false;
    if (sticking) {
      // A(8)-(9): static friction holds up to tau_s^max, in either direction.
      if (std::abs(lambda[2]) <= model.hinge_static_max[h]) {
        friction += lambda[2];
      } else {
        // Breaking loose: friction falls to its level at zero speed (tau_s^max
        // with the Stribeck term, tau_c without), opposing the tendency.
        slipped = true;
        const double level = model.hinge_stribeck_velocity[h] > 0.0 ? model.hinge_static_max[h]
                                                                   : model.hinge_coulomb[h];
        const double breakaway = (lambda[2] > 0.0 ? 1.0 : -1.0) * level;
        friction += breakaway;
        applied += breakaway;
        for (int s = 0; s < kSlots; ++s) {
          a_free[s] += breakaway * f.grad_theta[s] * inv_mass[s];
        }
        solve(2, lambda);
      }
    }
    for (int s = 0; s < kSlots; ++s) {
      V3 force = applied * f.grad_theta[s];
      for (int i = 0; i < 3; ++i) force += lambda[i] * grad[i][s];
      addForce(ws.force, f.particle[s], force);
    }
    ws.hinge_motor_torque[h] = motor;
    ws.hinge_friction_torque[h] = friction;
    ws.hinge_slipped[h] = slipped ? 1 : 0;
  }
}

void updateHingeFriction(const Model& model, State& state, const PhasePoint& x, const Workspace& ws) {
  for (int h = 0; h < model.num_hinges; ++h) {
    if (!hasFriction(model, h)) continue;
    const HingeFrame f = hingeFrame(model, x, h);
    if (state.hinge_sticking[h]) {
      if (ws.hinge_slipped[h]) state.hinge_sticking[h] = 0;
    } else {
      // Stick when slow, or when the motion reversed within the step (friction
      // would have stopped it first: Coulomb friction never drives a reversal).
      const bool reversed = f.theta_dot * state.hinge_previous_velocity[h] < 0.0;
      if (std::abs(f.theta_dot) < model.hinge_stick_speed || reversed) {
        state.hinge_sticking[h] = 1;
        state.hinge_stick_angle[h] = f.theta;
      }
    }
    state.hinge_previous_velocity[h] = f.theta_dot;
  }
}

}  // namespace suitsim::detail
