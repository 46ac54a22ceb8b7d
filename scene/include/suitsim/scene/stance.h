// A scene's robot as the experimenter knows it, standing in its initial
// pose: the evaluator's rigid model of the a-priori description plus the
// objects held in the trial's motion, placed as the engine places the true
// robot. Task-space keyframes are solved on it (inverse kinematics) and
// `suitsim info` reports its balance (CoM, support polygon, ZMP margin).
//
// Why the a-priori set and not the truth: a motion is authored with what the
// experimenter knows (the "CAD" masses and the objects they hand the robot);
// the hidden payloads stay hidden, so a CoM target is met on the known model
// and the true robot's CoM lands a little off, as on a real robot.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/rigid_model.h"
#include "suitsim/scene/scene.h"

namespace suitsim::io {

struct Stance {
  eval::RigidModel model;                    ///< a-priori description + held objects
  eval::Configuration initial;               ///< initial stance (root placed on the ground like the engine's)
  std::vector<eval::ContactPoint> contacts;  ///< the scene's <contact> points, in order
  eval::GroundPlane ground;                  ///< the scene's ground plane (z = 0, +z up without <ground>)
  Eigen::VectorXd joint_lower, joint_upper;  ///< joint limits (rad), (num_joints); ±inf where none
  /// Contact points within this distance of the ground are on it (m).
  double contact_tolerance = 1e-3;
};

/// The stance of `setup` (its a-priori set, held objects, initial pose and
/// contacts). Throws std::invalid_argument when the description cannot be
/// turned into a rigid model.
Stance makeStance(const SceneRobot& setup);

/// The same from its parts: `known` is the description to use as it is.
Stance makeStance(const RobotDescription& known, const RobotPose& pose, const std::vector<ContactPoint>& contacts);

/// Links (frame indices) with a contact point on the ground in the initial
/// stance, in the order of their first <contact> point.
std::vector<int> groundedLinks(const Stance& stance, eval::RigidData& data);

/// World pose of frame `frame` in the initial stance.
eval::FramePose initialFramePose(const Stance& stance, eval::RigidData& data, int frame);

/// Balance of the initial stance.
struct StanceBalance {
  Eigen::Vector3d com = Eigen::Vector3d::Zero();        ///< centre of mass, world (m)
  Eigen::Vector2d com_ground = Eigen::Vector2d::Zero();  ///< its ground projection, ground coordinates (m)
  eval::SupportPolygon polygon;                         ///< support polygon, ground coordinates (m)
  double margin = 0.0;  ///< polygonMargin of the CoM projection (= static ZMP) (m); NaN without polygon
};
StanceBalance initialBalance(const Stance& stance);

/// The ZMP over the setup's motion, the feet flat: the first grounded link
/// stays at its initial pose, joints the motion does not name keep their
/// initial angles; sampled every `dt` over [0, motion duration]. Throws
/// std::invalid_argument without a motion, a floating base or a polygon.
eval::ZmpSummary motionBalance(const SceneRobot& setup, const Stance& stance, double dt = 0.01);

}  // namespace suitsim::io
