#include "suitsim/model.h"

#include <numeric>

#include <cmath>

#include "bands.h"
#include "forces.h"
#include "kernel_layout.h"
#include "suitsim/state.h"

namespace suitsim {

// The handle's members are defined here, where KernelLayout is complete, so
// model.h needs only its name. A moved-from handle holds none (a moved-from
// Model is only assigned or destroyed); assigning to it makes one.
namespace detail {
KernelLayoutHandle::KernelLayoutHandle() : layout_(std::make_unique<KernelLayout>()) {}
KernelLayoutHandle::KernelLayoutHandle(const KernelLayoutHandle& other)
    : layout_(other.layout_ ? std::make_unique<KernelLayout>(*other.layout_) : nullptr) {}
KernelLayoutHandle::KernelLayoutHandle(KernelLayoutHandle&& other) noexcept = default;
KernelLayoutHandle& KernelLayoutHandle::operator=(const KernelLayoutHandle& other) {
  if (this == &other) return *this;
  if (!other.layout_) {
    layout_.reset();
  } else if (layout_) {
    *layout_ = *other.layout_;
  } else {
    layout_ = std::make_unique<KernelLayout>(*other.layout_);
  }
  return *this;
}
KernelLayoutHandle& KernelLayoutHandle::operator=(KernelLayoutHandle&& other) noexcept = default;
KernelLayoutHandle::~KernelLayoutHandle() = default;
}  // namespace detail

bool parseIntegrator(const std::string& name, Integrator* out) {
  if (name == "semi_implicit_euler" || name == "euler") {
    *out = Integrator::kSemiImplicitEuler;
  } else if (name == "velocity_verlet" || name == "verlet") {
    *out = Integrator::kVelocityVerlet;
  } else if (name == "rk4") {
    *out = Integrator::kRk4;
  } else if (name == "position_verlet") {
    *out = Integrator::kPositionVerlet;
  } else {
    return false;
  }
  return true;
}

const char* integratorName(Integrator integrator) {
  switch (integrator) {
    case Integrator::kSemiImplicitEuler: return "semi_implicit_euler";
    case Integrator::kVelocityVerlet: return "velocity_verlet";
    case Integrator::kRk4: return "rk4";
    case Integrator::kPositionVerlet: return "position_verlet";
  }
  return "unknown";
}

bool parseSpringArithmetic(const std::string& name, SpringArithmetic* out) {
  if (name == "separate") {
    *out = SpringArithmetic::kSeparate;
  } else if (name == "fused") {
    *out = SpringArithmetic::kFused;
  } else {
    return false;
  }
  return true;
}

const char* springArithmeticName(SpringArithmetic arithmetic) {
  return arithmetic == SpringArithmetic::kFused ? "fused" : "separate";
}

int Model::springIndexFromInput(int input_index) const {
  for (int s = 0; s < num_springs; ++s) {
    if (spring_input_index[s] == input_index) return s;
  }
  return -1;
}

int Model::findParticle(const std::string& name) const {
  for (int i = 0; i < num_particles; ++i) {
    if (particle_name[i] == name) return i;
  }
  return -1;
}

double Model::totalMass() const {
  return std::accumulate(particle_mass.begin(), particle_mass.end(), 0.0);
}

State makeState(const Model& model) {
  State s;
  const std::size_t np = model.num_particles;
  const std::size_t nc = model.contact_particle.size();
  s.position = model.particle_initial_position;
  s.velocity = model.particle_initial_velocity;
  s.applied_force.assign(np, 0.0);
  s.anchor_u.assign(nc, 0.0);
  s.anchor_v.assign(nc, 0.0);
  s.anchor_active.assign(nc, 0);
  s.contact_sliding.assign(nc, 0);
  const std::size_t nh = model.num_hinges;
  s.hinge_current.assign(nh, 0.0);
  s.hinge_sticking.assign(nh, 0);
  s.hinge_stick_angle.assign(nh, 0.0);
  s.hinge_previous_velocity.assign(nh, 0.0);
  s.hinge_winding_rise = model.hinge_initial_winding_rise;
  s.hinge_angle.assign(nh, 0.0);
  s.rotor_angle.assign(nh, 0.0);
  s.rotor_velocity.assign(nh, 0.0);
  // The tracked angle starts from the pose the model was built in; a hinge
  // with friction that starts at rest starts stuck where it is.
  const PhasePoint x = detail::phasePoint(s.position, s.velocity);
  for (std::size_t h = 0; h < nh; ++h) {
    double angle = 0.0, rate = 0.0;
    detail::hingeAngleAndVelocity(model, x, static_cast<int>(h), model.hinge_initial_angle[h], &angle, &rate);
    s.hinge_angle[h] = angle;
    // A compliant gear starts unwound: the rotor where the link is, at its
    // rate (the load takes up the deflection in the first milliseconds).
    s.rotor_angle[h] = angle;
    s.rotor_velocity[h] = model.hinge_gear_stiffness[h] > 0.0 ? rate : 0.0;
    if (model.hinge_static_max[h] <= 0.0 && model.hinge_coulomb[h] <= 0.0) continue;
    if (std::abs(rate) < model.hinge_stick_speed) {
      s.hinge_sticking[h] = 1;
      s.hinge_stick_angle[h] = angle;
    }
  }
  // A band with a Maxwell arm starts relaxed at its initial stretch: the
  // suit has been worn in this pose long enough (bands.cpp, hysteresis).
  s.band_creep.assign(static_cast<std::size_t>(model.num_bands), 0.0);
  for (int b = 0; b < model.num_bands; ++b) {
    if (model.band_relaxing_stiffness[b] > 0.0) s.band_creep[b] = detail::bandStretch(model, x, b);
  }
  // Every band's material starts shared in proportion to its segments'
  // lengths, all equally strained: one tension along the band, as if the
  // suit had been put on and settled in this pose (bands.cpp, capstan).
  s.band_material.assign(static_cast<std::size_t>(model.numVia() - model.num_bands), 0.0);
  for (int b = 0; b < model.num_bands; ++b) detail::shareBandMaterial(model, x, b, s.band_material.data());
  // Size the acceleration cache now so no step allocates; nothing is cached yet.
  s.acceleration_cache.acceleration.assign(np, 0.0);
  s.acceleration_cache.rotor_acceleration.assign(nh, 0.0);
  detail::keepAccelerationInputs(s);
  s.acceleration_cache.filled = false;
  // Sized for the same reason; the first step's friction update fills it.
  s.hinge_reading.wrapped_angle.assign(nh, 0.0);
  s.hinge_reading.rate.assign(nh, 0.0);
  s.hinge_reading.body_particles.assign(24 * static_cast<std::size_t>(model.num_bodies), 0.0);
  return s;
}

}  // namespace suitsim
