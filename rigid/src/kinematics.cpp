// Forward kinematics, Jacobians and whole-body sums (CoM, momentum, energy).
#include "suitsim/rigid/kinematics.h"

#include "common.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::Vector3d;

void forwardKinematics(const RigidModel& model, RigidData& data, const Configuration& q) {
  detail::checkConfiguration("forwardKinematics", model, q);
  detail::updateJointRotations(model, data, q);
  data.body_R_W[0] = q.base_R;
  data.body_p_W[0] = q.base_p;
  for (int b = 1; b < model.num_bodies; ++b) {
    const int parent = model.body_parent[b];
    data.body_R_W[b] = data.body_R_W[parent] * data.body_R_parent[b];
    data.body_p_W[b] = data.body_p_W[parent] + data.body_R_W[parent] * model.body_joint_p[b];
  }
  for (int f = 0; f < model.numFrames(); ++f) {
    const int b = model.frame_body[f];
    data.frame_R_W[f] = data.body_R_W[b] * model.frame_R[f];
    data.frame_p_W[f] = data.body_p_W[b] + data.body_R_W[b] * model.frame_p[f];
  }
}

void forwardKinematics(const RigidModel& model, RigidData& data, const Configuration& q,
                       const VectorRef& v) {
  detail::checkVector("forwardKinematics", "v", model, v);
  forwardKinematics(model, data, q);
  const int nb = model.base_dofs;
  if (model.floating_base) {
    data.body_v[0] = v.head<3>();
    data.body_w[0] = v.segment<3>(3);
  } else {
    data.body_v[0].setZero();
    data.body_w[0].setZero();
  }
  // Velocity of a child origin, child axes: the parent's twist moved to the
  // joint origin, plus the joint's rotation rate about its axis.
  for (int b = 1; b < model.num_bodies; ++b) {
    const int parent = model.body_parent[b];
    const Matrix3d Rt = data.body_R_parent[b].transpose();
    const Vector3d& w_parent = data.body_w[parent];
    data.body_w[b] = Rt * w_parent + model.body_axis[b] * v[nb + b - 1];
    data.body_v[b] = Rt * (data.body_v[parent] + w_parent.cross(model.body_joint_p[b]));
  }
}

void frameVelocity(const RigidModel& model, const RigidData& data, int frame, Vector3d* v_W,
                   Vector3d* w_W) {
  if (frame < 0 || frame >= model.numFrames()) {
    throw std::invalid_argument("frameVelocity: frame index " + std::to_string(frame) +
                                " out of range");
  }
  const int b = model.frame_body[frame];
  const Vector3d& w = data.body_w[b];
  *v_W = data.body_R_W[b] * (data.body_v[b] + w.cross(model.frame_p[frame]));
  *w_W = data.body_R_W[b] * w;
}

namespace {

// Columns of the world-axes Jacobian of a point on body `b`: each joint on
// the path to the root turns the point about its axis through the body origin
// (a child origin lies on its joint axis); the floating base moves it by
// base_R v_o + (base_R ω_o) × (point − base_p).
void fillPointJacobian(const RigidModel& model, const RigidData& data, int b,
                       const Vector3d& point_W, Eigen::Ref<Eigen::MatrixXd> J, bool angular) {
  J.setZero();
  const int nb = model.base_dofs;
  for (int k = b; k > 0; k = model.body_parent[k]) {
    const Vector3d axis_W = data.body_R_W[k] * model.body_axis[k];
    const int col = nb + k - 1;
    J.block<3, 1>(0, col) = axis_W.cross(point_W - data.body_p_W[k]);
    if (angular) J.block<3, 1>(3, col) = axis_W;
  }
  if (model.floating_base) {
    const Matrix3d& R = data.body_R_W[0];
    J.block<3, 3>(0, 0) = R;
    J.block<3, 3>(0, 3) = -detail::skew(point_W - data.body_p_W[0]) * R;
    if (angular) J.block<3, 3>(3, 3) = R;
  }
}

void checkJacobian(const char* function, const RigidModel& model, int frame, long rows,
                   const Eigen::Ref<Eigen::MatrixXd>& J, long expected_rows) {
  if (frame < 0 || frame >= model.numFrames()) {
    throw std::invalid_argument(std::string(function) + ": frame index " + std::to_string(frame) +
                                " out of range");
  }
  if (rows != expected_rows || J.cols() != model.nv) {
    throw std::invalid_argument(std::string(function) + ": J is " + std::to_string(rows) + " x " +
                                std::to_string(J.cols()) + ", expected " +
                                std::to_string(expected_rows) + " x " + std::to_string(model.nv));
  }
}

}  // namespace

void frameJacobian(const RigidModel& model, const RigidData& data, int frame,
                   Eigen::Ref<Eigen::MatrixXd> J) {
  checkJacobian("frameJacobian", model, frame, J.rows(), J, 6);
  fillPointJacobian(model, data, model.frame_body[frame], data.frame_p_W[frame], J, true);
}

void pointJacobian(const RigidModel& model, const RigidData& data, int frame,
                   const Vector3d& point_F, Eigen::Ref<Eigen::MatrixXd> J) {
  checkJacobian("pointJacobian", model, frame, J.rows(), J, 3);
  const Vector3d point_W = data.frame_p_W[frame] + data.frame_R_W[frame] * point_F;
  fillPointJacobian(model, data, model.frame_body[frame], point_W, J, false);
}

Vector3d centerOfMass(const RigidModel& model, RigidData& data, const Configuration& q) {
  forwardKinematics(model, data, q);
  Vector3d sum = Vector3d::Zero();
  double mass = 0.0;
  for (int b = 0; b < model.num_bodies; ++b) {
    const double m = model.body_mass[b];
    sum += m * (data.body_p_W[b] + data.body_R_W[b] * model.body_com[b]);
    mass += m;
  }
  return mass > 0.0 ? Vector3d(sum / mass) : Vector3d::Zero();
}

Momentum momentum(const RigidModel& model, RigidData& data, const Configuration& q,
                  const VectorRef& v) {
  forwardKinematics(model, data, q, v);
  Momentum out;
  out.com.setZero();
  out.linear.setZero();
  out.angular_origin.setZero();
  double mass = 0.0;
  for (int b = 0; b < model.num_bodies; ++b) {
    const double m = model.body_mass[b];
    const Matrix3d& R = data.body_R_W[b];
    const Vector3d& c = model.body_com[b];
    const Vector3d& w = data.body_w[b];
    const Vector3d c_W = data.body_p_W[b] + R * c;
    const Vector3d p_W = m * (R * (data.body_v[b] + w.cross(c)));  // m ċ
    out.com += m * c_W;
    mass += m;
    out.linear += p_W;
    // Moment of momentum about the origin plus spin about the body's CoM.
    out.angular_origin += c_W.cross(p_W) + R * (model.body_inertia[b] * w);
  }
  if (mass > 0.0) {
    out.com /= mass;
    out.com_velocity = out.linear / mass;
  } else {
    out.com_velocity.setZero();
  }
  out.angular_com = out.angular_origin - out.com.cross(out.linear);
  return out;
}

double kineticEnergy(const RigidModel& model, RigidData& data, const Configuration& q,
                     const VectorRef& v) {
  forwardKinematics(model, data, q, v);
  double energy = 0.0;
  for (int b = 0; b < model.num_bodies; ++b) {
    const Vector3d& w = data.body_w[b];
    const Vector3d vc = data.body_v[b] + w.cross(model.body_com[b]);  // König: CoM + spin
    energy += 0.5 * (model.body_mass[b] * vc.squaredNorm() + w.dot(model.body_inertia[b] * w));
  }
  return energy;
}

double potentialEnergy(const RigidModel& model, RigidData& data, const Configuration& q) {
  forwardKinematics(model, data, q);
  double energy = 0.0;
  for (int b = 0; b < model.num_bodies; ++b) {
    const Vector3d c_W = data.body_p_W[b] + data.body_R_W[b] * model.body_com[b];
    energy -= model.body_mass[b] * model.gravity.dot(c_W);
  }
  return energy;
}

}  // namespace suitsim::eval
