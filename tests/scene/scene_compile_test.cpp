// Reading a scene into its description (readScene) and compiling the
// description into particles (compileScene) are two steps: reading builds
// no particle, so what only the particle model refuses (a point-mass link
// here; a lattice beyond the machine's memory in scene_reader_test) is
// refused by the compile alone, at its file and line, and a caller that
// never steps reads it fine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "suitsim/scene/scene.h"

namespace {

namespace fs = std::filesystem;
using suitsim::io::compileScene;
using suitsim::io::readScene;
using suitsim::io::SceneDescription;
using suitsim::io::SceneError;

const std::string kSource = SUITSIM_SOURCE_DIR;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// scenes/tx40_identification.xml without the <inertial> that gives the
// flange (link_6) a size: the URDF's point mass, as the arm's file has it.
// Written beside the test's other output, its files found from scenes/.
std::string pointMassTx40(const fs::path& dir) {
  std::string text = readText(kSource + "/scenes/tx40_identification.xml");
  const std::size_t a = text.find("<inertial link=\"link_6\"");
  const std::size_t b = text.find("/>", a);
  if (a == std::string::npos || b == std::string::npos) return {};
  text.erase(a, b + 2 - a);
  const std::string root = "<scene name=\"tx40_identification\"";
  text.replace(text.find(root), root.size(), root + " relative_to=\"" + kSource + "/scenes\"");
  fs::create_directories(dir);
  const fs::path path = dir / "tx40_point_mass.xml";
  std::ofstream(path) << text;
  return path.string();
}

TEST(SceneCompile, PointMassLinkIsReadButRefusedByTheCompileAtItsLines) {
  const std::string path = pointMassTx40(fs::path(::testing::TempDir()) / "scene_compile_point_mass");
  ASSERT_FALSE(path.empty()) << "the shipped scene no longer has the flange's <inertial>";
  const SceneDescription d = readScene(path, "tx40_ident");
  ASSERT_TRUE(d.robot.has_value());
  const auto& truth = d.robot->truth;
  const int flange = truth.findLink("link_6");
  ASSERT_GE(flange, 0);
  EXPECT_EQ(truth.links[flange].inertial.mass, 0.2) << "the URDF's point mass";
  for (double i : truth.links[flange].inertial.inertia) EXPECT_EQ(i, 0.0);
  // The description has what the evaluator needs: sensors, a-priori set, motion.
  ASSERT_TRUE(d.robot->declared_sensors.has_value());
  EXPECT_EQ(d.robot->declared_sensors->encoders.hinges.size(), 6u);
  EXPECT_EQ(d.robot->apriori.links.size(), truth.links.size());
  EXPECT_EQ(d.robot->joint_motion.hinges().size(), 6u);

  std::string m;
  try {
    compileScene(d);
  } catch (const SceneError& e) {
    m = e.what();
  }
  ASSERT_FALSE(m.empty()) << "the particle compile accepted a point mass";
  // The scene's <robot> line, then the URDF link's own file and line.
  EXPECT_EQ(m.rfind(path + ":" + std::to_string(d.robot->line) + ": <robot>", 0), 0u) << m;
  EXPECT_NE(m.find("tx40_mdh_modified.urdf:"), std::string::npos) << m;
  EXPECT_NE(m.find("'link_6'"), std::string::npos) << m;
  EXPECT_NE(m.find("<inertial link mass com inertia>"), std::string::npos) << m;
  EXPECT_THROW(suitsim::io::loadScene(path, "tx40_ident"), SceneError);
}

TEST(SceneCompile, CompilingTheDescriptionPutsItsSensorsAndMotionOnTheModel) {
  const std::string path = kSource + "/scenes/tx40_identification.xml";
  const SceneDescription d = readScene(path, "tx40_ident");
  const suitsim::io::Scene s = compileScene(d);
  ASSERT_TRUE(s.robot && s.robot->sensors);
  const auto& c = s.robot->compiled;
  const auto& declared = *d.robot->declared_sensors;
  const auto& placed = *s.robot->sensors;
  ASSERT_EQ(placed.encoders.hinges.size(), declared.encoders.hinges.size());
  for (std::size_t k = 0; k < placed.encoders.hinges.size(); ++k) {
    const int j = declared.encoders.hinges[k];
    EXPECT_EQ(placed.encoders.hinges[k], c.joint_hinge[j]);
    EXPECT_EQ(s.model.hinge_name[placed.encoders.hinges[k]], d.robot->truth.joints[j].name);
  }
  ASSERT_EQ(s.robot->motion.hinges().size(), d.robot->joint_motion.hinges().size());
  for (std::size_t k = 0; k < s.robot->motion.hinges().size(); ++k) {
    EXPECT_EQ(s.robot->motion.hinges()[k], c.joint_hinge[d.robot->joint_motion.hinges()[k]]);
  }
  // The servo's gains move from the joints to their hinges (<servo> lines 36, 37).
  for (std::size_t j = 0; j < d.robot->joint_gains.size(); ++j) {
    if (c.joint_hinge[j] < 0) continue;
    EXPECT_EQ(s.robot->gains[c.joint_hinge[j]].kp, d.robot->joint_gains[j].kp);
    EXPECT_EQ(s.robot->gain_line[c.joint_hinge[j]], d.robot->joint_gain_line[j]);
    EXPECT_GT(d.robot->joint_gain_line[j], 0);
  }
}

TEST(SceneCompile, ADescriptionWithoutItsParsedFileIsRefused) {
  SceneDescription d;
  d.path = "nowhere.xml";
  try {
    compileScene(d);
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("nowhere.xml: ", 0), 0u) << e.what();
  }
}

}  // namespace
