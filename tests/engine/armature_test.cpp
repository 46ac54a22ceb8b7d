// Armature (a motor's rotor reflected through its gear train, engine/src/
// hinges.cpp): the joint responds as a joint of inertia I + I_a, the robot's
// momentum stays internal, the energy counts the rotors, static friction
// still holds and lets go, and the servo check sees the added inertia.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "robots.h"
#include "run_helpers.h"
#include "suitsim/sensors.h"
#include "suitsim/articulated.h"
#include "suitsim/servo_stability.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

// The single pendulum of robots.h without gravity: 1.3 kg at 0.6 m plus
// 0.02 kg m^2 about its centre, 0.488 kg m^2 about the joint.
constexpr double kLinkInertia = 0.02 + 1.3 * 0.6 * 0.6;

struct Arm {
  Model model;
  int hinge = -1;
};
Arm armWith(const JointActuation& actuation) {
  RobotDescription robot = testing::singlePendulum();
  RobotJoint& joint = robot.joints[robot.findJoint("hinge")];
  joint.type = JointType::kContinuous;
  joint.actuation = actuation;
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});
  const CompiledRobot compiled = addRobot(builder, robot, {}, {}, {});
  Arm arm{builder.build(), -1};
  arm.hinge = compiled.joint_hinge[robot.findJoint("hinge")];
  return arm;
}

// A constant motor torque: theta = tau t^2 / (2 (I + I_a)), and the work
// tau theta is the kinetic energy of link and rotor together.
TEST(Armature, ConstantTorqueTurnsLinkAndRotorTogether) {
  for (const double armature : {0.0, 0.05, 0.5, 5.0}) {
    JointActuation a;
    a.armature = armature;
    const Arm arm = armWith(a);
    State state = makeState(arm.model);
    Workspace ws(arm.model);
    const double torque = 3.0;
    state.hinge_current[arm.hinge] = torque;  // k_T = 1
    const double dt = 1e-4;
    const double start = jointAngle(arm.model, state, arm.hinge);
    double worst = 0.0;
    for (int k = 1; k <= 10000; ++k) {
      step(arm.model, state, ws, Integrator::kRk4, dt);
      const double t = k * dt;
      const double expected = 0.5 * torque / (kLinkInertia + armature) * t * t;
      worst = std::max(worst, std::abs(jointAngle(arm.model, state, arm.hinge) - start - expected));
    }
    const double turned = jointAngle(arm.model, state, arm.hinge) - start;
    const Energy e = computeEnergy(arm.model, state);
    std::printf("[measured] armature %g kg m^2: worst angle error %.3g rad over 1 s (turned %.3f rad); kinetic "
                "%.9g J vs work %.9g J\n",
                armature, worst, turned, e.kinetic, torque * turned);
    EXPECT_LT(worst, 1e-8) << "armature " << armature;
    EXPECT_NEAR(e.kinetic, torque * turned, 1e-6 * torque * turned) << "armature " << armature;
  }
}

// Static friction holds a torque below tau_s^max (the rotor adds nothing at
// rest) and, past it, lets go: then theta'' = (tau - tau_c) / (I + I_a).
TEST(Armature, StaticFrictionHoldsAndLetsGoWithTheRotorRow) {
  JointActuation a;
  a.coulomb = 1.0;
  a.static_max = 2.0;
  a.armature = 0.3;
  {
    const Arm arm = armWith(a);
    State state = makeState(arm.model);
    Workspace ws(arm.model);
    state.hinge_current[arm.hinge] = 1.5;
    const double start = jointAngle(arm.model, state, arm.hinge);
    for (int k = 0; k < 5000; ++k) step(arm.model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    EXPECT_NEAR(jointAngle(arm.model, state, arm.hinge), start, 1e-6);
  }
  const Arm arm = armWith(a);
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  const double torque = 3.0;
  state.hinge_current[arm.hinge] = torque;
  const double start = jointAngle(arm.model, state, arm.hinge);
  const double dt = 1e-4;
  for (int k = 0; k < 5000; ++k) step(arm.model, state, ws, Integrator::kVelocityVerlet, dt);
  const double t = 5000 * dt;
  const double expected = 0.5 * (torque - a.coulomb) / (kLinkInertia + a.armature) * t * t;
  // The first step breaks loose at tau_c (no Stribeck term): one step's
  // difference at most.
  EXPECT_NEAR(jointAngle(arm.model, state, arm.hinge) - start, expected, 1e-3 * expected);
  EXPECT_NEAR(jointVelocity(arm.model, state, arm.hinge), (torque - a.coulomb) / (kLinkInertia + a.armature) * t,
              2e-3 * (torque - a.coulomb) / (kLinkInertia + a.armature) * t);
}

// The rotor's torque is an internal pair: a floating robot with armature on
// every joint, spinning and drifting with motor torques on its joints and
// nothing from outside, keeps its linear and angular momentum; with the
// motors off, its energy (rotors included) is conserved to the integrator's
// order.
TEST(Armature, FloatingRobotKeepsMomentumAndEnergy) {
  RobotDescription robot = testing::floatingHumanoid();
  for (RobotJoint& joint : robot.joints) joint.actuation.armature = 0.08;
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int b = 0; b < model.num_bodies; ++b) {
    const Vec3 velocity{0.4 * u(rng), 0.4 * u(rng), 0.4 * u(rng)};
    for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) state.velocity.set(i, velocity);
  }
  {
    State driven = state;
    Workspace ws(model);
    for (int h = 0; h < model.num_hinges; ++h) driven.hinge_current[h] = 2.0 * u(rng);
    testing::MomentumDrift drift(model, driven);
    for (int k = 0; k < 2000; ++k) {
      step(model, driven, ws, Integrator::kVelocityVerlet, 1e-4);
      drift.add(driven);
    }
    ASSERT_TRUE(stateIsFinite(driven));
    std::printf("[measured] floating robot with armature, motors on: momentum drift linear %.3g, angular %.3g\n",
                drift.linear(), drift.angular());
    EXPECT_LT(drift.linear(), 1e-10);
    EXPECT_LT(drift.angular(), 1e-10);
  }
  // Energy: from rest in the built pose (on the constraints), the motors
  // spin the joints up for 0.2 s and are switched off; then nothing acts.
  state = makeState(model);
  Workspace ws(model);
  for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 1.0 * u(rng);
  for (int k = 0; k < 2000; ++k) step(model, state, ws, Integrator::kRk4, 1e-4);
  for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 0.0;
  const double e0 = computeEnergy(model, state).total();
  double rotor = 0.0;
  for (int h = 0; h < model.num_hinges; ++h) {
    const double rate = jointVelocity(model, state, h);
    rotor += 0.5 * model.hinge_armature[h] * rate * rate;
  }
  ASSERT_GT(rotor, 0.1 * std::abs(e0));  // the rotors carry a share worth checking
  for (int k = 0; k < 10000; ++k) step(model, state, ws, Integrator::kRk4, 1e-4);
  const double e1 = computeEnergy(model, state).total();
  std::printf("[measured] floating robot with armature, 1 s RK4: energy %.9g -> %.9g J (rotors %.3g J)\n", e0, e1,
              rotor);
  EXPECT_NEAR(e1, e0, 1e-6 * std::abs(e0));
}

// The servo check's effective inertia of a joint gains its armature: for
// the pendulum on a fixed base, exactly I + I_a.
TEST(Armature, ServoCheckSeesTheRotor) {
  JointActuation a;
  a.armature = 0.7;
  const Arm arm = armWith(a);
  const std::vector<double> inertia = hingeEffectiveInertia(arm.model);
  EXPECT_NEAR(inertia[arm.hinge], kLinkInertia + 0.7, 1e-9);
}

// The gear train's efficiency (docs/realism.md): a motor driving the arm
// passes eta_f of its torque; braking it (the arm drives the motor) the link
// feels 1 / eta_b of it. Closed forms: theta'' = eta_f tau / I, then the
// deceleration tau / (eta_b I).
TEST(GearEfficiency, DrivingPassesEtaFAndBackdrivingOneOverEtaB) {
  JointActuation a;
  a.gear_efficiency = 0.8;
  a.backdrive_efficiency = 0.6;
  a.gear_transition_velocity = 1e-3;
  const Arm arm = armWith(a);
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  const double dt = 1e-4, torque = 2.0;
  state.hinge_current[arm.hinge] = torque;
  // Past the transition (1e-3 rad/s within the first millisecond), driving.
  for (int k = 0; k < 100; ++k) step(arm.model, state, ws, Integrator::kRk4, dt);
  const double w0 = jointVelocity(arm.model, state, arm.hinge);
  for (int k = 0; k < 5000; ++k) step(arm.model, state, ws, Integrator::kRk4, dt);
  const double driving = (jointVelocity(arm.model, state, arm.hinge) - w0) / (5000 * dt);
  EXPECT_NEAR(driving, 0.8 * torque / kLinkInertia, 1e-6 * torque / kLinkInertia);
  // Now brake: the motor pushes against the motion, the link drives it.
  state.hinge_current[arm.hinge] = -torque;
  const double w1 = jointVelocity(arm.model, state, arm.hinge);
  for (int k = 0; k < 2000; ++k) step(arm.model, state, ws, Integrator::kRk4, dt);
  const double braking = (jointVelocity(arm.model, state, arm.hinge) - w1) / (2000 * dt);
  ASSERT_GT(jointVelocity(arm.model, state, arm.hinge), 0.01);  // still turning the same way
  EXPECT_NEAR(braking, -torque / (0.6 * kLinkInertia), 1e-6 * torque / kLinkInertia);
  // Out of range: refused by name.
  JointActuation bad;
  bad.gear_efficiency = 1.2;
  EXPECT_THROW(armWith(bad), ModelError);
}

// A <mimic> follower has no rotor of its own: the builder refuses one.
// A winding that heats (JointActuation::km, motor_heating.cpp) under a
// constant current: C dT' = P0 (1 + alpha_Cu dT) - dT / R_th, linear in dT,
// so dT = A e^{bt} + B, and the link turns under k_T (1 + alpha dT) u:
// theta = (k_T u / I) [t^2/2 + alpha (A (e^{bt} - 1 - bt) / b^2 + B t^2/2)].
TEST(MotorHeating, WindingRiseAndTorqueFollowTheFirstOrderThermalModel) {
  JointActuation a;
  a.km = 2.0;                  // N m / sqrt(W)
  a.thermal_resistance = 10.0;  // K/W
  a.thermal_time_constant = 0.5;
  a.magnet_coefficient = -0.02;  // exaggerated so that the torque's fall shows
  a.initial_winding_rise = 5.0;
  const Arm arm = armWith(a);
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  const double u = 3.0;  // A, k_T = 1
  state.hinge_current[arm.hinge] = u;
  const double p0 = u * u / (a.km * a.km), capacity = a.thermal_time_constant / a.thermal_resistance;
  const double ra = p0 / capacity, rb = (p0 * 0.00393 - 1.0 / a.thermal_resistance) / capacity;
  const double B = -ra / rb, A = a.initial_winding_rise - B;
  const double dt = 1e-4, start = jointAngle(arm.model, state, arm.hinge);
  double worst_rise = 0.0, worst_angle = 0.0;
  for (int k = 1; k <= 10000; ++k) {
    step(arm.model, state, ws, Integrator::kRk4, dt);
    const double t = k * dt;
    const double rise = A * std::exp(rb * t) + B;
    worst_rise = std::max(worst_rise, std::abs(state.hinge_winding_rise[arm.hinge] - rise));
    const double twice = A * (std::exp(rb * t) - 1.0 - rb * t) / (rb * rb) + B * t * t / 2.0;
    const double angle = u / kLinkInertia * (t * t / 2.0 + a.magnet_coefficient * twice);
    worst_angle = std::max(worst_angle, std::abs(jointAngle(arm.model, state, arm.hinge) - start - angle));
  }
  const double turned = jointAngle(arm.model, state, arm.hinge) - start;
  const double cold = 0.5 * u / kLinkInertia;  // what a constant k_T would have turned in 1 s
  std::printf("[measured] heating: rise %.4f K after 1 s (error %.3g K), angle %.5f rad vs %.5f cold (error %.3g rad)\n",
              state.hinge_winding_rise[arm.hinge], worst_rise, turned, cold, worst_angle);
  EXPECT_LT(worst_rise, 1e-9);
  // The torque uses the rise at the step's start: an O(dt) lag.
  EXPECT_LT(worst_angle, 1e-4);
  EXPECT_LT(turned, 0.8 * cold);  // the heating took more than a fifth of the torque
  // A cold, idle winding stays at ambient; one without current cools.
  state.hinge_current[arm.hinge] = 0.0;
  const double hot = state.hinge_winding_rise[arm.hinge];
  for (int k = 0; k < 5000; ++k) step(arm.model, state, ws, Integrator::kRk4, dt);
  EXPECT_NEAR(state.hinge_winding_rise[arm.hinge], hot * std::exp(-0.5 / a.thermal_time_constant), 1e-9 * hot);
}

// A thermistor in the winding reads ambient + rise, at the sample's
// instant, quantised to its resolution when the sensors are not ideal.
TEST(MotorHeating, WindingThermistorReadsAmbientPlusTheRise) {
  JointActuation a;
  a.km = 2.0;
  a.thermal_resistance = 10.0;
  a.thermal_time_constant = 0.5;
  a.magnet_coefficient = -0.001;
  a.initial_winding_rise = 3.0;
  const Arm arm = armWith(a);
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  state.hinge_current[arm.hinge] = 3.0;
  for (int k = 0; k < 2000; ++k) step(arm.model, state, ws, Integrator::kRk4, 1e-4);
  const double rise = state.hinge_winding_rise[arm.hinge];
  ASSERT_GT(rise, 3.5);  // it warmed
  SensorSpec spec;
  spec.rate = 100.0;
  spec.noise = false;
  spec.winding_temperatures.hinges = {arm.hinge};
  spec.winding_temperatures.names = {"elbow"};
  spec.winding_temperatures.ambient = 21.5;
  spec.winding_temperatures.resolution = 0.25;
  Sensors ideal(arm.model, spec, 1e-4);
  ASSERT_EQ(ideal.columns(), std::vector<std::string>{"elbow.winding_temperature[degC]"});
  double reading = 0.0;
  ideal.sample(state, &reading);
  EXPECT_EQ(reading, 21.5 + rise);  // ideal: no noise, no quantisation
  spec.noise = true;
  Sensors real(arm.model, spec, 1e-4);
  real.sample(state, &reading);
  EXPECT_EQ(reading, std::round((21.5 + rise) / 0.25) * 0.25);
}

TEST(MotorHeating, BadParametersAreRefused) {
  JointActuation a;
  a.km = 2.0;
  a.thermal_resistance = 0.0;
  a.thermal_time_constant = 1.0;
  try {
    armWith(a);
    ADD_FAILURE() << "accepted a heating winding without thermal resistance";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("motor heating needs km, thermal resistance and time constant"),
              std::string::npos)
        << e.what();
  }
  a.thermal_resistance = 1.0;
  a.magnet_coefficient = -0.01;
  a.initial_winding_rise = 200.0;  // k_T would be negative
  EXPECT_THROW(armWith(a), ModelError);
}

TEST(Armature, FollowerWithArmatureIsRefused) {
  RobotDescription robot = testing::doublePendulum();
  robot.joints[1].actuation.armature = 0.1;
  ModelBuilder builder;
  addRobot(builder, robot, {}, {}, {});
  CouplingSpec coupling;
  coupling.leader = 0;
  coupling.follower = 1;
  try {
    builder.addCoupling(coupling);
    FAIL() << "a follower with armature was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("no armature"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace suitsim
