// Overrides (--dt, --duration, --threads, --noise, --stribeck off, --realism)
// are applied by the reader where it reads the value they replace, so the
// checks that depend on them run once, on what the run uses, and name the
// scene's line and the option (issue 40, item 2). The scene's
// SimulationSettings then own dt and the integrator: TrialRunner takes both
// from there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "suitsim/experiment/runner.h"
#include "suitsim/scene/scene.h"

namespace {

using suitsim::io::loadScene;
using suitsim::io::Scene;
using suitsim::io::SceneError;
using suitsim::io::SceneOverrides;

std::string standScene() { return std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_stand.xml"; }

/// The 1-based line of the first occurrence of `what` in the file.
int lineOf(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::size_t at = s.find(what);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(at), '\n'));
}

std::string errorOf(const SceneOverrides& o) {
  try {
    loadScene(standScene(), {}, o);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SceneOverrides, TheSceneOwnsTheOverriddenValues) {
  const Scene plain = loadScene(standScene());
  SceneOverrides o;
  o.dt = plain.simulation.dt / 2;
  o.duration = 0.25;
  o.threads = 3;
  const Scene s = loadScene(standScene(), {}, o);
  EXPECT_EQ(s.simulation.dt, plain.simulation.dt / 2);
  EXPECT_EQ(s.simulation.duration, 0.25);
  EXPECT_EQ(s.simulation.threads, 3);
  EXPECT_EQ(s.simulation.integrator, plain.simulation.integrator);
  // The runner steps at the scene's step: there is no other place to give it.
  suitsim::experiment::TrialRunner runner(s, 1);
  EXPECT_EQ(runner.dt(), s.simulation.dt);
}

TEST(SceneOverrides, NoiseAndStribeckAreAppliedByTheReader) {
  // H1 standing: sensors with noise and joints with a Stribeck drop.
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/scenes/h1_stand.xml";
  const Scene plain = loadScene(path);
  ASSERT_TRUE(plain.robot && plain.robot->sensors);
  ASSERT_TRUE(plain.robot->sensors->noise);  // the scene says noise="on"
  ASSERT_TRUE(std::any_of(plain.model.hinge_stribeck_velocity.begin(), plain.model.hinge_stribeck_velocity.end(),
                          [](double v) { return v > 0.0; }));
  SceneOverrides o;
  o.noise = 0;
  o.no_stribeck = true;
  const Scene s = loadScene(path, {}, o);
  EXPECT_FALSE(s.robot->sensors->noise);
  EXPECT_TRUE(std::all_of(s.model.hinge_stribeck_velocity.begin(), s.model.hinge_stribeck_velocity.end(),
                          [](double v) { return v == 0.0; }));
}

// Before, --dt was applied after reading and its sensor error lost the line.
TEST(SceneOverrides, ADtTheSensorsCannotFollowNamesTheSensorsLineAndTheOption) {
  SceneOverrides o;
  o.dt = 0.01;  // 200 Hz sensors need a step that divides 5 ms
  const std::string m = errorOf(o);
  const std::string at = standScene() + ":" + std::to_string(lineOf(standScene(), "<sensors ")) + ": <sensors>";
  EXPECT_EQ(m.rfind(at, 0), 0u) << m;
  EXPECT_NE(m.find("attribute 'rate'"), std::string::npos) << m;
  EXPECT_NE(m.find("dt = 0.01 s, the step is --dt's"), std::string::npos) << m;
}

TEST(SceneOverrides, ADurationShorterThanTheStepNamesTheSimulationLine) {
  SceneOverrides o;
  o.duration = 1e-5;
  const std::string m = errorOf(o);
  const std::string at = standScene() + ":" + std::to_string(lineOf(standScene(), "<simulation ")) + ": <simulation>";
  EXPECT_EQ(m.rfind(at, 0), 0u) << m;
  EXPECT_NE(m.find("the time step is longer than the duration"), std::string::npos) << m;
  EXPECT_NE(m.find("(--duration's)"), std::string::npos) << m;
}

TEST(SceneOverrides, TooManyStepsNamesTheSimulationLineAndTheOption) {
  SceneOverrides o;
  o.dt = 1e-300;
  const std::string m = errorOf(o);
  const std::string at = standScene() + ":" + std::to_string(lineOf(standScene(), "<simulation ")) + ": <simulation>";
  EXPECT_EQ(m.rfind(at, 0), 0u) << m;
  EXPECT_NE(m.find("steps; at most 1e+12 are allowed (--dt's)"), std::string::npos) << m;
}

// Without overrides the same check blames the scene's own value and no option.
TEST(SceneOverrides, TheScenesOwnValuesNameNoOption) {
  std::ifstream in(std::string(SUITSIM_SOURCE_DIR) + "/scenes/spring_mass.xml");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = std::regex_replace(text.str(), std::regex("(<simulation[^>]*) duration=\"[^\"]*\""),
                                           "$1 duration=\"1e-9\"");
  ASSERT_NE(s, text.str());
  const std::string path = ::testing::TempDir() + "/short_spring_mass.xml";
  std::ofstream(path) << s;
  try {
    loadScene(path);
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path + ":" + std::to_string(lineOf(path, "<simulation ")) + ": <simulation>", 0), 0u) << m;
    EXPECT_NE(m.find("the time step is longer than the duration"), std::string::npos) << m;
    EXPECT_EQ(m.find("--"), std::string::npos) << m;
  }
  std::remove(path.c_str());
}

}  // namespace
