// A particle robot against the evaluator's rigid model (RK4 on forward
// dynamics, an independent formulation), released from rest under gravity:
// shared by tests/engine/fidelity_test.cpp (rigid links) and
// tests/engine/link_model_test.cpp (both link models).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "suitsim/articulated.h"
#include "suitsim/rigid/integrate.h"
#include "suitsim/step.h"

namespace suitsim::testing {

/// `robot` compiled alone (no contacts, no bands) in the pose `angles` (per
/// description joint), its links at `link_frequency` with `link_model`.
inline Model buildRobotModel(const RobotDescription& robot, const std::vector<double>& angles, double link_frequency,
                             LinkModel link_model, const Vec3& gravity = {0.0, 0.0, -9.81}) {
  ModelBuilder builder;
  builder.setGravity(gravity);
  RobotPose pose;
  pose.joint_angles = angles;
  RobotCompileOptions options;
  options.link_frequency = link_frequency;
  options.hinge.link_model = link_model;
  addRobot(builder, robot, pose, {}, options);
  return builder.build();
}

/// Releases `robot` at rest from `angles` (per description joint) under
/// gravity, its links compiled at `link_frequency` with `link_model`, and
/// returns the worst joint-angle difference (rad) from the rigid model,
/// compared every millisecond for `duration` seconds (velocity Verlet at
/// `dt`, a whole fraction of a millisecond).
inline double worstAngleErrorFromRigidModel(const RobotDescription& robot, const std::vector<double>& angles,
                                            double duration, double link_frequency, double dt,
                                            LinkModel link_model = LinkModel::kRigid) {
  const Model model = buildRobotModel(robot, angles, link_frequency, link_model);
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
  std::printf("[measured] %s links, link_frequency %g rad/s, dt %g s: worst joint-angle error %.3g rad\n",
              link_model == LinkModel::kSprings ? "spring" : "rigid", link_frequency, dt, worst);
  return worst;
}

/// The chain's hanging equilibrium (the rigid model run to rest with
/// damping) displaced by `offset` per rigid-model joint: a release pose
/// that swings every joint in 3-D. `rest_speed` gets |v| at the rest found.
inline std::vector<double> displacedFromRest(const RobotDescription& robot, const std::vector<double>& offset,
                                             double* rest_speed) {
  const eval::RigidModel rigid = eval::makeRigidModel(robot);
  eval::RigidData data(rigid);
  eval::RigidState rest = eval::makeRigidState(rigid);
  Eigen::VectorXd damping(rigid.nv);
  for (int k = 0; k < 100000; ++k) {
    damping = -1.0 * rest.v;
    eval::rk4Step(rigid, data, rest, damping, 1e-3);
  }
  *rest_speed = rest.v.norm();
  std::vector<double> angles(robot.joints.size(), 0.0);
  for (int j = 0; j < rigid.num_joints; ++j) angles[robot.findJoint(rigid.joint_name[j])] = rest.q.joints[j] + offset[j];
  return angles;
}

}  // namespace suitsim::testing
