// Centroidal motion and balance points of the model (centroidal.h).
#include "suitsim/centroidal.h"

#include <cmath>
#include <limits>

#include "suitsim/step.h"

namespace suitsim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// World position of contact c: the affine combination of its particles.
Vec3 contactPoint(const Model& model, const State& state, int c) {
  Vec3 p{0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    const int i = model.contact_particle[c][k];
    const double w = model.contact_weight[c][k];
    p[0] += w * state.position.x[i];
    p[1] += w * state.position.y[i];
    p[2] += w * state.position.z[i];
  }
  return p;
}

}  // namespace

Centroidal centroidal(const Model& model, const State& state) {
  Centroidal c;
  Vec3 moment{0.0, 0.0, 0.0}, momentum{0.0, 0.0, 0.0};
  for (int i = 0; i < model.num_particles; ++i) {
    if (model.particle_fixed[i]) continue;
    const double m = model.particle_mass[i];
    c.mass += m;
    moment[0] += m * state.position.x[i];
    moment[1] += m * state.position.y[i];
    moment[2] += m * state.position.z[i];
    momentum[0] += m * state.velocity.x[i];
    momentum[1] += m * state.velocity.y[i];
    momentum[2] += m * state.velocity.z[i];
    c.external_force[0] += model.particle_force_x[i] + state.applied_force.x[i];
    c.external_force[1] += model.particle_force_y[i] + state.applied_force.y[i];
    c.external_force[2] += model.particle_force_z[i] + state.applied_force.z[i];
  }
  if (!(c.mass > 0.0)) return Centroidal{};
  const Vec3 ground = totalGroundForce(model, state);
  for (int k = 0; k < 3; ++k) {
    c.com[k] = moment[k] / c.mass;
    c.com_velocity[k] = momentum[k] / c.mass;
    c.external_force[k] += ground[k];
    c.com_acceleration[k] = c.external_force[k] / c.mass + model.gravity[k];
  }
  return c;
}

bool centreOfPressure(const Model& model, const State& state, Vec3* cop) {
  const GroundModel& g = model.ground;
  if (!g.enabled) return false;
  // For contact i at height h_i (negative when it sinks in) with normal
  // force N_i and tangential force f_t,i, the moment about a point r of the
  // plane has no in-plane part when
  //   sum N_i (p_i' - r) = sum h_i f_t,i      (p_i' the projection of p_i)
  // so r = (sum N_i p_i' - sum h_i f_t,i) / sum N_i.
  double total_normal = 0.0;
  Vec3 weighted{0.0, 0.0, 0.0};
  for (int c = 0; c < model.numContacts(); ++c) {
    const Vec3 f = groundForce(model, state, c);
    const double normal = dot(f, g.normal);
    if (!(normal > 0.0)) continue;
    const Vec3 p = contactPoint(model, state, c);
    const double h = dot(p, g.normal) - g.offset;
    for (int k = 0; k < 3; ++k) {
      const double projected = p[k] - h * g.normal[k];
      const double tangential = f[k] - normal * g.normal[k];
      weighted[k] += normal * projected - h * tangential;
    }
    total_normal += normal;
  }
  if (!(total_normal > 0.0)) return false;
  for (int k = 0; k < 3; ++k) (*cop)[k] = weighted[k] / total_normal;
  return true;
}

Eigen::Vector2d groundCoordinates(const GroundModel& ground, const Vec3& p) {
  return {dot(ground.tangent_u, p), dot(ground.tangent_v, p)};
}

void supportPolygon(const Model& model, const State& state, std::vector<Eigen::Vector2d>& scratch,
                    SupportPolygon& polygon) {
  scratch.clear();
  polygon.vertices.clear();
  const GroundModel& g = model.ground;
  if (!g.enabled) return;
  for (int c = 0; c < model.numContacts(); ++c) {
    // A contact supports while the ground pushes on it; one that merely
    // grazes the plane, or is being pulled off it, does not.
    if (dot(groundForce(model, state, c), g.normal) > 0.0) {
      scratch.push_back(groundCoordinates(g, contactPoint(model, state, c)));
    }
  }
  if (!scratch.empty()) convexHull(scratch, polygon);
}

void footprintPolygon(const Model& model, const State& state, std::vector<Eigen::Vector2d>& scratch,
                      SupportPolygon& polygon) {
  scratch.clear();
  polygon.vertices.clear();
  const GroundModel& g = model.ground;
  if (!g.enabled) return;
  const auto bodyOf = [&](int c) { return model.particle_body[model.contact_particle[c][0]]; };
  for (int c = 0; c < model.numContacts(); ++c) {
    // Is some contact of c's body pushed by the ground? (Contacts per body
    // are few; a quadratic scan allocates nothing.)
    bool touches = false;
    for (int d = 0; d < model.numContacts() && !touches; ++d) {
      touches = bodyOf(d) == bodyOf(c) && dot(groundForce(model, state, d), g.normal) > 0.0;
    }
    if (touches) scratch.push_back(groundCoordinates(g, contactPoint(model, state, c)));
  }
  if (!scratch.empty()) convexHull(scratch, polygon);
}

BalancePoints BalanceTracker::update(const Model& model, const Centroidal& c, double time) {
  const GroundModel& g = model.ground;
  const double omega = g.enabled && c.mass > 0.0 ? pendulumFrequency(dot(c.com, g.normal) - g.offset,
                                                                      dot(c.com_acceleration, g.normal),
                                                                      -dot(model.gravity, g.normal))
                                                 : kNaN;
  const double omega_rate =
      has_previous_ && time > previous_time_ ? (omega - previous_omega_) / (time - previous_time_) : 0.0;
  previous_time_ = time;
  previous_omega_ = omega;
  has_previous_ = true;
  if (!std::isfinite(omega)) {
    BalancePoints none;
    none.omega = kNaN;
    none.omega_rate = omega_rate;
    none.dcm = none.vrp = none.ecmp = Vec3{kNaN, kNaN, kNaN};
    return none;
  }
  return balancePoints(c, model.gravity, g.normal, g.offset, omega_rate);
}

}  // namespace suitsim
