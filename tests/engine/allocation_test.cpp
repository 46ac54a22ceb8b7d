// step() allocates nothing: the global operator new is replaced by a
// counting one, and the count must not move across many steps of every
// integrator, on one and two threads, with springs and ground contacts.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "robots.h"
#include "run_helpers.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/step.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// Every form that pairs with the deletes above goes through malloc too:
// std::stable_sort's temporary buffer is a nothrow new, and under
// AddressSanitizer a runtime-provided new freed here is a mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace suitsim {
namespace {

TEST(Allocation, StepAllocatesNothing) {
  ModelBuilder b;
  b.setGround(testing::groundModel(5e3, 0.0, 0.6, 0.4));
  b.addBlock({.name = "box", .origin = {0, 0, 0.01}, .nx = 16, .ny = 16, .nz = 8, .spacing = 0.01, .mass = 1.0,
              .stiffness = 3e3, .damping = 0.5, .velocity = {1.0, 0, -0.5}});
  const Model model = b.build();
  ASSERT_GE(model.num_springs + model.num_particles, 20000);  // large enough for the parallel path too
  for (int threads : {1, 2}) {
    for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4}) {
      State state = makeState(model);
      Workspace ws(model, threads);
      for (int k = 0; k < 5; ++k) step(model, state, ws, integrator, 1e-5);  // let OpenMP set up its team
      const long before = g_allocations.load();
      for (int k = 0; k < 200; ++k) step(model, state, ws, integrator, 1e-5);
      EXPECT_EQ(g_allocations.load() - before, 0) << integratorName(integrator) << " threads " << threads;
    }
  }
}

TEST(Allocation, HingesAndMimicCouplingsAllocateNothing) {
  // The hinge solve with its coupling rows (URDF <mimic>), static friction
  // holding and giving way: all scratch lives in the Workspace.
  RobotDescription robot = testing::mimicHand(true);
  for (RobotJoint& j : robot.joints) j.actuation.coulomb = j.actuation.static_max = 0.002;
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  addRobot(b, robot, {}, {}, {});
  const Model model = b.build();
  ASSERT_GT(model.num_couplings, 0);
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4}) {
    State state = makeState(model);
    Workspace ws(model);
    for (int k = 0; k < 5; ++k) step(model, state, ws, integrator, 1e-4);
    const long before = g_allocations.load();
    for (int k = 0; k < 200; ++k) {
      state.hinge_current[0] = (k / 50) % 2 == 0 ? 0.05 : -0.05;  // slips and sticks
      step(model, state, ws, integrator, 1e-4);
    }
    EXPECT_EQ(g_allocations.load() - before, 0) << integratorName(integrator);
  }
}

}  // namespace
}  // namespace suitsim
