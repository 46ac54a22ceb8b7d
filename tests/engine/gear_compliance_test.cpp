// Compliant gears with backlash (engine/src/gear_train.h): the rotor is a
// degree of freedom of its own on the gear's spring. Checked against closed
// forms: the two-inertia mode's frequency, the twist that carries a
// constant torque, the time the rotor takes to cross the dead band, the sag
// a motor-side encoder cannot see; energy and momentum; the stability
// check; and every bad parameter's message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "robots.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/robot/robot.h"
#include "suitsim/servo.h"
#include "suitsim/servo_stability.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

// The single pendulum of robots.h: 1.3 kg at 0.6 m plus 0.02 kg m^2 about
// its centre, 0.488 kg m^2 about the joint.
constexpr double kMass = 1.3, kLength = 0.6;
constexpr double kLinkInertia = 0.02 + kMass * kLength * kLength;

struct Arm {
  Model model;
  int hinge = -1;
};

Arm armWith(const JointActuation& actuation, bool gravity = false, double angle = 0.0) {
  RobotDescription robot = testing::singlePendulum(kMass, kLength);
  RobotJoint& joint = robot.joints[robot.findJoint("hinge")];
  joint.type = JointType::kContinuous;
  joint.actuation = actuation;
  ModelBuilder builder;
  builder.setGravity(gravity ? Vec3{0.0, 0.0, -9.81} : Vec3{0.0, 0.0, 0.0});
  RobotPose pose;
  pose.joint_angles = {angle};
  const CompiledRobot compiled = addRobot(builder, robot, pose, {}, {});
  Arm arm{builder.build(), -1};
  arm.hinge = compiled.joint_hinge[robot.findJoint("hinge")];
  return arm;
}

JointActuation compliant(double armature, double stiffness, double backlash = 0.0, double damping = 0.0) {
  JointActuation a;
  a.armature = armature;
  a.gear_stiffness = stiffness;
  a.gear_backlash = backlash;
  a.gear_damping = damping;
  return a;
}

// A twisted gear released: rotor and link swing against each other at
// omega^2 = k (1 / I_a + 1 / I_link) and their angular momentum stays zero
// (no damper, no dead band). The spring is implicit over the step
// (gear_train.h): under symplectic Euler the twist steps as by backward
// Euler, whose amplitude falls by 1 / sqrt(1 + (omega dt)^2) a step, so the
// energy after k steps is E_0 / (1 + (omega dt)^2)^k; Verlet and RK4 agree
// with that to O((omega dt)^3) a step.
TEST(GearCompliance, TwoInertiaModeHasItsClosedFormFrequency) {
  const double armature = 0.05, stiffness = 1000.0;
  const Arm arm = armWith(compliant(armature, stiffness));
  const double omega = std::sqrt(stiffness * (1.0 / armature + 1.0 / kLinkInertia));
  for (const Integrator integrator : {Integrator::kRk4, Integrator::kVelocityVerlet, Integrator::kSemiImplicitEuler}) {
    State state = makeState(arm.model);
    Workspace ws(arm.model);
    const double theta0 = jointAngle(arm.model, state, arm.hinge);
    state.rotor_angle[arm.hinge] = theta0 + 0.01;
    const double e0 = computeEnergy(arm.model, state).total();
    EXPECT_NEAR(e0, 0.5 * stiffness * 0.01 * 0.01, 1e-12);
    const double dt = 1e-5;
    double previous = 0.01, first = -1.0, last = -1.0, worst_momentum = 0.0, worst_energy = 0.0;
    int crossings = 0;
    for (int k = 1; k <= 200000; ++k) {
      step(arm.model, state, ws, integrator, dt);
      const double twist = state.rotor_angle[arm.hinge] - jointAngle(arm.model, state, arm.hinge);
      if (previous > 0.0 && twist <= 0.0) {  // a downward zero crossing, interpolated
        const double t = (k - 1 + previous / (previous - twist)) * dt;
        if (first < 0.0) first = t;
        last = t;
        ++crossings;
      }
      previous = twist;
      const double momentum = armature * state.rotor_velocity[arm.hinge] +
                              kLinkInertia * jointVelocity(arm.model, state, arm.hinge);
      worst_momentum = std::max(worst_momentum, std::abs(momentum));
      const double expected_energy = e0 * std::pow(1.0 + omega * omega * dt * dt, -k);
      worst_energy = std::max(worst_energy, std::abs(computeEnergy(arm.model, state).total() - expected_energy));
    }
    ASSERT_GE(crossings, 10);
    const double period = (last - first) / (crossings - 1);
    const double expected = 2.0 * std::acos(-1.0) / omega;
    std::printf("[measured] integrator %d: period %.9g s vs %.9g s (%.2e relative); |momentum| <= %.2e; energy "
                "off the scheme's decay by <= %.2e of %.3g J\n",
                static_cast<int>(integrator), period, expected, period / expected - 1.0, worst_momentum, worst_energy,
                e0);
    EXPECT_NEAR(period / expected, 1.0, 1e-4);
    EXPECT_LT(worst_momentum, 1e-6 * armature * omega * 0.01);
    EXPECT_LT(worst_energy, 1e-3 * e0);
  }
}

// A constant motor torque on a damped gear: both turn at tau / (I_a + I_link)
// and, once the mode has died out, the gear carries the link's share,
// twist = tau I_link / ((I_a + I_link) k).
TEST(GearCompliance, ConstantTorqueTwistsTheGearByTheLinksShare) {
  const double armature = 0.05, stiffness = 2000.0;
  const double damping = 2.0 * 0.5 * std::sqrt(stiffness * armature);
  const Arm arm = armWith(compliant(armature, stiffness, 0.0, damping));
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  const double torque = 3.0, dt = 1e-5;
  state.hinge_current[arm.hinge] = torque;  // k_T = 1
  const double start = jointAngle(arm.model, state, arm.hinge);
  const int steps = 100000;
  for (int k = 0; k < steps; ++k) step(arm.model, state, ws, Integrator::kRk4, dt);
  const double t = steps * dt, total = armature + kLinkInertia;
  const double twist = state.rotor_angle[arm.hinge] - jointAngle(arm.model, state, arm.hinge);
  const double expected_twist = torque * kLinkInertia / (total * stiffness);
  // The link lags the rigid pair by the twist's build-up: theta = tau t^2 /
  // (2 I) - (its share of the twist), the rotor leads by the rest.
  const double centre = (armature * state.rotor_angle[arm.hinge] + kLinkInertia * jointAngle(arm.model, state, arm.hinge)) /
                        total - start;
  std::printf("[measured] twist %.9g rad vs %.9g; centre of inertia turned %.9g rad vs %.9g\n", twist,
              expected_twist, centre, 0.5 * torque / total * t * t);
  EXPECT_NEAR(twist, expected_twist, 1e-6 * expected_twist);
  EXPECT_NEAR(centre, 0.5 * torque / total * t * t, 1e-7);
  EXPECT_NEAR(jointVelocity(arm.model, state, arm.hinge), torque / total * t, 1e-6);
}

// In the dead band the teeth do not touch: a rotor driven from the band's
// middle turns alone, d = tau t^2 / (2 I_a), until it meets the link at
// t* = sqrt(2 d I_a / tau); the link does not move before.
TEST(GearCompliance, RotorCrossesTheBacklashBeforeTheLinkMoves) {
  const double armature = 0.02, stiffness = 5000.0, backlash = 0.004;  // dead band +-0.002 rad
  const Arm arm = armWith(compliant(armature, stiffness, backlash));
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  const double torque = 0.5, dt = 1e-5;
  state.hinge_current[arm.hinge] = torque;
  const double start = jointAngle(arm.model, state, arm.hinge);
  const double contact = std::sqrt(2.0 * 0.5 * backlash * armature / torque);
  double moved_at = -1.0;
  for (int k = 1; k <= 5000; ++k) {
    step(arm.model, state, ws, Integrator::kRk4, dt);
    const double t = k * dt;
    const double link = jointAngle(arm.model, state, arm.hinge) - start;
    if (moved_at < 0.0 && std::abs(link) > 1e-12) moved_at = t;
    if (t < contact - 2 * dt) {
      EXPECT_NEAR(state.rotor_angle[arm.hinge] - start, 0.5 * torque / armature * t * t, 1e-5 * backlash);
    }
  }
  std::printf("[measured] the link first moved at %.6g s; the rotor meets it at %.6g s\n", moved_at, contact);
  EXPECT_NEAR(moved_at, contact, 3 * dt);
  EXPECT_GT(jointAngle(arm.model, state, arm.hinge) - start, 0.0);
}

// A servo holding a horizontal pendulum: with the encoder on the link the
// link sits tau_g / kp from the reference; with it on the motor the rotor
// does, and the link sags by the gear's twist tau_g / k more, which the
// encoder does not see.
TEST(GearCompliance, MotorSideEncoderDoesNotSeeTheGearsSag) {
  const double armature = 0.05, stiffness = 800.0, kp = 3000.0;
  double sag[2] = {0.0, 0.0}, reading[2] = {0.0, 0.0}, reference = 0.0;
  double load = 0.0;
  for (const bool on_motor : {false, true}) {
    JointActuation a = compliant(armature, stiffness, 0.0, 2.0 * 0.7 * std::sqrt(stiffness * armature));
    a.encoder_on_motor = on_motor;
    const double half_pi = 0.5 * std::acos(-1.0);
    const Arm arm = armWith(a, true, half_pi);
    State state = makeState(arm.model);
    Workspace ws(arm.model);
    reference = jointAngle(arm.model, state, arm.hinge);
    std::vector<ServoGains> gains(arm.model.num_hinges);
    gains[arm.hinge] = {kp, 2.0 * std::sqrt(kp * (armature + kLinkInertia))};
    JointServo servo(arm.model, state, Motion{}, gains, 1000.0);
    for (int k = 0; k < 200000; ++k) {
      servo.update(arm.model, state);
      step(arm.model, state, ws, Integrator::kRk4, 1e-5);
    }
    const double theta = jointAngle(arm.model, state, arm.hinge);
    load = kMass * 9.81 * kLength * std::sin(theta);  // what holds it: tau = m g l sin theta
    sag[on_motor] = theta - reference;
    reading[on_motor] = encoderAngle(arm.model, state, arm.hinge) - reference;
    std::printf("[measured] encoder on the %s: link %.9g rad from the reference, encoder reads %.9g\n",
                on_motor ? "motor" : "link", sag[on_motor], reading[on_motor]);
  }
  // The gravity torque pulls theta down (theta'' = -m g l sin theta / I): the servo answers tau = load.
  EXPECT_NEAR(sag[0], -load / kp, 1e-3 * load / kp);
  EXPECT_NEAR(reading[0], sag[0], 1e-12);
  EXPECT_NEAR(reading[1], -load / kp, 1e-3 * load / kp);
  EXPECT_NEAR(sag[1] - reading[1], -load / stiffness, 1e-3 * load / stiffness);
}

// A stiff gear is the rigid rotor: the same motion as the armature row.
TEST(GearCompliance, StiffGearApproachesTheRigidRotor) {
  const double armature = 0.05, torque = 2.0, dt = 1e-5;
  double angle[2] = {0.0, 0.0};
  for (const bool stiff_gear : {false, true}) {
    const Arm arm = armWith(stiff_gear ? compliant(armature, 1e6, 0.0, 2.0 * std::sqrt(1e6 * armature)) : compliant(armature, 0.0));
    State state = makeState(arm.model);
    Workspace ws(arm.model);
    state.hinge_current[arm.hinge] = torque;
    const double start = jointAngle(arm.model, state, arm.hinge);
    for (int k = 0; k < 50000; ++k) step(arm.model, state, ws, Integrator::kRk4, dt);
    angle[stiff_gear] = jointAngle(arm.model, state, arm.hinge) - start;
  }
  // The link lags the rigid pair by its share of the twist, tau I_link / ((I_a + I_link) k) I_a / (I_a + I_link).
  const double total = armature + kLinkInertia;
  const double lag = torque * kLinkInertia / (total * 1e6) * armature / total;
  std::printf("[measured] rigid %.12g rad, stiff gear %.12g rad (lag %.3g, expected %.3g)\n", angle[0], angle[1],
              angle[0] - angle[1], lag);
  EXPECT_NEAR(angle[0] - angle[1], lag, 0.05 * lag);
}

TEST(GearCompliance, GearModeAndItsBound) {
  const double armature = 0.05, stiffness = 1000.0;
  const Arm arm = armWith(compliant(armature, stiffness));
  const std::vector<GearMode> modes = gearModes(arm.model);
  ASSERT_EQ(modes.size(), 1u);
  EXPECT_EQ(modes[0].hinge, arm.hinge);
  EXPECT_NEAR(modes[0].link_inertia, kLinkInertia, 1e-9);
  EXPECT_NEAR(modes[0].omega, std::sqrt(stiffness * (1.0 / armature + 1.0 / kLinkInertia)), 1e-6);
  EXPECT_EQ(modes[0].damping_ratio, 0.0);
  EXPECT_EQ(modes[0].bound, 2.0);
  EXPECT_TRUE(gearModes(armWith(compliant(armature, 0.0)).model).empty());
  // A damper lowers the bound: zeta = b / (2 sqrt(k I_red)).
  const double reduced = 1.0 / (1.0 / armature + 1.0 / kLinkInertia);
  const GearMode damped = gearModes(armWith(compliant(armature, stiffness, 0.0, 2.0 * 0.5 * std::sqrt(stiffness * reduced))).model)[0];
  EXPECT_NEAR(damped.damping_ratio, 0.5, 1e-9);
  EXPECT_NEAR(damped.bound, 2.0 * (std::sqrt(1.25) - 0.5), 1e-9);
}

// The spring is implicit over the step (gear_train.h): far past the
// explicit bound (omega dt = 2) a released twist dies out instead of
// growing, with every integrator, and the pair's angular momentum stays
// zero; under a constant torque the pair turns as the rigid pair does,
// tau t^2 / (2 (I_a + I_link)), and the gear settles at the link's share
// of the twist, tau I_link / ((I_a + I_link) k), as at a fine step.
TEST(GearCompliance, ImplicitSpringIsStableFarPastTheExplicitBound) {
  // At a protocol's step (the arm's own particles take dt = 1e-3 at most),
  // gears stiff enough for omega dt = 2.2, 10 and 50.
  const double armature = 0.05, dt = 5e-4;
  const double inverse = 1.0 / armature + 1.0 / kLinkInertia;
  for (const double omega_dt : {2.2, 10.0, 50.0}) {
    const double stiffness = (omega_dt / dt) * (omega_dt / dt) / inverse;
    const Arm arm = armWith(compliant(armature, stiffness));
    ASSERT_NEAR(gearModes(arm.model)[0].omega * dt, omega_dt, 1e-9 * omega_dt);
    for (const Integrator integrator : {Integrator::kRk4, Integrator::kVelocityVerlet, Integrator::kSemiImplicitEuler}) {
      State state = makeState(arm.model);
      Workspace ws(arm.model);
      const double theta0 = jointAngle(arm.model, state, arm.hinge);
      state.rotor_angle[arm.hinge] = theta0 + 1e-4;
      double worst_momentum = 0.0;
      for (int k = 0; k < 200; ++k) {
        step(arm.model, state, ws, integrator, dt);
        worst_momentum = std::max(worst_momentum, std::abs(armature * state.rotor_velocity[arm.hinge] +
                                                           kLinkInertia * jointVelocity(arm.model, state, arm.hinge)));
      }
      const double twist = state.rotor_angle[arm.hinge] - jointAngle(arm.model, state, arm.hinge);
      std::printf("[measured] omega dt %.3g, integrator %d: twist 1e-4 -> %.3g rad after 200 steps; |momentum| <= %.2e\n",
                  omega_dt, static_cast<int>(integrator), twist, worst_momentum);
      EXPECT_LT(std::abs(twist), 1e-6);
      EXPECT_LT(worst_momentum, 1e-9);
    }
  }
  // A constant torque at omega dt = 10 against the closed form.
  const double stiffness = (10.0 / dt) * (10.0 / dt) / inverse;
  const Arm damped = armWith(compliant(armature, stiffness, 0.0, 2.0 * 0.5 * std::sqrt(stiffness * armature)));
  for (const Integrator integrator : {Integrator::kRk4, Integrator::kVelocityVerlet, Integrator::kSemiImplicitEuler}) {
    State state = makeState(damped.model);
    Workspace ws(damped.model);
    const double torque = 3.0;
    state.hinge_current[damped.hinge] = torque;
    const double start = jointAngle(damped.model, state, damped.hinge);
    const int steps = 1000;
    for (int k = 0; k < steps; ++k) step(damped.model, state, ws, integrator, dt);
    const double t = steps * dt, total = armature + kLinkInertia;
    const double link = jointAngle(damped.model, state, damped.hinge);
    const double twist = state.rotor_angle[damped.hinge] - link;
    const double centre = (armature * state.rotor_angle[damped.hinge] + kLinkInertia * link) / total - start;
    const double expected_twist = torque * kLinkInertia / (total * stiffness);
    std::printf("[measured] omega dt 10, integrator %d: twist %.9g rad vs %.9g; centre of inertia turned %.9g rad vs %.9g\n",
                static_cast<int>(integrator), twist, expected_twist, centre, 0.5 * torque / total * t * t);
    // RK4 gives the twist to 2e-4; Verlet and symplectic Euler 2.3 % low
    // (3.5e-9 rad on 1.5e-7, the link's angle read from its particles while
    // it turns at 3 rad/s). Symplectic Euler's centre is first order (1e-3).
    const bool rk4 = integrator == Integrator::kRk4;
    EXPECT_NEAR(twist, expected_twist, (rk4 ? 1e-3 : 0.03) * expected_twist);
    EXPECT_NEAR(centre, 0.5 * torque / total * t * t,
                (integrator == Integrator::kSemiImplicitEuler ? 2e-3 : 1e-5) * 0.5 * torque / total * t * t);
  }
}

TEST(GearCompliance, BadParametersAreRefusedWithTheirReason) {
  const auto message = [](const JointActuation& a) -> std::string {
    try {
      armWith(a);
    } catch (const ModelError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(compliant(0.0, 1000.0)).find("a compliant gear needs the rotor's inertia (armature > 0)"),
            std::string::npos);
  EXPECT_NE(message(compliant(0.05, -1.0)).find("gear stiffness, backlash and damping must be finite and >= 0"),
            std::string::npos);
  EXPECT_NE(message(compliant(0.05, 1000.0, std::nan(""))).find("must be finite and >= 0"), std::string::npos);
  EXPECT_NE(message(compliant(0.05, 0.0, 0.001)).find("need a compliant gear (gear stiffness > 0)"),
            std::string::npos);
  JointActuation a = compliant(0.05, 0.0);
  a.encoder_on_motor = true;
  EXPECT_NE(message(a).find("need a compliant gear"), std::string::npos);
}

}  // namespace
}  // namespace suitsim
