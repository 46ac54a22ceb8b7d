// RigidData's promise: once built, the algorithms allocate nothing. The
// library is linked as built; allocation_counter.h counts every heap
// allocation the process makes while the algorithms run.
#include <gtest/gtest.h>

#include <random>

#include "allocation_counter.h"
#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/integrate.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {
namespace {

TEST(RigidNoAlloc, AlgorithmsDoNotAllocate) {
  if (!suitsim::testing::kAllocationCounterWorks) GTEST_SKIP() << "the sanitizer owns malloc";
  {
    // The counter sees what it must: one vector, one Eigen matrix.
    suitsim::testing::CountAllocations probe;
    std::vector<double> v(1000, 1.0);
    Eigen::MatrixXd m = Eigen::MatrixXd::Ones(40, 40);
    EXPECT_GE(probe.count(), 2) << v[0] + m(0, 0);
  }
  for (const RobotDescription& robot : {testing::spatialChain3(), testing::floatingHumanoid()}) {
    const RigidModel model = makeRigidModel(robot);
    RigidData data(model);
    std::mt19937 rng(31);
    const Configuration q = testutil::randomConfiguration(model, rng);
    const Eigen::VectorXd v = testutil::randomVector(rng, model.nv, 2.0);
    const Eigen::VectorXd a = testutil::randomVector(rng, model.nv, 2.0);
    const Eigen::VectorXd F = testutil::randomVector(rng, model.nv, 2.0);
    Eigen::MatrixXd J(6, model.nv), Jp(3, model.nv);
    RigidState state{q, v};
    double sink = 0.0;
    long allocations = -1;
    {
      const suitsim::testing::CountAllocations guard;
      for (int repeat = 0; repeat < 2; ++repeat) {
        forwardKinematics(model, data, q, v);
        frameJacobian(model, data, model.numFrames() - 1, J);
        pointJacobian(model, data, 0, Eigen::Vector3d(0.1, 0.0, 0.0), Jp);
        sink += rnea(model, data, q, v, a)[0];
        sink += massMatrix(model, data, q)(0, 0);
        sink += nonlinearEffects(model, data, q, v)[0];
        sink += forwardDynamics(model, data, q, v, F)[0];
        sink += forwardDynamics(model, data, q, v, rnea(model, data, q, v, a))[0];
        rk4Step(model, data, state, F, 1e-3);
        sink += centerOfMass(model, data, q).x() + momentum(model, data, q, v).linear.x() +
                kineticEnergy(model, data, q, v) + potentialEnergy(model, data, q);
      }
      allocations = guard.count();
    }
    EXPECT_EQ(allocations, 0);
    EXPECT_TRUE(std::isfinite(sink));
    // forwardDynamics copies F before rnea's buffer is reused: passing
    // data.tau back in gives a = the acceleration rnea was asked for.
    EXPECT_LT(testutil::relativeError(forwardDynamics(model, data, q, v, rnea(model, data, q, v, a)), a),
              1e-9);
  }
}

}  // namespace
}  // namespace suitsim::eval
