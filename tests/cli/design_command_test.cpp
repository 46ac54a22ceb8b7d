// `suitsim design-motions SCENE --out DIR`, through the real binary: bad
// scenes, scenes it cannot design for, bad motion CSVs and bad options exit
// 2 with one message naming the file (and line) and write nothing; on the
// tiny experiment a short design (a few candidates, one iteration) writes a
// scene that `suitsim evaluate` takes as it is.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using namespace suitsim::testing::cli;

class DesignCommand : public suitsim::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    timeout_seconds_ = 300;
  }
  fs::path out() const { return dir_ / "design"; }
  /// Exit 2, one message containing every piece of `wanted`, nothing written.
  void expectBadInput(const std::vector<std::string>& args, const std::vector<std::string>& wanted) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    for (const std::string& w : wanted) EXPECT_NE(r.err.find(w), std::string::npos) << "missing '" << w << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(out())) << "something was written";
  }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
};

TEST_F(DesignCommand, ABadSceneIsBadInputAndWritesNothing) {
  const std::string bad = sourcePath("scenes/invalid/band_negative_stiffness.xml");
  expectBadInput({"design-motions", bad, "--out", out().string()}, {"error: ", bad + ":", "stiffness"});
  expectBadInput({"design-motions", (dir_ / "nowhere.xml").string(), "--out", out().string()},
                 {"error: ", "nowhere.xml"});
}

TEST_F(DesignCommand, ASceneWithoutIdentificationTrialsCannotBeDesignedFor) {
  expectBadInput({"design-motions", sourcePath("scenes/spring_mass.xml"), "--out", out().string()},
                 {"spring_mass.xml: no <experiment>"});
  std::string xml = readFile(tinyScene());
  for (std::size_t at; (at = xml.find(" purpose=\"identification\"")) != std::string::npos;) {
    xml.erase(at, std::string(" purpose=\"identification\"").size());
  }
  // In the scene's own folder, so its relative names still resolve.
  const fs::path scene = fs::path(tinyScene()).parent_path() / ("no_ident_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(scene) << xml;
  expectBadInput({"design-motions", scene.string(), "--out", out().string()},
                 {scene.string() + ": no trial with purpose=\"identification\""});
  fs::remove(scene);
}

TEST_F(DesignCommand, ABadMotionCsvNamesItsFileAndLine) {
  write("lib/a_ok.csv", "time,shoulder,elbow\n0,0.2,0.4\n0.5,0.3,0.5\n");
  const fs::path unknown = write("lib/b_unknown.csv", "time,shoulder,knee\n0,0.2,0.4\n");
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--motions", (dir_ / "lib").string()},
                 {unknown.string() + ":1: column 'knee' names no joint of the robot that the servo drives"});
  fs::remove(unknown);
  const fs::path bad_number = write("lib/c_bad.csv", "# a comment\ntime,shoulder\n0,0.2\n0.5,x\n");
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--motions", (dir_ / "lib").string()},
                 {bad_number.string() + ":4: column 2 is not a finite number (got 'x')"});
  fs::remove(bad_number);
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--motions", (dir_ / "empty").string()},
                 {"empty: not a directory"});
}

TEST_F(DesignCommand, BadOptionsAndAnImpossibleMarginAreBadInput) {
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--candidates", "-3"},
                 {"suitsim design-motions: --candidates: needs a whole number from 0 to 100000 (got '-3')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--iterations", "0"},
                 {"--iterations: needs a whole number from 1 to 100 (got '0')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--margin", "-0.1"}, {"--margin: "});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--margin-rule", "sometimes"},
                 {"--margin-rule: needs fixed or relaxed (got 'sometimes')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--margin-rule", "relaxed", "--relax-scale",
                  "-1"},
                 {"--relax-scale: needs a number >= 0 (got '-1')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--margin-rule", "relaxed", "--relax-bias",
                  "0"},
                 {"--relax-bias: needs a number > 0 (got '0')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--relax-scale", "1e-3"},
                 {"suitsim design-motions: --relax-scale and --relax-bias set the relaxation: they need --margin-rule "
                  "relaxed"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--collision", "mesh"},
                 {"--collision: needs urdf or inertia (got 'mesh')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--start", "cad"},
                 {"--start: needs scene or apriori (got 'cad')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--selection", "best"},
                 {"--selection: needs curriculum or random (got 'best')"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--selection-seed", "3"},
                 {"suitsim design-motions: --selection-seed seeds the random choice: it needs --selection random"});
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--selection", "random", "--selection-seed",
                  "-1"},
                 {"--selection-seed: needs a whole number >= 0 (got '-1')"});
  // The stance itself is only 0.1 m inside the box's footprint.
  expectBadInput({"design-motions", tinyScene(), "--out", out().string(), "--margin", "0.5"},
                 {"less than the ZMP margin 0.5 m"});
}

TEST_F(DesignCommand, AShortDesignWritesAnEvaluableScene) {
  write("lib/sway.csv", "time,shoulder,elbow\n0,0.2,0.4\n0.4,0.5,0.8\n0.8,0.2,0.4\n");
  const Result r = run({"design-motions", tinyScene(), "--out", out().string(), "--candidates", "6", "--iterations",
                        "1", "--threads", "2", "--motions", (dir_ / "lib").string(), "--segment-min", "0.15",
                        "--segment-max", "0.3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("design: 2 motions"), std::string::npos) << r.out;
  for (const char* f : {"scene.xml", "design.json", "design.md"}) EXPECT_TRUE(fs::exists(out() / f)) << f;
  EXPECT_FALSE(fs::exists(out() / ".design-work"));
  const nlohmann::json design = nlohmann::json::parse(readFile(out() / "design.json"));
  EXPECT_EQ(design["budget"]["trials"], 2);
  EXPECT_EQ(design["library"]["generated"], 6);
  EXPECT_EQ(design["library"]["from_files"], 1);
  ASSERT_EQ(design["iterations"].size(), 2u);  // the scene's own motions, then the design
  EXPECT_EQ(design["iterations"][0]["criterion"], "scene");
  EXPECT_EQ(design["iterations"][1]["criterion"], "condition number");
  // The suit-fit guard: the proposed motions never predict a worse suit fit
  // on the fit joints than the scene's own (iteration 0).
  const auto& guard = design["suit_fit_guard"];
  ASSERT_FALSE(guard["evaluation_trials"].empty()) << guard.dump();
  const double scene_fit = design["iterations"][0]["predicted_fit_std_n_m"].get<double>();
  const auto& design_fit = design["iterations"][1]["predicted_fit_std_n_m"];
  EXPECT_GT(scene_fit, 0.0);
  if (guard["kept_scene_motions"].get<bool>()) {
    EXPECT_TRUE(design_fit.is_string() || design_fit.get<double>() > scene_fit) << guard.dump();
    EXPECT_TRUE(fs::exists(out() / "set_aside.xml"));
    for (const auto& m : design["motions"]) EXPECT_EQ(m["iteration"], 0);
  } else {
    EXPECT_LE(design_fit.get<double>(), scene_fit) << guard.dump();
    EXPECT_FALSE(fs::exists(out() / "set_aside.xml"));
  }
  std::vector<std::string> names;
  for (const auto& m : design["motions"]) {
    names.push_back(m["name"]);
    EXPECT_TRUE(fs::exists(out() / m["file"].get<std::string>())) << m["file"];
    if (m["iteration"] != 0) EXPECT_GE(m["zmp_margin_m"].get<double>(), design["zmp_margin_m"].get<double>());
  }
  ASSERT_EQ(names.size(), 2u);

  const fs::path evaluation = dir_ / "evaluation";
  const Result e = run({"evaluate", (out() / "scene.xml").string(), "--out", evaluation.string(), "--no-plots",
                        "--quiet", "--threads", "2"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const nlohmann::json id = nlohmann::json::parse(readFile(evaluation / "identification.json"));
  EXPECT_EQ(id["fit_trials"].get<std::vector<std::string>>(), names);
}

// The suit-fit guard: a library with no generated motion, where the design
// picks one of the scene's two motions (nod) and nothing else passes, leaves
// directions of the fit joints' torque unseen that the scene's pair sees;
// the scene's own motions are kept and the design set aside is written.
TEST_F(DesignCommand, ADesignPredictingAWorseSuitFitIsSetAsideForTheScenesOwnMotions) {
  write("lib/spin.csv", "time,yaw\n0,0\n0.2,0.6\n0.45,-0.6\n0.7,0.6\n0.9,0\n");
  const Result r = run({"design-motions", tinyScene(), "--out", out().string(), "--candidates", "0", "--iterations",
                        "1", "--threads", "2", "--motions", (dir_ / "lib").string(), "--margin", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("suit-fit guard: the scene's own motions kept: the design predicts a worse suit fit"),
            std::string::npos)
      << r.out;
  const nlohmann::json design = nlohmann::json::parse(readFile(out() / "design.json"));
  EXPECT_TRUE(design["suit_fit_guard"]["kept_scene_motions"].get<bool>());
  EXPECT_EQ(design["iterations"][1]["predicted_fit_std_n_m"], "unseen");
  EXPECT_GT(design["iterations"][0]["predicted_fit_std_n_m"].get<double>(), 0.0);
  std::vector<std::string> candidates;
  for (const auto& m : design["motions"]) candidates.push_back(m["candidate"]);
  EXPECT_EQ(candidates, (std::vector<std::string>{"wave", "nod"}));
  const std::string scene = readFile(out() / "scene.xml"), aside = readFile(out() / "set_aside.xml");
  EXPECT_NE(scene.find("motion=\"wave\" purpose=\"identification\""), std::string::npos) << scene;
  EXPECT_NE(scene.find("motion=\"nod\" purpose=\"identification\""), std::string::npos) << scene;
  EXPECT_NE(aside.find("motion=\"nod\" purpose=\"identification\""), std::string::npos) << aside;
  EXPECT_EQ(aside.find("motion=\"wave\" purpose=\"identification\""), std::string::npos) << aside;
}

TEST_F(DesignCommand, ARelaxedMarginShrinksPerIterationAndIsReported) {
  const Result r = run({"design-motions", tinyScene(), "--out", out().string(), "--candidates", "8", "--iterations",
                        "2", "--threads", "2", "--segment-min", "0.15", "--segment-max", "0.3", "--margin-rule",
                        "relaxed", "--relax-scale", "1e-3", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const nlohmann::json design = nlohmann::json::parse(readFile(out() / "design.json"));
  EXPECT_EQ(design["zmp_margin_rule"], "relaxed");
  EXPECT_EQ(design["zmp_margin_relaxation"]["scale"], 1e-3);
  EXPECT_EQ(design["zmp_margin_relaxation"]["bias"], 1.0);
  const double first = design["zmp_margin_m"].get<double>();
  // The library is generated to the smallest margin the rule allows.
  EXPECT_NEAR(design["generation_margin_m"].get<double>(), first * (1.0 - std::exp(-1.0)), 1e-12);
  const nlohmann::json& its = design["iterations"];
  ASSERT_EQ(its.size(), 3u) << design["stop_reason"];
  EXPECT_TRUE(its[0]["zmp_margin_m"].is_null());
  EXPECT_EQ(its[1]["zmp_margin_m"].get<double>(), first);
  // Iteration 2's margin from iteration 1's identified condition number,
  // K (20); one second of one motion may leave it infinite (rank
  // deficient), and then the margin stays.
  const nlohmann::json& kappa = its[2]["margin_condition_number"];
  EXPECT_EQ(kappa, its[1]["identified"]["condition_number"]);
  const double expected =
      kappa.is_null() ? first : first * (1.0 - std::exp(-(1e-3 * kappa.get<double>() + 1.0)));
  EXPECT_NEAR(its[2]["zmp_margin_m"].get<double>(), expected, 1e-12);
  EXPECT_NEAR(its[2]["zmp_margin_share"].get<double>(), 0.4 * expected / first, 1e-12);
  for (int k = 1; k <= 2; ++k) EXPECT_GE(its[k]["accepted"].get<int>(), 1);
  for (const auto& m : design["motions"]) {
    if (m["iteration"] == 0) continue;  // the suit-fit guard kept a scene motion (no margin of its own)
    const double margin = its[m["iteration"].get<int>()]["zmp_margin_m"].get<double>();
    EXPECT_GE(m["zmp_margin_m"].get<double>(), margin) << m["name"];
  }
  // The tiny robot has no URDF: every body is a capsule from inertia.
  EXPECT_EQ(design["self_collision"]["urdf_links"], 0);
  EXPECT_EQ(design["self_collision"]["inertia_links"], 4);
  const std::string md = readFile(out() / "design.md");
  EXPECT_NE(md.find("relaxed per iteration"), std::string::npos) << md;
  EXPECT_NE(md.find("## Self-collision"), std::string::npos) << md;
}

}  // namespace
