// Task-space keyframes solved into joint angles (task_keyframe.h).
#include "task_keyframe.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/rigid/inverse_kinematics.h"
#include "robot_scene.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/core/number_text.h"

namespace suitsim::io {

namespace {

int linkFrame(const ElementReader& r, const char* attribute, const eval::RigidModel& model, const std::string& name) {
  const int f = eval::frameIndex(model, name);
  if (f < 0) r.failAttribute(attribute, "names no link of the robot ('" + name + "')");
  return f;
}

}  // namespace

bool hasTaskTargets(const ElementReader& k) {
  for (const char* a : {"link", "rpy", "height", "height_link", "feet", "com", "com_margin"}) {
    if (k.has(a)) return true;
  }
  return false;
}

TaskKeyframes::TaskKeyframes(const ElementReader& first, const RobotDescription& known, const RobotPose& pose,
                             const std::vector<ContactPoint>& contacts)
    : stance_([&] {
        try {
          return makeStance(known, pose, contacts);
        } catch (const std::invalid_argument& e) {
          first.fail(std::string("has task-space targets, but the robot's rigid model cannot be built: ") + e.what());
        }
      }()),
      data_(stance_.model),
      last_(stance_.initial) {
  grounded_ = groundedLinks(stance_, data_);
}

std::vector<int> TaskKeyframes::resolve(const ElementReader& k, double time,
                                        const std::vector<std::pair<int, double>>& given,
                                        std::vector<double>& angles) {
  const eval::RigidModel& model = stance_.model;
  eval::IkProblem problem;
  problem.ground = stance_.ground;
  problem.joint_lower = stance_.joint_lower;
  problem.joint_upper = stance_.joint_upper;

  // Names first, then which attributes go together, then values.
  const int link = k.has("link") ? linkFrame(k, "link", model, k.text("link")) : -1;
  const int height_link = k.has("height_link") ? linkFrame(k, "height_link", model, k.text("height_link")) : link;
  if (k.has("rpy") && link < 0) k.failAttribute("rpy", "needs a link attribute naming the link it orients");
  if (k.has("height_link") && !k.has("height")) k.failAttribute("height_link", "needs a height attribute");
  if (k.has("height") && height_link < 0) k.failAttribute("height", "needs a link (or height_link) attribute");
  if (link >= 0 && !k.has("rpy") && !(k.has("height") && !k.has("height_link"))) {
    k.failAttribute("link", "is given no target (add rpy or height)");
  }
  if (k.has("com_margin") && k.text("com") != "inside") {
    k.failAttribute("com_margin", "needs com=\"inside\"");
  }
  if (!k.has("rpy") && !k.has("height") && !k.has("com")) {
    k.failAttribute("feet", "holds the feet, but the keyframe asks nothing else (add link with rpy or height, or com)");
  }
  const bool floating = model.floating_base;
  if (!floating && (k.has("feet") || k.has("com"))) {
    k.failAttribute(k.has("feet") ? "feet" : "com", "needs a floating-base robot (a fixed base has no feet)");
  }

  // The feet held at their initial world poses.
  std::vector<int> feet;
  if (floating) {
    const std::string feet_text = k.text("feet", "fixed");
    if (feet_text == "fixed") {
      feet = grounded_;
    } else {
      for (const std::string& name : words(feet_text)) {
        const int f = linkFrame(k, "feet", model, name);
        if (std::find(grounded_.begin(), grounded_.end(), f) == grounded_.end()) {
          k.failAttribute("feet", "names link '" + name + "', which has no <contact> point on the ground in the "
                                                         "initial stance");
        }
        if (std::find(feet.begin(), feet.end(), f) == feet.end()) feet.push_back(f);
      }
    }
    if (feet.empty()) {
      k.failAttribute("feet", "holds nothing: no <contact> point of the robot is on the ground in the initial stance");
    }
    for (int f : feet) problem.fixed_frames.push_back(initialFramePose(stance_, data_, f));
  }

  if (k.has("rpy")) {
    const Vec3 rpy = k.vec3("rpy");
    problem.orientation_frame = link;
    problem.orientation_W = rotationFromRpy(rpy);
  }
  if (k.has("height")) {
    problem.height_frame = height_link;
    problem.height = k.number("height");
  }
  if (k.has("com")) {
    // The support polygon of the held feet, initial stance.
    std::vector<eval::ContactPoint> held;
    for (const eval::ContactPoint& c : stance_.contacts) {
      if (std::find(feet.begin(), feet.end(), c.frame) != feet.end()) held.push_back(c);
    }
    const eval::SupportPolygon polygon = eval::supportPolygon(model, data_, stance_.initial, held, stance_.ground,
                                                              stance_.contact_tolerance);
    const std::string com = k.text("com");
    const std::vector<std::string> xy = words(com);
    double x = 0.0, y = 0.0;
    if (com == "over_feet") {
      problem.com = eval::ComTask::kPoint;
      problem.com_point = eval::polygonCentroid(polygon);
    } else if (com == "inside") {
      const double margin = k.nonNegative("com_margin", k.number("com_margin", 0.0));
      problem.com = eval::ComTask::kInside;
      problem.com_region = eval::shrinkPolygon(polygon, margin);
      if (problem.com_region.empty()) {
        k.failAttribute("com_margin", "leaves nothing of the support polygon (the feet are too narrow for it)");
      }
    } else if (xy.size() == 2 && parseNumber(xy[0], &x) && parseNumber(xy[1], &y)) {
      problem.com = eval::ComTask::kPoint;
      problem.com_point = {x, y};
    } else {
      k.failAttribute("com", "must be over_feet, inside, or a ground point 'x y' in metres");
    }
  }

  // The joints that move: root to each held foot, to the link, to the
  // height link; those the keyframe gives stay as given.
  std::vector<int> moving;
  auto add = [&](int frame) {
    if (frame < 0) return;
    for (int j : eval::jointsToFrame(model, frame)) {
      const int d = model.joint_source[j];
      const bool pinned = std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == d; });
      if (!pinned && std::find(moving.begin(), moving.end(), j) == moving.end()) moving.push_back(j);
    }
  };
  for (int f : feet) add(f);
  add(problem.orientation_frame);
  add(problem.height_frame);
  problem.free_joints = moving;

  eval::Configuration start = last_;
  for (int j = 0; j < model.num_joints; ++j) start.joints(j) = angles[model.joint_source[j]];
  const eval::IkResult result = eval::solveInverseKinematics(model, data_, problem, start);
  if (!result.converged) {
    const bool angular = result.worst_task.rfind("orientation", 0) == 0;
    k.fail("at t=" + significantText(time, 6) + " s: cannot reach the " + result.worst_task + " (residual " +
           significantText(result.residual, 6) + (angular ? " rad" : " m") + " after " + std::to_string(result.iterations) +
           " iterations, moving " + std::to_string(moving.size()) + " joints within their limits)");
  }
  last_ = result.q;
  std::vector<int> moved;
  for (int j : moving) {
    angles[model.joint_source[j]] = result.q.joints(j);
    moved.push_back(model.joint_source[j]);
  }
  return moved;
}

}  // namespace suitsim::io
