// Small robots built in code, shared by engine tests, evaluator tests and
// benchmarks (header-only, standard library only, no Eigen).
//
//   singlePendulum       fixed base, 1 revolute joint about y
//   doublePendulum       fixed base, planar, 2 revolute joints about y
//   spatialChain3        fixed base, 3 joints with non-parallel axes, rotated
//                        joint frames, off-centre CoMs, full inertia tensors
//   floatingHumanoid     floating pelvis, waist, two 2-DoF arms, two 4-DoF
//                        legs (13 movable joints), fixed head, IMU and soles
//   mimicHand            a palm, a thumb joint and four <mimic> joints that
//                        follow it (multipliers 2, -1.5, -2, 0.5)
//
// Every inertia tensor is built from principal moments that satisfy the
// triangle inequality strictly and a rotation, so each link is a physically
// valid rigid body (the engine can represent it with particles).
// Conventions are robot.h's (URDF): a joint's frame is its child's frame.
#pragma once

#include <array>
#include <cmath>
#include <string>

#include "suitsim/robot/robot.h"

namespace suitsim::testing {

/// Inertia {ixx, iyy, izz, ixy, ixz, iyz} (kg m^2) with principal moments
/// (i1, i2, i3) along the axes of Rz(yaw) Ry(pitch) Rx(roll): R diag(i) R^T.
inline std::array<double, 6> rotatedInertia(double i1, double i2, double i3, double roll = 0.0,
                                            double pitch = 0.0, double yaw = 0.0) {
  const double cr = std::cos(roll), sr = std::sin(roll);
  const double cp = std::cos(pitch), sp = std::sin(pitch);
  const double cy = std::cos(yaw), sy = std::sin(yaw);
  const double R[3][3] = {
      {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
      {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
      {-sp, cp * sr, cp * cr},
  };
  const double d[3] = {i1, i2, i3};
  auto entry = [&](int a, int b) {
    return R[a][0] * d[0] * R[b][0] + R[a][1] * d[1] * R[b][1] + R[a][2] * d[2] * R[b][2];
  };
  return {entry(0, 0), entry(1, 1), entry(2, 2), entry(0, 1), entry(0, 2), entry(1, 2)};
}

/// Appends a link; returns its index. The first link added is the root.
inline int addLink(RobotDescription& robot, const std::string& name, double mass, Vec3 com,
                   std::array<double, 6> inertia) {
  RobotLink link;
  link.name = name;
  link.inertial.mass = mass;
  link.inertial.com = com;
  link.inertial.inertia = inertia;
  robot.links.push_back(link);
  if (robot.root_link < 0) robot.root_link = 0;
  return static_cast<int>(robot.links.size()) - 1;
}

/// Appends a joint from link `parent` to link `child`; the axis is normalised.
/// Returns the joint index.
inline int addJoint(RobotDescription& robot, const std::string& name, JointType type, int parent,
                    int child, Vec3 xyz, Vec3 rpy = {0.0, 0.0, 0.0}, Vec3 axis = {1.0, 0.0, 0.0}) {
  RobotJoint joint;
  joint.name = name;
  joint.type = type;
  joint.parent_link = parent;
  joint.child_link = child;
  joint.origin_xyz = xyz;
  joint.origin_rpy = rpy;
  const double norm = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  joint.axis = norm > 0.0 ? Vec3{axis[0] / norm, axis[1] / norm, axis[2] / norm} : axis;
  robot.joints.push_back(joint);
  const int index = static_cast<int>(robot.joints.size()) - 1;
  robot.links[child].parent_joint = index;
  return index;
}

/// Fixed-base pendulum: joint "hinge" about +y at the origin of link "base";
/// link "arm" has its CoM at (0, 0, −length) and inertia `inertia_y` about
/// the axis through its CoM. With θ about +y, the CoM is at
/// (−l sin θ, 0, −l cos θ), so τ = (I + m l²) θ̈ + m g l sin θ.
inline RobotDescription singlePendulum(double mass = 1.3, double length = 0.6,
                                       double inertia_y = 0.02) {
  RobotDescription robot;
  robot.name = "single_pendulum";
  robot.floating_base = false;
  const int base = addLink(robot, "base", 0.0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
  const int arm = addLink(robot, "arm", mass, {0.0, 0.0, -length},
                          rotatedInertia(inertia_y, inertia_y, 0.2 * inertia_y));
  addJoint(robot, "hinge", JointType::kRevolute, base, arm, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0},
           {0.0, 1.0, 0.0});
  return robot;
}

/// Parameters of the planar double pendulum (SI units).
struct DoublePendulumParams {
  double m1 = 1.2, m2 = 0.8;     ///< link masses (kg)
  double l1 = 0.5;               ///< distance from joint 1 to joint 2 (m)
  double lc1 = 0.3, lc2 = 0.25;  ///< joint-to-CoM distances (m)
  double I1 = 0.03, I2 = 0.015;  ///< inertias about the y axis through the CoMs (kg m^2)
};

/// Fixed-base planar double pendulum in the x-z plane, both axes +y, hanging
/// down at θ = 0: joint "shoulder" at the origin of "base" moves "upper"
/// (CoM (0, 0, −lc1)); joint "elbow" at (0, 0, −l1) of "upper" moves "lower"
/// (CoM (0, 0, −lc2)). θ2 is relative to the upper link.
inline RobotDescription doublePendulum(const DoublePendulumParams& p = {}) {
  RobotDescription robot;
  robot.name = "double_pendulum";
  robot.floating_base = false;
  const int base = addLink(robot, "base", 0.0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
  const int upper = addLink(robot, "upper", p.m1, {0.0, 0.0, -p.lc1},
                            rotatedInertia(p.I1, p.I1, 0.1 * p.I1));
  const int lower = addLink(robot, "lower", p.m2, {0.0, 0.0, -p.lc2},
                            rotatedInertia(p.I2, p.I2, 0.1 * p.I2));
  addJoint(robot, "shoulder", JointType::kRevolute, base, upper, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0},
           {0.0, 1.0, 0.0});
  addJoint(robot, "elbow", JointType::kContinuous, upper, lower, {0.0, 0.0, -p.l1},
           {0.0, 0.0, 0.0}, {0.0, 1.0, 0.0});
  return robot;
}

/// Fixed-base 3-link spatial chain "base" - j1 - "link1" - j2 - "link2" - j3 -
/// "link3": non-parallel axes, joint frames rotated by roll-pitch-yaw, CoMs off
/// the axes and inertia tensors with products of inertia.
inline RobotDescription spatialChain3() {
  RobotDescription robot;
  robot.name = "spatial_chain3";
  robot.floating_base = false;
  const int base = addLink(robot, "base", 2.0, {0.0, 0.0, 0.05}, rotatedInertia(0.02, 0.02, 0.03));
  const int l1 = addLink(robot, "link1", 2.1, {0.04, 0.02, 0.18},
                         rotatedInertia(0.045, 0.040, 0.012, 0.3, -0.2, 0.5));
  const int l2 = addLink(robot, "link2", 1.4, {0.22, 0.03, -0.02},
                         rotatedInertia(0.006, 0.028, 0.025, -0.4, 0.25, 0.1));
  const int l3 = addLink(robot, "link3", 0.7, {0.12, -0.02, 0.035},
                         rotatedInertia(0.0025, 0.009, 0.0085, 0.6, 0.1, -0.7));
  addJoint(robot, "j1", JointType::kRevolute, base, l1, {0.0, 0.0, 0.1}, {0.0, 0.0, 0.0},
           {0.0, 0.0, 1.0});
  addJoint(robot, "j2", JointType::kRevolute, l1, l2, {0.05, -0.02, 0.35}, {0.3, -0.2, 0.5},
           {0.2, 1.0, 0.1});
  addJoint(robot, "j3", JointType::kContinuous, l2, l3, {0.42, 0.04, 0.01}, {-0.4, 0.15, 0.25},
           {1.0, 0.3, -0.25});
  return robot;
}

/// Floating-base humanoid-like tree, 46.2 kg, about 1.6 m tall; at θ = 0 the
/// soles are 0.88 m below the pelvis origin:
///   pelvis (root) ─ waist_yaw (z) ─ torso ─ neck (fixed) ─ head
///                 ├ imu_mount (fixed) ─ imu (massless)
///   torso ─ {l,r}_shoulder_pitch (y) ─ {l,r}_upper_arm ─ {l,r}_elbow (y) ─ {l,r}_forearm
///   pelvis ─ {l,r}_hip_roll (x) ─ {l,r}_hip ─ {l,r}_hip_pitch (y) ─ {l,r}_thigh
///          ─ {l,r}_knee (y) ─ {l,r}_shank ─ {l,r}_ankle_pitch (y) ─ {l,r}_foot
///          ─ {l,r}_sole_joint (fixed) ─ {l,r}_sole (massless contact frame)
/// Joint frames carry small rotations so that the axes are not all aligned
/// with the world axes.
inline RobotDescription floatingHumanoid() {
  RobotDescription robot;
  robot.name = "floating_humanoid";
  robot.floating_base = true;
  const std::array<double, 6> zero{0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  const int pelvis = addLink(robot, "pelvis", 8.0, {0.01, 0.0, 0.02},
                             rotatedInertia(0.06, 0.045, 0.07, 0.05, 0.0, 0.1));
  const int torso = addLink(robot, "torso", 12.0, {0.02, 0.0, 0.22},
                            rotatedInertia(0.25, 0.2, 0.1, 0.0, 0.1, 0.0));
  const int head = addLink(robot, "head", 3.0, {0.01, 0.0, 0.1}, rotatedInertia(0.015, 0.016, 0.012));
  const int imu = addLink(robot, "imu", 0.0, {0.0, 0.0, 0.0}, zero);
  addJoint(robot, "waist_yaw", JointType::kContinuous, pelvis, torso, {0.0, 0.0, 0.1},
           {0.0, 0.02, 0.0}, {0.0, 0.0, 1.0});
  addJoint(robot, "neck", JointType::kFixed, torso, head, {0.0, 0.0, 0.45}, {0.0, 0.15, 0.05});
  addJoint(robot, "imu_mount", JointType::kFixed, pelvis, imu, {-0.05, 0.0, 0.08}, {0.0, 0.0, 3.14159});
  for (int side = 0; side < 2; ++side) {
    const std::string s = side == 0 ? "l_" : "r_";
    const double y = side == 0 ? 1.0 : -1.0;  // mirror across the x-z plane
    const int upper = addLink(robot, s + "upper_arm", 1.6, {0.0, 0.02 * y, -0.13},
                              rotatedInertia(0.012, 0.0125, 0.002, 0.1 * y, 0.0, 0.0));
    const int fore = addLink(robot, s + "forearm", 1.1, {0.01, 0.0, -0.12},
                             rotatedInertia(0.007, 0.0075, 0.0012, 0.0, 0.05, 0.2 * y));
    addJoint(robot, s + "shoulder_pitch", JointType::kRevolute, torso, upper,
             {0.0, 0.2 * y, 0.38}, {0.15 * y, 0.0, 0.0}, {0.0, 1.0, 0.0});
    addJoint(robot, s + "elbow", JointType::kRevolute, upper, fore, {0.0, 0.0, -0.26},
             {0.0, 0.0, 0.1 * y}, {0.0, 1.0, 0.0});

    const int hip = addLink(robot, s + "hip", 0.9, {0.0, 0.0, -0.03}, rotatedInertia(0.002, 0.0022, 0.0015));
    const int thigh = addLink(robot, s + "thigh", 4.2, {0.01, 0.01 * y, -0.17},
                              rotatedInertia(0.05, 0.052, 0.009, 0.05 * y, 0.0, 0.0));
    const int shank = addLink(robot, s + "shank", 2.8, {0.0, 0.0, -0.16},
                              rotatedInertia(0.03, 0.031, 0.005, 0.0, 0.03, 0.0));
    const int foot = addLink(robot, s + "foot", 1.0, {0.03, 0.0, -0.04},
                             rotatedInertia(0.002, 0.0045, 0.005));
    const int sole = addLink(robot, s + "sole", 0.0, {0.0, 0.0, 0.0}, zero);
    addJoint(robot, s + "hip_roll", JointType::kRevolute, pelvis, hip, {0.0, 0.09 * y, -0.05},
             {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0});
    addJoint(robot, s + "hip_pitch", JointType::kRevolute, hip, thigh, {0.0, 0.0, -0.06},
             {0.0, 0.0, 0.05 * y}, {0.0, 1.0, 0.0});
    addJoint(robot, s + "knee", JointType::kRevolute, thigh, shank, {0.0, 0.0, -0.36},
             {0.0, 0.0, 0.0}, {0.0, 1.0, 0.0});
    addJoint(robot, s + "ankle_pitch", JointType::kRevolute, shank, foot, {0.0, 0.0, -0.34},
             {0.0, 0.0, 0.0}, {0.0, 1.0, 0.0});
    addJoint(robot, s + "sole_joint", JointType::kFixed, foot, sole, {0.03, 0.0, -0.07});
  }
  return robot;
}

/// A hand like JVRC-1's: palm "palm" (fixed or floating), a two-link thumb
/// and a two-link finger. Joint "thumb" (about x) is the one independent
/// joint; "thumb_tip" mimics it with multiplier 2, "finger" (about y) with
/// -1.5 and offset 0.1 (a sibling on the palm), "finger_tip" with -2 and
/// offset -0.05 (two links from the thumb), and "finger_side" (a tilted
/// axis, on the finger) with 0.5. Links of 30-80 g, a 0.4 kg palm.
inline RobotDescription mimicHand(bool floating) {
  RobotDescription robot;
  robot.name = "mimic_hand";
  robot.floating_base = floating;
  const int palm = addLink(robot, "palm", 0.4, {0.0, 0.0, -0.05}, rotatedInertia(4e-4, 3e-4, 2e-4, 0.1, 0.0, 0.0));
  const int thumb = addLink(robot, "thumb", 0.06, {0.0, 0.0, -0.025}, rotatedInertia(1.4e-5, 1.3e-5, 3e-6));
  const int thumb_tip = addLink(robot, "thumb_tip", 0.03, {0.0, 0.0, -0.015}, rotatedInertia(3e-6, 3.2e-6, 1e-6));
  const int finger = addLink(robot, "finger", 0.08, {0.0, 0.005, -0.03},
                             rotatedInertia(2.2e-5, 2.0e-5, 4e-6, 0.0, 0.1, 0.0));
  const int finger_tip = addLink(robot, "finger_tip", 0.04, {0.0, 0.0, -0.02}, rotatedInertia(5e-6, 5.5e-6, 1.5e-6));
  const int nail = addLink(robot, "nail", 0.03, {0.005, 0.0, -0.01}, rotatedInertia(2e-6, 2.4e-6, 1e-6, 0.2, 0.0, 0.3));
  auto mimic = [&](int joint, const std::string& leader, double multiplier, double offset) {
    robot.joints[joint].mimic = {leader, multiplier, offset};
  };
  const double limit = 3.0;
  auto bounded = [&](int joint) {
    robot.joints[joint].lower = -limit;
    robot.joints[joint].upper = limit;
  };
  bounded(addJoint(robot, "thumb", JointType::kRevolute, palm, thumb, {0.03, 0.0, -0.08}, {0.0, 0.0, 0.0},
                   {1.0, 0.0, 0.0}));
  const int thumb_tip_joint = addJoint(robot, "thumb_tip", JointType::kRevolute, thumb, thumb_tip,
                                       {0.0, 0.0, -0.05}, {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0});
  const int finger_joint = addJoint(robot, "finger", JointType::kRevolute, palm, finger, {-0.02, 0.01, -0.1},
                                    {0.0, 0.0, 0.2}, {0.0, 1.0, 0.0});
  const int finger_tip_joint = addJoint(robot, "finger_tip", JointType::kContinuous, finger, finger_tip,
                                        {0.0, 0.0, -0.06}, {0.0, 0.0, 0.0}, {0.0, 1.0, 0.0});
  const int side_joint = addJoint(robot, "finger_side", JointType::kRevolute, finger_tip, nail,
                                  {0.0, 0.0, -0.04}, {0.1, 0.0, 0.0}, {0.3, 0.2, 1.0});
  for (int j : {thumb_tip_joint, finger_joint, side_joint}) bounded(j);
  mimic(thumb_tip_joint, "thumb", 2.0, 0.0);
  mimic(finger_joint, "thumb", -1.5, 0.1);
  mimic(finger_tip_joint, "thumb", -2.0, -0.05);
  mimic(side_joint, "thumb", 0.5, 0.0);
  return robot;
}

}  // namespace suitsim::testing
