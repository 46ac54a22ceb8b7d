// Velocity Verlet's cached acceleration, served only while it still applies.
#include <cstring>

#include "forces.h"
#include "suitsim/state.h"

namespace suitsim {
namespace {

// Every State field the force evaluation reads, paired with its copy in the
// cache. One list, so the check and the copy cannot disagree about what
// the acceleration depends on (forces.cpp, contact.cpp, hinge_friction.cpp).
// The particles' positions and velocities, the largest, come first:
// velocity Verlet writes their copies in its own passes
// (keepAccelerationInputsButMotion).
template <class A, class B, class F>
void forEachMotionInput(A& a, B& b, F&& f) {
  f(a.position.x, b.position.x);
  f(a.position.y, b.position.y);
  f(a.position.z, b.position.z);
  f(a.velocity.x, b.velocity.x);
  f(a.velocity.y, b.velocity.y);
  f(a.velocity.z, b.velocity.z);
}

template <class A, class B, class F>
void forEachOtherInput(A& a, B& b, F&& f) {
  f(a.applied_force.x, b.applied_force.x);
  f(a.applied_force.y, b.applied_force.y);
  f(a.applied_force.z, b.applied_force.z);
  f(a.anchor_u, b.anchor_u);
  f(a.anchor_v, b.anchor_v);
  f(a.anchor_active, b.anchor_active);
  f(a.contact_sliding, b.contact_sliding);
  f(a.hinge_current, b.hinge_current);
  f(a.hinge_sticking, b.hinge_sticking);
  f(a.hinge_stick_angle, b.hinge_stick_angle);
  f(a.hinge_angle, b.hinge_angle);
  f(a.hinge_previous_velocity, b.hinge_previous_velocity);
  f(a.hinge_winding_rise, b.hinge_winding_rise);
  f(a.band_creep, b.band_creep);
  f(a.rotor_angle, b.rotor_angle);
  f(a.rotor_velocity, b.rotor_velocity);
  f(a.band_material, b.band_material);
}

template <class A, class B, class F>
void forEachInput(A& a, B& b, F&& f) {
  forEachMotionInput(a, b, f);
  forEachOtherInput(a, b, f);
}

}  // namespace

const Vec3Array* cachedAcceleration(const State& state) {
  const detail::AccelerationCache& c = state.acceleration_cache;
  if (!c.filled) return nullptr;
  // Bits, not values: -0.0 and 0.0 or two NaNs may give different forces.
  bool same = true;
  forEachInput(state, c, [&same](const auto& now, const auto& then) {
    same = same && now.size() == then.size() &&
           (now.empty() || std::memcmp(now.data(), then.data(), now.size() * sizeof(now[0])) == 0);
  });
  return same ? &c.acceleration : nullptr;
}

namespace detail {

void keepAccelerationInputs(State& state) {
  // Vector copy-assignment reuses the capacity makeState gave the copies,
  // so this allocates nothing in the step loop.
  forEachInput(state, state.acceleration_cache, [](const auto& now, auto& copy) { copy = now; });
  state.acceleration_cache.filled = true;
}

void keepAccelerationInputsButMotion(State& state) {
  forEachOtherInput(state, state.acceleration_cache, [](const auto& now, auto& copy) { copy = now; });
  state.acceleration_cache.filled = true;
}

}  // namespace detail
}  // namespace suitsim
