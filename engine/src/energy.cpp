#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "suitsim/robot_readout.h"

#include "bands.h"
#include "straps.h"
#include "forces.h"
#include "gear_train.h"

namespace suitsim {

Energy computeEnergy(const Model& model, const State& state) {
  Energy e;
  for (int i = 0; i < model.num_particles; ++i) {
    const double m = model.particle_mass[i];
    const Vec3 v = state.velocity.get(i);
    const Vec3 p = state.position.get(i);
    e.kinetic += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    // Gravity and constant external forces are uniform fields: U = -F . p.
    e.gravity -= m * (model.gravity[0] * p[0] + model.gravity[1] * p[1] + model.gravity[2] * p[2]);
    e.gravity -= model.particle_force_x[i] * p[0] + model.particle_force_y[i] * p[1] + model.particle_force_z[i] * p[2];
  }
  // A rotor spins with its joint: 0.5 I_a theta'^2 (hinges.cpp, armature;
  // a follower has none, ModelBuilder::addCoupling refuses one).
  // On a compliant gear it spins at its own rate, and the gear's spring
  // holds 0.5 k (|phi - theta| - d)^2 (gear_train.h).
  for (int h = 0; h < model.num_hinges; ++h) {
    if (detail::compliantGear(model, h)) {
      const double rate = state.rotor_velocity[h];
      e.kinetic += 0.5 * model.hinge_armature[h] * rate * rate;
      e.spring += detail::gearSpringEnergy(model, h, state.rotor_angle[h], jointAngle(model, state, h));
    } else if (model.hinge_armature[h] > 0.0) {
      const double rate = jointVelocity(model, state, h);
      e.kinetic += 0.5 * model.hinge_armature[h] * rate * rate;
    }
  }
  // Suit bands are springs too: 0.5 k (l - l0)^2 while taut, A(25).
  // Straps too: 0.5 k |p_a - p_b|^2.
  e.spring += detail::springPotentialEnergy(model, state) + detail::bandPotentialEnergy(model, state) +
             detail::strapPotentialEnergy(model, state);
  e.contact = detail::contactPotentialEnergy(model, state);
  return e;
}

void computeMomentum(const Model& model, const State& state, Vec3* linear, Vec3* angular) {
  Vec3 l{0.0, 0.0, 0.0}, h{0.0, 0.0, 0.0};
  for (int i = 0; i < model.num_particles; ++i) {
    const double m = model.particle_mass[i];
    const Vec3 p = state.position.get(i);
    const Vec3 v = state.velocity.get(i);
    for (int k = 0; k < 3; ++k) l[k] += m * v[k];
    h[0] += m * (p[1] * v[2] - p[2] * v[1]);
    h[1] += m * (p[2] * v[0] - p[0] * v[2]);
    h[2] += m * (p[0] * v[1] - p[1] * v[0]);
  }
  *linear = l;
  *angular = h;
}

double maxNaturalFrequency(const Model& model) {
  // Row sums of M^-1 K: each spring adds k to both ends' diagonal and k off it.
  std::vector<double> stiffness_sum(model.num_particles, 0.0);
  for (int s = 0; s < model.num_springs; ++s) {
    stiffness_sum[model.spring_a[s]] += model.spring_stiffness[s];
    stiffness_sum[model.spring_b[s]] += model.spring_stiffness[s];
  }
  // A strap on a body that has no hinges acts on its particles by its weights.
  std::vector<std::uint8_t> hinged(model.num_bodies, 0);
  if (model.hinge_link_model == LinkModel::kRigid) {
    for (int h = 0; h < model.num_hinges; ++h) hinged[model.hinge_parent_body[h]] = hinged[model.hinge_child_body[h]] = 1;
  }
  for (int s = 0; s < model.num_straps; ++s) {
    for (const auto& [b, w] : {std::pair{model.strap_body_a[s], model.strap_weight_a[s]},
                               std::pair{model.strap_body_b[s], model.strap_weight_b[s]}}) {
      if (hinged[b]) continue;
      for (int j = 0; j < 4; ++j) stiffness_sum[model.body_particle_begin[b] + j] += std::abs(w[j]) * model.strap_stiffness[s];
    }
  }
  double bound = 0.0;
  for (int i = 0; i < model.num_particles; ++i) {
    bound = std::max(bound, 2.0 * stiffness_sum[i] * model.particle_inv_mass[i]);
  }
  const double k = std::max(model.ground.stiffness, model.ground.friction_stiffness);
  // A hinged body moves as a rigid body (hinges.cpp): its contacts act on
  // its six rigid degrees of freedom, not on its particles (whose springs
  // only hold the shape). The highest frequency of the body alone on its
  // contact springs, from K v = omega^2 M v with M = diag(m, m, m, I), bounds
  // the robot's: hinges only constrain the bodies further.
  const Eigen::Vector3d normal(model.ground.normal[0], model.ground.normal[1], model.ground.normal[2]);
  const Eigen::Matrix3d contact_stiffness =
      model.ground.stiffness * normal * normal.transpose() +
      model.ground.friction_stiffness * (Eigen::Matrix3d::Identity() - normal * normal.transpose());
  std::vector<std::uint8_t> rigid(model.num_bodies, 0);
  // With link springs (LinkModel::kSprings) the contacts act on the
  // particles by their weights, as on a body without hinges.
  if (model.hinge_link_model == LinkModel::kRigid) {
    for (int h = 0; h < model.num_hinges; ++h) rigid[model.hinge_parent_body[h]] = rigid[model.hinge_child_body[h]] = 1;
  }
  std::vector<std::uint8_t> on_rigid(model.numContacts(), 0);
  for (int b = 0; b < model.num_bodies; ++b) {
    if (!rigid[b]) continue;
    double mass = 0.0;
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    bool free = true;
    for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) {
      const Vec3 p = model.particle_initial_position.get(i);
      mass += model.particle_mass[i];
      c += model.particle_mass[i] * Eigen::Vector3d(p[0], p[1], p[2]);
      free = free && model.particle_inv_mass[i] > 0.0;
    }
    if (!free) continue;  // a body with a fixed particle does not move
    c /= mass;
    Eigen::Matrix<double, 6, 6> inertia = Eigen::Matrix<double, 6, 6>::Zero();
    inertia.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
    for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) {
      const Vec3 p = model.particle_initial_position.get(i);
      const Eigen::Vector3d r = Eigen::Vector3d(p[0], p[1], p[2]) - c;
      inertia.bottomRightCorner<3, 3>() +=
          model.particle_mass[i] * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
    }
    // A contact at r moves with v + w x r = [1, -[r]x] (v, w).
    Eigen::Matrix<double, 6, 6> stiffness = Eigen::Matrix<double, 6, 6>::Zero();
    bool any = false;
    for (int ct = 0; ct < model.numContacts(); ++ct) {
      if (model.particle_body[model.contact_particle[ct][0]] != b) continue;
      Eigen::Vector3d point = Eigen::Vector3d::Zero();
      for (int j = 0; j < 4; ++j) {
        const Vec3 p = model.particle_initial_position.get(model.contact_particle[ct][j]);
        point += model.contact_weight[ct][j] * Eigen::Vector3d(p[0], p[1], p[2]);
      }
      const Eigen::Vector3d r = point - c;
      Eigen::Matrix<double, 3, 6> jacobian;
      jacobian.leftCols<3>() = Eigen::Matrix3d::Identity();
      jacobian.rightCols<3>() << 0.0, r.z(), -r.y(), -r.z(), 0.0, r.x(), r.y(), -r.x(), 0.0;
      stiffness += jacobian.transpose() * contact_stiffness * jacobian;
      on_rigid[ct] = 1;
      any = true;
    }
    // A strap ties the body to another that moves too: its spring counts
    // twice, as a spring between two bodies bounds their relative mode by
    // twice the larger of the two grounded ones (Gershgorin).
    for (int s = 0; s < model.num_straps; ++s) {
      for (const auto& [sb, w] : {std::pair{model.strap_body_a[s], model.strap_weight_a[s]},
                                  std::pair{model.strap_body_b[s], model.strap_weight_b[s]}}) {
        if (sb != b) continue;
        Eigen::Vector3d point = Eigen::Vector3d::Zero();
        for (int j = 0; j < 4; ++j) {
          const Vec3 p = model.particle_initial_position.get(model.body_particle_begin[b] + j);
          point += w[j] * Eigen::Vector3d(p[0], p[1], p[2]);
        }
        const Eigen::Vector3d r = point - c;
        Eigen::Matrix<double, 3, 6> jacobian;
        jacobian.leftCols<3>() = Eigen::Matrix3d::Identity();
        jacobian.rightCols<3>() << 0.0, r.z(), -r.y(), -r.z(), 0.0, r.x(), r.y(), -r.x(), 0.0;
        stiffness += 2.0 * model.strap_stiffness[s] * jacobian.transpose() * jacobian;
        any = true;
      }
    }
    if (!any) continue;
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>> modes(stiffness, inertia,
                                                                                     Eigen::EigenvaluesOnly);
    bound = std::max(bound, modes.eigenvalues().maxCoeff());
  }
  // Elsewhere a contact point's stiffness acts on the inverse mass sum w_i^2 / m_i of its particles.
  for (int c = 0; c < model.numContacts(); ++c) {
    if (on_rigid[c]) continue;
    double inv_mass = 0.0, row = 0.0;
    for (int j = 0; j < 4; ++j) {
      const int i = model.contact_particle[c][j];
      const double w = model.contact_weight[c][j];
      inv_mass += w * w * model.particle_inv_mass[i];
      row = std::max(row, 2.0 * stiffness_sum[i] * model.particle_inv_mass[i]);
    }
    bound = std::max(bound, row + k * inv_mass);
  }
  return std::sqrt(bound);
}

bool stateIsFinite(const State& state) {
  const Vec3Array* arrays[] = {&state.position, &state.velocity};
  for (const Vec3Array* a : arrays) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (!std::isfinite(a->x[i]) || !std::isfinite(a->y[i]) || !std::isfinite(a->z[i])) return false;
    }
  }
  return true;
}

}  // namespace suitsim
