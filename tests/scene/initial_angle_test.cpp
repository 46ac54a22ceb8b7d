// An <initial> angle outside its joint's limits (degrees typed as radians,
// `knee:41` where the URDF allows 0 to 2.62; or 1e308) is a scene error
// with the scene's file and line, the joint, the value and the limits
// (issue 41: both ran with exit 0). A value on a limit is a pose; a
// continuous joint has no limits to leave.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "suitsim/scene/scene.h"

namespace suitsim::io {
namespace {

namespace fs = std::filesystem;

class InitialAngle : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_initial_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "leg.urdf") << R"(<?xml version="1.0"?>
<robot name="leg">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="shin"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/><inertia ixx="0.002" iyy="0.002" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="wheel"><inertial><mass value="0.3"/><inertia ixx="0.001" iyy="0.001" izz="0.0005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="knee" type="revolute"><parent link="base"/><child link="shin"/><origin xyz="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="2.62" effort="10" velocity="5"/></joint>
  <joint name="spin" type="continuous"><parent link="shin"/><child link="wheel"/><origin xyz="0 0 -0.2"/><axis xyz="0 1 0"/>
    <limit effort="10" velocity="5"/></joint>
</robot>
)";
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A scene whose line 5 is `<initial angles="ANGLES"/>`.
  std::string scene(const std::string& angles) {
    const fs::path path = dir_ / "leg.xml";
    std::ofstream(path) << "<?xml version=\"1.0\"?>\n<scene name=\"leg\">\n"
                           "  <simulation integrator=\"velocity_verlet\" dt=\"5e-4\" duration=\"0.1\"/>\n"
                           "  <robot name=\"leg\" urdf=\"leg.urdf\" base=\"fixed\" pos=\"0 0 1\">\n"
                           "    <initial angles=\""
                        << angles << "\"/>\n  </robot>\n</scene>\n";
    return path.string();
  }

  std::string failure(const std::string& angles) {
    try {
      loadScene(scene(angles));
    } catch (const SceneError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for angles=\"" << angles << "\"";
    return "";
  }

  fs::path dir_;
};

TEST_F(InitialAngle, OutsideTheLimitsIsASceneErrorWithLineJointValueAndLimits) {
  for (const char* value : {"41", "1e+308", "-0.5", "2.63"}) {
    SCOPED_TRACE(value);
    const std::string e = failure(std::string("knee:") + value);
    EXPECT_NE(e.find((dir_ / "leg.xml").string() + ":5:"), std::string::npos) << e;
    EXPECT_NE(e.find(std::string("puts joint 'knee' at ") + value + ", outside its limits [0, 2.62] rad"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("leg.urdf:"), std::string::npos) << "names where the limits come from: " << e;
  }
}

TEST_F(InitialAngle, OnTheLimitsAndContinuousJointsAreAccepted) {
  EXPECT_NO_THROW(loadScene(scene("knee:0")));
  EXPECT_NO_THROW(loadScene(scene("knee:2.62")));
  EXPECT_NO_THROW(loadScene(scene("knee:1.2 spin:41")));
}

}  // namespace
}  // namespace suitsim::io
