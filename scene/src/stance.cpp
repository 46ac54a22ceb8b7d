// The scene's robot on the evaluator's rigid model (stance.h).
#include "suitsim/scene/stance.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "robot_scene.h"
#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::io {

using Eigen::Vector3d;

Stance makeStance(const RobotDescription& known, const RobotPose& pose, const std::vector<ContactPoint>& contacts) {
  Stance s;
  s.model = eval::makeRigidModel(known);
  const eval::RigidModel& m = s.model;
  s.ground = eval::makeGroundPlane(Vector3d(pose.ground_normal[0], pose.ground_normal[1], pose.ground_normal[2]),
                                   pose.ground_offset);
  s.initial = eval::neutralConfiguration(m);
  s.joint_lower.resize(m.num_joints);
  s.joint_upper.resize(m.num_joints);
  for (int j = 0; j < m.num_joints; ++j) {
    const int d = m.joint_source[j];
    if (!pose.joint_angles.empty()) s.initial.joints(j) = pose.joint_angles[d];
    const RobotJoint& joint = known.joints[d];
    const bool limited = joint.type == JointType::kRevolute && joint.lower <= joint.upper;
    s.joint_lower(j) = limited ? joint.lower : -std::numeric_limits<double>::infinity();
    s.joint_upper(j) = limited ? joint.upper : std::numeric_limits<double>::infinity();
  }
  // The root's pose as the engine sets it (robot_compile.cpp): URDF rpy and
  // position, then moved along the normal so the lowest contact point
  // touches the ground.
  s.initial.base_R = rotationFromRpy(pose.base_rpy);
  s.initial.base_p = Vector3d(pose.base_position[0], pose.base_position[1], pose.base_position[2]);
  for (const ContactPoint& c : contacts) {
    const int f = eval::frameIndex(m, c.link);
    if (f < 0) throw std::invalid_argument("makeStance: contact on unknown link '" + c.link + "'");
    s.contacts.push_back({f, Vector3d(c.position[0], c.position[1], c.position[2])});
  }
  if (pose.place_on_ground && !s.contacts.empty()) {
    eval::RigidData data(m);
    eval::forwardKinematics(m, data, s.initial);
    double lowest = std::numeric_limits<double>::infinity();
    for (const eval::ContactPoint& c : s.contacts) {
      lowest = std::min(lowest, s.ground.normal.dot(data.frame_p_W[c.frame] + data.frame_R_W[c.frame] * c.point_F));
    }
    s.initial.base_p += (s.ground.offset - lowest) * s.ground.normal;
  }
  return s;
}

Stance makeStance(const SceneRobot& setup) {
  RobotDescription known = setup.apriori;
  for (const HeldObject& h : setup.held) {
    const int l = known.findLink(h.link);
    if (l < 0) throw std::invalid_argument("makeStance: held object on unknown link '" + h.link + "'");
    addPayload(known.links[l].inertial, h.mass, h.com, h.radius);
  }
  return makeStance(known, setup.initial_pose, setup.contacts);
}

std::vector<int> groundedLinks(const Stance& stance, eval::RigidData& data) {
  eval::forwardKinematics(stance.model, data, stance.initial);
  std::vector<int> out;
  for (const eval::ContactPoint& c : stance.contacts) {
    const Vector3d p = data.frame_p_W[c.frame] + data.frame_R_W[c.frame] * c.point_F;
    if (eval::heightAboveGround(stance.ground, p) > stance.contact_tolerance) continue;
    if (std::find(out.begin(), out.end(), c.frame) == out.end()) out.push_back(c.frame);
  }
  return out;
}

eval::FramePose initialFramePose(const Stance& stance, eval::RigidData& data, int frame) {
  eval::forwardKinematics(stance.model, data, stance.initial);
  return {frame, data.frame_R_W[frame], data.frame_p_W[frame]};
}

StanceBalance initialBalance(const Stance& stance) {
  eval::RigidData data(stance.model);
  StanceBalance b;
  b.com = eval::centerOfMass(stance.model, data, stance.initial);
  b.com_ground = eval::groundCoordinates(stance.ground, b.com);
  b.polygon = eval::supportPolygon(stance.model, data, stance.initial, stance.contacts, stance.ground,
                                   stance.contact_tolerance);
  b.margin = b.polygon.empty() ? std::numeric_limits<double>::quiet_NaN()
                               : eval::polygonMargin(b.polygon, b.com_ground);
  return b;
}

eval::ZmpSummary motionBalance(const SceneRobot& setup, const Stance& stance, double dt) {
  const eval::RigidModel& m = stance.model;
  if (!m.floating_base) throw std::invalid_argument("motionBalance: needs a floating-base robot");
  const Motion& motion = setup.joint_motion;
  if (motion.hinges().empty()) throw std::invalid_argument("motionBalance: the robot has no motion");
  eval::RigidData data(m);
  const std::vector<int> feet = groundedLinks(stance, data);
  if (feet.empty()) throw std::invalid_argument("motionBalance: no contact point on the ground");
  const eval::SupportPolygon polygon =
      eval::supportPolygon(m, data, stance.initial, stance.contacts, stance.ground, stance.contact_tolerance);
  const eval::FramePose support = initialFramePose(stance, data, feet.front());
  // The motion's description joints -> rigid joints.
  std::vector<int> joint_of_hinge(motion.hinges().size(), -1);
  for (int j = 0; j < m.num_joints; ++j) {
    for (std::size_t k = 0; k < motion.hinges().size(); ++k) {
      if (motion.hinges()[k] == m.joint_source[j]) joint_of_hinge[k] = j;
    }
  }
  std::vector<double> angle(motion.hinges().size()), rate(motion.hinges().size());
  const Eigen::VectorXd initial = stance.initial.joints;
  const eval::JointTrajectory trajectory = [&](double t, Eigen::VectorXd& angles, Eigen::VectorXd& rates) {
    motion.sample(t, angle.data(), rate.data());
    angles = initial;
    rates.setZero(m.num_joints);
    for (std::size_t k = 0; k < angle.size(); ++k) {
      if (joint_of_hinge[k] < 0) continue;
      angles(joint_of_hinge[k]) = angle[k];
      rates(joint_of_hinge[k]) = rate[k];
    }
  };
  return eval::zmpOverMotion(m, data, trajectory, 0.0, motion.duration(), dt, support, polygon, stance.ground);
}

}  // namespace suitsim::io
