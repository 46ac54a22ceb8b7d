// Everything the evaluator may know about an experiment, and nothing else:
// the a-priori ("CAD") robot, where the sensors are mounted, what each trial
// did (motion, suit worn, loads held), how the suit's bands are routed as
// designed, and the evaluation settings the scene declares. The types below
// have no field for a true parameter (band stiffness or natural length, the
// robot's true masses or frictions), so no loader can hand the truth to the
// evaluator through them: that is the firewall between the simulator and
// the evaluator (scoring reads the truth separately, report/truth.h).
#pragma once

#include <string>
#include <vector>

#include "suitsim/rigid/balance.h"
#include "suitsim/eval/identification.h"
#include "suitsim/eval/streams.h"
#include "suitsim/eval/wires.h"
#include "suitsim/robot/robot.h"

namespace suitsim::eval {

/// One trial as the experimenter ran it (A §5).
struct TrialInfo {
  std::string name;     ///< names the trial's stream directory
  std::string motion;   ///< reference motion
  std::string suit;     ///< suit worn, "none" without
  std::string device = "none";  ///< powered device worn (DeviceDesign::name), "none" without
  std::string purpose;  ///< "identification" or "evaluation"
  int line = 0;         ///< line of its <trial> in the scene
  std::vector<HeldLoad> held;   ///< known loads held during the motion
  std::vector<BandRoute> bands; ///< the suit as designed (routing only), empty without a suit
  /// Joints the band fit uses for this motion, as the scene declares them
  /// (empty: derived, see suit_fit.h).
  std::vector<std::string> fit_joints;
};

/// True for a trial that wears neither a suit nor a device (the bare trial
/// approach A, A(3), subtracts, and the robot's validation).
inline bool wearsNothing(const TrialInfo& t) { return t.suit == "none" && t.device == "none"; }

/// A powered device as designed (an <exoskeleton>, exoskeleton.h): its
/// segments, hinges and motors as the maker specifies them, where it is
/// worn and strapped, and its controller's fixed constants. Its controller's
/// settings (the virtual impedance and the assist) are what the evaluation
/// identifies, so they have no field here.
struct DeviceDesign {
  std::string name;
  /// The device as a robot of its own (root: the segment on the robot's
  /// root_link; joint k: a device hinge; link frames as it is built), with
  /// the motors' k_T, torque offset, friction and rotor inertia of the
  /// datasheet in each joint's actuation.
  RobotDescription description;
  std::vector<std::string> joints;          ///< device hinges (description joint names), in segment order
  std::vector<std::string> aligned_joints;  ///< the robot joint each lines up with, same order
  /// The robot link each device hinge's child segment is worn on, same order.
  std::vector<std::string> worn_links;
  std::string root_link;                    ///< robot link the root segment is worn on
  std::vector<std::string> strap_links;     ///< robot link each strap holds, in strap order
  double coulomb_velocity = 0.0;            ///< the controller's smoothed sign, tanh(q'/v_c) (rad/s)
  double acceleration_cutoff_hz = 0.0;      ///< the controller's filter on its differenced rate (firmware)
  double control_rate_hz = 0.0;             ///< the controller's rate (firmware)
};

struct EvaluationInputs {
  std::string scene_path;
  std::string scene_name;
  RobotDescription apriori;     ///< the a-priori robot (never the true one)
  SensorLayout layout;          ///< sensor mounting, link frames
  /// Where the robot touches the ground, as designed (the scene's <contact>
  /// points, frames of makeRigidModel(apriori)): the soles' corners.
  std::vector<ContactPoint> soles;
  double sensor_rate_hz = 0.0;
  std::vector<TrialInfo> trials;  ///< every trial of the experiment (one unnamed for a plain scene)
  std::vector<DeviceDesign> devices;  ///< every device a trial wears, in the order first worn
  /// Joints the validation reports (A §5.2), as declared; empty: derived.
  std::vector<std::string> validation_joints;
  /// The stiffness of the straps that anchor each band end, as a tensile
  /// test of the straps measured it (<apriori attachment_stiffness>, N/m per
  /// strap; 0: not stated). A measurement, not the truth's straps.
  double attachment_stiffness = 0.0;
  /// A fixed base (apriori.floating_base false): where the root is welded,
  /// world from base, as the rig was set up (the scene's <robot pos rpy>):
  /// the experimenter's knowledge. It says where gravity points in the base
  /// frame. Unused on a floating base.
  Eigen::Matrix3d rig_R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d rig_p = Eigen::Vector3d::Zero();  ///< (m)
  int robot_line = 0;  ///< line of the scene's <robot>, for messages
};

}  // namespace suitsim::eval
