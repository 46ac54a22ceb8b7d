#include "suitsim/recorder.h"

#include <cmath>

#include "suitsim/articulated.h"
#include "suitsim/step.h"
#include "bands.h"

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
      case Kind::kJointAngle: columns_.push_back(c.label + ".angle[rad]"); break;
      case Kind::kJointVelocity: columns_.push_back(c.label + ".velocity[rad/s]"); break;
      case Kind::kJointCurrent: columns_.push_back(c.label + ".current[A]"); break;
      case Kind::kMotorTorque: columns_.push_back(c.label + ".motor_torque[N*m]"); break;
      case Kind::kFrictionTorque: columns_.push_back(c.label + ".friction_torque[N*m]"); break;
      case Kind::kGroundForce:
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(std::string("ground_force.") + axis + "[N]");
        break;
      case Kind::kBandLength: columns_.push_back(c.label + ".length[m]"); break;
      case Kind::kBandTension: columns_.push_back(c.label + ".tension[N]"); break;
    }
  }
}

void Recorder::sample(const State& state, const Workspace* ws, double* row) const {
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
      case Kind::kJointAngle: *row++ = jointAngle(m, state, c.index); break;
      case Kind::kJointVelocity: *row++ = jointVelocity(m, state, c.index); break;
      case Kind::kJointCurrent: *row++ = state.hinge_current[c.index]; break;
      case Kind::kMotorTorque:
        *row++ = m.hinge_motor_constant[c.index] * state.hinge_current[c.index] + m.hinge_torque_offset[c.index];
        break;
      case Kind::kFrictionTorque: *row++ = ws ? ws->hinge_friction_torque[c.index] : 0.0; break;
      case Kind::kGroundForce: {
        const Vec3 f = totalGroundForce(m, state);
        *row++ = f[0];
        *row++ = f[1];
        *row++ = f[2];
        break;
      }
      case Kind::kBandLength:
      case Kind::kBandTension: {
        // Evaluated at the state itself, not read from ws: the first sample
        // comes before any force evaluation, and RK4's last one is at a stage.
        const detail::BandState b =
            detail::evaluateBand(m, detail::phasePoint(state.position, state.velocity), c.index);
        const double length = b.length, tension = b.tension;
        *row++ = c.kind == Kind::kBandLength ? length : tension;
        break;
      }
    }
  }
}

}  // namespace suitsim
