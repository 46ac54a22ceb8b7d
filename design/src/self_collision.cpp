// Capsule self-collision (self_collision.h).
#include "suitsim/design/self_collision.h"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/rigid/kinematics.h"

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

namespace {

/// The radius of a solid cylinder whose smallest principal inertia is that
/// of `inertia` (about the centre of mass) for mass `m`: I = m r² / 2.
double inertiaRadius(double m, const Eigen::Matrix3d& inertia) {
  if (m <= 0.0) return 0.0;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(inertia);
  return std::sqrt(std::max(0.0, 2.0 * eig.eigenvalues().minCoeff() / m));
}

const char* kindName(CollisionShape::Kind kind) {
  switch (kind) {
    case CollisionShape::Kind::kSphere: return "sphere";
    case CollisionShape::Kind::kCylinder: return "cylinder";
    case CollisionShape::Kind::kBox: return "box";
    case CollisionShape::Kind::kOther: break;
  }
  return "other";
}

}  // namespace

SelfCollision::SelfCollision(const eval::RigidModel& model, const eval::Configuration& initial) {
  build(model, nullptr, initial);
}

SelfCollision::SelfCollision(const eval::RigidModel& model, const std::vector<RobotLink>& links,
                             const eval::Configuration& initial) {
  if (static_cast<int>(links.size()) != model.numFrames()) {
    throw std::invalid_argument("self-collision: " + std::to_string(links.size()) + " links for a model of " +
                                std::to_string(model.numFrames()) + " frames");
  }
  build(model, &links, initial);
}

void SelfCollision::build(const eval::RigidModel& model, const std::vector<RobotLink>* links,
                          const eval::Configuration& initial) {
  const int nb = model.num_bodies, nf = model.numFrames();
  body_capsules_.assign(static_cast<std::size_t>(nb), {});
  links_.assign(static_cast<std::size_t>(nf), {});
  auto add = [&](int body, const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, double radius) {
    body_capsules_[static_cast<std::size_t>(body)].push_back(static_cast<int>(capsule_body_.size()));
    capsule_p0_B_.push_back(p0);
    capsule_p1_B_.push_back(p1);
    capsule_radius_.push_back(radius);
    capsule_body_.push_back(body);
  };
  // Which bodies have a primitive on any of their links.
  std::vector<bool> body_has_primitive(static_cast<std::size_t>(nb), false);
  auto isPrimitive = [](const CollisionShape& c) { return c.kind != CollisionShape::Kind::kOther; };
  for (int f = 0; f < nf && links; ++f) {
    for (const CollisionShape& c : (*links)[static_cast<std::size_t>(f)].collision) {
      if (isPrimitive(c)) body_has_primitive[static_cast<std::size_t>(model.frame_body[static_cast<std::size_t>(f)])] = true;
    }
  }
  for (int f = 0; f < nf; ++f) {
    const std::size_t fi = static_cast<std::size_t>(f);
    const int b = model.frame_body[fi];
    const std::size_t bi = static_cast<std::size_t>(b);
    LinkCollision& report = links_[fi];
    report.link = model.frame_name[fi];
    report.body = model.body_name[bi];
    const std::vector<CollisionShape> none;
    const std::vector<CollisionShape>& shapes = links ? (*links)[fi].collision : none;
    std::string why = "no <collision>";
    for (const CollisionShape& c : shapes) {
      if (!isPrimitive(c)) why = "collision is a " + (c.geometry.empty() ? std::string("<collision> without geometry") : c.geometry);
    }
    if (!body_has_primitive[bi]) {
      // The body as a whole, from its merged inertia, on its own link.
      if (model.body_link[bi] != f) {
        report.shape = model.body_mass[bi] > 0.0 ? "inertia" : "none";
        report.detail = why + "; merged into the body's capsule";
        continue;
      }
      if (model.body_mass[bi] <= 0.0) {
        report.shape = "none";
        report.detail = why + "; massless";
        continue;
      }
      add(b, Eigen::Vector3d::Zero(), 2.0 * model.body_com[bi], inertiaRadius(model.body_mass[bi], model.body_inertia[bi]));
      report.shape = "inertia";
      report.detail = why;
      continue;
    }
    const Eigen::Matrix3d& R_f = model.frame_R[fi];
    const Eigen::Vector3d& p_f = model.frame_p[fi];
    std::string kinds;
    for (const CollisionShape& c : shapes) {
      if (!isPrimitive(c)) continue;
      const Eigen::Matrix3d R = R_f * rotationFromRpy(c.origin_rpy);
      const Eigen::Vector3d centre = p_f + R_f * Eigen::Vector3d(c.origin_xyz[0], c.origin_xyz[1], c.origin_xyz[2]);
      Eigen::Vector3d half = Eigen::Vector3d::Zero();
      double radius = c.radius;
      if (c.kind == CollisionShape::Kind::kCylinder) {
        half = 0.5 * c.length * R.col(2);
      } else if (c.kind == CollisionShape::Kind::kBox) {
        int k = 0;
        for (int a = 1; a < 3; ++a) {
          if (c.size[static_cast<std::size_t>(a)] > c.size[static_cast<std::size_t>(k)]) k = a;
        }
        const double s1 = c.size[static_cast<std::size_t>((k + 1) % 3)], s2 = c.size[static_cast<std::size_t>((k + 2) % 3)];
        half = 0.5 * c.size[static_cast<std::size_t>(k)] * R.col(k);
        radius = 0.5 * std::sqrt(s1 * s1 + s2 * s2);
      }
      add(b, centre - half, centre + half, radius);
      kinds += (kinds.empty() ? "" : ", ") + std::string(kindName(c.kind));
    }
    if (!kinds.empty()) {
      report.shape = "urdf";
      report.detail = kinds;
      continue;
    }
    // A link of a body with primitives elsewhere: its own inertia, if any.
    const LinkInertial& in = (*links)[fi].inertial;
    if (in.mass <= 0.0) {
      report.shape = "none";
      report.detail = why + "; massless";
      continue;
    }
    const Eigen::Vector3d com_B = R_f * Eigen::Vector3d(in.com[0], in.com[1], in.com[2]);
    add(b, p_f, p_f + 2.0 * com_B, inertiaRadius(in.mass, inertiaMatrix(in.inertia)));
    report.shape = "inertia";
    report.detail = why;
  }

  // Pairs of bodies that have shapes, not parent and child, not siblings,
  // apart in the stance.
  eval::RigidData data(model);
  eval::forwardKinematics(model, data, initial);
  for (int a = 0; a < nb; ++a) {
    for (int b = a + 1; b < nb; ++b) {
      const int pa = model.body_parent[static_cast<std::size_t>(a)], pb = model.body_parent[static_cast<std::size_t>(b)];
      if (pa == b || pb == a || pa == pb) continue;
      if (body_capsules_[static_cast<std::size_t>(a)].empty() || body_capsules_[static_cast<std::size_t>(b)].empty()) continue;
      pairs_.emplace_back(a, b);
    }
  }
  std::vector<std::pair<int, int>> apart;
  for (const auto& [a, b] : pairs_) {
    if (bodyGap(data, a, b) > 0.0) apart.emplace_back(a, b);
  }
  pairs_ = std::move(apart);
}

double SelfCollision::bodyGap(const eval::RigidData& data, int a, int b) const {
  const std::size_t ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
  double least = std::numeric_limits<double>::infinity();
  for (int ca : body_capsules_[ia]) {
    const std::size_t ka = static_cast<std::size_t>(ca);
    const Eigen::Vector3d a0 = data.body_p_W[ia] + data.body_R_W[ia] * capsule_p0_B_[ka];
    const Eigen::Vector3d a1 = data.body_p_W[ia] + data.body_R_W[ia] * capsule_p1_B_[ka];
    for (int cb : body_capsules_[ib]) {
      const std::size_t kb = static_cast<std::size_t>(cb);
      const Eigen::Vector3d b0 = data.body_p_W[ib] + data.body_R_W[ib] * capsule_p0_B_[kb];
      const Eigen::Vector3d b1 = data.body_p_W[ib] + data.body_R_W[ib] * capsule_p1_B_[kb];
      least = std::min(least, segmentDistance(a0, a1, b0, b1) - capsule_radius_[ka] - capsule_radius_[kb]);
    }
  }
  return least;
}

double SelfCollision::clearance(const eval::RigidData& data, std::pair<int, int>* pair) const {
  double least = std::numeric_limits<double>::infinity();
  for (const auto& [a, b] : pairs_) {
    const double gap = bodyGap(data, a, b);
    if (gap < least) {
      least = gap;
      if (pair) *pair = {a, b};
    }
  }
  return least;
}

}  // namespace suitsim::design
