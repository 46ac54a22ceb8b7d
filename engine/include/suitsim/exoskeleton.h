// A powered exoskeleton worn on the robot, under virtual-impedance control
// (seed 001, first part: Lee and Sankai, HAL-3).
//
// The device is a second articulated body in the same particle model: its
// segments are particle clusters (one per segment, as a robot's links), its
// joints rotation-plane hinges with their own motors and friction, T(11)-(19),
// and it is held on the robot's links by straps (Model: spring-dampers
// between a point of a segment and a point of the link it is worn on). It
// has no contact with the ground: its weight and everything its motors do
// reach the robot through the straps alone, which is what the evaluation
// measures (A(1)-(4): the device's effect is the difference its forces make).
//
// Each device joint is built on the robot joint it lines up with: same
// centre, same axis, in the robot's initial pose; its angle reads as that
// joint's angle while the two stay aligned. Robot joints between the two
// worn-on links other than that one are taken as they stand in the initial
// pose (a hip device's pitch hinge does not roll with the hip): where the
// robot moves them, the straps give.
//
// The controller (seed 001, virtual impedance): at its own rate it reads each
// device joint's angle and rate, estimates its acceleration by a filtered
// difference of the rate, and commands the motor torque
//
//   tau_m = (I_d - I_v) a + (b_d - b_v) q' + (c_d - c_v) tanh(q'/v_c) - (1 - g_v) G_d + k_a s
//
// where I_d is the device's own inertia about the joint (the segments beyond
// it, and the rotor's armature), b_d, c_d its joint's viscous and Coulomb
// friction, G_d the moment gravity exerts on the segments beyond the joint
// about its axis, and s the wearer's own torque at the joint the device
// lines up with (the assist's input: HAL reads it from the wearer's
// bioelectric signals; here the robot servo's desired torque, the robot's
// intent). The joint's equation,
// I_d q'' = tau_m + tau_w - b_d q' - c_d sgn(q') + G_d, then leaves the
// wearer's torque tau_w = I_v q'' + b_v q' + c_v sgn(q') - g_v G_d - k_a s:
// the wearer feels a device of inertia I_v, viscosity b_v, Coulomb friction
// c_v and g_v of its weight's moment, and is helped by k_a of its own torque.
// The controller knows its own geometry and reads its own state exactly (an
// idealised encoder and attitude sensor, named so in docs/devices.md); what
// it cannot know is the wearer, so the strap forces are not in the law.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/model.h"
#include "suitsim/robot/robot.h"
#include "suitsim/state.h"

namespace suitsim {

/// What the wearer is to feel of one device joint (seed 001's virtual
/// inertia moment, viscous friction, gravitational moment and Coulomb
/// friction), and the assist.
struct VirtualImpedance {
  double inertia = 0.0;  ///< I_v (kg m^2)
  double viscous = 0.0;  ///< b_v (N m s/rad)
  double gravity = 1.0;  ///< g_v: share of the device's own gravity moment left to the wearer (1: all)
  double coulomb = 0.0;  ///< c_v (N m)
  double assist = 0.0;   ///< k_a: the motor adds k_a x the wearer's own torque at the joint
};

/// One segment of the device: a rigid part worn on one robot link.
struct ExoSegment {
  std::string name;    ///< unique in the device
  std::string source;  ///< "file:line" of its element (empty if built in code)
  int link = -1;       ///< robot description link it is worn on
  int parent = -1;     ///< parent segment (an earlier one), -1 for the root
  /// Robot description joint the segment's hinge lines up with (on the path
  /// between the two worn-on links); -1 for the root, which has no hinge.
  int joint = -1;
  LinkInertial inertial;      ///< mass, centre and inertia in the worn-on link's frame
  JointActuation actuation;   ///< its hinge's motor, friction and rotor (k_T, tau_o, b_d, c_d, armature)
  double effort_limit = std::numeric_limits<double>::infinity();  ///< |tau_m| limit (N m)
  VirtualImpedance impedance;  ///< its hinge's controller setting
};

/// A strap: a point of a segment tied to the same point of the link it is worn on.
struct ExoStrap {
  std::string source;
  int segment = -1;
  Vec3 point{0.0, 0.0, 0.0};  ///< in the worn-on link's frame (m)
  double stiffness = 0.0;     ///< (N/m), > 0
  double damping = 0.0;       ///< (N s/m), >= 0
};

struct ExoskeletonSpec {
  std::string name;
  std::string source;
  std::vector<ExoSegment> segments;  ///< the root first, every parent before its children
  std::vector<ExoStrap> straps;
  double rate_hz = 1000.0;                ///< controller rate
  double acceleration_cutoff_hz = 20.0;   ///< first-order filter on the differenced rate
  double coulomb_velocity = 0.01;         ///< v_c of the smoothed sign (rad/s)
};

/// Names the device's parts get in the model: segment bodies and hinges
/// "DEVICE.SEGMENT", straps "DEVICE.SEGMENT.strapK" (K from 0 per segment).
std::string exoPartName(const ExoskeletonSpec& spec, int segment);

/// What addExoskeleton built.
struct CompiledExoskeleton {
  RobotDescription description;  ///< the device as a floating robot (segment k: link segment_link[k])
  CompiledRobot compiled;        ///< where it went in the builder
  std::vector<int> segment_link;  ///< description link of each segment
  std::vector<int> strap;         ///< builder strap index of each ExoStrap
  std::vector<std::string> strap_name;  ///< model name of each ExoStrap
};

/// Compiles the device into `builder` beside the robot `robot` compiled as
/// `worn_on` in `pose` (the robot's initial joint angles), and straps it on.
/// Throws ModelError (with the element's "file:line: ") for a segment whose
/// joint does not lie between its link and its parent's, a segment without
/// mass or volume, a joint that is not revolute or continuous, or a device
/// without straps on every segment.
CompiledExoskeleton addExoskeleton(ModelBuilder& builder, const RobotDescription& robot,
                                   const CompiledRobot& worn_on, const RobotPose& pose, const ExoskeletonSpec& spec,
                                   const RobotCompileOptions& options);

/// The virtual-impedance controller of one device. Call update() before
/// every step, after the robot's servo (its desired torques are the assist's
/// input): it sets the device hinges' currents when a control period has
/// passed and holds them between. Allocates nothing after construction.
class ExoskeletonController {
 public:
  ExoskeletonController(const Model& model, const ExoskeletonSpec& spec, const RobotDescription& robot);
  /// `wearer_torque` (num_hinges, may be null: no assist input) is the
  /// robot's own desired joint torque, indexed by model hinge.
  void update(const Model& model, State& state, const std::vector<double>* wearer_torque);

  /// Model hinges the controller drives (one per jointed segment), in segment order.
  const std::vector<int>& hinges() const { return hinge_; }
  /// Per driven hinge, at the last update: the acceleration estimate (rad/s^2),
  /// the device's own inertia I_d (kg m^2) and gravity moment G_d (N m), the
  /// assist input s (N m) and the commanded torque tau_m (N m, after the limit).
  const std::vector<double>& acceleration() const { return accel_; }
  const std::vector<double>& ownInertia() const { return inertia_; }
  const std::vector<double>& gravityMoment() const { return gravity_; }
  const std::vector<double>& assistInput() const { return assist_input_; }
  const std::vector<double>& torque() const { return torque_; }
  /// The joint the assist reads for each driven hinge (model hinge), -1 when unknown.
  const std::vector<int>& alignedHinge() const { return aligned_; }
  /// The setting of each driven hinge.
  const std::vector<VirtualImpedance>& impedance() const { return impedance_; }

 private:
  double period_, alpha_, coulomb_velocity_;
  double next_update_ = -1.0;
  std::vector<int> hinge_, aligned_;
  std::vector<VirtualImpedance> impedance_;
  std::vector<double> limit_;
  std::vector<std::vector<int>> particles_;  // particles beyond each hinge (its segments' subtree)
  std::vector<double> previous_rate_, accel_, inertia_, gravity_, assist_input_, torque_;
  bool started_ = false;
};

/// The moment about each hinge's axis of the strap forces on the bodies
/// beyond it (its child's side, away from its tree's root), the straps
/// evaluated at `state`: for a robot joint, the device's supporting torque
/// as the evaluator defines it (a motor torque that did the same to the
/// joint), (num_hinges) into `out`. Allocates nothing when `out` has its size.
void strapJointTorques(const Model& model, const State& state, std::vector<double>& out);

}  // namespace suitsim
