// `suitsim evaluate` on a second robot, Unitree H1 (no waist pitch, no ankle
// roll), with no options: the scene names no fit or validation joints, so
// the evaluator derives them from the robot and the suit, and must pick
// joints that move (the hips in the bend, the torso yaw in the twist) and
// validate on a joint that slides. Approach A holds the type-A stiffness to
// 6 % on both suits with the default noise (measured: +5.01 / +2.95 % with
// sensor seed 1; +0.8 to +2.3 % on the normal suit with seeds 2-5). The
// hips are fitted here, and their rows carry the ground's share from the
// foot sensors, measured in both trials: each trial's own noise (2 N) stays
// in the difference, so the estimate's reported std is 1.3 %. Before each
// trial drew its own noise the two trials' noise cancelled and this held 3 %.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

class H1Evaluate : public suitsim::testing::CliTest {};

TEST_F(H1Evaluate, ProtocolEvaluatesEndToEndWithDerivedJoints) {
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", sourcePath("scenes/h1_protocol.xml"), "--out", out.string(), "--threads", "2",
                      "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  for (const char* suit : {"normal", "modified"}) {
    SCOPED_TRACE(suit);
    const json& s = report["suits"][suit];
    EXPECT_EQ(s["headline_group"], "A");
    ASSERT_TRUE(s["approach_a"]["stiffness_n_per_m"].is_number());
    const double err = s["approach_a"]["relative_error"].get<double>();
    std::printf("[measured] H1 %s suit, type A, approach A: %+.2f %%\n", suit, 100.0 * err);
    EXPECT_LT(std::abs(err), 0.06);
    // The Cramér-Rao bound counts the foot sensors' noise on the hips' rows:
    // it is near the estimate's own std (measured 1.4 % against 1.3 % on the
    // normal suit), not a fifteenth of it as with the currents alone.
    const json& a = s["approach_a"]["groups"]["A"];
    EXPECT_GT(a["crb_relative_std"].get<double>(), 0.3 * a["relative_std"].get<double>()) << a;
    // Derived fit joints: the bend is made with the hips, the twist with the torso.
    const json& bend = s["fit_joints"]["bend"];
    EXPECT_EQ(bend["reason"].get<std::string>().rfind("derived", 0), 0u) << bend;
    EXPECT_NE(bend["joints"].dump().find("right_hip_pitch_joint"), std::string::npos) << bend;
    EXPECT_NE(bend["joints"].dump().find("left_hip_pitch_joint"), std::string::npos) << bend;
    EXPECT_EQ(s["fit_joints"]["twist"]["figure_joint"], "torso_joint");
    // Every group is either estimated or says why not.
    for (const auto& [name, g] : s["approach_a"]["groups"].items()) {
      EXPECT_TRUE(g["identifiable"].get<bool>() ? g["stiffness_n_per_m"].is_number()
                                                : g["stiffness_n_per_m"].is_null() && g.contains("reason"))
          << name << ": " << g;
    }
  }
  // The wearer's balance (measured: RMSE 3-6 mm, minimum margins within
  // 2 mm of the simulator's 108-115 mm).
  // Every trial is in the table, identification trials too (issue 41);
  // the accuracy is the evaluation trials' (both feet flat, the estimate's
  // premise).
  int identification = 0;
  for (const auto& [trial, b] : report["balance"]["trials"].items()) {
    SCOPED_TRACE(trial);
    ASSERT_TRUE(b["truth"].is_object()) << b;
    if (b["purpose"] == "identification") {
      ++identification;
      EXPECT_TRUE(b["truth"]["min_margin_m"].is_number()) << b;
      continue;
    }
    EXPECT_NEAR(b["estimate"]["min_margin_m"].get<double>(), b["truth"]["min_margin_m"].get<double>(), 0.008);
    EXPECT_LT(b["margin_rmse_m"].get<double>(), 0.01);
  }
  EXPECT_EQ(identification, 4);
  EXPECT_EQ(report["balance"]["trials"].size(), 10u);
  // Validation on a joint that slides, where the identified model beats the
  // a-priori one (the protocol's 6 kg hidden payload).
  const json id = json::parse(readFile(out / "identification.json"));
  const json& v = id["validation"];
  EXPECT_EQ(v["joints_reason"].get<std::string>().rfind("derived", 0), 0u) << v["joints_reason"];
  EXPECT_GT(v["sliding_torque_rmse_nm"]["samples"].get<int>(), 100);
  EXPECT_LT(v["torque_rmse_nm"]["identified"].get<double>(), v["torque_rmse_nm"]["apriori"].get<double>());
}

// Soft type-A bands (74.3 N/m on the normal suit, as the stiffness study
// sweeps them) at sensor seed 2: the bend's hips cannot pin them (relative
// std 10-20 %), and the only other motion, the twist, stretches them a few
// millimetres at the end of its range. There the twist's fit once gave
// type A 2176 N/m (+2829 %, "identifiable" at a 1.8 % std) beside type B
// at -224 N/m, the two trading at r -0.81: the fit had put B's torque into
// A. A group that trades with a co-fitted group whose stiffness is negative
// beyond 3 std is not identifiable in that fit; so every estimate given
// here is near the truth, and every group not given says why.
TEST_F(H1Evaluate, AGroupTradingWithAnImpossibleOneIsNotIdentifiable) {
  std::string text = readFile(sourcePath("scenes/h1_protocol.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  text = std::regex_replace(text, std::regex("(<band name=\"bandA_[RL]\" group=\"A\" stiffness=)\"1000\""),
                            "$1\"74.3\"");
  text = std::regex_replace(text, std::regex("(<band name=\"bandA_[RL]\" group=\"A\" stiffness=)\"2000\""),
                            "$1\"148.6\"");
  text = std::regex_replace(text, std::regex("<sensors rate=\"200\" seed=\"1\""), "<sensors rate=\"200\" seed=\"2\"");
  const fs::path scene = dir_ / "h1_soft.xml";
  std::ofstream(scene) << text;
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", scene.string(), "--out", out.string(), "--threads", "2", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  EXPECT_EQ(report["suits"]["normal"]["true_stiffness_n_per_m"].get<double>(), 74.3);
  for (const char* suit : {"normal", "modified"}) {
    for (const char* method : {"approach_a", "approach_b", "apriori", "apriori_approach_a"}) {
      for (const auto& [name, g] : report["suits"][suit][method]["groups"].items()) {
        SCOPED_TRACE(std::string(suit) + " " + method + " " + name);
        if (g["identifiable"].get<bool>()) {
          // (the a-priori rows are up to 25 % off on their model's account)
          EXPECT_LT(std::abs(g["relative_error"].get<double>()), 0.5) << g;
        } else {
          EXPECT_FALSE(g["reason"].get<std::string>().empty());
        }
      }
    }
  }
  // The case above: approach A has no type-A estimate on the normal suit
  // (the bend's fit, the most relevant, says why: its relative std).
  EXPECT_FALSE(report["suits"]["normal"]["approach_a"]["groups"]["A"]["identifiable"].get<bool>());
}

}  // namespace
