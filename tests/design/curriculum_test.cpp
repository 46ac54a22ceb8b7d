// The curriculum (design/curriculum.h): Kang et al.'s margin relaxation
// against its closed form, and the fall path: a chosen motion whose
// simulated robot falls is dropped and the next best taken in its place, on
// a robot whose a-priori model hides the payload that topples it
// (data/tipping_column.xml).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>

#include "suitsim/design/curriculum.h"

namespace suitsim::design {
namespace {

namespace fs = std::filesystem;

TEST(Curriculum, TheMarginRelaxesWithTheConditionNumberAndNeverGrowsBack) {
  const double a = 2.5e-4, b = 1.0, top = 0.4;
  // Ill-conditioned data keep the first margin.
  EXPECT_NEAR(relaxedMarginShare(top, top, 1e6, a, b), top, 1e-12);
  // α = α_max (1 − exp(−(a κ + b))).
  const double kappa = 2000.0;
  const double expected = top * (1.0 - std::exp(-(a * kappa + b)));
  EXPECT_NEAR(relaxedMarginShare(top, top, kappa, a, b), expected, 1e-15);
  EXPECT_LT(expected, top);
  // A worse condition number later does not widen the margin again.
  EXPECT_NEAR(relaxedMarginShare(expected, top, 8000.0, a, b), expected, 1e-15);
  // The floor: α_max (1 − e^{−b}) however well conditioned.
  EXPECT_NEAR(relaxedMarginShare(top, top, 0.0, a, b), top * (1.0 - std::exp(-b)), 1e-15);
  // No condition number (a failed identification): unchanged.
  EXPECT_EQ(relaxedMarginShare(0.3, top, std::nan(""), a, b), 0.3);
  EXPECT_EQ(relaxedMarginShare(0.3, top, std::numeric_limits<double>::infinity(), a, b), 0.3);
}

class CurriculumFall : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("suitsim_curriculum_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "lib");
    fs::create_directories(dir_ / "work");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CurriculumFall, AMotionWhoseRobotFallsIsReplacedByTheNextBest) {
  // The arm swung out sideways: the a-priori ZMP stays inside the footprint
  // (the arm weighs 1.3 kg), the real 5 kg in the forearm topples the column.
  // A minimum-jerk swing over 1.5 s, sampled every 50 ms.
  {
    std::ofstream csv(dir_ / "lib" / "tip.csv");
    csv << "time,yaw,shoulder,elbow\n";
    for (int k = 0; k <= 50; ++k) {
      const double t = 0.05 * k, u = std::clamp((t - 0.2) / 1.5, 0.0, 1.0);
      const double s = u * u * u * (10.0 - 15.0 * u + 6.0 * u * u);
      csv << t << "," << 0.3 * s << "," << 1.0 * s << "," << 0.3 * s << "\n";
    }
  }
  DesignOptions o;
  o.scene = std::string(SUITSIM_SOURCE_DIR) + "/tests/design/data/tipping_column.xml";
  o.candidates = 0;
  o.motions_dir = (dir_ / "lib").string();
  o.iterations = 1;
  o.margin = 0.005;
  o.trusted_relative_std = 0.0;  // the checks see the a-priori model only
  o.threads = 2;
  o.work_dir = dir_ / "work";
  const DesignResult r = designMotions(o);

  // The library: the CSV and the scene's own motion, both pass the checks.
  ASSERT_EQ(r.library.size(), 2u);
  ASSERT_TRUE(r.assessments[0].accepted) << r.assessments[0].rejection;
  ASSERT_TRUE(r.assessments[1].accepted) << r.assessments[1].rejection;
  ASSERT_EQ(r.iterations.size(), 2u);
  const DesignIteration& it = r.iterations[1];
  // The swing excites more and is chosen first; it falls, is dropped, and the
  // sway takes its place within the budget of one trial.
  ASSERT_EQ(it.fell.size(), 1u);
  EXPECT_EQ(it.fell[0], "tip");
  ASSERT_EQ(r.chosen.size(), 1u);
  EXPECT_EQ(r.library[static_cast<std::size_t>(r.chosen[0].candidate)].name, "sway");
  ASSERT_EQ(it.added.size(), 1u);
  EXPECT_EQ(it.added[0], r.chosen[0].name);
  EXPECT_EQ(r.stop_reason, "the time budget (the scene's identification trials) is used");
}

}  // namespace
}  // namespace suitsim::design
