// Centre of mass, support polygon and ZMP of the rigid robot (balance.h).
#include "suitsim/rigid/balance.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/kinematics.h"

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
  return zeroMomentPoint(q, tau.head<3>(), tau.segment<3>(3), ground);
}

Vector2d zeroMomentPoint(const Configuration& q, const Eigen::Vector3d& f_B, const Eigen::Vector3d& n_B,
                         const GroundPlane& ground) {
  const Vector3d force = q.base_R * f_B;
  const Vector3d moment_O = q.base_R * n_B + q.base_p.cross(force);
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

void forEachFeetFlatSample(const RigidModel& model, RigidData& data, const JointTrajectory& trajectory, double t0,
                           double t1, double dt, const FramePose& support, const FeetFlatVisitor& visit) {
  if (!(dt > 0.0) || !(t1 >= t0)) throw std::invalid_argument("forEachFeetFlatSample: need dt > 0 and t1 >= t0");
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
  const int n = static_cast<int>(std::floor((t1 - t0) / dt + 1e-9));
  for (int k = 0; k <= n; ++k) {
    const double t = std::min(t0 + k * dt, t1);
    stateAt(t - kH, v_minus);
    stateAt(t + kH, v_plus);
    a = (v_plus - v_minus) / (2.0 * kH);  // a is dv/dt component by component (rigid_model.h)
    stateAt(t, v);
    visit(t, q, v, a);
  }
}

ZmpSummary zmpOverMotion(const RigidModel& model, RigidData& data, const JointTrajectory& trajectory, double t0,
                         double t1, double dt, const FramePose& support, const SupportPolygon& polygon,
                         const GroundPlane& ground) {
  if (!(dt > 0.0) || !(t1 >= t0)) throw std::invalid_argument("zmpOverMotion: need dt > 0 and t1 >= t0");
  ZmpSummary summary;
  summary.min_margin = std::numeric_limits<double>::infinity();
  forEachFeetFlatSample(model, data, trajectory, t0, t1, dt, support,
                        [&](double t, const Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
                          const Vector2d zmp = zeroMomentPoint(model, data, q, v, a, ground);
                          const double margin = polygonMargin(polygon, zmp);
                          ++summary.num_samples;
                          if (margin < summary.min_margin) {
                            summary.min_margin = margin;
                            summary.time = t;
                            summary.zmp = zmp;
                          }
                        });
  return summary;
}

}  // namespace suitsim::eval
