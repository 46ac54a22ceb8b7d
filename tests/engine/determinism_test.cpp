// The same run on 1 and 2 threads gives bit-identical states. The model is
// large enough to take the parallel path (see kParallelWork in forces.cpp)
// and to give each thread a spring tile of its own, and has springs, ground
// contacts with friction and fixed particles.
#include <gtest/gtest.h>

#include <cstring>

#include "run_helpers.h"
#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

Model bigScene() {
  ModelBuilder b;
  b.setGround(testing::groundModel(5e3, 5.0, 0.6, 0.4));
  b.addCloth({.name = "cloth", .origin = {-0.5, 0, 0.3}, .u = {1, 0, 0}, .v = {0, 0.3, 1}, .nu = 92, .nv = 92,
              .spacing = 0.02, .mass = 0.5, .stiffness = 200.0, .bend_stiffness = 20.0, .damping = 0.05,
              .pin = ClothSpec::Pin::kTopCorners});
  b.addBlock({.name = "box", .origin = {0.2, 0.2, 0.05}, .nx = 10, .ny = 10, .nz = 10, .spacing = 0.01, .mass = 1.0,
              .stiffness = 3e3, .damping = 0.5, .velocity = {1.5, 0, -0.5}});
  return b.build();
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(Determinism, OneAndTwoThreadsGiveBitIdenticalStates) {
  const Model model = bigScene();
  ASSERT_GE(model.num_springs + model.num_particles, 20000);  // takes the parallel path
  ASSERT_GT(model.num_particles, model.spring_tile_particles);  // each thread has a tile of its own
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4}) {
    State one = makeState(model), two = makeState(model);
    Workspace ws1(model, 1), ws2(model, 2);
    testing::runFor(model, one, ws1, integrator, 5e-5, 0.015);
    testing::runFor(model, two, ws2, integrator, 5e-5, 0.015);
    EXPECT_TRUE(sameBits(one.position.x, two.position.x)) << integratorName(integrator);
    EXPECT_TRUE(sameBits(one.position.y, two.position.y)) << integratorName(integrator);
    EXPECT_TRUE(sameBits(one.position.z, two.position.z)) << integratorName(integrator);
    EXPECT_TRUE(sameBits(one.velocity.z, two.velocity.z)) << integratorName(integrator);
    EXPECT_TRUE(sameBits(one.anchor_u, two.anchor_u)) << integratorName(integrator);
    // The run did something: the box moved and touched the ground.
    EXPECT_GT(std::abs(one.position.x.back() - model.particle_initial_position.x.back()), 1e-3);
  }
}

}  // namespace
}  // namespace suitsim
