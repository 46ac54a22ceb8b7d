// Band hysteresis (engine/src/bands.cpp, the hysteresis note): a standard
// linear solid, k in parallel with a Maxwell arm k_m, tau. Checked against
// its closed forms: the relaxation after a sudden stretch, the loop's area
// (the energy lost per cycle) under a sinusoidal stretch, the band starting
// relaxed, and the worn arm (with straps in series) equal to the exact
// series system at every frequency.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

// Two heavy tetrahedra on the x axis joined by a straight band between
// their first particles: the band's length is the distance between them.
// The test drives body 1 along x by setting its particles each step, so
// the stretch is what the test prescribes.
struct Rig {
  Model model;
  double l0 = 0.0;
};
Rig rig(double k, double k_m, double tau, double initial_stretch) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  const double a = 0.05;
  const Vec3 offset[4] = {{0, 0, 0}, {a, 0, 0}, {0, a, 0}, {0, 0, a}};
  const double x0[2] = {0.0, 0.5};
  for (int body = 0; body < 2; ++body) {
    BodySpec spec{"body" + std::to_string(body), b.numParticles(), 4, {}};
    for (int j = 0; j < 4; ++j) {
      ParticleSpec p;
      p.name = spec.name + ".p" + std::to_string(j);
      p.position = {x0[body] + offset[j][0], offset[j][1], offset[j][2]};
      p.mass = 1e9;  // the band's pull barely moves them within a step
      p.contact = false;
      b.addParticle(p);
      spec.body_position.push_back(offset[j]);
    }
    b.addBody(spec);
  }
  BandSpec band;
  band.name = "band";
  band.via_body = {0, 1};
  band.via_weight = {{{1.0, 0.0, 0.0, 0.0}}, {{1.0, 0.0, 0.0, 0.0}}};
  band.stiffness = k;
  band.relaxing_stiffness = k_m;
  band.relaxation_time = tau;
  band.natural_length = 0.5 - initial_stretch;
  b.addBand(band);
  return {b.build(), band.natural_length};
}

// Puts body 1 (particles 4..7) so that the band is l0 + stretch long,
// moving at `rate`, everything else at rest.
void place(const Rig& r, State& s, double stretch, double rate) {
  const double shift = r.l0 + stretch - 0.5;
  for (int i = 0; i < 8; ++i) {
    const Vec3 p0 = r.model.particle_initial_position.get(i);
    s.position.set(i, {p0[0] + (i >= 4 ? shift : 0.0), p0[1], p0[2]});
    s.velocity.set(i, {i >= 4 ? rate : 0.0, 0.0, 0.0});
  }
}

double tensionNow(const Rig& r, const State& s, Workspace& ws) {
  Vec3Array acc;
  acc.assign(r.model.num_particles, 0.0);
  computeAcceleration(r.model, s, {s.position.x.data(), s.position.y.data(), s.position.z.data(),
                                   s.velocity.x.data(), s.velocity.y.data(), s.velocity.z.data()},
                      ws, acc);
  return ws.band_tension[0];
}

TEST(BandHysteresis, SuddenStretchRelaxesFromTheInstantToTheEquilibriumStiffness) {
  // e held from t = 0: f(t) = k e + k_m e exp(-t / tau), the creep being
  // advanced exactly for a held stretch.
  const double k = 200.0, k_m = 60.0, tau = 0.4, e = 0.02, dt = 1e-3;
  const Rig r = rig(k, k_m, tau, 0.0);
  State s = makeState(r.model);
  Workspace ws(r.model);
  EXPECT_EQ(s.band_creep[0], 0.0);
  place(r, s, e, 0.0);
  EXPECT_NEAR(tensionNow(r, s, ws), (k + k_m) * e, 1e-12);  // the instant: k + k_m
  double worst = 0.0;
  for (int n = 1; n <= 2000; ++n) {
    step(r.model, s, ws, Integrator::kVelocityVerlet, dt);
    place(r, s, e, 0.0);
    const double expected = k * e + k_m * e * std::exp(-n * dt / tau);
    worst = std::max(worst, std::abs(tensionNow(r, s, ws) - expected));
  }
  std::printf("[measured] relaxation: worst |f - f_exact| %.3e N of %.3f N\n", worst, (k + k_m) * e);
  EXPECT_LT(worst, 1e-9 * (k + k_m) * e);
  // After 5 tau the arm keeps k_m e exp(-5), 0.2 % of k e here: the equilibrium stiffness.
  EXPECT_NEAR(tensionNow(r, s, ws), k * e, 2.5e-3 * k * e);
}

TEST(BandHysteresis, ABandStartsRelaxedAtItsInitialStretch) {
  const double k = 150.0, k_m = 45.0, e0 = 0.01;
  const Rig r = rig(k, k_m, 0.5, e0);
  State s = makeState(r.model);
  Workspace ws(r.model);
  EXPECT_NEAR(s.band_creep[0], e0, 1e-15);
  EXPECT_NEAR(tensionNow(r, s, ws), k * e0, 1e-12);  // no transient at the start
}

TEST(BandHysteresis, TheLoopLosesTheStandardLinearSolidsEnergyPerCycle) {
  // e = e0 + e_a sin(w t), taut throughout: per cycle the arm dissipates
  // pi e_a^2 k_m w tau / (1 + w^2 tau^2), and the equilibrium spring none.
  const double k = 300.0, k_m = 90.0, tau = 0.5, e0 = 0.03, ea = 0.01, dt = 1e-4;
  const Rig r = rig(k, k_m, tau, 0.0);
  for (double w : {0.5 / tau, 1.0 / tau, 3.0 / tau}) {
    State s = makeState(r.model);
    Workspace ws(r.model);
    const double period = 2.0 * std::numbers::pi / w;
    const int per_cycle = static_cast<int>(std::lround(period / dt));
    const double h = period / per_cycle;
    // Six cycles to forget the start, the seventh measured: the work the
    // band's pull takes in, the integral of f de (trapezoids).
    double work = 0.0, f_last = 0.0, e_last = 0.0;
    for (int n = 0; n <= 7 * per_cycle; ++n) {
      const double t = n * h, e = e0 + ea * std::sin(w * t);
      place(r, s, e, 0.0);
      const double f = tensionNow(r, s, ws);
      if (n > 6 * per_cycle) work += 0.5 * (f + f_last) * (e - e_last);
      f_last = f;
      e_last = e;
      step(r.model, s, ws, Integrator::kVelocityVerlet, h);
    }
    const double expected = std::numbers::pi * ea * ea * k_m * w * tau / (1.0 + w * w * tau * tau);
    std::printf("[measured] w tau %.1f: loop %.6e J, closed form %.6e J\n", w * tau, work, expected);
    // The arm's input lags half a step (bands.cpp): an error of order w dt.
    EXPECT_NEAR(work, expected, 5e-4 * expected) << w;  // measured 1.0-1.3e-4
  }
}

TEST(BandHysteresis, AnElasticBandKeepsNoCreep) {
  const Rig r = rig(200.0, 0.0, 0.0, 0.01);
  State s = makeState(r.model);
  Workspace ws(r.model);
  place(r, s, 0.03, 0.0);
  step(r.model, s, ws, Integrator::kRk4, 1e-3);
  EXPECT_EQ(s.band_creep[0], 0.0);
}

TEST(BandHysteresis, TheBuilderRefusesAnArmWithoutARelaxationTime) {
  EXPECT_THROW(rig(200.0, 50.0, 0.0, 0.0), ModelError);
  EXPECT_THROW(rig(200.0, -1.0, 1.0, 0.0), ModelError);
}

// The worn band: the SLS (k, k_m, tau) in series with the straps k_s = k_a / 2
// is exactly the SLS (wornStiffness, wornRelaxingStiffness, wornRelaxationTime):
// equal complex stiffness at every frequency.
TEST(BandHysteresis, TheWornArmIsTheExactSeriesSystem) {
  RobotBand band;
  band.stiffness = 200.0;
  band.relaxing_stiffness = 30.0;
  band.relaxation_time = 1.0;
  EXPECT_EQ(wornRelaxingStiffness(band), 30.0);
  EXPECT_EQ(wornRelaxationTime(band), 1.0);
  band.attachment_stiffness = 10000.0;
  const auto sls = [](double k, double km, double tau, double w) {
    const std::complex<double> iwt(0.0, w * tau);
    return k + km * iwt / (1.0 + iwt);
  };
  for (double w : {0.01, 0.3, 1.0, 3.0, 100.0}) {
    const std::complex<double> ks(0.5 * band.attachment_stiffness, 0.0);
    const std::complex<double> band_alone = sls(band.stiffness, band.relaxing_stiffness, band.relaxation_time, w);
    const std::complex<double> series = band_alone * ks / (band_alone + ks);
    const std::complex<double> worn = sls(wornStiffness(band), wornRelaxingStiffness(band), wornRelaxationTime(band), w);
    EXPECT_NEAR(worn.real(), series.real(), 1e-10 * std::abs(series)) << w;
    EXPECT_NEAR(worn.imag(), series.imag(), 1e-10 * std::abs(series)) << w;
  }
}

}  // namespace
}  // namespace suitsim
