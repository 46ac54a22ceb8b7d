// Fidelity of the particle robot against rigid-body dynamics: the same
// description simulated by the particle engine (clusters, rotation-plane
// hinges) and by the evaluator's rigid model (RK4 on forward dynamics).
//
// Hinged links move as rigid bodies (engine/src/hinges.cpp: every force on
// a body acts on it as on a rigid body, with the centripetal accelerations
// of its spin), so the links no longer give under load and their springs
// only hold the tetrahedra against integration drift. Both swings run at
// the humanoid scenes' settings, link_frequency 1000 rad/s and a 0.5 ms
// step (measured 1.9e-4 and 3.6e-5 rad over 2 s; at 0.1 ms 4.7e-6 and
// 6.4e-6 rad: the error falls about as the step). With stiff spring links
// (10000 rad/s, which needed the 0.1 ms step) it was 1.2e-4 and 4.7e-4 rad,
// falling as 1 / link_frequency^2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "rigid_reference.h"
#include "robots.h"
#include "suitsim/articulated.h"
#include "suitsim/rigid/integrate.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

TEST(Fidelity, DoublePendulumTracksRigidBodyDynamicsFor2s) {
  const RobotDescription robot = testing::doublePendulum();
  EXPECT_LT(testing::worstAngleErrorFromRigidModel(robot, {0.9, -0.6}, 2.0, 1e3, 5e-4), 1e-3);
}

TEST(Fidelity, SpatialChainTracksRigidBodyDynamicsFor2s) {
  // The chain's zero pose is far from equilibrium (released there it whips
  // link3 round at 40 rad/s). Find the hanging equilibrium with the rigid
  // model and damping, then release it from a displaced pose: a 3-D swing of
  // all three joints at up to 2.5 rad/s.
  const RobotDescription robot = testing::spatialChain3();
  double rest_speed = 0.0;
  const std::vector<double> angles = testing::displacedFromRest(robot, {0.1, -0.1, 0.15}, &rest_speed);
  ASSERT_LT(rest_speed, 1e-9);
  EXPECT_LT(testing::worstAngleErrorFromRigidModel(robot, angles, 2.0, 1e3, 5e-4), 1e-3);
}

}  // namespace
}  // namespace suitsim
