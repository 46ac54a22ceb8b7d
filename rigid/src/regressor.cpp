#include "suitsim/rigid/regressor.h"

#include "spatial.h"
#include "suitsim/rigid/dynamics.h"

namespace suitsim::eval {

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using Block6x10 = Eigen::Matrix<double, 6, 10>;

// I x = L(x) [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]^T for a symmetric I.
Eigen::Matrix<double, 3, 6> inertiaAction(const Vector3d& x) {
  Eigen::Matrix<double, 3, 6> L;
  L << x.x(), 0.0, 0.0, x.y(), x.z(), 0.0,  //
      0.0, x.y(), 0.0, x.x(), 0.0, x.z(),   //
      0.0, 0.0, x.z(), 0.0, x.x(), x.y();
  return L;
}

}  // namespace

Eigen::VectorXd standardParameters(const RigidModel& model) {
  Eigen::VectorXd phi(10 * model.num_bodies);
  for (int b = 0; b < model.num_bodies; ++b) {
    const double m = model.body_mass[b];
    const Vector3d h = m * model.body_com[b];
    const Matrix3d I = detail::inertiaAboutOrigin(m, model.body_com[b], model.body_inertia[b]);
    phi.segment<10>(10 * b) << m, h.x(), h.y(), h.z(), I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2);
  }
  return phi;
}

void regressor(const RigidModel& model, RigidData& data, const Configuration& q, const VectorRef& v,
               const VectorRef& a, Eigen::MatrixXd& Y) {
  // rnea fills every body's twist (w, vel) and spatial acceleration
  // (alpha, acc, gravity included) in body axes: the kinematics the
  // regressor needs. Its wrenches are not used.
  rnea(model, data, q, v, a);
  if (Y.rows() != model.nv || Y.cols() != 10 * model.num_bodies) Y.resize(model.nv, 10 * model.num_bodies);
  Y.setZero();
  const int nb = model.base_dofs;
  for (int b = 0; b < model.num_bodies; ++b) {
    const Vector3d& w = data.body_w[b];
    const Vector3d& vel = data.body_v[b];
    const Vector3d& alpha = data.body_alpha[b];
    const Vector3d& acc = data.body_a[b];
    const Matrix3d W = detail::skew(w);
    // Newton-Euler about the body origin (dynamics.cpp), split by parameter:
    //   f = m (acc + w x vel) + (alpha x + w x w x) h
    //   n = (I alpha + w x I w) + (-acc x - w x vel x + vel x w x) h
    Block6x10 A = Block6x10::Zero();
    A.block<3, 1>(0, 0) = acc + w.cross(vel);
    A.block<3, 3>(0, 1) = detail::skew(alpha) + W * W;
    A.block<3, 3>(3, 1) = -detail::skew(acc) - W * detail::skew(vel) + detail::skew(vel) * W;
    A.block<3, 6>(3, 4) = inertiaAction(alpha) + W * inertiaAction(w);
    // Carry the body's wrench columns up the tree: each joint on the way
    // takes its axis component of the moment, the base takes the rest.
    Block6x10 wrench = A;
    for (int k = b; k > 0; k = model.body_parent[k]) {
      Y.block<1, 10>(nb + k - 1, 10 * b) = model.body_axis[k].transpose() * wrench.bottomRows<3>();
      const Matrix3d& R = data.body_R_parent[k];
      const Eigen::Matrix<double, 3, 10> f_parent = R * wrench.topRows<3>();
      wrench.bottomRows<3>() = R * wrench.bottomRows<3>() + detail::skew(model.body_joint_p[k]) * f_parent;
      wrench.topRows<3>() = f_parent;
    }
    if (model.floating_base) Y.block<6, 10>(0, 10 * b) = wrench;
  }
}

}  // namespace suitsim::eval
