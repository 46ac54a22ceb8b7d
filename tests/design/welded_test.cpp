// Excitation design on a welded robot (design_robot.h), Kang et al.'s
// upper body in small (data/tiny_welded.xml: the tiny arm on a box welded
// where it stands): the plan's rows are the welded robot's own joint
// regressor, the balance wrench comes from the floating twin with the
// minimum-norm standard parameters, a foot on a moving link is refused, and
// Kang's protocol (an a-priori start, one motion per iteration, curriculum
// or random choice) ends better than the a-priori model it started from.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "suitsim/design/assessment.h"
#include "suitsim/design/curriculum.h"
#include "suitsim/design/design_robot.h"
#include "suitsim/design/excitation.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/regressor.h"
#include "suitsim/scene/scene.h"

namespace suitsim::design {
namespace {

namespace fs = std::filesystem;

std::string weldedPath() { return std::string(SUITSIM_SOURCE_DIR) + "/tests/design/data/tiny_welded.xml"; }

const io::Scene& weldedScene() {
  static const io::Scene scene = io::loadScene(weldedPath(), "ident_1");
  return scene;
}

/// Joint angles and rates of a smooth test motion at t (all three joints).
void testMotion(double t, Eigen::VectorXd& angles, Eigen::VectorXd& rates) {
  angles.resize(3);
  rates.resize(3);
  for (int j = 0; j < 3; ++j) {
    const double w = 2.0 + j;
    angles(j) = 0.2 + 0.4 * std::sin(w * t + j);
    rates(j) = 0.4 * w * std::cos(w * t + j);
  }
}

TEST(WeldedDesign, RowsAreTheWeldedRobotsJointRegressor) {
  const DesignRobot robot = makeDesignRobot(weldedScene().robot.value());
  ASSERT_TRUE(robot.welded());
  EXPECT_EQ(robot.equation_offset, 6);
  EXPECT_EQ(robot.equationBaseDofs(), 0);
  EXPECT_EQ(robot.numEquations(), 3);
  EXPECT_TRUE(robot.leg_joints.empty());  // the feet are on the root: nothing moves it
  EXPECT_EQ(robot.free_joints.size(), 3u);
  // The identification's own model and base parameters.
  const eval::RigidModel fixed = eval::makeRigidModel(weldedScene().robot->apriori);
  ASSERT_FALSE(fixed.floating_base);
  const eval::BaseParameters fixed_base = eval::computeBaseParameters(fixed);
  ASSERT_EQ(robot.base.numBase(), fixed_base.numBase());
  EXPECT_EQ(robot.base.independent, fixed_base.independent);

  eval::RigidData data(robot.model()), fixed_data(fixed);
  Eigen::MatrixXd Y, Yb, Yf;
  int samples = 0;
  eval::forEachFeetFlatSample(
      robot.model(), data, testMotion, 0.0, 1.0, 0.1, robot.foot_pose.front(),
      [&](double, const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
        // The twin's root stands still where the robot is welded.
        EXPECT_LT(v.head<6>().norm(), 1e-9);
        EXPECT_LT(a.head<6>().norm(), 1e-6);
        baseRegressor(robot, data, q, v, a, Y, Yb);
        eval::Configuration qf = eval::neutralConfiguration(fixed);
        qf.joints = q.joints;
        eval::regressor(fixed, fixed_data, qf, v.tail(3), a.tail(3), Yf);
        const Eigen::MatrixXd expected = fixed_base.reduce(Yf);
        ASSERT_EQ(Yb.rows(), 3);
        ASSERT_EQ(Yb.cols(), expected.cols());
        EXPECT_LT((Yb - expected).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + expected.cwiseAbs().maxCoeff()));

        // The balance wrench: the a-priori base parameters give the a-priori
        // model's own base rows (rnea of the twin) ...
        const Eigen::Matrix<double, 6, 1> w0 = contactWrench(robot, Y, Yb, robot.base_apriori);
        const Eigen::VectorXd id = eval::rnea(robot.model(), data, q, v, a);
        EXPECT_LT((w0 - id.head<6>()).norm(), 1e-8 * (1.0 + id.head<6>().norm()));
        ++samples;
      });
  EXPECT_EQ(samples, 11);

  // ... and other base parameters standard ones that have exactly them.
  Eigen::VectorXd phi = robot.base_apriori;
  for (Eigen::Index p = 0; p < phi.size(); ++p) phi(p) *= 1.0 + 0.1 * std::sin(1.0 + p);
  const Eigen::VectorXd standard = robot.standard_apriori + robot.base_to_standard * (phi - robot.base_apriori);
  EXPECT_LT((robot.base.fromStandard(standard) - phi).norm(), 1e-9 * (1.0 + phi.norm()));
}

TEST(WeldedDesign, AFootOnAMovingLinkIsRefused) {
  std::ifstream in(weldedPath());
  std::stringstream text;
  text << in.rdbuf();
  std::string scene_text = text.str();
  // The turret's origin is 0.1 m up: a point 0.1 m below it is on the floor.
  const auto at = scene_text.find("    <servo");
  ASSERT_NE(at, std::string::npos);
  scene_text.insert(at, "    <contact link=\"turret\" points=\"0.02 0 -0.1\"/>\n");
  const auto box = scene_text.find("    <contact link=\"box\"");
  ASSERT_NE(box, std::string::npos);
  scene_text.erase(box, scene_text.find('\n', box) + 1 - box);
  const fs::path dir = fs::temp_directory_path() / ("suitsim_welded_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "foot_on_turret.xml";
  std::ofstream(path) << scene_text;
  const io::Scene scene = io::loadScene(path.string(), "ident_1");
  fs::remove_all(dir);
  try {
    (void)makeDesignRobot(scene.robot.value());
    FAIL() << "a welded robot standing on its turret was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("link 'turret' stands on the ground but moves with joints"), std::string::npos)
        << e.what();
  }
}

class WeldedKang : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("suitsim_welded_kang_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  DesignResult run(bool random, std::uint64_t selection_seed, const std::string& name) {
    DesignOptions o;
    o.scene = weldedPath();
    o.candidates = 12;
    o.iterations = 2;
    o.start_from_apriori = true;
    o.random_selection = random;
    o.selection_seed = selection_seed;
    o.threads = 2;
    o.work_dir = dir_ / name;
    fs::create_directories(o.work_dir);
    return designMotions(o);
  }
  fs::path dir_;
};

// Kang et al.'s protocol in small: iteration 0 is the a-priori model (no
// identification, its K (17) error against the truth), then one motion per
// iteration; the curriculum's last model is closer to the truth than the
// a-priori one and than its own first iteration's.
TEST_F(WeldedKang, TheCurriculumEndsCloserToTheTruthThanTheAprioriModel) {
  const DesignResult r = run(false, 1, "curriculum");
  EXPECT_EQ(r.start, "apriori");
  EXPECT_EQ(r.selection, "curriculum");
  ASSERT_EQ(r.iterations.size(), 3u);
  const DesignIteration& prior = r.iterations[0];
  EXPECT_EQ(prior.identified.determined, -1);
  EXPECT_TRUE(prior.added.empty());
  ASSERT_TRUE(std::isfinite(prior.truth_rmse));
  EXPECT_GT(prior.truth_rmse, 0.0);
  for (std::size_t k = 1; k < r.iterations.size(); ++k) {
    const DesignIteration& it = r.iterations[k];
    EXPECT_EQ(it.added.size(), 1u) << k;  // one motion per iteration, as Kang's
    EXPECT_TRUE(std::isfinite(it.truth_rmse)) << k;
    EXPECT_TRUE(std::isfinite(it.identified.condition_number)) << k;
    ASSERT_EQ(it.identified.determined_at.size(), 4u);
    for (const auto& [below, n] : it.identified.determined_at) {
      EXPECT_GE(n, 0);
      EXPECT_LE(n, r.num_base);
    }
  }
  EXPECT_EQ(r.iterations[1].criterion, "condition number");
  EXPECT_LT(r.iterations[2].truth_rmse, prior.truth_rmse);
  EXPECT_LT(r.iterations[2].truth_rmse, r.iterations[1].truth_rmse);
  EXPECT_EQ(r.chosen.size(), 2u);
}

// The baseline: each iteration a motion drawn among those that pass its
// checks; the same seed draws the same ones.
TEST_F(WeldedKang, RandomSelectionDrawsAmongTheMotionsThatPass) {
  const DesignResult a = run(true, 7, "random_a");
  const DesignResult b = run(true, 7, "random_b");
  EXPECT_EQ(a.selection, "random");
  ASSERT_EQ(a.iterations.size(), 3u);
  ASSERT_EQ(a.chosen.size(), 2u);
  for (const ChosenMotion& c : a.chosen) {
    EXPECT_TRUE(a.assessments[static_cast<std::size_t>(c.candidate)].accepted);
  }
  EXPECT_EQ(a.iterations[1].criterion, "random choice");
  EXPECT_EQ(a.iterations[2].criterion, "random choice");
  ASSERT_EQ(b.chosen.size(), 2u);
  for (std::size_t k = 0; k < a.chosen.size(); ++k) EXPECT_EQ(a.chosen[k].candidate, b.chosen[k].candidate);
  for (std::size_t k = 1; k < a.iterations.size(); ++k) EXPECT_TRUE(std::isfinite(a.iterations[k].truth_rmse));
}

}  // namespace
}  // namespace suitsim::design
