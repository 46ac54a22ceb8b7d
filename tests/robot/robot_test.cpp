// RobotDescription's lookups on a description built in code (no file), so
// these hold for any producer, not just the URDF reader.
#include "suitsim/robot/robot.h"

#include <gtest/gtest.h>

namespace suitsim {
namespace {

RobotDescription threeLinkChain() {
  RobotDescription robot;
  robot.name = "chain";
  robot.links.resize(3);
  robot.links[0].name = "base";
  robot.links[1].name = "upper";
  robot.links[1].inertial.mass = 1.25;
  robot.links[1].parent_joint = 0;
  robot.links[2].name = "lower";
  robot.links[2].inertial.mass = 0.5;
  robot.links[2].parent_joint = 1;
  robot.joints.resize(2);
  robot.joints[0].name = "weld";
  robot.joints[0].type = JointType::kFixed;
  robot.joints[0].parent_link = 0;
  robot.joints[0].child_link = 1;
  robot.joints[1].name = "hinge";
  robot.joints[1].type = JointType::kContinuous;
  robot.joints[1].parent_link = 1;
  robot.joints[1].child_link = 2;
  robot.root_link = 0;
  return robot;
}

TEST(RobotDescriptionTest, FindsLinksAndJointsByName) {
  const RobotDescription robot = threeLinkChain();
  EXPECT_EQ(robot.findLink("base"), 0);
  EXPECT_EQ(robot.findLink("lower"), 2);
  EXPECT_EQ(robot.findLink("missing"), -1);
  EXPECT_EQ(robot.findJoint("hinge"), 1);
  EXPECT_EQ(robot.findJoint("upper"), -1);  // a link name is not a joint name
}

TEST(RobotDescriptionTest, TotalMassSumsLinks) {
  EXPECT_DOUBLE_EQ(threeLinkChain().totalMass(), 1.75);
  EXPECT_EQ(RobotDescription{}.totalMass(), 0.0);
}

TEST(RobotDescriptionTest, MovableJointsSkipFixedFloatingAndPlanar) {
  RobotDescription robot = threeLinkChain();
  EXPECT_EQ(robot.movableJoints(), std::vector<int>{1});
  for (JointType type : {JointType::kRevolute, JointType::kPrismatic, JointType::kContinuous}) {
    robot.joints[0].type = type;
    EXPECT_EQ(robot.movableJoints(), (std::vector<int>{0, 1}));
  }
  for (JointType type : {JointType::kFixed, JointType::kFloating, JointType::kPlanar}) {
    robot.joints[0].type = type;
    EXPECT_EQ(robot.movableJoints(), std::vector<int>{1});
  }
}

}  // namespace
}  // namespace suitsim
