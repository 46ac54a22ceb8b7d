// RK4 integration of the rigid model and the configuration update q ⊕ v dt.
#include "suitsim/rigid/integrate.h"

#include <cmath>

#include <Eigen/Geometry>

#include "common.h"
#include "suitsim/rigid/dynamics.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::Vector4d;

namespace {

// Quaternions as (w, x, y, z).
Vector4d toQuat(const Matrix3d& R) {
  const Eigen::Quaterniond e(R);
  return Vector4d(e.w(), e.x(), e.y(), e.z()).normalized();
}

Matrix3d toMatrix(const Vector4d& quat) {
  const Vector4d u = quat.normalized();
  return Eigen::Quaterniond(u[0], u[1], u[2], u[3]).toRotationMatrix();
}

// d/dt quat = ½ quat ⊗ (0, ω) for ω in body axes (d/dt R = R [ω]x).
Vector4d quatRate(const Vector4d& quat, const Vector3d& w) {
  const Vector3d qv = quat.tail<3>();
  Vector4d rate;
  rate[0] = -qv.dot(w);
  rate.tail<3>() = quat[0] * w + qv.cross(w);
  return 0.5 * rate;
}

}  // namespace

RigidState makeRigidState(const RigidModel& model) {
  return RigidState{neutralConfiguration(model), Eigen::VectorXd::Zero(model.nv)};
}

void integrateConfiguration(const RigidModel& model, Configuration& q, const VectorRef& v,
                            double dt) {
  detail::checkConfiguration("integrateConfiguration", model, q);
  detail::checkVector("integrateConfiguration", "v", model, v);
  if (model.floating_base) {
    // SE(3) exponential of the body twist (v_o, ω_o) dt: the base turns by
    // exp([φ]), φ = ω_o dt, and its origin moves by R V(φ) v_o dt, V being the
    // left Jacobian of SO(3) (series near zero to avoid 0/0).
    const Vector3d phi = v.segment<3>(3) * dt;
    const double th = phi.norm();
    double c1, c2;  // (1 − cos θ)/θ², (θ − sin θ)/θ³
    if (th < 1e-4) {
      const double th2 = th * th;
      c1 = 0.5 - th2 / 24.0;
      c2 = 1.0 / 6.0 - th2 / 120.0;
    } else {
      c1 = (1.0 - std::cos(th)) / (th * th);
      c2 = (th - std::sin(th)) / (th * th * th);
    }
    const Matrix3d K = detail::skew(phi);
    const Matrix3d V = Matrix3d::Identity() + c1 * K + c2 * (K * K);
    q.base_p += q.base_R * (V * (v.head<3>() * dt));
    const Matrix3d turn = th > 0.0 ? detail::axisAngle(phi / th, th) : Matrix3d::Identity();
    q.base_R = q.base_R * turn;
  }
  q.joints += v.tail(model.num_joints) * dt;
}

void rk4Step(const RigidModel& model, RigidData& data, RigidState& state, const VectorRef& F,
             double dt) {
  detail::checkConfiguration("rk4Step", model, state.q);
  detail::checkVector("rk4Step", "state.v", model, state.v);
  detail::checkVector("rk4Step", "F", model, F);
  const int n = model.num_joints;
  data.rk_F = F;  // held over the step; F may be one of data's own buffers
  data.rk_theta0 = state.q.joints;
  data.rk_v0 = state.v;
  data.rk_sum_theta.setZero();
  data.rk_sum_v.setZero();
  data.rk_q.base_R = state.q.base_R;
  data.rk_q.base_p = state.q.base_p;
  const Vector3d p0 = state.q.base_p;
  const Vector4d quat0 = toQuat(state.q.base_R);
  Vector3d sum_p = Vector3d::Zero(), k_p = Vector3d::Zero();
  Vector4d sum_quat = Vector4d::Zero(), k_quat = Vector4d::Zero();

  constexpr double kStage[4] = {0.0, 0.5, 0.5, 1.0};
  constexpr double kWeight[4] = {1.0, 2.0, 2.0, 1.0};
  for (int s = 0; s < 4; ++s) {
    // Stage point y0 + c dt k_previous (the first stage is y0 itself; the
    // k's left from the previous step are not used).
    const double h = kStage[s] * dt;
    Vector4d quat = quat0;
    if (s == 0) {
      data.rk_q.joints = data.rk_theta0;
      data.rk_v = data.rk_v0;
    } else {
      data.rk_q.joints = data.rk_theta0 + h * data.rk_k_theta;
      data.rk_v = data.rk_v0 + h * data.rk_k_v;
      quat += h * k_quat;
      data.rk_q.base_p = p0 + h * k_p;
    }
    if (model.floating_base) data.rk_q.base_R = toMatrix(quat);
    // Slope at the stage point.
    if (model.floating_base) {
      k_p = data.rk_q.base_R * data.rk_v.head<3>();
      k_quat = quatRate(quat, data.rk_v.segment<3>(3));
      sum_p += kWeight[s] * k_p;
      sum_quat += kWeight[s] * k_quat;
    }
    data.rk_k_theta = data.rk_v.tail(n);
    data.rk_k_v = forwardDynamics(model, data, data.rk_q, data.rk_v, data.rk_F);
    data.rk_sum_theta += kWeight[s] * data.rk_k_theta;
    data.rk_sum_v += kWeight[s] * data.rk_k_v;
  }
  state.q.joints = data.rk_theta0 + (dt / 6.0) * data.rk_sum_theta;
  state.v = data.rk_v0 + (dt / 6.0) * data.rk_sum_v;
  if (model.floating_base) {
    state.q.base_p = p0 + (dt / 6.0) * sum_p;
    state.q.base_R = toMatrix(quat0 + (dt / 6.0) * sum_quat);
  }
}

}  // namespace suitsim::eval
