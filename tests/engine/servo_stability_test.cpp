// The servo stability check (engine/src/servo_stability.cpp): the
// effective inertia against independent references (the pendulum's
// parallel-axis inertia, the evaluator's composite-rigid-body mass matrix),
// the period map's bounds against the closed forms derived by hand, and the
// predicted bound against where the engine's own simulation of a hinged link
// under JointServo really starts to diverge.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "engine_printers.h"
#include "robots.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/rigid_model.h"
#include "suitsim/servo.h"
#include "suitsim/servo_stability.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

ServoLoop loop(Integrator integrator, int steps, double a, double b, double viscous = 0.0) {
  // I = 2, dt = 1e-3: the gains that give the dimensionless a and b.
  const double I = 2.0, dt = 1e-3, T = dt * steps;
  return {I, a * I / (T * T), b * I / T, viscous, dt, steps, integrator};
}

// Closed forms (servo_stability.h): with c = 1/2 for a held torque
// integrated exactly (Verlet, RK4) and c = (m + 1) / (2 m) for semi-implicit
// Euler over m steps, the map has det = 1 - b + a (1 - c) and
// p(-1) = 4 - 2 b + a (1 - 2 c); so kd's bound is 2 + a (1 - 2c) / 2 and
// kp's the smaller of b / (1 - c) (det < 1) and (4 - 2 b) / (2 c - 1) (p(-1) > 0).
TEST(ServoLoop, BoundsMatchTheClosedForms) {
  struct Case {
    Integrator integrator;
    int steps;
    double c;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& k : {Case{Integrator::kVelocityVerlet, 1, 0.5}, Case{Integrator::kVelocityVerlet, 5, 0.5},
                        Case{Integrator::kRk4, 1, 0.5}, Case{Integrator::kRk4, 3, 0.5},
                        Case{Integrator::kSemiImplicitEuler, 1, 1.0}, Case{Integrator::kSemiImplicitEuler, 2, 0.75},
                        Case{Integrator::kSemiImplicitEuler, 10, 0.55}}) {
    for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.3, 0.5}, {0.05, 1.2}, {1.5, 0.2}}) {
      SCOPED_TRACE(std::string(integratorName(k.integrator)) + " m=" + std::to_string(k.steps) +
                   " a=" + std::to_string(a) + " b=" + std::to_string(b));
      const ServoLoopStability s = analyseServoLoop(loop(k.integrator, k.steps, a, b));
      EXPECT_NEAR(s.kp_ratio, a, 1e-12);
      EXPECT_NEAR(s.kd_ratio, b, 1e-12);
      EXPECT_NEAR(s.kd_bound, 2.0 + a * (1.0 - 2.0 * k.c) / 2.0, 1e-9);
      const double lag = k.c < 1.0 ? b / (1.0 - k.c) : inf;
      const double reversal = k.c > 0.5 ? (4.0 - 2.0 * b) / (2.0 * k.c - 1.0) : inf;
      const double kp_bound = std::min(lag, reversal);
      if (std::isinf(kp_bound)) {
        EXPECT_TRUE(std::isinf(s.kp_bound)) << s.kp_bound;
      } else {
        EXPECT_NEAR(s.kp_bound, kp_bound, 1e-8 * kp_bound);
      }
      // The verdicts follow the bounds.
      EXPECT_EQ(s.reverses, b >= s.kd_bound);
      EXPECT_EQ(s.stable(), b < s.kd_bound && a < s.kp_bound);
    }
  }
}

TEST(ServoLoop, GrowthIsTheSpectralRadius) {
  // Verlet, no friction: det = 1 - b + a / 2; a complex pair has |z| = sqrt(det).
  const ServoLoopStability lagging = analyseServoLoop(loop(Integrator::kVelocityVerlet, 1, 0.12, 0.05));
  EXPECT_TRUE(lagging.lags);
  EXPECT_FALSE(lagging.reverses);
  EXPECT_NEAR(lagging.growth, std::sqrt(1.0 - 0.05 + 0.06), 1e-12);
  // b = 2.5, a = 0.01: real eigenvalues of z^2 - (2 - a/2 - b) z + (1 - b + a/2).
  const double tr = 2.0 - 0.005 - 2.5, det = 1.0 - 2.5 + 0.005;
  const double z = 0.5 * (std::abs(tr) + std::sqrt(tr * tr - 4.0 * det));
  const ServoLoopStability reversing = analyseServoLoop(loop(Integrator::kVelocityVerlet, 1, 0.01, 2.5));
  EXPECT_TRUE(reversing.reverses);
  EXPECT_NEAR(reversing.growth, z, 1e-12);
}

TEST(ServoLoop, ViscousFrictionUnderEulerEveryStepIsMoreKd) {
  // Semi-implicit Euler with the servo every step evaluates the joint's
  // viscous friction at the same velocity the servo reads: it adds to kd
  // one for one, so the kd bound drops by c T / I exactly.
  const double I = 2.0, T = 1e-3;
  const ServoLoopStability dry = analyseServoLoop(loop(Integrator::kSemiImplicitEuler, 1, 0.1, 1.0));
  const ServoLoopStability wet =
      analyseServoLoop(loop(Integrator::kSemiImplicitEuler, 1, 0.1, 1.0, 0.3 * I / T));
  EXPECT_NEAR(wet.kd_bound, dry.kd_bound - 0.3, 1e-9);
  // Velocity Verlet takes friction at the half-step velocity, where the
  // reversing mode nearly cancels: the bound hardly moves (checked against
  // the engine in PredictedBound with friction).
  const ServoLoopStability verlet = analyseServoLoop(loop(Integrator::kVelocityVerlet, 1, 0.1, 1.0, 0.3 * I / T));
  EXPECT_LT(std::abs(verlet.kd_bound - 2.0), 0.3);
}

// ---- effective inertia ----------------------------------------------------------

TEST(EffectiveInertia, SinglePendulumIsTheParallelAxisInertia) {
  const double m = 1.3, l = 0.6, iy = 0.02;
  const RobotDescription robot = testing::singlePendulum(m, l, iy);
  ModelBuilder builder;
  RobotPose pose;
  pose.joint_angles = {0.7};  // the pose does not matter for one hinge
  addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  const std::vector<double> inertia = hingeEffectiveInertia(model);
  ASSERT_EQ(inertia.size(), 1u);
  EXPECT_NEAR(inertia[0], iy + m * l * l, 1e-9 * (iy + m * l * l));
}

// 1 / (M^-1)_jj of the evaluator's mass matrix (composite rigid bodies), with
// mimic followers folded into their leader's coordinate by T^T M T.
std::vector<double> rigidEffectiveInertia(const RobotDescription& robot, const std::vector<double>& angles) {
  const eval::RigidModel rigid = eval::makeRigidModel(robot);
  eval::RigidData data(rigid);
  Eigen::VectorXd q(rigid.num_joints);
  for (int j = 0; j < rigid.num_joints; ++j) q[j] = angles[rigid.joint_source[j]];
  const Eigen::MatrixXd M = eval::massMatrix(rigid, data, eval::Configuration(q));
  std::vector<int> column(rigid.nv, -1);
  int n = 0;
  for (int i = 0; i < rigid.nv; ++i) {
    const int j = i - rigid.base_dofs;
    if (j < 0 || rigid.joint_mimic_leader[j] < 0) column[i] = n++;
  }
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(rigid.nv, n);
  for (int i = 0; i < rigid.nv; ++i) {
    const int j = i - rigid.base_dofs;
    if (column[i] >= 0) {
      T(i, column[i]) = 1.0;
    } else {
      T(i, column[rigid.base_dofs + rigid.joint_mimic_leader[j]]) = rigid.joint_mimic_multiplier[j];
    }
  }
  const Eigen::MatrixXd inverse = (T.transpose() * M * T).inverse();
  std::vector<double> out(robot.joints.size(), 0.0);
  for (int j = 0; j < rigid.num_joints; ++j) {
    const int i = rigid.base_dofs + j;
    const int leader = rigid.joint_mimic_leader[j];
    const double mu = leader < 0 ? 1.0 : rigid.joint_mimic_multiplier[j];
    const int c = leader < 0 ? column[i] : column[rigid.base_dofs + leader];
    out[rigid.joint_source[j]] = 1.0 / (mu * mu * inverse(c, c));
  }
  return out;
}

void expectMatchesRigidModel(const RobotDescription& robot) {
  std::vector<double> angles(robot.joints.size(), 0.0);
  for (std::size_t k = 0; k < angles.size(); ++k) angles[k] = 0.3 * std::sin(1.7 * k + 0.4);
  ModelBuilder builder;
  RobotPose pose;
  pose.joint_angles = angles;
  const CompiledRobot compiled = addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  // The engine welds a mimic follower to the leader's angle: the rigid model
  // must see the angles the engine built.
  for (std::size_t k = 0; k < angles.size(); ++k) {
    if (compiled.joint_hinge[k] >= 0) angles[k] = jointAngle(model, makeState(model), compiled.joint_hinge[k]);
  }
  const std::vector<double> engine = hingeEffectiveInertia(model);
  const std::vector<double> rigid = rigidEffectiveInertia(robot, angles);
  int compared = 0;
  for (std::size_t k = 0; k < robot.joints.size(); ++k) {
    const int h = compiled.joint_hinge[k];
    if (h < 0) continue;
    SCOPED_TRACE(robot.joints[k].name);
    EXPECT_NEAR(engine[h], rigid[k], 1e-7 * rigid[k]);
    ++compared;
  }
  EXPECT_EQ(compared, model.num_hinges);
}

TEST(EffectiveInertia, MatchesTheRigidModelOnASpatialChain) { expectMatchesRigidModel(testing::spatialChain3()); }

TEST(EffectiveInertia, MatchesTheRigidModelOnAFloatingHumanoid) {
  expectMatchesRigidModel(testing::floatingHumanoid());
}

TEST(EffectiveInertia, MatchesTheRigidModelWithMimicFollowers) {
  expectMatchesRigidModel(testing::mimicHand(true));
  expectMatchesRigidModel(testing::mimicHand(false));
}

TEST(EffectiveInertia, FreeJointsSeeLessThanLockedOnes) {
  // 1 / (M^-1)_hh <= M_hh: a floating humanoid's foot sees far less about its
  // ankle than the pelvis would if it were welded to the world.
  RobotDescription floating = testing::floatingHumanoid();
  RobotDescription fixed = floating;
  fixed.floating_base = false;
  auto inertia = [](const RobotDescription& r) {
    ModelBuilder builder;
    const CompiledRobot compiled = addRobot(builder, r, {}, {}, {});
    const Model model = builder.build();
    return std::make_pair(hingeEffectiveInertia(model), compiled);
  };
  const auto [free_inertia, free_compiled] = inertia(floating);
  const auto [fixed_inertia, fixed_compiled] = inertia(fixed);
  for (std::size_t k = 0; k < floating.joints.size(); ++k) {
    const int h = free_compiled.joint_hinge[k];
    if (h < 0) continue;
    SCOPED_TRACE(floating.joints[k].name);
    EXPECT_LE(free_inertia[h], fixed_inertia[fixed_compiled.joint_hinge[k]] * (1.0 + 1e-12));
  }
}

// ---- the predicted bound against the simulation -------------------------------------

struct Outcome {
  double final_amplitude = 0.0;  ///< largest |angle| over the last tenth (rad)
  bool finite = true;
};

// A link on a hinge (the pendulum, no gravity, fixed base) under JointServo
// holding angle 0 from 0.01 rad, stepped by the engine for `seconds`.
Outcome simulateServo(Integrator integrator, double dt, double rate, double kp, double kd, double viscous,
                      double seconds) {
  RobotDescription robot = testing::singlePendulum();
  robot.joints[0].actuation.viscous = viscous;
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});
  RobotPose pose;
  pose.joint_angles = {0.01};
  addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  JointServo servo(model, state, Motion({0}, {0.0}, {0.0}), {ServoGains{kp, kd}}, rate);
  const long steps = std::lround(seconds / dt);
  Outcome out;
  for (long k = 0; k < steps; ++k) {
    servo.update(model, state);
    step(model, state, ws, integrator, dt);
    const double q = jointAngle(model, state, 0);
    if (!std::isfinite(q) || !stateIsFinite(state)) {
      out.finite = false;
      return out;
    }
    if (k >= steps - steps / 10) out.final_amplitude = std::max(out.final_amplitude, std::abs(q));
    if (std::abs(q) > 1.0) {  // grown a hundredfold: diverging, and before the angle wraps
      out.final_amplitude = std::abs(q);
      return out;
    }
  }
  return out;
}

bool diverged(const Outcome& o) { return !o.finite || o.final_amplitude > 0.1; }
bool settled(const Outcome& o) { return o.finite && o.final_amplitude < 0.01; }

// The hinged link's inertia the check computes, and the gains at a given
// fraction of a bound: the simulation must settle below the bound and
// diverge above it. Factors: 0.98 and 1.02 of the predicted kd, 0.9 and 1.1
// of the predicted kp (measured to hold at 0.99/1.01 and 0.95/1.05 too).
class PredictedBound : public ::testing::TestWithParam<std::pair<Integrator, int>> {
 protected:
  void SetUp() override {
    std::tie(integrator, steps) = GetParam();
    T = steps * dt;
    rate = 1.0 / T;
    ModelBuilder builder;
    addRobot(builder, testing::singlePendulum(), {}, {}, {});
    I = hingeEffectiveInertia(builder.build())[0];
  }
  Integrator integrator = Integrator::kVelocityVerlet;
  int steps = 1;
  const double dt = 1e-4;
  double T = 0.0, rate = 0.0, I = 0.0;
};

TEST_P(PredictedBound, DerivativeBoundIsWhereTheEngineDiverges) {
  const double kp = 0.2 * I / (T * T);  // a = 0.2: the proportional bound is far
  const double viscous = 0.3 * I / T;   // enough to move Euler's bound by 0.3
  const ServoLoopStability s =
      analyseServoLoop({I, kp, 1.0, viscous, dt, steps, integrator});  // kd only sets the ratio
  const double kd_bound = s.kd_bound * I / T;
  SCOPED_TRACE("kd bound " + std::to_string(kd_bound));
  EXPECT_TRUE(settled(simulateServo(integrator, dt, rate, kp, 0.98 * kd_bound, viscous, 0.5)));
  EXPECT_TRUE(diverged(simulateServo(integrator, dt, rate, kp, 1.02 * kd_bound, viscous, 0.5)));
}

TEST_P(PredictedBound, ProportionalBoundIsWhereTheEngineDiverges) {
  const double kd = 0.1 * I / T;  // b = 0.1: far from the derivative bound
  const ServoLoopStability s = analyseServoLoop({I, 1.0, kd, 0.0, dt, steps, integrator});
  const double kp_bound = s.kp_bound * I / (T * T);
  SCOPED_TRACE("kp bound " + std::to_string(kp_bound));
  // The lagging loop grows or decays by a few percent per period: 2 s is
  // thousands of periods. Just above the bound the engine's hinge
  // stabilisation (which the 1-DOF model leaves out) can hold the loop in a
  // small limit cycle: with the ball rows at the joint centres' midpoint,
  // Verlet at 4 steps per period and Euler at 3 stay near 0.02-0.04 rad up
  // to 1.15x the bound and run away from 1.2x. So the runaway side is
  // checked at 1.25x; the kp check only warns (docs/engine.md).
  EXPECT_TRUE(settled(simulateServo(integrator, dt, rate, 0.9 * kp_bound, kd, 0.0, 2.0)));
  EXPECT_TRUE(diverged(simulateServo(integrator, dt, rate, 1.25 * kp_bound, kd, 0.0, 2.0)));
}

INSTANTIATE_TEST_SUITE_P(Integrators, PredictedBound,
                         ::testing::Values(std::make_pair(Integrator::kVelocityVerlet, 1),
                                           std::make_pair(Integrator::kVelocityVerlet, 4),
                                           std::make_pair(Integrator::kRk4, 2),
                                           std::make_pair(Integrator::kSemiImplicitEuler, 1),
                                           std::make_pair(Integrator::kSemiImplicitEuler, 3)));

// The whole-tree check on a tree of one joint (the fixed-base pendulum)
// is the 1-DOF loop: the same period map, so the same spectral radius, for
// every integrator and servo period, stable or not; a free joint (no servo,
// no friction) stays at 1, neutral.
TEST(JointSpace, OneJointIsTheOneJointLoop) {
  RobotDescription robot = testing::singlePendulum();
  robot.joints[0].actuation.viscous = 0.05;
  ModelBuilder builder;
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  const double I = hingeEffectiveInertia(model)[0];
  const double dt = 1e-3;
  int growing = 0, decaying = 0;
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet,
                                Integrator::kPositionVerlet, Integrator::kRk4}) {
    for (int steps : {1, 3}) {
      const double T = steps * dt;
      for (double b : {0.5, 1.9, 2.5}) {  // kd T / I: within and past the reversal bounds
        SCOPED_TRACE(std::to_string(static_cast<int>(integrator)) + " steps " + std::to_string(steps) + " b " +
                     std::to_string(b));
        const ServoGains gains{0.3 * I / (T * T), b * I / T};
        const ServoLoopStability loop =
            analyseServoLoop({I, gains.kp, gains.kd, model.hinge_viscous[0], dt, steps, integrator});
        const JointSpaceCheck tree = checkJointSpace(model, {gains}, 1.0 / T, dt, integrator);
        EXPECT_EQ(tree.steps_per_period, steps);
        EXPECT_NEAR(tree.growth, loop.growth, 1e-9);
        EXPECT_EQ(tree.grows(), loop.growth > 1.0 + 1e-6);
        (tree.grows() ? growing : decaying) += 1;
        if (tree.grows()) {
          ASSERT_EQ(tree.hinges.size(), 1u);
          EXPECT_EQ(tree.hinges[0], 0);
        }
      }
    }
  }
  EXPECT_GE(growing, 8);
  EXPECT_GE(decaying, 8);
  RobotDescription free_joint = testing::singlePendulum();
  ModelBuilder free_builder;
  addRobot(free_builder, free_joint, {}, {}, {});
  const JointSpaceCheck neutral = checkJointSpace(free_builder.build(), {}, 0.0, dt, Integrator::kPositionVerlet);
  EXPECT_NEAR(neutral.growth, 1.0, 1e-12);
  EXPECT_FALSE(neutral.grows());
}

TEST(ServoStability, NamesTheJointAndGain) {
  // Two pendulums: one with kd past the bound, one fine.
  ModelBuilder builder;
  RobotDescription a = testing::singlePendulum();
  addRobot(builder, a, {}, {}, {});
  RobotDescription b = testing::singlePendulum(0.5, 0.2, 0.001);
  b.name = "second";
  b.links[0].name = "base2";
  b.links[1].name = "arm2";
  b.joints[0].name = "hinge2";
  addRobot(builder, b, {}, {}, {});
  const Model model = builder.build();
  const std::vector<double> inertia = hingeEffectiveInertia(model);
  const double dt = 1e-3;
  const std::vector<ServoGains> gains{{10.0, 0.5 * inertia[0] / dt}, {10.0, 2.5 * inertia[1] / dt}};
  const ServoStability check = checkServoStability(model, gains, 1000.0, dt, Integrator::kVelocityVerlet);
  ASSERT_EQ(check.joints.size(), 2u);
  EXPECT_TRUE(check.joints[0].loop.stable());
  EXPECT_TRUE(check.joints[1].loop.reverses);
  EXPECT_EQ(check.joints[1].gain, "kd");
  EXPECT_EQ(check.worst, 1);
  EXPECT_TRUE(check.anyReverses());
  const std::string text = describeServoCheck(model, check, check.joints[1]);
  EXPECT_NE(text.find("hinge2"), std::string::npos) << text;
  EXPECT_NE(text.find("kd T / I_eff = 2.5"), std::string::npos) << text;
  // A servo at 400 Hz on a 1 ms step holds each torque for 3 steps.
  const ServoStability slow = checkServoStability(model, gains, 400.0, dt, Integrator::kVelocityVerlet);
  EXPECT_EQ(slow.steps_per_period, 3);
  EXPECT_NEAR(slow.period, 3e-3, 1e-15);
}

}  // namespace
}  // namespace suitsim
