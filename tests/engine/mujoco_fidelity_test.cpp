// An independent cross-check of the engine: JVRC-1 on a fixed base under a
// PD servo on all 44 joints, simulated by suitsim (particle clusters and
// rotation-plane hinges) and by MuJoCo 2.2.2 (generalized coordinates),
// each reading models/jvrc1/jvrc1.urdf itself. No contact, no friction, no
// limits, no bands: the two must then integrate the same ODE.
//
// The PD law is the same in both: tau = kp (q_ref - q) + kd (qd_ref - qd),
// computed from the simulator's own state before every step and held over
// the step (suitsim: JointServo at 1 / dt; MuJoCo: qfrc_applied, which its
// RK4 holds over the four stages). The reference is one Motion (smooth
// sinusoids sampled every 10 ms, cubic between samples) read by both.
// MuJoCo 2.2.2's URDF reader makes no equality of the fingers' <mimic>
// tags, so suitsim's couplings are dropped here too (the description's
// mimic fields cleared): the fingers are ordinary PD-held joints on both
// sides.
//
// Measured (3 s, worst joint-angle difference over the 44 joints, sampled
// every millisecond; printed as [measured] lines):
//   RK4 in both at dt = 2e-5 s:                          2.2e-12 rad
//   at the protocol's step, dt = 1e-4 s (a 10 kHz servo):
//     suitsim velocity Verlet vs MuJoCo RK4:             1.8e-5 rad
//     MuJoCo's semi-implicit Euler vs MuJoCo RK4:        7.3e-4 rad
// The first is round-off: the two engines integrate the same ODE (one
// link's mass changed by one part per million on one side, R_KNEE_S, makes
// it 4.2e-9 rad, so the check sees the model, not only the integrator). The
// second is mostly velocity Verlet's truncation error at 1e-4 s (second
// order, against fourth-order RK4 under the same held torques), 40 times
// smaller than that of MuJoCo's default integrator at the same step. Both are asserted with a margin (kRk4Bound,
// kVerletBound); MuJoCo's Euler figure is printed only.
#include <gtest/gtest.h>

#ifndef SUITSIM_HAVE_MUJOCO

TEST(MujocoFidelity, Jvrc1FixedBaseUnderPdServo) {
  GTEST_SKIP() << "MuJoCo was not found (or SUITSIM_WITH_MUJOCO was OFF) when this build was configured "
                  "(apt-get install libmujoco-dev, "
                  "or scripts/setup.sh, then configure again): the cross-check against MuJoCo is not built";
}

#else

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine_printers.h"
#include "jvrc_pd_crosscheck.h"
#include "robots.h"
#include "suitsim/builder.h"
#include "suitsim/articulated.h"
#include "suitsim/scene/urdf.h"
#include "suitsim/servo_stability.h"
#include "suitsim/servo.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

using testing::fixedJvrc;
using testing::kDuration;
using testing::makeReference;
using testing::MujocoJvrc;
using testing::Reference;
using testing::referenceMotion;
using testing::SuitsimJvrc;
using testing::worstDifference;

TEST(MujocoFidelity, BothReadTheSameMassesInertiasAndAxes) {
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  MujocoJvrc mj(ref, 2e-5, mjINT_RK4, referenceMotion(ref));
  const mjModel* m = mj.model();
  ASSERT_EQ(m->nv, static_cast<int>(ref.joints.size()));  // fixed base: one dof per joint
  EXPECT_EQ(m->neq, 0);    // <mimic> made no equality constraint
  EXPECT_EQ(m->ngeom, 0);  // no geometry: nothing to collide
  double total = 0.0;
  for (int b = 0; b < m->nbody; ++b) total += m->body_mass[b];
  EXPECT_NEAR(total, robot.totalMass(), 1e-12);
  std::printf("[measured] mass: suitsim %.15g kg, MuJoCo %.15g kg\n", robot.totalMass(), total);
  // Per link: MuJoCo keeps the inertia as principal moments and the
  // principal axes' quaternion; rebuilt, it must be the URDF's tensor.
  for (const RobotLink& link : robot.links) {
    const int b = mj_name2id(m, mjOBJ_BODY, link.name.c_str());
    ASSERT_GE(b, 0) << link.name;
    EXPECT_NEAR(m->body_mass[b], link.inertial.mass, 1e-14) << link.name;
    if (link.inertial.mass == 0.0) continue;
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(m->body_ipos[3 * b + a], link.inertial.com[a], 1e-14) << link.name;
    mjtNum R[9];
    mju_quat2Mat(R, m->body_iquat + 4 * b);
    auto entry = [&](int r, int c) {
      double sum = 0.0;
      for (int k = 0; k < 3; ++k) sum += R[3 * r + k] * m->body_inertia[3 * b + k] * R[3 * c + k];
      return sum;
    };
    const std::array<double, 6>& I = link.inertial.inertia;  // ixx iyy izz ixy ixz iyz
    const double rebuilt[6] = {entry(0, 0), entry(1, 1), entry(2, 2), entry(0, 1), entry(0, 2), entry(1, 2)};
    for (int e = 0; e < 6; ++e) EXPECT_NEAR(rebuilt[e], I[e], 1e-12 * (1.0 + I[0] + I[1] + I[2])) << link.name;
  }
  for (const std::string& name : ref.joints) {
    const RobotJoint& joint = robot.joints[robot.findJoint(name)];
    const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
    ASSERT_GE(j, 0) << name;
    EXPECT_EQ(m->jnt_type[j], mjJNT_HINGE) << name;
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(m->jnt_axis[3 * j + a], joint.axis[a], 1e-15) << name;
    // MuJoCo's armature, damping and friction loss would be terms suitsim does not have.
    EXPECT_EQ(m->dof_armature[m->jnt_dofadr[j]], 0.0) << name;
    EXPECT_EQ(m->dof_damping[m->jnt_dofadr[j]], 0.0) << name;
    EXPECT_EQ(m->dof_frictionloss[m->jnt_dofadr[j]], 0.0) << name;
  }
}

// Each check runs with the spring kernel in either arithmetic
// (Model::spring_arithmetic): the bounds hold for both.
class MujocoFidelityBothArithmetics : public ::testing::TestWithParam<SpringArithmetic> {};

INSTANTIATE_TEST_SUITE_P(Spring, MujocoFidelityBothArithmetics,
                         ::testing::Values(SpringArithmetic::kSeparate, SpringArithmetic::kFused),
                         [](const ::testing::TestParamInfo<SpringArithmetic>& info) {
                           return std::string(springArithmeticName(info.param));
                         });

// Bounds: 2.2e-12 and 1.8e-5 rad measured, about 50 and 5 times below.
constexpr double kRk4Bound = 1e-10;
constexpr double kVerletBound = 1e-4;
// The spring links' stiffest at 2e-5 s and their bound (measured below).
constexpr double kSpringLinkFrequency = 6e4;
constexpr double kSpringBound = 2e-3;  // 5.9e-4 rad measured

TEST_P(MujocoFidelityBothArithmetics, Jvrc1FixedBaseUnderPdServoRk4) {
  const double dt = 2e-5;
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  SuitsimJvrc ours(robot, ref, dt, Integrator::kRk4, {}, GetParam());
  MujocoJvrc theirs(ref, dt, mjINT_RK4, referenceMotion(ref));
  ASSERT_EQ(ours.numHinges(), 44);
  for (int k = 0; k < n; ++k) ASSERT_TRUE(theirs.hasJoint(k)) << ref.joints[k];
  int skipped = 0;
  const double worst = worstDifference(ours, theirs, n, dt, &skipped);
  std::printf("[measured] JVRC-1 fixed base, PD on 44 joints, 3 s, RK4 in both at dt %g s: worst joint-angle "
              "difference %.3g rad\n", dt, worst);
  EXPECT_EQ(skipped, 0);
  EXPECT_LT(worst, kRk4Bound);
}

TEST_P(MujocoFidelityBothArithmetics, Jvrc1FixedBaseUnderPdServoAtTheProtocolStep) {
  const double dt = 1e-4;
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  int skipped = 0;
  SuitsimJvrc ours(robot, ref, dt, Integrator::kVelocityVerlet, {}, GetParam());
  MujocoJvrc rk4(ref, dt, mjINT_RK4, referenceMotion(ref));
  const double worst = worstDifference(ours, rk4, n, dt, &skipped);
  EXPECT_EQ(skipped, 0);
  // MuJoCo against itself: its default integrator at this step.
  MujocoJvrc rk4_again(ref, dt, mjINT_RK4, referenceMotion(ref));
  MujocoJvrc euler(ref, dt, mjINT_EULER, referenceMotion(ref));
  const double worst_euler = worstDifference(euler, rk4_again, n, dt, &skipped);
  std::printf("[measured] JVRC-1 fixed base, 3 s at dt %g s: suitsim velocity Verlet vs MuJoCo RK4 %.3g rad; "
              "MuJoCo Euler vs MuJoCo RK4 %.3g rad\n", dt, worst, worst_euler);
  EXPECT_LT(worst, kVerletBound);
}

// With armature on every joint (MuJoCo's dof_armature, suitsim's rotor
// row): the two must again integrate the same ODE, here over 1 s.
TEST_P(MujocoFidelityBothArithmetics, Jvrc1FixedBaseWithArmatureRk4) {
  const double dt = 2e-5;
  const RobotDescription robot = fixedJvrc(true);
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  SuitsimJvrc ours(robot, ref, dt, Integrator::kRk4, {}, GetParam());
  MujocoJvrc theirs(ref, dt, mjINT_RK4, referenceMotion(ref), true);
  int skipped = 0;
  const double worst = worstDifference(ours, theirs, n, dt, &skipped, 1.0);
  // Without the armature on MuJoCo's side the difference is of the order
  // of the motion itself: the check sees the rotors.
  SuitsimJvrc ours_again(robot, ref, dt, Integrator::kRk4, {}, GetParam());
  MujocoJvrc without(ref, dt, mjINT_RK4, referenceMotion(ref), false);
  const double worst_without = worstDifference(ours_again, without, n, dt, &skipped, 0.2);
  std::printf("[measured] JVRC-1 fixed base with armature, PD on 44 joints, 1 s, RK4 in both at dt %g s: worst "
              "joint-angle difference %.3g rad (%.3g rad after 0.2 s against MuJoCo without armature)\n",
              dt, worst, worst_without);
  EXPECT_EQ(skipped, 0);
  EXPECT_LT(worst, kRk4Bound);
  EXPECT_GT(worst_without, 1e3 * kRk4Bound);
}

// The long steps armature allows, 0.5 and 1 ms, the servo updated every
// step, against MuJoCo's RK4 at the same step (the same held PD torques),
// 2 s. Without armature these steps diverge (the wrists' kd T / I_eff is far
// past 2).
void expectArmatureWithinAMilliradianAtLongSteps(Integrator integrator, SpringArithmetic arithmetic) {
  const RobotDescription robot = fixedJvrc(true);
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  for (const double dt : {5e-4, 1e-3}) {
    SuitsimJvrc ours(robot, ref, dt, integrator, {}, arithmetic);
    MujocoJvrc rk4(ref, dt, mjINT_RK4, referenceMotion(ref), true);
    int skipped = 0;
    const double worst = worstDifference(ours, rk4, n, dt, &skipped, 2.0);
    std::printf("[measured] JVRC-1 fixed base with armature, 2 s: suitsim %s at dt %g s vs MuJoCo RK4 "
                "at the same step: worst joint-angle difference %.3g rad\n", integratorName(integrator), dt, worst);
    EXPECT_EQ(skipped, 0);
    EXPECT_LT(worst, 1e-3) << integratorName(integrator) << " dt " << dt;
  }
}

TEST_P(MujocoFidelityBothArithmetics, Jvrc1WithArmatureAtOneMillisecond) {
  expectArmatureWithinAMilliradianAtLongSteps(Integrator::kVelocityVerlet, GetParam());
}

// Drift-kick-drift, the humanoid's fast step (docs/benchmarks.md,
// "Humanoid"): one force evaluation per step where velocity Verlet, its
// cache voided by the servo's new torques, takes two.
TEST_P(MujocoFidelityBothArithmetics, Jvrc1WithArmaturePositionVerletAtOneMillisecond) {
  expectArmatureWithinAMilliradianAtLongSteps(Integrator::kPositionVerlet, GetParam());
}

// Toda and Sankai's link model (LinkModel::kSprings): the links held by
// their spring-dampers alone, at the stiffest link_frequency whose links
// the 2e-5 s step can follow (suitsim refuses a stiffer one), against
// MuJoCo's RK4 at the same step, 1 s. The links' give under the servo's
// torques and gravity is the error; bench/mujoco_bench.cpp reports it over
// the full 3 s for other link_frequency / dt pairs (docs/engine.md).
TEST_P(MujocoFidelityBothArithmetics, Jvrc1FixedBaseOnSpringLinks) {
  const double dt = 2e-5;
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  RobotCompileOptions options;
  options.link_frequency = kSpringLinkFrequency;
  options.hinge.link_model = LinkModel::kSprings;
  SuitsimJvrc ours(robot, ref, dt, Integrator::kVelocityVerlet, options, GetParam());
  double omega_dt = 0.0;
  for (const LinkMode& l : linkModes(ours.model())) omega_dt = std::max(omega_dt, l.omega * dt / l.bound);
  EXPECT_LT(omega_dt, 1.0);  // the run would not refuse this step
  MujocoJvrc theirs(ref, dt, mjINT_RK4, referenceMotion(ref));
  int skipped = 0;
  const double worst = worstDifference(ours, theirs, n, dt, &skipped, 1.0);
  std::printf("[measured] JVRC-1 fixed base, 1 s, spring links at link_frequency %g rad/s (omega dt %.3g of its "
              "bound), suitsim Verlet vs MuJoCo RK4 at dt %g s: worst joint-angle difference %.3g rad\n",
              kSpringLinkFrequency, omega_dt, dt, worst);
  EXPECT_EQ(skipped, 0);
  EXPECT_LT(worst, kSpringBound);
}


// A compliant gear (gear_train.h) against MuJoCo: the rotor a body of its
// own on the pendulum's axis, the gear's spring and damper a fixed tendon
// between the two joints (length phi - theta, MuJoCo's tendon stiffness and
// damping), the motor's torque on the rotor's joint. Released at 0.8 rad
// under gravity with a constant 2 N m on the rotor, the gear rings at
// omega = 2000 rad/s (damping ratio 0.5) while the pendulum swings. MuJoCo
// integrates it with RK4 at 1e-5 s (omega dt = 0.02, explicit). suitsim's
// spring is implicit over its step, so it runs at omega dt = 1 (the
// protocol's 0.5 ms) and 0.1; its error against MuJoCo, 1 s of the link's
// angle, falls with the step as the scheme's first-order damping of the
// gear mode says.
TEST(MujocoFidelity, CompliantGearAgainstATendonBetweenRotorAndLink) {
  const double mass = 1.3, length = 0.6, inertia_y = 0.02, armature = 0.05, torque = 2.0, start = 0.8;
  const double link_inertia = inertia_y + mass * length * length;
  const double inverse = 1.0 / armature + 1.0 / link_inertia;
  const double omega = 2000.0, stiffness = omega * omega / inverse;
  const double damping = 2.0 * 0.5 * std::sqrt(stiffness / inverse);
  char xml[2048];
  std::snprintf(xml, sizeof xml,
                "<mujoco><option timestep=\"1e-5\" integrator=\"RK4\" gravity=\"0 0 -9.81\"/><worldbody>"
                "<body name=\"rotor\"><joint name=\"rotor\" type=\"hinge\" axis=\"0 1 0\"/>"
                "<inertial pos=\"0 0 0\" mass=\"1e-9\" diaginertia=\"%.17g %.17g %.17g\"/></body>"
                "<body name=\"arm\"><joint name=\"hinge\" type=\"hinge\" axis=\"0 1 0\"/>"
                "<inertial pos=\"0 0 %.17g\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/></body>"
                "</worldbody><tendon><fixed name=\"gear\" stiffness=\"%.17g\" damping=\"%.17g\">"
                "<joint joint=\"rotor\" coef=\"1\"/><joint joint=\"hinge\" coef=\"-1\"/></fixed></tendon></mujoco>",
                armature, armature, armature, -length, mass, inertia_y, inertia_y, 0.2 * inertia_y, stiffness, damping);
  const testing::MujocoModel mj = testing::loadMujocoText(xml, "gear.xml");
  const testing::MujocoData data(mj_makeData(mj.get()));
  const int rotor = mj->jnt_qposadr[mj_name2id(mj.get(), mjOBJ_JOINT, "rotor")];
  const int hinge = mj->jnt_qposadr[mj_name2id(mj.get(), mjOBJ_JOINT, "hinge")];
  data->qpos[rotor] = data->qpos[hinge] = start;
  data->qfrc_applied[mj->jnt_dofadr[mj_name2id(mj.get(), mjOBJ_JOINT, "rotor")]] = torque;
  constexpr int kSamples = 1000;  // every millisecond over 1 s
  std::vector<double> theirs(kSamples);
  for (int k = 0; k < kSamples; ++k) {
    for (int i = 0; i < 100; ++i) mj_step(mj.get(), data.get());
    theirs[k] = data->qpos[hinge];
  }
  JointActuation gear;
  gear.armature = armature;
  gear.gear_stiffness = stiffness;
  gear.gear_damping = damping;
  // Runs: omega dt = 1, 0.1, and the rigid rotor (no gear spring) at the
  // first step, to show that the check sees the gear's twist.
  double worst[3] = {0.0, 0.0, 0.0};
  for (int run = 0; run < 3; ++run) {
    const double dt = run == 1 ? 5e-5 : 5e-4;
    if (run == 2) gear.gear_stiffness = gear.gear_damping = 0.0;
    RobotDescription robot = testing::singlePendulum(mass, length, inertia_y);
    RobotJoint& joint = robot.joints[robot.findJoint("hinge")];
    joint.type = JointType::kContinuous;
    joint.actuation = gear;
    ModelBuilder builder;
    builder.setGravity({0.0, 0.0, -9.81});
    RobotPose pose;
    pose.joint_angles = {start};
    const CompiledRobot compiled = addRobot(builder, robot, pose, {}, {});
    const Model model = builder.build();
    const int h = compiled.joint_hinge[robot.findJoint("hinge")];
    State state = makeState(model);
    Workspace ws(model);
    state.hinge_current[h] = torque;  // k_T = 1
    const int per_sample = static_cast<int>(std::lround(1e-3 / dt));
    for (int k = 0; k < kSamples; ++k) {
      for (int i = 0; i < per_sample; ++i) step(model, state, ws, Integrator::kVelocityVerlet, dt);
      worst[run] = std::max(worst[run], std::abs(jointAngle(model, state, h) - theirs[k]));
    }
  }
  std::printf("[measured] compliant gear (omega 2000 rad/s, zeta 0.5) vs MuJoCo's tendon, RK4 at 1e-5 s, 1 s: "
              "suitsim Verlet at omega dt = 1 (5e-4 s) %.3g rad, at omega dt = 0.1 (5e-5 s) %.3g rad (a rigid rotor "
              "instead: %.3g rad); the link swings through %.3g rad\n",
              worst[0], worst[1], worst[2], start - *std::min_element(theirs.begin(), theirs.end()));
  EXPECT_LT(worst[0], 1e-5);
  EXPECT_LT(worst[1], 0.2 * worst[0]);
  EXPECT_GT(worst[2], 10.0 * worst[0]);
}

}  // namespace
}  // namespace suitsim

#endif
