#include "world_elements.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "suitsim/scene/scene.h"

namespace suitsim::io {

namespace {


/// How much memory this process can have, and where that figure came from.
struct MemoryLimit {
  double bytes = 0.0;  // 0: unknown
  const char* source = "";
};

// What the kernel says it can give without swapping (MemAvailable: free
// memory plus the caches it can drop), not the physical total, which other
// processes share; the physical memory (sysconf) only where /proc/meminfo
// cannot be read. An address-space limit (ulimit -v) is where std::bad_alloc
// comes from when it is lower, so it counts too.
MemoryLimit memoryLimit() {
  MemoryLimit limit;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kib = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        limit = {static_cast<double>(kib) * 1024.0, "available now, MemAvailable in /proc/meminfo"};
        break;
      }
    }
    std::fclose(f);
  }
  if (limit.bytes <= 0.0) {
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (physical > 0.0) limit = {physical, "physical memory, sysconf"};
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const double address_space = static_cast<double>(as.rlim_cur);
    if (limit.bytes <= 0.0 || address_space < limit.bytes) limit = {address_space, "its address-space limit, ulimit -v"};
  }
  return limit;
}

// A lattice is refused before it is built, at its line, when the model with
// it and everything before it would need more memory than this process can
// have: otherwise the build ends in std::bad_alloc (or the OOM killer)
// minutes later with no line. The engine counts the model's bytes from its
// structures (modelPeakBytes); the reader adds its own name index: a map
// node a particle (the tree's colour and three links, the name, the index)
// and the body's member list.
void checkMemory(const ElementReader& r, const ModelBuilder& builder, Names& names, const std::string& body,
                 double particles, double springs, bool contact) {
  const double digits = std::floor(std::log10(std::max(1.0, particles - 1.0))) + 1.0;
  names.longest_name = std::max(names.longest_name, static_cast<double>(body.size()) + 1.0 + digits);
  const double name_heap = names.longest_name <= 15.0 ? 0.0 : std::ceil((names.longest_name + 9.0) / 16.0) * 16.0;
  const double map_node = std::ceil((sizeof(int) + 3.0 * sizeof(void*) + sizeof(std::pair<const std::string, int>) + 8.0) / 16.0) * 16.0;
  names.lattice_bytes += particles * (map_node + name_heap) + std::exp2(std::ceil(std::log2(particles))) * sizeof(int);
  ModelSize size;
  size.particles = builder.numParticles() + particles;
  size.springs = builder.numSprings() + springs;
  // Every particle of a lattice that may touch the ground is counted as a
  // contact, ground or not: the <ground> may come later in the file.
  names.lattice_contacts += contact ? particles : 0.0;
  size.contacts = names.lattice_contacts;
  size.name_length = names.longest_name;
  const double needed = modelPeakBytes(size) + names.lattice_bytes;
  const MemoryLimit limit = memoryLimit();
  if (limit.bytes > 0.0 && needed > limit.bytes) {
    char buf[224];
    std::snprintf(buf, sizeof buf,
                  "needs about %.3g GB of memory to build and run, with what comes before it; this process can have "
                  "%.3g GB (%s)",
                  needed / 1e9, limit.bytes / 1e9, limit.source);
    r.failAttribute("count", buf);
  }
}

bool isIndex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// `so_far`: springs may name only particles defined above them, records any.
int particleRef(const ElementReader& r, const char* attr, const Names& names, int num_particles, bool so_far) {
  const std::string ref = r.text(attr);
  if (isIndex(ref)) {
    const long index = std::stol(ref.size() > 9 ? std::string("999999999") : ref);
    if (index >= num_particles) {
      r.failAttribute(attr, "particle index out of range (the scene has " + std::to_string(num_particles) +
                                (so_far ? " particles so far)" : " particles)"));
    }
    return static_cast<int>(index);
  }
  const auto it = names.particles.find(ref);
  if (it == names.particles.end()) {
    r.failAttribute(attr, so_far ? "names no particle defined before this line" : "names no particle");
  }
  return it->second;
}

// Names become CSV column labels ("bob.position.x[m]"), so characters that
// would split or quote a column, or break a line, are refused.
void checkName(const ElementReader& r, const char* attr, const std::string& name) {
  if (name.empty()) r.failAttribute(attr, "must not be empty");
  for (const unsigned char c : name) {
    if (std::isspace(c) || std::iscntrl(c) || c == ',' || c == '"' || c == '\'') {
      r.failAttribute(attr, "must not contain spaces, commas or quotes (it becomes a column name)");
    }
  }
}

void claimName(const ElementReader& r, std::map<std::string, int>& table, const std::string& name, int value,
               const char* what) {
  checkName(r, "name", name);
  if (isIndex(name)) r.failAttribute("name", std::string("must not be a number (numbers are ") + what + " indices)");
  if (!table.emplace(name, value).second) r.failAttribute("name", std::string("repeats an earlier ") + what + " name");
}

/// Runs a builder call; turns a builder complaint into a located scene error.
template <typename F>
auto located(const ElementReader& r, F&& f) {
  try {
    return f();
  } catch (const ModelError& e) {
    r.fail(e.what());
  }
}

}  // namespace

GroundModel readGround(const ElementReader& r) {
  GroundModel g;
  g.enabled = true;
  g.normal = r.vec3("normal", {0.0, 0.0, 1.0});
  if (g.normal[0] == 0.0 && g.normal[1] == 0.0 && g.normal[2] == 0.0) r.failAttribute("normal", "must be non-zero");
  g.offset = r.number("height", 0.0);
  g.stiffness = r.positive("stiffness", r.number("stiffness"));
  g.damping = r.nonNegative("damping", r.number("damping", 0.0));
  g.mu_static = r.nonNegative("mu_static", r.number("mu_static", 0.0));
  g.mu_kinetic = r.nonNegative("mu_kinetic", r.number("mu_kinetic", g.mu_static));
  if (g.mu_kinetic > g.mu_static) r.failAttribute("mu_kinetic", "must not exceed mu_static");
  // The anchor spring defaults to the normal stiffness: a sticking contact
  // then deflects sideways about as much as it sinks.
  g.friction_stiffness = r.nonNegative("friction_stiffness", r.number("friction_stiffness", g.stiffness));
  g.friction_damping = r.nonNegative("friction_damping", r.number("friction_damping", g.damping));
  g.stick_speed = r.positive("stick_speed", r.number("stick_speed", 1e-3));
  if (g.mu_static > 0.0 && g.friction_stiffness == 0.0) {
    r.failAttribute("friction_stiffness", "must be > 0 when mu_static > 0");
  }
  // The engine's own checks of a ground, on a builder that holds nothing else.
  ModelBuilder check;
  located(r, [&] { check.setGround(g); });
  return g;
}

void readParticle(const ElementReader& r, ModelBuilder& builder, Names& names) {
  ParticleSpec p;
  p.name = r.text("name");
  p.position = r.vec3("pos");
  p.velocity = r.vec3("vel", {0.0, 0.0, 0.0});
  p.mass = r.positive("mass", r.number("mass"));
  p.fixed = r.boolean("fixed", false);
  p.contact = r.boolean("contact", true);
  p.force = r.vec3("force", {0.0, 0.0, 0.0});
  claimName(r, names.particles, p.name, builder.numParticles(), "particle");
  located(r, [&] { return builder.addParticle(p); });
}

void readSpring(const ElementReader& r, ModelBuilder& builder, Names& names) {
  SpringSpec s;
  s.a = particleRef(r, "a", names, builder.numParticles(), true);
  s.b = particleRef(r, "b", names, builder.numParticles(), true);
  s.stiffness = r.positive("stiffness", r.number("stiffness"));
  s.damping = r.nonNegative("damping", r.number("damping", 0.0));
  s.rest_length = r.has("rest_length") ? r.nonNegative("rest_length", r.number("rest_length")) : -1.0;
  if (s.a == s.b) r.failAttribute("b", "is the same particle as 'a': a spring needs two particles");
  if (r.has("name")) claimName(r, names.springs, r.text("name"), builder.numSprings(), "spring");
  located(r, [&] { return builder.addSpring(s); });
}

static void claimBody(const ElementReader& r, ModelBuilder& builder, Names& names, const std::string& name, int first) {
  std::vector<int>& members = names.bodies[name];
  for (int i = first; i < builder.numParticles(); ++i) {
    members.push_back(i);
    if (!names.particles.emplace(builder.particle(i).name, i).second) {
      r.failAttribute("name", "generates particle '" + builder.particle(i).name + "', a name already taken");
    }
  }
}

void readCloth(const ElementReader& r, ModelBuilder& builder, Names& names) {
  ClothSpec c;
  c.name = r.text("name");
  c.origin = r.vec3("origin");
  c.u = r.vec3("u", {1.0, 0.0, 0.0});
  c.v = r.vec3("v", {0.0, 1.0, 0.0});
  const std::vector<int> count = r.integers("count", 2);
  c.nu = count[0];
  c.nv = count[1];
  c.spacing = r.positive("spacing", r.number("spacing"));
  c.mass = r.positive("mass", r.number("mass"));
  c.stiffness = r.positive("stiffness", r.number("stiffness"));
  c.bend_stiffness = r.nonNegative("bend_stiffness", r.number("bend_stiffness", 0.0));
  c.damping = r.nonNegative("damping", r.number("damping", 0.0));
  c.contact = r.boolean("contact", true);
  const std::string pin = r.text("pin", "none");
  if (pin == "none") c.pin = ClothSpec::Pin::kNone;
  else if (pin == "top_edge") c.pin = ClothSpec::Pin::kTopEdge;
  else if (pin == "top_corners") c.pin = ClothSpec::Pin::kTopCorners;
  else r.failAttribute("pin", "must be none, top_edge or top_corners");
  if (c.nu < 2 || c.nv < 2) r.failAttribute("count", "must be at least 2 in each direction");
  // In double: a product of ints can overflow a long; a double cannot.
  const double cloth_particles = static_cast<double>(c.nu) * c.nv;
  if (cloth_particles > 1e7) r.failAttribute("count", "is too large (over 1e7 particles)");
  checkName(r, "name", c.name);
  checkMemory(r, builder, names, c.name, cloth_particles, clothSpringCount(c), c.contact);
  if (names.bodies.count(c.name)) r.failAttribute("name", "repeats an earlier body name");
  const double cos_uv = std::abs(c.u[0] * c.v[0] + c.u[1] * c.v[1] + c.u[2] * c.v[2]) /
                        std::max(1e-300, std::hypot(c.u[0], c.u[1], c.u[2]) * std::hypot(c.v[0], c.v[1], c.v[2]));
  if (!(cos_uv < 0.999)) r.failAttribute("v", "must not be parallel to u (or zero)");
  const int first = located(r, [&] { return builder.addCloth(c); });
  claimBody(r, builder, names, c.name, first);
}

void readBlock(const ElementReader& r, ModelBuilder& builder, Names& names) {
  BlockSpec b;
  b.name = r.text("name");
  b.origin = r.vec3("origin");
  const std::vector<int> count = r.integers("count", 3);
  b.nx = count[0];
  b.ny = count[1];
  b.nz = count[2];
  b.spacing = r.positive("spacing", r.number("spacing"));
  b.mass = r.positive("mass", r.number("mass"));
  b.stiffness = r.positive("stiffness", r.number("stiffness"));
  b.damping = r.nonNegative("damping", r.number("damping", 0.0));
  b.velocity = r.vec3("vel", {0.0, 0.0, 0.0});
  b.contact = r.boolean("contact", true);
  if (b.nx < 1 || b.ny < 1 || b.nz < 1) r.failAttribute("count", "must be at least 1 in each direction");
  // In double: 2097152^3 overflows a long and used to pass the cap.
  const double block_particles = static_cast<double>(b.nx) * b.ny * b.nz;
  if (block_particles > 1e7) r.failAttribute("count", "is too large (over 1e7 particles)");
  checkName(r, "name", b.name);
  checkMemory(r, builder, names, b.name, block_particles, blockSpringCount(b), b.contact);
  if (names.bodies.count(b.name)) r.failAttribute("name", "repeats an earlier body name");
  const int first = located(r, [&] { return builder.addBlock(b); });
  claimBody(r, builder, names, b.name, first);
}

ChannelSpec readRecord(const ElementReader& r, const Model& model, const Names& names) {
  using Kind = ChannelSpec::Kind;
  ChannelSpec c;
  const std::string quantity = r.text("quantity");
  const int targets = r.has("particle") + r.has("spring") + r.has("body") + r.has("joint") + r.has("band");
  if (targets > 1) r.fail("names more than one of particle, spring, body, joint and band");
  if (r.has("band")) {
    c.index = model.findBand(r.text("band"));
    if (c.index < 0) r.failAttribute("band", "names no band of the scene's robot");
    c.label = r.text("band");
    if (quantity == "length") c.kind = Kind::kBandLength;
    else if (quantity == "tension") c.kind = Kind::kBandTension;
    else r.failAttribute("quantity", "must be length or tension for a band");
  } else if (r.has("joint")) {
    c.index = findHinge(model, r.text("joint"));
    if (c.index < 0) r.failAttribute("joint", "names no moving joint of the scene's robot");
    c.label = r.text("joint");
    if (quantity == "angle") c.kind = Kind::kJointAngle;
    else if (quantity == "velocity") c.kind = Kind::kJointVelocity;
    else if (quantity == "current") c.kind = Kind::kJointCurrent;
    else if (quantity == "motor_torque") c.kind = Kind::kMotorTorque;
    else if (quantity == "friction_torque") c.kind = Kind::kFrictionTorque;
    else r.failAttribute("quantity", "must be angle, velocity, current, motor_torque or friction_torque for a joint");
  } else if (r.has("particle")) {
    c.index = particleRef(r, "particle", names, model.num_particles, false);
    c.label = model.particle_name[c.index];
    if (quantity == "position") c.kind = Kind::kParticlePosition;
    else if (quantity == "velocity") c.kind = Kind::kParticleVelocity;
    else r.failAttribute("quantity", "must be position or velocity for a particle");
  } else if (r.has("spring")) {
    const std::string ref = r.text("spring");
    int input = -1;
    if (isIndex(ref)) {
      input = ref.size() > 9 ? model.num_springs : std::stoi(ref);
      if (input >= model.num_springs) {
        r.failAttribute("spring", "spring index out of range (the scene has " + std::to_string(model.num_springs) +
                                      " springs)");
      }
      c.label = "spring" + ref;
    } else {
      const auto it = names.springs.find(ref);
      if (it == names.springs.end()) r.failAttribute("spring", "names no spring");
      input = it->second;
      c.label = ref;
    }
    c.index = model.springIndexFromInput(input);
    if (quantity == "length") c.kind = Kind::kSpringLength;
    else if (quantity == "tension") c.kind = Kind::kSpringTension;
    else r.failAttribute("quantity", "must be length or tension for a spring");
  } else if (r.has("body")) {
    const auto it = names.bodies.find(r.text("body"));
    if (it == names.bodies.end()) r.failAttribute("body", "names no cloth, block or robot body");
    c.particles = it->second;
    c.label = it->first;
    if (quantity != "com") r.failAttribute("quantity", "must be com for a body");
    c.kind = Kind::kCentreOfMass;
  } else if (quantity == "ground_force") {
    c.kind = Kind::kGroundForce;
  } else if (quantity == "energy") {
    c.kind = Kind::kEnergy;
  } else if (quantity == "applied_force") {
    c.kind = Kind::kAppliedForce;
  } else {
    // The whole model's balance (centroidal.h).
    static const std::pair<const char*, Kind> kBalance[] = {
        {"com", Kind::kCom},     {"com_velocity", Kind::kComVelocity}, {"cop", Kind::kCentreOfPressure},
        {"omega", Kind::kPendulumFrequency}, {"dcm", Kind::kDcm},      {"vrp", Kind::kVrp},
        {"ecmp", Kind::kEcmp},   {"balance_margin", Kind::kBalanceMargin}};
    const auto it = std::find_if(std::begin(kBalance), std::end(kBalance),
                                 [&](const auto& b) { return quantity == b.first; });
    if (it == std::end(kBalance)) {
      r.failAttribute("quantity",
                      "must be energy, ground_force, applied_force, com, com_velocity, cop, omega, dcm, vrp, ecmp or "
                      "balance_margin "
                      "when no particle, spring, body, joint or band is named");
    }
    c.kind = it->second;
    if (c.kind != Kind::kCom && c.kind != Kind::kComVelocity && !model.ground.enabled) {
      r.failAttribute("quantity", "'" + quantity + "' needs a <ground> to stand on");
    }
  }
  return c;
}

}  // namespace suitsim::io
