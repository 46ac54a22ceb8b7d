// A simple self-collision check for candidate motions: every body of the
// rigid model as a few capsules (a segment and a radius, in the body frame).
//
// Where the URDF gives a link primitive <collision> geometry, its shapes are
// used, each placed by its <origin>: a sphere as itself, a cylinder as the
// capsule with the same axis segment and radius (it contains the cylinder),
// a box as the capsule along its longest edge with the radius of its
// cross-section's half diagonal (it contains the box). A link whose
// collision is a mesh, or which has none, falls back to a capsule derived
// from inertia: the axis runs from the link's origin (its joint) through its
// centre of mass to twice as far, the far end of a uniform rod hinged at one
// end; its radius is that of a solid cylinder with the smallest principal
// inertia about its axis, I = m r² / 2. A body none of whose links has a
// primitive gets one such capsule from its merged inertia (the body as a
// whole); in a body that has primitives, a link without any gets one from
// its own inertia when it has mass, nothing otherwise.
//
// Pairs that touch in the initial stance (a body and its parent, siblings,
// neighbours whose shapes overlap there) are not checked: their shapes are
// too coarse to tell contact from proximity.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"
#include "suitsim/robot/robot.h"

namespace suitsim::design {

/// What stands for one link (frame) of the model in the check.
struct LinkCollision {
  std::string link;   ///< the link (frame) name
  std::string body;   ///< the body it belongs to
  /// "urdf" (its primitives), "inertia" (a capsule from inertia) or "none"
  /// (massless, no primitive; nothing to check).
  std::string shape;
  /// Why: the primitives ("box", "cylinder, sphere"), or why the fallback
  /// ("collision is a mesh", "no <collision>", "merged into the body's
  /// capsule").
  std::string detail;
};

class SelfCollision {
 public:
  /// Capsules from inertia only, one per body with mass.
  SelfCollision(const eval::RigidModel& model, const eval::Configuration& initial);
  /// With the URDF's shapes: `links[f]` is the description link of frame f
  /// (its inertial and <collision> elements); the model's frames and these
  /// links must correspond one to one (else throws std::invalid_argument).
  SelfCollision(const eval::RigidModel& model, const std::vector<RobotLink>& links,
                const eval::Configuration& initial);
  /// Smallest gap between the checked shapes (m; negative: they intersect)
  /// after forwardKinematics(q) on `data`. +inf without pairs. `pair`, when
  /// given, receives the two bodies of that gap.
  double clearance(const eval::RigidData& data, std::pair<int, int>* pair = nullptr) const;
  int numPairs() const { return static_cast<int>(pairs_.size()); }
  int numCapsules() const { return static_cast<int>(capsule_body_.size()); }
  /// Per frame of the model, what stands for it (frame order).
  const std::vector<LinkCollision>& links() const { return links_; }

 private:
  void build(const eval::RigidModel& model, const std::vector<RobotLink>* links, const eval::Configuration& initial);
  double bodyGap(const eval::RigidData& data, int a, int b) const;
  // Capsules, body frame: segment ends (m), radius (m), the body they move with.
  std::vector<Eigen::Vector3d> capsule_p0_B_, capsule_p1_B_;
  std::vector<double> capsule_radius_;
  std::vector<int> capsule_body_;
  std::vector<std::vector<int>> body_capsules_;  // capsule indices per body
  std::vector<std::pair<int, int>> pairs_;       // bodies checked against each other
  std::vector<LinkCollision> links_;
};

/// Distance between segments [p0, p1] and [q0, q1] (m).
double segmentDistance(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& q0,
                       const Eigen::Vector3d& q1);

}  // namespace suitsim::design
