// Hinge joints (engine/src/hinges.cpp): the tracked joint angle past +-pi,
// momentum of the ball rows off the constraint, and bodies whose inertia
// cannot be inverted.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

#include "robots.h"
#include "run_helpers.h"
#include "suitsim/articulated.h"
#include "suitsim/recorder.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

constexpr double kPi = std::numbers::pi;

// The single pendulum (1.3 kg at 0.6 m, I about the joint 0.488 kg m^2) on
// a fixed base, without gravity, its joint of the given type and limits.
struct Arm {
  Model model;
  int hinge = -1;
};
Arm armWithJoint(JointType type, double lower, double upper, double limit_stiffness, double limit_damping) {
  RobotDescription robot = testing::singlePendulum();
  RobotJoint& joint = robot.joints[robot.findJoint("hinge")];
  joint.type = type;
  joint.lower = lower;
  joint.upper = upper;
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});
  RobotCompileOptions options;
  options.hinge.limit_stiffness = limit_stiffness;
  options.hinge.limit_damping = limit_damping;
  const CompiledRobot compiled = addRobot(builder, robot, {}, {}, options);
  Arm arm{builder.build(), -1};
  arm.hinge = compiled.joint_hinge[robot.findJoint("hinge")];
  return arm;
}

// The case: JVRC-1's shoulder-pitch lower limit, -pi + 2e-12,
// reached under a constant -20 N m motor torque with a 2000 N m/rad limit
// spring. The joint must come to rest on the limit, at lower - 20/2000 =
// -3.1516 rad. Read wrapped, the angle jumps to +3.14 past -pi, the lower
// limit lets go, the upper one pushes the same way, and the joint spins.
TEST(HingeAngle, LimitPastMinusPiHoldsTheJoint) {
  const double lower = -3.14159265359;  // -pi + 2e-12
  // Limit damping 40 N m s/rad: damping ratio 0.64 on the limit spring.
  const Arm arm = armWithJoint(JointType::kRevolute, lower, 2.0, 2000.0, 40.0);
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  state.hinge_current[arm.hinge] = -20.0;  // k_T = 1
  const double dt = 1e-4;
  double previous = jointAngle(arm.model, state, arm.hinge);
  double largest_jump = 0.0;
  for (int k = 0; k < 10000; ++k) {
    step(arm.model, state, ws, Integrator::kVelocityVerlet, dt);
    const double q = jointAngle(arm.model, state, arm.hinge);
    largest_jump = std::max(largest_jump, std::abs(q - previous));
    previous = q;
  }
  const double rest = lower - 20.0 / 2000.0;
  EXPECT_NEAR(jointAngle(arm.model, state, arm.hinge), rest, 1e-4);
  EXPECT_NEAR(jointVelocity(arm.model, state, arm.hinge), 0.0, 1e-3);
  // At most 16 rad/s (its speed on reaching the limit) times dt per step.
  EXPECT_LT(largest_jump, 2e-3);
}

// A continuous joint turned through more than three revolutions by a
// constant torque: theta = tau t^2 / (2 I), read without jumps by
// jointAngle and the recorder (truth streams).
TEST(HingeAngle, ContinuousJointReadsOnPastOneTurn) {
  const Arm arm = armWithJoint(JointType::kContinuous, 0.0, 0.0, 0.0, 0.0);
  State state = makeState(arm.model);
  Workspace ws(arm.model);
  const double torque = 5.0;
  const double inertia = 0.02 + 1.3 * 0.6 * 0.6;  // about the joint (robots.h)
  state.hinge_current[arm.hinge] = torque;
  const Recorder recorder(arm.model, {{ChannelSpec::Kind::kJointAngle, arm.hinge, {}, "hinge"}});
  ASSERT_EQ(recorder.columns().size(), 1u);
  const double dt = 1e-4;
  double worst = 0.0;
  for (int k = 1; k <= 20000; ++k) {
    step(arm.model, state, ws, Integrator::kRk4, dt);
    const double t = k * dt;
    const double expected = 0.5 * torque / inertia * t * t;
    double recorded = 0.0;
    recorder.sample(state, &ws, &recorded);
    worst = std::max(worst, std::abs(recorded - expected));
    ASSERT_EQ(recorded, jointAngle(arm.model, state, arm.hinge));
  }
  const double turned = jointAngle(arm.model, state, arm.hinge);
  EXPECT_GT(turned, 3.0 * 2.0 * kPi);
  EXPECT_LT(worst, 1e-6);
}

// A pose angle past pi: the tracked angle starts there, not a turn away.
TEST(HingeAngle, StartsAtThePoseAngle) {
  RobotDescription robot = testing::singlePendulum();
  robot.joints[0].type = JointType::kContinuous;
  ModelBuilder builder;
  RobotPose pose;
  pose.joint_angles = {4.0};
  const CompiledRobot compiled = addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  const State state = makeState(model);
  EXPECT_NEAR(jointAngle(model, state, compiled.joint_hinge[0]), 4.0, 1e-12);
}

// ---- joint readings kept from the step ---------------------------------------

// After a step, jointAngle and jointVelocity serve the readings the step's
// friction update took (State::hinge_reading) without evaluating the
// geometry again, and only while the hinge's two bodies are as they were.
// Each integrator: the served values equal a fresh reading bit for bit; a
// planted rate is served while nothing moved (so the reading is really
// used); moving one particle of a child body, or changing the velocities
// (velocity Verlet's friction update runs at the half-step velocity), gets
// the geometry's values instead.
TEST(HingeReading, ServedOnlyWhileTheHingesBodiesAreUnchanged) {
  const RobotDescription robot = testing::floatingHumanoid();
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  ASSERT_GT(model.num_hinges, 2);
  auto fresh = [&model](State s, int h) {  // a copy whose reading is voided
    s.hinge_reading.filled = false;
    return std::array<double, 2>{jointAngle(model, s, h), jointVelocity(model, s, h)};
  };
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet,
                                Integrator::kPositionVerlet, Integrator::kRk4}) {
    SCOPED_TRACE(static_cast<int>(integrator));
    State state = makeState(model);
    Workspace ws(model);
    for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 0.5 * (h % 3 - 1);
    for (int k = 0; k < 50; ++k) step(model, state, ws, integrator, 1e-4);
    for (int h = 0; h < model.num_hinges; ++h) {
      const std::array<double, 2> expected = fresh(state, h);
      ASSERT_EQ(jointAngle(model, state, h), expected[0]) << "hinge " << h;
      ASSERT_EQ(jointVelocity(model, state, h), expected[1]) << "hinge " << h;
    }
    // Velocity Verlet's closing kick changed the velocities after the
    // friction update read the hinges: nothing may be served.
    const int h = 1;
    const double planted = 123.0;
    const double true_rate = fresh(state, h)[1];
    state.hinge_reading.rate[h] = planted;
    EXPECT_EQ(jointVelocity(model, state, h), integrator == Integrator::kVelocityVerlet ? true_rate : planted);
    // Moving the child body: the geometry reads the hinge anew.
    const int i = model.body_particle_begin[model.hinge_child_body[h]] + 2;
    state.position.x[i] += 1e-3;
    EXPECT_EQ(jointVelocity(model, state, h), fresh(state, h)[1]);
    EXPECT_NE(jointVelocity(model, state, h), planted);
    EXPECT_EQ(jointAngle(model, state, h), fresh(state, h)[0]);
  }
}

// ---- ball rows off the constraint -------------------------------------------

// The floating humanoid of robots.h (13 hinges) with every child body moved
// off its joint by a few millimetres, so that each hinge's J_p and J_c
// start apart, spinning and drifting, without gravity or ground: nothing
// acts from outside, so linear and angular momentum must keep their
// values to round-off while the stabilisation closes the gaps. A ball-row
// pair acting at J_p on the parent and at J_c on the child has the net
// moment (J_p - J_c) x lambda.
TEST(HingeMomentum, ConservedWhileJointPointsAreApart) {
  const RobotDescription robot = testing::floatingHumanoid();
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int b = 0; b < model.num_bodies; ++b) {
    const Vec3 shift{3e-3 * u(rng), 3e-3 * u(rng), 3e-3 * u(rng)};
    const Vec3 velocity{0.3 * u(rng), 0.3 * u(rng), 0.3 * u(rng)};
    for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) {
      state.position.set(i, {state.position.x[i] + shift[0], state.position.y[i] + shift[1],
                             state.position.z[i] + shift[2]});
      state.velocity.set(i, velocity);
    }
  }
  auto largestGap = [&]() {
    double gap = 0.0;
    for (int h = 0; h < model.num_hinges; ++h) {
      Vec3 jp{0.0, 0.0, 0.0}, jc{0.0, 0.0, 0.0};
      const int p = model.body_particle_begin[model.hinge_parent_body[h]];
      const int c = model.body_particle_begin[model.hinge_child_body[h]];
      for (int k = 0; k < 4; ++k) {
        for (int d = 0; d < 3; ++d) {
          const Vec3Array& x = state.position;
          const double* xs[3] = {x.x.data(), x.y.data(), x.z.data()};
          jp[d] += model.hinge_centre_parent[h][k] * xs[d][p + k];
          jc[d] += model.hinge_centre_child[h][k] * xs[d][c + k];
        }
      }
      gap = std::max(gap, std::hypot(jp[0] - jc[0], jp[1] - jc[1], jp[2] - jc[2]));
    }
    return gap;
  };
  const double start_gap = largestGap();
  ASSERT_GT(start_gap, 1e-3);
  testing::MomentumDrift drift(model, state);
  for (int k = 0; k < 2000; ++k) {
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    drift.add(state);
  }
  ASSERT_TRUE(stateIsFinite(state));
  const double end_gap = largestGap();
  const Vec3& h0 = drift.initialAngular();
  std::printf("[measured] joint gap %.3g m -> %.3g m; momentum drift linear %.3g kg m/s, angular %.3g kg m^2/s "
              "(|L| = %.3g)\n",
              start_gap, end_gap, drift.linear(), drift.angular(), std::hypot(h0[0], h0[1], h0[2]));
  EXPECT_LT(end_gap, 1e-2 * start_gap);  // the stabilisation closed the gaps
  // Round-off: 2000 steps of sums over 64 particles of momenta of order 10.
  EXPECT_LT(drift.linear(), 1e-10);
  EXPECT_LT(drift.angular(), 1e-10);
}

// ---- bodies that cannot move rigidly -----------------------------------------

// Two four-particle bodies joined by a hinge about x at their centroids
// (the origin); the child's particles are `child` (m). The parent's arm B
// is at (0, 0.1, 0); the child's arms are the midpoints of its particles 0
// and 1 (C1) and 0 and 2 (C2).
void buildPair(ModelBuilder& builder, const std::array<Vec3, 4>& child) {
  const std::array<Vec3, 4> tetra = {Vec3{0.1, 0.1, 0.1}, Vec3{0.1, -0.1, -0.1}, Vec3{-0.1, 0.1, -0.1},
                                     Vec3{-0.1, -0.1, 0.1}};
  const char* names[2] = {"upper", "forearm"};
  for (int body = 0; body < 2; ++body) {
    BodySpec spec{names[body], builder.numParticles(), 4, {}};
    for (int k = 0; k < 4; ++k) {
      ParticleSpec p;
      p.name = std::string(names[body]) + ".p" + std::to_string(k);
      p.position = body == 0 ? tetra[k] : child[k];
      p.mass = 0.5;
      builder.addParticle(p);
      spec.body_position.push_back(p.position);
    }
    builder.addBody(spec);
  }
  HingeSpec hinge;
  hinge.name = "elbow";
  hinge.parent_body = 0;
  hinge.child_body = 1;
  hinge.centre_parent = hinge.centre_child = {0.25, 0.25, 0.25, 0.25};
  hinge.axis_point = {0.5, 0.5, 0.0, 0.0};
  hinge.parent_arm = {0.5, 0.0, 0.5, 0.0};
  hinge.child_arm = {0.5, 0.5, 0.0, 0.0};
  hinge.child_arm2 = {0.5, 0.0, 0.5, 0.0};
  builder.addHinge(hinge);
}

std::string modelErrorOf(const std::array<Vec3, 4>& child) {
  try {
    ModelBuilder builder;
    buildPair(builder, child);
    builder.build();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

// A child whose particles lie on a line has a singular inertia tensor: the
// hinge is refused when it is added, naming the body.
TEST(HingeBodies, CollinearBodyIsRefusedByName) {
  const std::string error =
      modelErrorOf({Vec3{0.0, 0.0, 0.0}, Vec3{0.1, 0.0, 0.0}, Vec3{0.2, 0.0, 0.0}, Vec3{0.3, 0.0, 0.0}});
  EXPECT_NE(error.find("hinge 'elbow'"), std::string::npos) << error;
  EXPECT_NE(error.find("body 'forearm'"), std::string::npos) << error;
  EXPECT_NE(error.find("singular"), std::string::npos) << error;
}

// Coordinates whose squares overflow make the tensor non-finite.
TEST(HingeBodies, OverflowingBodyIsRefusedByName) {
  const std::string error =
      modelErrorOf({Vec3{1e200, 0.0, 0.0}, Vec3{0.0, 1e200, 0.0}, Vec3{0.0, 0.0, 1e200}, Vec3{0.0, 0.0, 0.0}});
  EXPECT_NE(error.find("body 'forearm'"), std::string::npos) << error;
  EXPECT_NE(error.find("not finite"), std::string::npos) << error;
}

// A flat (coplanar) body still has an invertible inertia (I_z = I_x + I_y),
// and the accepted pair steps to finite values.
TEST(HingeBodies, FlatBodyIsAccepted) {
  ModelBuilder builder;
  // In the plane x = 0, normal to the joint axis (x): the arms C1 (0, 0.1,
  // 0) and C2 (0, 0, 0.1) lie in it.
  buildPair(builder, {Vec3{0.0, 0.1, 0.1}, Vec3{0.0, 0.1, -0.1}, Vec3{0.0, -0.1, 0.1}, Vec3{0.0, -0.1, -0.1}});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  for (int k = 0; k < 100; ++k) step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
  EXPECT_TRUE(stateIsFinite(state));
}

}  // namespace
}  // namespace suitsim
