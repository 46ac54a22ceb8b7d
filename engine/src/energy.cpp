#include <algorithm>
#include <cmath>
#include <vector>

#include "bands.h"
#include "forces.h"

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
  // Suit bands are springs too: 0.5 k (l - l0)^2 while taut, A(25).
  e.spring = detail::springPotentialEnergy(model, state) + detail::bandPotentialEnergy(model, state);
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
  double bound = 0.0;
  for (int i = 0; i < model.num_particles; ++i) {
    bound = std::max(bound, 2.0 * stiffness_sum[i] * model.particle_inv_mass[i]);
  }
  // A contact point's stiffness acts on the inverse mass sum w_i^2 / m_i of its particles.
  for (int c = 0; c < model.numContacts(); ++c) {
    const double k = std::max(model.ground.stiffness, model.ground.friction_stiffness);
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
