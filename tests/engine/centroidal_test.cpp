// The model's centroidal motion and balance points (centroidal.h) against
// hand-computed forces and closed forms, and the Recorder's balance channels.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "run_helpers.h"
#include "suitsim/balance_assist.h"
#include "suitsim/builder.h"
#include "suitsim/centroidal.h"
#include "suitsim/recorder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

constexpr double kG = 9.81;

Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

TEST(Centroidal, SumsMassMomentumAndEveryExternalForceButGravity) {
  ModelBuilder b;
  b.setGround(testing::groundModel(1e4, 0.0, 0.5, 0.4));
  b.addParticle({.name = "a", .position = {0, 0, 0.5}, .velocity = {1, 0, 0}, .mass = 1.0, .force = {0, 2, 0}});
  b.addParticle({.name = "b", .position = {1, 0, -1e-3}, .velocity = {0, 0, 0}, .mass = 3.0});
  b.addParticle({.name = "wall", .position = {5, 5, 5}, .mass = 100.0, .fixed = true});
  const Model model = b.build();
  State state = makeState(model);
  state.applied_force.x[1] = 4.0;
  const Centroidal c = centroidal(model, state);
  EXPECT_DOUBLE_EQ(c.mass, 4.0);  // the fixed particle is no part of it
  EXPECT_NEAR(c.com[0], 0.75, 1e-15);
  EXPECT_NEAR(c.com[2], (0.5 - 3e-3) / 4.0, 1e-15);
  EXPECT_NEAR(c.com_velocity[0], 0.25, 1e-15);
  // b sinks 1 mm: the ground pushes it up with k d = 10 N.
  EXPECT_NEAR(c.external_force[0], 4.0, 1e-12);
  EXPECT_NEAR(c.external_force[1], 2.0, 1e-12);
  EXPECT_NEAR(c.external_force[2], 10.0, 1e-9);
  EXPECT_NEAR(c.com_acceleration[2], 10.0 / 4.0 - kG, 1e-9);
  EXPECT_NEAR(c.com_acceleration[0], 1.0, 1e-12);
}

TEST(Centroidal, CentreOfPressureCancelsTheInPlaneMomentWithFrictionBelowThePlane) {
  // Two contacts at different depths, one sliding (so friction acts at a
  // point below the plane): the moment of the ground's forces about the CoP
  // has no component along the plane.
  ModelBuilder b;
  GroundModel g = testing::groundModel(1e4, 30.0, 0.8, 0.6);
  b.setGround(g);
  b.addParticle({.name = "a", .position = {0, 0, -1e-3}, .mass = 1.0});
  b.addParticle({.name = "b", .position = {1, 0.5, -3e-3}, .velocity = {0.2, -0.1, 0}, .mass = 1.0});
  const Model model = b.build();
  State state = makeState(model);
  Vec3 cop{};
  ASSERT_TRUE(centreOfPressure(model, state, &cop));
  EXPECT_NEAR(cop[2], 0.0, 1e-15);
  Vec3 moment{0, 0, 0};
  for (int c = 0; c < 2; ++c) {
    const Vec3 f = groundForce(model, state, c);
    const Vec3 r{state.position.x[c] - cop[0], state.position.y[c] - cop[1], state.position.z[c] - cop[2]};
    const Vec3 m = cross(r, f);
    for (int k = 0; k < 3; ++k) moment[k] += m[k];
  }
  const Vec3 fb = groundForce(model, state, 1);
  ASSERT_GT(std::hypot(fb[0], fb[1]), 1.0);  // friction is there to be accounted for
  EXPECT_NEAR(moment[0], 0.0, 1e-12);
  EXPECT_NEAR(moment[1], 0.0, 1e-12);
  // Without friction the CoP would be the normal-force-weighted mean, 0.75 along x.
  EXPECT_GT(std::abs(cop[0] - 0.75), 1e-5);

  // Nothing pressed onto the ground: no CoP.
  state.position.z[0] = state.position.z[1] = 0.1;
  EXPECT_FALSE(centreOfPressure(model, state, &cop));
}

TEST(Centroidal, SupportPolygonHoldsOnlyTheContactsTheGroundPushes) {
  ModelBuilder b;
  b.setGround(testing::groundModel(1e4, 0.0, 0.5, 0.4));
  const char* names[] = {"p0", "p1", "p2", "p3"};
  for (int i = 0; i < 4; ++i) {
    b.addParticle({.name = names[i],
                   .position = {0.2 * (i & 1), 0.1 * (i >> 1), i == 3 ? 0.01 : -1e-3},
                   .mass = 1.0});
  }
  const Model model = b.build();
  const State state = makeState(model);
  std::vector<Eigen::Vector2d> scratch;
  SupportPolygon polygon;
  supportPolygon(model, state, scratch, polygon);
  ASSERT_EQ(polygon.vertices.size(), 3u);  // the fourth corner is in the air
  EXPECT_NEAR(polygonMargin(polygon, {0.05, 0.025}), 0.025, 1e-12);
}

// A table: four legs on the ground carrying a heavy top by stiff springs.
Model table(double half_width, double height) {
  ModelBuilder b;
  b.setGround(testing::groundModel(2e5, 2e3, 1.0, 0.8));
  const int top = b.addParticle({.name = "top", .position = {0, 0, height}, .mass = 20.0, .contact = false});
  for (int i = 0; i < 4; ++i) {
    const double x = (i & 1) ? half_width : -half_width, y = (i & 2) ? half_width : -half_width;
    const int leg = b.addParticle({.name = std::to_string(i).insert(0, "leg"), .position = {x, y, 0}, .mass = 0.5});
    b.addSpring({.a = top, .b = leg, .stiffness = 1e6, .damping = 200.0});
  }
  for (int i = 1; i <= 4; ++i) {
    for (int j = i + 1; j <= 4; ++j) b.addSpring({.a = i, .b = j, .stiffness = 1e6, .damping = 200.0});
  }
  return b.build();
}

TEST(Centroidal, StandingTableHasItsVrpAtTheComAndItsEcmpAtTheCop) {
  const double half_width = 0.15, height = 0.6;
  const Model model = table(half_width, height);
  State state = makeState(model);
  Workspace ws(model);
  std::vector<ChannelSpec> channels(7);
  const ChannelSpec::Kind kinds[] = {ChannelSpec::Kind::kCom, ChannelSpec::Kind::kCentreOfPressure,
                                     ChannelSpec::Kind::kPendulumFrequency, ChannelSpec::Kind::kDcm,
                                     ChannelSpec::Kind::kVrp, ChannelSpec::Kind::kEcmp,
                                     ChannelSpec::Kind::kBalanceMargin};
  for (int k = 0; k < 7; ++k) channels[k].kind = kinds[k];
  const Recorder recorder(model, channels);
  ASSERT_EQ(recorder.columns().size(), 17u);
  EXPECT_EQ(recorder.columns()[0], "com.x[m]");
  EXPECT_EQ(recorder.columns()[16], "balance_margin[m]");
  EXPECT_FALSE(recorder.mayBeUndefined(0));
  EXPECT_TRUE(recorder.mayBeUndefined(9));
  std::vector<double> row(recorder.columns().size());
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 1.0, [&](const State& s) {
    recorder.sample(s, &ws, row.data());
  });
  const double* com = &row[0];
  const double* cop = &row[3];
  const double omega = row[6];
  const double* dcm = &row[7];
  const double* vrp = &row[10];
  const double* ecmp = &row[13];
  // At rest: c̈ = 0, so omega = sqrt(g / Δz), ξ = c, v = c (Δz above the
  // CoM's ground projection) and the eCMP is the CoP, here under the CoM.
  EXPECT_NEAR(omega, std::sqrt(kG / com[2]), 1e-6);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(dcm[k], com[k], 1e-8);
    EXPECT_NEAR(vrp[k], com[k], 1e-6);
    EXPECT_NEAR(ecmp[k], cop[k], 1e-6);
  }
  EXPECT_NEAR(cop[0], 0.0, 1e-9);
  EXPECT_NEAR(cop[1], 0.0, 1e-9);
  EXPECT_NEAR(row[16], half_width, 1e-4);  // centre to edge; the legs sink a little
}

TEST(Centroidal, PushedTableHasItsDcmAheadOfItsCom) {
  // A sideways push on the top: the CoM moves toward +x, and the DCM leads
  // it by ċ / omega (11); the eCMP moves against the push by F / (m omega²).
  const Model model = table(0.15, 0.6);
  State state = makeState(model);
  Workspace ws(model);
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 0.5);
  state.applied_force.x[0] = 30.0;
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 0.05);
  const Centroidal c = centroidal(model, state);
  const BalancePoints p = balancePoints(c, model.gravity, model.ground.normal, model.ground.offset, 0.0);
  EXPECT_NEAR(c.external_force[0], 30.0 + totalGroundForce(model, state)[0], 1e-9);
  EXPECT_NEAR(p.dcm[0] - c.com[0], c.com_velocity[0] / p.omega, 1e-12);
  EXPECT_NEAR(c.com[0] - p.ecmp[0], c.external_force[0] / (c.mass * p.omega * p.omega), 1e-12);
  EXPECT_NEAR(p.omega, std::sqrt((kG + c.com_acceleration[2]) / c.com[2]), 1e-12);
}

TEST(Centroidal, AirborneModelHasNoBalancePoints) {
  ModelBuilder b;
  b.setGround(testing::groundModel(1e4, 0.0, 0.5, 0.4));
  b.addParticle({.name = "p", .position = {0, 0, 1.0}, .velocity = {1, 0, 0}, .mass = 1.0});
  const Model model = b.build();
  const State state = makeState(model);
  std::vector<ChannelSpec> channels(3);
  channels[0].kind = ChannelSpec::Kind::kDcm;
  channels[1].kind = ChannelSpec::Kind::kVrp;
  channels[2].kind = ChannelSpec::Kind::kBalanceMargin;
  const Recorder recorder(model, channels);
  std::vector<double> row(recorder.columns().size(), 0.0);
  recorder.sample(state, nullptr, row.data());
  // Free fall: g + c̈·n = 0, so omega, and every point built on it, is undefined.
  for (double v : row) EXPECT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace suitsim

namespace suitsim {
namespace {

TEST(ExternalForces, PushActsOverItsIntervalAtItsPoint) {
  const Model model = table(0.15, 0.6);
  State state = makeState(model);
  // A point of the first leg... the table's legs are single particles; use
  // weights directly: all on particle 0 (the top).
  PushSpec push;
  push.at.first_particle = 1;
  push.at.w = {0.1, 0.2, 0.3, 0.4};
  push.force = {10.0, 0.0, -5.0};
  push.start = 0.01;
  push.duration = 0.02;
  const double dt = 1e-3;
  ExternalForces external(model, dt, {push}, nullptr);
  int active = 0;
  for (int k = 0; k < 50; ++k) {
    state.time = k * dt;
    external.update(model, state);
    double fx = 0.0, fz = 0.0;
    for (int i = 0; i < model.num_particles; ++i) {
      fx += state.applied_force.x[i];
      fz += state.applied_force.z[i];
    }
    if (fx != 0.0) {
      ++active;
      EXPECT_NEAR(fx, 10.0, 1e-12);
      EXPECT_NEAR(fz, -5.0, 1e-12);
      EXPECT_NEAR(state.applied_force.x[4], 4.0, 1e-12);  // w = 0.4 on the fourth
    }
  }
  EXPECT_EQ(active, 20);  // [0.01, 0.03) at 1 ms steps
}

TEST(ExternalForces, AssistCommandsSeed003ForceLawOnlyOutsideTheRegion) {
  // The table moving sideways fast: its DCM is past the legs' footprint.
  const Model model = table(0.15, 0.6);
  State state = makeState(model);
  Workspace ws(model);
  testing::runFor(model, state, ws, Integrator::kVelocityVerlet, 1e-5, 0.3);
  BalanceAssistSpec spec;
  spec.at.first_particle = 1;
  spec.at.w = {1.0, 0.0, 0.0, 0.0};
  spec.kp = 4.0;
  spec.max_force = 1e6;
  spec.bandwidth_hz = 1e9;  // no lag: the applied force is the command
  spec.rate_hz = 1e5;
  spec.margin = 0.01;
  const double dt = 1e-5;
  {
    // At rest the DCM is over the middle: no force.
    ExternalForces external(model, dt, {}, &spec);
    external.update(model, state);
    EXPECT_EQ(external.assistCommand()[0], 0.0);
  }
  for (int i = 0; i < model.num_particles; ++i) state.velocity.x[i] = 1.0;  // ċ = 1 m/s: ξ ~ 0.25 m ahead
  ExternalForces external(model, dt, {}, &spec);
  external.update(model, state);
  const Centroidal c = centroidal(model, state);
  const BalancePoints p = balancePoints(c, model.gravity, model.ground.normal, model.ground.offset, 0.0);
  ASSERT_GT(p.dcm[0], 0.15);
  // ξ_d: the footprint (legs near x = ±0.15) shrunk by 1 cm, nearest to ξ.
  const double omega = p.omega;
  double front = -1.0;
  for (int i = 1; i <= 4; ++i) front = std::max(front, state.position.x[i]);
  const double xi_d = front - 0.01;
  const double v_r = p.dcm[0] - spec.kp * (xi_d - p.dcm[0]) / omega;  // (17), omega' = 0 at the first update
  const double expected = c.mass * omega * omega * (c.com[0] - v_r) - totalGroundForce(model, state)[0];  // (19)
  EXPECT_NEAR(external.assistCommand()[0], expected, 1e-6 * std::abs(expected));
  EXPECT_NEAR(external.assistForce()[0], expected, 1e-6 * std::abs(expected));
  // (The legs slide: friction already brakes the table harder than the law
  // asks, so the command is a forward push here; what matters is the law.)
  // The force limit keeps the direction.
  spec.max_force = 10.0;
  ExternalForces limited(model, dt, {}, &spec);
  limited.update(model, state);
  const Vec3& f = limited.assistCommand();
  EXPECT_NEAR(std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]), 10.0, 1e-9);
}

TEST(ExternalForces, BodyForcePointReproducesThePoint) {
  const Model model = table(0.15, 0.6);
  (void)model;
  // The table has no four-particle bodies: refused with the body's index.
  EXPECT_THROW(bodyForcePoint(model, 0, {0, 0, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace suitsim
