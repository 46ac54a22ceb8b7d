// Capstan friction (engine/src/bands.cpp, the capstan note): a band's
// material shared among its segments, held while the tensions on the two
// sides of each turning via point stay within exp(+-mu theta) of each other
// and slid across it onto the bound when they would leave. Checked against
// the capstan equation (the slipping ratio exp(mu theta), the stick phase
// when the pull reverses), for the material it keeps, the energy it only
// takes, the internal pairs it leaves, and mu = 0 against the frictionless
// band.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

// Bodies of four particles whose first particle carries the band's via
// point: body j at points[j]. The band runs through them in order.
struct Rig {
  Model model;
  double l0 = 0.0;
};
Rig rig(const std::vector<Vec3>& points, double k, double mu, double pretension_stretch, double mass,
        bool capstan_field_set = true, double k_m = 0.0, double tau = 0.0) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  const double a = 0.05;
  const Vec3 offset[4] = {{0, 0, 0}, {a, 0, 0}, {0, a, 0}, {0, 0, a}};
  BandSpec band;
  band.name = "band";
  for (std::size_t body = 0; body < points.size(); ++body) {
    BodySpec spec{"body" + std::to_string(body), b.numParticles(), 4, {}};
    for (int j = 0; j < 4; ++j) {
      ParticleSpec p;
      p.name = spec.name + ".p" + std::to_string(j);
      p.position = {points[body][0] + offset[j][0], points[body][1] + offset[j][1], points[body][2] + offset[j][2]};
      p.mass = mass;
      p.contact = false;
      b.addParticle(p);
      spec.body_position.push_back(offset[j]);
    }
    band.via_body.push_back(b.addBody(spec));
    band.via_weight.push_back({{1.0, 0.0, 0.0, 0.0}});
  }
  band.stiffness = k;
  band.relaxing_stiffness = k_m;
  band.relaxation_time = tau;
  if (capstan_field_set) band.capstan_friction = mu;
  band.natural_length = b.initialBandLength(band) - pretension_stretch;
  b.addBand(band);
  return {b.build(), band.natural_length};
}

PhasePoint phase(const State& s) {
  return {s.position.x.data(), s.position.y.data(), s.position.z.data(),
          s.velocity.x.data(), s.velocity.y.data(), s.velocity.z.data()};
}

// Forces at the state; ws then holds each segment's tension.
void evaluate(const Model& m, const State& s, Workspace& ws) {
  Vec3Array acc;
  acc.assign(m.num_particles, 0.0);
  computeAcceleration(m, s, phase(s), ws, acc);
}

// The via points of the analytic rig: A at the origin, the post P on the x
// axis, the end E beyond P in the direction turned by theta; E is moved
// along that direction by `pull` (the bodies are heavy: placed, not driven).
constexpr double kSegment = 0.4;
Vec3 endDirection(double theta) { return {std::cos(theta), std::sin(theta), 0.0}; }
std::vector<Vec3> overAPost(double theta) {
  const Vec3 d = endDirection(theta);
  return {{0.0, 0.0, 0.0}, {kSegment, 0.0, 0.0}, {kSegment + kSegment * d[0], kSegment * d[1], 0.0}};
}
void pullEnd(const Model& m, State& s, double theta, double pull) {
  const Vec3 d = endDirection(theta);
  for (int i = 0; i < m.num_particles; ++i) {
    const Vec3 p0 = m.particle_initial_position.get(i);
    const double shift = i >= 8 ? pull : 0.0;
    s.position.set(i, {p0[0] + shift * d[0], p0[1] + shift * d[1], p0[2]});
    s.velocity.set(i, {0.0, 0.0, 0.0});
  }
}

TEST(BandCapstan, ZeroFrictionIsTheFrictionlessBandBitForBit) {
  // A zig-zag band between free point masses, moving: mu = 0 takes the
  // uniform-tension path, the same arithmetic as a band without the field.
  const std::vector<Vec3> pts = {{0, 0, 0}, {0.3, 0.2, 0}, {0.6, -0.1, 0.1}, {0.9, 0.15, 0}};
  const Rig with = rig(pts, 300.0, 0.0, 0.03, 0.2);
  const Rig without = rig(pts, 300.0, 0.0, 0.03, 0.2, false);
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4}) {
    State a = makeState(with.model), b = makeState(without.model);
    Workspace wa(with.model), wb(without.model);
    for (int i = 0; i < with.model.num_particles; ++i) {
      a.velocity.set(i, {0.1 * std::sin(i), 0.2 * std::cos(3.0 * i), 0.05 * i});
      b.velocity.set(i, a.velocity.get(i));
    }
    for (int n = 0; n < 2000; ++n) {
      step(with.model, a, wa, integrator, 1e-4);
      step(without.model, b, wb, integrator, 1e-4);
    }
    for (int i = 0; i < with.model.num_particles; ++i) {
      EXPECT_EQ(a.position.get(i), b.position.get(i)) << i;
      EXPECT_EQ(a.velocity.get(i), b.velocity.get(i)) << i;
    }
    EXPECT_EQ(a.band_material, b.band_material);  // held at the built share
  }
}

TEST(BandCapstan, AVanishingFrictionCoefficientTendsToTheFrictionlessBand) {
  // mu -> 0 slides the material every step until the tensions are equal:
  // the same band up to the stick within one step, O(dt).
  const std::vector<Vec3> pts = {{0, 0, 0}, {0.3, 0.2, 0}, {0.6, -0.1, 0.1}, {0.9, 0.15, 0}};
  const Rig cap = rig(pts, 300.0, 1e-9, 0.03, 0.2);
  const Rig plain = rig(pts, 300.0, 0.0, 0.03, 0.2);
  State a = makeState(cap.model), b = makeState(plain.model);
  Workspace wa(cap.model), wb(plain.model);
  double worst = 0.0, scale = 0.0;
  for (int n = 0; n < 5000; ++n) {
    step(cap.model, a, wa, Integrator::kVelocityVerlet, 1e-5);
    step(plain.model, b, wb, Integrator::kVelocityVerlet, 1e-5);
    for (int i = 0; i < cap.model.num_particles; ++i) {
      const Vec3 pa = a.position.get(i), pb = b.position.get(i), p0 = cap.model.particle_initial_position.get(i);
      for (int k = 0; k < 3; ++k) {
        worst = std::max(worst, std::abs(pa[k] - pb[k]));
        scale = std::max(scale, std::abs(pb[k] - p0[k]));
      }
    }
  }
  std::printf("[measured] mu 1e-9 vs frictionless: worst position difference %.3e m of a %.3e m motion\n", worst,
              scale);
  EXPECT_GT(scale, 1e-3);
  EXPECT_LT(worst, 1e-3 * scale);
}

TEST(BandCapstan, SlippingHoldsTheCapstanRatioAndReversingSticksFirst) {
  const double k = 200.0, mu = 0.3, theta = 1.2, e0 = 0.02, step_pull = 1e-5, dt = 1e-3;
  const double ratio = std::exp(mu * theta);
  const Rig r = rig(overAPost(theta), k, mu, e0, 1e9);
  State s = makeState(r.model);
  Workspace ws(r.model);
  // The band starts equally strained: one tension k e0.
  evaluate(r.model, s, ws);
  EXPECT_NEAR(ws.band_segment_tension[0], k * e0, 1e-12 * k * e0);
  EXPECT_NEAR(ws.band_segment_tension[1], k * e0, 1e-12 * k * e0);
  const std::vector<double> initial = s.band_material;

  // Pulling the end out: segment 1 (post to end) tightens against a stuck
  // segment 0 until the ratio reaches exp(mu theta); then the material
  // slides over the post and the ratio stays on the bound.
  double pull = 0.0;
  int stuck_steps = 0, slipping_steps = 0;
  double worst_slip = 0.0;
  for (int n = 0; n < 2000; ++n) {
    pull += step_pull;
    pullEnd(r.model, s, theta, pull);
    step(r.model, s, ws, Integrator::kVelocityVerlet, dt);
    pullEnd(r.model, s, theta, pull);
    evaluate(r.model, s, ws);
    const double t0 = ws.band_segment_tension[0], t1 = ws.band_segment_tension[1];
    if (s.band_material == initial) {
      ++stuck_steps;
      EXPECT_LE(t1, ratio * t0 * (1.0 + 1e-12)) << n;
      // Stuck: segment 1 is a spring of k l0 / s_1 on its own stretch.
      const double l1 = kSegment + pull;
      EXPECT_NEAR(t1, k * r.l0 / initial[1] * (l1 - initial[1]), 1e-9 * t1) << n;
    } else {
      ++slipping_steps;
      worst_slip = std::max(worst_slip, std::abs(t1 / t0 - ratio));
    }
  }
  std::printf("[measured] pull: %d steps stuck, %d slipping, worst |T1/T0 - exp(mu theta)| %.3e\n", stuck_steps,
              slipping_steps, worst_slip);
  EXPECT_GT(stuck_steps, 10);
  EXPECT_GT(slipping_steps, 1000);
  EXPECT_LT(worst_slip, 1e-9 * ratio);
  EXPECT_GT(s.band_material[1], initial[1]);  // material went over the post to the taut side
  EXPECT_NEAR(s.band_material[0] + s.band_material[1], r.l0, 1e-15 * r.l0);

  // Reversing: the ratio falls through 1 to exp(-mu theta) with the material
  // stuck, and only then slides back.
  const std::vector<double> turned = s.band_material;
  bool passed_one_stuck = false;
  stuck_steps = slipping_steps = 0;
  worst_slip = 0.0;
  double lowest = ratio;
  for (int n = 0; n < 3000; ++n) {
    pull -= step_pull;
    pullEnd(r.model, s, theta, pull);
    step(r.model, s, ws, Integrator::kVelocityVerlet, dt);
    pullEnd(r.model, s, theta, pull);
    evaluate(r.model, s, ws);
    const double q = ws.band_segment_tension[1] / ws.band_segment_tension[0];
    lowest = std::min(lowest, q);
    if (s.band_material == turned) {
      ++stuck_steps;
      EXPECT_EQ(slipping_steps, 0) << n;  // stick comes first
      if (q < 1.0) passed_one_stuck = true;
    } else {
      ++slipping_steps;
      worst_slip = std::max(worst_slip, std::abs(q - 1.0 / ratio));
    }
  }
  std::printf("[measured] reverse: %d steps stuck, %d slipping, worst |T1/T0 - exp(-mu theta)| %.3e\n",
              stuck_steps, slipping_steps, worst_slip);
  EXPECT_TRUE(passed_one_stuck);
  EXPECT_GT(stuck_steps, 100);
  EXPECT_GT(slipping_steps, 100);
  EXPECT_LT(worst_slip, 1e-9);
  EXPECT_GE(lowest, (1.0 / ratio) * (1.0 - 1e-9));
}

// With hysteresis as well, the Maxwell arm acts on the whole band's stretch
// and adds alike to every taut segment (bands.cpp): the band starts
// relaxed at one tension, and while the material slides the segments'
// whole tensions, arm included, sit on the capstan ratio.
TEST(BandCapstan, WithHysteresisTheWholeTensionsSitOnTheBound) {
  const double k = 200.0, k_m = 60.0, tau = 0.3, mu = 0.4, theta = 1.0, e0 = 0.02;
  const double ratio = std::exp(mu * theta);
  const Rig r = rig(overAPost(theta), k, mu, e0, 1e9, true, k_m, tau);
  State s = makeState(r.model);
  Workspace ws(r.model);
  evaluate(r.model, s, ws);
  EXPECT_NEAR(ws.band_segment_tension[0], k * e0, 1e-12 * k * e0);  // relaxed: the arm pulls nothing yet
  EXPECT_NEAR(ws.band_segment_tension[1], k * e0, 1e-12 * k * e0);
  double pull = 0.0, worst = 0.0, arm = 0.0;
  int slipping = 0;
  const std::vector<double> initial = s.band_material;
  for (int n = 0; n < 1500; ++n) {
    pull += 2e-5;
    pullEnd(r.model, s, theta, pull);
    step(r.model, s, ws, Integrator::kVelocityVerlet, 1e-3);
    pullEnd(r.model, s, theta, pull);
    evaluate(r.model, s, ws);
    if (s.band_material == initial) continue;
    ++slipping;
    worst = std::max(worst, std::abs(ws.band_segment_tension[1] / ws.band_segment_tension[0] - ratio));
    const double stretch = 2.0 * kSegment + pull - r.l0;
    arm = k_m * (stretch - s.band_creep[0]);
  }
  std::printf("[measured] with hysteresis: %d steps slipping, worst |T1/T0 - exp(mu theta)| %.3e, arm %.3f N\n",
              slipping, worst, arm);
  EXPECT_GT(slipping, 500);
  EXPECT_GT(arm, 0.1);  // the arm is pulling, so the bound includes it
  EXPECT_LT(worst, 1e-9 * ratio);
}

TEST(BandCapstan, AStraightBandDoesNotHoldADifference) {
  // theta = 0 at the middle via point: ratio 1, the tensions equal at each
  // step's end whatever mu.
  const Rig r = rig(overAPost(0.0), 200.0, 1.5, 0.01, 1e9);
  State s = makeState(r.model);
  Workspace ws(r.model);
  for (int n = 1; n <= 100; ++n) {
    pullEnd(r.model, s, 0.0, 1e-4 * n);
    step(r.model, s, ws, Integrator::kRk4, 1e-3);
    pullEnd(r.model, s, 0.0, 1e-4 * n);
    evaluate(r.model, s, ws);
    EXPECT_NEAR(ws.band_segment_tension[1], ws.band_segment_tension[0], 1e-12 * ws.band_segment_tension[0]) << n;
  }
}

TEST(BandCapstan, ASlackSideHoldsNoTensionOnTheOther) {
  // The band slackened past its natural length: after a step every
  // segment is slack or at zero tension, none held taut by friction alone.
  const double theta = 2.0;
  const Rig r = rig(overAPost(theta), 200.0, 0.8, 0.01, 1e9);
  State s = makeState(r.model);
  Workspace ws(r.model);
  pullEnd(r.model, s, theta, -0.03);
  step(r.model, s, ws, Integrator::kSemiImplicitEuler, 1e-3);
  pullEnd(r.model, s, theta, -0.03);
  evaluate(r.model, s, ws);
  // Zero up to the heavy bodies' drift within the step (about 1e-15 m).
  EXPECT_LT(ws.band_segment_tension[0], 1e-9);
  EXPECT_LT(ws.band_segment_tension[1], 1e-9);
  EXPECT_LT(ws.band_tension[0], 1e-9);
}

// A zig-zag band with three turning via points between free point masses
// (no gravity, nothing else acting): the material is kept, the band's
// forces cancel over the bodies in force and moment, and the energy only
// falls, by more than the integrator's own wobble of the frictionless band.
TEST(BandCapstan, MaterialIsKeptForcesCancelAndEnergyOnlyFalls) {
  const std::vector<Vec3> pts = {{0, 0, 0}, {0.3, 0.25, 0}, {0.6, -0.1, 0.1}, {0.9, 0.2, -0.05}, {1.2, 0.0, 0.0}};
  const double dt = 2e-5;
  double lost[2] = {0.0, 0.0}, rise[2] = {0.0, 0.0};
  for (int variant = 0; variant < 2; ++variant) {
    const double mu = variant == 0 ? 0.0 : 0.5;
    const Rig r = rig(pts, 500.0, mu, 0.05, 0.1);
    const Model& m = r.model;
    State s = makeState(m);
    Workspace ws(m);
    for (int i = 0; i < m.num_particles; i += 4) {  // the via particles move; the others stay put
      s.velocity.set(i, {0.3 * std::sin(1.7 * i), 0.4 * std::cos(0.9 * i), 0.2 * std::sin(0.3 * i + 1.0)});
    }
    // Remove the net momentum so that nothing flies off.
    Vec3 p{0, 0, 0};
    double mass = 0.0;
    for (int i = 0; i < m.num_particles; i += 4) {
      const Vec3 v = s.velocity.get(i);
      for (int k = 0; k < 3; ++k) p[k] += m.particle_mass[i] * v[k];
      mass += m.particle_mass[i];
    }
    for (int i = 0; i < m.num_particles; i += 4) {
      const Vec3 v = s.velocity.get(i);
      s.velocity.set(i, {v[0] - p[0] / mass, v[1] - p[1] / mass, v[2] - p[2] / mass});
    }
    const double e_start = computeEnergy(m, s).total();
    double e_max = e_start, worst_force = 0.0, worst_moment = 0.0, worst_material = 0.0, t_max = 0.0;
    for (int n = 0; n < 100000; ++n) {
      step(m, s, ws, Integrator::kVelocityVerlet, dt);
      if (n % 50 != 0) continue;
      const double e = computeEnergy(m, s).total();
      e_max = std::max(e_max, e);
      const double sum = std::accumulate(s.band_material.begin(), s.band_material.end(), 0.0);
      worst_material = std::max(worst_material, std::abs(sum - r.l0));
      evaluate(m, s, ws);
      double f[3] = {0, 0, 0}, mom[3] = {0, 0, 0};
      for (int i = 0; i < m.num_particles; ++i) {
        const Vec3 x = s.position.get(i);
        const double fi[3] = {ws.force.x[i], ws.force.y[i], ws.force.z[i]};
        for (int k = 0; k < 3; ++k) f[k] += fi[k];
        mom[0] += x[1] * fi[2] - x[2] * fi[1];
        mom[1] += x[2] * fi[0] - x[0] * fi[2];
        mom[2] += x[0] * fi[1] - x[1] * fi[0];
      }
      for (double t : ws.band_segment_tension) t_max = std::max(t_max, t);
      worst_force = std::max({worst_force, std::abs(f[0]), std::abs(f[1]), std::abs(f[2])});
      worst_moment = std::max({worst_moment, std::abs(mom[0]), std::abs(mom[1]), std::abs(mom[2])});
    }
    const double e_end = computeEnergy(m, s).total();
    lost[variant] = (e_start - e_end) / e_start;
    rise[variant] = (e_max - e_start) / e_start;
    std::printf("[measured] mu %.1f: energy lost %.4f of %.4e J, largest rise %.3e, worst |sum F| %.2e N, "
                "|sum M| %.2e N m (largest tension %.3f N), |sum s - l0| %.2e m\n",
                mu, lost[variant], e_start, rise[variant], worst_force, worst_moment, t_max, worst_material);
    EXPECT_LT(worst_force, 1e-12 * t_max);
    EXPECT_LT(worst_moment, 1e-12 * t_max);
    EXPECT_LT(worst_material, 4e-16 * r.l0);
  }
  // Frictionless: the integrator's wobble only. With friction: no more rise
  // than that wobble, and a real loss.
  EXPECT_LT(std::abs(lost[0]), 1e-3);
  EXPECT_LT(rise[1], std::max(rise[0], 1e-6));
  EXPECT_GT(lost[1], 10.0 * std::abs(lost[0]));
}

TEST(BandCapstan, TheSlipNeverRaisesTheBandsEnergy) {
  // Positions placed, material slid at the step's end: the band's elastic
  // energy at the same positions never rises across the update.
  const double theta = 1.0;
  const Rig r = rig(overAPost(theta), 300.0, 0.4, 0.02, 1e9);
  State s = makeState(r.model);
  Workspace ws(r.model);
  int lowered = 0;
  for (int n = 0; n < 3000; ++n) {
    const double pull = 0.02 * std::sin(2.0 * 3.141592653589793 * n / 1000.0);
    pullEnd(r.model, s, theta, pull);
    const double before = computeEnergy(r.model, s).spring;
    step(r.model, s, ws, Integrator::kVelocityVerlet, 1e-3);
    pullEnd(r.model, s, theta, pull);
    const double after = computeEnergy(r.model, s).spring;
    EXPECT_LE(after, before * (1.0 + 1e-12)) << n;
    if (after < before * (1.0 - 1e-9)) ++lowered;
  }
  EXPECT_GT(lowered, 100);  // it slipped, and each slip lowered it
}

TEST(BandCapstan, TheBuilderRefusesBadFriction) {
  EXPECT_THROW(rig(overAPost(1.0), 200.0, -0.1, 0.01, 1.0), ModelError);
  EXPECT_THROW(rig(overAPost(1.0), 200.0, std::nan(""), 0.01, 1.0), ModelError);
  EXPECT_THROW(rig(overAPost(1.0), 200.0, INFINITY, 0.01, 1.0), ModelError);
  // Two via points on one spot: a segment of no length, no material to give it.
  EXPECT_THROW(rig({{0, 0, 0}, {0.3, 0, 0}, {0.3, 0, 0}, {0.6, 0.1, 0}}, 200.0, 0.3, 0.01, 1.0), ModelError);
  EXPECT_NO_THROW(rig({{0, 0, 0}, {0.3, 0, 0}, {0.3, 0, 0}, {0.6, 0.1, 0}}, 200.0, 0.0, 0.01, 1.0));
}

}  // namespace
}  // namespace suitsim
