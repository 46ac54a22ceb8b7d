// URDF <mimic> couplings in the particle engine (engine/src/hinges.cpp):
// a follower hinge tracks multiplier x leader + offset while the leader is
// driven, the coupling torques are internal pairs (momentum is conserved),
// and the constraint does no work (energy is conserved).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "robots.h"
#include "run_helpers.h"
#include "suitsim/articulated.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

struct Coupled {
  int leader = -1, follower = -1;
  double multiplier = 1.0, offset = 0.0;
};

// The couplings of a compiled robot, as hinge indices.
std::vector<Coupled> couplingsOf(const RobotDescription& robot, const CompiledRobot& compiled) {
  std::vector<Coupled> out;
  for (std::size_t j = 0; j < robot.joints.size(); ++j) {
    const int l = robot.mimicLeader(static_cast<int>(j));
    if (l < 0) continue;
    out.push_back({compiled.joint_hinge[l], compiled.joint_hinge[j], robot.joints[j].mimic.multiplier,
                   robot.joints[j].mimic.offset});
  }
  return out;
}

// Worst |theta_f - (m theta_l + c)| over the couplings (angles wrapped).
double worstCouplingError(const Model& model, const State& state, const std::vector<Coupled>& couplings) {
  double worst = 0.0;
  for (const Coupled& c : couplings) {
    const double e = jointAngle(model, state, c.follower) - c.multiplier * jointAngle(model, state, c.leader) - c.offset;
    worst = std::max(worst, std::abs(std::remainder(e, 2.0 * M_PI)));
  }
  return worst;
}

// The thumb of the fixed hand under gravity, driven by a motor torque that
// swings it through about +-0.5 rad; returns the worst coupling error and
// the thumb's range.
struct Tracking {
  double worst_error = 0.0;
  double leader_range = 0.0;
};
Tracking driveThumb(const RobotDescription& robot, double duration, double dt) {
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  const CompiledRobot compiled = addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  const int thumb = compiled.joint_hinge[robot.findJoint("thumb")];
  // Every follower of the hand, coupled or not: the reference the test checks.
  const RobotDescription reference = testing::mimicHand(false);
  std::vector<Coupled> couplings;
  for (const char* name : {"thumb_tip", "finger", "finger_tip", "finger_side"}) {
    const RobotJoint& j = reference.joints[reference.findJoint(name)];
    couplings.push_back({thumb, compiled.joint_hinge[robot.findJoint(name)], j.mimic.multiplier, j.mimic.offset});
  }
  Tracking out;
  double lo = 1e9, hi = -1e9;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int k = 0; k < steps; ++k) {
    const double t = k * dt;
    // A torque (k_T = 1) that drives the thumb, its fingers' load included.
    state.hinge_current[thumb] = 0.02 * std::sin(2.0 * M_PI * 1.5 * t) + 0.008 * std::sin(2.0 * M_PI * 4.0 * t);
    step(model, state, ws, Integrator::kVelocityVerlet, dt);
    out.worst_error = std::max(out.worst_error, worstCouplingError(model, state, couplings));
    const double q = jointAngle(model, state, thumb);
    lo = std::min(lo, q);
    hi = std::max(hi, q);
  }
  out.leader_range = hi - lo;
  return out;
}

TEST(Couplings, CompiledFromMimicJoints) {
  const RobotDescription robot = testing::mimicHand(false);
  ModelBuilder builder;
  RobotPose pose;
  pose.joint_angles.assign(robot.joints.size(), 0.0);
  pose.joint_angles[robot.findJoint("thumb")] = 0.3;
  pose.joint_angles[robot.findJoint("finger")] = -1.0;  // overridden: the coupling sets it
  const CompiledRobot compiled = addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  ASSERT_EQ(model.num_couplings, 4);
  const int thumb = compiled.joint_hinge[robot.findJoint("thumb")];
  const int finger = compiled.joint_hinge[robot.findJoint("finger")];
  EXPECT_EQ(model.hinge_follower_coupling[thumb], -1);
  const int c = model.hinge_follower_coupling[finger];
  ASSERT_GE(c, 0);
  EXPECT_EQ(model.coupling_leader[c], thumb);
  EXPECT_EQ(model.coupling_multiplier[c], -1.5);
  EXPECT_EQ(model.coupling_offset[c], 0.1);
  // Followers start where their coupling puts them.
  const State state = makeState(model);
  EXPECT_NEAR(jointAngle(model, state, thumb), 0.3, 1e-12);
  EXPECT_NEAR(jointAngle(model, state, finger), -1.5 * 0.3 + 0.1, 1e-12);
  EXPECT_LT(worstCouplingError(model, state, couplingsOf(robot, compiled)), 1e-12);
}

TEST(Couplings, FollowersTrackTheDrivenLeader) {
  const RobotDescription robot = testing::mimicHand(false);
  const Tracking coupled = driveThumb(robot, 2.0, 1e-4);
  const Tracking half = driveThumb(robot, 2.0, 5e-5);
  std::printf("coupled: worst |theta_f - m theta_l - c| %.3g rad (dt 0.1 ms), %.3g rad (dt 0.05 ms) over a thumb "
              "range of %.3g rad\n",
              coupled.worst_error, half.worst_error, coupled.leader_range);
  EXPECT_GT(coupled.leader_range, 0.4);  // the thumb really moves
  EXPECT_LT(coupled.worst_error, 1e-5);

  // The same hand with the <mimic> elements removed: the fingers swing
  // freely, far from the couplings' angles (the check above can fail).
  RobotDescription free_hand = robot;
  for (RobotJoint& j : free_hand.joints) j.mimic = {};
  const Tracking uncoupled = driveThumb(free_hand, 2.0, 1e-4);
  EXPECT_GT(uncoupled.worst_error, 0.1);
}

TEST(Couplings, FloatingRobotConservesMomentumWhileCoupledJointsMove) {
  // No gravity, no ground: motor torques and coupling torques are internal
  // pairs and the hinge constraint forces internal sets, so linear and
  // angular momentum keep their initial values to round-off. The humanoid
  // gets couplings between non-adjacent joints (an elbow following its
  // shoulder, a knee its hip) besides the hand's.
  RobotDescription robot = testing::floatingHumanoid();
  robot.joints[robot.findJoint("l_elbow")].mimic = {"l_shoulder_pitch", 0.5, 0.2};
  robot.joints[robot.findJoint("r_knee")].mimic = {"r_hip_pitch", -2.0, 0.3};
  robot.joints[robot.findJoint("l_knee")].mimic = {"r_hip_pitch", 1.5, 0.1};
  for (const RobotDescription& r : {robot, testing::mimicHand(true)}) {
    ModelBuilder builder;
    builder.setGravity({0.0, 0.0, 0.0});
    const CompiledRobot compiled = addRobot(builder, r, {}, {}, {});
    const Model model = builder.build();
    ASSERT_GT(model.num_couplings, 0);
    State state = makeState(model);
    Workspace ws(model);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int i = 0; i < model.num_particles; ++i) state.velocity.set(i, {0.1, -0.05, 0.02});
    testing::MomentumDrift drift(model, state);
    const Vec3& l0 = drift.initialLinear();
    const Vec3& h0 = drift.initialAngular();
    const double scale_l = std::hypot(l0[0], l0[1], l0[2]);
    const double torque = r.name == "mimic_hand" ? 0.02 : 5.0;
    double worst_e = 0.0, range = 0.0;
    const std::vector<Coupled> couplings = couplingsOf(r, compiled);
    const int leader = couplings[0].leader;
    const double start = jointAngle(model, state, leader);
    for (int k = 0; k < 5000; ++k) {
      if (k % 100 == 0) {
        for (int h = 0; h < model.num_hinges; ++h) {
          state.hinge_current[h] = model.hinge_follower_coupling[h] >= 0 ? 0.0 : torque * u(rng);
        }
      }
      step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
      drift.add(state);
      worst_e = std::max(worst_e, worstCouplingError(model, state, couplings));
      range = std::max(range, std::abs(jointAngle(model, state, leader) - start));
    }
    const double scale_h = std::hypot(h0[0], h0[1], h0[2]);
    const double worst_l = drift.linear(), worst_h = drift.angular();
    std::printf("%s: momentum drift linear %.3g (of %.3g kg m/s), angular %.3g (of %.3g kg m^2/s); coupling "
                "error %.3g rad, leader moved %.3g rad\n",
                r.name.c_str(), worst_l, scale_l, worst_h, scale_h, worst_e, range);
    EXPECT_GT(range, 0.1) << r.name;
    EXPECT_LT(worst_l, 1e-10 * scale_l) << r.name;
    EXPECT_LT(worst_h, 1e-10 * std::max(scale_h, scale_l)) << r.name;
    EXPECT_LT(worst_e, 1e-6) << r.name;
  }
}

TEST(Couplings, ConstraintDoesNoWork) {
  // The fixed hand released from a raised thumb under gravity, no friction
  // and no torque: the couplings and hinges are ideal constraints, so the
  // mechanical energy stays where it was (to the integrator's error),
  // while the whole hand swings.
  const RobotDescription robot = testing::mimicHand(false);
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  RobotPose pose;
  pose.joint_angles.assign(robot.joints.size(), 0.0);
  pose.joint_angles[robot.findJoint("thumb")] = 0.6;
  const CompiledRobot compiled = addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  const double e0 = computeEnergy(model, state).total();
  const int thumb = compiled.joint_hinge[robot.findJoint("thumb")];
  double worst = 0.0, lowest = 1e9, kinetic = 0.0;
  for (int k = 0; k < 20000; ++k) {
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    const Energy e = computeEnergy(model, state);
    worst = std::max(worst, std::abs(e.total() - e0));
    kinetic = std::max(kinetic, e.kinetic);
    lowest = std::min(lowest, jointAngle(model, state, thumb));
  }
  std::printf("energy: worst change %.3g J of a peak kinetic energy %.3g J\n", worst, kinetic);
  EXPECT_LT(lowest, 0.0);  // it swung through the bottom
  EXPECT_LT(worst, 1e-4 * kinetic);
}

TEST(Couplings, FrozenLeaderOrFollower) {
  // A follower whose leader is fixed (a scene froze it) cannot be coupled.
  RobotDescription robot = testing::mimicHand(false);
  robot.joints[robot.findJoint("thumb")].type = JointType::kFixed;
  ModelBuilder builder;
  try {
    addRobot(builder, robot, {}, {}, {});
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'thumb'"), std::string::npos) << e.what();
  }
  // A fixed (frozen) follower is no longer coupled; the others still are.
  RobotDescription hand = testing::mimicHand(false);
  hand.joints[hand.findJoint("finger_tip")].type = JointType::kFixed;
  EXPECT_EQ(hand.mimicLeader(hand.findJoint("finger_tip")), -1);
  ModelBuilder b2;
  addRobot(b2, hand, {}, {}, {});
  EXPECT_EQ(b2.build().num_couplings, 3);
}

TEST(Couplings, BuilderRejectsChainsAndRepeats) {
  const RobotDescription robot = testing::mimicHand(false);
  RobotDescription plain = robot;
  for (RobotJoint& j : plain.joints) j.mimic = {};
  auto expectError = [&](const std::vector<CouplingSpec>& specs, const std::string& words) {
    ModelBuilder builder;
    addRobot(builder, plain, {}, {}, {});
    try {
      for (const CouplingSpec& s : specs) builder.addCoupling(s);
      FAIL() << "expected ModelError: " << words;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectError({{0, 0, 1.0, 0.0}}, "itself");
  expectError({{0, 1, 1.0, 0.0}, {1, 2, 1.0, 0.0}}, "no chains");
  expectError({{0, 1, 1.0, 0.0}, {2, 0, 1.0, 0.0}}, "no chains");
  expectError({{0, 1, 1.0, 0.0}, {2, 1, 1.0, 0.0}}, "already follows");
  expectError({{0, 1, std::nan(""), 0.0}}, "finite");
  expectError({{0, 9, 1.0, 0.0}}, "out of range");
}

}  // namespace
}  // namespace suitsim
