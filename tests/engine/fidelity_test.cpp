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

#include "robots.h"
#include "suitsim/articulated.h"
#include "suitsim/eval/integrate.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

// Releases `robot` at rest from `angles` (per description joint) under
// gravity and returns the worst joint-angle difference from the rigid model,
// compared every millisecond for `duration` seconds.
double worstAngleError(const RobotDescription& robot, const std::vector<double>& angles, double duration,
                       double link_frequency, double dt) {
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  RobotPose pose;
  pose.joint_angles = angles;
  RobotCompileOptions options;
  options.link_frequency = link_frequency;
  addRobot(builder, robot, pose, {}, options);
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);

  const eval::RigidModel rigid = eval::makeRigidModel(robot);
  eval::RigidData data(rigid);
  eval::RigidState rs = eval::makeRigidState(rigid);
  std::vector<int> hinge_of(rigid.num_joints);
  for (int j = 0; j < rigid.num_joints; ++j) {
    hinge_of[j] = findHinge(model, rigid.joint_name[j]);
    rs.q.joints[j] = angles[robot.findJoint(rigid.joint_name[j])];
  }
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(rigid.nv);
  const int substeps = static_cast<int>(std::lround(1e-3 / dt));
  double worst = 0.0;
  for (long k = 0; k < std::lround(duration / 1e-3); ++k) {
    for (int s = 0; s < substeps; ++s) step(model, state, ws, Integrator::kVelocityVerlet, dt);
    for (int s = 0; s < 10; ++s) eval::rk4Step(rigid, data, rs, zero, 1e-4);
    for (int j = 0; j < rigid.num_joints; ++j) {
      const double diff = std::remainder(jointAngle(model, state, hinge_of[j]) - rs.q.joints[j], 2.0 * M_PI);
      worst = std::max(worst, std::abs(diff));
    }
  }
  std::printf("[measured] link_frequency %g rad/s, dt %g s: worst joint-angle error %.3g rad\n", link_frequency, dt,
              worst);
  return worst;
}

TEST(Fidelity, DoublePendulumTracksRigidBodyDynamicsFor2s) {
  const RobotDescription robot = testing::doublePendulum();
  EXPECT_LT(worstAngleError(robot, {0.9, -0.6}, 2.0, 1e3, 5e-4), 1e-3);
}

TEST(Fidelity, SpatialChainTracksRigidBodyDynamicsFor2s) {
  // The chain's zero pose is far from equilibrium (released there it whips
  // link3 round at 40 rad/s). Find the hanging equilibrium with the rigid
  // model and damping, then release it from a displaced pose: a 3-D swing of
  // all three joints at up to 2.5 rad/s.
  const RobotDescription robot = testing::spatialChain3();
  const eval::RigidModel rigid = eval::makeRigidModel(robot);
  eval::RigidData data(rigid);
  eval::RigidState rest = eval::makeRigidState(rigid);
  Eigen::VectorXd damping(rigid.nv);
  for (int k = 0; k < 100000; ++k) {
    damping = -1.0 * rest.v;
    eval::rk4Step(rigid, data, rest, damping, 1e-3);
  }
  ASSERT_LT(rest.v.norm(), 1e-9);
  const double offset[3] = {0.1, -0.1, 0.15};
  std::vector<double> angles(robot.joints.size(), 0.0);
  for (int j = 0; j < rigid.num_joints; ++j) {
    angles[robot.findJoint(rigid.joint_name[j])] = rest.q.joints[j] + offset[j];
  }
  EXPECT_LT(worstAngleError(robot, angles, 2.0, 1e3, 5e-4), 1e-3);
}

}  // namespace
}  // namespace suitsim
