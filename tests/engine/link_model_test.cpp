// The two link models (docs/engine.md, "The two link models"): hinged
// bodies as rigid bodies (the default), or Toda and Sankai's links held by
// their stiff spring-dampers alone, T(1)-(10), with every force reaching the
// particles by the points' weights and the rotation plane, T(11)-(12), held
// by the hinge rows solved on the particles' own mobility.
//
// With springs the links give under load by about F / k, k ~ m
// link_frequency^2, so the joint angles follow the rigid model with an error
// that falls about as 1 / link_frequency^2 (the step falling as 1 /
// link_frequency with it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "rigid_reference.h"
#include "robots.h"
#include "run_helpers.h"
#include "suitsim/articulated.h"
#include "suitsim/servo_stability.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

using testing::buildRobotModel;

// ---- convergence to the rigid model ------------------------------------------

// Each tenfold stiffer link (at a step 1 / (2 link_frequency)) cuts the
// error by about a hundred; the rigid links at the coarsest of those steps
// are far closer than the softest springs, so the error measured is the
// links' give, not the step's.
void expectSpringsConverge(const RobotDescription& robot, const std::vector<double>& angles) {
  const double soft = testing::worstAngleErrorFromRigidModel(robot, angles, 1.0, 3e3, 1e-3 / 6.0, LinkModel::kSprings);
  const double stiff = testing::worstAngleErrorFromRigidModel(robot, angles, 1.0, 3e4, 1e-3 / 60.0, LinkModel::kSprings);
  const double rigid = testing::worstAngleErrorFromRigidModel(robot, angles, 1.0, 3e3, 1e-3 / 6.0, LinkModel::kRigid);
  EXPECT_LT(stiff, 1e-4);
  EXPECT_GT(soft / stiff, 30.0);   // 1 / link_frequency^2 gives 100
  EXPECT_LT(rigid, 0.1 * soft);    // the springs' error is their own
}

TEST(LinkModel, DoublePendulumOnSpringsConvergesToTheRigidModel) {
  expectSpringsConverge(testing::doublePendulum(), {0.9, -0.6});
}

TEST(LinkModel, SpatialChainOnSpringsConvergesToTheRigidModel) {
  const RobotDescription robot = testing::spatialChain3();
  double rest_speed = 0.0;
  expectSpringsConverge(robot, testing::displacedFromRest(robot, {0.1, -0.1, 0.15}, &rest_speed));
}

// ---- invariants -------------------------------------------------------------

// The floating humanoid of robots.h in zero gravity, its joints driven by
// random motor currents that change every 10 ms: the torques are internal
// pairs, T(13)-(19), and the hinge rows' forces gradients of quantities a
// rigid motion of the whole robot does not change, so linear and angular
// momentum keep their values; the link springs are internal pairs too.
TEST(LinkModel, SpringsConserveMomentumUnderInternalTorques) {
  RobotDescription robot = testing::floatingHumanoid();
  for (RobotJoint& j : robot.joints) j.actuation.motor_constant = 1.0;
  const Model model = buildRobotModel(robot, {}, 2e4, LinkModel::kSprings, {0.0, 0.0, 0.0});
  State state = makeState(model);
  Workspace ws(model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < model.num_particles; ++i) state.velocity.set(i, {0.2, -0.1, 0.3});
  testing::MomentumDrift drift(model, state);
  double largest_rate = 0.0;
  for (int k = 0; k < 4000; ++k) {
    if (k % 400 == 0) {
      for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 2.0 * u(rng);
    }
    step(model, state, ws, Integrator::kVelocityVerlet, 2.5e-5);
    drift.add(state);
    for (int h = 0; h < model.num_hinges; ++h) largest_rate = std::max(largest_rate, std::abs(jointVelocity(model, state, h)));
  }
  ASSERT_TRUE(stateIsFinite(state));
  std::printf("[measured] spring links, random torques: momentum drift linear %.3g kg m/s, angular %.3g kg m^2/s, "
              "joint rates up to %.3g rad/s\n",
              drift.linear(), drift.angular(), largest_rate);
  EXPECT_GT(largest_rate, 1.0);  // the torques did move the joints
  EXPECT_LT(drift.linear(), 1e-10);
  EXPECT_LT(drift.angular(), 1e-9);
}

// The same run on one thread and on two gives the same bits (the springs'
// two passes and the hinge solve fix their order, whatever the team).
TEST(LinkModel, SpringsGiveTheSameBitsOnAnyThreadCount) {
  RobotDescription robot = testing::floatingHumanoid();
  for (RobotJoint& j : robot.joints) j.actuation.motor_constant = 1.0;
  const Model model = buildRobotModel(robot, {}, 2e4, LinkModel::kSprings, {0.0, 0.0, 0.0});
  std::vector<State> ends;
  for (int threads : {1, 2}) {
    State state = makeState(model);
    Workspace ws(model, threads);
    for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 0.1 * (h % 5 - 2);
    for (int k = 0; k < 1000; ++k) step(model, state, ws, Integrator::kRk4, 2.5e-5);
    ends.push_back(state);
  }
  EXPECT_EQ(ends[0].position.x, ends[1].position.x);
  EXPECT_EQ(ends[0].position.z, ends[1].position.z);
  EXPECT_EQ(ends[0].velocity.y, ends[1].velocity.y);
}

// Every hinged body of a spring-linked robot reports its fastest spring
// mode; rigid links report none (their springs do not limit the step). The
// tetrahedron's fastest mode sits at about link_frequency (k = (w^2 / 4)
// (m / 4) per edge: a regular one's breathing mode is exactly w).
TEST(LinkModel, LinkModesNameEveryHingedBodyNearLinkFrequency) {
  const RobotDescription robot = testing::spatialChain3();
  EXPECT_TRUE(linkModes(buildRobotModel(robot, {0.0, 0.0, 0.0}, 1e4, LinkModel::kRigid)).empty());
  const Model model = buildRobotModel(robot, {0.0, 0.0, 0.0}, 1e4, LinkModel::kSprings);
  const std::vector<LinkMode> modes = linkModes(model);
  ASSERT_EQ(modes.size(), 3u);  // the base is fixed: its particles do not move
  for (const LinkMode& l : modes) {
    EXPECT_GT(l.omega, 0.5e4) << model.body_name[l.body];
    EXPECT_LT(l.omega, 2e4) << model.body_name[l.body];
    EXPECT_GT(l.damping_ratio, 0.0);
    EXPECT_LT(l.bound, 2.0);
  }
}

// Below the bound the run holds; well past it the springs diverge. The
// bound is the free tetrahedron's (its breathing mode, omega = link_frequency
// for any shape of four equal masses); the hinges hold some of a body's
// points and lower its fastest mode, so it is on the safe side: here
// (zeta 0.42, bound 1.32) velocity Verlet held at 1.4 times the bound
// and diverged at 1.6 times (omega dt 1.85 and 2.12).

TEST(LinkModel, SpringsDivergePastTheirBoundAndHoldBelowIt) {
  const RobotDescription robot = testing::doublePendulum();
  const Model model = buildRobotModel(robot, {0.9, -0.6}, 1e4, LinkModel::kSprings);
  double omega_over_bound = 0.0;
  for (const LinkMode& l : linkModes(model)) omega_over_bound = std::max(omega_over_bound, l.omega / l.bound);
  for (const auto& [fraction, finite] : {std::pair{0.9, true}, std::pair{1.8, false}}) {
    State state = makeState(model);
    Workspace ws(model);
    const double dt = fraction / omega_over_bound;
    for (int k = 0; k < 20000 && stateIsFinite(state); ++k) step(model, state, ws, Integrator::kVelocityVerlet, dt);
    double largest = 0.0;
    for (int h = 0; h < model.num_hinges; ++h) largest = std::max(largest, std::abs(jointVelocity(model, state, h)));
    EXPECT_EQ(stateIsFinite(state) && largest < 100.0, finite) << "dt at " << fraction << " of the bound";
  }
}

// Mimic couplings act on rigid bodies only: refused with springs.
TEST(LinkModel, SpringsRefuseMimicCouplings) {
  ModelBuilder builder;
  RobotCompileOptions options;
  options.hinge.link_model = LinkModel::kSprings;
  addRobot(builder, testing::mimicHand(false), {}, {}, options);
  try {
    builder.build();
    FAIL() << "built";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("need the rigid link model"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace suitsim
