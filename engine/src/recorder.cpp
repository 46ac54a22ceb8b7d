#include "suitsim/recorder.h"

#include <cmath>
#include <limits>

#include "suitsim/robot_readout.h"
#include "suitsim/step.h"
#include "bands.h"
#include "straps.h"
#include "suitsim/exoskeleton.h"
#include "motor_heating.h"

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
      case Kind::kCom:
      case Kind::kComVelocity:
      case Kind::kCentreOfPressure:
      case Kind::kDcm:
      case Kind::kVrp:
      case Kind::kEcmp: {
        const char* name = c.kind == Kind::kCom                ? "com"
                           : c.kind == Kind::kComVelocity      ? "com_velocity"
                           : c.kind == Kind::kCentreOfPressure ? "cop"
                           : c.kind == Kind::kDcm              ? "dcm"
                           : c.kind == Kind::kVrp              ? "vrp"
                                                               : "ecmp";
        const char* unit = c.kind == Kind::kComVelocity ? "[m/s]" : "[m]";
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(std::string(name) + "." + axis + unit);
        break;
      }
      case Kind::kPendulumFrequency: columns_.push_back("omega[1/s]"); break;
      case Kind::kAppliedForce:
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(std::string("applied_force.") + axis + "[N]");
        break;
      case Kind::kBalanceMargin: columns_.push_back("balance_margin[m]"); break;
      case Kind::kStrapForce:
        for (const char* axis : {"x", "y", "z"}) columns_.push_back(c.label + ".force." + axis + "[N]");
        break;
      case Kind::kStrapTorque:
        columns_.push_back(c.label + ".strap_torque[N*m]");
        has_strap_torque_ = true;
        break;
    }
    const bool balance = c.kind >= Kind::kCom;  // the balance kinds close the enum
    has_balance_ = has_balance_ || balance;
    // The CoM and its velocity are always defined; the rest need support.
    may_be_undefined_.resize(columns_.size(), balance && c.kind != Kind::kCom && c.kind != Kind::kComVelocity);
  }
  support_points_.reserve(model.numContacts());
  support_.vertices.reserve(2 * model.numContacts());
  if (has_strap_torque_) strap_torque_.assign(model.num_hinges, 0.0);
}

void Recorder::sample(const State& state, const Workspace* ws, double* row) const {
  using Kind = ChannelSpec::Kind;
  const Model& m = *model_;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Centroidal centre;
  BalancePoints points;
  Vec3 cop{kNaN, kNaN, kNaN};
  if (has_balance_) {
    // omega' by a backward difference over this recorder's own samples; the
    // first sample has no past and takes 0 (a robot starting at rest).
    centre = centroidal(m, state);
    points = tracker_.update(m, centre, state.time);
    if (!centreOfPressure(m, state, &cop)) cop = {kNaN, kNaN, kNaN};
    supportPolygon(m, state, support_points_, support_);
  }
  // Straps evaluated at the state itself, as the bands below.
  if (has_strap_torque_) strapJointTorques(m, state, strap_torque_);
  for (const ChannelSpec& c : channels_) {
    switch (c.kind) {
      case Kind::kStrapForce: {
        const Vec3 f = detail::strapForce(m, detail::phasePoint(state.position, state.velocity), c.index);
        *row++ = f[0];
        *row++ = f[1];
        *row++ = f[2];
        break;
      }
      case Kind::kStrapTorque: *row++ = strap_torque_[c.index]; break;
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
        *row++ = detail::motorTorque(m, state, c.index);
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
            detail::evaluateBand(m, detail::phasePoint(state.position, state.velocity), state, c.index);
        const double length = b.length, tension = b.tension;
        *row++ = c.kind == Kind::kBandLength ? length : tension;
        break;
      }
      case Kind::kCom:
      case Kind::kComVelocity:
      case Kind::kCentreOfPressure:
      case Kind::kDcm:
      case Kind::kVrp:
      case Kind::kEcmp: {
        const Vec3& v = c.kind == Kind::kCom                ? centre.com
                        : c.kind == Kind::kComVelocity      ? centre.com_velocity
                        : c.kind == Kind::kCentreOfPressure ? cop
                        : c.kind == Kind::kDcm              ? points.dcm
                        : c.kind == Kind::kVrp              ? points.vrp
                                                            : points.ecmp;
        *row++ = v[0];
        *row++ = v[1];
        *row++ = v[2];
        break;
      }
      case Kind::kPendulumFrequency: *row++ = points.omega; break;
      case Kind::kAppliedForce: {
        double f[3] = {0.0, 0.0, 0.0};
        for (int i = 0; i < m.num_particles; ++i) {
          f[0] += state.applied_force.x[i];
          f[1] += state.applied_force.y[i];
          f[2] += state.applied_force.z[i];
        }
        *row++ = f[0];
        *row++ = f[1];
        *row++ = f[2];
        break;
      }
      case Kind::kBalanceMargin: {
        // The DCM's ground projection against the polygon of the contacts
        // the ground pushes on: < 0 means no ankle or hip strategy alone can
        // bring the CoM to rest over the feet.
        const bool defined = !support_.empty() && std::isfinite(points.dcm[0]);
        *row++ = defined ? polygonMargin(support_, groundCoordinates(m.ground, points.dcm)) : kNaN;
        break;
      }
    }
  }
}

}  // namespace suitsim
