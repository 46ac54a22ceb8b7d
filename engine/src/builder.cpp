#include "suitsim/builder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>

#include "spring_layout.h"
#include "vec3.h"

namespace suitsim {

namespace {

std::string particleLabel(const ParticleSpec& p, int index) {
  std::ostringstream out;
  out << "particle " << index << " ('" << p.name << "')";
  return out.str();
}

void requireFinite(const Vec3& v, const std::string& what) {
  for (double c : v) {
    if (!std::isfinite(c)) throw ModelError(what + " must be finite");
  }
}

// A hinged body moves as a rigid body: each force evaluation inverts the
// inertia tensor of its four particles about their centre of mass by
// cofactors (hinges.cpp). That tensor is singular when the particles lie
// on a line or coincide (coplanar ones are fine: a lamina has I_z = I_x +
// I_y), and it overflows for huge coordinates. Refuse such a body here,
// by name, rather than let the inverse fill the run with NaN. The bound is
// a condition number: det I < 1e-12 (tr I / 3)^3 leaves at most four of
// sixteen digits in I^-1.
void requireInvertibleInertia(const std::vector<ParticleSpec>& particles, int first, const std::string& body,
                              const std::string& label) {
  double mass = 0.0, c[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    const ParticleSpec& p = particles[first + k];
    if (p.fixed) return;  // a body with a fixed particle is not moved rigidly
    mass += p.mass;
    for (int d = 0; d < 3; ++d) c[d] += p.mass * p.position[d];
  }
  for (double& x : c) x /= mass;
  double inertia[3][3] = {};
  for (int k = 0; k < 4; ++k) {
    const ParticleSpec& p = particles[first + k];
    const double r[3] = {p.position[0] - c[0], p.position[1] - c[1], p.position[2] - c[2]};
    const double s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) inertia[i][j] += p.mass * ((i == j ? s : 0.0) - r[i] * r[j]);
    }
  }
  const double det = inertia[0][0] * (inertia[1][1] * inertia[2][2] - inertia[1][2] * inertia[2][1]) -
                     inertia[0][1] * (inertia[1][0] * inertia[2][2] - inertia[1][2] * inertia[2][0]) +
                     inertia[0][2] * (inertia[1][0] * inertia[2][1] - inertia[1][1] * inertia[2][0]);
  const double mean = (inertia[0][0] + inertia[1][1] + inertia[2][2]) / 3.0;
  if (std::isfinite(det) && std::isfinite(mean) && det > 1e-12 * mean * mean * mean) return;
  std::ostringstream out;
  out << label << ": body '" << body << "' cannot move as a rigid body: the inertia tensor of its particles "
      << (std::isfinite(det) && std::isfinite(mean) ? "is singular (they lie on a line or coincide)"
                                                     : "is not finite")
      << " (got det " << det << " kg^3 m^6, trace " << 3.0 * mean << " kg m^2)";
  throw ModelError(out.str());
}

}  // namespace

int ModelBuilder::addParticle(const ParticleSpec& spec) {
  const int index = numParticles();
  if (spec.name.empty()) throw ModelError("particle " + std::to_string(index) + " has no name");
  if (!(spec.mass > 0.0) || !std::isfinite(spec.mass)) {
    throw ModelError(particleLabel(spec, index) + ": mass must be > 0");
  }
  requireFinite(spec.position, particleLabel(spec, index) + ": position");
  requireFinite(spec.velocity, particleLabel(spec, index) + ": velocity");
  requireFinite(spec.force, particleLabel(spec, index) + ": force");
  particles_.push_back(spec);
  return index;
}

int ModelBuilder::addSpring(const SpringSpec& spec) {
  const int index = numSprings();
  const std::string label = "spring " + std::to_string(index);
  if (spec.a < 0 || spec.a >= numParticles() || spec.b < 0 || spec.b >= numParticles()) {
    throw ModelError(label + ": particle index out of range");
  }
  if (spec.a == spec.b) throw ModelError(label + ": joins a particle to itself");
  if (!(spec.stiffness > 0.0) || !std::isfinite(spec.stiffness)) {
    throw ModelError(label + ": stiffness must be > 0");
  }
  if (!(spec.damping >= 0.0) || !std::isfinite(spec.damping)) {
    throw ModelError(label + ": damping must be >= 0");
  }
  SpringSpec s = spec;
  if (s.rest_length < 0.0) {
    s.rest_length = norm(sub(particles_[s.b].position, particles_[s.a].position));
  }
  if (!std::isfinite(s.rest_length)) throw ModelError(label + ": rest length must be finite");
  springs_.push_back(s);
  return index;
}

int ModelBuilder::addCloth(const ClothSpec& spec) {
  if (spec.nu < 2 || spec.nv < 2) throw ModelError("cloth '" + spec.name + "' needs at least 2 x 2 particles");
  if (!(spec.spacing > 0.0)) throw ModelError("cloth '" + spec.name + "': spacing must be > 0");
  const Vec3 u = normalized(spec.u);
  const Vec3 v = normalized(spec.v);
  const int first = numParticles();
  const double m = spec.mass / (static_cast<double>(spec.nu) * spec.nv);
  for (int j = 0; j < spec.nv; ++j) {
    for (int i = 0; i < spec.nu; ++i) {
      ParticleSpec p;
      p.name = spec.name + "." + std::to_string(j * spec.nu + i);
      p.position = add(spec.origin, add(scale(u, i * spec.spacing), scale(v, j * spec.spacing)));
      p.mass = m;
      p.contact = spec.contact;
      const bool top = j == spec.nv - 1;
      if (spec.pin == ClothSpec::Pin::kTopEdge && top) p.fixed = true;
      if (spec.pin == ClothSpec::Pin::kTopCorners && top && (i == 0 || i == spec.nu - 1)) p.fixed = true;
      addParticle(p);
    }
  }
  auto id = [&](int i, int j) { return first + j * spec.nu + i; };
  auto spring = [&](int a, int b, double k) {
    if (k > 0.0) addSpring({a, b, k, spec.damping, -1.0});
  };
  for (int j = 0; j < spec.nv; ++j) {
    for (int i = 0; i < spec.nu; ++i) {
      if (i + 1 < spec.nu) spring(id(i, j), id(i + 1, j), spec.stiffness);
      if (j + 1 < spec.nv) spring(id(i, j), id(i, j + 1), spec.stiffness);
      if (i + 1 < spec.nu && j + 1 < spec.nv) {
        spring(id(i, j), id(i + 1, j + 1), spec.stiffness);
        spring(id(i + 1, j), id(i, j + 1), spec.stiffness);
      }
      if (i + 2 < spec.nu) spring(id(i, j), id(i + 2, j), spec.bend_stiffness);
      if (j + 2 < spec.nv) spring(id(i, j), id(i, j + 2), spec.bend_stiffness);
    }
  }
  return first;
}

int ModelBuilder::addBlock(const BlockSpec& spec) {
  if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1) throw ModelError("block '" + spec.name + "' needs at least 1 particle per side");
  if (!(spec.spacing > 0.0)) throw ModelError("block '" + spec.name + "': spacing must be > 0");
  const int first = numParticles();
  const double m = spec.mass / (static_cast<double>(spec.nx) * spec.ny * spec.nz);
  for (int k = 0; k < spec.nz; ++k) {
    for (int j = 0; j < spec.ny; ++j) {
      for (int i = 0; i < spec.nx; ++i) {
        ParticleSpec p;
        p.name = spec.name + "." + std::to_string((k * spec.ny + j) * spec.nx + i);
        p.position = add(spec.origin, Vec3{i * spec.spacing, j * spec.spacing, k * spec.spacing});
        p.velocity = spec.velocity;
        p.mass = m;
        p.contact = spec.contact;
        addParticle(p);
      }
    }
  }
  auto id = [&](int i, int j, int k) { return first + (k * spec.ny + j) * spec.nx + i; };
  // The 13 "forward" neighbour offsets: each of the 26 neighbours counted once.
  for (int k = 0; k < spec.nz; ++k) {
    for (int j = 0; j < spec.ny; ++j) {
      for (int i = 0; i < spec.nx; ++i) {
        for (int dk = -1; dk <= 1; ++dk) {
          for (int dj = -1; dj <= 1; ++dj) {
            for (int di = -1; di <= 1; ++di) {
              const int code = (dk * 3 + dj) * 3 + di;  // forward iff code > 0
              if (code <= 0) continue;
              const int i2 = i + di, j2 = j + dj, k2 = k + dk;
              if (i2 < 0 || j2 < 0 || k2 < 0 || i2 >= spec.nx || j2 >= spec.ny || k2 >= spec.nz) continue;
              addSpring({id(i, j, k), id(i2, j2, k2), spec.stiffness, spec.damping, -1.0});
            }
          }
        }
      }
    }
  }
  return first;
}

int ModelBuilder::addHinge(const HingeSpec& spec) {
  const std::string label = "hinge '" + spec.name + "'";
  for (int b : {spec.parent_body, spec.child_body}) {
    if (b < 0 || b >= numBodies()) throw ModelError(label + ": body index out of range");
    if (bodies_[b].count != 4) throw ModelError(label + ": a hinge joins bodies of exactly four particles");
  }
  if (spec.parent_body == spec.child_body) throw ModelError(label + ": joins a body to itself");
  for (const HingeSpec& other : hinges_) {
    if (other.child_body == spec.child_body) {
      throw ModelError(label + ": body already has a parent hinge ('" + other.name + "')");
    }
  }
  for (const auto* w : {&spec.centre_parent, &spec.centre_child, &spec.axis_point, &spec.parent_arm, &spec.child_arm,
                        &spec.child_arm2}) {
    const double sum = (*w)[0] + (*w)[1] + (*w)[2] + (*w)[3];
    if (!(std::abs(sum - 1.0) < 1e-9)) throw ModelError(label + ": point weights must sum to 1");
  }
  const JointActuation& j = spec.actuation;
  if (!(j.motor_constant > 0.0)) throw ModelError(label + ": motor constant must be > 0");
  if (j.viscous < 0.0 || j.coulomb < 0.0 || j.static_max < 0.0 || j.stribeck_velocity < 0.0) {
    throw ModelError(label + ": friction parameters must be >= 0");
  }
  if (j.static_max < j.coulomb) throw ModelError(label + ": static friction must be >= Coulomb friction");
  if (!(j.armature >= 0.0) || !std::isfinite(j.armature)) throw ModelError(label + ": armature must be finite and >= 0");
  if (!(j.gear_efficiency > 0.0 && j.gear_efficiency <= 1.0) ||
      !(j.backdrive_efficiency > 0.0 && j.backdrive_efficiency <= 1.0)) {
    throw ModelError(label + ": gear efficiencies must lie in (0, 1]");
  }
  if (!(j.gear_transition_velocity > 0.0) || !std::isfinite(j.gear_transition_velocity)) {
    throw ModelError(label + ": gear transition velocity must be finite and > 0");
  }
  if (!(j.gear_stiffness >= 0.0) || !std::isfinite(j.gear_stiffness) || !(j.gear_backlash >= 0.0) ||
      !std::isfinite(j.gear_backlash) || !(j.gear_damping >= 0.0) || !std::isfinite(j.gear_damping)) {
    throw ModelError(label + ": gear stiffness, backlash and damping must be finite and >= 0");
  }
  if (j.gear_stiffness > 0.0 && !(j.armature > 0.0)) {
    throw ModelError(label + ": a compliant gear needs the rotor's inertia (armature > 0): the rotor becomes a degree "
                             "of freedom of its own");
  }
  if (j.gear_stiffness == 0.0 && (j.gear_backlash > 0.0 || j.gear_damping > 0.0 || j.encoder_on_motor)) {
    throw ModelError(label + ": gear backlash, damping and a motor-side encoder need a compliant gear (gear stiffness > 0)");
  }
  if (j.km != 0.0) {
    if (!(j.km > 0.0) || !std::isfinite(j.km) || !(j.thermal_resistance > 0.0) ||
        !std::isfinite(j.thermal_resistance) || !(j.thermal_time_constant > 0.0) ||
        !std::isfinite(j.thermal_time_constant)) {
      throw ModelError(label + ": motor heating needs km, thermal resistance and time constant finite and > 0");
    }
    if (!std::isfinite(j.magnet_coefficient) || !std::isfinite(j.initial_winding_rise) ||
        !(1.0 + j.magnet_coefficient * j.initial_winding_rise > 0.0)) {
      throw ModelError(label + ": magnet coefficient and initial winding rise must be finite, and k_T stay > 0");
    }
  }
  if (!(spec.lower <= spec.upper)) throw ModelError(label + ": lower limit above upper limit");
  if (!std::isfinite(spec.initial_angle)) throw ModelError(label + ": initial angle must be finite");
  for (int b : {spec.parent_body, spec.child_body}) {
    requireInvertibleInertia(particles_, bodies_[b].first, bodies_[b].name, label);
  }
  hinges_.push_back(spec);
  return numHinges() - 1;
}

int ModelBuilder::addCoupling(const CouplingSpec& spec) {
  const int nh = numHinges();
  if (spec.leader < 0 || spec.leader >= nh || spec.follower < 0 || spec.follower >= nh) {
    throw ModelError("coupling: hinge index out of range");
  }
  const std::string label = "coupling of hinge '" + hinges_[spec.follower].name + "' to '" +
                            hinges_[spec.leader].name + "'";
  if (spec.leader == spec.follower) throw ModelError(label + ": a hinge cannot follow itself");
  if (hinges_[spec.follower].actuation.armature > 0.0) {
    throw ModelError(label + ": a follower has no motor of its own, so no armature (give it to the leader)");
  }
  if (!std::isfinite(spec.multiplier) || !std::isfinite(spec.offset)) {
    throw ModelError(label + ": multiplier and offset must be finite");
  }
  for (const CouplingSpec& other : couplings_) {
    if (other.follower == spec.follower) throw ModelError(label + ": the hinge already follows another");
    if (other.follower == spec.leader) throw ModelError(label + ": the leader follows another hinge (no chains)");
    if (other.leader == spec.follower) throw ModelError(label + ": the follower leads another hinge (no chains)");
  }
  // The coupling's moments reach a body as a rigid body takes them; a body
  // partly held (some particles fixed) has no rigid response to give.
  for (int h : {spec.leader, spec.follower}) {
    for (int b : {hinges_[h].parent_body, hinges_[h].child_body}) {
      int fixed = 0;
      for (int k = 0; k < 4; ++k) fixed += particles_[bodies_[b].first + k].fixed ? 1 : 0;
      if (fixed != 0 && fixed != 4) throw ModelError(label + ": body '" + bodies_[b].name + "' is partly fixed");
    }
  }
  couplings_.push_back(spec);
  return numCouplings() - 1;
}

int ModelBuilder::addContactPoint(const ContactPointSpec& spec) {
  double sum = 0.0;
  for (int k = 0; k < 4; ++k) {
    if (spec.particles[k] >= numParticles()) throw ModelError("contact point: particle index out of range");
    if (spec.particles[k] < 0 && spec.weights[k] != 0.0) throw ModelError("contact point: weight on no particle");
    sum += spec.weights[k];
  }
  if (spec.particles[0] < 0) throw ModelError("contact point: needs a first particle");
  if (!(std::abs(sum - 1.0) < 1e-9)) throw ModelError("contact point: weights must sum to 1");
  contact_points_.push_back(spec);
  return static_cast<int>(contact_points_.size()) - 1;
}

double ModelBuilder::initialBandLength(const BandSpec& spec) const {
  double length = 0.0;
  Vec3 previous{0.0, 0.0, 0.0};
  for (std::size_t j = 0; j < spec.via_body.size(); ++j) {
    Vec3 p{0.0, 0.0, 0.0};
    for (int k = 0; k < 4; ++k) {
      p = add(p, scale(particles_[bodies_[spec.via_body[j]].first + k].position, spec.via_weight[j][k]));
    }
    if (j > 0) length += norm(sub(p, previous));  // A(23)
    previous = p;
  }
  return length;
}

int ModelBuilder::addBand(const BandSpec& spec) {
  const std::string label = "band '" + spec.name + "'";
  if (spec.name.empty()) throw ModelError("band " + std::to_string(numBands()) + " has no name");
  for (const BandSpec& other : bands_) {
    if (other.name == spec.name) throw ModelError(label + ": repeats an earlier band name");
  }
  if (spec.via_body.size() < 2) throw ModelError(label + ": needs at least two via points");
  if (spec.via_weight.size() != spec.via_body.size()) throw ModelError(label + ": needs one weight set per via point");
  for (std::size_t j = 0; j < spec.via_body.size(); ++j) {
    const int b = spec.via_body[j];
    if (b < 0 || b >= numBodies()) throw ModelError(label + ": body index out of range");
    if (bodies_[b].count != 4) throw ModelError(label + ": a via point lies on a body of exactly four particles");
    const std::array<double, 4>& w = spec.via_weight[j];
    const double sum = w[0] + w[1] + w[2] + w[3];
    if (!(std::abs(sum - 1.0) < 1e-9)) throw ModelError(label + ": via point weights must sum to 1");
  }
  if (!(spec.stiffness >= 0.0) || !std::isfinite(spec.stiffness)) throw ModelError(label + ": stiffness must be >= 0");
  if (!(spec.damping >= 0.0) || !std::isfinite(spec.damping)) throw ModelError(label + ": damping must be >= 0");
  if (!std::isfinite(spec.natural_length)) throw ModelError(label + ": natural length must be finite");
  if (!(spec.relaxing_stiffness >= 0.0) || !std::isfinite(spec.relaxing_stiffness)) {
    throw ModelError(label + ": relaxing stiffness must be >= 0");
  }
  if (spec.relaxing_stiffness > 0.0 && !(spec.relaxation_time > 0.0 && std::isfinite(spec.relaxation_time))) {
    throw ModelError(label + ": a relaxing stiffness needs a relaxation time > 0");
  }
  if (!(spec.capstan_friction >= 0.0) || !std::isfinite(spec.capstan_friction)) {
    throw ModelError(label + ": capstan friction must be >= 0");
  }
  BandSpec band = spec;
  if (band.natural_length < 0.0) band.natural_length = initialBandLength(band);
  if (band.capstan_friction > 0.0 && !(band.natural_length > 0.0)) {
    throw ModelError(label + ": capstan friction needs a natural length > 0 (material to share among the segments)");
  }
  if (band.capstan_friction > 0.0) {
    // Its material is shared among the segments in proportion to their
    // lengths (makeState): a segment of zero length would get none.
    for (std::size_t j = 1; j < band.via_body.size(); ++j) {
      BandSpec pair;
      pair.via_body = {band.via_body[j - 1], band.via_body[j]};
      pair.via_weight = {band.via_weight[j - 1], band.via_weight[j]};
      if (!(initialBandLength(pair) > 0.0)) {
        throw ModelError(label + ": with capstan friction, via points " + std::to_string(j - 1) + " and " +
                         std::to_string(j) + " must not coincide");
      }
    }
  }
  bands_.push_back(band);
  return numBands() - 1;
}

int ModelBuilder::addStrap(const StrapSpec& spec) {
  const std::string label = "strap '" + spec.name + "'";
  if (spec.name.empty()) throw ModelError("strap " + std::to_string(numStraps()) + " has no name");
  for (const StrapSpec& other : straps_) {
    if (other.name == spec.name) throw ModelError(label + ": repeats an earlier strap name");
  }
  for (const auto& [b, w] : {std::pair{spec.body_a, spec.weight_a}, std::pair{spec.body_b, spec.weight_b}}) {
    if (b < 0 || b >= numBodies()) throw ModelError(label + ": body index out of range");
    if (bodies_[b].count != 4) throw ModelError(label + ": a strap ends on a body of exactly four particles");
    if (!(std::abs(w[0] + w[1] + w[2] + w[3] - 1.0) < 1e-9)) throw ModelError(label + ": point weights must sum to 1");
  }
  if (spec.body_a == spec.body_b) throw ModelError(label + ": ties a body to itself");
  if (!(spec.stiffness > 0.0) || !std::isfinite(spec.stiffness)) throw ModelError(label + ": stiffness must be > 0");
  if (!(spec.damping >= 0.0) || !std::isfinite(spec.damping)) throw ModelError(label + ": damping must be >= 0");
  straps_.push_back(spec);
  return numStraps() - 1;
}

int ModelBuilder::addBody(const BodySpec& spec) {
  if (spec.count < 1 || spec.first < 0 || spec.first + spec.count > numParticles()) {
    throw ModelError("body '" + spec.name + "': particle range out of bounds");
  }
  if (static_cast<int>(spec.body_position.size()) != spec.count) {
    throw ModelError("body '" + spec.name + "': needs one body-frame position per particle");
  }
  for (const BodySpec& b : bodies_) {
    if (spec.first < b.first + b.count && b.first < spec.first + spec.count) {
      throw ModelError("body '" + spec.name + "' overlaps body '" + b.name + "'");
    }
  }
  bodies_.push_back(spec);
  return numBodies() - 1;
}

void ModelBuilder::setGround(const GroundModel& ground) {
  GroundModel g = ground;
  if (g.enabled) {
    const double n = norm(g.normal);
    if (!(n > 0.0)) throw ModelError("ground normal must be non-zero");
    g.normal = scale(g.normal, 1.0 / n);
    // Any unit vector not parallel to the normal seeds the tangent basis.
    const Vec3 seed = std::abs(g.normal[0]) < 0.9 ? Vec3{1.0, 0.0, 0.0} : Vec3{0.0, 1.0, 0.0};
    g.tangent_u = normalized(sub(seed, scale(g.normal, dot(seed, g.normal))));
    g.tangent_v = cross(g.normal, g.tangent_u);
    if (!(g.stiffness > 0.0)) throw ModelError("ground stiffness must be > 0");
    if (g.damping < 0.0 || g.friction_stiffness < 0.0 || g.friction_damping < 0.0) {
      throw ModelError("ground damping and friction parameters must be >= 0");
    }
    if (g.mu_static < 0.0 || g.mu_kinetic < 0.0) throw ModelError("friction coefficients must be >= 0");
    if (g.mu_kinetic > g.mu_static) throw ModelError("mu_kinetic must not exceed mu_static");
    if ((g.mu_static > 0.0) && !(g.friction_stiffness > 0.0)) {
      throw ModelError("friction needs friction_stiffness > 0");
    }
  }
  ground_ = g;
}

namespace {

// Particles: mass, inverse mass, name (each once), initial state, constant
// force; each contact particle a contact of its own when there is a ground.
void copyParticles(const std::vector<ParticleSpec>& particles, bool ground, Model& m) {
  const int np = static_cast<int>(particles.size());
  m.num_particles = np;
  m.particle_mass.resize(np);
  m.particle_inv_mass.resize(np);
  m.particle_fixed.resize(np);
  m.particle_name.resize(np);
  m.particle_initial_position.assign(np, 0.0);
  m.particle_initial_velocity.assign(np, 0.0);
  m.particle_force_x.resize(np);
  m.particle_force_y.resize(np);
  m.particle_force_z.resize(np);
  std::unordered_map<std::string, int> names;
  for (int i = 0; i < np; ++i) {
    const ParticleSpec& p = particles[i];
    if (!names.emplace(p.name, i).second) throw ModelError("duplicate particle name '" + p.name + "'");
    m.particle_mass[i] = p.mass;
    m.particle_fixed[i] = p.fixed ? 1 : 0;
    m.particle_inv_mass[i] = p.fixed ? 0.0 : 1.0 / p.mass;
    m.particle_name[i] = p.name;
    m.particle_initial_position.set(i, p.position);
    m.particle_initial_velocity.set(i, p.fixed ? Vec3{0.0, 0.0, 0.0} : p.velocity);
    m.particle_force_x[i] = p.force[0];
    m.particle_force_y[i] = p.force[1];
    m.particle_force_z[i] = p.force[2];
    if (ground && p.contact && !p.fixed) {
      m.contact_particle.push_back({i, i, i, i});
      m.contact_weight.push_back({1.0, 0.0, 0.0, 0.0});
    }
  }
}

// Each hinge's geometry, actuation and limits, in the order added.
void copyHinges(const std::vector<HingeSpec>& hinges, Model& m) {
  m.num_hinges = static_cast<int>(hinges.size());
  for (const HingeSpec& h : hinges) {
    m.hinge_name.push_back(h.name);
    m.hinge_parent_body.push_back(h.parent_body);
    m.hinge_child_body.push_back(h.child_body);
    m.hinge_centre_parent.push_back(h.centre_parent);
    m.hinge_centre_child.push_back(h.centre_child);
    m.hinge_axis_point.push_back(h.axis_point);
    m.hinge_parent_arm.push_back(h.parent_arm);
    m.hinge_child_arm.push_back(h.child_arm);
    m.hinge_child_arm2.push_back(h.child_arm2);
    m.hinge_motor_constant.push_back(h.actuation.motor_constant);
    m.hinge_torque_offset.push_back(h.actuation.torque_offset);
    m.hinge_viscous.push_back(h.actuation.viscous);
    m.hinge_coulomb.push_back(h.actuation.coulomb);
    m.hinge_static_max.push_back(h.actuation.static_max);
    m.hinge_stribeck_velocity.push_back(h.actuation.stribeck_velocity);
    m.hinge_armature.push_back(h.actuation.armature);
    m.hinge_gear_efficiency.push_back(h.actuation.gear_efficiency);
    m.hinge_backdrive_efficiency.push_back(h.actuation.backdrive_efficiency);
    m.hinge_gear_transition.push_back(h.actuation.gear_transition_velocity);
    m.hinge_gear_stiffness.push_back(h.actuation.gear_stiffness);
    m.hinge_gear_backlash.push_back(h.actuation.gear_stiffness > 0.0 ? h.actuation.gear_backlash : 0.0);
    m.hinge_gear_damping.push_back(h.actuation.gear_stiffness > 0.0 ? h.actuation.gear_damping : 0.0);
    m.hinge_encoder_on_motor.push_back(h.actuation.gear_stiffness > 0.0 && h.actuation.encoder_on_motor ? 1 : 0);
    m.hinge_km.push_back(h.actuation.km);
    m.hinge_thermal_resistance.push_back(h.actuation.thermal_resistance);
    m.hinge_thermal_time_constant.push_back(h.actuation.thermal_time_constant);
    m.hinge_magnet_coefficient.push_back(h.actuation.km > 0.0 ? h.actuation.magnet_coefficient : 0.0);
    m.hinge_initial_winding_rise.push_back(h.actuation.km > 0.0 ? h.actuation.initial_winding_rise : 0.0);
    m.hinge_lower.push_back(h.lower);
    m.hinge_upper.push_back(h.upper);
    m.hinge_initial_angle.push_back(h.initial_angle);
  }
}

// Elimination order: by depth of the child body, deepest first. Each
// hinge's constraints couple only with hinges sharing one of its bodies;
// those on its child body are deeper (gone before it), so what remains
// when it is eliminated are hinges on its parent body, which already
// couple with each other: the elimination creates no new coupling.
void orderHinges(const std::vector<HingeSpec>& hinges, int num_bodies, Model& m) {
  const int nh = static_cast<int>(hinges.size());
  std::vector<int> depth(nh, -1);
  std::vector<int> parent_hinge_of_body(num_bodies, -1);
  for (int h = 0; h < nh; ++h) parent_hinge_of_body[hinges[h].child_body] = h;
  for (int h = 0; h < nh; ++h) {
    int d = 0;
    for (int b = hinges[h].parent_body; parent_hinge_of_body[b] >= 0; b = hinges[parent_hinge_of_body[b]].parent_body) {
      if (++d > nh) throw ModelError("hinges form a loop (hinge '" + hinges[h].name + "')");
    }
    depth[h] = d;
  }
  std::vector<std::int32_t>& order = m.kernel->hinge_order;
  order.resize(nh);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth[a] > depth[b]; });
  std::vector<int> position(nh);
  for (int k = 0; k < nh; ++k) position[order[k]] = k;
  m.kernel->hinge_coupled.assign(nh, {});
  for (int h = 0; h < nh; ++h) {
    const int p = hinges[h].parent_body;
    for (int o = 0; o < nh; ++o) {
      if (o == h || position[o] < position[h]) continue;
      if (hinges[o].parent_body == p || hinges[o].child_body == p) m.kernel->hinge_coupled[h].push_back(o);
    }
  }
}

// Bodies, ordered by their first particle; returns each body's new index
// (hinges, bands and straps follow the renumbering).
std::vector<int> copyBodies(const std::vector<BodySpec>& bodies, int num_particles, Model& m) {
  const int np = num_particles;
  std::vector<int> body_order(bodies.size());
  std::iota(body_order.begin(), body_order.end(), 0);
  std::stable_sort(body_order.begin(), body_order.end(),
                   [&](int a, int b) { return bodies[a].first < bodies[b].first; });
  std::vector<int> body_index(bodies.size());
  m.num_bodies = static_cast<int>(bodies.size());
  m.particle_body.assign(np, -1);
  m.particle_body_position.assign(np, 0.0);
  for (int b = 0; b < m.num_bodies; ++b) {
    const BodySpec& body = bodies[body_order[b]];
    body_index[body_order[b]] = b;
    m.body_name.push_back(body.name);
    m.body_particle_begin.push_back(body.first);
    m.body_particle_end.push_back(body.first + body.count);
    for (int k = 0; k < body.count; ++k) {
      m.particle_body[body.first + k] = b;
      m.particle_body_position.set(body.first + k, body.body_position[k]);
    }
  }
  for (int h = 0; h < m.num_hinges; ++h) {
    m.hinge_parent_body[h] = body_index[m.hinge_parent_body[h]];
    m.hinge_child_body[h] = body_index[m.hinge_child_body[h]];
  }
  return body_index;
}

// Bands: via points follow the body renumbering too.
void copyBands(const std::vector<BandSpec>& bands, const std::vector<int>& body_index, Model& m) {
  m.num_bands = static_cast<int>(bands.size());
  m.band_via_begin.assign(1, 0);
  for (const BandSpec& band : bands) {
    m.band_name.push_back(band.name);
    m.band_stiffness.push_back(band.stiffness);
    m.band_natural_length.push_back(band.natural_length);
    m.band_damping.push_back(band.damping);
    m.band_relaxing_stiffness.push_back(band.relaxing_stiffness);
    m.band_relaxation_time.push_back(band.relaxing_stiffness > 0.0 ? band.relaxation_time : 0.0);
    m.band_capstan_friction.push_back(band.capstan_friction);
    for (std::size_t j = 0; j < band.via_body.size(); ++j) {
      m.via_body.push_back(body_index[band.via_body[j]]);
      m.via_weight.push_back(band.via_weight[j]);
    }
    m.band_via_begin.push_back(static_cast<std::int32_t>(m.via_body.size()));
  }
}

// Straps: both ends follow the body renumbering.
void copyStraps(const std::vector<StrapSpec>& straps, const std::vector<int>& body_index, Model& m) {
  m.num_straps = static_cast<int>(straps.size());
  for (const StrapSpec& strap : straps) {
    m.strap_name.push_back(strap.name);
    m.strap_body_a.push_back(body_index[strap.body_a]);
    m.strap_weight_a.push_back(strap.weight_a);
    m.strap_body_b.push_back(body_index[strap.body_b]);
    m.strap_weight_b.push_back(strap.weight_b);
    m.strap_stiffness.push_back(strap.stiffness);
    m.strap_damping.push_back(strap.damping);
  }
}

}  // namespace

Model ModelBuilder::build() const {
  Model m;
  const int np = numParticles();
  copyParticles(particles_, ground_.enabled, m);
  layoutSprings(springs_, np, m);
  if (ground_.enabled) {
    for (const ContactPointSpec& c : contact_points_) {
      std::array<std::int32_t, 4> idx{};
      for (int k = 0; k < 4; ++k) idx[k] = c.particles[k] >= 0 ? c.particles[k] : c.particles[0];
      m.contact_particle.push_back(idx);
      m.contact_weight.push_back(c.weights);
      m.kernel->contacts_share_particles = true;
    }
  }

  copyHinges(hinges_, m);
  orderHinges(hinges_, numBodies(), m);
  const int nh = numHinges();
  m.num_couplings = numCouplings();
  m.hinge_follower_coupling.assign(nh, -1);
  for (int c = 0; c < m.num_couplings; ++c) {
    const CouplingSpec& spec = couplings_[c];
    m.coupling_leader.push_back(spec.leader);
    m.coupling_follower.push_back(spec.follower);
    m.coupling_multiplier.push_back(spec.multiplier);
    m.coupling_offset.push_back(spec.offset);
    m.hinge_follower_coupling[spec.follower] = c;
  }
  m.hinge_constraint_frequency = hinge_settings_.constraint_frequency;
  m.hinge_link_model = hinge_settings_.link_model;
  // A coupling's moments reach its bodies as rigid bodies take them
  // (hinges.cpp, addCouplingColumn); with link springs there is no rigid
  // response to give.
  if (hinge_settings_.link_model == LinkModel::kSprings && !couplings_.empty()) {
    throw ModelError("coupling of hinge '" + hinges_[couplings_[0].follower].name + "' to '" +
                     hinges_[couplings_[0].leader].name +
                     "': couplings (<mimic>) need the rigid link model (link_model springs has none)");
  }
  m.hinge_stick_speed = hinge_settings_.stick_speed;
  m.hinge_limit_stiffness = hinge_settings_.limit_stiffness;
  m.hinge_limit_damping = hinge_settings_.limit_damping;

  const std::vector<int> body_index = copyBodies(bodies_, np, m);
  copyBands(bands_, body_index, m);
  copyStraps(straps_, body_index, m);
  m.ground = ground_;
  m.gravity = gravity_;
  return m;
}

}  // namespace suitsim
