// RigidData's promise: once built, the algorithms allocate nothing. This
// executable compiles the evaluator sources itself with EIGEN_RUNTIME_NO_MALLOC
// and assertions on (see CMakeLists.txt), so any Eigen heap allocation while
// malloc is forbidden aborts the test.
#include <gtest/gtest.h>

#include <random>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/eval/dynamics.h"
#include "suitsim/eval/integrate.h"
#include "suitsim/eval/kinematics.h"

namespace suitsim::eval {
namespace {

// Forbids Eigen heap allocation for its lifetime.
struct NoMalloc {
  NoMalloc() { Eigen::internal::set_is_malloc_allowed(false); }
  ~NoMalloc() { Eigen::internal::set_is_malloc_allowed(true); }
};

TEST(RigidNoAlloc, AlgorithmsDoNotAllocate) {
  ASSERT_TRUE(Eigen::internal::is_malloc_allowed());
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
    {
      const NoMalloc guard;
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
    }
    EXPECT_TRUE(std::isfinite(sink));
    // forwardDynamics copies F before rnea's buffer is reused: passing
    // data.tau back in gives a = the acceleration rnea was asked for.
    EXPECT_LT(testutil::relativeError(forwardDynamics(model, data, q, v, rnea(model, data, q, v, a)), a),
              1e-9);
  }
}

}  // namespace
}  // namespace suitsim::eval
