// The robot as excitation design sees it (Kang et al. 2023): the
// experimenter's a-priori rigid model standing in the scene's initial pose,
// both feet planted. Everything the generator, the checks and the
// excitation measure need is derived here from the scene's robot: which
// joints the servo drives, which of them carry the feet (moved only by
// inverse kinematics, so both soles stay where they stand), the limits, the
// support polygon and the base parameters. No joint or link is named.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/base_parameters.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/stance.h"

namespace suitsim::design {

struct DesignRobot {
  io::Stance stance;                      ///< a-priori model, initial pose, contacts, joint limits
  std::vector<int> feet;                  ///< frames with a contact point on the ground in the stance
  std::vector<eval::FramePose> foot_pose;  ///< their world poses in the stance (held fixed)
  eval::SupportPolygon polygon;           ///< support polygon of the stance, ground coordinates (m)
  std::vector<int> leg_joints;            ///< joints (q index) on the paths from the root to the feet
  std::vector<int> free_joints;           ///< the other servoed joints (q index), moved directly
  Eigen::VectorXd velocity_limit;         ///< (num_joints) rad/s, +inf where the robot gives none
  eval::BaseParameters base;              ///< base parameters of the a-priori model
  double leg_length = 0.0;                ///< root origin to the farthest foot frame in the stance (m)
  /// The a-priori description's links (frame f of the model is link f): the
  /// self-collision check takes their URDF <collision> shapes and inertials.
  std::vector<RobotLink> links;
  const eval::RigidModel& model() const { return stance.model; }
};

/// Builds it from a scene's robot (its a-priori set, initial pose, contacts,
/// servo). Throws std::invalid_argument for a fixed base, no foot on the
/// ground or no servoed joint.
DesignRobot makeDesignRobot(const io::RobotSetup& setup);

/// The largest margin any point has inside `polygon` (m): the radius of the
/// largest inscribed circle, found on a grid refined around the best point.
double inscribedRadius(const eval::SupportPolygon& polygon);

}  // namespace suitsim::design
