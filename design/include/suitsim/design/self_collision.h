// A simple self-collision check for candidate motions: every body of the
// rigid model as a capsule derived from its inertia (the URDFs shipped give
// no collision shapes the rigid model keeps). The capsule's axis runs from
// the body's origin (its joint) through its centre of mass to twice as far,
// the far end of a uniform rod hinged at one end; its radius is that of a
// solid cylinder with the body's smallest principal inertia about its axis,
// I = m r² / 2. Pairs that touch in the initial stance (a body and its
// parent, siblings, neighbours whose capsules overlap there) are not
// checked: their shapes are too coarse to tell contact from proximity.
#pragma once

#include <utility>
#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/rigid_model.h"

namespace suitsim::design {

class SelfCollision {
 public:
  /// Capsules and the pairs to check, from `model` standing at `initial`.
  SelfCollision(const eval::RigidModel& model, const eval::Configuration& initial);
  /// Smallest gap between the checked capsules (m; negative: they
  /// intersect) after forwardKinematics(q) on `data`. +inf without pairs.
  double clearance(const eval::RigidData& data) const;
  int numPairs() const { return static_cast<int>(pairs_.size()); }

 private:
  std::vector<Eigen::Vector3d> tip_B_;  // far end of each body's axis, body frame (m)
  std::vector<double> radius_;          // (m), (num_bodies)
  std::vector<std::pair<int, int>> pairs_;
};

/// Distance between segments [p0, p1] and [q0, q1] (m).
double segmentDistance(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& q0,
                       const Eigen::Vector3d& q1);

}  // namespace suitsim::design
