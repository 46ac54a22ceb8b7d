// Checking candidates (design/assessment.h, self_collision.h): the ZMP of a
// static pose is the centre of mass's projection, closed form, whether the
// wrench comes from the model or from its base parameters; a motion whose
// ZMP leaves the shrunk polygon is rejected, as is one whose capsules meet;
// segment distances against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "suitsim/design/assessment.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/rigid/regressor.h"
#include "suitsim/scene/urdf.h"
#include "tiny_robot.h"

namespace suitsim::design {
namespace {

using Eigen::Vector3d;
using testing::tinyDesignRobot;

/// Holds `angles` (the arm's yaw, shoulder, elbow) from t = 0 to `seconds`.
CandidateMotion staticPose(const DesignRobot& robot, const std::vector<double>& angles, double seconds) {
  CandidateMotion c;
  c.name = "still";
  c.time = {0.0, seconds};
  c.angles = angles;
  c.angles.insert(c.angles.end(), angles.begin(), angles.end());
  std::vector<int> joints;
  for (const char* name : {"yaw", "shoulder", "elbow"}) joints.push_back(eval::jointIndex(robot.model(), name));
  c.reference = Motion::minimumJerk(joints, c.time, c.angles);
  return c;
}

/// polygonMargin of the centre of mass's ground projection at the pose.
double comMargin(const DesignRobot& robot, const std::vector<double>& angles) {
  const eval::RigidModel& m = robot.model();
  eval::Configuration q = robot.stance.initial;
  q.joints(eval::jointIndex(m, "yaw")) = angles[0];
  q.joints(eval::jointIndex(m, "shoulder")) = angles[1];
  q.joints(eval::jointIndex(m, "elbow")) = angles[2];
  eval::RigidData data(m);
  eval::placeBaseOnSupport(m, data, robot.foot_pose.front(), q);
  const Vector3d com = eval::centerOfMass(m, data, q);
  return eval::polygonMargin(robot.polygon, Eigen::Vector2d(com.x(), com.y()));
}

TEST(Assessment, AStaticPosesZmpIsItsCentreOfMassProjection) {
  const DesignRobot& robot = tinyDesignRobot();
  const SelfCollision collision(robot.model(), robot.stance.initial);
  // The arm reaching out sideways shifts the centre of mass toward the side
  // edge (y = 0.1 m): the margin is 0.1 − y_com.
  const std::vector<double> pose = {1.5, 1.2, 0.3};
  const double expected = comMargin(robot, pose);
  EXPECT_LT(expected, comMargin(robot, {0.0, 0.2, 0.4}));
  AssessmentOptions o;
  o.speed_fraction = std::numeric_limits<double>::infinity();
  const Assessment a = assessCandidate(robot, collision, staticPose(robot, pose, 1.0), o);
  ASSERT_TRUE(a.accepted) << a.rejection;
  EXPECT_NEAR(a.zmp_margin, expected, 1e-9);
  // The same from the base parameters: the base rows Y_o φ are the wrench.
  o.balance_phi = robot.base.fromStandard(eval::standardParameters(robot.model()));
  const Assessment b = assessCandidate(robot, collision, staticPose(robot, pose, 1.0), o);
  EXPECT_NEAR(b.zmp_margin, expected, 1e-9);
  // Asked for more margin than the pose has: rejected, with the figures.
  o.zmp_margin = expected + 0.01;
  const Assessment c = assessCandidate(robot, collision, staticPose(robot, pose, 1.0), o);
  EXPECT_FALSE(c.accepted);
  EXPECT_EQ(c.rejection.rfind("balance: ZMP ", 0), 0u) << c.rejection;
  EXPECT_TRUE(c.triangle.size() == 0);
}

TEST(Assessment, AMotionLongerThanATrialOrBeyondItsLimitsIsRejected) {
  const DesignRobot& robot = tinyDesignRobot();
  const SelfCollision collision(robot.model(), robot.stance.initial);
  AssessmentOptions o;
  o.max_duration = 0.5;
  const Assessment a = assessCandidate(robot, collision, staticPose(robot, {0.0, 0.2, 0.4}, 1.0), o);
  EXPECT_EQ(a.rejection, "duration: lasts 1 s, longer than a trial's 0.5 s");
  o.max_duration = 0.0;
  const Assessment b = assessCandidate(robot, collision, staticPose(robot, {0.0, 0.2, 2.7}, 1.0), o);
  EXPECT_EQ(b.rejection.rfind("limits: joint 'elbow'", 0), 0u) << b.rejection;
}

TEST(Assessment, TheForearmFoldedIntoTheBoxCollides) {
  const DesignRobot& robot = tinyDesignRobot();
  const SelfCollision collision(robot.model(), robot.stance.initial);
  EXPECT_GT(collision.numPairs(), 0);
  AssessmentOptions o;
  o.speed_fraction = std::numeric_limits<double>::infinity();
  // Shoulder and elbow folded down: the forearm's capsule reaches into the box's.
  const Assessment a = assessCandidate(robot, collision, staticPose(robot, {0.0, 1.95, 2.4}, 0.5), o);
  EXPECT_FALSE(a.accepted);
  EXPECT_EQ(a.rejection.rfind("collision: ", 0), 0u) << a.rejection;
  const Assessment b = assessCandidate(robot, collision, staticPose(robot, {0.0, 0.2, 0.4}, 0.5), o);
  EXPECT_TRUE(b.accepted) << b.rejection;
  EXPECT_GT(b.clearance, 0.0);
}

// A base with a box, a massless link with a sphere, a tip with a cylinder
// and a hand fixed to it whose collision is a mesh, and a far link with a
// mesh only. The box is checked as the capsule that contains it (along its
// longest edge, radius its cross-section's half diagonal), the cylinder as
// the capsule of the same segment and radius, the meshes as capsules from
// inertia: the hand's own (it shares a body with the cylinder), the far
// link's body's.
constexpr const char* kShapesUrdf = R"(<robot name="shapes">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.4 0.1"/></geometry></collision>
  </link>
  <link name="mid"><collision><geometry><sphere radius="0.05"/></geometry></collision></link>
  <link name="tip">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.05" length="0.2"/></geometry></collision>
  </link>
  <link name="hand">
    <inertial><origin xyz="0 0 0.05"/><mass value="0.5"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="hand.stl"/></geometry></collision>
  </link>
  <link name="far">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="far.stl"/></geometry></collision>
  </link>
  <joint name="lift" type="revolute"><parent link="base"/><child link="mid"/><axis xyz="0 1 0"/>
    <limit lower="-3.2" upper="3.2" effort="10" velocity="5"/></joint>
  <joint name="bend" type="revolute"><parent link="mid"/><child link="tip"/><origin xyz="0 0 0.5"/><axis xyz="0 1 0"/>
    <limit lower="-3.2" upper="3.2" effort="10" velocity="5"/></joint>
  <joint name="wrist" type="fixed"><parent link="tip"/><child link="hand"/><origin xyz="0 0 0.3"/></joint>
  <joint name="swing" type="revolute"><parent link="base"/><child link="far"/><origin xyz="3 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="5"/></joint>
</robot>)";

TEST(SelfCollisionShapes, UrdfPrimitivesWhereGivenCapsulesFromInertiaElsewhere) {
  const RobotDescription robot = io::parseUrdf(kShapesUrdf, "shapes.urdf");
  const eval::RigidModel m = eval::makeRigidModel(robot);
  const eval::Configuration initial(Eigen::VectorXd::Zero(m.num_joints));
  const SelfCollision collision(m, robot.links, initial);
  ASSERT_EQ(collision.links().size(), robot.links.size());
  auto report = [&](const std::string& name) {
    for (const LinkCollision& l : collision.links()) {
      if (l.link == name) return l;
    }
    ADD_FAILURE() << name;
    return LinkCollision{};
  };
  EXPECT_EQ(report("base").shape, "urdf");
  EXPECT_EQ(report("base").detail, "box");
  EXPECT_EQ(report("mid").detail, "sphere");
  EXPECT_EQ(report("tip").detail, "cylinder");
  EXPECT_EQ(report("hand").shape, "inertia");
  EXPECT_EQ(report("hand").body, "tip");
  EXPECT_EQ(report("hand").detail, "collision is a mesh");
  EXPECT_EQ(report("far").shape, "inertia");
  EXPECT_EQ(collision.numCapsules(), 5);
  // Checked: base-tip and tip-far (parents and children, siblings are not).
  EXPECT_EQ(collision.numPairs(), 2);

  const double box_radius = 0.5 * std::sqrt(0.2 * 0.2 + 0.1 * 0.1);
  eval::RigidData data(m);
  eval::forwardKinematics(m, data, initial);
  std::pair<int, int> pair;
  // Upright: the cylinder spans z = 0.6 to 0.8 above the box's axis.
  EXPECT_NEAR(collision.clearance(data, &pair), 0.6 - box_radius - 0.05, 1e-12);
  EXPECT_EQ(m.body_name[static_cast<std::size_t>(pair.first)], "base");
  EXPECT_EQ(m.body_name[static_cast<std::size_t>(pair.second)], "tip");
  // Bent down: the cylinder spans z = 0.2 to 0.4, and the hand's capsule
  // (from z = 0.2 down to 0.1, radius sqrt(2 · 1e-4 / 0.5)) reaches into
  // the box's.
  eval::Configuration bent = initial;
  bent.joints(eval::jointIndex(m, "bend")) = std::numbers::pi;
  eval::forwardKinematics(m, data, bent);
  EXPECT_NEAR(collision.clearance(data), 0.1 - box_radius - std::sqrt(2e-4 / 0.5), 1e-12);
  // Without the URDF's shapes every body is one capsule from inertia.
  const SelfCollision coarse(m, initial);
  EXPECT_EQ(coarse.numCapsules(), 3);  // base, tip (with the hand), far; mid is massless
}

TEST(Assessment, SegmentDistancesMatchClosedForms) {
  // Parallel segments 0.3 apart, overlapping.
  EXPECT_NEAR(segmentDistance(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0.5, 0.3, 0), Vector3d(2, 0.3, 0)), 0.3,
              1e-15);
  // Crossing at right angles, 0.2 apart along z.
  EXPECT_NEAR(segmentDistance(Vector3d(-1, 0, 0), Vector3d(1, 0, 0), Vector3d(0, -1, 0.2), Vector3d(0, 1, 0.2)), 0.2,
              1e-15);
  // End to end: (1, 0, 0) to (2, 1, 0).
  EXPECT_NEAR(segmentDistance(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(2, 1, 0), Vector3d(3, 1, 0)),
              std::sqrt(2.0), 1e-15);
  // A point (zero-length segment) above a segment's middle.
  EXPECT_NEAR(segmentDistance(Vector3d(0.5, 0, 0.4), Vector3d(0.5, 0, 0.4), Vector3d(0, 0, 0), Vector3d(1, 0, 0)), 0.4,
              1e-15);
}

}  // namespace
}  // namespace suitsim::design
