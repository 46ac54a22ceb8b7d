// The elements whose explicit integration bounds the step (servo_stability.h,
// StepLimit). maxNaturalFrequency (energy.cpp) gives one number for the
// springs and the ground together; a divergence message and the pre-run
// check need to say which element it is, and to see the dampers, the
// constraints' stabilisation, the joint limits and the gears as well: a
// ground damping of 1e9 N s/m or a constraint frequency of 1e6 rad/s breaks
// the step while every spring is soft.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "suitsim/servo_stability.h"

namespace suitsim {

double explicitStepBound(double damping_ratio) {
  return 2.0 * (std::sqrt(1.0 + damping_ratio * damping_ratio) - damping_ratio);
}

namespace {

StepLimit limitOf(StepLimit::Kind kind, int index, double omega_squared, double damping_rate) {
  // A mode with stiffness rate omega^2 and damping rate gamma (c / m, 1/s):
  // zeta = gamma / (2 omega). A damper alone (omega = 0) needs gamma dt < 2,
  // which is the entry omega = gamma with the undamped bound 2.
  StepLimit l;
  l.kind = kind;
  l.index = index;
  const double omega = std::sqrt(std::max(0.0, omega_squared));
  if (omega > 0.0) {
    l.omega = omega;
    l.damping_ratio = damping_rate / (2.0 * omega);
    l.bound = explicitStepBound(l.damping_ratio);
  } else {
    l.omega = damping_rate;  // gamma dt < 2
    l.damping_ratio = 0.0;
    l.bound = 2.0;
  }
  return l;
}

bool slower(const StepLimit& a, const StepLimit& b) { return a.omega / a.bound < b.omega / b.bound; }

// The springs: Gershgorin's row of M^-1 K at each particle (each spring adds
// k to both ends' diagonal and k off it, so 2 sum k / m), and of M^-1 C for
// the dampers; the fastest particle, and there the stiffest spring to name.
// With rigid links a hinged body moves as a rigid body and its own springs
// only take out drift (linkModes): they do not bound the step and are left
// out, as a robot's link springs would otherwise take the blame for a
// divergence of its servos.
void springLimit(const Model& model, std::vector<StepLimit>& out) {
  if (model.num_springs == 0) return;
  std::vector<std::uint8_t> rigid(model.num_bodies, 0);
  if (model.hinge_link_model == LinkModel::kRigid) {
    for (int h = 0; h < model.num_hinges; ++h) rigid[model.hinge_parent_body[h]] = rigid[model.hinge_child_body[h]] = 1;
  }
  const auto drift_only = [&](int s) {
    const int a = model.particle_body[model.spring_a[s]], b = model.particle_body[model.spring_b[s]];
    return a >= 0 && b >= 0 && rigid[a] && rigid[b];
  };
  std::vector<double> k_sum(model.num_particles, 0.0), c_sum(model.num_particles, 0.0);
  for (int s = 0; s < model.num_springs; ++s) {
    if (drift_only(s)) continue;
    for (int i : {model.spring_a[s], model.spring_b[s]}) {
      k_sum[i] += model.spring_stiffness[s];
      c_sum[i] += model.spring_damping[s];
    }
  }
  StepLimit worst;
  int worst_particle = -1;
  for (int i = 0; i < model.num_particles; ++i) {
    if (!(model.particle_inv_mass[i] > 0.0) || !(k_sum[i] > 0.0)) continue;
    const StepLimit l = limitOf(StepLimit::Kind::kSpring, -1, 2.0 * k_sum[i] * model.particle_inv_mass[i],
                                2.0 * c_sum[i] * model.particle_inv_mass[i]);
    if (worst_particle < 0 || slower(worst, l)) {
      worst = l;
      worst_particle = i;
    }
  }
  if (worst_particle < 0) return;
  // The spring to name: the one at that particle that adds most to the
  // bound, its stiffness, or its damping where the dampers set the bound.
  double largest = -1.0;
  for (int s = 0; s < model.num_springs; ++s) {
    if (drift_only(s) || (model.spring_a[s] != worst_particle && model.spring_b[s] != worst_particle)) continue;
    const double v = worst.dampingDominates() ? model.spring_damping[s] : model.spring_stiffness[s];
    if (v > largest) {
      largest = v;
      worst.index = model.spring_input_index[s];
    }
  }
  out.push_back(worst);
}

// The ground's contacts on a set of bodies moving as one rigid body:
// K v = omega^2 M v on its six degrees of freedom (as maxNaturalFrequency
// does for one body), and the dampers the same way with C for K. False when
// the set holds a fixed particle or no contact.
bool rigidGroundRates(const Model& model, const std::vector<int>& bodies, const std::vector<int>& contact_body,
                      const Eigen::Matrix3d& k3, const Eigen::Matrix3d& c3, double* omega_squared, double* damping_rate) {
  double mass = 0.0;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  std::vector<std::uint8_t> member(model.num_bodies, 0);
  for (int b : bodies) {
    member[b] = 1;
    for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) {
      if (!(model.particle_inv_mass[i] > 0.0)) return false;  // held in the world
      const Vec3 p = model.particle_initial_position.get(i);
      mass += model.particle_mass[i];
      centre += model.particle_mass[i] * Eigen::Vector3d(p[0], p[1], p[2]);
    }
  }
  if (!(mass > 0.0)) return false;
  centre /= mass;
  Eigen::Matrix<double, 6, 6> inertia = Eigen::Matrix<double, 6, 6>::Zero();
  inertia.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  for (int b : bodies) {
    for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) {
      const Vec3 p = model.particle_initial_position.get(i);
      const Eigen::Vector3d r = Eigen::Vector3d(p[0], p[1], p[2]) - centre;
      inertia.bottomRightCorner<3, 3>() +=
          model.particle_mass[i] * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
    }
  }
  Eigen::Matrix<double, 6, 6> k6 = Eigen::Matrix<double, 6, 6>::Zero(), c6 = k6;
  bool any = false;
  for (int ct = 0; ct < model.numContacts(); ++ct) {
    if (contact_body[ct] < 0 || !member[contact_body[ct]]) continue;
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    for (int j = 0; j < 4; ++j) {
      const Vec3 p = model.particle_initial_position.get(model.contact_particle[ct][j]);
      point += model.contact_weight[ct][j] * Eigen::Vector3d(p[0], p[1], p[2]);
    }
    const Eigen::Vector3d r = point - centre;
    Eigen::Matrix<double, 3, 6> jacobian;  // a contact at r moves with v + w x r
    jacobian.leftCols<3>() = Eigen::Matrix3d::Identity();
    jacobian.rightCols<3>() << 0.0, r.z(), -r.y(), -r.z(), 0.0, r.x(), r.y(), -r.x(), 0.0;
    k6 += jacobian.transpose() * k3 * jacobian;
    c6 += jacobian.transpose() * c3 * jacobian;
    any = true;
  }
  if (!any) return false;
  using Solver = Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>>;
  *omega_squared = Solver(k6, inertia, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
  *damping_rate = Solver(c6, inertia, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
  return true;
}

// The ground. On hinged bodies (rigid links) two estimates bracket the
// fastest contact mode: each body alone on its contacts is an upper bound
// (the hinges only add inertia to it), and the whole hinged assembly locked
// into one rigid body a lower bound (locking joints restricts the motion,
// and the largest eigenvalue of a restriction is no larger: Courant-
// Fischer). The upper one is what a warning and a divergence message go by;
// a refusal needs the lower one past the bound. Elsewhere a contact point
// on particles (inverse mass sum w_i^2 / m_i) is a lower bound as it is
// (the Rayleigh quotient of that point's own motion) and counts as both.
void groundLimit(const Model& model, std::vector<StepLimit>& out) {
  if (!model.ground.enabled || model.numContacts() == 0) return;
  const GroundModel& g = model.ground;
  const Eigen::Vector3d n(g.normal[0], g.normal[1], g.normal[2]);
  const Eigen::Matrix3d along = n * n.transpose(), across = Eigen::Matrix3d::Identity() - along;
  const Eigen::Matrix3d k3 = g.stiffness * along + g.friction_stiffness * across;
  const Eigen::Matrix3d c3 = g.damping * along + g.friction_damping * across;
  // Rigid bodies, and the hinged assemblies they form (union-find over the hinges).
  std::vector<int> root(model.num_bodies);
  std::iota(root.begin(), root.end(), 0);
  const auto find = [&root](int b) {
    while (root[b] != b) b = root[b] = root[root[b]];
    return b;
  };
  std::vector<std::uint8_t> rigid(model.num_bodies, 0);
  if (model.hinge_link_model == LinkModel::kRigid) {
    for (int h = 0; h < model.num_hinges; ++h) {
      const int p = model.hinge_parent_body[h], c = model.hinge_child_body[h];
      rigid[p] = rigid[c] = 1;
      root[find(p)] = find(c);
    }
  }
  std::vector<int> contact_body(model.numContacts(), -1);
  for (int ct = 0; ct < model.numContacts(); ++ct) {
    const int b = model.particle_body[model.contact_particle[ct][0]];
    if (b >= 0 && rigid[b]) contact_body[ct] = b;
  }
  std::vector<StepLimit> found;
  std::vector<std::vector<int>> assembly(model.num_bodies);
  for (int b = 0; b < model.num_bodies; ++b) {
    if (!rigid[b]) continue;
    assembly[find(b)].push_back(b);
    double omega_squared = 0.0, damping_rate = 0.0;
    if (rigidGroundRates(model, {b}, contact_body, k3, c3, &omega_squared, &damping_rate)) {
      found.push_back(limitOf(StepLimit::Kind::kGround, b, omega_squared, damping_rate));
    }
  }
  double lower = 0.0;  // the largest lower bound on omega / bound
  for (const std::vector<int>& bodies : assembly) {
    double omega_squared = 0.0, damping_rate = 0.0;
    if (bodies.empty() || !rigidGroundRates(model, bodies, contact_body, k3, c3, &omega_squared, &damping_rate)) {
      continue;
    }
    const StepLimit l = limitOf(StepLimit::Kind::kGround, -1, omega_squared, damping_rate);
    lower = std::max(lower, l.omega / l.bound);
  }
  const double k_max = std::max(g.stiffness, g.friction_stiffness), c_max = std::max(g.damping, g.friction_damping);
  for (int ct = 0; ct < model.numContacts(); ++ct) {
    if (contact_body[ct] >= 0) continue;
    double inv_mass = 0.0;
    for (int j = 0; j < 4; ++j) {
      const double w = model.contact_weight[ct][j];
      inv_mass += w * w * model.particle_inv_mass[model.contact_particle[ct][j]];
    }
    if (!(inv_mass > 0.0)) continue;
    const StepLimit l = limitOf(StepLimit::Kind::kGround, -1, k_max * inv_mass, c_max * inv_mass);
    lower = std::max(lower, l.omega / l.bound);
    found.push_back(l);
  }
  if (found.empty()) return;
  StepLimit worst = *std::max_element(found.begin(), found.end(), slower);
  worst.certain_share = std::min(1.0, lower / (worst.omega / worst.bound));
  out.push_back(worst);
}

}  // namespace

std::vector<StepLimit> stepLimits(const Model& model) {
  std::vector<StepLimit> out;
  springLimit(model, out);
  groundLimit(model, out);
  if (model.num_hinges > 0) {
    // e'' = -2 w e' - w^2 e (hinges.cpp): critically damped at omega = w.
    const double w = model.hinge_constraint_frequency;
    out.push_back(limitOf(StepLimit::Kind::kConstraints, -1, w * w, 2.0 * w));
  }
  if (model.num_hinges > 0 && model.hinge_limit_stiffness > 0.0) {
    // Beyond a limit the joint sits on k_l and c_l with its least inertia.
    const std::vector<double> inertia = hingeEffectiveInertia(model);
    StepLimit worst;
    bool any = false;
    for (int h = 0; h < model.num_hinges; ++h) {
      // A continuous joint's limits are +-1e300 (robot_compile.cpp): never reached.
      if (!(model.hinge_lower[h] > -1e299 && model.hinge_upper[h] < 1e299)) continue;
      if (!(inertia[h] > 0.0) || !std::isfinite(inertia[h])) continue;
      const StepLimit l = limitOf(StepLimit::Kind::kJointLimit, h, model.hinge_limit_stiffness / inertia[h],
                                  model.hinge_limit_damping / inertia[h]);
      if (!any || slower(worst, l)) worst = l;
      any = true;
    }
    if (any) out.push_back(worst);
  }
  // The compliant gears' springs are implicit (gear_train.h): they bound no step.
  for (const LinkMode& m : linkModes(model)) {
    StepLimit l;
    l.kind = StepLimit::Kind::kLinkSprings;
    l.index = m.body;
    l.omega = m.omega;
    l.damping_ratio = m.damping_ratio;
    l.bound = m.bound;
    out.push_back(l);
  }
  return out;
}

}  // namespace suitsim
