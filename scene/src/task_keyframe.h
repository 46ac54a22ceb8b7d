// Task-space keyframes (io-internal): <keyframe> attributes that ask for a
// link's orientation or height, the feet held where they stand and the
// centre of mass over the feet, solved into joint angles by the evaluator's
// inverse kinematics (inverse_kinematics.h) on the stance (stance.h).
//
//   link="L" rpy="r p y"   world orientation of link L (URDF roll-pitch-yaw, rad)
//   link="L" height="h"    height of L's origin above the ground (m)
//   height_link="H"        the height is H's instead of L's
//   feet="fixed"           (default) every link with a <contact> point on the
//                          ground in the initial stance keeps its initial
//                          world pose; or a list of such links to hold
//   com="over_feet"        CoM's ground projection at the support polygon's
//                          centroid; "x y": at that ground point (m); "inside":
//                          anywhere at least com_margin (m) inside the polygon
//
// Which joints move: those on the path from the root to each held foot (the
// legs), to `link` and to `height_link`, minus the joints this keyframe
// gives in `angles` (kept as given). Every other joint keeps its angle from
// the keyframe before.
#pragma once

#include <utility>
#include <vector>

#include "suitsim/rigid/rigid_model.h"
#include "suitsim/scene/stance.h"
#include "suitsim/scene/xml_reader.h"

namespace suitsim::io {

/// Whether the keyframe has any task-space attribute.
bool hasTaskTargets(const ElementReader& keyframe);

/// The solver for one motion's keyframes: built on the first keyframe with
/// targets (whose reader names errors in building the stance).
class TaskKeyframes {
 public:
  TaskKeyframes(const ElementReader& first, const RobotDescription& known, const RobotPose& pose,
                const std::vector<ContactPoint>& contacts);

  /// Solves the keyframe's targets at time `time` (s). `given` are the
  /// (description joint, angle) pairs of its `angles`; `angles` (every
  /// description joint, rad) holds the pose so far and receives the solution.
  /// Returns the description joints the solver may have moved. Throws
  /// SceneError (file:line) for bad targets or an unreachable one.
  std::vector<int> resolve(const ElementReader& keyframe, double time, const std::vector<std::pair<int, double>>& given,
                           std::vector<double>& angles);

 private:
  Stance stance_;
  eval::RigidData data_;
  eval::Configuration last_;  // the previous keyframe's solution (base pose included)
  std::vector<int> grounded_;  // frames with a contact point on the ground, initial stance
};

}  // namespace suitsim::io
