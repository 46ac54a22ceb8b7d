#include "suitsim/recorder.h"

#include <cmath>

#include "suitsim/step.h"

namespace suitsim {

Recorder::Recorder(const Model& model, std::vector<ChannelSpec> channels)
    : model_(&model), channels_(std::move(channels)) {
  using Kind = ChannelSpec::Kind;
  for (const ChannelSpec& c : channels_) {
    switch (c.kind) {
      case Kind::kParticlePosition:
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(c.label + ".position." + axis + "[m]");
        break;
      case Kind::kParticleVelocity:
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(c.label + ".velocity." + axis + "[m/s]");
        break;
      case Kind::kSpringLength: columns_.push_back(c.label + ".length[m]"); break;
      case Kind::kSpringTension: columns_.push_back(c.label + ".tension[N]"); break;
      case Kind::kCentreOfMass:
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(c.label + ".com." + axis + "[m]");
        break;
      case Kind::kEnergy:
        columns_.push_back("energy.kinetic[J]");
        columns_.push_back("energy.potential[J]");
        columns_.push_back("energy.total[J]");
        break;
    }
  }
}

void Recorder::sample(const State& state, double* row) const {
  using Kind = ChannelSpec::Kind;
  const Model& m = *model_;
  for (const ChannelSpec& c : channels_) {
    switch (c.kind) {
      case Kind::kParticlePosition:
        *row++ = state.position.x[c.index];
        *row++ = state.position.y[c.index];
        *row++ = state.position.z[c.index];
        break;
      case Kind::kParticleVelocity:
        *row++ = state.velocity.x[c.index];
        *row++ = state.velocity.y[c.index];
        *row++ = state.velocity.z[c.index];
        break;
      case Kind::kSpringLength:
      case Kind::kSpringTension: {
        const int a = m.spring_a[c.index], b = m.spring_b[c.index];
        const double length = std::hypot(state.position.x[b] - state.position.x[a],
                                         state.position.y[b] - state.position.y[a],
                                         state.position.z[b] - state.position.z[a]);
        *row++ = c.kind == Kind::kSpringLength
                     ? length
                     : m.spring_stiffness[c.index] * (length - m.spring_rest_length[c.index]);
        break;
      }
      case Kind::kCentreOfMass: {
        double mass = 0.0, sx = 0.0, sy = 0.0, sz = 0.0;
        for (int i : c.particles) {
          mass += m.particle_mass[i];
          sx += m.particle_mass[i] * state.position.x[i];
          sy += m.particle_mass[i] * state.position.y[i];
          sz += m.particle_mass[i] * state.position.z[i];
        }
        *row++ = sx / mass;
        *row++ = sy / mass;
        *row++ = sz / mass;
        break;
      }
      case Kind::kEnergy: {
        const Energy e = computeEnergy(m, state);
        *row++ = e.kinetic;
        *row++ = e.total() - e.kinetic;
        *row++ = e.total();
        break;
      }
    }
  }
}

}  // namespace suitsim
