// Capsule self-collision (self_collision.h).
#include "suitsim/design/self_collision.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

#include "suitsim/eval/kinematics.h"

namespace suitsim::design {

double segmentDistance(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& q0,
                       const Eigen::Vector3d& q1) {
  // Closest points of two segments (Ericson, Real-Time Collision Detection 5.1.9).
  const Eigen::Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  constexpr double kTiny = 1e-18;
  double s = 0.0, t = 0.0;
  if (a <= kTiny && e <= kTiny) return r.norm();
  if (a <= kTiny) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= kTiny) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), denom = a * e - b * b;
      s = denom > kTiny ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  return ((p0 + d1 * s) - (q0 + d2 * t)).norm();
}

SelfCollision::SelfCollision(const eval::RigidModel& model, const eval::Configuration& initial) {
  const int nb = model.num_bodies;
  tip_B_.resize(static_cast<std::size_t>(nb));
  radius_.assign(static_cast<std::size_t>(nb), 0.0);
  for (int b = 0; b < nb; ++b) {
    const double m = model.body_mass[static_cast<std::size_t>(b)];
    tip_B_[static_cast<std::size_t>(b)] = 2.0 * model.body_com[static_cast<std::size_t>(b)];
    if (m <= 0.0) continue;
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(model.body_inertia[static_cast<std::size_t>(b)]);
    radius_[static_cast<std::size_t>(b)] = std::sqrt(std::max(0.0, 2.0 * eig.eigenvalues().minCoeff() / m));
  }
  eval::RigidData data(model);
  eval::forwardKinematics(model, data, initial);
  for (int a = 0; a < nb; ++a) {
    for (int b = a + 1; b < nb; ++b) {
      const int pa = model.body_parent[static_cast<std::size_t>(a)], pb = model.body_parent[static_cast<std::size_t>(b)];
      if (pa == b || pb == a || pa == pb) continue;
      if (model.body_mass[static_cast<std::size_t>(a)] <= 0.0 || model.body_mass[static_cast<std::size_t>(b)] <= 0.0) continue;
      pairs_.emplace_back(a, b);
    }
  }
  // Keep only the pairs apart in the stance.
  std::vector<std::pair<int, int>> apart;
  for (const auto& [a, b] : pairs_) {
    const Eigen::Vector3d a0 = data.body_p_W[static_cast<std::size_t>(a)];
    const Eigen::Vector3d a1 = a0 + data.body_R_W[static_cast<std::size_t>(a)] * tip_B_[static_cast<std::size_t>(a)];
    const Eigen::Vector3d b0 = data.body_p_W[static_cast<std::size_t>(b)];
    const Eigen::Vector3d b1 = b0 + data.body_R_W[static_cast<std::size_t>(b)] * tip_B_[static_cast<std::size_t>(b)];
    if (segmentDistance(a0, a1, b0, b1) > radius_[static_cast<std::size_t>(a)] + radius_[static_cast<std::size_t>(b)]) {
      apart.emplace_back(a, b);
    }
  }
  pairs_ = std::move(apart);
}

double SelfCollision::clearance(const eval::RigidData& data) const {
  double least = std::numeric_limits<double>::infinity();
  for (const auto& [a, b] : pairs_) {
    const std::size_t ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
    const Eigen::Vector3d a0 = data.body_p_W[ia], a1 = a0 + data.body_R_W[ia] * tip_B_[ia];
    const Eigen::Vector3d b0 = data.body_p_W[ib], b1 = b0 + data.body_R_W[ib] * tip_B_[ib];
    least = std::min(least, segmentDistance(a0, a1, b0, b1) - radius_[ia] - radius_[ib]);
  }
  return least;
}

}  // namespace suitsim::design
