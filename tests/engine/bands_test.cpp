// Suit bands, A(21)-(25) (engine/src/bands.cpp): a slack band pulls nothing,
// a taut band is an internal force set (no net force or moment), via-point
// weights reproduce the point forces exactly, energy is conserved with
// velocity Verlet, scenes carry bands to the model and the recorder, and on
// JVRC-1 the suit's bands take load off the waist motor during a bend.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "robots.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/scene/scene.h"
#include "suitsim/recorder.h"
#include "suitsim/servo.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

Vec3 operator+(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 operator-(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 operator*(double s, const Vec3& a) { return {s * a[0], s * a[1], s * a[2]}; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

/// A point of a four-particle body from its weights.
Vec3 bodyPoint(const Model& m, const State& s, int body, const std::array<double, 4>& w) {
  Vec3 p{0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) p = p + w[k] * s.position.get(m.body_particle_begin[body] + k);
  return p;
}

/// The wire, written again independently of bands.cpp: via point positions
/// and the force the wire puts on each, f (u_next - u_prev), A(25).
struct Wire {
  std::vector<Vec3> point, force;
  double length = 0.0, tension = 0.0;
};
Wire wire(const Model& m, const State& s, int band) {
  Wire w;
  for (int v = m.band_via_begin[band]; v < m.band_via_begin[band + 1]; ++v) {
    w.point.push_back(bodyPoint(m, s, m.via_body[v], m.via_weight[v]));
  }
  const std::size_t n = w.point.size();
  for (std::size_t j = 1; j < n; ++j) w.length += norm(w.point[j] - w.point[j - 1]);
  w.tension = std::max(0.0, m.band_stiffness[band] * (w.length - m.band_natural_length[band]));
  w.force.assign(n, Vec3{0.0, 0.0, 0.0});
  for (std::size_t j = 0; j + 1 < n; ++j) {
    const Vec3 d = w.point[j + 1] - w.point[j];
    const Vec3 f = (w.tension / norm(d)) * d;
    w.force[j] = w.force[j] + f;
    w.force[j + 1] = w.force[j + 1] - f;
  }
  return w;
}

// ---- two free tetrahedra joined by a band (no springs, no hinges) -----------

// Body b is c_b + a {0, e_x, e_y, e_z}: the point c_b + a (u, v, w) has the
// weights (1 - u - v - w, u, v, w), exact in binary for the values below.
struct TwoBodies {
  Model model;
  double l0 = 0.0;
};
TwoBodies twoBodies(double natural_length_scale) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  const Vec3 centre[2] = {{0.0, 0.0, 0.0}, {0.3, 0.1, -0.4}};
  const double a = 0.1;
  const Vec3 offset[4] = {{0, 0, 0}, {a, 0, 0}, {0, a, 0}, {0, 0, a}};
  for (int body = 0; body < 2; ++body) {
    BodySpec spec{"body" + std::to_string(body), b.numParticles(), 4, {}};
    for (int k = 0; k < 4; ++k) {
      ParticleSpec p;
      p.name = spec.name + ".p" + std::to_string(k);
      p.position = centre[body] + offset[k];
      p.mass = 0.5 + 0.25 * k;
      p.contact = false;
      b.addParticle(p);
      spec.body_position.push_back(offset[k]);
    }
    b.addBody(spec);
  }
  // Three via points, the middle one off to the side: the wire bends there.
  BandSpec band;
  band.name = "band";
  band.via_body = {0, 1, 1};
  band.via_weight = {{{0.25, 0.5, 0.25, 0.0}}, {{0.5, 0.0, 0.25, 0.25}}, {{-0.5, 1.5, 0.0, 0.0}}};
  band.stiffness = 197.8;
  const double initial = b.initialBandLength(band);
  band.natural_length = natural_length_scale * initial;
  b.addBand(band);
  return {b.build(), band.natural_length};
}

TEST(Bands, SlackBandPullsNothing) {
  // A(25): l < l0, f = 0. With no other forces every particle stays at rest.
  TwoBodies t = twoBodies(1.2);
  State s = makeState(t.model);
  Workspace ws(t.model);
  Vec3Array acc;
  acc.assign(t.model.num_particles, 1.0);
  computeAcceleration(t.model, s, {s.position.x.data(), s.position.y.data(), s.position.z.data(), s.velocity.x.data(),
                                   s.velocity.y.data(), s.velocity.z.data()},
                      ws, acc);
  for (int i = 0; i < t.model.num_particles; ++i) {
    EXPECT_EQ(acc.x[i], 0.0);
    EXPECT_EQ(acc.y[i], 0.0);
    EXPECT_EQ(acc.z[i], 0.0);
  }
  EXPECT_EQ(ws.band_tension[0], 0.0);
  EXPECT_LT(ws.band_length[0], t.l0);
}

PhasePoint phase(const State& s) {
  return {s.position.x.data(), s.position.y.data(), s.position.z.data(),
          s.velocity.x.data(), s.velocity.y.data(), s.velocity.z.data()};
}

TEST(Bands, WeightsReproduceThePointForcesAndMoments) {
  // (d) Per body: sum_i w_i f = f and sum_i x_i x w_i f = p x f, so the
  // particle forces of a body equal the wire forces at its via points, in
  // force and in moment. (b) Over both bodies they cancel.
  TwoBodies t = twoBodies(0.8);
  const Model& m = t.model;
  State s = makeState(m);
  Workspace ws(m);
  Vec3Array acc;
  acc.assign(m.num_particles, 0.0);
  computeAcceleration(m, s, phase(s), ws, acc);
  const Wire w = wire(m, s, 0);
  ASSERT_GT(w.tension, 10.0);
  EXPECT_NEAR(ws.band_tension[0], w.tension, 1e-12 * w.tension);
  EXPECT_NEAR(ws.band_length[0], w.length, 1e-15);
  Vec3 net{0, 0, 0}, net_moment{0, 0, 0};
  for (int body = 0; body < 2; ++body) {
    Vec3 f_particles{0, 0, 0}, m_particles{0, 0, 0}, f_points{0, 0, 0}, m_points{0, 0, 0};
    for (int i = m.body_particle_begin[body]; i < m.body_particle_end[body]; ++i) {
      f_particles = f_particles + ws.force.get(i);
      m_particles = m_particles + cross(s.position.get(i), ws.force.get(i));
    }
    for (int v = 0; v < static_cast<int>(w.point.size()); ++v) {
      if (m.via_body[m.band_via_begin[0] + v] != body) continue;
      f_points = f_points + w.force[v];
      m_points = m_points + cross(w.point[v], w.force[v]);
    }
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(f_particles[k], f_points[k], 1e-12 * w.tension) << "body " << body;
      EXPECT_NEAR(m_particles[k], m_points[k], 1e-12 * w.tension) << "body " << body;
    }
    net = net + f_particles;
    net_moment = net_moment + m_particles;
  }
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(net[k], 0.0, 1e-12 * w.tension);
    EXPECT_NEAR(net_moment[k], 0.0, 1e-12 * w.tension);
  }
}

// ---- a double pendulum wearing a band ----------------------------------------

/// The planar double pendulum (tests/support/robots.h) bent at both joints,
/// zero gravity, with a band from the base past the upper link to the lower
/// one. l0 = scale x the initial length (scale < 1: taut). Undamped links
/// at `link_frequency` (0: the compile default).
struct Pendulum {
  Model model;
  CompiledRobot compiled;
};
Pendulum pendulum(bool with_band, double scale, double link_frequency = 0.0) {
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  RobotPose pose;
  pose.joint_angles = {0.4, 0.7};
  RobotCompileOptions options;
  options.link_damping_ratio = 0.0;
  if (link_frequency > 0.0) options.link_frequency = link_frequency;
  std::vector<RobotBand> bands;
  if (with_band) {
    RobotBand band{"band", {"base", "upper", "lower"}, {{0.1, 0.02, -0.05}, {0.06, 0.0, -0.3}, {0.04, -0.01, -0.2}},
                   197.8, -1.0, 0.0, /*group=*/ ""};
    // Resolve l0 from the auto length: compile once to measure it.
    ModelBuilder probe;
    const CompiledRobot c = addRobot(probe, testing::doublePendulum(), pose, {}, options, {band});
    band.natural_length = scale * c.band_natural_length[0];
    bands.push_back(band);
  }
  Pendulum p;
  p.compiled = addRobot(b, testing::doublePendulum(), pose, {}, options, bands);
  p.model = b.build();
  return p;
}

TEST(Bands, SlackBandLeavesTheRobotsAccelerationsUnchanged) {
  // (a) compared with the same robot without the band: bit for bit.
  const Pendulum with = pendulum(true, 1.1), without = pendulum(false, 1.0);
  ASSERT_EQ(with.model.num_particles, without.model.num_particles);
  State s1 = makeState(with.model), s2 = makeState(without.model);
  for (int i = 0; i < with.model.num_particles; ++i) {
    s1.velocity.set(i, {0.1 * std::sin(i), 0.05 * i, -0.2 * std::cos(i)});
    s2.velocity.set(i, s1.velocity.get(i));
  }
  Workspace w1(with.model), w2(without.model);
  Vec3Array a1, a2;
  a1.assign(with.model.num_particles, 0.0);
  a2.assign(without.model.num_particles, 0.0);
  computeAcceleration(with.model, s1, phase(s1), w1, a1);
  computeAcceleration(without.model, s2, phase(s2), w2, a2);
  for (int i = 0; i < with.model.num_particles; ++i) {
    EXPECT_EQ(a1.x[i], a2.x[i]);
    EXPECT_EQ(a1.y[i], a2.y[i]);
    EXPECT_EQ(a1.z[i], a2.z[i]);
  }
}

TEST(Bands, TautBandOnARobotIsInternal) {
  // (b) With the hinges responding too, the total force and the total moment
  // about the origin (fixed base particles included) stay zero to round-off.
  const Pendulum p = pendulum(true, 0.8);
  const Model& m = p.model;
  State s = makeState(m);
  Workspace ws(m);
  Vec3Array acc;
  acc.assign(m.num_particles, 0.0);
  computeAcceleration(m, s, phase(s), ws, acc);
  ASSERT_GT(ws.band_tension[0], 5.0);
  Vec3 net{0, 0, 0}, moment{0, 0, 0};
  for (int i = 0; i < m.num_particles; ++i) {
    net = net + ws.force.get(i);
    moment = moment + cross(s.position.get(i), ws.force.get(i));
  }
  std::printf("[measured] taut band %.3f N: net force %.2e N, net moment %.2e N m\n", ws.band_tension[0], norm(net),
              norm(moment));
  EXPECT_LT(norm(net), 1e-9 * ws.band_tension[0]);
  EXPECT_LT(norm(moment), 1e-9 * ws.band_tension[0]);
}

TEST(Bands, VelocityVerletConservesEnergyWithATautBand) {
  // (c) No gravity, no damping: the band's 0.5 k (l - l0)^2 turns into
  // motion and back; the total stays constant. The links move as rigid
  // bodies (hinges.cpp: the band's and the hinges' forces are spread
  // rigidly), so nothing excites their undamped springs: 2.7e-7 of the
  // energy over 1 s (measured; with links held by the springs alone the
  // hinge forces traded energy with link strain, 8.1e-5 at 3000 rad/s and
  // 7.7e-6 at 10000). The band's own forces are conservative whatever the
  // links.
  const Pendulum p = pendulum(true, 0.8, 1e4);
  const Model& m = p.model;
  State s = makeState(m);
  Workspace ws(m);
  const Energy e0 = computeEnergy(m, s);
  ASSERT_GT(e0.spring, 0.1);  // the stretched band holds it
  double worst = 0.0, min_tension = 1e300, max_kinetic = 0.0;
  const double dt = 1e-4;
  for (int k = 1; k <= 10000; ++k) {
    step(m, s, ws, Integrator::kVelocityVerlet, dt);
    if (k % 100 == 0) {
      const Energy e = computeEnergy(m, s);
      worst = std::max(worst, std::abs(e.total() - e0.total()));
      max_kinetic = std::max(max_kinetic, e.kinetic);
      min_tension = std::min(min_tension, ws.band_tension[0]);
    }
  }
  std::printf("[measured] band energy %.4f J, peak kinetic %.4f J, worst |dE| over 1 s %.3e J (%.2e relative)\n",
              e0.total(), max_kinetic, worst, worst / e0.total());
  EXPECT_GT(max_kinetic, 0.1 * e0.total());  // the band did move the robot
  EXPECT_LT(worst, 1e-5 * e0.total());  // measured 2.7e-7 (7.7e-6 with spring-held links)
}

// ---- scenes ----------------------------------------------------------------------

TEST(Bands, SuitSceneCarriesBandsToModelSetupAndRecorder) {
  const io::Scene scene = io::loadScene(SUITSIM_SOURCE_DIR "/scenes/jvrc1_bend_suit.xml");
  const Model& m = scene.model;
  const io::RobotSetup& robot = scene.robot.value();
  ASSERT_EQ(m.num_bands, 4);
  ASSERT_EQ(robot.bands.size(), 4u);
  EXPECT_EQ(robot.bands[0].name, "bandA_R");
  EXPECT_EQ(robot.bands[0].links.size(), 8u);
  EXPECT_EQ(robot.bands[0].links.front(), "WAIST_R_S");
  EXPECT_EQ(robot.bands[0].links.back(), "L_HIP_Y_S");
  const State s = makeState(m);
  for (std::size_t k = 0; k < robot.bands.size(); ++k) {
    const int b = robot.compiled.band[k];
    EXPECT_EQ(m.band_name[b], robot.bands[k].name);
    EXPECT_DOUBLE_EQ(m.band_stiffness[b], 197.8);
    // "auto": just taut in the initial pose.
    EXPECT_NEAR(wire(m, s, b).length, robot.bands[k].natural_length, 1e-12);
    EXPECT_DOUBLE_EQ(m.band_natural_length[b], robot.bands[k].natural_length);
  }
  // The a-priori set knows nothing of the suit: it is a plain robot description.
  EXPECT_EQ(robot.apriori.links.size(), robot.truth.links.size());
  const Recorder recorder(m, scene.channels);
  bool length = false, tension = false;
  for (const std::string& c : recorder.columns()) {
    length = length || c == "bandA_R.length[m]";
    tension = tension || c == "bandB_L.tension[N]";
  }
  EXPECT_TRUE(length);
  EXPECT_TRUE(tension);
}

/// Runs a scene as `suitsim run` does up to `until` seconds; returns the mean
/// WAIST_P motor torque over [from, until] and, for a suit, the mean
/// supporting torque of the bands about WAIST_P, A(21), from the wire forces
/// on via points beyond the joint (here all on WAIST_R_S).
struct BendResult {
  double motor = 0.0, support = 0.0, tension_a = 0.0, waist = 0.0;
};
BendResult runBend(const std::string& path, double from, double until) {
  io::Scene scene = io::loadScene(path);
  const Model& m = scene.model;
  State s = makeState(m);
  Workspace ws(m, 1);
  const io::RobotSetup& robot = scene.robot.value();
  JointServo servo(m, s, robot.motion, robot.gains, robot.servo_rate);
  const int h = findHinge(m, "WAIST_P");
  const int torso = findBody(m, "WAIST_R_S");
  const long first = std::lround(from / scene.simulation.dt), last = std::lround(until / scene.simulation.dt);
  BendResult r;
  long samples = 0;
  for (long k = 1; k <= last; ++k) {
    servo.update(m, s);
    step(m, s, ws, scene.simulation.integrator, scene.simulation.dt);
    if (k < first || k % 50 != 0) continue;
    ++samples;
    r.motor += m.hinge_motor_constant[h] * s.hinge_current[h] + m.hinge_torque_offset[h];
    r.waist += jointAngle(m, s, h);
    // The joint centre and the axis the parent carries.
    const Vec3 o = bodyPoint(m, s, m.hinge_parent_body[h], m.hinge_centre_parent[h]);
    const Vec3 a = bodyPoint(m, s, m.hinge_parent_body[h], m.hinge_axis_point[h]);
    const Vec3 n = (1.0 / norm(a - o)) * (a - o);
    for (int b = 0; b < m.num_bands; ++b) {
      const Wire w = wire(m, s, b);
      if (b == 0) r.tension_a += w.tension;
      for (int v = 0; v < static_cast<int>(w.point.size()); ++v) {
        if (m.via_body[m.band_via_begin[b] + v] == torso) r.support += dot(n, cross(w.point[v] - o, w.force[v]));
      }
    }
  }
  r.motor /= samples;
  r.support /= samples;
  r.tension_a /= samples;
  r.waist /= samples;
  return r;
}

TEST(Bands, SuitTakesLoadOffTheWaistMotorDuringTheBend) {
  // (f) Approach A, A(3): the same motion with and without the suit; in the
  // bent hold (t = 4.2 to 4.8 s) the WAIST_P motor torque changes by minus
  // the bands' supporting torque about the joint. About 6 s wall.
  const BendResult bare = runBend(SUITSIM_SOURCE_DIR "/scenes/jvrc1_bend.xml", 4.2, 4.8);
  const BendResult suit = runBend(SUITSIM_SOURCE_DIR "/scenes/jvrc1_bend_suit.xml", 4.2, 4.8);
  const double change = suit.motor - bare.motor;
  std::printf(
      "[measured] bent hold: WAIST_P %.3f rad; motor torque %.3f N m bare, %.3f N m with suit (change %.3f); "
      "bands' supporting torque %.3f N m; bandA_R tension %.2f N\n",
      suit.waist, bare.motor, suit.motor, change, suit.support, suit.tension_a);
  EXPECT_GT(suit.tension_a, 5.0);  // taut in the bend
  EXPECT_NE(suit.support, 0.0);
  // The motor gives up what the bands supply: opposite signs, similar size.
  EXPECT_LT(change * suit.support, 0.0);
  EXPECT_NEAR(change, -suit.support, 0.1 * std::abs(suit.support));  // measured 1.3 % apart

  // The modified suit (type A at double stiffness, A section 5) supports
  // more, and again the motor gives up what the bands supply. About 3 s wall.
  const BendResult modified = runBend(SUITSIM_SOURCE_DIR "/scenes/jvrc1_bend_suit_modified.xml", 4.2, 4.8);
  const double change_modified = modified.motor - bare.motor;
  std::printf("[measured] modified suit: motor torque %.3f N m (change %.3f); supporting torque %.3f N m\n",
              modified.motor, change_modified, modified.support);
  EXPECT_GT(std::abs(modified.support), 1.3 * std::abs(suit.support));
  EXPECT_LT(std::abs(modified.support), 2.0 * std::abs(suit.support));  // type B is unchanged
  EXPECT_NEAR(change_modified, -modified.support, 0.1 * std::abs(modified.support));
}

// A band anchored by two straps k_a (realism <attachments>): the series
// element's complex stiffness, (k + i w c) k_s / (k + k_s + i w c) with
// k_s = k_a / 2, is k_w + i w c_w to first order in w c / k, k_w and c_w
// from wornStiffness and wornDamping; without straps they are k and c.
TEST(Bands, StrapsInSeriesGiveTheWornStiffnessAndDamping) {
  RobotBand band;
  band.stiffness = 200.0;
  band.damping = 3.0;
  EXPECT_EQ(wornStiffness(band), 200.0);
  EXPECT_EQ(wornDamping(band), 3.0);
  band.attachment_stiffness = 10000.0;
  EXPECT_NEAR(wornStiffness(band), 200.0 * 5000.0 / 5200.0, 1e-9);  // 1/k_w = 1/k + 2/k_a
  for (double w : {0.1, 1.0, 3.0}) {
    const std::complex<double> kc(band.stiffness, w * band.damping), ks(0.5 * band.attachment_stiffness, 0.0);
    const std::complex<double> series = kc * ks / (kc + ks);
    EXPECT_NEAR(series.real(), wornStiffness(band), 1e-3 * std::pow(w * band.damping, 2) + 1e-9) << w;
    EXPECT_NEAR(series.imag() / w, wornDamping(band), 1e-4 * std::pow(w * band.damping, 2) + 1e-9) << w;
  }
}

}  // namespace
}  // namespace suitsim
