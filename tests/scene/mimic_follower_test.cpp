// A URDF <mimic> follower named where a driven joint's value goes (an
// <initial> angle, a keyframe, a motion CSV's column, a <servo>'s joints):
// a value that agrees with the coupling q_f = m q_l + c (within 1e-9,
// relative) is accepted and left to the coupling; one that contradicts it is
// refused with the file, the line and both values (issue 41: a URDF's
// exported pose lists every joint, followers included).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "suitsim/scene/scene.h"

namespace suitsim::io {
namespace {

namespace fs = std::filesystem;

class MimicFollower : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_mimic_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // 'follow' mimics 'lead': q_follow = -2 q_lead + 0.1.
    std::ofstream(dir_ / "pair.urdf") << R"(<?xml version="1.0"?>
<robot name="pair">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="a"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/><inertia ixx="0.002" iyy="0.002" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0 -0.1"/><mass value="0.3"/><inertia ixx="0.001" iyy="0.001" izz="0.0005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="lead" type="revolute"><parent link="base"/><child link="a"/><origin xyz="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="5"/></joint>
  <joint name="follow" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 -0.2"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="5"/><mimic joint="lead" multiplier="-2" offset="0.1"/></joint>
</robot>
)";
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A scene with `body` inside the robot (line 5 is body's first line).
  fs::path scene(const std::string& body) {
    const fs::path path = dir_ / "pair.xml";
    std::ofstream(path) << "<?xml version=\"1.0\"?>\n<scene name=\"pair\">\n"
                           "  <simulation integrator=\"velocity_verlet\" dt=\"5e-4\" duration=\"0.1\"/>\n"
                           "  <robot name=\"pair\" urdf=\"pair.urdf\" base=\"fixed\" pos=\"0 0 1\">\n"
                        << body << "  </robot>\n</scene>\n";
    return path;
  }

  std::string failure(const std::string& body) {
    try {
      loadScene(scene(body).string());
    } catch (const SceneError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << body;
    return "";
  }

  std::string at(const std::string& file, int line) const {
    return (dir_ / file).string() + ":" + std::to_string(line) + ":";
  }

  fs::path dir_;
};

TEST_F(MimicFollower, AgreeingInitialAngleIsAccepted) {
  // -2 * 0.3 + 0.1 = -0.5; and one 1e-12 rad off (a value printed to 12 digits).
  EXPECT_NO_THROW(loadScene(scene("    <initial angles=\"lead:0.3 follow:-0.5\"/>\n").string()));
  EXPECT_NO_THROW(loadScene(scene("    <initial angles=\"lead:0.3 follow:-0.500000000001\"/>\n").string()));
  // The leader left at 0: the follower at the offset.
  EXPECT_NO_THROW(loadScene(scene("    <initial angles=\"follow:0.1\"/>\n").string()));
}

TEST_F(MimicFollower, ContradictingInitialAngleNamesLineAndBothValues) {
  const std::string e = failure("    <initial angles=\"lead:0.3 follow:-0.4\"/>\n");
  EXPECT_NE(e.find(at("pair.xml", 5)), std::string::npos) << e;
  EXPECT_NE(e.find("'follow'"), std::string::npos) << e;
  EXPECT_NE(e.find("-0.4"), std::string::npos) << e;
  EXPECT_NE(e.find("-0.5"), std::string::npos) << e;
  // 1e-6 rad off is outside the tolerance.
  EXPECT_FALSE(failure("    <initial angles=\"lead:0.3 follow:-0.499999\"/>\n").empty());
}

TEST_F(MimicFollower, ServoGainsOfTheLeaderAreAccepted) {
  EXPECT_NO_THROW(loadScene(scene("    <servo joints=\"lead follow\" kp=\"20\" kd=\"0.3\"/>\n").string()));
  const std::string e =
      failure("    <servo joints=\"lead\" kp=\"20\" kd=\"0.3\"/>\n    <servo joints=\"follow\" kp=\"30\" kd=\"0.3\"/>\n");
  EXPECT_NE(e.find(at("pair.xml", 6)), std::string::npos) << e;
  EXPECT_NE(e.find("kp 30"), std::string::npos) << e;
  EXPECT_NE(e.find("kp 20"), std::string::npos) << e;
}

TEST_F(MimicFollower, KeyframeFollowerIsCheckedAgainstTheLeaderInThatKeyframe) {
  const std::string servo = "    <servo joints=\"lead\" kp=\"20\" kd=\"0.3\"/>\n";
  EXPECT_NO_THROW(loadScene(scene(servo + "    <motion>\n      <keyframe time=\"0\"/>\n"
                                          "      <keyframe time=\"1\" angles=\"follow:-0.5 lead:0.3\"/>\n"
                                          "      <keyframe time=\"2\" angles=\"follow:-0.5\"/>\n    </motion>\n")
                                    .string()));
  const std::string e = failure(servo + "    <motion>\n      <keyframe time=\"0\"/>\n"
                                        "      <keyframe time=\"1\" angles=\"lead:0.3\"/>\n"
                                        "      <keyframe time=\"2\" angles=\"follow:0.1\"/>\n    </motion>\n");
  EXPECT_NE(e.find(at("pair.xml", 9)), std::string::npos) << e;
  EXPECT_NE(e.find("0.1"), std::string::npos) << e;
  EXPECT_NE(e.find("-0.5"), std::string::npos) << e;
}

TEST_F(MimicFollower, CsvFollowerColumnIsCheckedRowByRowAndDropped) {
  const std::string servo = "    <servo joints=\"lead\" kp=\"20\" kd=\"0.3\"/>\n    <motion file=\"m.csv\"/>\n";
  std::ofstream(dir_ / "m.csv") << "time,lead,follow\n0,0,0.1\n1,0.3,-0.5\n";
  const Scene s = loadScene(scene(servo).string());
  ASSERT_TRUE(s.robot);
  EXPECT_EQ(s.robot->motion.hinges().size(), 1u);  // the follower's column is the coupling's
  std::ofstream(dir_ / "m.csv") << "time,lead,follow\n# a comment\n0,0,0.1\n1,0.3,-0.45\n";
  const std::string e = failure(servo);
  EXPECT_NE(e.find(at("m.csv", 4)), std::string::npos) << e;
  EXPECT_NE(e.find("-0.45"), std::string::npos) << e;
  EXPECT_NE(e.find("-0.5"), std::string::npos) << e;
}

}  // namespace
}  // namespace suitsim::io
