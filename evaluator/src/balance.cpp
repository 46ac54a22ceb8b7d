// Centre of mass, support polygon and ZMP of the rigid robot (balance.h).
#include "suitsim/eval/balance.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common.h"
#include "suitsim/eval/dynamics.h"
#include "suitsim/eval/kinematics.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

GroundPlane makeGroundPlane(const Vector3d& normal, double offset) {
  const double length = normal.norm();
  if (!(length > 0.0) || !std::isfinite(length)) throw std::invalid_argument("makeGroundPlane: zero normal");
  GroundPlane g;
  g.normal = normal / length;
  g.offset = offset / length;
  // u: world x in the plane, or world y where x is (nearly) the normal.
  Vector3d u = Vector3d::UnitX() - g.normal.x() * g.normal;
  if (u.norm() < 1e-6) u = Vector3d::UnitY() - g.normal.y() * g.normal;
  g.u = u.normalized();
  g.v = g.normal.cross(g.u);
  return g;
}

Vector2d groundCoordinates(const GroundPlane& ground, const Vector3d& p_W) {
  return {ground.u.dot(p_W), ground.v.dot(p_W)};
}

Vector3d groundPoint(const GroundPlane& ground, const Vector2d& uv) {
  return ground.offset * ground.normal + uv.x() * ground.u + uv.y() * ground.v;
}

double heightAboveGround(const GroundPlane& ground, const Vector3d& p_W) {
  return ground.normal.dot(p_W) - ground.offset;
}

namespace {

double cross2(const Vector2d& a, const Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

// Distance from p to the segment [a, b].
double segmentDistance(const Vector2d& a, const Vector2d& b, const Vector2d& p, Vector2d* closest) {
  const Vector2d d = b - a;
  const double len2 = d.squaredNorm();
  const double s = len2 > 0.0 ? std::clamp((p - a).dot(d) / len2, 0.0, 1.0) : 0.0;
  *closest = a + s * d;
  return (p - *closest).norm();
}

// Nearest boundary point of a polygon (any vertex count >= 1) and its distance.
double boundaryDistance(const SupportPolygon& polygon, const Vector2d& p, Vector2d* closest) {
  const auto& vs = polygon.vertices;
  const std::size_t n = vs.size();
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    Vector2d c;
    const double d = segmentDistance(vs[k], vs[(k + 1) % n], p, &c);
    if (d < best) {
      best = d;
      *closest = c;
    }
  }
  return best;
}

// Signed distance to the line of edge k: positive on the inner (left) side.
double edgeDistance(const SupportPolygon& polygon, std::size_t k, const Vector2d& p) {
  const auto& vs = polygon.vertices;
  const Vector2d& a = vs[k];
  const Vector2d& b = vs[(k + 1) % vs.size()];
  return cross2(b - a, p - a) / (b - a).norm();
}

}  // namespace

SupportPolygon convexHull(std::vector<Vector2d> points) {
  std::sort(points.begin(), points.end(),
            [](const Vector2d& a, const Vector2d& b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
  points.erase(std::unique(points.begin(), points.end()), points.end());
  SupportPolygon hull;
  if (points.size() < 3) {
    hull.vertices = points;
    return hull;
  }
  // Lower then upper chain, Andrew's monotone chain in exact arithmetic.
  std::vector<Vector2d> h(2 * points.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    while (k >= 2 && cross2(h[k - 1] - h[k - 2], points[i] - h[k - 2]) <= 0.0) --k;
    h[k++] = points[i];
  }
  for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && cross2(h[k - 1] - h[k - 2], points[i] - h[k - 2]) <= 0.0) --k;
    h[k++] = points[i];
  }
  h.resize(k - 1);
  // Then drop vertices within a nanometre of the line through their
  // neighbours: two soles' corners meant to be in line are so only to the
  // last bit, and such a vertex is no corner of the support.
  for (bool dropped = true; dropped && h.size() > 3;) {
    dropped = false;
    for (std::size_t i = 0; i < h.size() && h.size() > 3; ++i) {
      const Vector2d& prev = h[(i + h.size() - 1) % h.size()];
      const Vector2d& next = h[(i + 1) % h.size()];
      const Vector2d d = next - prev;
      if (std::abs(cross2(d, h[i] - prev)) <= 1e-9 * d.norm()) {
        h.erase(h.begin() + static_cast<std::ptrdiff_t>(i));
        dropped = true;
      }
    }
  }
  hull.vertices = std::move(h);
  return hull;
}

std::vector<Vector3d> groundedContacts(const RigidModel& model, RigidData& data, const Configuration& q,
                                       const std::vector<ContactPoint>& contacts, const GroundPlane& ground,
                                       double tolerance) {
  forwardKinematics(model, data, q);
  std::vector<Vector3d> out;
  for (const ContactPoint& c : contacts) {
    if (c.frame < 0 || c.frame >= model.numFrames()) {
      throw std::invalid_argument("groundedContacts: frame index " + std::to_string(c.frame) + " out of range");
    }
    const Vector3d p = data.frame_p_W[c.frame] + data.frame_R_W[c.frame] * c.point_F;
    if (heightAboveGround(ground, p) <= tolerance) out.push_back(p);
  }
  return out;
}

SupportPolygon supportPolygon(const RigidModel& model, RigidData& data, const Configuration& q,
                              const std::vector<ContactPoint>& contacts, const GroundPlane& ground,
                              double tolerance) {
  std::vector<Vector2d> points;
  for (const Vector3d& p : groundedContacts(model, data, q, contacts, ground, tolerance)) {
    points.push_back(groundCoordinates(ground, p));
  }
  return convexHull(std::move(points));
}

double polygonMargin(const SupportPolygon& polygon, const Vector2d& point) {
  if (polygon.empty()) throw std::invalid_argument("polygonMargin: empty polygon");
  Vector2d closest;
  const double outside = boundaryDistance(polygon, point, &closest);
  if (polygon.vertices.size() < 3) return -outside;
  double inside = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < polygon.vertices.size(); ++k) inside = std::min(inside, edgeDistance(polygon, k, point));
  // Convex: inside every edge's half-plane is inside the polygon, and the
  // nearest edge line is then the nearest edge.
  return inside >= 0.0 ? inside : -outside;
}

Vector2d polygonCentroid(const SupportPolygon& polygon) {
  const auto& vs = polygon.vertices;
  if (vs.empty()) throw std::invalid_argument("polygonCentroid: empty polygon");
  if (vs.size() < 3) return vs.size() == 1 ? vs[0] : Vector2d(0.5 * (vs[0] + vs[1]));
  // Shoelace sums, relative to the first vertex for accuracy.
  double area2 = 0.0;
  Vector2d sum = Vector2d::Zero();
  for (std::size_t k = 1; k + 1 < vs.size(); ++k) {
    const Vector2d a = vs[k] - vs[0], b = vs[k + 1] - vs[0];
    const double w = cross2(a, b);
    area2 += w;
    sum += w * (a + b) / 3.0;
  }
  return vs[0] + sum / area2;
}

SupportPolygon shrinkPolygon(const SupportPolygon& polygon, double margin) {
  const std::size_t n = polygon.vertices.size();
  if (margin <= 0.0) return polygon;
  if (n < 3) return {};
  // Clip the polygon by each edge's half-plane moved inward by `margin`
  // (Sutherland-Hodgman): for a convex polygon the result is the set of
  // points at least `margin` from every edge line.
  std::vector<Vector2d> out = polygon.vertices;
  for (std::size_t k = 0; k < n && !out.empty(); ++k) {
    std::vector<Vector2d> next;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Vector2d& p = out[i];
      const Vector2d& q = out[(i + 1) % out.size()];
      const double dp = edgeDistance(polygon, k, p) - margin, dq = edgeDistance(polygon, k, q) - margin;
      if (dp >= 0.0) next.push_back(p);
      if ((dp >= 0.0) != (dq >= 0.0)) next.push_back(p + dp / (dp - dq) * (q - p));
    }
    out = std::move(next);
  }
  return convexHull(std::move(out));
}

Vector2d closestPointInPolygon(const SupportPolygon& polygon, const Vector2d& point) {
  if (polygon.empty()) throw std::invalid_argument("closestPointInPolygon: empty polygon");
  if (polygon.vertices.size() >= 3 && polygonMargin(polygon, point) >= 0.0) return point;
  Vector2d closest;
  boundaryDistance(polygon, point, &closest);
  return closest;
}

void comJacobian(const RigidModel& model, const RigidData& data, Eigen::Ref<Eigen::MatrixXd> J) {
  if (J.rows() != 3 || J.cols() != model.nv) {
    throw std::invalid_argument("comJacobian: J must be 3 x " + std::to_string(model.nv));
  }
  J.setZero();
  Eigen::MatrixXd Jb(3, model.nv);
  const double mass = model.totalMass();
  for (int b = 0; b < model.num_bodies; ++b) {
    if (model.body_mass[b] == 0.0) continue;
    // The body's own link frame carries the body's CoM.
    const int f = model.body_link[b];
    const Vector3d c_F = model.frame_R[f].transpose() * (model.body_com[b] - model.frame_p[f]);
    pointJacobian(model, data, f, c_F, Jb);
    J += (model.body_mass[b] / mass) * Jb;
  }
}

Vector2d zeroMomentPoint(const RigidModel& model, RigidData& data, const Configuration& q, const Eigen::VectorXd& v,
                         const Eigen::VectorXd& a, const GroundPlane& ground) {
  if (!model.floating_base) throw std::invalid_argument("zeroMomentPoint: needs a floating-base model");
  // A(5) base rows: with no other external force, the wrench the base rows of
  // inverse dynamics ask for is the total contact wrench (base axes, about
  // the base origin).
  const Eigen::VectorXd& tau = rnea(model, data, q, v, a);
  const Vector3d force = q.base_R * tau.head<3>();
  const Vector3d moment_O = q.base_R * tau.segment<3>(3) + q.base_p.cross(force);
  // ZMP p on the plane: the moment about p, moment_O − p × force, has no
  // component along u or v. u·(p × F) = p·(F × u), so three linear equations.
  Matrix3d A;
  A.row(0) = force.cross(ground.u).transpose();
  A.row(1) = force.cross(ground.v).transpose();
  A.row(2) = ground.normal.transpose();
  const Vector3d rhs(ground.u.dot(moment_O), ground.v.dot(moment_O), ground.offset);
  if (!(std::abs(force.dot(ground.normal)) > 1e-9 * (1.0 + force.norm()))) {
    throw std::runtime_error("zeroMomentPoint: the contact force has no component along the ground normal");
  }
  const Vector3d p = A.partialPivLu().solve(rhs);
  return groundCoordinates(ground, p);
}

void placeBaseOnSupport(const RigidModel& model, RigidData& data, const FramePose& support, Configuration& q) {
  if (!model.floating_base) throw std::invalid_argument("placeBaseOnSupport: needs a floating-base model");
  q.base_R.setIdentity();
  q.base_p.setZero();
  forwardKinematics(model, data, q);
  const Matrix3d R_rel = data.frame_R_W[support.frame];  // base from frame
  const Vector3d p_rel = data.frame_p_W[support.frame];
  q.base_R = support.R_W * R_rel.transpose();
  q.base_p = support.p_W - q.base_R * p_rel;
}

void feetFlatVelocity(const RigidModel& model, RigidData& data, const Configuration& q, const FramePose& support,
                      const Eigen::VectorXd& joint_rates, Eigen::VectorXd& v) {
  if (joint_rates.size() != model.num_joints) {
    detail::sizeError("feetFlatVelocity", "joint_rates", joint_rates.size(), model.num_joints);
  }
  forwardKinematics(model, data, q);
  Eigen::MatrixXd J(6, model.nv);
  frameJacobian(model, data, support.frame, J);
  v.resize(model.nv);
  v.tail(model.num_joints) = joint_rates;
  // J_base v_base = −J_joints θ̇: the support frame neither moves nor turns.
  const Eigen::Matrix<double, 6, 6> Jb = J.leftCols<6>();
  v.head<6>() = Jb.partialPivLu().solve(-J.rightCols(model.num_joints) * joint_rates);
}

ZmpSummary zmpOverMotion(const RigidModel& model, RigidData& data, const JointTrajectory& trajectory, double t0,
                         double t1, double dt, const FramePose& support, const SupportPolygon& polygon,
                         const GroundPlane& ground) {
  if (!(dt > 0.0) || !(t1 >= t0)) throw std::invalid_argument("zmpOverMotion: need dt > 0 and t1 >= t0");
  const int nj = model.num_joints;
  Eigen::VectorXd angles(nj), rates(nj), v(model.nv), v_minus(model.nv), v_plus(model.nv), a(model.nv);
  Configuration q(Eigen::VectorXd::Zero(nj));
  // Velocity of the feet-flat robot at time t (and its configuration in q).
  auto stateAt = [&](double t, Eigen::VectorXd& out) {
    trajectory(t, angles, rates);
    q.joints = angles;
    placeBaseOnSupport(model, data, support, q);
    feetFlatVelocity(model, data, q, support, rates, out);
  };
  constexpr double kH = 1e-4;  // central-difference step (s)
  ZmpSummary summary;
  summary.min_margin = std::numeric_limits<double>::infinity();
  const int n = static_cast<int>(std::floor((t1 - t0) / dt + 1e-9));
  for (int k = 0; k <= n; ++k) {
    const double t = std::min(t0 + k * dt, t1);
    stateAt(t - kH, v_minus);
    stateAt(t + kH, v_plus);
    a = (v_plus - v_minus) / (2.0 * kH);  // a is dv/dt component by component (rigid_model.h)
    stateAt(t, v);
    const Vector2d zmp = zeroMomentPoint(model, data, q, v, a, ground);
    const double margin = polygonMargin(polygon, zmp);
    ++summary.num_samples;
    if (margin < summary.min_margin) {
      summary.min_margin = margin;
      summary.time = t;
      summary.zmp = zmp;
    }
  }
  return summary;
}

}  // namespace suitsim::eval
