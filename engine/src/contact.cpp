#include <algorithm>
#include <cmath>

#include "forces.h"
#include "kernel_layout.h"

namespace suitsim::detail {

namespace {

/// What the ground does to one contact particle at a phase point.
struct ContactForce {
  double depth = 0.0;    // penetration (m), > 0 when touching
  double normal = 0.0;   // normal force N >= 0 (N)
  double elastic_u = 0.0;  // anchor spring force, -k_t d (N)
  double elastic_v = 0.0;
  double trial_u = 0.0;    // anchor spring plus damper, before the cone (N)
  double trial_v = 0.0;
  double slip_u = 0.0;   // tangential velocity (m/s)
  double slip_v = 0.0;
  double pos_u = 0.0;    // tangential position (m)
  double pos_v = 0.0;
};

inline ContactForce evaluateContact(const Model& model, const PhasePoint& x, int c, bool anchored,
                                    double anchor_u, double anchor_v) {
  const GroundModel& g = model.ground;
  ContactForce f;
  // The contact point: a weighted sum of up to four particles.
  double p[3] = {0.0, 0.0, 0.0}, v[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    const int i = model.contact_particle[c][k];
    const double w = model.contact_weight[c][k];
    p[0] += w * x.px[i];
    p[1] += w * x.py[i];
    p[2] += w * x.pz[i];
    v[0] += w * x.vx[i];
    v[1] += w * x.vy[i];
    v[2] += w * x.vz[i];
  }
  f.depth = g.offset - (g.normal[0] * p[0] + g.normal[1] * p[1] + g.normal[2] * p[2]);
  if (f.depth <= 0.0) return f;
  const double vn = g.normal[0] * v[0] + g.normal[1] * v[1] + g.normal[2] * v[2];
  // The ground pushes and never pulls: damping may not make N negative.
  f.normal = std::max(0.0, g.stiffness * f.depth - g.damping * vn);
  f.pos_u = g.tangent_u[0] * p[0] + g.tangent_u[1] * p[1] + g.tangent_u[2] * p[2];
  f.pos_v = g.tangent_v[0] * p[0] + g.tangent_v[1] * p[1] + g.tangent_v[2] * p[2];
  f.slip_u = g.tangent_u[0] * v[0] + g.tangent_u[1] * v[1] + g.tangent_u[2] * v[2];
  f.slip_v = g.tangent_v[0] * v[0] + g.tangent_v[1] * v[1] + g.tangent_v[2] * v[2];
  const double du = anchored ? f.pos_u - anchor_u : 0.0;
  const double dv = anchored ? f.pos_v - anchor_v : 0.0;
  f.elastic_u = -g.friction_stiffness * du;
  f.elastic_v = -g.friction_stiffness * dv;
  f.trial_u = f.elastic_u - g.friction_damping * f.slip_u;
  f.trial_v = f.elastic_v - g.friction_damping * f.slip_v;
  return f;
}

}  // namespace

// The ground's force on contact c at phase point x (world axes).
Vec3 contactForce(const Model& model, const State& state, const PhasePoint& x, int c) {
  const GroundModel& g = model.ground;
  const ContactForce f = evaluateContact(model, x, c, state.anchor_active[c] != 0, state.anchor_u[c], state.anchor_v[c]);
  if (f.depth <= 0.0) return {0.0, 0.0, 0.0};
  // Coulomb cone. A sticking contact breaks loose when its anchor spring
  // (the elastic part, as in bristle models) exceeds mu_s N; the damper is
  // a regulariser and only clips at the cone. A sliding contact is held to
  // mu_k N, along the spring-damper's direction.
  const bool slipping = state.contact_sliding[c] || std::hypot(f.elastic_u, f.elastic_v) > g.mu_static * f.normal;
  const double limit = (slipping ? g.mu_kinetic : g.mu_static) * f.normal;
  const double trial = std::hypot(f.trial_u, f.trial_v);
  double fu = f.trial_u, fv = f.trial_v;
  if (trial > limit) {
    const double s = limit / trial;
    fu *= s;
    fv *= s;
  }
  return {f.normal * g.normal[0] + fu * g.tangent_u[0] + fv * g.tangent_v[0],
          f.normal * g.normal[1] + fu * g.tangent_u[1] + fv * g.tangent_v[1],
          f.normal * g.normal[2] + fu * g.tangent_u[2] + fv * g.tangent_v[2]};
}

void addContactForces(const Model& model, const State& state, const PhasePoint& x, Vec3Array& force) {
  if (!model.ground.enabled) return;
  const int nc = model.numContacts();
  auto apply = [&](int c) {
    const Vec3 f = contactForce(model, state, x, c);
    for (int k = 0; k < 4; ++k) {
      const int i = model.contact_particle[c][k];
      const double w = model.contact_weight[c][k];
      force.x[i] += w * f[0];
      force.y[i] += w * f[1];
      force.z[i] += w * f[2];
    }
  };
  if (model.kernel->contacts_share_particles) {
    // Points on one body share particles: one thread, in contact order.
#pragma omp single
    for (int c = 0; c < nc; ++c) apply(c);
  } else {
#pragma omp for schedule(static)
    for (int c = 0; c < nc; ++c) apply(c);
  }
}

void updateContactAnchors(const Model& model, State& state, const PhasePoint& x) {
  const GroundModel& g = model.ground;
  if (!g.enabled) return;
  const int nc = model.numContacts();
  for (int c = 0; c < nc; ++c) {
    const bool anchored = state.anchor_active[c] != 0;
    const ContactForce f = evaluateContact(model, x, c, anchored, state.anchor_u[c], state.anchor_v[c]);
    if (f.depth <= 0.0) {
      state.anchor_active[c] = 0;
      state.contact_sliding[c] = 0;
      continue;
    }
    if (!anchored) {
      // First touch: anchor where the particle is, sticking.
      state.anchor_active[c] = 1;
      state.contact_sliding[c] = 0;
      state.anchor_u[c] = f.pos_u;
      state.anchor_v[c] = f.pos_v;
      continue;
    }
    const double elastic = std::hypot(f.elastic_u, f.elastic_v);
    const double slip_speed = std::hypot(f.slip_u, f.slip_v);
    bool sliding = state.contact_sliding[c] != 0;
    if (sliding && slip_speed < g.stick_speed && elastic <= g.mu_static * f.normal) sliding = false;
    if (!sliding && elastic > g.mu_static * f.normal) sliding = true;
    state.contact_sliding[c] = sliding ? 1 : 0;
    if (!sliding || g.friction_stiffness <= 0.0) continue;
    // Drag the anchor so that its spring alone carries the kinetic force.
    const double du = f.pos_u - state.anchor_u[c];
    const double dv = f.pos_v - state.anchor_v[c];
    const double d = std::hypot(du, dv);
    const double d_max = g.mu_kinetic * f.normal / g.friction_stiffness;
    if (d > d_max && d > 0.0) {
      state.anchor_u[c] = f.pos_u - du * (d_max / d);
      state.anchor_v[c] = f.pos_v - dv * (d_max / d);
    }
  }
}

double contactPotentialEnergy(const Model& model, const State& state) {
  const GroundModel& g = model.ground;
  if (!g.enabled) return 0.0;
  double energy = 0.0;
  const PhasePoint x = phasePoint(state.position, state.velocity);
  for (int c = 0; c < model.numContacts(); ++c) {
    const bool anchored = state.anchor_active[c] != 0;
    const ContactForce f = evaluateContact(model, x, c, anchored, state.anchor_u[c], state.anchor_v[c]);
    if (f.depth <= 0.0) continue;
    energy += 0.5 * g.stiffness * f.depth * f.depth;
    if (anchored) {
      const double du = f.pos_u - state.anchor_u[c];
      const double dv = f.pos_v - state.anchor_v[c];
      energy += 0.5 * g.friction_stiffness * (du * du + dv * dv);
    }
  }
  return energy;
}

}  // namespace suitsim::detail

namespace suitsim {

Vec3 groundForce(const Model& model, const State& state, int contact) {
  if (!model.ground.enabled) return {0.0, 0.0, 0.0};
  return detail::contactForce(model, state, detail::phasePoint(state.position, state.velocity), contact);
}

Vec3 totalGroundForce(const Model& model, const State& state) {
  Vec3 total{0.0, 0.0, 0.0};
  for (int c = 0; c < model.numContacts(); ++c) {
    const Vec3 f = groundForce(model, state, c);
    for (int k = 0; k < 3; ++k) total[k] += f[k];
  }
  return total;
}

}  // namespace suitsim
