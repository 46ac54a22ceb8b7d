// rnea, massMatrix, nonlinearEffects and forwardDynamics against closed-form
// Lagrange equations and independent invariants.
#include "suitsim/rigid/dynamics.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/integrate.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using testutil::relativeError;

std::vector<RobotDescription> allRobots() {
  return {testing::singlePendulum(), testing::doublePendulum(), testing::spatialChain3(),
          testing::floatingHumanoid()};
}

TEST(RigidDynamics, SinglePendulumMatchesAnalytic) {
  const double m = 1.3, l = 0.6, I = 0.02, g = 9.81;
  const RigidModel model = makeRigidModel(testing::singlePendulum(m, l, I));
  RigidData data(model);
  std::mt19937 rng(1);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::VectorXd q = testutil::randomVector(rng, 1, 3.14);
    const Eigen::VectorXd v = testutil::randomVector(rng, 1, 5.0);
    const Eigen::VectorXd a = testutil::randomVector(rng, 1, 20.0);
    const double expected = m * g * l * std::sin(q[0]) + (I + m * l * l) * a[0];
    EXPECT_LT(relativeError(rnea(model, data, q, v, a)[0], expected), 1e-13);
  }
}

// Closed-form Lagrange equations of the planar double pendulum (angles from
// the downward vertical, θ2 relative):  M(θ) θ̈ + C(θ, θ̇) + G(θ) = τ.
struct DoublePendulumLagrange {
  testing::DoublePendulumParams p;
  double g = 9.81;
  Eigen::Matrix2d mass(const Eigen::Vector2d& q) const {
    const double c2 = std::cos(q[1]);
    Eigen::Matrix2d M;
    M(0, 0) = p.I1 + p.I2 + p.m1 * p.lc1 * p.lc1 +
              p.m2 * (p.l1 * p.l1 + p.lc2 * p.lc2 + 2.0 * p.l1 * p.lc2 * c2);
    M(0, 1) = M(1, 0) = p.I2 + p.m2 * (p.lc2 * p.lc2 + p.l1 * p.lc2 * c2);
    M(1, 1) = p.I2 + p.m2 * p.lc2 * p.lc2;
    return M;
  }
  Eigen::Vector2d coriolis(const Eigen::Vector2d& q, const Eigen::Vector2d& v) const {
    const double k = p.m2 * p.l1 * p.lc2 * std::sin(q[1]);
    return Eigen::Vector2d(-k * (2.0 * v[0] * v[1] + v[1] * v[1]), k * v[0] * v[0]);
  }
  Eigen::Vector2d gravity(const Eigen::Vector2d& q) const {
    const double s12 = std::sin(q[0] + q[1]);
    return Eigen::Vector2d((p.m1 * p.lc1 + p.m2 * p.l1) * g * std::sin(q[0]) + p.m2 * g * p.lc2 * s12,
                           p.m2 * g * p.lc2 * s12);
  }
};

TEST(RigidDynamics, DoublePendulumMatchesLagrange) {
  const DoublePendulumLagrange lagrange;
  const RigidModel model = makeRigidModel(testing::doublePendulum(lagrange.p));
  RigidData data(model);
  std::mt19937 rng(2);
  double worst = 0.0;
  for (int trial = 0; trial < 100; ++trial) {
    const Eigen::Vector2d q = testutil::randomVector(rng, 2, 3.14);
    const Eigen::Vector2d v = testutil::randomVector(rng, 2, 6.0);
    const Eigen::Vector2d a = testutil::randomVector(rng, 2, 30.0);
    const Configuration qc(q);
    const double eM = relativeError(massMatrix(model, data, qc), lagrange.mass(q));
    const Eigen::VectorXd G = nonlinearEffects(model, data, qc, Eigen::Vector2d::Zero());
    const double eG = relativeError(G, lagrange.gravity(q));
    const Eigen::VectorXd C = nonlinearEffects(model, data, qc, v) - G;
    const double eC = relativeError(C, lagrange.coriolis(q, v));
    const Eigen::Vector2d tau = lagrange.mass(q) * a + lagrange.coriolis(q, v) + lagrange.gravity(q);
    const double eT = relativeError(rnea(model, data, qc, v, a), tau);
    EXPECT_LT(eM, 1e-10);
    EXPECT_LT(eG, 1e-10);
    EXPECT_LT(eC, 1e-10);
    EXPECT_LT(eT, 1e-10);
    worst = std::max({worst, eM, eG, eC, eT});
  }
  RecordProperty("worst_rel_error", testutil::sci(worst));
}

// rnea(q, v, forwardDynamics(q, v, F)) = F.
TEST(RigidDynamics, RneaInvertsForwardDynamics) {
  for (const RobotDescription& robot : allRobots()) {
    const RigidModel model = makeRigidModel(robot);
    RigidData data(model);
    std::mt19937 rng(4);
    double worst = 0.0;
    for (int trial = 0; trial < 50; ++trial) {
      const Configuration q = testutil::randomConfiguration(model, rng);
      const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 3.0);
      const Eigen::VectorXd F = testutil::randomVector(rng, model.nv, 20.0);
      const Eigen::VectorXd a = forwardDynamics(model, data, q, v, F);
      worst = std::max(worst, relativeError(rnea(model, data, q, v, a), F));
    }
    EXPECT_LT(worst, 1e-9) << robot.name;
    RecordProperty(robot.name + "_rel_error", testutil::sci(worst));
  }
}

// CRBA against RNEA: with gravity off, column i of M is rnea(q, 0, e_i).
TEST(RigidDynamics, MassMatrixColumnsAreRneaOfUnitAccelerations) {
  for (const RobotDescription& robot : allRobots()) {
    RigidModel model = makeRigidModel(robot);
    model.gravity.setZero();
    RigidData data(model);
    std::mt19937 rng(6);
    const Configuration q = testutil::randomConfiguration(model, rng);
    const Eigen::MatrixXd M = massMatrix(model, data, q);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv);
    for (int i = 0; i < model.nv; ++i) {
      const Eigen::VectorXd e = Eigen::VectorXd::Unit(model.nv, i);
      EXPECT_LT(relativeError(rnea(model, data, q, zero, e), M.col(i)), 1e-13) << robot.name << " col " << i;
    }
  }
}

// M symmetric positive definite, and ½ vᵀ M v equals the kinetic energy summed
// body by body from forward-kinematics velocities, ½ Σ (m |v_c|² + ωᵀ I ω).
TEST(RigidDynamics, MassMatrixSpdAndKineticEnergy) {
  for (const RobotDescription& robot : allRobots()) {
    const RigidModel model = makeRigidModel(robot);
    RigidData data(model);
    std::mt19937 rng(8);
    double worst = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      const Configuration q = testutil::randomConfiguration(model, rng);
      const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 3.0);
      const Eigen::MatrixXd M = massMatrix(model, data, q);
      EXPECT_EQ((M - M.transpose()).norm(), 0.0);
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues().minCoeff(), 0.0);
      EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(M).info(), Eigen::Success);
      const double T = kineticEnergy(model, data, q, v);
      EXPECT_LT(relativeError(0.5 * v.dot(M * v), T), 1e-13) << robot.name;
      worst = std::max(worst, relativeError(0.5 * v.dot(M * v), T));
    }
    RecordProperty(robot.name + "_rel_error", testutil::sci(worst));
  }
}

// Power balance, an independent check of every row of rnea: along q ⊕ t v
// with v̇ = a, d/dt (kinetic + potential energy) = Fᵀ v.
TEST(RigidDynamics, PowerBalance) {
  for (const RobotDescription& robot : allRobots()) {
    const RigidModel model = makeRigidModel(robot);
    RigidData data(model);
    std::mt19937 rng(9);
    const double h = 1e-5;
    double worst = 0.0;
    for (int trial = 0; trial < 10; ++trial) {
      const Configuration q = testutil::randomConfiguration(model, rng);
      const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 2.0);
      const Eigen::VectorXd a = testutil::randomVector(rng, model.nv, 5.0);
      const double power = rnea(model, data, q, v, a).dot(v);
      Configuration qp = q, qm = q;
      integrateConfiguration(model, qp, v, h);
      integrateConfiguration(model, qm, v, -h);
      const double ep = kineticEnergy(model, data, qp, v + h * a) + potentialEnergy(model, data, qp);
      const double em = kineticEnergy(model, data, qm, v - h * a) + potentialEnergy(model, data, qm);
      EXPECT_NEAR((ep - em) / (2.0 * h), power, 1e-6 * (1.0 + std::abs(power))) << robot.name;
      worst = std::max(worst, std::abs((ep - em) / (2.0 * h) - power) / (1.0 + std::abs(power)));
    }
    RecordProperty(robot.name + "_rel_error", testutil::sci(worst));
  }
}

// The floating-base rows of rnea are the wrench [f_o; n_o] (base axes, moment
// about the base origin) that, with gravity, changes the robot's momentum:
//   base_R f_o = dP/dt − m g,
//   base_R n_o + p_o × base_R f_o = dL_O/dt − c × m g   (about the world origin).
TEST(RigidDynamics, FloatingBaseWrenchIsMomentumRate) {
  const RigidModel model = makeRigidModel(testing::floatingHumanoid());
  RigidData data(model);
  std::mt19937 rng(10);
  const double h = 1e-5;
  const double m = model.totalMass();
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    const Configuration q = testutil::randomConfiguration(model, rng);
    const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 2.0);
    const Eigen::VectorXd a = testutil::randomVector(rng, model.nv, 5.0);
    const Eigen::VectorXd F = rnea(model, data, q, v, a);
    const Vector3d f_W = q.base_R * F.head<3>();
    const Vector3d n_O = q.base_R * F.segment<3>(3) + q.base_p.cross(f_W);

    Configuration qp = q, qm = q;
    integrateConfiguration(model, qp, v, h);
    integrateConfiguration(model, qm, v, -h);
    const Momentum plus = momentum(model, data, qp, v + h * a);
    const Momentum minus = momentum(model, data, qm, v - h * a);
    const Momentum now = momentum(model, data, q, v);
    const Vector3d P_dot = (plus.linear - minus.linear) / (2.0 * h);
    const Vector3d L_dot = (plus.angular_origin - minus.angular_origin) / (2.0 * h);
    const Vector3d f_expected = P_dot - m * model.gravity;
    const Vector3d n_expected = L_dot - now.com.cross(m * model.gravity);
    EXPECT_LT((f_W - f_expected).norm(), 1e-6 * f_expected.norm());
    EXPECT_LT((n_O - n_expected).norm(), 1e-6 * n_expected.norm());
    worst = std::max({worst, (f_W - f_expected).norm() / f_expected.norm(),
                      (n_O - n_expected).norm() / n_expected.norm()});
  }
  RecordProperty("worst_rel_error", testutil::sci(worst));
}

// At rest the base rows of h(q, 0) hold the robot up: f_o = −m Rᵀ g and
// n_o = c_B × f_o with c_B the CoM in base coordinates; for a fixed base the
// joint rows are the gradient of the potential energy.
TEST(RigidDynamics, GravityTerms) {
  const RigidModel floating = makeRigidModel(testing::floatingHumanoid());
  RigidData fdata(floating);
  std::mt19937 rng(12);
  for (int trial = 0; trial < 10; ++trial) {
    const Configuration q = testutil::randomConfiguration(floating, rng);
    const Eigen::VectorXd G = nonlinearEffects(floating, fdata, q, Eigen::VectorXd::Zero(floating.nv));
    const Vector3d f = -floating.totalMass() * (q.base_R.transpose() * floating.gravity);
    const Vector3d c_B = q.base_R.transpose() * (centerOfMass(floating, fdata, q) - q.base_p);
    EXPECT_LT((G.head<3>() - f).norm(), 1e-12 * f.norm());
    EXPECT_LT((G.segment<3>(3) - c_B.cross(f)).norm(), 1e-12 * f.norm());
  }

  const RigidModel chain = makeRigidModel(testing::spatialChain3());
  RigidData cdata(chain);
  const double h = 1e-6;
  for (int trial = 0; trial < 10; ++trial) {
    const Configuration q = testutil::randomConfiguration(chain, rng);
    const Eigen::VectorXd G = nonlinearEffects(chain, cdata, q, Eigen::VectorXd::Zero(chain.nv));
    for (int i = 0; i < chain.num_joints; ++i) {
      Configuration qp = q, qm = q;
      qp.joints[i] += h;
      qm.joints[i] -= h;
      const double dV = (potentialEnergy(chain, cdata, qp) - potentialEnergy(chain, cdata, qm)) / (2.0 * h);
      EXPECT_NEAR(G[i], dV, 1e-8 * (1.0 + std::abs(dV)));
    }
  }
}

// A fixed base welded with a rotated root sees gravity rotated into its frame.
TEST(RigidDynamics, FixedBasePoseRotatesGravity) {
  RigidModel welded = makeRigidModel(testing::spatialChain3());
  RigidModel tilted = welded;
  const Matrix3d R = Eigen::AngleAxisd(0.7, Vector3d(1.0, 2.0, -0.5).normalized()).toRotationMatrix();
  tilted.gravity = R.transpose() * welded.gravity;
  RigidData dw(welded), dt(tilted);
  std::mt19937 rng(13);
  for (int trial = 0; trial < 10; ++trial) {
    Configuration q = testutil::randomConfiguration(welded, rng);
    const Eigen::VectorXd v = testutil::randomVector(rng, welded.nv, 2.0);
    const Eigen::VectorXd a = testutil::randomVector(rng, welded.nv, 5.0);
    const Eigen::VectorXd tau_tilted = rnea(tilted, dt, q, v, a);
    q.base_R = R;
    q.base_p = Vector3d(0.3, -1.0, 2.0);
    EXPECT_LT(relativeError(rnea(welded, dw, q, v, a), tau_tilted), 1e-13);
  }
}

TEST(RigidDynamics, WrongSizesThrow) {
  const RigidModel model = makeRigidModel(testing::floatingHumanoid());
  RigidData data(model);
  const Configuration q = neutralConfiguration(model);
  const Eigen::VectorXd ok = Eigen::VectorXd::Zero(model.nv);
  const Eigen::VectorXd joints_only = Eigen::VectorXd::Zero(model.num_joints);
  EXPECT_THROW(rnea(model, data, q, joints_only, ok), std::invalid_argument);
  EXPECT_THROW(rnea(model, data, q, ok, joints_only), std::invalid_argument);
  EXPECT_THROW(forwardDynamics(model, data, q, ok, joints_only), std::invalid_argument);
  EXPECT_THROW(massMatrix(model, data, Configuration(ok)), std::invalid_argument);
}

}  // namespace
}  // namespace suitsim::eval
