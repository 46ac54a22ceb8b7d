// Pushes and the balance assist of seed 003 (16)-(20) (balance_assist.h).
#include "suitsim/balance_assist.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "suitsim/step.h"

namespace suitsim {

namespace {
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
}  // namespace

BodyForcePoint bodyForcePoint(const Model& model, int body, const Vec3& point_body) {
  if (body < 0 || body >= model.num_bodies || model.body_particle_end[body] - model.body_particle_begin[body] != 4) {
    throw std::invalid_argument("bodyForcePoint: body " + std::to_string(body) + " is not a body of four particles");
  }
  BodyForcePoint p;
  p.first_particle = model.body_particle_begin[body];
  // Affine coordinates of the point in the body's tetrahedron (body frame),
  // as the robot compiler places contacts and via points.
  Eigen::Vector3d t[4];
  for (int k = 0; k < 4; ++k) {
    const Vec3 x = model.particle_body_position.get(p.first_particle + k);
    t[k] = Eigen::Vector3d(x[0], x[1], x[2]);
  }
  Eigen::Matrix3d E;
  E << t[1] - t[0], t[2] - t[0], t[3] - t[0];
  const Eigen::Vector3d w = E.partialPivLu().solve(Eigen::Vector3d(point_body[0], point_body[1], point_body[2]) - t[0]);
  p.w = {1.0 - w.sum(), w[0], w[1], w[2]};
  return p;
}

ExternalForces::ExternalForces(const Model& model, double dt, std::vector<PushSpec> pushes,
                               const BalanceAssistSpec* assist)
    : dt_(dt), pushes_(std::move(pushes)) {
  if (assist) {
    has_assist_ = true;
    assist_ = *assist;
    if (!(assist_.rate_hz > 0.0)) throw std::invalid_argument("balance assist: the rate must be > 0");
    every_ = std::max(1L, std::lround(1.0 / (assist_.rate_hz * dt)));
  }
  for (const PushSpec& p : pushes_) {
    for (int k = 0; k < 4; ++k) touched_.push_back(p.at.first_particle + k);
  }
  if (has_assist_) {
    for (int k = 0; k < 4; ++k) touched_.push_back(assist_.at.first_particle + k);
  }
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  const std::size_t n = static_cast<std::size_t>(model.numContacts());
  points_.reserve(n);
  polygon_.vertices.reserve(2 * n);
  work_.reserve(4 * n + 4);
  region_.vertices.reserve(4 * n + 4);
}

void ExternalForces::add(State& state, const BodyForcePoint& at, const Vec3& f) {
  for (int k = 0; k < 4; ++k) {
    const int i = at.first_particle + k;
    state.applied_force.x[i] += at.w[k] * f[0];
    state.applied_force.y[i] += at.w[k] * f[1];
    state.applied_force.z[i] += at.w[k] * f[2];
  }
}

void ExternalForces::control(const Model& model, const State& state) {
  const GroundModel& g = model.ground;
  const Centroidal c = centroidal(model, state);
  const BalancePoints p = tracker_.update(model, c, state.time);
  outside_ = false;
  if (!std::isfinite(p.omega)) {
    command_ = {0.0, 0.0, 0.0};  // no ground, airborne or fallen: nothing to steer
    return;
  }
  const double omega = p.omega, omega_rate = p.omega_rate;
  footprintPolygon(model, state, points_, polygon_);
  shrinkPolygon(polygon_, assist_.margin, work_, region_);
  const Eigen::Vector2d xi_g = groundCoordinates(g, p.dcm);
  if (region_.empty() || polygonMargin(region_, xi_g) >= 0.0) {
    // Inside the balance region (or no region to return to): no assist.
    command_ = {0.0, 0.0, 0.0};
    return;
  }
  outside_ = true;
  // ξ_d: the region's nearest point at the DCM's height.
  const Eigen::Vector2d shift = closestPointInPolygon(region_, xi_g) - xi_g;
  Vec3 xi_d = p.dcm;
  for (int k = 0; k < 3; ++k) xi_d[k] += shift.x() * g.tangent_u[k] + shift.y() * g.tangent_v[k];
  const double stiffness = omega * omega - omega_rate;  // omega² - omega', (12)-(13)
  const double rate = omega - omega_rate / omega;       // omega - omega'/omega, (16)
  if (!(stiffness > 0.0) || !(rate > 0.0)) return;     // hold the last command
  Vec3 target{};
  const Vec3 ground = totalGroundForce(model, state);
  for (int k = 0; k < 3; ++k) {
    const double v_r = p.dcm[k] - assist_.kp * (xi_d[k] - p.dcm[k]) / rate;  // (17), ξ̇_d = 0
    const double wanted = c.mass * stiffness * (c.com[k] - v_r);           // m c̈_d, from (13)
    target[k] = assist_.law == BalanceAssistSpec::Law::kForce
                    ? wanted - c.mass * model.gravity[k] - ground[k]                // (19)
                    : command_[k] + wanted - c.mass * c.com_acceleration[k];       // (20), the missing force
  }
  // The device's force limit, by magnitude (the direction kept).
  const double norm = std::sqrt(dot(target, target));
  const double scale = norm > assist_.max_force ? assist_.max_force / norm : 1.0;
  for (int k = 0; k < 3; ++k) command_[k] = scale * target[k];
}

void ExternalForces::update(const Model& model, State& state) {
  if (has_assist_ && count_++ % every_ == 0) control(model, state);
  for (int i : touched_) {
    state.applied_force.x[i] = 0.0;
    state.applied_force.y[i] = 0.0;
    state.applied_force.z[i] = 0.0;
  }
  // Pushes act on [start, start + duration): the step from t to t + dt.
  for (const PushSpec& p : pushes_) {
    if (state.time + 0.5 * dt_ >= p.start && state.time + 0.5 * dt_ < p.start + p.duration) add(state, p.at, p.force);
  }
  if (!has_assist_) return;
  // The device's lag: a first-order response of bandwidth f_c, exact over a step.
  const double alpha = 1.0 - std::exp(-2.0 * M_PI * assist_.bandwidth_hz * dt_);
  for (int k = 0; k < 3; ++k) applied_[k] += alpha * (command_[k] - applied_[k]);
  add(state, assist_.at, applied_);
  const double magnitude = std::sqrt(dot(applied_, applied_));
  peak_ = std::max(peak_, magnitude);
  impulse_ += magnitude * dt_;
  if (outside_) time_outside_ += dt_;
}

}  // namespace suitsim
