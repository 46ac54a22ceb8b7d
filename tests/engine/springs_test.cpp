// Spring-damper physics against closed-form solutions, T(6)-(10).
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <numbers>
#include <random>

#include "engine_printers.h"
#include "forces.h"
#include "kernel_layout.h"
#include "run_helpers.h"
#include "spring_networks.h"
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

// Every spring's force on each particle, from the spring law written out
// here, summed per particle from zero in the Model's incidence order: what
// every kernel must give bit for bit.
Vec3Array referenceSpringForces(const Model& model, const State& state) {
  std::vector<double> tx(model.num_springs), ty(model.num_springs), tz(model.num_springs);
  for (int s = 0; s < model.num_springs; ++s) {
    const int a = model.spring_a[s], bb = model.spring_b[s];
    const double dx = state.position.x[bb] - state.position.x[a];
    const double dy = state.position.y[bb] - state.position.y[a];
    const double dz = state.position.z[bb] - state.position.z[a];
    const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
    const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
    const double ux = dx * inv_length, uy = dy * inv_length, uz = dz * inv_length;
    const double rate = (state.velocity.x[bb] - state.velocity.x[a]) * ux +
                        (state.velocity.y[bb] - state.velocity.y[a]) * uy +
                        (state.velocity.z[bb] - state.velocity.z[a]) * uz;
    const double tension = model.spring_stiffness[s] * (length - model.spring_rest_length[s]) +
                           model.spring_damping[s] * rate;
    tx[s] = tension * ux;
    ty[s] = tension * uy;
    tz[s] = tension * uz;
  }
  Vec3Array f;
  f.assign(model.num_particles, 0.0);
  for (int i = 0; i < model.num_particles; ++i) {
    for (int e = model.kernel->spring_incidence_begin[i]; e < model.kernel->spring_incidence_begin[i + 1]; ++e) {
      const int s = model.kernel->spring_incidence[e] / 2;
      const bool b_end = model.kernel->spring_incidence[e] % 2 == 1;
      f.x[i] = b_end ? f.x[i] - tx[s] : f.x[i] + tx[s];
      f.y[i] = b_end ? f.y[i] - ty[s] : f.y[i] + ty[s];
      f.z[i] = b_end ? f.z[i] - tz[s] : f.z[i] + tz[s];
    }
  }
  return f;
}

// Moves every particle but the first and last a little off the lattice and
// gives it a random velocity (the first and last may be made coincident).
void perturb(const Model& model, State& state, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 1; i < model.num_particles - 1; ++i) {
    const Vec3 p = state.position.get(i);
    state.position.set(i, {p[0] + 0.01 * u(rng), p[1] + 0.01 * u(rng), p[2] + 0.01 * u(rng)});
    state.velocity.set(i, {u(rng), u(rng), u(rng)});
  }
}

PhasePoint phasePoint(const State& state) {
  return {state.position.x.data(), state.position.y.data(), state.position.z.data(),
          state.velocity.x.data(), state.velocity.y.data(), state.velocity.z.data()};
}

// Each spring kernel this build holds and the CPU runs (AVX-512, AVX2,
// scalar), in the Model's arithmetic, against `reference` bit for bit;
// returns how many ran.
int expectEveryKernelGives(const Model& model, const State& state, const Vec3Array& reference) {
  std::vector<double> slots(4 * static_cast<std::size_t>(model.num_springs));
  int kernels = 0;
  for (int isa : {0, 3, 4}) {
    Vec3Array f;
    f.assign(model.num_particles, 0.0);
    if (!detail::addSpringForcesWithIsa(isa, model, phasePoint(state), slots.data(), f)) continue;
    ++kernels;
    for (int i = 0; i < model.num_particles; ++i) {
      if (f.x[i] != reference.x[i] || f.y[i] != reference.y[i] || f.z[i] != reference.z[i]) {
        ADD_FAILURE() << std::setprecision(17) << "particle " << i << ", kernel " << isa << ", "
                      << springArithmeticName(model.spring_arithmetic) << ": (" << f.x[i] << ", " << f.y[i] << ", "
                      << f.z[i] << ") against the reference's (" << reference.x[i] << ", " << reference.y[i] << ", "
                      << reference.z[i] << ")";
        return kernels;
      }
    }
  }
  return kernels;
}

// The step's force pass on 1 and 2 threads against `reference` (the
// particles' spring forces; no other force acts), bit for bit.
void expectAccelerationsOnOneAndTwoThreads(const Model& model, const State& state, const Vec3Array& reference) {
  for (int threads : {1, 2}) {
    Workspace ws(model, threads);
    Vec3Array acc;
    acc.assign(model.num_particles, 0.0);
    computeAcceleration(model, state, phasePoint(state), ws, acc);
    for (int i = 0; i < model.num_particles; ++i) {
      const double inv_m = model.particle_inv_mass[i];
      ASSERT_EQ(acc.x[i], reference.x[i] * inv_m) << "particle " << i << ", " << threads << " threads";
      ASSERT_EQ(acc.y[i], reference.y[i] * inv_m) << "particle " << i;
      ASSERT_EQ(acc.z[i], reference.z[i] * inv_m) << "particle " << i;
    }
  }
}

// The force kernel (whichever path the build takes: vector loads for runs
// of consecutive particles, gathers elsewhere, a scalar tail) against the
// reference, on a lattice of two tiles with extra random springs (within
// and across tiles, a tail block, and a pair of coincident particles).
TEST(SpringNetwork, ForcesMatchTheScalarReferenceBitForBit) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  b.addCloth({.name = "c", .nu = 101, .nv = 85, .spacing = 0.1, .mass = 1.0, .stiffness = 50.0, .bend_stiffness = 5.0,
              .damping = 0.3});
  b.addParticle({.name = "twin", .position = {0.0, 0.0, 0.0}, .mass = 1.0});  // on particle 0
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(0, b.numParticles() - 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  b.addSpring({0, b.numParticles() - 1, 30.0, 0.2, 0.0});
  const int lattice = b.numSprings();
  while (b.numSprings() < lattice + 300 || b.numSprings() % 4 != 3) {
    const int i = pick(rng), j = pick(rng);
    if (i != j) b.addSpring({i, j, 10.0 + u(rng), 0.1, 0.05});
  }
  const Model model = b.build();
  ASSERT_GT(model.num_particles, model.kernel->spring_tile_particles);
  State state = makeState(model);
  perturb(model, state, rng);  // 0 and the twin stay coincident
  expectAccelerationsOnOneAndTwoThreads(model, state, referenceSpringForces(model, state));
}

// Each kernel this build holds (the portable build: AVX-512, AVX2 and
// scalar, as far as the CPU runs them) against the reference, on cloths
// whose springs differ in stiffness and damping within and between the
// kernel's fused blocks, one of them far from the origin (its rest lengths
// differ by more than a block can store compactly), with irregular springs.
TEST(SpringNetwork, EveryKernelMatchesTheScalarReferenceOnVariedCloths) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  testing::addVariedCloth(b, "near", {0.0, 0.0, 0.0}, 105, 80, 0.01, 100.0, 0.01);
  testing::addVariedCloth(b, "far", {3e4, 0.0, 0.0}, 30, 20, 0.01, 100.0, 0.01);
  testing::addRandomSprings(b, 203, 13, 10.0, 0.1);
  const Model model = b.build();
  ASSERT_GT(model.num_particles, model.kernel->spring_tile_particles);
  State state = makeState(model);
  std::mt19937 rng(17);
  perturb(model, state, rng);
  EXPECT_GE(expectEveryKernelGives(model, state, referenceSpringForces(model, state)), 1);
}

// The fused arithmetic (SpringArithmetic::kFused) written out here from
// springs_kernel.h's list: each spring's w = d and m = T / l, then each
// particle's f = fma(+-m, w, f) from zero in the Model's incidence order.
Vec3Array referenceFusedSpringForces(const Model& model, const State& state) {
  std::vector<double> dx(model.num_springs), dy(model.num_springs), dz(model.num_springs), m(model.num_springs);
  for (int s = 0; s < model.num_springs; ++s) {
    const int a = model.spring_a[s], bb = model.spring_b[s];
    dx[s] = state.position.x[bb] - state.position.x[a];
    dy[s] = state.position.y[bb] - state.position.y[a];
    dz[s] = state.position.z[bb] - state.position.z[a];
    const double length = std::sqrt(std::fma(dz[s], dz[s], std::fma(dy[s], dy[s], dx[s] * dx[s])));
    const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
    const double dvx = state.velocity.x[bb] - state.velocity.x[a];
    const double dvy = state.velocity.y[bb] - state.velocity.y[a];
    const double dvz = state.velocity.z[bb] - state.velocity.z[a];
    const double rate_times_length = std::fma(dvz, dz[s], std::fma(dvy, dy[s], dvx * dx[s]));
    const double tension = std::fma(model.spring_stiffness[s], length - model.spring_rest_length[s],
                                    model.spring_damping[s] * (rate_times_length * inv_length));
    m[s] = tension * inv_length;
  }
  Vec3Array f;
  f.assign(model.num_particles, 0.0);
  for (int i = 0; i < model.num_particles; ++i) {
    for (int e = model.kernel->spring_incidence_begin[i]; e < model.kernel->spring_incidence_begin[i + 1]; ++e) {
      const int s = model.kernel->spring_incidence[e] / 2;
      const double signed_m = model.kernel->spring_incidence[e] % 2 == 1 ? -m[s] : m[s];
      f.x[i] = std::fma(signed_m, dx[s], f.x[i]);
      f.y[i] = std::fma(signed_m, dy[s], f.y[i]);
      f.z[i] = std::fma(signed_m, dz[s], f.z[i]);
    }
  }
  return f;
}

// The fused kernel for each instruction set this build holds and the CPU
// runs (AVX-512's 8 lanes, AVX2's 4, the scalar one), and through the step's
// force pass on 1 and 2 threads, against the reference above bit for bit,
// on the varied cloths and random springs of the test above: the fused
// arithmetic gives the same bits on every FMA CPU of a cluster.
TEST(SpringNetwork, EveryFusedKernelMatchesTheScalarFmaReferenceBitForBit) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  testing::addVariedCloth(b, "near", {0.0, 0.0, 0.0}, 105, 80, 0.01, 100.0, 0.01);
  testing::addVariedCloth(b, "far", {3e4, 0.0, 0.0}, 30, 20, 0.01, 100.0, 0.01);
  testing::addRandomSprings(b, 203, 13, 10.0, 0.1);
  b.addParticle({.name = "twin", .position = {0.0, 0.0, 0.0}, .mass = 1.0});  // on particle 0
  b.addSpring({0, b.numParticles() - 1, 30.0, 0.2, 0.0});
  Model model = b.build();
  model.spring_arithmetic = SpringArithmetic::kFused;
  ASSERT_GT(model.num_particles, model.kernel->spring_tile_particles);
  State state = makeState(model);
  std::mt19937 rng(23);
  perturb(model, state, rng);  // 0 and the twin stay coincident
  const Vec3Array reference = referenceFusedSpringForces(model, state);
  // The fused law is not the separate one: the test would pass vacuously
  // if the kernel ignored the setting.
  const Vec3Array separate = referenceSpringForces(model, state);
  int differ = 0;
  for (int i = 0; i < model.num_particles; ++i) differ += reference.x[i] != separate.x[i];
  EXPECT_GT(differ, model.num_particles / 10);
  EXPECT_GE(expectEveryKernelGives(model, state, reference), 1);
  expectAccelerationsOnOneAndTwoThreads(model, state, reference);
}

// Random springs one by one (each its own two particles, so each sum has
// a single term) with lengths and rates over many scales: each kernel's
// terms against the reference bit for bit, in both arithmetics.
TEST(SpringNetwork, FusedAndSeparateKernelsMatchTheirReferencesOnRandomSprings) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  for (int s = 0; s < 4001; ++s) {
    const double scale = std::pow(10.0, 3.0 * u(rng));
    const int first = b.numParticles();
    const std::string index = std::to_string(s);
    b.addParticle({.name = "a" + index, .position = {u(rng), u(rng), u(rng)}, .mass = 1.0});
    b.addParticle({.name = "b" + index,
                   .position = {u(rng) * scale, u(rng) * scale, u(rng) * scale},
                   .velocity = {u(rng), u(rng), u(rng)}, .mass = 1.0});
    b.addSpring({first, first + 1, 1e3 * (1.5 + u(rng)), 1.0 + u(rng), scale * (1.0 + 0.5 * u(rng))});
  }
  Model model = b.build();
  const State state = makeState(model);
  for (SpringArithmetic arithmetic : {SpringArithmetic::kSeparate, SpringArithmetic::kFused}) {
    model.spring_arithmetic = arithmetic;
    const Vec3Array reference = arithmetic == SpringArithmetic::kFused ? referenceFusedSpringForces(model, state)
                                                                       : referenceSpringForces(model, state);
    EXPECT_GE(expectEveryKernelGives(model, state, reference), 1);
  }
}

}  // namespace
}  // namespace suitsim
