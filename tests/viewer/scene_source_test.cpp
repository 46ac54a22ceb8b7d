// The watched scene file: a clean save reloads the scene; a save with an
// error keeps the last good scene and reports file and line; a file that
// vanishes for a moment (delete-and-rename saves) is not fatal.
#include "scene_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace suitsim::viewer {
namespace {

namespace fs = std::filesystem;

// Line 5 holds the bob's mass, so an edit there is reported at line 5.
std::string oscillator(const std::string& bob_mass) {
  return "<?xml version=\"1.0\"?>\n"
         "<scene name=\"watched\">\n"
         "  <simulation integrator=\"velocity_verlet\" dt=\"1e-4\" duration=\"1\"/>\n"
         "  <particle name=\"anchor\" pos=\"0 0 0\" mass=\"1\" fixed=\"true\"/>\n"
         "  <particle name=\"bob\" pos=\"0.35 0 0\" mass=\"" +
         bob_mass +
         "\"/>\n"
         "  <spring a=\"anchor\" b=\"bob\" stiffness=\"200\" rest_length=\"0.3\"/>\n"
         "</scene>\n";
}

class SceneSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_view_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "watched.xml").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes the file and moves its modification time forward, so the change
  // is seen even where timestamps are coarse.
  void save(const std::string& text) {
    const auto before = fs::exists(path_) ? fs::last_write_time(path_) : fs::file_time_type::clock::now();
    std::ofstream(path_) << text;
    fs::last_write_time(path_, std::max(fs::last_write_time(path_), before + std::chrono::seconds(2)));
  }

  fs::path dir_;
  std::string path_;
};

double bobMass(const io::Scene& scene) { return scene.model.particle_mass[scene.model.findParticle("bob")]; }

TEST_F(SceneSourceTest, NothingHappensUntilTheFileChanges) {
  save(oscillator("0.5"));
  SceneSource source(path_);
  const io::Scene scene = source.loadInitial();
  EXPECT_DOUBLE_EQ(bobMass(scene), 0.5);
  EXPECT_FALSE(source.poll().has_value());
  EXPECT_FALSE(source.poll().has_value());
  EXPECT_TRUE(source.error().empty());
  EXPECT_EQ(source.reloads(), 0);
}

TEST_F(SceneSourceTest, ACleanSaveReloadsTheScene) {
  save(oscillator("0.5"));
  SceneSource source(path_);
  source.loadInitial();
  save(oscillator("0.8"));
  const std::optional<io::Scene> reloaded = source.poll();
  ASSERT_TRUE(reloaded.has_value()) << source.error();
  EXPECT_DOUBLE_EQ(bobMass(*reloaded), 0.8);
  EXPECT_TRUE(source.error().empty());
  EXPECT_EQ(source.reloads(), 1);
  // Read once per change, not on every poll.
  EXPECT_FALSE(source.poll().has_value());
}

TEST_F(SceneSourceTest, ABadSaveKeepsTheLastGoodSceneAndNamesFileAndLine) {
  save(oscillator("0.5"));
  SceneSource source(path_);
  source.loadInitial();
  save(oscillator("-3"));
  EXPECT_FALSE(source.poll().has_value());
  EXPECT_NE(source.error().find(path_ + ":5:"), std::string::npos) << source.error();
  EXPECT_NE(source.error().find("mass"), std::string::npos) << source.error();
  // Still bad on the next poll without a new save: no reload, same message.
  EXPECT_FALSE(source.poll().has_value());
  EXPECT_FALSE(source.error().empty());

  save(oscillator("0.7"));
  const std::optional<io::Scene> fixed = source.poll();
  ASSERT_TRUE(fixed.has_value()) << source.error();
  EXPECT_DOUBLE_EQ(bobMass(*fixed), 0.7);
  EXPECT_TRUE(source.error().empty());
}

TEST_F(SceneSourceTest, MalformedXmlIsAnErrorNotACrash) {
  save(oscillator("0.5"));
  SceneSource source(path_);
  source.loadInitial();
  save("<?xml version=\"1.0\"?>\n<scene name=\"half saved\">\n  <simulation integrator=\"velocity_ver");
  EXPECT_FALSE(source.poll().has_value());
  EXPECT_NE(source.error().find(path_), std::string::npos) << source.error();
}

TEST_F(SceneSourceTest, AFileThatVanishesAndReturnsIsReadAgain) {
  save(oscillator("0.5"));
  SceneSource source(path_);
  source.loadInitial();
  fs::remove(path_);
  EXPECT_FALSE(source.poll().has_value());
  EXPECT_NE(source.error().find(path_), std::string::npos);
  save(oscillator("0.6"));
  const std::optional<io::Scene> back = source.poll();
  ASSERT_TRUE(back.has_value()) << source.error();
  EXPECT_DOUBLE_EQ(bobMass(*back), 0.6);
}

TEST_F(SceneSourceTest, ABadSceneAtStartupThrowsWithFileAndLine) {
  save(oscillator("0"));
  SceneSource source(path_);
  try {
    source.loadInitial();
    FAIL() << "a bad scene loaded";
  } catch (const io::SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(path_ + ":5:"), std::string::npos) << e.what();
  }
}

// The viewer checks a servo as `suitsim run` does (experiment::checkServoLoops):
// a derivative gain that certainly diverges is a scene error at its <servo>
// line, at startup and on reload; a loop that may only lag is a warning.
int lineOf(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  return -1;
}

TEST_F(SceneSourceTest, AServoThatDivergesIsASceneErrorAtItsLine) {
  const std::string diverging = SUITSIM_SOURCE_DIR "/tests/cli/data/servo_kd_too_large.xml";
  const int line = lineOf(diverging, "<servo joints=\"wrist\"");
  ASSERT_GT(line, 0);
  SceneSource source(diverging);
  try {
    source.loadInitial();
    FAIL() << "a scene whose servo diverges loaded";
  } catch (const io::SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(diverging + ":" + std::to_string(line) + ": <servo> attribute 'kd'"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(SceneSourceTest, ALaggingServoIsAWarningNotAnError) {
  SceneSource source(SUITSIM_SOURCE_DIR "/tests/cli/data/servo_lagging.xml");
  source.loadInitial();
  EXPECT_TRUE(source.error().empty());
  ASSERT_EQ(source.warnings().size(), 1u);
  EXPECT_NE(source.warnings()[0].find("joint 'wrist'"), std::string::npos) << source.warnings()[0];
}

}  // namespace
}  // namespace suitsim::viewer
