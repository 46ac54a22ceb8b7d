// The robot as excitation design sees it (design_robot.h).
#include "suitsim/design/design_robot.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "suitsim/rigid/inverse_kinematics.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::design {

DesignRobot makeDesignRobot(const io::RobotSetup& setup) {
  DesignRobot r;
  // What the experimenter knows: the a-priori set (no hidden payloads), no
  // held object (identification motions are made empty-handed).
  r.stance = io::makeStance(setup.apriori, setup.initial_pose, setup.contacts);
  r.links = setup.apriori.links;
  const eval::RigidModel& m = r.stance.model;
  if (!m.floating_base) throw std::invalid_argument("excitation design needs a floating-base robot");
  eval::RigidData data(m);
  r.feet = io::groundedLinks(r.stance, data);
  if (r.feet.empty()) throw std::invalid_argument("excitation design needs a foot on the ground (no <contact> point touches it)");
  for (int f : r.feet) r.foot_pose.push_back(io::initialFramePose(r.stance, data, f));
  r.polygon = eval::supportPolygon(m, data, r.stance.initial, r.stance.contacts, r.stance.ground,
                                   r.stance.contact_tolerance);
  std::vector<bool> on_leg(static_cast<std::size_t>(m.num_joints), false);
  eval::forwardKinematics(m, data, r.stance.initial);
  for (int f : r.feet) {
    for (int j : eval::jointsToFrame(m, f)) on_leg[static_cast<std::size_t>(j)] = true;
    r.leg_length = std::max(r.leg_length, (data.frame_p_W[f] - data.body_p_W[0]).norm());
  }
  r.velocity_limit.setConstant(m.num_joints, std::numeric_limits<double>::infinity());
  for (int j = 0; j < m.num_joints; ++j) {
    const int d = m.joint_source[j];
    const double limit = setup.apriori.joints[static_cast<std::size_t>(d)].velocity_limit;
    if (limit > 0.0) r.velocity_limit(j) = limit;
    // A joint the servo does not drive, or one that follows another
    // (URDF <mimic>), has no reference of its own.
    const int hinge = setup.compiled.joint_hinge[static_cast<std::size_t>(d)];
    const bool servoed = hinge >= 0 && static_cast<std::size_t>(hinge) < setup.gains.size() &&
                         setup.gains[static_cast<std::size_t>(hinge)].kp > 0.0;
    if (!servoed || m.joint_mimic_leader[static_cast<std::size_t>(j)] >= 0) continue;
    (on_leg[static_cast<std::size_t>(j)] ? r.leg_joints : r.free_joints).push_back(j);
  }
  if (r.leg_joints.empty() && r.free_joints.empty()) {
    throw std::invalid_argument("excitation design needs joints the servo drives (<servo>)");
  }
  r.base = eval::computeBaseParameters(m);
  return r;
}

double inscribedRadius(const eval::SupportPolygon& polygon) {
  if (polygon.empty()) return 0.0;
  Eigen::Vector2d lo = polygon.vertices.front(), hi = polygon.vertices.front();
  for (const Eigen::Vector2d& p : polygon.vertices) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  Eigen::Vector2d centre = 0.5 * (lo + hi);
  Eigen::Vector2d half = 0.5 * (hi - lo);
  double best = eval::polygonMargin(polygon, centre);
  // The margin is concave over a convex polygon: a grid search shrinking
  // around the best point converges to the inscribed circle's centre.
  for (int round = 0; round < 30; ++round) {
    Eigen::Vector2d next = centre;
    for (int a = -4; a <= 4; ++a) {
      for (int b = -4; b <= 4; ++b) {
        const Eigen::Vector2d p = centre + Eigen::Vector2d(a * half.x() / 4.0, b * half.y() / 4.0);
        const double margin = eval::polygonMargin(polygon, p);
        if (margin > best) {
          best = margin;
          next = p;
        }
      }
    }
    centre = next;
    half *= 0.5;
  }
  return best;
}

}  // namespace suitsim::design
