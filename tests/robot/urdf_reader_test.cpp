// URDF reader: JVRC-1 against numbers computed here from the file itself,
// small fixtures for frames, joint types and clutter, and one fixture per
// rejected input, each asserting file, line and the element or attribute.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "suitsim/scene/urdf.h"

namespace suitsim::io {
namespace {

const std::string kData = SUITSIM_SOURCE_DIR "/tests/robot/data/";
const std::string kJvrc1 = SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf";
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

const RobotJoint& joint(const RobotDescription& robot, const std::string& name) {
  const int j = robot.findJoint(name);
  EXPECT_GE(j, 0) << name;
  return robot.joints.at(static_cast<std::size_t>(j));
}

const RobotLink& link(const RobotDescription& robot, const std::string& name) {
  const int l = robot.findLink(name);
  EXPECT_GE(l, 0) << name;
  return robot.links.at(static_cast<std::size_t>(l));
}

void expectVec3(const Vec3& got, const Vec3& want, double tol = 1e-12) {
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], want[k], tol) << "component " << k;
}

/// Parents before children, and the invariant the header promises:
/// links[0] is the root and joint j's child is link j + 1.
void expectTreeOrder(const RobotDescription& robot) {
  ASSERT_EQ(robot.root_link, 0);
  ASSERT_EQ(robot.links.size(), robot.joints.size() + 1);
  EXPECT_EQ(robot.links[0].parent_joint, -1);
  for (std::size_t j = 0; j < robot.joints.size(); ++j) {
    const RobotJoint& jt = robot.joints[j];
    EXPECT_EQ(jt.child_link, static_cast<int>(j) + 1) << jt.name;
    EXPECT_LT(jt.parent_link, jt.child_link) << jt.name;
    EXPECT_EQ(robot.links[static_cast<std::size_t>(jt.child_link)].parent_joint, static_cast<int>(j)) << jt.name;
    // The parent link's own parent joint (if any) comes earlier.
    EXPECT_LT(robot.links[static_cast<std::size_t>(jt.parent_link)].parent_joint, static_cast<int>(j)) << jt.name;
  }
}

// ---- JVRC-1 -----------------------------------------------------------------

class UrdfJvrc1Test : public ::testing::Test {
 protected:
  void SetUp() override {
    robot_ = loadUrdf(kJvrc1);
  }
  RobotDescription robot_;
};

TEST_F(UrdfJvrc1Test, CountsLinksAndJointsByType) {
  EXPECT_EQ(robot_.name, "jvrc1");
  EXPECT_EQ(robot_.links.size(), 60u);
  EXPECT_EQ(robot_.joints.size(), 59u);
  int revolute = 0, fixed = 0;
  for (const RobotJoint& j : robot_.joints) {
    revolute += j.type == JointType::kRevolute;
    fixed += j.type == JointType::kFixed;
  }
  EXPECT_EQ(revolute, 44);
  EXPECT_EQ(fixed, 15);
  EXPECT_EQ(robot_.movableJoints().size(), 44u);
  EXPECT_TRUE(robot_.floating_base);
}

TEST_F(UrdfJvrc1Test, TotalMassEqualsSumOfMassElements) {
  // Independent of the reader: strip comments, then add up every
  // <mass value="..."> in the text.
  const std::string text = std::regex_replace(readText(kJvrc1), std::regex("<!--[\\s\\S]*?-->"), "");
  const std::regex mass_re("<mass\\s+value\\s*=\\s*\"([^\"]*)\"");
  double expected = 0.0;
  int count = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), mass_re), end; it != end; ++it) {
    expected += std::stod((*it)[1].str());
    ++count;
  }
  ASSERT_GT(count, 0);
  EXPECT_NEAR(robot_.totalMass(), expected, 1e-9 * expected);
  int massive = 0;
  for (const RobotLink& l : robot_.links) massive += l.inertial.mass > 0.0;
  EXPECT_EQ(massive, count);  // JVRC-1 has no zero <mass> entries
}

TEST_F(UrdfJvrc1Test, RootIsBaseLinkAndOrderIsParentsFirst) {
  EXPECT_EQ(robot_.links[static_cast<std::size_t>(robot_.root_link)].name, "base_link");
  EXPECT_EQ(robot_.links[0].inertial.mass, 0.0);  // no <inertial>: massless
  expectTreeOrder(robot_);
}

TEST_F(UrdfJvrc1Test, JointAxesLimitsAndFrames) {
  const RobotJoint& hip = joint(robot_, "R_HIP_P");
  EXPECT_EQ(hip.type, JointType::kRevolute);
  expectVec3(hip.axis, {0.0, 1.0, 0.0});
  EXPECT_DOUBLE_EQ(hip.lower, -2.09439510239);
  EXPECT_DOUBLE_EQ(hip.upper, 0.785398163397);
  EXPECT_DOUBLE_EQ(hip.effort_limit, 100.0);
  EXPECT_DOUBLE_EQ(hip.velocity_limit, 12.56636);
  expectVec3(hip.origin_xyz, {0.0, -0.096, 0.0});
  EXPECT_EQ(robot_.links[static_cast<std::size_t>(hip.parent_link)].name, "PELVIS_S");
  EXPECT_EQ(robot_.links[static_cast<std::size_t>(hip.child_link)].name, "R_HIP_P_S");

  const RobotJoint& yaw = joint(robot_, "R_HIP_Y");
  expectVec3(yaw.axis, {0.0, 0.0, 1.0});
  EXPECT_DOUBLE_EQ(yaw.lower, -0.523598775598);

  const RobotJoint& knee = joint(robot_, "L_KNEE");
  expectVec3(knee.axis, {0.0, 1.0, 0.0});
  EXPECT_DOUBLE_EQ(knee.lower, 0.0);
  EXPECT_DOUBLE_EQ(knee.upper, 2.61799387799);
  expectVec3(knee.origin_xyz, {-0.02, -2.77555756156e-17, -0.389});

  const RobotJoint& waist = joint(robot_, "waist");
  EXPECT_EQ(waist.type, JointType::kFixed);
  EXPECT_EQ(robot_.links[static_cast<std::size_t>(waist.parent_link)].name, "base_link");

  // The fingers follow the thumb: <mimic joint="R_UTHUMB" multiplier="2" offset="0"/> and -2 for the others.
  const RobotJoint& lthumb = joint(robot_, "R_LTHUMB");
  EXPECT_EQ(lthumb.mimic.joint, "R_UTHUMB");
  EXPECT_EQ(lthumb.mimic.multiplier, 2.0);
  EXPECT_EQ(lthumb.mimic.offset, 0.0);
  EXPECT_EQ(joint(robot_, "L_LLITTLE").mimic.joint, "L_UTHUMB");
  EXPECT_EQ(joint(robot_, "L_LLITTLE").mimic.multiplier, -2.0);
  EXPECT_EQ(robot_.mimicLeader(robot_.findJoint("L_LLITTLE")), robot_.findJoint("L_UTHUMB"));
  EXPECT_EQ(joint(robot_, "R_HIP_P").mimic.joint, "");
  EXPECT_EQ(robot_.mimicLeader(robot_.findJoint("R_HIP_P")), -1);
  int followers = 0;
  for (const RobotJoint& j : robot_.joints) followers += j.mimic.joint.empty() ? 0 : 1;
  EXPECT_EQ(followers, 10);
}

TEST_F(UrdfJvrc1Test, LinkInertials) {
  const RobotLink& pelvis = link(robot_, "PELVIS_S");
  EXPECT_DOUBLE_EQ(pelvis.inertial.mass, 10.0);
  expectVec3(pelvis.inertial.com, {-0.01, 0.0, 0.034});
  EXPECT_DOUBLE_EQ(pelvis.inertial.inertia[0], 0.0895833333333);
  EXPECT_DOUBLE_EQ(pelvis.inertial.inertia[1], 0.0895833333333);
  EXPECT_DOUBLE_EQ(pelvis.inertial.inertia[2], 0.1125);
  EXPECT_EQ(pelvis.inertial.inertia[3], 0.0);
  EXPECT_EQ(link(robot_, "r_wrist").inertial.mass, 0.0);
}

// ---- small fixtures ---------------------------------------------------------

TEST(UrdfReaderTest, InertialRpyIsFoldedIntoLinkAxes) {
  const RobotDescription robot = loadUrdf(kData + "inertial_rpy.urdf");
  ASSERT_EQ(robot.links.size(), 2u);
  // diag(1, 2, 3) turned 45 degrees about z, by hand with c = s = 1/sqrt(2):
  // ixx = c^2 1 + s^2 2 = 1.5, iyy = s^2 1 + c^2 2 = 1.5, ixy = c s (1 - 2) = -0.5.
  const LinkInertial& base = link(robot, "base").inertial;
  EXPECT_DOUBLE_EQ(base.mass, 2.5);
  expectVec3(base.com, {0.1, -0.2, 0.3});
  const std::array<double, 6> base_expected{1.5, 1.5, 3.0, -0.5, 0.0, 0.0};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(base.inertia[k], base_expected[k], 1e-12) << k;

  // Roll 90 then yaw 90: R = Rz Ry Rx sends the inertial x axis to link y,
  // y to z and z to x, so diag(1, 2, 3) reads diag(3, 1, 2) in link axes.
  // (The opposite composition, Rx Rz, would give diag(2, 3, 1).)
  const LinkInertial& arm = link(robot, "arm").inertial;
  const std::array<double, 6> arm_expected{3.0, 1.0, 2.0, 0.0, 0.0, 0.0};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(arm.inertia[k], arm_expected[k], 1e-12) << k;

  // The joint's own origin is stored as written.
  const RobotJoint& shoulder = joint(robot, "shoulder");
  expectVec3(shoulder.origin_xyz, {0.0, 0.0, 0.5});
  expectVec3(shoulder.origin_rpy, {0.1, 0.2, 0.3});
}

TEST(UrdfReaderTest, InertiasOnTheEdgeOfValidityLoad) {
  const RobotDescription robot = loadUrdf(kData + "inertia_edge_cases.urdf");
  EXPECT_DOUBLE_EQ(link(robot, "plate").inertial.inertia[2], 0.000358026);
  EXPECT_EQ(link(robot, "point").inertial.inertia, (std::array<double, 6>{0, 0, 0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(link(robot, "point").inertial.mass, 0.3);
  EXPECT_EQ(link(robot, "dummy").inertial.mass, 0.0);
  EXPECT_EQ(link(robot, "dummy").inertial.inertia[0], 1.0);
}

TEST(UrdfReaderTest, JointTypesLimitsDynamicsAndMimic) {
  const RobotDescription robot = loadUrdf(kData + "joint_types.urdf");
  expectTreeOrder(robot);

  const RobotJoint& wheel = joint(robot, "wheel_joint");
  EXPECT_EQ(wheel.type, JointType::kContinuous);
  EXPECT_EQ(wheel.lower, -kInf);
  EXPECT_EQ(wheel.upper, kInf);
  EXPECT_EQ(wheel.effort_limit, kInf);      // no <limit>: unbounded
  expectVec3(wheel.axis, {0.0, 1.0, 0.0});  // "0 2 0" normalised
  EXPECT_DOUBLE_EQ(wheel.actuation.viscous, 0.3);
  EXPECT_DOUBLE_EQ(wheel.actuation.coulomb, 0.7);
  EXPECT_DOUBLE_EQ(wheel.actuation.static_max, 0.7);

  const RobotJoint& slide = joint(robot, "slide");
  EXPECT_EQ(slide.type, JointType::kPrismatic);
  EXPECT_EQ(slide.lower, 0.0);  // absent lower/upper default to 0 (URDF spec)
  EXPECT_EQ(slide.upper, 0.0);
  EXPECT_DOUBLE_EQ(slide.effort_limit, 50.0);
  EXPECT_DOUBLE_EQ(slide.velocity_limit, 0.5);
  expectVec3(slide.axis, {0.0, 0.0, -1.0});
  EXPECT_EQ(slide.actuation.viscous, 0.0);

  const RobotJoint& finger = joint(robot, "finger_joint");
  EXPECT_EQ(finger.type, JointType::kRevolute);
  expectVec3(finger.axis, {1.0, 0.0, 0.0});  // default axis
  EXPECT_EQ(finger.lower, 0.0);
  EXPECT_DOUBLE_EQ(finger.upper, 0.5);
  EXPECT_EQ(finger.mimic.joint, "slide");
  EXPECT_EQ(finger.mimic.multiplier, 2.0);
  EXPECT_EQ(finger.mimic.offset, 0.0);  // URDF default

  EXPECT_EQ(joint(robot, "free_joint").type, JointType::kFloating);
  EXPECT_EQ(joint(robot, "plane_joint").type, JointType::kPlanar);
  const RobotJoint& tip = joint(robot, "tip_joint");
  EXPECT_EQ(tip.type, JointType::kFixed);
  expectVec3(tip.origin_xyz, {0.0, 0.0, 0.1});

  const std::vector<int> movable = robot.movableJoints();
  ASSERT_EQ(movable.size(), 3u);
  for (std::size_t k = 1; k < movable.size(); ++k) EXPECT_LT(movable[k - 1], movable[k]);
  EXPECT_DOUBLE_EQ(robot.totalMass(), 0.5);
}

TEST(UrdfReaderTest, ClutteredRealWorldFileLoads) {
  const RobotDescription robot = loadUrdf(kData + "tolerant.urdf");
  EXPECT_EQ(robot.name, "cluttered");
  ASSERT_EQ(robot.links.size(), 2u);   // <sensor><parent>, <gazebo reference> add nothing
  ASSERT_EQ(robot.joints.size(), 1u);  // <transmission>/<ros2_control> <joint> are not joints
  EXPECT_EQ(robot.links[0].name, "torso");
  EXPECT_DOUBLE_EQ(robot.totalMass(), 6.5);
  const RobotJoint& neck = joint(robot, "neck");
  EXPECT_DOUBLE_EQ(neck.lower, -1.2);  // not the safety controller's soft limit
  EXPECT_DOUBLE_EQ(neck.actuation.viscous, 0.05);
  EXPECT_EQ(neck.actuation.coulomb, 0.0);
}

TEST(UrdfReaderTest, ScrambledFileComesOutInTreeOrder) {
  const RobotDescription robot = loadUrdf(kData + "scrambled_order.urdf");
  expectTreeOrder(robot);
  std::vector<std::string> links, joints;
  for (const RobotLink& l : robot.links) links.push_back(l.name);
  for (const RobotJoint& j : robot.joints) joints.push_back(j.name);
  // Depth first, siblings in file order.
  EXPECT_EQ(links, (std::vector<std::string>{"root", "b", "c", "d", "e"}));
  EXPECT_EQ(joints, (std::vector<std::string>{"j_b", "j_c", "j_d", "j_e"}));
}

TEST(UrdfReaderTest, CollisionPrimitivesAreKeptWithTheirOrigins) {
  const RobotDescription robot = parseUrdf(R"(<robot name="r">
  <link name="a">
    <collision><origin xyz="0 0 0.1" rpy="0 1.5 0"/><geometry><cylinder radius="0.05" length="0.2"/></geometry></collision>
    <collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
    <collision><geometry><sphere radius="0.04"/></geometry></collision>
    <collision><geometry><mesh filename="a.stl"/></geometry></collision>
  </link>
  <link name="b"/>
  <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
</robot>)",
                                           "r.urdf");
  const std::vector<CollisionShape>& c = link(robot, "a").collision;
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].kind, CollisionShape::Kind::kCylinder);
  expectVec3(c[0].origin_xyz, {0.0, 0.0, 0.1});
  expectVec3(c[0].origin_rpy, {0.0, 1.5, 0.0});
  EXPECT_EQ(c[0].radius, 0.05);
  EXPECT_EQ(c[0].length, 0.2);
  EXPECT_EQ(c[1].kind, CollisionShape::Kind::kBox);
  expectVec3(c[1].size, {0.1, 0.2, 0.3});
  EXPECT_EQ(c[2].kind, CollisionShape::Kind::kSphere);
  EXPECT_EQ(c[2].radius, 0.04);
  EXPECT_EQ(c[3].kind, CollisionShape::Kind::kOther);
  EXPECT_EQ(c[3].geometry, "mesh");
  EXPECT_TRUE(link(robot, "b").collision.empty());
}

TEST(UrdfReaderTest, ParsesTextWithNameForErrors) {
  const RobotDescription robot = parseUrdf(R"(<robot name="r"><link name="only"/></robot>)", "inline");
  EXPECT_EQ(robot.links.size(), 1u);
  EXPECT_TRUE(robot.joints.empty());
  try {
    parseUrdf("<robot name=\"r\">\n<link name=\"a\">\n<inertial><mass value=\"x\"/></inertial></link></robot>",
              "inline.urdf");
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("inline.urdf:3: <mass> attribute 'value'"), std::string::npos) << e.what();
  }
}

TEST(UrdfReaderTest, MalformedTextIsAnError) {
  for (const std::string& text : {std::string("<robot name=\"r\">\n<link name=\"a\">\n</robot>"), std::string(""),
                                  std::string("<robot name=\"r\"/>\n<robot name=\"s\"/>")}) {
    try {
      parseUrdf(text, "inline.urdf");
      FAIL() << "expected SceneError for: " << text;
    } catch (const SceneError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("inline.urdf:", 0), 0u) << message;
      EXPECT_TRUE(message.find("malformed XML") != std::string::npos ||
                  message.find("second top-level element") != std::string::npos)
          << message;
    }
  }
}

TEST(UrdfReaderTest, MissingFileIsAnError) {
  const std::string path = kData + "no_such_file.urdf";
  try {
    loadUrdf(path);
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// A line over 1 MiB is refused at its line (docs/commands.md), from a file
// as from text.
TEST(UrdfReaderTest, LineOverOneMiBIsRefusedAtItsLine) {
  const std::string text = "<robot name=\"r\">\n  <link name=\"a\"/>\n<!--" + std::string((std::size_t{1} << 20), 'x') +
                           "-->\n</robot>\n";
  const std::string path = ::testing::TempDir() + "/suitsim_long_line_" + std::to_string(::getpid()) + ".urdf";
  std::ofstream(path) << text;
  for (const bool from_file : {true, false}) {
    try {
      from_file ? loadUrdf(path) : parseUrdf(text, path);
      ADD_FAILURE() << "expected SceneError";
    } catch (const SceneError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ":3: a line longer than 1048576 characters", 0), 0u) << e.what();
    }
  }
  std::remove(path.c_str());
}

// An axis whose squared length overflows still has a direction.
TEST(UrdfReaderTest, HugeAxisComponentsKeepTheirDirection) {
  std::string text = readText(kData + "invalid/zero_axis.urdf");
  text.replace(text.find("0 0 0"), 5, "0 3e200 -4e200");
  const RobotDescription robot = parseUrdf(text, "huge_axis.urdf");
  EXPECT_NEAR(robot.joints.at(0).axis[1], 0.6, 1e-15);
  EXPECT_NEAR(robot.joints.at(0).axis[2], -0.8, 1e-15);
}

// Problems found when the robot is compiled into particles name the URDF
// element that caused them, not only the scene's <robot>.
TEST(UrdfReaderTest, CompileErrorsNameTheUrdfLine) {
  const RobotDescription robot = loadUrdf(kData + "inertia_edge_cases.urdf");
  for (const RobotLink& l : robot.links) {
    EXPECT_EQ(l.source.rfind(kData + "inertia_edge_cases.urdf:", 0), 0u) << l.name << ": " << l.source;
  }
  for (const RobotJoint& j : robot.joints) {
    EXPECT_EQ(j.source.rfind(kData + "inertia_edge_cases.urdf:", 0), 0u) << j.name << ": " << j.source;
  }
}

// ---- rejected inputs --------------------------------------------------------

struct InvalidCase {
  const char* file;                // in tests/robot/data/invalid/
  int line;                        // where the message must point
  std::vector<std::string> words;  // element, attribute and values it must name
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.file; }

class UrdfInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(UrdfInvalidTest, ErrorNamesFileLineAndCulprit) {
  const InvalidCase& c = GetParam();
  const std::string path = kData + "invalid/" + c.file;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  try {
    loadUrdf(path);
    FAIL() << "expected SceneError for " << path;
  } catch (const SceneError& e) {
    const std::string message = e.what();
    const std::string location = path + ":" + std::to_string(c.line) + ":";
    EXPECT_EQ(message.rfind(location, 0), 0u) << "want prefix " << location << "\ngot " << message;
    for (const std::string& w : c.words) EXPECT_NE(message.find(w), std::string::npos) << w << " in " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Invalid, UrdfInvalidTest,
    ::testing::Values(
        InvalidCase{"malformed.urdf", 3, {"malformed XML", "link"}},  // tinyxml2 names the unclosed element
        InvalidCase{"comment_double_hyphen.urdf", 5, {"malformed XML", "'--' inside a comment"}},
        InvalidCase{"undeclared_prefix_element.urdf", 5,
                    {"malformed XML", "element <xacro:insert_block>", "no xmlns:xacro declares"}},
        // Declared on the first link only, out of the second's scope.
        InvalidCase{"undeclared_prefix_attribute.urdf", 10,
                    {"malformed XML", "<link> attribute 'vendor:part'", "no xmlns:vendor declares"}},
        InvalidCase{"root_not_robot.urdf", 3, {"<sdf>", "<robot>"}},
        InvalidCase{"missing_robot_name.urdf", 2, {"<robot>", "'name'"}},
        InvalidCase{"unknown_link.urdf", 6, {"<child>", "'link'", "'b'"}},
        InvalidCase{"two_roots.urdf", 5, {"<link>", "'name'", "root", "'c'", "'a' (line 3)"}},
        InvalidCase{"cycle.urdf", 11, {"<joint>", "cycle", "'c' -> 'b' -> 'c'", "'j_c'"}},
        InvalidCase{"cycle_no_root.urdf", 5, {"<joint>", "cycle", "'b' -> 'a' -> 'b'", "'a_to_b'"}},
        InvalidCase{"two_parents.urdf", 12, {"<child>", "'link'", "'c'", "'j1' (line 6)"}},
        InvalidCase{"self_parent.urdf", 4, {"<joint>", "parent and child", "'a'"}},
        InvalidCase{"duplicate_link.urdf", 5, {"<link>", "'name'", "'a'", "line 3"}},
        InvalidCase{"duplicate_joint.urdf", 10, {"<joint>", "'name'", "'j'", "line 6"}},
        InvalidCase{"revolute_no_limit.urdf", 5, {"<joint>", "'revolute'", "<limit>", "effort", "velocity"}},
        InvalidCase{"limit_no_effort.urdf", 8, {"<limit>", "'effort'"}},
        InvalidCase{"lower_above_upper.urdf", 8, {"<limit>", "'lower'", "'upper'", "lower='1'"}},
        InvalidCase{"unknown_joint_type.urdf", 5, {"<joint>", "'type'", "'spherical'"}},
        InvalidCase{"mimic_unknown_joint.urdf", 8, {"<mimic>", "'joint'", "'no_such_joint'"}},
        InvalidCase{"mimic_self.urdf", 9, {"<mimic>", "'joint'", "another joint", "'hinge'"}},
        InvalidCase{"mimic_chain.urdf", 22, {"<mimic>", "'joint'", "itself mimics 'leader'", "line 16", "'first'"}},
        InvalidCase{"mimic_fixed_leader.urdf", 14, {"<mimic>", "'joint'", "'fixed'", "line 5", "'weld'"}},
        InvalidCase{"mimic_multiplier_nan.urdf", 9, {"<mimic>", "'multiplier'", "finite", "'nan'"}},
        InvalidCase{"mimic_offset_not_number.urdf", 9, {"<mimic>", "'offset'", "finite", "'0.1rad'"}},
        InvalidCase{"negative_mass.urdf", 5, {"<mass>", "'value'", ">= 0", "'-1.5'"}},
        InvalidCase{"mass_not_number.urdf", 5, {"<mass>", "'value'", "number", "'abc'"}},
        InvalidCase{"inertia_triangle.urdf", 6, {"<inertia>", "triangle inequality", "ixx + iyy >= izz", "izz='0.5'"}},
        InvalidCase{
            "inertia_triangle_rotated.urdf", 8, {"<inertia>", "triangle inequality", "principal moments", "iyz='0.2'"}},
        InvalidCase{"inertia_not_psd.urdf", 6, {"<inertia>", "positive semi-definite", "ixy='2'"}},
        InvalidCase{"inertia_overflow.urdf", 6, {"<inertia>", "too large", "ixx='1e308'"}},
        InvalidCase{"zero_axis.urdf", 8, {"<axis>", "'xyz'", "non-zero", "'0 0 0'"}},
        InvalidCase{"origin_not_finite.urdf", 6, {"<origin>", "'xyz'", "finite", "'0 nan 0'"}},
        InvalidCase{"collision_negative_radius.urdf", 6, {"<cylinder>", "'radius'", ">= 0", "'-0.05'"}},
        InvalidCase{"collision_box_size.urdf", 7, {"<box>", "'size'", "three finite numbers", "'0.1 0.2'"}}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      return name;
    });

}  // namespace
}  // namespace suitsim::io
