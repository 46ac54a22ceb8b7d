// The motion library (design/candidates.h): generated motions keep the
// joint limits and the speed limits, their segments are minimum-jerk (zero
// rate at each keyframe, peak 1.875 Δq / T halfway), and the library is the
// same for a seed whatever the thread count; limitViolation names the joint.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "suitsim/design/candidates.h"
#include "tiny_robot.h"

namespace suitsim::design {
namespace {

using testing::tinyDesignRobot;

GeneratorOptions tinyOptions() {
  GeneratorOptions o;
  o.start_s = 0.1;
  o.end_s = 3.0;
  o.segment_min_s = 0.2;
  o.segment_max_s = 0.5;
  return o;
}

TEST(Candidates, TheRobotIsDerivedFromTheScene) {
  const DesignRobot& robot = tinyDesignRobot();
  // The box carries the contact points: no leg, the arm's three joints free.
  EXPECT_TRUE(robot.leg_joints.empty());
  EXPECT_EQ(robot.free_joints.size(), 3u);
  ASSERT_EQ(robot.feet.size(), 1u);
  EXPECT_EQ(robot.model().frame_name[static_cast<std::size_t>(robot.feet[0])], "box");
  // A 0.3 m x 0.2 m footprint: the largest circle inside has radius 0.1 m.
  EXPECT_NEAR(inscribedRadius(robot.polygon), 0.1, 1e-6);
}

TEST(Candidates, GeneratedMotionsKeepTheLimitsAndAreMinimumJerk) {
  const DesignRobot& robot = tinyDesignRobot();
  const GeneratorOptions o = tinyOptions();
  const std::vector<CandidateMotion> library = generateCandidates(robot, o, 6, 11, 1);
  ASSERT_EQ(library.size(), 6u);
  for (const CandidateMotion& c : library) {
    ASSERT_GE(c.time.size(), 3u) << c.name;
    EXPECT_NEAR(c.time.front(), o.start_s, 1e-12);
    EXPECT_LE(c.time.back(), o.end_s + 1e-9);
    EXPECT_EQ(limitViolation(robot, c, o.speed_fraction), "") << c.name;
    const std::size_t nj = c.joints().size();
    std::vector<double> angle(nj), rate(nj);
    for (std::size_t k = 0; k < c.time.size(); ++k) {
      for (std::size_t i = 0; i < nj; ++i) {
        const int j = c.joints()[i];
        const double range = robot.stance.joint_upper(j) - robot.stance.joint_lower(j);
        EXPECT_GE(c.angles[k * nj + i], robot.stance.joint_lower(j) + o.limit_padding * range - 1e-12);
        EXPECT_LE(c.angles[k * nj + i], robot.stance.joint_upper(j) - o.limit_padding * range + 1e-12);
      }
      // Minimum jerk: at rest at every keyframe, at the keyframe's angles.
      c.reference.sample(c.time[k], angle.data(), rate.data());
      for (std::size_t i = 0; i < nj; ++i) {
        EXPECT_NEAR(angle[i], c.angles[k * nj + i], 1e-12);
        EXPECT_NEAR(rate[i], 0.0, 1e-12);
      }
      if (k + 1 == c.time.size()) break;
      // Halfway: the mean of the two keyframes at 1.875 times the mean rate.
      const double h = c.time[k + 1] - c.time[k];
      c.reference.sample(c.time[k] + 0.5 * h, angle.data(), rate.data());
      for (std::size_t i = 0; i < nj; ++i) {
        const double q0 = c.angles[k * nj + i], q1 = c.angles[(k + 1) * nj + i];
        EXPECT_NEAR(angle[i], 0.5 * (q0 + q1), 1e-12);
        EXPECT_NEAR(rate[i], 1.875 * (q1 - q0) / h, 1e-9);
      }
    }
    // Back to the initial pose at the end.
    for (std::size_t i = 0; i < nj; ++i) {
      EXPECT_NEAR(c.angles[(c.time.size() - 1) * nj + i], robot.stance.initial.joints(c.joints()[i]), 1e-12);
    }
  }
}

TEST(Candidates, SegmentsStretchToTheSpeedLimits) {
  DesignRobot robot = tinyDesignRobot();
  robot.velocity_limit.setConstant(0.8);  // rad/s
  GeneratorOptions o = tinyOptions();
  o.end_s = 8.0;
  o.speed_fraction = 0.5;
  for (const CandidateMotion& c : generateCandidates(robot, o, 4, 3, 1)) {
    EXPECT_EQ(limitViolation(robot, c, o.speed_fraction, 1e-3), "") << c.name;
    // The keyframes themselves say so: 1.875 Δq / T within the limit.
    double fastest = 0.0;
    const std::size_t nj = c.joints().size();
    for (std::size_t k = 0; k + 1 < c.time.size(); ++k) {
      for (std::size_t i = 0; i < nj; ++i) {
        fastest = std::max(fastest, 1.875 * std::abs(c.angles[(k + 1) * nj + i] - c.angles[k * nj + i]) /
                                        (c.time[k + 1] - c.time[k]));
      }
    }
    EXPECT_LE(fastest, 0.4 * (1.0 + 1e-9)) << c.name;
  }
}

TEST(Candidates, TheLibraryDependsOnTheSeedNotOnTheThreads) {
  const DesignRobot& robot = tinyDesignRobot();
  const std::vector<CandidateMotion> a = generateCandidates(robot, tinyOptions(), 5, 21, 1);
  const std::vector<CandidateMotion> b = generateCandidates(robot, tinyOptions(), 5, 21, 2);
  const std::vector<CandidateMotion> c = generateCandidates(robot, tinyOptions(), 5, 22, 1);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].time, b[k].time);
    EXPECT_EQ(a[k].angles, b[k].angles);
  }
  EXPECT_NE(a[0].angles, c[0].angles);
}

TEST(Candidates, LimitViolationNamesTheJointAndTheLimit) {
  DesignRobot robot = tinyDesignRobot();
  const int elbow = eval::jointIndex(robot.model(), "elbow");
  ASSERT_GE(elbow, 0);
  CandidateMotion c;
  c.time = {0.0, 1.0};
  c.angles = {0.4, 2.6};  // the elbow's upper limit is 2.5 rad
  c.reference = Motion::minimumJerk({elbow}, c.time, c.angles);
  const std::string beyond = limitViolation(robot, c, 1.0);
  EXPECT_NE(beyond.find("'elbow'"), std::string::npos) << beyond;
  EXPECT_NE(beyond.find("outside its limits [-2.5, 2.5]"), std::string::npos) << beyond;
  // 1.875 * 2 rad / 1 s = 3.75 rad/s against a limit of 4 rad/s, halved.
  c.angles = {0.4, 2.4};
  c.reference = Motion::minimumJerk({elbow}, c.time, c.angles);
  robot.velocity_limit(elbow) = 4.0;
  EXPECT_EQ(limitViolation(robot, c, 1.0, 1e-3), "");
  const std::string fast = limitViolation(robot, c, 0.5, 1e-3);
  EXPECT_NE(fast.find("'elbow'"), std::string::npos) << fast;
  EXPECT_NE(fast.find("faster than 2 rad/s"), std::string::npos) << fast;
}

TEST(Candidates, ACsvMotionMustNameDrivenJoints) {
  const DesignRobot& robot = tinyDesignRobot();
  io::MotionTable table;
  table.joints = {"shoulder", "knee"};
  table.time = {0.0, 1.0};
  table.angles = {0.2, 0.0, 0.3, 0.0};
  table.header_line = 3;  // after two '#' lines: the column is blamed there
  try {
    candidateFromTable(robot, table, "lib/a.csv");
    FAIL() << "no error";
  } catch (const io::SceneError& e) {
    EXPECT_STREQ(e.what(), "lib/a.csv:3: column 'knee' names no joint of the robot that the servo drives");
  }
  table.joints = {"shoulder"};
  table.angles = {0.2, 0.3};
  const CandidateMotion c = candidateFromTable(robot, table, "lib/a.csv");
  EXPECT_EQ(c.name, "a");
  EXPECT_FALSE(c.minimum_jerk);
  EXPECT_DOUBLE_EQ(c.duration(), 1.0);
}

}  // namespace
}  // namespace suitsim::design
