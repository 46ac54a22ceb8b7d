// The identified model's torques: inverse dynamics with base parameters
// (Newton-Euler over a standard vector that holds them, no regressor), the
// held loads' parameters, and the actuators' torques A(6)-(9).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <Eigen/Geometry>

#include "suitsim/core/stop.h"
#include "suitsim/eval/identification.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/kinematics.h"
#include "motion_samples.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
using namespace samples;  // motion_samples.h

Eigen::VectorXd heldParameters(const RigidModel& model, const std::vector<HeldLoad>& held) {
  VectorXd phi = VectorXd::Zero(10 * model.num_bodies);
  for (const HeldLoad& h : held) {
    const int f = frameIndex(model, h.link);
    if (f < 0) throw std::invalid_argument("held load on unknown link '" + h.link + "'");
    const int b = model.frame_body[f];
    const Vector3d c = model.frame_R[f] * h.com + model.frame_p[f];
    const double m = h.mass;
    const Matrix3d I = (0.4 * m * h.radius * h.radius) * Matrix3d::Identity() +
                       m * (c.squaredNorm() * Matrix3d::Identity() - c * c.transpose());
    Eigen::Matrix<double, 10, 1> add;
    add << m, m * c.x(), m * c.y(), m * c.z(), I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2);
    phi.segment<10>(10 * b) += add;
  }
  return phi;
}

std::vector<Eigen::MatrixXd> inverseDynamics(const RigidModel& model, const BaseParameters& base,
                                             const std::vector<Eigen::VectorXd>& phis, const MotionData& motion,
                                             int threads) {
  // Y_1 φ_B = Y s for the standard vector s that holds φ_B in the
  // independent columns and zero in the dependent ones (φ_B = φ_1 + K φ_2,
  // Y_2 = Y_1 K: base_parameters.h), so Newton-Euler with s gives Y φ
  // without forming the regressor (rnea is linear in the parameters).
  const VectorXd held = base.fromStandard(heldParameters(model, motion.held));
  std::vector<VectorXd> standard;
  for (const VectorXd& phi : phis) {
    VectorXd s = VectorXd::Zero(10 * model.num_bodies);
    for (int i = 0; i < base.numBase(); ++i) s[base.independent[static_cast<std::size_t>(i)]] = phi[i] + held[i];
    standard.push_back(std::move(s));
  }
  const RigidModel m0 = withoutGravity(model);
  const int n = motion.numSamples(), nv = model.nv;
  std::vector<MatrixXd> out(phis.size(), MatrixXd(n, nv));
#pragma omp parallel num_threads(threadCount(threads))
  {
    RigidData data(m0);
    VectorXd v, a;
#pragma omp for schedule(static)
    for (int t = 0; t < n; ++t) {
      sampleVelocityAcceleration(m0, motion, t, v, a);
      const Configuration q = sampleConfiguration(motion, t);
      for (std::size_t k = 0; k < phis.size(); ++k) out[k].row(t) = rnea(m0, data, q, v, a, standard[k]).transpose();
    }
  }
  throwIfStopped();  // a trial's samples take a while; no exception may leave the parallel region
  return out;
}

Eigen::MatrixXd inverseDynamics(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi,
                                const MotionData& motion, int threads) {
  return inverseDynamics(model, base, std::vector<VectorXd>{phi}, motion, threads).front();
}

Eigen::MatrixXd actuatorTorque(const RigidModel& model, const JointParameters& xi, const MotionData& motion,
                               const Eigen::MatrixXd& inverse_dynamics, double stop_velocity) {
  const int n = motion.numSamples(), nj = model.num_joints;
  // Link-side torque sensors read what the drive gives the link, after its
  // friction and rotor: only their offset τ_o is added (identification.h).
  if (motion.joint_torque.rows() == n) return motion.joint_torque.rowwise() + xi.offset.transpose();
  if (motion.current.rows() != n) throw std::invalid_argument("trial '" + motion.name + "' has no motor currents");
  MatrixXd tau(n, nj);
  Eigen::VectorXd qd_t, qdd_t;
  for (int t = 0; t < n; ++t) {
    if (!xi.drives.empty()) {
      qd_t = motion.qd.row(t).transpose();
      qdd_t = motion.qdd.row(t).transpose();
    }
    for (int i = 0; i < nj; ++i) {
      // The rotor takes I_a θ̈ of what the motor makes before the link sees it.
      const double qd = motion.qd(t, i);
      double drive = xi.motor_constant[i] * motion.current(t, i) + xi.offset[i] - xi.armature[i] * motion.qdd(t, i) +
                           xi.backdrive_excess[i] * backdrivenLoad(xi, i, motion.current(t, i), qd);
      // A coupled motor's rotor and friction, through its row (CoupledDrive).
      for (const CoupledDrive& c : xi.drives) drive -= c.torque(i, qd_t, qdd_t);
      double friction;
      if (std::abs(qd) > stop_velocity) {
        friction = xi.viscous[i] * qd + (qd > 0.0 ? xi.coulomb[i] : -xi.coulomb[i]);
      } else {
        // A(8)-(9): static friction holds what drive and contact leave over.
        const double held = drive - inverse_dynamics(t, model.base_dofs + i) + motion.F(t, model.base_dofs + i);
        friction = xi.viscous[i] * qd + (held > 0.0 ? xi.static_max[i] : (held < 0.0 ? -xi.static_max[i] : 0.0));
      }
      tau(t, i) = drive - friction;
    }
  }
  return tau;
}

}  // namespace suitsim::eval
