// Fidelity of the particle robot against rigid-body dynamics: the same
// description simulated by the particle engine (clusters, rotation-plane
// hinges) and by the evaluator's rigid model (RK4 on forward dynamics).
//
// The particle links are springs, so they give under load; the angle error
// falls as 1 / link_frequency^2 (measured: 3000 -> 10000 rad/s cuts it 11x).
// With 10000 rad/s links a 0.1 ms step is stable and keeps the error below
// 1e-3 rad over the 2 s swings below (measured 1.2e-4 and 4.7e-4 rad).
#include <gtest/gtest.h>

#include <cmath>

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
  return worst;
}

TEST(Fidelity, DoublePendulumTracksRigidBodyDynamicsFor2s) {
  const RobotDescription robot = testing::doublePendulum();
  EXPECT_LT(worstAngleError(robot, {0.9, -0.6}, 2.0, 1e4, 1e-4), 1e-3);
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
  EXPECT_LT(worstAngleError(robot, angles, 2.0, 1e4, 1e-4), 1e-3);
}

}  // namespace
}  // namespace suitsim
