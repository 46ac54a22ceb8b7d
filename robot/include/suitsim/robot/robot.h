// A robot as a kinematic tree of rigid links and joints: the one description
// that both sides use. The engine compiles it into particles; the evaluator
// builds its rigid-body model from it (from the a-priori copy only).
//
// Frames follow URDF: every link has a frame; a joint's frame is placed in its
// parent link's frame by (origin_xyz, origin_rpy) and IS the child link's
// frame; the joint axis is a unit vector in that frame. Angles in radians,
// SI units throughout.
#pragma once

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "suitsim/core/vec3.h"

namespace suitsim {

/// Inertial parameters of one link, in the link's frame.
struct LinkInertial {
  double mass = 0.0;           ///< (kg), >= 0; 0 for a massless frame link
  Vec3 com{0.0, 0.0, 0.0};     ///< centre of mass (m)
  /// Inertia tensor about the centre of mass, axes of the link frame
  /// (kg m^2): {ixx, iyy, izz, ixy, ixz, iyz}. URDF's <inertial><origin rpy>
  /// is folded in by the reader, so this is always in link-frame axes.
  std::array<double, 6> inertia{0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
};

/// One URDF <collision> element of a link, in the link's frame. Only the
/// primitives carry a shape; a mesh (or a geometry the reader does not know)
/// is kept as kOther, so a user can tell "a mesh" from "no collision".
struct CollisionShape {
  enum class Kind { kSphere, kCylinder, kBox, kOther };
  Kind kind = Kind::kOther;
  Vec3 origin_xyz{0.0, 0.0, 0.0};  ///< shape centre in the link frame (m)
  Vec3 origin_rpy{0.0, 0.0, 0.0};  ///< fixed-axis roll, pitch, yaw of the shape's axes (rad)
  double radius = 0.0;             ///< sphere, cylinder (m)
  double length = 0.0;             ///< cylinder, along its z axis (m)
  Vec3 size{0.0, 0.0, 0.0};        ///< box edges along its x, y, z (m)
  std::string geometry;            ///< the geometry element's name ("mesh", ...) for kOther; empty if none
};

struct RobotLink {
  std::string name;
  std::string source;     ///< "file:line" of the element that defined it (empty if built in code)
  int parent_joint = -1;  ///< joint whose child this link is; -1 for the root
  LinkInertial inertial;
  /// Its URDF <collision> elements, file order (empty: none, or not from a
  /// URDF). Nothing in the engine uses them; excitation design checks
  /// self-collision with them (design/self_collision.h).
  std::vector<CollisionShape> collision;
};

enum class JointType { kRevolute, kContinuous, kPrismatic, kFixed, kFloating, kPlanar };

/// The URDF name of a joint type ("revolute", ...).
const char* jointTypeName(JointType type);

/// Actuator and friction parameters of a joint, A(6)-(7).
struct JointActuation {
  double motor_constant = 1.0;   ///< k_T: torque per unit motor current (N m/A)
  double torque_offset = 0.0;    ///< tau_o: torque at zero current (N m)
  double viscous = 0.0;          ///< k_d: viscous friction (N m s/rad)
  double coulomb = 0.0;          ///< tau_c: Coulomb friction (N m)
  double static_max = 0.0;       ///< tau_s^max: largest static friction (N m), >= coulomb
  double stribeck_velocity = 0.0;  ///< speed scale of the Stribeck drop (rad/s); 0 disables it
  /// Rotor inertia reflected through the gear train, I_rotor N^2 (kg m^2):
  /// the joint's generalised inertia gains it (as MuJoCo's joint armature).
  /// 0: no rotor. Last, so positional initialisers of the fields above hold.
  double armature = 0.0;
  /// The gear train's efficiency (docs/realism.md): the share of the motor's
  /// torque k_T u + tau_o that reaches the link while the motor drives it,
  /// and 1 / backdrive_efficiency times it while the link drives the motor,
  /// blended over |theta'| < gear_transition_velocity. 1, 1: ideal.
  double gear_efficiency = 1.0;
  double backdrive_efficiency = 1.0;
  double gear_transition_velocity = 0.01;  ///< (rad/s)
  /// The windings' heating (docs/realism.md): the motor's torque per ampere
  /// falls as its magnets warm, k_T (1 + magnet_coefficient dT), dT the
  /// winding's rise above the temperature k_T was rated at. The copper
  /// loss heats it: P = (k_T u)^2 / km^2 (1 + alpha_Cu dT), km the motor
  /// constant seen at the joint (N m / sqrt(W)); it cools through
  /// thermal_resistance (K/W) with time constant thermal_time_constant (s).
  /// km = 0: no heating, k_T constant.
  double km = 0.0;
  double thermal_resistance = 0.0;
  double thermal_time_constant = 0.0;
  double magnet_coefficient = 0.0;    ///< (1/K), about -0.0012 for NdFeB magnets
  double initial_winding_rise = 0.0;  ///< dT at the start (K)
  /// The gear train's compliance and backlash (docs/engine.md#gear-compliance):
  /// gear_stiffness > 0 makes the rotor (armature, required > 0) a degree of
  /// freedom of its own, joined to the link by a torsional spring of this
  /// stiffness (N m/rad) with a dead band of total width gear_backlash (rad)
  /// and a damper gear_damping (N m s/rad) acting while the teeth touch.
  /// The motor drives the rotor; the link feels the spring. 0: rigid (the
  /// rotor moves with the joint, as MuJoCo's armature).
  double gear_stiffness = 0.0;
  double gear_backlash = 0.0;
  double gear_damping = 0.0;
  /// Where the joint's encoder sits: false on the link (it reads the joint
  /// angle), true on the motor (it reads the rotor's angle over the gear
  /// ratio, and the servo closes its loop on that). Only with a compliant gear.
  bool encoder_on_motor = false;
  /// The a-priori set only: k_T was calibrated on a bench
  /// (<apriori known_motor_constants>) and is taken as exact by the
  /// identification; on a fixed base it sets the scale that joint rows
  /// alone leave open (docs/method.md, "Fixed base").
  bool motor_constant_known = false;
};

/// URDF <mimic>: the joint's angle follows another joint's,
/// q = multiplier * q_leader + offset. The engine enforces it as an internal
/// constraint (a coupling torque pair on each of the two joints); a follower
/// has no motor of its own.
struct JointMimic {
  std::string joint;        ///< the leader's name; empty: not a mimic joint
  double multiplier = 1.0;  ///< (rad/rad)
  double offset = 0.0;      ///< (rad)
};

struct RobotJoint {
  std::string name;
  std::string source;     ///< "file:line" of the element that defined it (empty if built in code)
  JointType type = JointType::kRevolute;
  int parent_link = -1;
  int child_link = -1;
  Vec3 origin_xyz{0.0, 0.0, 0.0};  ///< joint frame origin in the parent link frame (m)
  Vec3 origin_rpy{0.0, 0.0, 0.0};  ///< fixed-axis roll, pitch, yaw of the joint frame (rad)
  Vec3 axis{1.0, 0.0, 0.0};        ///< unit axis in the joint frame
  double lower = -std::numeric_limits<double>::infinity();  ///< position limit (rad)
  double upper = std::numeric_limits<double>::infinity();   ///< position limit (rad)
  double effort_limit = std::numeric_limits<double>::infinity();    ///< (N m)
  double velocity_limit = std::numeric_limits<double>::infinity();  ///< (rad/s)
  JointActuation actuation;
  JointMimic mimic;  ///< URDF <mimic>; mimic.joint empty for an independent joint
};

struct RobotDescription {
  std::string name;
  std::vector<RobotLink> links;
  std::vector<RobotJoint> joints;
  int root_link = -1;          ///< the one link that is no joint's child
  bool floating_base = true;   ///< false: the root is welded to the world

  int findLink(const std::string& name) const;
  int findJoint(const std::string& name) const;
  double totalMass() const;
  /// Joints that move (revolute, continuous, prismatic), in tree order.
  std::vector<int> movableJoints() const;
  /// The joint that joint j follows by a <mimic> coupling, or -1 when j is
  /// not a mimic joint or does not move (a follower frozen by a scene is
  /// fixed, and no longer coupled).
  int mimicLeader(int j) const;
};

/// Puts a description built in any order into tree order, the order the URDF
/// reader gives: links[0] is the root, joint j's child is link j + 1, depth
/// first with siblings in their original joint order; fills root_link and
/// parent_joint. Throws std::invalid_argument naming the link or joint when
/// the links and joints do not form one tree (unknown link, a link with two
/// parents, no root or several, a cycle, a joint from a link to itself).
void orderTree(RobotDescription& robot);

}  // namespace suitsim
