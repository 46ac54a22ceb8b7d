// Recursive Newton-Euler, composite rigid bodies and forward dynamics.
//
// Design note. Both recursions run in body coordinates (each body's own frame,
// Featherstone's "body frame" form), linear part first. For a frame moving
// with the body, the spatial acceleration in body coordinates is just the
// time derivative of the body-coordinate twist (v × v = 0), which is why the
// floating base's a is d/dt of v_o, ω_o with no correction. Gravity enters as
// an upward acceleration of the base (the standard trick): every body then
// carries −g in its acceleration and no separate gravity force is needed.
#include "suitsim/rigid/dynamics.h"

#include "common.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

// rnea with each body's inertial parameters taken from `params` (10 per
// body, regressor.h order: m, m c, inertia about the origin) when given,
// else from the model. The wrenches are linear in them, so any vector works,
// physical or not (base parameters mapped to standard ones, for one).
const Eigen::VectorXd& rneaWith(const RigidModel& model, RigidData& data, const Configuration& q,
                                const VectorRef& v, const VectorRef& a, const double* params) {
  detail::checkConfiguration("rnea", model, q);
  detail::checkVector("rnea", "v", model, v);
  detail::checkVector("rnea", "a", model, a);
  detail::updateJointRotations(model, data, q);
  const int nb = model.base_dofs;

  // Base: its twist and acceleration are the first six entries of v and a;
  // gravity, in base axes, is subtracted from the linear acceleration.
  const Vector3d g_base = q.base_R.transpose() * model.gravity;
  if (model.floating_base) {
    data.body_v[0] = v.head<3>();
    data.body_w[0] = v.segment<3>(3);
    data.body_a[0] = a.head<3>() - g_base;
    data.body_alpha[0] = a.segment<3>(3);
  } else {
    data.body_v[0].setZero();
    data.body_w[0].setZero();
    data.body_a[0] = -g_base;
    data.body_alpha[0].setZero();
  }

  // Forward pass: twist and acceleration of each body, then the net wrench it
  // needs, f = I a + v ×* I v (Newton-Euler about the body origin).
  for (int b = 0; b < model.num_bodies; ++b) {
    if (b > 0) {
      const int parent = model.body_parent[b];
      const Matrix3d Rt = data.body_R_parent[b].transpose();
      const Vector3d& p = model.body_joint_p[b];
      const Vector3d& s = model.body_axis[b];
      const double qd = v[nb + b - 1];
      const double qdd = a[nb + b - 1];
      const Vector3d& w_parent = data.body_w[parent];
      const Vector3d& alpha_parent = data.body_alpha[parent];
      const Vector3d w = Rt * w_parent + s * qd;
      const Vector3d vel = Rt * (data.body_v[parent] + w_parent.cross(p));
      const Vector3d sqd = s * qd;
      // a_i = X a_parent + S q̈ + v_i × S q̇ (the last term: the joint's rate
      // seen from the moving child frame).
      data.body_alpha[b] = Rt * alpha_parent + s * qdd + w.cross(sqd);
      data.body_a[b] = Rt * (data.body_a[parent] + alpha_parent.cross(p)) + vel.cross(sqd);
      data.body_w[b] = w;
      data.body_v[b] = vel;
    }
    double m;
    Vector3d h;
    Matrix3d I_O;
    if (params != nullptr) {
      const double* p = params + 10 * b;
      m = p[0];
      h = Vector3d(p[1], p[2], p[3]);
      I_O << p[4], p[7], p[8], p[7], p[5], p[9], p[8], p[9], p[6];
    } else {
      m = model.body_mass[b];
      h = m * model.body_com[b];
      I_O = detail::inertiaAboutOrigin(m, model.body_com[b], model.body_inertia[b]);
    }
    const Vector3d& w = data.body_w[b];
    const Vector3d& vel = data.body_v[b];
    const Vector3d& alpha = data.body_alpha[b];
    const Vector3d& acc = data.body_a[b];
    // Spatial momentum (l, k) about the origin, then I a + (v ×* (l, k)).
    const Vector3d l = m * vel + w.cross(h);
    const Vector3d k = I_O * w + h.cross(vel);
    data.body_f[b] = m * acc + alpha.cross(h) + w.cross(l);
    data.body_n[b] = I_O * alpha + h.cross(acc) + w.cross(k) + vel.cross(l);
  }

  // Backward pass: each body passes the wrench its subtree needs to its
  // parent; a joint's torque is the moment about its axis.
  for (int b = model.num_bodies - 1; b > 0; --b) {
    const int parent = model.body_parent[b];
    const Matrix3d& R = data.body_R_parent[b];
    data.tau[nb + b - 1] = model.body_axis[b].dot(data.body_n[b]);
    const Vector3d f_parent = R * data.body_f[b];
    data.body_f[parent] += f_parent;
    data.body_n[parent] += R * data.body_n[b] + model.body_joint_p[b].cross(f_parent);
  }
  if (model.floating_base) {
    // A(5) upper rows: the wrench the whole robot needs, on the base.
    data.tau.head<3>() = data.body_f[0];
    data.tau.segment<3>(3) = data.body_n[0];
  }
  return data.tau;
}

}  // namespace

const Eigen::VectorXd& rnea(const RigidModel& model, RigidData& data, const Configuration& q,
                            const VectorRef& v, const VectorRef& a) {
  return rneaWith(model, data, q, v, a, nullptr);
}

const Eigen::VectorXd& rnea(const RigidModel& model, RigidData& data, const Configuration& q,
                            const VectorRef& v, const VectorRef& a, const Eigen::VectorXd& parameters) {
  if (parameters.size() != 10 * model.num_bodies) {
    throw std::invalid_argument("rnea: parameters must have 10 per body (" + std::to_string(10 * model.num_bodies) +
                                "), got " + std::to_string(parameters.size()));
  }
  return rneaWith(model, data, q, v, a, parameters.data());
}

const Eigen::MatrixXd& massMatrix(const RigidModel& model, RigidData& data,
                                  const Configuration& q) {
  detail::checkConfiguration("massMatrix", model, q);
  detail::updateJointRotations(model, data, q);
  const int nb = model.base_dofs;

  // Composite inertia of every subtree about its body origin, leaves first.
  for (int b = 0; b < model.num_bodies; ++b) {
    const double m = model.body_mass[b];
    data.composite_mass[b] = m;
    data.composite_h[b] = m * model.body_com[b];
    data.composite_I[b] = detail::inertiaAboutOrigin(m, model.body_com[b], model.body_inertia[b]);
  }
  for (int b = model.num_bodies - 1; b > 0; --b) {
    const int parent = model.body_parent[b];
    Vector3d h;
    Matrix3d I;
    detail::inertiaToParent(data.body_R_parent[b], model.body_joint_p[b], data.composite_mass[b],
                            data.composite_h[b], data.composite_I[b], &h, &I);
    data.composite_mass[parent] += data.composite_mass[b];
    data.composite_h[parent] += h;
    data.composite_I[parent] += I;
  }

  // Column of joint b: F = I^c_b S_b is the wrench that accelerating joint b
  // alone needs; carried up to each ancestor it gives the coupling terms
  // (M_ij = S_jᵀ X F), and at the base the six rows of M_oj.
  data.M.setZero();
  for (int b = model.num_bodies - 1; b > 0; --b) {
    const Vector3d& s = model.body_axis[b];
    const int col = nb + b - 1;
    Vector3d f = s.cross(data.composite_h[b]);
    Vector3d n = data.composite_I[b] * s;
    data.M(col, col) = s.dot(n);
    for (int k = b; model.body_parent[k] >= 0;) {
      const Matrix3d& R = data.body_R_parent[k];
      f = R * f;
      n = R * n + model.body_joint_p[k].cross(f);
      k = model.body_parent[k];
      if (k > 0) {
        const int row = nb + k - 1;
        data.M(row, col) = model.body_axis[k].dot(n);
        data.M(col, row) = data.M(row, col);
      } else if (model.floating_base) {
        data.M.block<3, 1>(0, col) = f;
        data.M.block<3, 1>(3, col) = n;
        data.M.block<1, 3>(col, 0) = f.transpose();
        data.M.block<1, 3>(col, 3) = n.transpose();
      }
    }
  }
  if (model.floating_base) {
    // M_oo: the robot's composite inertia about the base origin,
    // [[m 1, −[h]], [[h], I_O]] in (linear, angular) order.
    const Matrix3d H = detail::skew(data.composite_h[0]);
    data.M.block<3, 3>(0, 0) = data.composite_mass[0] * Matrix3d::Identity();
    data.M.block<3, 3>(0, 3) = -H;
    data.M.block<3, 3>(3, 0) = H;
    // Symmetrised: R I Rᵀ in the composite sums rounds asymmetrically (1e-16),
    // and callers may rely on M == Mᵀ exactly.
    data.M.block<3, 3>(3, 3) = 0.5 * (data.composite_I[0] + data.composite_I[0].transpose());
  }
  return data.M;
}

const Eigen::VectorXd& nonlinearEffects(const RigidModel& model, RigidData& data,
                                        const Configuration& q, const VectorRef& v) {
  detail::checkVector("nonlinearEffects", "v", model, v);
  data.nle = rnea(model, data, q, v, data.zero);
  return data.nle;
}

const Eigen::VectorXd& forwardDynamics(const RigidModel& model, RigidData& data,
                                       const Configuration& q, const VectorRef& v,
                                       const VectorRef& tau) {
  detail::checkVector("forwardDynamics", "tau", model, tau);
  // Copy F first: the caller may pass data.tau (an rnea result), which
  // nonlinearEffects overwrites.
  data.ddq = tau;
  nonlinearEffects(model, data, q, v);
  massMatrix(model, data, q);
  data.ddq -= data.nle;
  data.ldlt.compute(data.M);
  data.ldlt.solveInPlace(data.ddq);
  return data.ddq;
}

}  // namespace suitsim::eval
