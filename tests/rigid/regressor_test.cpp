// The regressor A(11): Y(q, v, a) phi equals the recursive Newton-Euler
// torques, for the model's own parameters and for any others.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/base_parameters.h"
#include "suitsim/rigid/regressor.h"

namespace suitsim::eval {
namespace {

using testutil::randomConfiguration;
using testutil::randomVector;
using testutil::relativeError;

// The same description with every link's inertial parameters changed at
// random (still physical): Y from the original model must predict its rnea.
RobotDescription perturbed(RobotDescription robot, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.7, 1.3), shift(-0.03, 0.03);
  for (RobotLink& link : robot.links) {
    if (link.inertial.mass <= 0.0) continue;
    link.inertial.mass *= u(rng);
    for (double& c : link.inertial.com) c += shift(rng);
    const double s = u(rng);
    for (int k = 0; k < 3; ++k) link.inertial.inertia[k] *= s;  // principal part scaled: stays physical
  }
  return robot;
}

void checkRegressor(const RobotDescription& robot) {
  std::mt19937 rng(5);
  const RigidModel model = makeRigidModel(robot);
  RigidData data(model);
  Eigen::MatrixXd Y;
  const Eigen::VectorXd phi = standardParameters(model);
  const RobotDescription other_robot = perturbed(robot, rng);
  const RigidModel other = makeRigidModel(other_robot);
  RigidData other_data(other);
  const Eigen::VectorXd phi_other = standardParameters(other);
  for (int trial = 0; trial < 20; ++trial) {
    const Configuration q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = randomVector(rng, model.nv, 2.0);
    const Eigen::VectorXd a = randomVector(rng, model.nv, 5.0);
    regressor(model, data, q, v, a, Y);
    const Eigen::VectorXd tau = rnea(model, data, q, v, a);
    EXPECT_LT(relativeError(Y * phi, tau), 1e-9) << robot.name << " trial " << trial;
    const Eigen::VectorXd tau_other = rnea(other, other_data, q, v, a);
    EXPECT_LT(relativeError(Y * phi_other, tau_other), 1e-9) << robot.name << " (perturbed) trial " << trial;
  }
}

TEST(Regressor, EqualsNewtonEulerForFixedBaseChains) {
  checkRegressor(testing::doublePendulum());
  checkRegressor(testing::spatialChain3());
}

TEST(Regressor, EqualsNewtonEulerForAFloatingTree) {
  // Upper six rows: the base wrench of A(11) (what B(4) identifies from).
  checkRegressor(testing::floatingHumanoid());
}

// Newton-Euler with a parameter vector of its own (rnea's overload, which
// the evaluator's inverse dynamics use for Y phi): Y p for any p, physical
// or not, including the standard vector holding base parameters.
TEST(Regressor, NewtonEulerWithAnyParametersIsTheRegressorTimesThem) {
  for (const RobotDescription& robot : {testing::spatialChain3(), testing::floatingHumanoid()}) {
    std::mt19937 rng(17);
    const RigidModel model = makeRigidModel(robot);
    const BaseParameters base = computeBaseParameters(model);
    RigidData data(model);
    Eigen::MatrixXd Y;
    const Eigen::VectorXd any = randomVector(rng, 10 * model.num_bodies, 1.0);
    const Eigen::VectorXd phi_b = base.fromStandard(any);
    Eigen::VectorXd held_in_independent = Eigen::VectorXd::Zero(any.size());
    for (int i = 0; i < base.numBase(); ++i) held_in_independent[base.independent[static_cast<std::size_t>(i)]] = phi_b[i];
    for (int trial = 0; trial < 10; ++trial) {
      const Configuration q = randomConfiguration(model, rng);
      const Eigen::VectorXd v = randomVector(rng, model.nv, 2.0);
      const Eigen::VectorXd a = randomVector(rng, model.nv, 5.0);
      regressor(model, data, q, v, a, Y);
      const Eigen::VectorXd expected = Y * any;
      EXPECT_LT(relativeError(rnea(model, data, q, v, a, any), expected), 1e-9) << robot.name;
      EXPECT_LT(relativeError(rnea(model, data, q, v, a, held_in_independent), expected), 1e-8) << robot.name;
    }
    EXPECT_THROW(rnea(model, data, randomConfiguration(model, rng), Eigen::VectorXd::Zero(model.nv),
                      Eigen::VectorXd::Zero(model.nv), Eigen::VectorXd::Zero(3)),
                 std::invalid_argument);
  }
}

TEST(Regressor, ParametersFollowTheBodyOrderAndLayout) {
  const RigidModel model = makeRigidModel(testing::singlePendulum(1.3, 0.6, 0.02));
  const Eigen::VectorXd phi = standardParameters(model);
  ASSERT_EQ(phi.size(), 10 * model.num_bodies);
  // Body 1 is the arm: m, m c = (0, 0, -m l), I_yy about the joint = I + m l^2.
  EXPECT_DOUBLE_EQ(phi[10 + 0], 1.3);
  EXPECT_NEAR(phi[10 + 3], -1.3 * 0.6, 1e-15);
  EXPECT_NEAR(phi[10 + 5], 0.02 + 1.3 * 0.36, 1e-15);
}

}  // namespace
}  // namespace suitsim::eval

namespace suitsim::eval {
namespace {

// Y phi = Y_1 phi_B at states the base parameters were not computed from.
void checkBaseParameters(const RobotDescription& robot, int expected_count) {
  const RigidModel model = makeRigidModel(robot);
  const BaseParameters base = computeBaseParameters(model);
  std::printf("[measured] %s: %d base parameters of %d standard\n", robot.name.c_str(), base.numBase(),
              10 * model.num_bodies);
  if (expected_count > 0) {
    EXPECT_EQ(base.numBase(), expected_count) << robot.name;
  }
  std::mt19937 rng(99);
  RigidData data(model);
  Eigen::MatrixXd Y;
  const Eigen::VectorXd phi = standardParameters(model);
  const Eigen::VectorXd phi_b = base.fromStandard(phi);
  // Any parameters, not just the model's: linearity holds for all.
  const Eigen::VectorXd phi_any = randomVector(rng, phi.size(), 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    const Configuration q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = randomVector(rng, model.nv, 2.0);
    const Eigen::VectorXd a = randomVector(rng, model.nv, 5.0);
    regressor(model, data, q, v, a, Y);
    EXPECT_LT(relativeError(base.reduce(Y) * phi_b, Y * phi), 1e-9) << robot.name;
    EXPECT_LT(relativeError(base.reduce(Y) * base.fromStandard(phi_any), Y * phi_any), 1e-8) << robot.name;
  }
}

TEST(BaseParameters, PlanarDoublePendulumHasSixAndTheyReproduceTheRegressor) {
  // Planar 2R under gravity in its plane: per link ZZ, MX and MZ (the first
  // moments in the plane) matter, everything else of link 2 regroups into
  // link 1 and the rest of link 1 never acts: 3 + 3 = 6.
  checkBaseParameters(testing::doublePendulum(), 6);
}

TEST(BaseParameters, SpatialChainAndFloatingTreeReproduceTheRegressor) {
  checkBaseParameters(testing::spatialChain3(), 0);
  checkBaseParameters(testing::floatingHumanoid(), 0);
}

}  // namespace
}  // namespace suitsim::eval
