// Ground contact: penalty normal force and anchor (stick-slip) friction.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "run_helpers.h"
#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

constexpr double kG = 9.81;

GroundModel ground(double k, double c, double mu_s, double mu_k, Vec3 normal = {0, 0, 1}) {
  return testing::groundModel(k, c, mu_s, mu_k, normal);
}

TEST(Contact, RestingParticleSinksByWeightOverStiffness) {
  const double m = 2.0, k = 1e4;
  ModelBuilder b;
  b.setGround(ground(k, 50.0, 0.5, 0.4));
  b.addParticle({.name = "p", .position = {0, 0, 0.01}, .mass = m});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-4, 5.0);
  EXPECT_NEAR(-state.position.z[0], m * kG / k, 1e-6 * m * kG / k);
  EXPECT_NEAR(state.velocity.z[0], 0.0, 1e-9);
}

TEST(Contact, SlidingParticleStopsAfterKineticDistance) {
  // v0^2 / (2 mu_k g): 1 m/s at mu_k = 0.25 stops after 0.2039 m.
  const double v0 = 1.0, mu_k = 0.25;
  ModelBuilder b;
  b.setGround(ground(1e5, 200.0, 0.4, mu_k));
  const double m = 1.0;
  b.addParticle({.name = "p", .position = {0, 0, -m * kG / 1e5}, .velocity = {v0, 0, 0}, .mass = m});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 1.0);
  EXPECT_NEAR(state.position.x[0], v0 * v0 / (2.0 * mu_k * kG), 0.01 * v0 * v0 / (2.0 * mu_k * kG));
  EXPECT_NEAR(state.velocity.x[0], 0.0, 1e-6);
}

TEST(Contact, PushBelowStaticLimitSticksAboveItSlides) {
  // A horizontal push F on a resting particle: F < mu_s m g holds (only the
  // anchor spring's elastic deflection F / k_t), F > mu_s m g slides with
  // acceleration (F - mu_k m g) / m. The anchor is critically damped, so its
  // spring force does not overshoot the suddenly applied push.
  const double m = 1.0, mu_s = 0.5, mu_k = 0.3, k = 1e5;
  const double critical = 2.0 * std::sqrt(k * m);
  for (const double ratio : {0.9, 1.2}) {
    const double push = ratio * mu_s * m * kG;
    ModelBuilder b;
    b.setGround(ground(k, critical, mu_s, mu_k));
    b.addParticle({.name = "p", .position = {0, 0, -m * kG / k}, .mass = m, .force = {push, 0, 0}});
    const Model model = b.build();
    State state = makeState(model);
    Workspace ws(model);
    testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 0.5);
    const double x_half = state.position.x[0];
    const double v_half = state.velocity.x[0];
    testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 0.5);
    if (ratio < 1.0) {
      EXPECT_NEAR(state.position.x[0], push / k, 1e-3 * push / k) << "sticking contact must not creep";
      EXPECT_NEAR(state.position.x[0], x_half, 1e-9);
    } else {
      const double accel = (state.velocity.x[0] - v_half) / 0.5;
      EXPECT_NEAR(accel, (push - mu_k * m * kG) / m, 0.01 * (push - mu_k * m * kG) / m);
    }
  }
}

// A stiff 3 x 3 plate of particles laid on a plane tilted by `slope`, each
// particle sunk to its static depth so the normal forces start balanced (a
// block dropped from above would start with zero normal force, and so with a
// zero friction cone). A plate keeps the load shared equally: a tall block
// would shift load downhill and let its uphill contacts break loose first.
// Returns how far the plate moved along the slope from t = 0.5 s to 1.5 s and
// its mean acceleration along the slope over that second.
double plateSlideOnSlope(double slope, double mu_s, double mu_k, double* accel) {
  const Vec3 normal{-std::sin(slope), 0.0, std::cos(slope)};
  const Vec3 uphill{std::cos(slope), 0.0, std::sin(slope)};  // unit tangent in the x-z plane
  const double k = 2e4, mass = 1.0, particle_mass = mass / 9.0;
  const double critical = 2.0 * std::sqrt(k * particle_mass);
  ModelBuilder b;
  b.setGround(ground(k, critical, mu_s, mu_k, normal));
  b.addBlock({.name = "plate", .origin = {0, 0, 0}, .nx = 3, .ny = 3, .nz = 1, .spacing = 0.05, .mass = mass,
              .stiffness = 2e4, .damping = 2.0});
  const Model model = b.build();
  State state = makeState(model);
  const double sink = particle_mass * kG * std::cos(slope) / k;
  for (int i = 0; i < model.num_particles; ++i) {
    const Vec3 p = state.position.get(i);
    state.position.set(i, {p[0] * uphill[0] - sink * normal[0], p[1], p[0] * uphill[2] - sink * normal[2]});
  }
  Workspace ws(model);
  auto mean_along = [&](const Vec3Array& a) {
    double sum = 0.0;
    for (int i = 0; i < model.num_particles; ++i) sum += a.x[i] * uphill[0] + a.z[i] * uphill[2];
    return sum / model.num_particles;
  };
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 2e-5, 0.5);
  const double s0 = mean_along(state.position), v0 = mean_along(state.velocity);
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 2e-5, 1.0);
  *accel = std::abs(mean_along(state.velocity) - v0);
  return std::abs(mean_along(state.position) - s0);
}

TEST(Contact, PlateOnSlopeSticksBelowStaticAngleAndSlidesAbove) {
  const double mu_s = 0.5, mu_k = 0.4;
  double accel = 0.0;
  // tan(slope) = 0.45: between mu_k and mu_s, so a plate at rest stays.
  const double moved = plateSlideOnSlope(std::atan(0.45), mu_s, mu_k, &accel);
  EXPECT_LT(moved, 1e-9) << "plate crept " << moved << " m";
  EXPECT_LT(accel, 1e-6);
  // tan(slope) = 0.55 > mu_s: it slides with g (sin - mu_k cos).
  const double steep = std::atan(0.55);
  plateSlideOnSlope(steep, mu_s, mu_k, &accel);
  const double expected = kG * (std::sin(steep) - mu_k * std::cos(steep));
  EXPECT_NEAR(accel, expected, 0.01 * expected);
}

TEST(Contact, GroundPushesButNeverPulls) {
  // A particle leaving the ground fast with heavy damping: the damper would
  // pull it back if the normal force were allowed to go negative.
  ModelBuilder b;
  b.setGravity({0, 0, 0});
  b.setGround(ground(1e4, 1e3, 0.0, 0.0));
  b.addParticle({.name = "p", .position = {0, 0, -1e-3}, .velocity = {0, 0, 5.0}, .mass = 1.0});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  double min_vz = 5.0;
  testing::runFor(model, state, ws, Integrator::kRk4, 1e-5, 0.01,
                  [&](const State& s) { min_vz = std::min(min_vz, s.velocity.z[0]); });
  EXPECT_GE(min_vz, 5.0 - 1e-12);
}

}  // namespace
}  // namespace suitsim
