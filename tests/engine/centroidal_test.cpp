// The model's centroidal motion and balance points (centroidal.h) against
// hand-computed forces and closed forms, and the Recorder's balance channels.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "run_helpers.h"
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
  for (int i = 0; i < 4; ++i) {
    b.addParticle({.name = "p" + std::to_string(i),
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
    const int leg = b.addParticle({.name = "leg" + std::to_string(i), .position = {x, y, 0}, .mass = 0.5});
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
