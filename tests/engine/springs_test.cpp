// Spring-damper physics against closed-form solutions, T(6)-(10).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "run_helpers.h"
#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

constexpr double kPi = std::numbers::pi;

// A bob of mass m on a spring of stiffness k and damping c from a fixed anchor,
// no gravity, displaced by x0 along x from the rest length 0.3 m.
Model oscillator(double m, double k, double c, double x0) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  b.addParticle({.name = "anchor", .position = {0, 0, 0}, .mass = 1.0, .fixed = true});
  b.addParticle({.name = "bob", .position = {0.3 + x0, 0, 0}, .mass = m});
  b.addSpring({0, 1, k, c, 0.3});
  return b.build();
}

class SpringMassPeriod : public ::testing::TestWithParam<Integrator> {};

TEST_P(SpringMassPeriod, MatchesTwoPiSqrtMOverK) {
  const double m = 0.5, k = 200.0;
  const Model model = oscillator(m, k, 0.0, 0.05);
  State state = makeState(model);
  Workspace ws(model);
  testing::ZeroCrossings crossings;
  testing::runFor(model, state, ws, GetParam(), 1e-4, 20.0,
                  [&](const State& s) { crossings.add(s.time, s.position.x[1] - 0.3); });
  const double expected = 2.0 * kPi * std::sqrt(m / k);
  ASSERT_GE(crossings.count(), 60u);
  EXPECT_NEAR(crossings.meanPeriod() / expected, 1.0, 1e-4) << integratorName(GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllIntegrators, SpringMassPeriod,
                         ::testing::Values(Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet,
                                           Integrator::kRk4));

TEST(SpringMass, VerletEnergyDriftOver1000PeriodsIsBounded) {
  // omega dt = 0.02. Velocity Verlet conserves a nearby "shadow" energy, so
  // the true energy only oscillates, with relative amplitude about
  // (omega dt)^2 / 4 = 1e-4, and does not drift. Bound: 1.5e-4 everywhere,
  // and the last period's deviation no larger than the first period's.
  const double m = 0.5, k = 200.0;  // omega = 20 rad/s, period 0.314 s
  const Model model = oscillator(m, k, 0.0, 0.05);
  State state = makeState(model);
  Workspace ws(model);
  const double e0 = computeEnergy(model, state).total();
  const double period = 2.0 * kPi * std::sqrt(m / k);
  const double dt = 0.02 / 20.0;
  double worst = 0.0, first_period_worst = 0.0, last_period_worst = 0.0;
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, dt, 1000.0 * period, [&](const State& s) {
    const double rel = std::abs(computeEnergy(model, s).total() - e0) / e0;
    worst = std::max(worst, rel);
    if (s.time <= period) first_period_worst = std::max(first_period_worst, rel);
    if (s.time >= 999.0 * period) last_period_worst = std::max(last_period_worst, rel);
  });
  EXPECT_LT(worst, 1.5e-4);
  EXPECT_LE(last_period_worst, first_period_worst * 1.01 + 1e-12);
}

TEST(SpringMass, DampedOscillatorMatchesClosedForm) {
  // x(t) = x0 e^{-zeta w t} (cos(wd t) + zeta w / wd sin(wd t)) from rest.
  const double m = 0.5, k = 200.0, c = 1.0, x0 = 0.05;
  const Model model = oscillator(m, k, c, x0);
  State state = makeState(model);
  Workspace ws(model);
  const double w = std::sqrt(k / m);
  const double zeta = c / (2.0 * std::sqrt(k * m));
  const double wd = w * std::sqrt(1.0 - zeta * zeta);
  double worst = 0.0;
  testing::runFor(model, state, ws, Integrator::kRk4, 1e-4, 3.0, [&](const State& s) {
    const double t = s.time;
    const double exact = x0 * std::exp(-zeta * w * t) * (std::cos(wd * t) + zeta * w / wd * std::sin(wd * t));
    worst = std::max(worst, std::abs(s.position.x[1] - 0.3 - exact));
  });
  EXPECT_LT(worst, 1e-9 * 1e3 * x0);  // 5e-8 m: RK4's error at this step is far below
}

TEST(SpringNetwork, InternalForcesConserveMomentum) {
  // A damped elastic block spinning and drifting in empty space: springs are
  // internal central pairs, so linear and angular momentum stay constant.
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  b.addBlock({.name = "blob", .origin = {0.1, -0.2, 0.3}, .nx = 3, .ny = 3, .nz = 3, .spacing = 0.1,
              .mass = 2.0, .stiffness = 5e3, .damping = 0.5});
  const Model model = b.build();
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4}) {
    State state = makeState(model);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int i = 0; i < model.num_particles; ++i) state.velocity.set(i, {u(rng), u(rng), u(rng)});
    Workspace ws(model);
    Vec3 l0, h0, l1, h1;
    computeMomentum(model, state, &l0, &h0);
    testing::runFor(model, state, ws, integrator, 1e-4, 1.0);
    computeMomentum(model, state, &l1, &h1);
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(l1[k], l0[k], 1e-12) << integratorName(integrator);
      // Both symplectic methods conserve angular momentum for central forces
      // exactly; RK4 only to its truncation error.
      const double tol = integrator == Integrator::kRk4 ? 1e-8 : 1e-12;
      EXPECT_NEAR(h1[k], h0[k], tol) << integratorName(integrator);
    }
  }
}

TEST(SpringNetwork, CoincidentParticlesGiveNoForceAndNoNan) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  b.addParticle({.name = "a", .position = {0, 0, 0}, .mass = 1.0});
  b.addParticle({.name = "b", .position = {0, 0, 0}, .mass = 1.0});
  b.addSpring({0, 1, 100.0, 1.0, 0.0});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  step(model, state, ws, Integrator::kVelocityVerlet, 1e-3);
  EXPECT_TRUE(stateIsFinite(state));
}

}  // namespace
}  // namespace suitsim
