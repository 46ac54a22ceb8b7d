// A motion given as a CSV file (<motion file="...">): a good file drives the
// servo; a bad one is refused with the CSV's own file and line and what is
// wrong (issue 4, "Bad input"), and a column naming no joint of the robot
// is refused naming the column.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "suitsim/scene/scene.h"

namespace suitsim::io {
namespace {

namespace fs = std::filesystem;

class MotionCsv : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("suitsim_motion_csv_" + std::string(::testing::UnitTest::GetInstance()
                                                                                     ->current_test_info()
                                                                                     ->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A fixed-base two-joint arm following `csv` (written beside the scene).
  fs::path scene(const std::string& csv) {
    std::ofstream(dir_ / "motion.csv") << csv;
    const fs::path path = dir_ / "arm.xml";
    std::ofstream(path) << R"(<?xml version="1.0"?>
<scene name="arm_csv">
  <simulation integrator="velocity_verlet" dt="1e-4" duration="0.1"/>
  <robot name="arm" base="fixed">
    <link name="base"/>
    <link name="upper" mass="1.2" com="0.01 0 -0.15" inertia="0.01 0.011 0.002 0 0 0"/>
    <link name="fore" mass="0.8" com="0 0.01 -0.12" inertia="0.006 0.006 0.001 0 0 0"/>
    <joint name="shoulder" type="revolute" parent="base" child="upper" xyz="0 0 1" axis="0 1 0"/>
    <joint name="elbow" type="revolute" parent="upper" child="fore" xyz="0 0 -0.3" axis="0 1 0"/>
    <servo kp="50" kd="1"/>
    <motion file="motion.csv"/>
  </robot>
</scene>
)";
    return path;
  }

  /// Loads a scene that must fail; returns the message.
  std::string failure(const std::string& csv) {
    try {
      loadScene(scene(csv).string());
    } catch (const SceneError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << csv;
    return "";
  }

  std::string csvAt(int line) const { return (dir_ / "motion.csv").string() + ":" + std::to_string(line) + ":"; }

  fs::path dir_;
};

TEST_F(MotionCsv, GoodFileDrivesTheNamedJoints) {
  const Scene s = loadScene(scene("# a comment\ntime[s],shoulder[rad],elbow\n0,0,0\n0.5,0.2,-0.3\n1,0.4,-0.6\n").string());
  ASSERT_TRUE(s.robot);
  EXPECT_EQ(s.robot->motion.hinges().size(), 2u);
  EXPECT_DOUBLE_EQ(s.robot->motion.duration(), 1.0);
}

TEST_F(MotionCsv, BadFilesNameTheCsvLineAndProblem) {
  struct Case {
    std::string csv;
    int line;
    std::string problem;
  };
  const Case cases[] = {
      {"angle,shoulder\n0,0\n", 1, "the header must start with 'time'"},
      {"time\n0\n", 1, "the header names no joint"},
      {"time,shoulder,shoulder\n0,0,0\n", 1, "joint 'shoulder' appears twice"},
      {"time,shoulder,\n0,0,0\n", 1, "empty joint name"},
      {"time,shoulder,elbow\n0,0,0\n0.5,0.1\n", 3, "expected 3 values, got 2"},      // a joint missing in a row
      {"time,shoulder,elbow\n0,0,0\n0.5,0.1,x\n", 3, "column 3 is not a finite number (got 'x')"},
      {"time,shoulder,elbow\n0,0,0\n0.5,0.1,nan\n", 3, "is not a finite number"},
      {"time,shoulder,elbow\n0,0,0\n0.5,0.1,0\n0.5,0.2,0\n", 4, "time must increase"},
      {"time,shoulder,elbow\n0,0,0\n0.5,0.1,0\n0.4,0.2,0\n", 4, "time must increase"},
      {"time,shoulder,elbow\n", 1, "no samples after the header"},
      {"# only a comment\n", 1, "no header row"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.csv);
    const std::string m = failure(c.csv);
    EXPECT_NE(m.find(csvAt(c.line)), std::string::npos) << m;
    EXPECT_NE(m.find(c.problem), std::string::npos) << m;
  }
}

TEST_F(MotionCsv, UnknownJointColumnIsRefused) {
  const std::string m = failure("time,shoulder,wrist\n0,0,0\n1,0.1,0.2\n");
  EXPECT_NE(m.find(csvAt(1)), std::string::npos) << m;
  EXPECT_NE(m.find("column 'wrist' names no moving joint of robot 'arm'"), std::string::npos) << m;
}

// After '#' lines the header is further down: a column it names is blamed
// at the header's own line, not at line 1.
TEST_F(MotionCsv, HeaderAfterCommentsIsBlamedAtItsLine) {
  const std::string m = failure("# recorded 2026-11-29\n# by hand\ntime,shoulder,wrist\n0,0,0\n1,0.1,0.2\n");
  EXPECT_NE(m.find(csvAt(3) + " column 'wrist' names no moving joint of robot 'arm'"), std::string::npos) << m;
  for (const char* header : {"angle,shoulder", "time,shoulder,shoulder", "time"}) {
    const std::string e = failure(std::string("# a comment\n") + header + "\n0,0,0\n");
    EXPECT_NE(e.find(csvAt(2)), std::string::npos) << e;
  }
}

TEST_F(MotionCsv, MissingFileIsRefused) {
  const fs::path path = scene("time,shoulder\n0,0\n");
  fs::remove(dir_ / "motion.csv");
  try {
    loadScene(path.string());
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("motion.csv"), std::string::npos) << e.what();
  }
}

// A line without end (a file of one huge line, /dev/zero) is refused at the
// cap instead of filling memory.
TEST_F(MotionCsv, OverlongLineIsRefused) {
  const std::string m = failure("time,shoulder\n0," + std::string(2 << 20, '1') + "\n");
  EXPECT_NE(m.find(csvAt(2)), std::string::npos) << m;
  EXPECT_NE(m.find("a line longer than"), std::string::npos) << m;
}

// A FIFO would block the reader forever: only regular files are read. A
// file that cannot be read has no line of its own, so the message names the
// scene's <motion> line that names it (as a robot's urdf does).
TEST_F(MotionCsv, FifoIsRefused) {
  const fs::path path = scene("time,shoulder\n0,0\n");
  fs::remove(dir_ / "motion.csv");
  ASSERT_EQ(mkfifo((dir_ / "motion.csv").c_str(), 0600), 0);
  try {
    loadScene(path.string());
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("not a regular file"), std::string::npos) << m;
    EXPECT_EQ(m.rfind(path.string() + ":11: <motion> attribute 'file'", 0), 0u) << m;
  }
}

// /dev/zero never ends: refused as a device, at the scene's <motion> line.
TEST_F(MotionCsv, DeviceIsRefusedAtTheScenesLine) {
  const fs::path path = scene("time,shoulder\n0,0\n");
  std::string xml;
  {
    std::ifstream in(path);
    xml.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  xml.replace(xml.find("motion.csv"), 10, "/dev/zero");
  std::ofstream(path) << xml;
  try {
    loadScene(path.string());
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path.string() + ":11: <motion> attribute 'file'", 0), 0u) << m;
    EXPECT_NE(m.find("/dev/zero: cannot open file (is not a regular file"), std::string::npos) << m;
  }
}

// A symlink loop is named as one, not as a missing file.
TEST_F(MotionCsv, SymlinkLoopIsNamedAsOne) {
  const fs::path path = scene("time,shoulder\n0,0\n");
  fs::remove(dir_ / "motion.csv");
  fs::create_symlink(dir_ / "motion.csv", dir_ / "motion.csv");
  try {
    loadScene(path.string());
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path.string() + ":11: <motion> attribute 'file'", 0), 0u) << m;
    EXPECT_NE(m.find("a symlink loop"), std::string::npos) << m;
  }
}

TEST_F(MotionCsv, FifoAsSceneIsRefused) {
  ASSERT_EQ(mkfifo((dir_ / "scene.xml").c_str(), 0600), 0);
  try {
    loadScene((dir_ / "scene.xml").string());
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace suitsim::io
