// The scene design-motions writes (design/design_scene.h): the input's
// identification trials replaced by the designed ones, the evaluation
// trials kept, the input's file names still meaning the same files, and
// each designed motion reading back as the very reference that was checked
// (keyframes written to round-trip); the motion CSV reads back too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "suitsim/design/design_scene.h"
#include "suitsim/scene/motion_csv.h"
#include "suitsim/scene/scene.h"
#include "tiny_robot.h"

namespace suitsim::design {
namespace {

namespace fs = std::filesystem;
using testing::tinyDesignRobot;
using testing::tinyScenePath;

class DesignScene : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("suitsim_design_scene_" + std::to_string(static_cast<long>(::getpid())));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

/// Short motions of the tiny robot (its trials last 1 s).
std::vector<CandidateMotion> shortMotions(int count, std::uint64_t seed) {
  GeneratorOptions o;
  o.start_s = 0.05;
  o.end_s = 0.95;
  o.segment_min_s = 0.1;
  o.segment_max_s = 0.2;
  return generateCandidates(tinyDesignRobot(), o, count, seed, 1);
}

TEST_F(DesignScene, ReplacesTheIdentificationTrialsAndReadsBack) {
  const DesignRobot& robot = tinyDesignRobot();
  const std::vector<CandidateMotion> library = shortMotions(2, 5);
  const std::vector<DesignedTrial> trials = {{"design_1", &library[0], ""}, {"design_2", &library[1], ""}};
  // In a folder of its own: the robot's files must still resolve.
  const fs::path scene = write("scene.xml", designScene(tinyScenePath(), trials, robot.model().joint_name,
                                                        KeepTrials::kEvaluation));
  const std::vector<io::TrialSpec> specs = io::listTrials(scene.string());
  std::vector<std::string> names, purposes;
  for (const io::TrialSpec& t : specs) {
    names.push_back(t.name);
    purposes.push_back(t.purpose);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"design_1", "design_2", "lift_none", "lift_strap"}));
  EXPECT_EQ(purposes, (std::vector<std::string>{"identification", "identification", "evaluation", "evaluation"}));
  // The motions the old identification trials alone used are gone.
  std::ifstream in(scene);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(xml.find("name=\"wave\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"lift\""), std::string::npos);
  for (std::size_t k = 0; k < trials.size(); ++k) {
    const io::Scene loaded = io::loadScene(scene.string(), trials[k].name);
    const Motion& motion = loaded.robot->motion;
    const CandidateMotion& c = *trials[k].motion;
    ASSERT_EQ(motion.hinges().size(), c.joints().size());
    std::vector<double> a(c.joints().size()), ra(a.size()), b(a.size()), rb(a.size());
    for (double t = 0.0; t <= 1.0; t += 0.0125) {
      motion.sample(t, a.data(), ra.data());
      c.reference.sample(t, b.data(), rb.data());
      for (std::size_t i = 0; i < a.size(); ++i) {
        // The same joint order: hinges follow the description's joints here.
        EXPECT_EQ(a[i], b[i]) << "t = " << t;
        EXPECT_EQ(ra[i], rb[i]) << "t = " << t;
      }
    }
  }
  // The working scenes: only the designed trials, or only the input's identification ones.
  EXPECT_EQ(io::listTrials(write("none.xml", designScene(tinyScenePath(), trials, robot.model().joint_name,
                                                         KeepTrials::kNone))
                               .string())
                .size(),
            2u);
  const std::vector<io::TrialSpec> own =
      io::listTrials(write("own.xml", designScene(tinyScenePath(), {}, robot.model().joint_name,
                                                  KeepTrials::kIdentification))
                         .string());
  ASSERT_EQ(own.size(), 2u);
  EXPECT_EQ(own[0].name, "ident_wave");
}

TEST_F(DesignScene, TheMotionCsvReadsBack) {
  const DesignRobot& robot = tinyDesignRobot();
  const CandidateMotion c = shortMotions(1, 8).front();
  const fs::path csv = write("m.csv", motionCsv(c, robot.model().joint_name, 0.01));
  const io::MotionTable table = io::readMotionCsv(csv.string());
  EXPECT_EQ(table.joints, (std::vector<std::string>{"yaw", "shoulder", "elbow"}));
  ASSERT_EQ(table.time.size(), static_cast<std::size_t>(std::ceil(c.duration() / 0.01 - 1e-9)) + 1);
  EXPECT_DOUBLE_EQ(table.time.back(), c.duration());
  std::vector<double> a(3), r(3);
  c.reference.sample(table.time[37], a.data(), r.data());
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(table.angles[37 * 3 + i], a[i]);
}

}  // namespace
}  // namespace suitsim::design
