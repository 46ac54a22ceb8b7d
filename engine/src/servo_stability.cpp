// Servo stability: the joint-space effective inertia of each hinge and the
// 1-DOF sample-and-hold PD model (design note in servo_stability.h).
//
// Effective inertia. Hinged bodies move as rigid bodies (hinges.cpp), so
// what a joint torque drives is the rigid tree, T(13)-(19) with the rigid
// spread. Its joint-space inertia is M = sum_b J_b^T diag(m_b 1, I_b) J_b,
// with J_b the map from the coordinates (a floating root's 6, then one per
// hinge) to body b's centre-of-mass velocity and angular velocity. A torque
// tau at hinge h alone, every other coordinate free, accelerates that hinge
// by (M^-1)_hh tau: 1 / (M^-1)_hh is the inertia it sees, never more than
// M_hh (the inertia with every other joint locked). The particles give each
// body's mass, centre and inertia exactly (robot_compile.cpp), so nothing of
// the robot description is needed: the engine stays independent of it.
#include "suitsim/servo_stability.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

namespace suitsim {

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

Vector3d initialPosition(const Model& model, int i) {
  return {model.particle_initial_position.x[i], model.particle_initial_position.y[i],
          model.particle_initial_position.z[i]};
}

// A hinge point: an affine combination of the body's first four particles.
Vector3d hingePoint(const Model& model, int body, const std::array<double, 4>& w) {
  const int first = model.body_particle_begin[body];
  Vector3d p = Vector3d::Zero();
  for (int k = 0; k < 4; ++k) p += w[k] * initialPosition(model, first + k);
  return p;
}

struct RigidBody {
  double mass = 0.0;
  Vector3d com = Vector3d::Zero();
  Matrix3d inertia = Matrix3d::Zero();  // about the centre of mass, world axes
  bool fixed = false;
};

RigidBody rigidBody(const Model& model, int body) {
  RigidBody r;
  const int begin = model.body_particle_begin[body], end = model.body_particle_end[body];
  for (int i = begin; i < end; ++i) {
    r.mass += model.particle_mass[i];
    r.com += model.particle_mass[i] * initialPosition(model, i);
    r.fixed = r.fixed || model.particle_fixed[i] != 0;
  }
  if (r.mass > 0.0) r.com /= r.mass;
  for (int i = begin; i < end; ++i) {
    const Vector3d d = initialPosition(model, i) - r.com;
    r.inertia += model.particle_mass[i] * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose());
  }
  return r;
}

// One coordinate's velocity field: per body, centre velocity and angular velocity.
struct Column {
  std::vector<Vector3d> v, w;
};

// The rigid tree's joint-space inertia M and each hinge's coordinate in it
// (-1 for a <mimic> follower, which turns with its leader's).
struct JointSpace {
  Eigen::MatrixXd M;
  std::vector<int> hinge_column;
};

JointSpace jointSpace(const Model& model) {
  const int nh = model.num_hinges, nb = model.num_bodies;
  std::vector<RigidBody> bodies(nb);
  for (int b = 0; b < nb; ++b) bodies[b] = rigidBody(model, b);
  // The tree: each body's hinge to its parent (-1 for a root), children lists.
  std::vector<int> parent_hinge(nb, -1);
  std::vector<std::vector<int>> child_hinges(nb);
  std::vector<char> in_tree(nb, 0);
  for (int h = 0; h < nh; ++h) {
    parent_hinge[model.hinge_child_body[h]] = h;
    child_hinges[model.hinge_parent_body[h]].push_back(h);
    in_tree[model.hinge_child_body[h]] = in_tree[model.hinge_parent_body[h]] = 1;
  }
  // Bodies of the subtree below body b (b included).
  auto subtree = [&](int root) {
    std::vector<int> out{root};
    for (std::size_t k = 0; k < out.size(); ++k) {
      for (int h : child_hinges[out[k]]) out.push_back(model.hinge_child_body[h]);
    }
    return out;
  };

  std::vector<Column> columns;
  auto newColumn = [&]() -> Column& {
    columns.push_back({std::vector<Vector3d>(nb, Vector3d::Zero()), std::vector<Vector3d>(nb, Vector3d::Zero())});
    return columns.back();
  };
  // A floating root: three translations and three turns about its centre.
  for (int b = 0; b < nb; ++b) {
    if (!in_tree[b] || parent_hinge[b] >= 0 || bodies[b].fixed) continue;
    const std::vector<int> tree = subtree(b);
    for (int axis = 0; axis < 6; ++axis) {
      Column& c = newColumn();
      const Vector3d e = Vector3d::Unit(axis % 3);
      for (int m : tree) {
        if (axis < 3) {
          c.v[m] = e;
        } else {
          c.w[m] = e;
          c.v[m] = e.cross(bodies[m].com - bodies[b].com);
        }
      }
    }
  }
  // One coordinate per hinge, a <mimic> follower's turn added to its leader's
  // (theta_f = multiplier theta_l + offset: one coordinate for both).
  std::vector<int> hinge_column(nh, -1);
  auto addHingeField = [&](Column& c, int h, double scale) {
    const int parent = model.hinge_parent_body[h];
    const Vector3d centre = hingePoint(model, parent, model.hinge_centre_parent[h]);
    const Vector3d axis = (hingePoint(model, parent, model.hinge_axis_point[h]) - centre).normalized();
    for (int m : subtree(model.hinge_child_body[h])) {
      c.w[m] += scale * axis;
      c.v[m] += scale * axis.cross(bodies[m].com - centre);
    }
  };
  for (int h = 0; h < nh; ++h) {
    if (model.hinge_follower_coupling.size() == static_cast<std::size_t>(nh) && model.hinge_follower_coupling[h] >= 0) {
      continue;
    }
    hinge_column[h] = static_cast<int>(columns.size());
    addHingeField(newColumn(), h, 1.0);
  }
  for (int c = 0; c < model.num_couplings; ++c) {
    addHingeField(columns[hinge_column[model.coupling_leader[c]]], model.coupling_follower[c],
                  model.coupling_multiplier[c]);
  }

  const int n = static_cast<int>(columns.size());
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int b = 0; b < nb; ++b) {
    if (!in_tree[b]) continue;
    for (int i = 0; i < n; ++i) {
      const Vector3d& vi = columns[i].v[b];
      const Vector3d Iwi = bodies[b].inertia * columns[i].w[b];
      for (int j = i; j < n; ++j) {
        const double e = bodies[b].mass * vi.dot(columns[j].v[b]) + Iwi.dot(columns[j].w[b]);
        M(i, j) += e;
        if (j != i) M(j, i) += e;
      }
    }
  }
  // A rotor adds its reflected inertia to its joint's coordinate (hinges.cpp);
  // on a compliant gear it turns on its own (gear_train.h), and the least
  // inertia the gear's spring drives on the link's side is the link's.
  for (int h = 0; h < nh; ++h) {
    if (hinge_column[h] >= 0 && model.hinge_gear_stiffness[h] == 0.0) {
      M(hinge_column[h], hinge_column[h]) += model.hinge_armature[h];
    }
  }
  return {std::move(M), std::move(hinge_column)};
}

}  // namespace

std::vector<double> hingeEffectiveInertia(const Model& model) {
  const int nh = model.num_hinges;
  std::vector<double> result(nh, std::numeric_limits<double>::quiet_NaN());
  if (nh == 0) return result;
  const JointSpace space = jointSpace(model);
  const std::vector<int>& hinge_column = space.hinge_column;
  const int n = static_cast<int>(space.M.rows());
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(space.M);
  const Eigen::MatrixXd inverse = ldlt.solve(Eigen::MatrixXd::Identity(n, n));
  for (int h = 0; h < nh; ++h) {
    if (hinge_column[h] >= 0) result[h] = 1.0 / inverse(hinge_column[h], hinge_column[h]);
  }
  // A follower turns multiplier times its leader for the same coordinate: a
  // torque tau on it is multiplier tau on the coordinate, so it sees
  // 1 / (multiplier^2 (M^-1)_ll).
  for (int c = 0; c < model.num_couplings; ++c) {
    const double mu = model.coupling_multiplier[c];
    const double inv = inverse(hinge_column[model.coupling_leader[c]], hinge_column[model.coupling_leader[c]]);
    result[model.coupling_follower[c]] = 1.0 / (mu * mu * inv);
  }
  return result;
}

namespace {

// One servo period of `steps` steps of h from (q, w), stepped as
// integrators.cpp steps the particles, with the acceleration acc(w) (the
// held servo torque and the friction at velocity w): for one joint (V =
// double) and for the whole tree (V = a vector of coordinates).
template <class V, class Acc>
void stepPeriod(Integrator integrator, int steps, double h, const Acc& acc, V& q, V& w) {
  V cached{};
  bool valid = false;  // the servo's update invalidates the cached acceleration
  for (int k = 0; k < steps; ++k) {
    switch (integrator) {
      case Integrator::kSemiImplicitEuler:
        w += h * acc(w);
        q += h * w;
        break;
      case Integrator::kVelocityVerlet:
        if (!valid) cached = acc(w);
        w += 0.5 * h * cached;
        q += h * w;
        cached = acc(w);  // damping sees the half-step velocity
        w += 0.5 * h * cached;
        valid = true;
        break;
      case Integrator::kPositionVerlet:
        q += 0.5 * h * w;
        w += h * acc(w);  // damping sees the step's starting velocity
        q += 0.5 * h * w;
        break;
      case Integrator::kRk4: {
        const V k1x = w, k1v = acc(w);
        const V k2x = w + 0.5 * h * k1v, k2v = acc(k2x);
        const V k3x = w + 0.5 * h * k2v, k3v = acc(k3x);
        const V k4x = w + h * k3v, k4v = acc(k4x);
        q += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        w += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        break;
      }
    }
  }
}

// The 1-DOF loop over one servo period from (theta, omega) with the held
// torque u: the joint's viscous friction is a force like any other, the
// servo's torque is held.
void propagate(const ServoLoop& loop, double u, double* theta, double* omega) {
  const auto acc = [&](double w) { return (u - loop.viscous * w) / loop.inertia; };
  stepPeriod(loop.integrator, loop.steps_per_period, loop.dt, acc, *theta, *omega);
}

// Trace and determinant of the period map for gains (kp, kd), reference 0.
void periodMap(const ServoLoop& loop, double kp, double kd, double* trace, double* det) {
  double A[2][2];
  for (int col = 0; col < 2; ++col) {
    double q = col == 0 ? 1.0 : 0.0, w = col == 1 ? 1.0 : 0.0;
    const double u = -kp * q - kd * w;
    propagate(loop, u, &q, &w);
    A[0][col] = q;
    A[1][col] = w;
  }
  *trace = A[0][0] + A[1][1];
  *det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
}

// f(a, b) = f0 + fa a + fb b.
struct Affine {
  double f0 = 0.0, fa = 0.0, fb = 0.0;
  double at(double a, double b) const { return f0 + fa * a + fb * b; }
};

// The largest x with f(x) > 0 along a coordinate whose coefficient is c,
// the rest r; +inf when f does not fall with x.
double upperRoot(double r, double c) { return c < 0.0 ? -r / c : std::numeric_limits<double>::infinity(); }

}  // namespace

ServoLoopStability analyseServoLoop(const ServoLoop& loop) {
  if (!(loop.inertia > 0.0) || !(loop.dt > 0.0) || loop.steps_per_period < 1) {
    throw std::invalid_argument("servo loop: inertia, dt and steps per period must be > 0");
  }
  const double T = loop.dt * loop.steps_per_period;
  const double I = loop.inertia;
  // The period map is affine in the gains (A = Phi - Gamma K), so are its
  // trace and determinant (a rank-one update): three maps give both exactly.
  // Evaluated at a = 1 and b = 1 so the differences are well scaled.
  double t0, d0, ta, da, tb, db;
  periodMap(loop, 0.0, 0.0, &t0, &d0);
  periodMap(loop, I / (T * T), 0.0, &ta, &da);
  periodMap(loop, 0.0, I / T, &tb, &db);
  // A coefficient that is zero in exact arithmetic (Verlet's p(-1) does
  // not depend on kp) must not come out as round-off and make a bound of 1e16.
  const auto snap = [](double x) { return std::abs(x) < 1e-12 ? 0.0 : x; };
  const Affine trace{t0, snap(ta - t0), snap(tb - t0)}, det{d0, snap(da - d0), snap(db - d0)};
  // Jury's conditions on p(z) = z^2 - tr z + det: p(-1) > 0 (no eigenvalue
  // through -1) and det < 1 (no complex pair leaving the unit circle); p(1)
  // > 0 holds for any kp > 0 (kp = 0 leaves the angle neutral, not growing),
  // and det > -1 follows from p(1) > 0 and p(-1) > 0.
  const Affine reversal{1.0 + trace.f0 + det.f0, trace.fa + det.fa, trace.fb + det.fb};  // p(-1)
  const Affine lag{1.0 - det.f0, -det.fa, -det.fb};                                    // 1 - det

  ServoLoopStability s;
  const double a = loop.kp * T * T / I, b = loop.kd * T / I;
  s.kp_ratio = a;
  s.kd_ratio = b;
  s.kd_bound = upperRoot(reversal.f0 + reversal.fa * a, reversal.fb);
  s.kp_bound = std::min(upperRoot(reversal.f0 + reversal.fb * b, reversal.fa), upperRoot(lag.f0 + lag.fb * b, lag.fa));
  const double tr = trace.at(a, b), dt = det.at(a, b);
  const double disc = tr * tr - 4.0 * dt;
  s.growth = disc >= 0.0 ? 0.5 * (std::abs(tr) + std::sqrt(disc)) : std::sqrt(dt);
  s.reverses = reversal.at(a, b) <= 0.0;
  // kp = kd = 0 without friction leaves det at 1: a free joint, not a servo.
  s.lags = !s.reverses && lag.at(a, b) <= 0.0 && (a > 0.0 || b > 0.0);
  return s;
}

JointSpaceCheck checkJointSpace(const Model& model, const std::vector<ServoGains>& gains, double rate_hz, double dt,
                                Integrator integrator) {
  const int nh = model.num_hinges;
  if (!(dt > 0.0)) throw std::invalid_argument("joint-space check: dt must be > 0");
  if (!gains.empty() && (static_cast<int>(gains.size()) != nh || !(rate_hz > 0.0))) {
    throw std::invalid_argument("joint-space check: one gain per hinge and a servo rate > 0 are needed");
  }
  JointSpaceCheck out;
  out.steps_per_period =
      gains.empty() ? 1 : std::max(1, static_cast<int>(std::ceil(1.0 / (rate_hz * dt) - 1e-9)));  // as JointServo
  out.period = out.steps_per_period * dt;
  if (nh == 0) return out;
  const JointSpace space = jointSpace(model);
  const int n = static_cast<int>(space.M.rows());
  // Friction and gains on the coordinates. A <mimic> follower turns mu
  // times its leader's coordinate: a torque -c mu q' on it is -c mu^2 q' on
  // the coordinate.
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n), kp = b, kd = b;
  for (int h = 0; h < nh; ++h) {
    int column = space.hinge_column[h];
    double mu = 1.0;
    for (int c = 0; c < model.num_couplings; ++c) {
      if (model.coupling_follower[c] != h) continue;
      column = space.hinge_column[model.coupling_leader[c]];
      mu = model.coupling_multiplier[c];
    }
    if (column < 0) continue;
    b[column] += mu * mu * model.hinge_viscous[h];
    if (gains.empty() || model.hinge_gear_stiffness[h] > 0.0) continue;
    kp[column] += mu * mu * gains[h].kp;
    kd[column] += mu * mu * gains[h].kd;
  }
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(space.M);
  const Eigen::MatrixXd inverse = ldlt.solve(Eigen::MatrixXd::Identity(n, n));
  // The period map, column by column, stepped as the 1-DOF loop is.
  Eigen::MatrixXd A(2 * n, 2 * n);
  for (int col = 0; col < 2 * n; ++col) {
    Eigen::VectorXd q = Eigen::VectorXd::Zero(n), w = q;
    (col < n ? q[col] : w[col - n]) = 1.0;
    const Eigen::VectorXd u = -(kp.cwiseProduct(q) + kd.cwiseProduct(w));
    const auto acc = [&](const Eigen::VectorXd& v) -> Eigen::VectorXd { return inverse * (u - b.cwiseProduct(v)); };
    stepPeriod(integrator, out.steps_per_period, dt, acc, q, w);
    A.col(col) << q, w;
  }
  const Eigen::EigenSolver<Eigen::MatrixXd> solver(A, true);
  if (solver.info() != Eigen::Success) return out;
  int largest = 0;
  for (int i = 1; i < 2 * n; ++i) {
    if (std::abs(solver.eigenvalues()[i]) > std::abs(solver.eigenvalues()[largest])) largest = i;
  }
  const std::complex<double> z = solver.eigenvalues()[largest];
  out.growth = std::abs(z);
  if (!out.grows()) return out;
  out.reverses = z.real() < 0.0 && std::abs(z.imag()) <= 1e-9 * std::abs(z);
  // The mode's joints: each hinge coordinate's share of its kinetic energy
  // M_cc |q'_c|^2 (the root's coordinates left out).
  const Eigen::VectorXcd mode = solver.eigenvectors().col(largest);
  std::vector<std::pair<double, int>> parts;
  double total = 0.0;
  for (int hinge = 0; hinge < nh; ++hinge) {
    const int column = space.hinge_column[hinge];
    if (column < 0) continue;
    const double e = space.M(column, column) * std::norm(mode[n + column]);
    total += e;
    parts.push_back({e, hinge});
  }
  std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [e, hinge] : parts) {
    if (!(total > 0.0) || e < 0.1 * total) break;
    out.hinges.push_back(hinge);
    out.share.push_back(e / total);
  }
  return out;
}

std::vector<GearMode> gearModes(const Model& model) {
  std::vector<GearMode> modes;
  std::vector<double> link;
  for (int h = 0; h < model.num_hinges; ++h) {
    if (!(model.hinge_gear_stiffness[h] > 0.0)) continue;
    if (link.empty()) link = hingeEffectiveInertia(model);
    GearMode g;
    g.hinge = h;
    g.rotor_inertia = model.hinge_armature[h];
    g.link_inertia = link[h];
    // Two inertias on one spring: omega^2 = k (1 / I_a + 1 / I_link).
    const double inverse = 1.0 / g.rotor_inertia + (link[h] > 0.0 && std::isfinite(link[h]) ? 1.0 / link[h] : 0.0);
    g.omega = std::sqrt(model.hinge_gear_stiffness[h] * inverse);
    // Its damping ratio, b / (2 sqrt(k I_red)) with I_red = 1 / inverse, and
    // the explicit step's bound for a damped oscillator (symplectic Euler's
    // Jury condition, p(-1) > 0: (omega dt)^2 + 4 zeta omega dt < 4).
    g.damping_ratio = model.hinge_gear_damping[h] / (2.0 * std::sqrt(model.hinge_gear_stiffness[h] / inverse));
    g.bound = 2.0 * (std::sqrt(1.0 + g.damping_ratio * g.damping_ratio) - g.damping_ratio);
    modes.push_back(g);
  }
  return modes;
}

std::vector<LinkMode> linkModes(const Model& model) {
  std::vector<LinkMode> modes;
  if (model.hinge_link_model != LinkModel::kSprings) return modes;
  std::vector<std::uint8_t> hinged(model.num_bodies, 0);
  for (int h = 0; h < model.num_hinges; ++h) hinged[model.hinge_parent_body[h]] = hinged[model.hinge_child_body[h]] = 1;
  for (int b = 0; b < model.num_bodies; ++b) {
    if (!hinged[b]) continue;
    // The body's free particles (a fixed one does not move) and the
    // linearised springs between them at the built pose: K = sum k u u^T,
    // C = sum c u u^T (the dampers act along the springs too).
    const int first = model.body_particle_begin[b], count = model.body_particle_end[b] - first;
    std::vector<int> slot(count, -1);
    int n = 0;
    for (int k = 0; k < count; ++k) {
      if (model.particle_inv_mass[first + k] > 0.0) slot[k] = n++;
    }
    if (n == 0) continue;
    Eigen::MatrixXd stiffness = Eigen::MatrixXd::Zero(3 * n, 3 * n), damping = stiffness;
    Eigen::VectorXd inv_sqrt_mass(3 * n);
    for (int k = 0; k < count; ++k) {
      if (slot[k] >= 0) inv_sqrt_mass.segment<3>(3 * slot[k]).setConstant(std::sqrt(model.particle_inv_mass[first + k]));
    }
    for (int s = 0; s < model.num_springs; ++s) {
      const int a = model.spring_a[s] - first, c = model.spring_b[s] - first;
      if (a < 0 || a >= count || c < 0 || c >= count) continue;
      const Vec3 pa = model.particle_initial_position.get(first + a), pc = model.particle_initial_position.get(first + c);
      Eigen::Vector3d u(pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]);
      if (!(u.norm() > 0.0)) continue;
      u.normalize();
      const Eigen::Matrix3d uu = u * u.transpose();
      for (const auto& [matrix, value] : {std::pair{&stiffness, model.spring_stiffness[s]},
                                          std::pair{&damping, model.spring_damping[s]}}) {
        for (int i : {a, c}) {
          for (int j : {a, c}) {
            if (slot[i] < 0 || slot[j] < 0) continue;
            matrix->block<3, 3>(3 * slot[i], 3 * slot[j]) += (i == j ? value : -value) * uu;
          }
        }
      }
    }
    // Mass-normalised: the modes of M^-1/2 K M^-1/2, each one's damping
    // ratio v^T C~ v / (2 omega) (exact when C is proportional to K, as the
    // robot's link springs make it).
    const Eigen::MatrixXd scaled = inv_sqrt_mass.asDiagonal() * stiffness * inv_sqrt_mass.asDiagonal();
    const Eigen::MatrixXd scaled_damping = inv_sqrt_mass.asDiagonal() * damping * inv_sqrt_mass.asDiagonal();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(scaled);
    LinkMode worst;
    worst.body = b;
    double worst_ratio = -1.0;
    for (int q = 0; q < 3 * n; ++q) {
      const double omega = std::sqrt(std::max(0.0, eigen.eigenvalues()[q]));
      if (!(omega > 0.0)) continue;
      const Eigen::VectorXd v = eigen.eigenvectors().col(q);
      const double zeta = v.dot(scaled_damping * v) / (2.0 * omega);
      const double bound = 2.0 * (std::sqrt(1.0 + zeta * zeta) - zeta);
      if (omega / bound > worst_ratio) {
        worst_ratio = omega / bound;
        worst.omega = omega;
        worst.damping_ratio = zeta;
        worst.bound = bound;
      }
    }
    if (worst_ratio > 0.0) modes.push_back(worst);
  }
  return modes;
}

bool ServoStability::anyReverses() const {
  return std::any_of(joints.begin(), joints.end(), [](const ServoJointCheck& j) { return j.loop.reverses; });
}

ServoStability checkServoStability(const Model& model, const std::vector<ServoGains>& gains, double rate_hz,
                                   double dt, Integrator integrator) {
  if (static_cast<int>(gains.size()) != model.num_hinges) {
    throw std::invalid_argument("servo stability: needs gains for every hinge");
  }
  if (!(rate_hz > 0.0) || !(dt > 0.0)) throw std::invalid_argument("servo stability: rate and dt must be > 0");
  ServoStability out;
  // JointServo updates at the first step at or past each period's end, so
  // a torque is held for ceil(T / dt) steps at most (T / dt rounded away
  // from a whole number by the steps' own round-off).
  out.steps_per_period = std::max(1, static_cast<int>(std::ceil(1.0 / (rate_hz * dt) - 1e-9)));
  out.period = out.steps_per_period * dt;
  const std::vector<double> inertia = hingeEffectiveInertia(model);
  double worst = -1.0;
  for (int h = 0; h < model.num_hinges; ++h) {
    const ServoGains& g = gains[h];
    if (!(g.kp > 0.0 || g.kd > 0.0) || !(inertia[h] > 0.0) || !std::isfinite(inertia[h])) continue;
    ServoJointCheck j;
    j.hinge = h;
    // On a compliant gear the servo's torque drives the rotor; the least
    // inertia it sees is the rotor's alone (the link behind the spring,
    // and the joint's friction with it, out of reach at high frequency).
    const bool compliant = model.hinge_gear_stiffness[h] > 0.0;
    j.inertia = compliant ? model.hinge_armature[h] : inertia[h];
    j.kp = g.kp;
    j.kd = g.kd;
    j.loop = analyseServoLoop(
        {j.inertia, g.kp, g.kd, compliant ? 0.0 : model.hinge_viscous[h], dt, out.steps_per_period, integrator});
    const ServoLoopStability& s = j.loop;
    // kd is to blame for a reversal that lowering kd alone ends.
    if (s.reverses) j.gain = s.kd_bound > 0.0 ? "kd" : "kp";
    if (s.lags) j.gain = "kp";
    const double fd = s.kd_bound > 0.0 && std::isfinite(s.kd_bound) ? s.kd_ratio / s.kd_bound : 0.0;
    const double fp = std::isfinite(s.kp_bound) ? (s.kp_bound > 0.0 ? s.kp_ratio / s.kp_bound : 1.0) : 0.0;
    j.bound_fraction = std::max(fd, fp);
    if (!s.stable()) j.bound_fraction = std::max(j.bound_fraction, 1.0);
    if (j.bound_fraction > worst) {
      worst = j.bound_fraction;
      out.worst = static_cast<int>(out.joints.size());
    }
    out.joints.push_back(std::move(j));
  }
  return out;
}

std::string describeServoCheck(const Model& model, const ServoStability& stability, const ServoJointCheck& j) {
  const ServoLoopStability& s = j.loop;
  const double T = stability.period;
  char head[320];
  std::snprintf(head, sizeof head,
                "joint '%s' (servo kp %.4g N m/rad, kd %.4g N m s/rad, torque held T = %.4g s, least inertia I_eff = "
                "%.3g kg m^2): ",
                model.hinge_name[j.hinge].c_str(), j.kp, j.kd, T, j.inertia);
  char body[480];
  if (s.reverses && j.gain == "kd") {
    std::snprintf(body, sizeof body,
                  "kd T / I_eff = %.3g is at or past its bound %.3g: each period reverses the joint and grows it "
                  "(x%.3g per period); lower kd below %.3g N m s/rad or shorten the servo period",
                  s.kd_ratio, s.kd_bound, s.growth, s.kd_bound * j.inertia / T);
  } else if (s.reverses) {
    std::snprintf(body, sizeof body,
                  "kp T^2 / I_eff = %.3g is at or past its bound %.3g: each period reverses the joint and grows it "
                  "(x%.3g per period); lower kp below %.3g N m/rad or shorten the servo period",
                  s.kp_ratio, s.kp_bound, s.growth, s.kp_bound * j.inertia / (T * T));
  } else if (s.lags) {
    std::snprintf(body, sizeof body,
                  "kp T^2 / I_eff = %.3g is at or past its bound %.3g for this kd: the held torque lags and the "
                  "joint oscillates with growing amplitude (x%.6g per period, e-folding in %.3g s unless friction "
                  "takes it out); lower kp below %.3g N m/rad or raise kd",
                  s.kp_ratio, s.kp_bound, s.growth, T / std::log(s.growth), s.kp_bound * j.inertia / (T * T));
  } else {
    std::snprintf(body, sizeof body,
                  "within its bounds: kd T / I_eff = %.3g (bound %.3g), kp T^2 / I_eff = %.3g (bound %.3g)", s.kd_ratio,
                  s.kd_bound, s.kp_ratio, s.kp_bound);
  }
  return std::string(head) + body;
}

std::string describeJointSpaceCheck(const Model& model, const JointSpaceCheck& check) {
  std::string joints;
  for (std::size_t k = 0; k < check.hinges.size(); ++k) {
    char part[160];
    std::snprintf(part, sizeof part, "%s'%s' (%.0f %%)", k ? ", " : "", model.hinge_name[check.hinges[k]].c_str(),
                  100.0 * check.share[k]);
    joints += part;
  }
  char text[720];
  std::snprintf(text, sizeof text,
                "the servo and joint friction on the whole robot (joints coupled through their links, at the initial "
                "pose, period T = %.3g s): a mode of joint%s %s grows x%.6g per period%s (e-folding in %.3g s)%s: "
                "give %s motor%s rotor inertia (<actuation armature>), lower %s kd or friction, or take a shorter "
                "step",
                check.period, check.hinges.size() == 1 ? "" : "s", joints.c_str(), check.growth,
                check.reverses ? ", flipping sign every period" : "", check.period / std::log(check.growth),
                check.hinges.size() > 1 ? "; together the joints drive less inertia than each alone" : "",
                check.hinges.size() > 1 ? "their" : "its", check.hinges.size() > 1 ? "s their" : " its",
                check.hinges.size() > 1 ? "their" : "its");
  return text;
}

}  // namespace suitsim
