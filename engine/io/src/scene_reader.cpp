#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "suitsim/builder.h"
#include "suitsim/io/scene.h"
#include "xml_reader.h"

namespace suitsim::io {

namespace {

using tinyxml2::XMLElement;

/// Everything the reader has named so far: particles, springs and bodies.
struct Names {
  std::map<std::string, int> particles;
  std::map<std::string, int> springs;  // input index
  std::map<std::string, std::vector<int>> bodies;
};

bool isIndex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

int particleRef(const ElementReader& r, const char* attr, const Names& names, int num_particles) {
  const std::string ref = r.text(attr);
  if (isIndex(ref)) {
    const long index = std::stol(ref.size() > 9 ? std::string("999999999") : ref);
    if (index >= num_particles) {
      r.failAttribute(attr, "particle index out of range (the scene has " + std::to_string(num_particles) +
                                " particles so far)");
    }
    return static_cast<int>(index);
  }
  const auto it = names.particles.find(ref);
  if (it == names.particles.end()) r.failAttribute(attr, "names no particle defined before this line");
  return it->second;
}

void claimName(const ElementReader& r, std::map<std::string, int>& table, const std::string& name, int value,
               const char* what) {
  if (name.empty()) r.failAttribute("name", "must not be empty");
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

void readSimulation(const ElementReader& r, SimulationSettings& sim) {
  const std::string integrator = r.text("integrator");
  if (!parseIntegrator(integrator, &sim.integrator)) {
    r.failAttribute("integrator", "must be semi_implicit_euler, velocity_verlet or rk4");
  }
  sim.dt = r.positive("dt", r.number("dt"));
  sim.duration = r.positive("duration", r.number("duration"));
  sim.output_rate = r.positive("output_rate", r.number("output_rate", 100.0));
  sim.threads = r.integer("threads", 0);
  if (sim.threads < 0) r.failAttribute("threads", "must be >= 0 (0 means one per core)");
  if (sim.output_rate * sim.dt > 1.0 + 1e-12) {
    r.failAttribute("output_rate", "must not exceed 1/dt (one sample per step at most)");
  }
}

void readGround(const ElementReader& r, ModelBuilder& builder) {
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
  located(r, [&] { builder.setGround(g); });
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
  s.a = particleRef(r, "a", names, builder.numParticles());
  s.b = particleRef(r, "b", names, builder.numParticles());
  s.stiffness = r.positive("stiffness", r.number("stiffness"));
  s.damping = r.nonNegative("damping", r.number("damping", 0.0));
  s.rest_length = r.has("rest_length") ? r.nonNegative("rest_length", r.number("rest_length")) : -1.0;
  if (s.a == s.b) r.failAttribute("b", "is the same particle as 'a': a spring needs two particles");
  if (r.has("name")) claimName(r, names.springs, r.text("name"), builder.numSprings(), "spring");
  located(r, [&] { return builder.addSpring(s); });
}

void claimBody(const ElementReader& r, ModelBuilder& builder, Names& names, const std::string& name, int first) {
  std::vector<int>& members = names.bodies[name];
  for (int i = first; i < builder.numParticles(); ++i) {
    members.push_back(i);
    if (!names.particles.emplace(builder.particle(i).name, i).second) {
      r.fail("generates particle '" + builder.particle(i).name + "', a name already taken");
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
  if (static_cast<long>(c.nu) * c.nv > 10'000'000) r.failAttribute("count", "is too large (over 1e7 particles)");
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
  if (static_cast<long>(b.nx) * b.ny * b.nz > 10'000'000) r.failAttribute("count", "is too large (over 1e7 particles)");
  if (names.bodies.count(b.name)) r.failAttribute("name", "repeats an earlier body name");
  const int first = located(r, [&] { return builder.addBlock(b); });
  claimBody(r, builder, names, b.name, first);
}

ChannelSpec readRecord(const ElementReader& r, const Model& model, const Names& names) {
  using Kind = ChannelSpec::Kind;
  ChannelSpec c;
  const std::string quantity = r.text("quantity");
  const int targets = r.has("particle") + r.has("spring") + r.has("body");
  if (targets > 1) r.fail("names more than one of particle, spring and body");
  if (r.has("particle")) {
    c.index = particleRef(r, "particle", names, model.num_particles);
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
    if (it == names.bodies.end()) r.failAttribute("body", "names no cloth or block");
    c.particles = it->second;
    c.label = it->first;
    if (quantity != "com") r.failAttribute("quantity", "must be com for a body");
    c.kind = Kind::kCentreOfMass;
  } else {
    if (quantity != "energy") r.failAttribute("quantity", "must be energy when no particle, spring or body is named");
    c.kind = Kind::kEnergy;
  }
  return c;
}

}  // namespace

Scene loadScene(const std::string& path) {
  tinyxml2::XMLDocument doc;
  loadXml(path, doc);
  const XMLElement* root = doc.RootElement();
  if (std::string(root->Name()) != "scene") {
    throw SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <" + root->Name() +
                     "> the root element must be <scene>");
  }
  const ElementReader root_reader(path, root, {"name"});
  rejectUnknownChildren(path, root, {"simulation", "world", "ground", "particle", "spring", "cloth", "block", "record"});

  Scene scene;
  scene.path = path;
  scene.name = root_reader.text("name", std::filesystem::path(path).stem().string());

  // Elements that may appear once.
  auto single = [&](const char* tag, bool required) -> const XMLElement* {
    const XMLElement* first = root->FirstChildElement(tag);
    if (!first && required) {
      throw SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <scene> missing required element <" +
                       tag + ">");
    }
    if (first && first->NextSiblingElement(tag)) {
      const XMLElement* second = first->NextSiblingElement(tag);
      throw SceneError(path + ":" + std::to_string(second->GetLineNum()) + ": <" + tag +
                       "> may appear only once (first at line " + std::to_string(first->GetLineNum()) + ")");
    }
    return first;
  };

  ModelBuilder builder;
  if (const XMLElement* e = single("simulation", true)) {
    readSimulation(ElementReader(path, e, {"integrator", "dt", "duration", "output_rate", "threads"}),
                   scene.simulation);
  }
  if (const XMLElement* e = single("world", false)) {
    const ElementReader r(path, e, {"gravity"});
    builder.setGravity(r.vec3("gravity", {0.0, 0.0, -9.81}));
  }
  if (const XMLElement* e = single("ground", false)) {
    readGround(ElementReader(path, e,
                             {"normal", "height", "stiffness", "damping", "mu_static", "mu_kinetic",
                              "friction_stiffness", "friction_damping", "stick_speed"}),
               builder);
  }

  Names names;
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "particle") {
      readParticle(ElementReader(path, e, {"name", "pos", "vel", "mass", "fixed", "contact", "force"}), builder, names);
    } else if (tag == "spring") {
      readSpring(ElementReader(path, e, {"name", "a", "b", "stiffness", "damping", "rest_length"}), builder, names);
    } else if (tag == "cloth") {
      readCloth(ElementReader(path, e,
                              {"name", "origin", "u", "v", "count", "spacing", "mass", "stiffness", "bend_stiffness",
                               "damping", "pin", "contact"}),
                builder, names);
    } else if (tag == "block") {
      readBlock(ElementReader(path, e,
                              {"name", "origin", "count", "spacing", "mass", "stiffness", "damping", "vel", "contact"}),
                builder, names);
    }
  }
  if (builder.numParticles() == 0) {
    throw SceneError(path + ":" + std::to_string(root->GetLineNum()) +
                     ": <scene> has no particles (add <particle>, <cloth> or <block>)");
  }
  try {
    scene.model = builder.build();
  } catch (const ModelError& e) {
    throw SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <scene> " + e.what());
  }

  for (const XMLElement* e = root->FirstChildElement("record"); e; e = e->NextSiblingElement("record")) {
    scene.channels.push_back(
        readRecord(ElementReader(path, e, {"particle", "spring", "body", "quantity"}), scene.model, names));
  }
  return scene;
}

}  // namespace suitsim::io
