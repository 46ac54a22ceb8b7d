// Whole-body inverse kinematics on the rigid model: joint angles (and the
// floating base's pose) that put frames where they are asked to be.
//
// Design note. The tasks are stacked into one residual e(x) (m and rad) over
// the unknowns x = (base pose, free joints): frames held at a full world
// pose (the feet), one frame's world orientation, one frame's height above
// the ground, and the centre of mass's ground projection (at a point, or
// inside a region). Levenberg-Marquardt steps (JᵀJ + λI) Δx = Jᵀe with
// adaptive damping: a Gauss-Newton step, quadratic near a solution, where
// the tasks can all be met; λ grows instead of letting a near-singular pose
// throw the robot about. A step that crosses a joint limit is cut at the
// limit, and a joint resting on a limit that the residual would push further
// takes no part in the next step (its column is dropped). No unknown changes
// by more than 0.05 (rad or m) in one step, so the solver follows the
// continuous path from the start pose rather than jumping across a singular
// (straight-knee) pose. The held frames' rows weigh 1e3 times the others:
// where the targets conflict the feet stay put and the target that cannot
// be met keeps the residual. The solver stops
// when every residual component is below the tolerance, or fails, reporting
// the residual and the task that holds most of it. Orientation residuals
// are log(R_target R^T) (world axes), so they are the rotation still needed.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// What the centre of mass must do.
enum class ComTask {
  kNone,    ///< nothing
  kPoint,   ///< its ground projection at `com_point`
  kInside,  ///< its ground projection inside `com_region` (convex)
};

/// One inverse-kinematics problem.
struct IkProblem {
  /// Joints (indices into q.joints) the solver may move; the others keep
  /// the start configuration's angles.
  std::vector<int> free_joints;
  /// Joint limits (rad), (num_joints); ±infinity where there is none.
  Eigen::VectorXd joint_lower, joint_upper;
  /// Frames held at a full world pose (6 residuals each).
  std::vector<FramePose> fixed_frames;
  /// World orientation of a frame (3 residuals); frame -1: none.
  int orientation_frame = -1;
  Eigen::Matrix3d orientation_W = Eigen::Matrix3d::Identity();  ///< world from frame
  /// Height of a frame's origin above `ground` (1 residual, m); frame -1: none.
  int height_frame = -1;
  double height = 0.0;
  ComTask com = ComTask::kNone;
  Eigen::Vector2d com_point = Eigen::Vector2d::Zero();  ///< ground coordinates (m), kPoint
  SupportPolygon com_region;                            ///< ground coordinates, kInside
  GroundPlane ground;                                   ///< for height and CoM
};

struct IkOptions {
  double tolerance = 1e-8;  ///< largest residual component accepted (m or rad)
  int max_iterations = 500;
};

struct IkResult {
  bool converged = false;
  Configuration q;           ///< the last configuration (the solution when converged)
  double residual = 0.0;     ///< largest residual component (m or rad)
  std::string worst_task;    ///< the task holding that component, e.g. "orientation of 'X'"
  int iterations = 0;
};

/// Solves `problem` from `start` (its joint angles and, for a floating base,
/// its base pose). Frame names in worst_task come from the model. Throws
/// std::invalid_argument for bad indices or sizes; an unreachable target is
/// not an exception: converged is false.
IkResult solveInverseKinematics(const RigidModel& model, RigidData& data, const IkProblem& problem,
                                const Configuration& start, const IkOptions& options = {});

/// The joints on the path from the root to frame `frame` (indices into
/// q.joints), root side first.
std::vector<int> jointsToFrame(const RigidModel& model, int frame);

}  // namespace suitsim::eval
