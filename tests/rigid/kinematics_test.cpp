// Forward kinematics, velocities and Jacobians against closed forms and
// finite differences; CoM, momentum and energy sums.
#include "suitsim/rigid/kinematics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/integrate.h"

namespace suitsim::eval {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using testutil::relativeError;

TEST(RigidKinematics, SinglePendulumCoMOnCircle) {
  const double m = 1.3, l = 0.6;
  const RigidModel model = makeRigidModel(testing::singlePendulum(m, l));
  RigidData data(model);
  for (double th : {-2.0, -0.3, 0.0, 0.7, 3.0}) {
    const Configuration q(Eigen::VectorXd::Constant(1, th));
    const Vector3d c = centerOfMass(model, data, q);
    EXPECT_LT((c - Vector3d(-l * std::sin(th), 0.0, -l * std::cos(th))).norm(), 1e-15);
    EXPECT_NEAR(potentialEnergy(model, data, q), -m * 9.81 * l * std::cos(th), 1e-13);
  }
}

TEST(RigidKinematics, DoublePendulumElbowAndFrames) {
  const testing::DoublePendulumParams p;
  const RigidModel model = makeRigidModel(testing::doublePendulum(p));
  RigidData data(model);
  const Configuration q(Eigen::Vector2d(0.4, -1.1));
  forwardKinematics(model, data, q);
  const int lower = frameIndex(model, "lower");
  EXPECT_LT((data.frame_p_W[lower] - Vector3d(-p.l1 * std::sin(0.4), 0.0, -p.l1 * std::cos(0.4))).norm(),
            1e-15);
  // Planar: the lower link is turned by θ1 + θ2 about y.
  const Matrix3d expected = Eigen::AngleAxisd(0.4 - 1.1, Vector3d::UnitY()).toRotationMatrix();
  EXPECT_LT((data.frame_R_W[lower] - expected).norm(), 1e-15);
}

// Frame velocities from the velocity recursion equal central differences of
// forward-kinematics poses along q ⊕ ±h v (exact base exponential).
TEST(RigidKinematics, FrameVelocitiesMatchFiniteDifferences) {
  const RigidModel model = makeRigidModel(testing::floatingHumanoid());
  RigidData data(model), plus(model), minus(model);
  std::mt19937 rng(11);
  const double h = 1e-6;
  for (int trial = 0; trial < 5; ++trial) {
    const Configuration q = testutil::randomConfiguration(model, rng);
    const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 2.0);
    Configuration qp = q, qm = q;
    integrateConfiguration(model, qp, v, h);
    integrateConfiguration(model, qm, v, -h);
    forwardKinematics(model, data, q, v);
    forwardKinematics(model, plus, qp);
    forwardKinematics(model, minus, qm);
    for (int f = 0; f < model.numFrames(); ++f) {
      Vector3d v_W, w_W;
      frameVelocity(model, data, f, &v_W, &w_W);
      const Vector3d v_fd = (plus.frame_p_W[f] - minus.frame_p_W[f]) / (2.0 * h);
      const Vector3d w_fd =
          testutil::veeAntisymmetric(plus.frame_R_W[f] * minus.frame_R_W[f].transpose()) / (2.0 * h);
      EXPECT_LT((v_W - v_fd).norm(), 1e-8 * (1.0 + v_W.norm())) << model.frame_name[f];
      EXPECT_LT((w_W - w_fd).norm(), 1e-8 * (1.0 + w_W.norm())) << model.frame_name[f];
    }
  }
}

TEST(RigidKinematics, JacobiansReproduceVelocities) {
  for (const RobotDescription& robot : {testing::spatialChain3(), testing::floatingHumanoid()}) {
    const RigidModel model = makeRigidModel(robot);
    RigidData data(model);
    std::mt19937 rng(3);
    Eigen::MatrixXd J(6, model.nv), Jp(3, model.nv);
    for (int trial = 0; trial < 5; ++trial) {
      const Configuration q = testutil::randomConfiguration(model, rng);
      const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 2.0);
      forwardKinematics(model, data, q, v);
      for (int f = 0; f < model.numFrames(); ++f) {
        Vector3d v_W, w_W;
        frameVelocity(model, data, f, &v_W, &w_W);
        frameJacobian(model, data, f, J);
        const Eigen::VectorXd Jv = J * v;
        EXPECT_LT((Jv.head<3>() - v_W).norm(), 1e-12 * (1.0 + v_W.norm()));
        EXPECT_LT((Jv.tail<3>() - w_W).norm(), 1e-12 * (1.0 + w_W.norm()));
        // A point off the frame origin: v_point = v_origin + ω × r (world).
        const Vector3d r_F(0.03, -0.02, 0.05);
        pointJacobian(model, data, f, r_F, Jp);
        const Vector3d expected = v_W + w_W.cross(data.frame_R_W[f] * r_F);
        EXPECT_LT((Jp * v - expected).norm(), 1e-12 * (1.0 + expected.norm()));
      }
    }
    EXPECT_THROW(frameJacobian(model, data, model.numFrames(), J), std::invalid_argument);
    Eigen::MatrixXd wrong(6, model.nv + 1);
    EXPECT_THROW(frameJacobian(model, data, 0, wrong), std::invalid_argument);
  }
}

// Linear momentum is total mass times the CoM velocity (finite difference of
// centerOfMass); angular momentum about the origin and about the CoM differ
// by c × P.
TEST(RigidKinematics, MomentumConsistentWithCoM) {
  const RigidModel model = makeRigidModel(testing::floatingHumanoid());
  RigidData data(model);
  std::mt19937 rng(5);
  const double h = 1e-6;
  for (int trial = 0; trial < 5; ++trial) {
    const Configuration q = testutil::randomConfiguration(model, rng);
    const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 2.0);
    Configuration qp = q, qm = q;
    integrateConfiguration(model, qp, v, h);
    integrateConfiguration(model, qm, v, -h);
    const Vector3d c_dot =
        (centerOfMass(model, data, qp) - centerOfMass(model, data, qm)) / (2.0 * h);
    const Momentum mom = momentum(model, data, q, v);
    EXPECT_LT((mom.linear - model.totalMass() * c_dot).norm(), 1e-7 * mom.linear.norm());
    EXPECT_LT((mom.com - centerOfMass(model, data, q)).norm(), 1e-14);
    EXPECT_LT((mom.angular_com - (mom.angular_origin - mom.com.cross(mom.linear))).norm(), 1e-12);
  }
}

TEST(RigidKinematics, WrongSizesThrow) {
  const RigidModel model = makeRigidModel(testing::spatialChain3());
  RigidData data(model);
  EXPECT_THROW(forwardKinematics(model, data, Configuration(Eigen::VectorXd::Zero(2))),
               std::invalid_argument);
  EXPECT_THROW(forwardKinematics(model, data, neutralConfiguration(model), Eigen::VectorXd::Zero(4)),
               std::invalid_argument);
}

}  // namespace
}  // namespace suitsim::eval
