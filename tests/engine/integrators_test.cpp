// Integrator orders and exactness, and the stiff-spring pendulum.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "run_helpers.h"
#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

constexpr double kPi = std::numbers::pi;

// Error at t = 1 s of an undamped oscillator (omega = 10 rad/s) against cos(omega t).
double oscillatorError(Integrator integrator, double dt) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  b.addParticle({.name = "anchor", .position = {0, 0, 0}, .mass = 1.0, .fixed = true});
  b.addParticle({.name = "bob", .position = {1.1, 0, 0}, .mass = 1.0});
  b.addSpring({0, 1, 100.0, 0.0, 1.0});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  testing::runFor(model, state, ws, integrator, dt, 1.0);
  return std::abs(state.position.x[1] - 1.0 - 0.1 * std::cos(10.0 * state.time));
}

TEST(Integrators, ConvergenceOrders) {
  struct Case {
    Integrator integrator;
    double order;
  };
  for (const Case c : {Case{Integrator::kSemiImplicitEuler, 1.0}, Case{Integrator::kVelocityVerlet, 2.0},
                       Case{Integrator::kRk4, 4.0}, Case{Integrator::kPositionVerlet, 2.0}}) {
    const double e1 = oscillatorError(c.integrator, 1e-3);
    const double e2 = oscillatorError(c.integrator, 0.5e-3);
    const double observed = std::log2(e1 / e2);
    EXPECT_NEAR(observed, c.order, 0.25) << integratorName(c.integrator) << " errors " << e1 << " " << e2;
  }
}

TEST(Integrators, FreeFallIsExactForVerletAndRk4) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, -9.81});
  b.addParticle({.name = "p", .position = {0, 0, 10}, .velocity = {1.0, 0, 2.0}, .mass = 2.0});
  const Model model = b.build();
  for (Integrator integrator : {Integrator::kVelocityVerlet, Integrator::kRk4, Integrator::kPositionVerlet}) {
    State state = makeState(model);
    Workspace ws(model);
    testing::runFor(model, state, ws, integrator, 1e-3, 1.0);
    const double t = state.time;
    EXPECT_NEAR(state.position.z[0], 10.0 + 2.0 * t - 0.5 * 9.81 * t * t, 1e-10) << integratorName(integrator);
    EXPECT_NEAR(state.position.x[0], 1.0 * t, 1e-12);
    EXPECT_NEAR(state.velocity.z[0], 2.0 - 9.81 * t, 1e-10);
  }
}

TEST(Pendulum, StiffSpringSmallAnglePeriodMatchesTwoPiSqrtLOverG) {
  // A 1 kg bob on a 1 m spring of 1e6 N/m (static stretch 1e-5 m) released
  // at 5 degrees behaves as a simple pendulum.
  const double l = 1.0, g = 9.81, theta0 = 5.0 * kPi / 180.0;
  ModelBuilder b;
  b.setGravity({0.0, 0.0, -g});
  b.addParticle({.name = "pivot", .position = {0, 0, 0}, .mass = 1.0, .fixed = true});
  b.addParticle({.name = "bob", .position = {l * std::sin(theta0), 0, -l * std::cos(theta0)}, .mass = 1.0});
  b.addSpring({0, 1, 1e6, 0.0, l});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  testing::ZeroCrossings crossings;
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-4, 12.0,
                  [&](const State& s) { crossings.add(s.time, s.position.x[1]); });
  ASSERT_GE(crossings.count(), 5u);
  const double small_angle = 2.0 * kPi * std::sqrt(l / g);
  EXPECT_NEAR(crossings.meanPeriod() / small_angle, 1.0, 5e-3);
  // Tighter: the finite-amplitude period T0 (1 + theta0^2 / 16).
  EXPECT_NEAR(crossings.meanPeriod() / (small_angle * (1.0 + theta0 * theta0 / 16.0)), 1.0, 2e-4);
}

}  // namespace
}  // namespace suitsim
