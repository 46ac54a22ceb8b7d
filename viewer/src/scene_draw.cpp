#include "scene_draw.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace suitsim::viewer {

namespace {

constexpr Colour kLinkColour{0.56f, 0.64f, 0.80f, 1.0f};  // steel blue: never a tension colour
constexpr Colour kParticleColour{0.86f, 0.88f, 0.94f, 1.0f};
constexpr Colour kFixedParticleColour{0.25f, 0.25f, 0.28f, 1.0f};
constexpr Colour kViaPointColour{0.14f, 0.14f, 0.16f, 1.0f};
constexpr Colour kContactForceColour{0.10f, 0.75f, 0.95f, 1.0f};  // cyan
constexpr Colour kContactIdleColour{0.30f, 0.32f, 0.36f, 1.0f};
constexpr Colour kComColour{0.85f, 0.25f, 0.85f, 1.0f};  // magenta
constexpr Colour kSupportColour{0.95f, 0.95f, 0.35f, 1.0f};  // pale yellow: the support polygon's edge
constexpr Colour kDcmColour{1.00f, 0.55f, 0.10f, 1.0f};      // orange
constexpr Colour kVrpColour{0.20f, 0.80f, 0.35f, 1.0f};      // green
constexpr Colour kCopColour{0.10f, 0.75f, 0.95f, 1.0f};      // cyan, like the contact forces it summarises
constexpr Colour kAppliedForceColour{0.95f, 0.20f, 0.20f, 1.0f};  // red: a push or a balance assist
constexpr Colour kDeviceColour{0.72f, 0.58f, 0.36f, 1.0f};  // bronze: a worn device's segments
constexpr Colour kStrapColour{0.95f, 0.75f, 0.15f, 1.0f};   // amber: straps and their forces

// A robot's glyphs as shares of the length scale, so that they keep their
// proportions on any robot (in brackets on a 1.6 m one). Chosen by eye: a
// link reads as a limb, a band is visible beside it without hiding it.
constexpr float kRobotParticle = 0.0074f;  // particle balls (12 mm)
constexpr float kRobotFeature = 0.0055f;   // bands, arrow shafts, markers (9 mm)
constexpr float kRobotCom = 0.0185f;       // centre-of-mass ball (30 mm)
constexpr float kSoleThickness = 0.0154f;  // (25 mm)
constexpr float kSoleMargin = 0.0062f;     // beyond the outer contact points (10 mm)
constexpr float kLift = 0.0006f;           // above the ground (1 mm)
// A link's rod radius is kLinkRadius x length x cbrt(link mass / total mass):
// a rod's cross-section follows its mass, a trunk reads as a trunk and a
// hand as a hand, whatever the robot's density. Bounded so that a massless
// frame link still shows and a heavy one hides nothing.
constexpr float kLinkRadius = 0.081f;  // a 3 kg thigh of a 70 kg robot: 46 mm
constexpr float kLinkRadiusMin = 0.0111f, kLinkRadiusMax = 0.043f;

Vec3f particle(const State& s, int i) {
  return {static_cast<float>(s.position.x[i]), static_cast<float>(s.position.y[i]),
          static_cast<float>(s.position.z[i])};
}

Vec3f weighted(const State& s, int first, const std::array<double, 4>& w) {
  double x = 0.0, y = 0.0, z = 0.0;
  for (int k = 0; k < 4; ++k) {
    x += w[k] * s.position.x[first + k];
    y += w[k] * s.position.y[first + k];
    z += w[k] * s.position.z[first + k];
  }
  return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
}

// A contact point of the model: its particles and weights (unused slots
// repeat the first particle with weight zero).
Vec3f contactPoint(const Model& m, const State& s, int c) {
  double x = 0.0, y = 0.0, z = 0.0;
  for (int k = 0; k < 4; ++k) {
    const double w = m.contact_weight[c][k];
    if (w == 0.0) continue;
    const int i = m.contact_particle[c][k];
    x += w * s.position.x[i];
    y += w * s.position.y[i];
    z += w * s.position.z[i];
  }
  return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
}

Colour hsv(float hue_deg, float s, float v) {
  const float h = std::fmod(std::max(hue_deg, 0.0f), 360.0f) / 60.0f;
  const float c = v * s, x = c * (1.0f - std::fabs(std::fmod(h, 2.0f) - 1.0f)), m = v - c;
  float r = 0, g = 0, b = 0;
  if (h < 1)
    r = c, g = x;
  else if (h < 2)
    r = x, g = c;
  else if (h < 3)
    g = c, b = x;
  else if (h < 4)
    g = x, b = c;
  else if (h < 5)
    r = x, b = c;
  else
    r = c, b = x;
  return {r + m, g + m, b + m, 1.0f};
}

// Springs: grey at rest length, red when stretched, blue when compressed,
// full colour at 2 % strain (the links of a robot hardly move off grey).
Colour strainColour(double strain) {
  const float t = static_cast<float>(std::clamp(std::fabs(strain) / 0.02, 0.0, 1.0));
  const Colour grey{0.75f, 0.75f, 0.78f, 1.0f};
  const Colour end = strain > 0.0 ? Colour{0.95f, 0.25f, 0.2f, 1.0f} : Colour{0.2f, 0.4f, 0.95f, 1.0f};
  return {grey.r + t * (end.r - grey.r), grey.g + t * (end.g - grey.g), grey.b + t * (end.b - grey.b), 1.0f};
}

}  // namespace

Vec3f centreOfMass(const Model& m, const State& state) {
  double mass = 0.0, x = 0.0, y = 0.0, z = 0.0;
  for (int i = 0; i < m.num_particles; ++i) {
    const double mi = m.particle_mass[i];
    mass += mi;
    x += mi * state.position.x[i];
    y += mi * state.position.y[i];
    z += mi * state.position.z[i];
  }
  if (mass <= 0.0) return {0.0f, 0.0f, 0.0f};
  return {static_cast<float>(x / mass), static_cast<float>(y / mass), static_cast<float>(z / mass)};
}

Colour tensionColour(double tension, double scale) {
  const float t = static_cast<float>(std::clamp(scale > 0.0 ? tension / scale : 0.0, 0.0, 1.0));
  // Hue 120 (green, slack) down to 0 (red, at the scale): the traffic-light
  // reading of "how hard is this band pulling".
  return hsv(120.0f * (1.0f - t), 0.85f, 0.95f);
}

GlyphScales glyphScales(const Model& m) {
  GlyphScales scales;
  // The box around everything drawn at t = 0: particles, and contact
  // points, which lie outside their body's particles (a sole under a foot).
  double lo[3] = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                  std::numeric_limits<double>::max()};
  double hi[3] = {-lo[0], -lo[1], -lo[2]};
  auto extend = [&](const Vec3& p) {
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
  };
  for (int i = 0; i < m.num_particles; ++i) extend(m.particle_initial_position.get(i));
  for (int c = 0; c < m.numContacts(); ++c) {
    Vec3 p{0.0, 0.0, 0.0};
    for (int k = 0; k < 4; ++k) {
      const Vec3 x = m.particle_initial_position.get(m.contact_particle[c][k]);
      for (int a = 0; a < 3; ++a) p[a] += m.contact_weight[c][k] * x[a];
    }
    extend(p);
  }
  double side = 0.0;
  for (int a = 0; a < 3; ++a) side = std::max(side, hi[a] - lo[a]);
  // One particle, or none: nothing to measure, a metre is as good as any.
  if (side > 0.0) scales.length = side;

  double mass = 0.0;
  for (int i = 0; i < m.num_particles; ++i) mass += m.particle_mass[i];
  const double g = std::hypot(m.gravity[0], m.gravity[1], m.gravity[2]);
  constexpr double kStandardGravity = 9.80665;  // (m/s^2)
  scales.weight = mass * (g > 0.0 ? g : kStandardGravity);

  double k = 0.0;
  for (double s : m.band_stiffness) k = std::max(k, s);
  scales.tension = k * GlyphScales::kReferenceStretch * scales.length;
  return scales;
}

DrawStyle defaultStyle(const GlyphScales& scales) {
  DrawStyle style;
  // The whole weight on one contact would draw an arrow as long as the
  // robot is tall; on two feet, each arrow is a fraction of that.
  if (scales.weight > 0.0) style.force_scale = static_cast<float>(scales.length / scales.weight);
  if (scales.tension > 0.0) style.tension_scale = static_cast<float>(scales.tension);
  return style;
}

Vec3f SceneDrawing::initialPoint(const Model& m, const BodyPoint& p) {
  Vec3f x{0.0f, 0.0f, 0.0f};
  for (int k = 0; k < 4; ++k)
    x = x + static_cast<float>(p.w[k]) * toVec3f(m.particle_initial_position.get(p.first_particle + k));
  return x;
}

SceneDrawing::SceneDrawing(const io::Scene& scene) : scales_(glyphScales(scene.model)) {
  const Model& m = scene.model;
  const float length = static_cast<float>(scales_.length);

  // Extent of the initial configuration.
  Vec3f lo{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  Vec3f hi = -1.0f * lo;
  for (int i = 0; i < m.num_particles; ++i) {
    const Vec3f p = toVec3f(m.particle_initial_position.get(i));
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  if (m.num_particles > 0) {
    centre_ = 0.5f * (lo + hi);
    radius_ = std::max(0.5f * norm(hi - lo), 0.05f);
  }
  // Particles held in place are what everything else swings about (a
  // pendulum's pivot, a cloth's pins): frame the sphere about them that
  // holds every particle, so the whole swing stays in view.
  Vec3f pivot{0, 0, 0};
  int num_fixed = 0;
  for (int i = 0; i < m.num_particles; ++i) {
    if (m.particle_fixed[i]) pivot = pivot + toVec3f(m.particle_initial_position.get(i)), ++num_fixed;
  }
  if (num_fixed > 0 && num_fixed < m.num_particles) {
    pivot = (1.0f / static_cast<float>(num_fixed)) * pivot;
    float reach = 0.0f;
    for (int i = 0; i < m.num_particles; ++i)
      reach = std::max(reach, norm(toVec3f(m.particle_initial_position.get(i)) - pivot));
    centre_ = pivot;
    radius_ = std::max(reach, 0.05f);
  }
  has_fixed_ = num_fixed > 0;

  // Particle size: a fraction of the short springs (a lattice's diagonals
  // are longer than its spacing), so a block's or cloth's particles do not
  // merge and a two-particle oscillator's are still visible.
  std::vector<double> rest(m.spring_rest_length.begin(), m.spring_rest_length.end());
  if (scene.robot) {
    particle_radius_ = kRobotParticle * length;
  } else if (!rest.empty()) {
    std::nth_element(rest.begin(), rest.begin() + rest.size() / 4, rest.end());
    particle_radius_ = std::clamp(0.18f * static_cast<float>(rest[rest.size() / 4]), 0.002f * length, 0.05f * radius_);
  } else {
    particle_radius_ = 0.03f * radius_;
  }
  feature_ = scene.robot ? kRobotFeature * length : 0.6f * particle_radius_;
  com_radius_ = scene.robot ? kRobotCom * length : std::max(1.2f * particle_radius_, 0.02f * radius_);
  sole_thickness_ = kSoleThickness * length;
  sole_margin_ = kSoleMargin * length;
  lift_ = kLift * length;
  double total_mass = 0.0;
  for (int i = 0; i < m.num_particles; ++i) total_mass += m.particle_mass[i];

  // ---- links: rods between joints, on bodies of four particles -------------
  std::vector<int> parent_hinge(m.num_bodies, -1);
  std::vector<std::vector<int>> child_hinges(m.num_bodies);
  for (int h = 0; h < m.num_hinges; ++h) {
    parent_hinge[m.hinge_child_body[h]] = h;
    child_hinges[m.hinge_parent_body[h]].push_back(h);
  }
  std::vector<std::vector<int>> body_contacts(m.num_bodies);
  for (int c = 0; c < m.numContacts(); ++c) {
    const int b = m.particle_body[m.contact_particle[c][0]];
    if (b >= 0 && m.body_particle_end[b] - m.body_particle_begin[b] == 4) body_contacts[b].push_back(c);
  }
  // A worn device's segments (exoskeleton.h): a rod from its hinge (or, for
  // its root, its centre) to each of its straps and to its centre of mass,
  // so the cuffs show beside the limbs they are worn on, in their own colour.
  std::vector<char> device_body(m.num_bodies, 0);
  if (scene.robot && scene.robot->exoskeleton) {
    for (int k = 0; k < static_cast<int>(scene.robot->exoskeleton->segments.size()); ++k) {
      const int b = findBody(m, exoPartName(*scene.robot->exoskeleton, k));
      if (b >= 0) device_body[b] = 1;
    }
  }
  for (int b = 0; b < m.num_bodies; ++b) {
    if (!device_body[b]) continue;
    const int first = m.body_particle_begin[b];
    double mass = 0.0;
    BodyPoint com{first, {}};
    for (int k = 0; k < 4; ++k) mass += m.particle_mass[first + k];
    for (int k = 0; k < 4; ++k) com.w[k] = m.particle_mass[first + k] / mass;
    const float radius = 0.8f * kLinkRadiusMin * length;
    const BodyPoint hub = parent_hinge[b] >= 0 ? BodyPoint{first, m.hinge_centre_child[parent_hinge[b]]} : com;
    rods_.push_back({hub, com, radius, true});
    for (int s = 0; s < m.num_straps; ++s) {
      if (m.strap_body_a[s] == b) rods_.push_back({com, BodyPoint{first, m.strap_weight_a[s]}, radius, true});
    }
    balls_device_.push_back({com, 1.6f * radius});
  }
  for (int b = 0; b < m.num_bodies; ++b) {
    const int first = m.body_particle_begin[b];
    if (m.body_particle_end[b] - first != 4) continue;
    if (parent_hinge[b] < 0 && child_hinges[b].empty()) continue;
    if (device_body[b]) continue;
    double mass = 0.0;
    BodyPoint com{first, {}};
    for (int k = 0; k < 4; ++k) mass += m.particle_mass[first + k];
    for (int k = 0; k < 4; ++k) com.w[k] = m.particle_mass[first + k] / mass;
    const float radius = std::clamp(kLinkRadius * length * std::cbrt(static_cast<float>(mass / total_mass)),
                                    kLinkRadiusMin * length, kLinkRadiusMax * length);
    const BodyPoint hub = parent_hinge[b] >= 0 ? BodyPoint{first, m.hinge_centre_child[parent_hinge[b]]} : com;

    std::vector<BodyPoint> joints;
    for (int h : child_hinges[b]) joints.push_back({first, m.hinge_centre_parent[h]});
    for (const BodyPoint& j : joints) rods_.push_back({hub, j, radius});
    // A link that branches (a pelvis to two hips, a chest to two shoulders)
    // also gets a bar across its two farthest joints.
    if (joints.size() >= 2) {
      double best = -1.0;
      std::size_t bi = 0, bj = 1;
      for (std::size_t i = 0; i < joints.size(); ++i) {
        for (std::size_t j = i + 1; j < joints.size(); ++j) {
          const double d = norm(initialPoint(m, joints[i]) - initialPoint(m, joints[j]));
          // A tie (a waist joint as far from either hip) goes to the first
          // pair, however rounding falls: the same bar on a scaled copy.
          if (d > best * (1.0 + 1e-5)) best = d, bi = i, bj = j;
        }
      }
      rods_.push_back({joints[bi], joints[bj], radius});
    }
    if (!body_contacts[b].empty()) {
      // A foot: a rod down to the middle of its contact points, and a sole.
      BodyPoint middle{first, {0.0, 0.0, 0.0, 0.0}};
      const double share = 1.0 / static_cast<double>(body_contacts[b].size());
      for (int c : body_contacts[b]) {
        for (int k = 0; k < 4; ++k) {
          const int slot = m.contact_particle[c][k] - first;
          if (m.contact_weight[c][k] != 0.0 && slot >= 0 && slot < 4) middle.w[slot] += share * m.contact_weight[c][k];
        }
      }
      rods_.push_back({hub, middle, radius});
      if (body_contacts[b].size() >= 3) soles_.push_back({body_contacts[b], com});
    } else if (joints.empty()) {
      // An end link (a hand, the head): a rod from its joint to its centre
      // of mass and a ball there, sized by the rod (within reason).
      rods_.push_back({hub, com, radius});
      const float reach = norm(initialPoint(m, com) - initialPoint(m, hub));
      balls_.push_back({com, std::clamp(0.6f * reach, radius, 1.6f * radius)});
    }
  }
}

Layers SceneDrawing::defaultLayers(const io::Scene& scene) const {
  Layers l;
  const bool robot = !rods_.empty();
  l.links = robot;
  l.particles = !robot;
  l.springs = !robot;
  l.ground = scene.model.ground.enabled;
  return l;
}

GroundPlane SceneDrawing::groundPlane(const Model& m) const {
  GroundPlane g;
  g.visible = m.ground.enabled;
  g.normal = toVec3f(m.ground.normal);
  g.tangent_u = toVec3f(m.ground.tangent_u);
  g.tangent_v = toVec3f(m.ground.tangent_v);
  g.offset = static_cast<float>(m.ground.offset);
  // Centred under the scene, squares a power of two near a quarter of its
  // radius (a small robot stands on small squares). At least 8 m of it: room
  // to travel, not a glyph.
  g.centre = centre_ - (dot(g.normal, centre_) - g.offset) * g.normal;
  g.extent = std::max(8.0f, 6.0f * radius_);
  g.square = std::exp2(std::round(std::log2(radius_ / 4.0f)));
  return g;
}

void SceneDrawing::build(const io::Scene& scene, const State& state, const Workspace& ws, const Layers& layers,
                         const DrawStyle& style, DrawList* list) const {
  const Model& m = scene.model;
  list->clear();

  if (layers.links) {
    for (const Rod& r : rods_) {
      list->capsule(weighted(state, r.a.first_particle, r.a.w), weighted(state, r.b.first_particle, r.b.w), r.radius,
                    r.device ? kDeviceColour : kLinkColour);
    }
    for (const Ball& b : balls_device_)
      list->sphere(weighted(state, b.centre.first_particle, b.centre.w), b.radius, kDeviceColour);
    for (const Ball& b : balls_)
      list->sphere(weighted(state, b.centre.first_particle, b.centre.w), b.radius, kLinkColour);
    for (const Sole& sole : soles_) {
      // The contact points' plane; the box stands on it toward the body.
      std::vector<Vec3f> pts;
      Vec3f mean{0, 0, 0};
      for (int c : sole.contacts) {
        pts.push_back(contactPoint(m, state, c));
        mean = mean + pts.back();
      }
      mean = (1.0f / static_cast<float>(pts.size())) * mean;
      Vec3f n{0, 0, 0};  // Newell's normal: robust for any polygon order
      for (std::size_t i = 0; i < pts.size(); ++i) {
        const Vec3f a = pts[i] - mean, b = pts[(i + 1) % pts.size()] - mean;
        n = n + cross(a, b);
      }
      n = normalized(n);
      const Vec3f inside = weighted(state, sole.inside.first_particle, sole.inside.w);
      if (dot(inside - mean, n) < 0.0f) n = -1.0f * n;
      // In-plane principal axes of the points, so the box fits a long foot.
      const Vec3f u0 = anyPerpendicular(n), v0 = cross(n, u0);
      float sxx = 0, syy = 0, sxy = 0;
      for (const Vec3f& p : pts) {
        const float x = dot(p - mean, u0), y = dot(p - mean, v0);
        sxx += x * x, syy += y * y, sxy += x * y;
      }
      const float angle = 0.5f * std::atan2(2.0f * sxy, sxx - syy);
      const Vec3f e1 = std::cos(angle) * u0 + std::sin(angle) * v0, e2 = cross(n, e1);
      float lo1 = 1e9f, hi1 = -1e9f, lo2 = 1e9f, hi2 = -1e9f;
      for (const Vec3f& p : pts) {
        lo1 = std::min(lo1, dot(p - mean, e1)), hi1 = std::max(hi1, dot(p - mean, e1));
        lo2 = std::min(lo2, dot(p - mean, e2)), hi2 = std::max(hi2, dot(p - mean, e2));
      }
      const float thickness = sole_thickness_;
      // Lifted a little so the sole does not flicker against the ground it stands on.
      const Vec3f centre =
          mean + (0.5f * (lo1 + hi1)) * e1 + (0.5f * (lo2 + hi2)) * e2 + (0.5f * thickness + lift_) * n;
      list->box(centre, (0.5f * (hi1 - lo1) + sole_margin_) * e1, (0.5f * (hi2 - lo2) + sole_margin_) * e2,
                (0.5f * thickness) * n, kLinkColour);
    }
  }

  if (layers.particles) {
    for (int i = 0; i < m.num_particles; ++i) {
      list->sphere(particle(state, i), particle_radius_, m.particle_fixed[i] ? kFixedParticleColour : kParticleColour);
    }
  }

  if (layers.springs) {
    for (int s = 0; s < m.num_springs; ++s) {
      const Vec3f a = particle(state, m.spring_a[s]), b = particle(state, m.spring_b[s]);
      const double l0 = m.spring_rest_length[s];
      const double strain = l0 > 0.0 ? (static_cast<double>(norm(b - a)) - l0) / l0 : 0.0;
      list->line(a, b, strainColour(strain));
    }
  }

  if (layers.bands) {
    for (int b = 0; b < m.num_bands; ++b) {
      const double f = ws.band_tension[b];
      const Colour colour = tensionColour(f, style.tension_scale);
      // A slack band is drawn thinner: it pulls nothing.
      const float radius = f > 0.0 ? feature_ : 0.6f * feature_;
      Vec3f previous{};
      for (int v = m.band_via_begin[b]; v < m.band_via_begin[b + 1]; ++v) {
        const Vec3f p = weighted(state, m.body_particle_begin[m.via_body[v]], m.via_weight[v]);
        if (v > m.band_via_begin[b]) list->capsule(previous, p, radius, colour);
        if (layers.via_points) list->sphere(p, 1.5f * feature_, kViaPointColour);
        previous = p;
      }
    }
  }

  if (layers.straps) {
    // Each strap: its two ends (apart by its stretch) and the force it puts
    // on the robot, at the robot's end.
    for (int s = 0; s < m.num_straps; ++s) {
      const Vec3f a = weighted(state, m.body_particle_begin[m.strap_body_a[s]], m.strap_weight_a[s]);
      const Vec3f b = weighted(state, m.body_particle_begin[m.strap_body_b[s]], m.strap_weight_b[s]);
      list->sphere(b, 1.4f * feature_, kStrapColour);
      list->capsule(a, b, 0.7f * feature_, kStrapColour);
      const Vec3f f = toVec3f(ws.strap_force.get(s));
      if (norm(f) > 1e-6f) list->arrow(b, b + style.force_scale * f, 0.45f * feature_, kStrapColour);
    }
  }

  if (layers.contact_forces && m.ground.enabled) {
    for (int c = 0; c < m.numContacts(); ++c) {
      const Vec3f p = contactPoint(m, state, c);
      const Vec3f f = toVec3f(groundForce(m, state, c));
      const bool touching = norm(f) > 1e-6f;
      if (scene.robot) list->sphere(p, 0.8f * feature_, touching ? kContactForceColour : kContactIdleColour);
      if (touching) list->arrow(p, p + style.force_scale * f, 0.45f * feature_, kContactForceColour);
    }
  }

  if (layers.balance && scene.robot && m.ground.enabled) {
    // Seed 003 (11)-(15), as the Recorder's balance channels compute them.
    const GroundModel& g = m.ground;
    const Vec3f n = toVec3f(g.normal), u = toVec3f(g.tangent_u), v = toVec3f(g.tangent_v);
    // Drawn just above the soles (which are drawn with a thickness) so the
    // polygon and the points on the ground stay visible over the feet.
    const auto onGround = [&](const Eigen::Vector2d& uv) {
      return static_cast<float>(uv.x()) * u + static_cast<float>(uv.y()) * v +
             (static_cast<float>(g.offset) + sole_thickness_ + 3.0f * lift_) * n;
    };
    if (support_points_.capacity() < static_cast<std::size_t>(m.numContacts())) {
      support_points_.reserve(m.numContacts());
      support_.vertices.reserve(2 * m.numContacts());
    }
    supportPolygon(m, state, support_points_, support_);
    const std::size_t nv = support_.vertices.size();
    for (std::size_t k = 0; k < nv && nv > 1; ++k) {
      list->capsule(onGround(support_.vertices[k]), onGround(support_.vertices[(k + 1) % nv]), 0.4f * feature_,
                    kSupportColour);
    }
    // omega' from the previous frame drawn; a jump back in time (a reset) restarts it.
    const BalancePoints p = tracker_.update(m, centroidal(m, state), state.time);
    if (std::isfinite(p.omega)) {
      const Vec3f dcm = toVec3f(p.dcm);
      list->sphere(dcm, 0.7f * com_radius_, kDcmColour);
      list->disc(onGround(groundCoordinates(g, p.dcm)), n, 1.2f * com_radius_, 3.0f * lift_, kDcmColour);
      if (std::isfinite(p.vrp[0])) list->sphere(toVec3f(p.vrp), 0.5f * com_radius_, kVrpColour);
    }
    Vec3 cop{};
    if (centreOfPressure(m, state, &cop)) {
      list->disc(onGround(groundCoordinates(g, cop)), n, 0.8f * com_radius_, 4.0f * lift_, kCopColour);
    }
  }

  if (layers.contact_forces) {
    // Forces applied from outside (pushes, a balance assist), one arrow per
    // body at the point they act on: a force F at weights w puts w_k F on
    // particle k, so w_k = f_k·F / |F|².
    for (int b = 0; b < m.num_bodies; ++b) {
      const int first = m.body_particle_begin[b];
      if (m.body_particle_end[b] - first != 4) continue;
      Vec3f f{0.0f, 0.0f, 0.0f};
      for (int k = 0; k < 4; ++k) f = f + toVec3f(state.applied_force.get(first + k));
      const float f2 = dot(f, f);
      if (!(f2 > 1e-12f)) continue;
      Vec3f at{0.0f, 0.0f, 0.0f};
      for (int k = 0; k < 4; ++k) {
        at = at + (dot(toVec3f(state.applied_force.get(first + k)), f) / f2) * particle(state, first + k);
      }
      // Pointing at where it pushes: the arrow ends at the point.
      list->arrow(at - style.force_scale * f, at, 0.6f * feature_, kAppliedForceColour);
    }
  }

  if (layers.centre_of_mass && m.num_particles > 0) {
    const Vec3f com = centreOfMass(m, state);
    const float r = com_radius_;
    list->sphere(com, r, kComColour);
    if (m.ground.enabled) {
      // Straight down to the ground along its normal: the point a balance
      // check compares with the support polygon.
      const Vec3f n = toVec3f(m.ground.normal);
      const Vec3f foot = com - (dot(n, com) - static_cast<float>(m.ground.offset)) * n;
      list->cylinder(foot, com, 0.2f * r, kComColour);
      list->disc(foot + 2.0f * lift_ * n, n, 1.6f * r, 3.0f * lift_, kComColour);
    }
  }
}

}  // namespace suitsim::viewer
