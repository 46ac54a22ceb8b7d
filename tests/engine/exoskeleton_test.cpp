// A worn powered device (engine/src/straps.cpp, engine/src/exoskeleton.cpp):
// a strap is an internal pair that conserves energy; a device is built on
// the robot's joint (same centre, same angle) with its straps unstretched;
// and its virtual-impedance controller does to the robot what the law of
// exoskeleton.h says, checked in static holds against closed forms: with
// virtual_gravity 1 the robot carries the device's weight moment, with 0 it
// carries nothing, and the assist gives k_a of the wearer's own torque.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "suitsim/robot_readout.h"
#include "suitsim/builder.h"
#include "suitsim/exoskeleton.h"
#include "suitsim/experiment/runner.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sensors.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

namespace fs = std::filesystem;

// ---- two free tetrahedra joined by a strap -------------------------------------

Model strappedBodies(double damping) {
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
      p.position = {centre[body][0] + offset[k][0], centre[body][1] + offset[k][1], centre[body][2] + offset[k][2]};
      p.velocity = {0.1 * body, -0.2 * k, 0.05};
      p.mass = 0.5 + 0.25 * k;
      p.contact = false;
      b.addParticle(p);
      spec.body_position.push_back(offset[k]);
    }
    b.addBody(spec);
    // The tetrahedron's shape held by stiff springs, as a link's.
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j) b.addSpring({spec.first + i, spec.first + j, 2e4, 0.0, -1.0});
    }
  }
  StrapSpec strap;
  strap.name = "strap";
  strap.body_a = 0;
  strap.weight_a = {0.25, 0.5, 0.25, 0.0};
  strap.body_b = 1;
  strap.weight_b = {0.5, 0.0, 0.25, 0.25};  // 0.48 m away: the strap starts stretched
  strap.stiffness = 300.0;
  strap.damping = damping;
  b.addStrap(strap);
  return b.build();
}

Vec3 point(const Model& m, const State& s, int body, const std::array<double, 4>& w) {
  Vec3 p{0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    for (int c = 0; c < 3; ++c) p[c] += w[k] * s.position.get(m.body_particle_begin[body] + k)[c];
  }
  return p;
}

TEST(Straps, ForcePairIsTheSpringOfZeroRestLength) {
  const Model m = strappedBodies(0.0);
  State s = makeState(m);
  for (int i = 0; i < m.num_particles; ++i) s.velocity.set(i, {0.0, 0.0, 0.0});
  Workspace ws(m);
  Vec3Array acc;
  acc.assign(m.num_particles, 0.0);
  computeAcceleration(m, s, {s.position.x.data(), s.position.y.data(), s.position.z.data(), s.velocity.x.data(),
                             s.velocity.y.data(), s.velocity.z.data()},
                      ws, acc);
  const Vec3 pa = point(m, s, 0, m.strap_weight_a[0]), pb = point(m, s, 1, m.strap_weight_b[0]);
  Vec3 on_body[2] = {{0, 0, 0}, {0, 0, 0}};
  for (int body = 0; body < 2; ++body) {
    for (int i = m.body_particle_begin[body]; i < m.body_particle_end[body]; ++i) {
      for (int c = 0; c < 3; ++c) on_body[body][c] += ws.force.get(i)[c];
    }
  }
  for (int c = 0; c < 3; ++c) {
    const double f = 300.0 * (pa[c] - pb[c]);  // on b, toward a
    EXPECT_NEAR(ws.strap_force.get(0)[c], f, 1e-12);
    EXPECT_NEAR(on_body[1][c], f, 1e-9);    // the tetrahedra's own springs cancel within each body
    EXPECT_NEAR(on_body[0][c], -f, 1e-9);
  }
}

TEST(Straps, ConserveEnergyAndMomentumWithoutDamping) {
  const Model m = strappedBodies(0.0);
  State s = makeState(m);
  Workspace ws(m);
  Vec3 l0, h0;
  computeMomentum(m, s, &l0, &h0);
  const double e0 = computeEnergy(m, s).total();
  double worst = 0.0;
  for (int k = 0; k < 20000; ++k) {
    step(m, s, ws, Integrator::kVelocityVerlet, 1e-4);
    worst = std::max(worst, std::abs(computeEnergy(m, s).total() - e0));
  }
  EXPECT_LT(worst, 1e-4 * std::abs(e0)) << "energy " << e0;
  Vec3 l1, h1;
  computeMomentum(m, s, &l1, &h1);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(l1[c], l0[c], 1e-10);
    EXPECT_NEAR(h1[c], h0[c], 1e-9);
  }
}

TEST(Straps, DampingOnlyTakesEnergyAway) {
  const Model m = strappedBodies(5.0);
  State s = makeState(m);
  Workspace ws(m);
  double previous = computeEnergy(m, s).total();
  for (int k = 0; k < 5000; ++k) {
    step(m, s, ws, Integrator::kVelocityVerlet, 1e-4);
    if (k % 100 == 99) {
      const double e = computeEnergy(m, s).total();
      EXPECT_LE(e, previous + 1e-6);
      previous = e;
    }
  }
}

// ---- an arm wearing a one-joint device -----------------------------------------

// A fixed-base arm: base -> upper (shoulder, about y). The device's mount is
// strapped to the base, its cuff to the upper arm, its hinge on the shoulder.
// The servo holds the shoulder at its initial 0.6 rad. The device's joint
// has no friction, so a still device's motor torque is -(1 - g_v) G_d + k_a s.
std::string armScene(double virtual_gravity, double assist, const std::string& robot_extra = "",
                     const std::string& sensors = "") {
  char device[1200];
  std::snprintf(device, sizeof device, R"(
    <exoskeleton name="dev" rate="1000">
      <segment name="mount" link="base" mass="0.5" com="0 0 0.05" inertia="0.002 0.002 0.002 0 0 0"/>
      <segment name="cuff" link="upper" parent="mount" joint="shoulder" mass="0.4" com="0.03 0 -0.2"
               inertia="0.003 0.003 0.0005 0 0 0" motor_constant="0.1" armature="0.01"
               virtual_inertia="0.05" virtual_viscous="0" virtual_gravity="%g" virtual_coulomb="0" assist="%g"/>
      <strap segment="mount" points="0.05 0 0.05; -0.05 0 0.05; 0 0.05 0.05" stiffness="1e5" damping="100"/>
      <strap segment="cuff" points="0 0 -0.1; 0 0 -0.25" stiffness="1e5" damping="100"/>
    </exoskeleton>)",
                virtual_gravity, assist);
  return std::string(R"(<?xml version="1.0"?>
<scene name="arm_device">
  <simulation integrator="velocity_verlet" dt="1e-4" duration="3"/>
  <robot name="arm" base="fixed")" + robot_extra + R"(>
    <link name="base"/>
    <link name="upper" mass="1.2" com="0 0 -0.15" inertia="0.01 0.011 0.002 0 0 0"/>
    <joint name="shoulder" type="revolute" parent="base" child="upper" axis="0 1 0" lower="-2" upper="2"/>
    <initial angles="shoulder:0.6"/>
    <actuation motor_constant="0.15"/>
    <servo kp="400" kd="8" rate="1000"/>)") +
         device + sensors + R"(
  </robot>
</scene>
)";
}

struct Hold {
  double angle = 0.0;           // robot shoulder (rad)
  double device_angle = 0.0;    // device hinge (rad)
  double strap_torque = 0.0;    // on the robot's shoulder (N m)
  double wearer_torque = 0.0;   // the servo's desired torque (N m)
  double initial_strap = 0.0;   // |strap force| at the start, summed (N)
  double initial_device_angle = 0.0;
};

Hold hold(double virtual_gravity, double assist, const std::string& tag) {
  const fs::path path = fs::path(::testing::TempDir()) / ("suitsim_exo_" + tag + ".xml");
  std::ofstream(path) << armScene(virtual_gravity, assist);
  const io::Scene scene = io::loadScene(path.string());
  const Model& m = scene.model;
  experiment::TrialRunner runner(scene, 1);
  runner.start();
  Hold out;
  const int shoulder = findHinge(m, "shoulder"), cuff = findHinge(m, "dev.cuff");
  out.initial_device_angle = jointAngle(m, runner.state(), cuff);
  std::vector<double> torque;
  Workspace probe(m);
  Vec3Array acc;
  acc.assign(m.num_particles, 0.0);
  const State& s0 = runner.state();
  computeAcceleration(m, s0, {s0.position.x.data(), s0.position.y.data(), s0.position.z.data(), s0.velocity.x.data(),
                              s0.velocity.y.data(), s0.velocity.z.data()},
                      probe, acc);
  for (int s = 0; s < m.num_straps; ++s) {
    const Vec3 f = probe.strap_force.get(s);
    out.initial_strap += std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  }
  const long steps = std::lround(scene.simulation.duration / scene.simulation.dt);
  for (long k = 0; k < steps; ++k) runner.advance();
  strapJointTorques(m, runner.state(), torque);
  out.angle = jointAngle(m, runner.state(), shoulder);
  out.device_angle = jointAngle(m, runner.state(), cuff);
  out.strap_torque = torque[shoulder];
  out.wearer_torque = runner.servo()->desiredTorque()[shoulder];
  return out;
}

// The moment about the shoulder's y axis of the cuff's weight: its centre
// (0.03, 0, -0.2) in the upper arm's frame turned by q about y, m g r_x.
double cuffGravityMoment(double q) { return 0.4 * 9.81 * (0.03 * std::cos(q) + (-0.2) * std::sin(q)); }

TEST(Exoskeleton, IsBuiltOnTheJointItLinesUpWith) {
  const Hold h = hold(1.0, 0.0, "built");
  EXPECT_NEAR(h.initial_device_angle, 0.6, 1e-12);  // reads as the robot's joint
  EXPECT_LT(h.initial_strap, 1e-9);                 // every strap starts unstretched
}

TEST(Exoskeleton, WithFullVirtualGravityTheRobotCarriesTheDevicesWeightMoment) {
  const Hold h = hold(1.0, 0.0, "gravity1");
  EXPECT_NEAR(h.device_angle, h.angle, 1e-4);
  const double expected = cuffGravityMoment(h.angle);
  EXPECT_NEAR(h.strap_torque, expected, 2e-3 * std::abs(expected)) << "expected " << expected;
}

TEST(Exoskeleton, CancellingItsGravityLeavesTheRobotNothingToCarry) {
  const Hold h = hold(0.0, 0.0, "gravity0");
  EXPECT_NEAR(h.strap_torque, 0.0, 2e-3 * std::abs(cuffGravityMoment(h.angle)));
}

TEST(Exoskeleton, TheAssistGivesItsShareOfTheWearersTorque) {
  const Hold h = hold(0.0, 0.3, "assist");
  ASSERT_GT(std::abs(h.wearer_torque), 0.1);
  EXPECT_NEAR(h.strap_torque, 0.3 * h.wearer_torque, 3e-3 * std::abs(h.wearer_torque))
      << "wearer " << h.wearer_torque;
}

// The device logs the attitude its controller reads with its encoders: the
// gravity vector in its root segment's frame. The arm's fixed base is
// rolled by 0.3 rad, the mount strapped on it, so the mount's frame is the
// base's but for the straps' give under the mount's and the hinge's loads
// (stiff straps: well under a milliradian).
TEST(Exoskeleton, LogsTheAttitudeOfItsRootWithItsEncoders) {
  const fs::path path = fs::path(::testing::TempDir()) / "suitsim_exo_attitude.xml";
  std::ofstream(path) << armScene(0.5, 0.0, " rpy=\"0.3 0 0\"",
                                  "<sensors rate=\"1000\" noise=\"off\"><encoders/></sensors>");
  const io::Scene scene = io::loadScene(path.string());
  ASSERT_TRUE(scene.robot && scene.robot->sensors);
  ASSERT_EQ(scene.robot->sensors->attitudes.size(), 1u);
  EXPECT_EQ(scene.robot->sensors->attitudes[0].name, "dev.mount");
  experiment::TrialRunner runner(scene, 1);
  runner.start();
  for (int k = 0; k < 2000; ++k) runner.advance();
  Sensors sensors(scene.model, *scene.robot->sensors, scene.simulation.dt);
  std::vector<double> row(sensors.columns().size());
  sensors.sample(runner.state(), row.data());
  const auto column = [&](const std::string& name) {
    const auto it = std::find(sensors.columns().begin(), sensors.columns().end(), name);
    EXPECT_NE(it, sensors.columns().end()) << name;
    return row[static_cast<std::size_t>(it - sensors.columns().begin())];
  };
  const double g = 9.81, roll = 0.3;
  // R_x(roll)^T (0, 0, -g).
  EXPECT_NEAR(column("dev.mount.gravity.x[m/s^2]"), 0.0, 5e-3);
  EXPECT_NEAR(column("dev.mount.gravity.y[m/s^2]"), -g * std::sin(roll), 5e-3);
  EXPECT_NEAR(column("dev.mount.gravity.z[m/s^2]"), -g * std::cos(roll), 5e-3);
  // Without encoders the device logs nothing of its own.
  std::ofstream(path, std::ios::trunc) << armScene(0.5, 0.0, "", "<sensors rate=\"1000\"><currents/></sensors>");
  EXPECT_TRUE(io::loadScene(path.string()).robot->sensors->attitudes.empty());
}

}  // namespace
}  // namespace suitsim
