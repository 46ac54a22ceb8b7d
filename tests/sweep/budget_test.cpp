// The error budget's pieces that need no simulation: the sweep file it
// writes (each source alone, all, none; seeds into the realism and the
// sensors; the remedies), the confidence intervals, and its tables made
// from a results table (tests/cli/budget_command_test.cpp runs one whole).
#include <gtest/gtest.h>
#include <tinyxml2.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "suitsim/scene/scene.h"
#include "suitsim/sweep/budget.h"
#include "suitsim/sweep/points.h"
#include "suitsim/sweep/spec.h"

namespace fs = std::filesystem;
using namespace suitsim::sweep;

namespace {

const fs::path kData = fs::path(SUITSIM_SOURCE_DIR) / "tests" / "sweep" / "data";

class Budget : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_budget_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// With the gears' compliance on, every point runs at the protocol's own
// step (the gears' springs are implicit, gear_train.h), the remedied
// evaluator compensates the twist (the protocol states the datasheet's
// stiffness), and writing the budget again (a resumed run) is accepted.
TEST_F(Budget, CompliantGearsRunEveryPointAtTheScenesStep) {
  const std::string scene = std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_protocol.xml";
  suitsim::io::Realism realism = suitsim::io::keepSources(suitsim::io::realisticPreset(), {"compliance"});
  std::vector<std::string> notes;
  const fs::path file = writeBudgetSweep(scene, realism, {2, 1, true}, dir_, &notes);
  EXPECT_TRUE(notes.empty());
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile((dir_ / "budget_scene.xml").c_str()), tinyxml2::XML_SUCCESS);
  EXPECT_EQ(doc.RootElement()->FirstChildElement("simulation")->DoubleAttribute("dt"), 5e-4);
  const SweepSpec spec = readSweep(file.string());
  ASSERT_EQ(spec.evaluators.size(), 1u);
  EXPECT_EQ(spec.evaluators[0].gear_twist, "compensated");
  std::vector<std::string> again;
  EXPECT_NO_THROW(writeBudgetSweep(scene, realism, {2, 1, true}, dir_, &again));
  EXPECT_EQ(again, notes);
}

TEST_F(Budget, CapstanFrictionAloneIsRemediedByTheCapstanBandModel) {
  const suitsim::io::Realism rubbing = suitsim::io::keepSources(suitsim::io::realisticPreset(), {"capstan"});
  std::vector<std::string> notes;
  const fs::path file = writeBudgetSweep((kData / "base.xml").string(), rubbing, {2, 1, true}, dir_, &notes);
  EXPECT_TRUE(notes.empty());
  const SweepSpec spec = readSweep(file.string());
  ASSERT_EQ(spec.evaluators.size(), 1u);
  EXPECT_EQ(spec.evaluators[0].band_model, "capstan");
}

// The straps have a remedy only where the scene states their tensile test.
TEST_F(Budget, StrapsAreCorrectedWhereTheSceneStatesTheirTensileTest) {
  const suitsim::io::Realism strapped = suitsim::io::keepSources(suitsim::io::realisticPreset(), {"attachments"});
  SweepSpec spec = readSweep(writeBudgetSweep((kData / "base.xml").string(), strapped, {2, 1, true}, dir_).string());
  EXPECT_TRUE(spec.evaluators.empty());  // base.xml has no <apriori attachment_stiffness>
  std::ifstream in(kData / "base.xml");
  std::stringstream text;
  text << in.rdbuf();
  std::string scene = text.str();
  scene.insert(scene.find("<sensors"), "<apriori attachment_stiffness=\"9000\"/>\n    ");
  const std::string urdf = "../../io/data/arm.urdf";
  ASSERT_NE(scene.find(urdf), std::string::npos);
  scene.replace(scene.find(urdf), urdf.size(), (kData / urdf).lexically_normal().string());
  const fs::path tested = dir_ / "tensile.xml";
  std::ofstream(tested) << scene;
  const fs::path out = dir_ / "tested";
  spec = readSweep(writeBudgetSweep(tested.string(), strapped, {2, 1, true}, out).string());
  ASSERT_EQ(spec.evaluators.size(), 1u);
  EXPECT_EQ(spec.evaluators[0].straps, "corrected");
  // The correction assumes the straps are there: the row without them
  // (`none`, rigid straps) is not read behind straps.
  EXPECT_NE(evaluatorAt(spec, "remedied", {"attachments"}), nullptr);
  EXPECT_EQ(evaluatorAt(spec, "remedied", {"none"}), nullptr);
}

TEST_F(Budget, SweepRunsEverySourceAloneAllAndNoneWithTheRemedies) {
  std::vector<std::string> notes;
  const fs::path file =
      writeBudgetSweep((kData / "base.xml").string(), suitsim::io::realisticPreset(), {4, 7, true}, dir_, &notes);
  // Hysteresis and capstan friction both choose A(26)'s band model: with
  // both on it is the model with both, and nothing goes without.
  EXPECT_TRUE(notes.empty()) << notes.front();
  const SweepSpec spec = readSweep(file.string());
  ASSERT_EQ(spec.parameters.size(), 1u);
  EXPECT_EQ(spec.parameters[0].name, "source");
  EXPECT_EQ(spec.parameters[0].values,
            (std::vector<std::string>{"none", "via_points", "gear", "motor_heating", "sensor_chain", "attachments",
                                      "hysteresis", "capstan", "compliance", "all"}));
  EXPECT_EQ(spec.seeds.count, 4);
  EXPECT_EQ(spec.seeds.first, 7);
  ASSERT_EQ(spec.seeds.paths.size(), 2u);  // the realism's draws and the sensors' noise
  EXPECT_EQ(spec.seeds.paths[0].text, "realism@seed");
  EXPECT_EQ(spec.seeds.paths[1].text, "robot/sensors@seed");
  // Each row is remedied for its own sources: `none` takes every remedy
  // that does nothing where its source is off (base.xml logs no band
  // lengths and states no straps or gear stiffness, so the via points, the
  // straps and the compliance have none), `all` every remedy, and a source
  // without a remedy (motor heating: no temperatures logged) none.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"none", "gear=fit sensor_delay=compensated band_model=viscoelastic-capstan"},
      {"via_points", ""},
      {"gear", "gear=fit"},
      {"motor_heating", ""},
      {"sensor_chain", "sensor_delay=compensated"},
      {"attachments", ""},
      {"hysteresis", "band_model=viscoelastic"},
      {"capstan", "band_model=capstan"},
      {"compliance", ""},
      {"all", "gear=fit sensor_delay=compensated band_model=viscoelastic-capstan"}};
  EXPECT_EQ(evaluatorNames(spec), std::vector<std::string>{"remedied"});
  for (const auto& [source, settings] : expected) {
    const Evaluator* ev = evaluatorAt(spec, "remedied", {source});
    if (settings.empty()) {
      EXPECT_EQ(ev, nullptr) << source;
    } else {
      ASSERT_NE(ev, nullptr) << source;
      EXPECT_EQ(evaluatorSettings(*ev), settings) << source;
    }
  }
  EXPECT_EQ(spec.evaluators.size(), 5u);  // none and all share one element

  // Each point's scene switches its source alone on, with the preset's
  // magnitudes written out, and its files still resolve beside the base.
  const std::string base = readText(spec.scene);
  const std::vector<Point> points = enumeratePoints(spec);
  ASSERT_EQ(points.size(), 40u);
  for (const Point& p : points) {
    tinyxml2::XMLDocument doc;
    const std::string xml = pointScene(spec, base, p);
    ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS);
    EXPECT_EQ(fs::path(doc.RootElement()->Attribute("relative_to")), kData.lexically_normal());
    const tinyxml2::XMLElement* realism = doc.RootElement()->FirstChildElement("realism");
    ASSERT_NE(realism, nullptr);
    EXPECT_EQ(realism->NextSiblingElement("realism"), nullptr);
    EXPECT_EQ(realism->IntAttribute("seed"), p.seed);
    tinyxml2::XMLDocument alone;
    alone.InsertEndChild(realism->DeepClone(&alone));
    const fs::path realism_file = dir_ / ("realism_" + p.id + ".xml");
    alone.SaveFile(realism_file.c_str());
    const suitsim::io::Realism r = suitsim::io::loadRealism(realism_file.string());
    const std::string& source = p.values[0];
    const std::vector<std::string> expected =
        source == "none"  ? std::vector<std::string>{}
        : source == "all" ? std::vector<std::string>{"via_points", "gear", "motor_heating", "sensor_chain", "attachments",
                                                     "hysteresis", "capstan", "compliance"}
                          : std::vector<std::string>{source};
    EXPECT_EQ(r.activeSources(), expected) << p.id;
    if (source == "sensor_chain") {
      EXPECT_EQ(r.chain_imu_cutoff, 42.0);
    }
    if (source == "attachments") {
      EXPECT_EQ(r.attachment_stiffness, 10000.0);
    }
    if (source == "hysteresis") {
      EXPECT_EQ(r.hysteresis_fraction, 0.15);
    }
    if (source == "compliance") {
      EXPECT_EQ(r.compliance_stiffness_per_effort, 150.0);
    }
    if (source == "capstan") {
      EXPECT_EQ(r.capstan_friction, 0.3);
    }
    if (source == "gear") {
      EXPECT_EQ(r.gear_efficiency, 0.8);
      EXPECT_EQ(r.backdrive_efficiency, 0.7);
    }
  }
}

// With the bands' lengths logged, the via points' remedy is the fitted
// suit geometry (suit_geometry.h).
TEST_F(Budget, ViaPointsAreRemediedByTheMeasuredGeometryWhenTheLengthsAreLogged) {
  std::string text = readText(kData / "base.xml");
  const std::string sensors = "<sensors rate=\"200\" seed=\"1\" noise=\"on\"/>";
  ASSERT_NE(text.find(sensors), std::string::npos);
  text.replace(text.find(sensors), sensors.size(),
               "<sensors rate=\"200\" seed=\"1\" noise=\"on\"><band_lengths noise=\"0.0002\"/></sensors>");
  text.replace(text.find("<scene "), 7, "<scene relative_to=\"" + kData.string() + "\" ");
  fs::create_directories(dir_);
  const fs::path scene = dir_ / "with_lengths.xml";
  std::ofstream(scene) << text;
  const suitsim::io::Realism worn = suitsim::io::keepSources(suitsim::io::realisticPreset(), {"via_points"});
  const SweepSpec spec = readSweep(writeBudgetSweep(scene.string(), worn, {2, 1, true}, dir_ / "out").string());
  ASSERT_EQ(spec.evaluators.size(), 1u);
  EXPECT_EQ(spec.evaluators[0].suit_geometry, "measured");
}

TEST_F(Budget, OneSourceHasNoAllRowAndNoRemedyWithoutOne) {
  const suitsim::io::Realism heating =
      suitsim::io::keepSources(suitsim::io::realisticPreset(), {"motor_heating"});
  const SweepSpec spec = readSweep(writeBudgetSweep((kData / "base.xml").string(), heating, {2, 1, true}, dir_).string());
  EXPECT_EQ(spec.parameters[0].values, (std::vector<std::string>{"none", "motor_heating"}));
  EXPECT_TRUE(spec.evaluators.empty());
}

TEST_F(Budget, RefusesNoSourceAndAFolderHoldingAnotherBudget) {
  EXPECT_THROW(writeBudgetSweep((kData / "base.xml").string(), suitsim::io::Realism{}, {}, dir_),
               suitsim::io::SceneError);
  writeBudgetSweep((kData / "base.xml").string(), suitsim::io::realisticPreset(), {3, 1, true}, dir_);
  // The same budget again: continued.
  EXPECT_NO_THROW(writeBudgetSweep((kData / "base.xml").string(), suitsim::io::realisticPreset(), {3, 1, true}, dir_));
  try {
    writeBudgetSweep((kData / "base.xml").string(), suitsim::io::realisticPreset(), {5, 1, true}, dir_);
    ADD_FAILURE() << "another budget was written over the first";
  } catch (const suitsim::io::SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("holds another budget"), std::string::npos) << e.what();
  }
  EXPECT_NE(readText(dir_ / "budget.xml").find("count=\"3\""), std::string::npos);
}

// Student's t against its defining property: the 97.5 % point of the t
// distribution, checked by integrating the density (Simpson) from 0 to it.
TEST(BudgetStatistics, StudentQuantilesHoldTheirProbability) {
  for (int dof : {1, 2, 3, 5, 9, 20, 30, 31, 45, 100, 1000}) {
    const double t = studentT975(dof), n = dof;
    const double c = std::exp(std::lgamma((n + 1) / 2) - std::lgamma(n / 2)) / std::sqrt(n * M_PI);
    const int steps = 20000;
    double area = 0.0;
    for (int i = 0; i <= steps; ++i) {
      const double x = t * i / steps;
      const double w = (i == 0 || i == steps) ? 1.0 : (i % 2 ? 4.0 : 2.0);
      area += w * c * std::pow(1.0 + x * x / n, -(n + 1) / 2);
    }
    area *= t / steps / 3.0;
    EXPECT_NEAR(0.5 + area, 0.975, 2e-5) << "dof " << dof;
  }
  EXPECT_TRUE(std::isinf(studentT975(0)));
}

TEST(BudgetStatistics, CellIsTheMeanAndTheIntervalOfTheMean) {
  const BudgetCell c = budgetCell({0.01, 0.03, 0.05}, 1);
  EXPECT_EQ(c.n, 3);
  EXPECT_EQ(c.missing, 1);
  EXPECT_NEAR(c.mean, 0.03, 1e-15);
  EXPECT_NEAR(c.half_width, studentT975(2) * 0.02 / std::sqrt(3.0), 1e-15);  // sd 0.02
  EXPECT_TRUE(std::isinf(budgetCell({0.02}, 0).half_width));             // one seed: no interval
  EXPECT_EQ(budgetCell({}, 2).n, 0);
}

// A row that no remedied evaluation applies to (its NAME/settings cell is
// empty) is left out of that evaluation's cells, not counted as not
// identifiable, and the budget lists what each row's remedies were.
TEST_F(Budget, TablesLeaveOutTheRowsWithoutRemedies) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "results.csv")
      << "point,id,source,seed,status,n.A.true_stiffness,n.A.approach_a.stiffness,n.A.approach_a.relative_error,"
         "remedied/n.A.approach_a.stiffness,remedied/n.A.approach_a.relative_error,remedied/validation.torque_rmse,"
         "remedied/settings,wall_time_s\n"
         "0,p0,none,1,ok,1,1,0.01,1,0.02,0.5,gear=fit,1\n"
         "1,p1,none,2,ok,1,1,0.03,1,0.04,0.5,gear=fit,1\n"
         "2,p2,attachments,1,ok,1,1,-0.10,1,0.01,0.5,straps=corrected,1\n"
         "3,p3,motor_heating,1,ok,1,1,0.05,,,,,1\n";
  writeBudgetSummary(dir_, false, {});
  std::ifstream in(dir_ / "budget.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["sources"].size(), 3u);
  EXPECT_NEAR(j["sources"][0]["bands"]["n.A"]["remedied/approach_a"]["mean"].get<double>(), 0.03, 1e-12);
  EXPECT_EQ(j["sources"][0]["settings"]["remedied"], "gear=fit");
  EXPECT_EQ(j["sources"][1]["settings"]["remedied"], "straps=corrected");
  const auto& heating = j["sources"][2];
  EXPECT_EQ(heating["bands"]["n.A"]["remedied/approach_a"]["n"], 0);
  EXPECT_EQ(heating["bands"]["n.A"]["remedied/approach_a"]["not_identifiable"], 0);
  EXPECT_TRUE(heating["settings"]["remedied"].is_null());
  EXPECT_EQ(heating["bands"]["n.A"]["approach_a"]["n"], 1);
  const std::string md = readText(dir_ / "budget.md");
  EXPECT_NE(md.find("| attachments | `straps=corrected` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| motor_heating | none |"), std::string::npos) << md;
  EXPECT_EQ(md.find("n.i."), md.find("n.i.\": not identifiable")) << md;  // no cell says n.i.
}

// The tables from a results table alone: per source, the mean |error| over
// the bands and each band's signed error, over the seeds; a seed where a
// band was not identifiable is counted apart.
TEST_F(Budget, TablesAreMadeFromTheResultsTable) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "results.csv")
      << "point,id,source,seed,status,n.A.true_stiffness,n.A.approach_a.stiffness,n.A.approach_a.relative_error,"
         "n.B.true_stiffness,n.B.approach_a.stiffness,n.B.approach_a.relative_error,"
         "remedied/n.A.approach_a.stiffness,remedied/n.A.approach_a.relative_error,"
         "remedied/n.B.approach_a.stiffness,remedied/n.B.approach_a.relative_error,wall_time_s\n"
         "0,p0,none,1,ok,1,1,0.01,1,1,-0.03,1,0.00,1,0.01,1\n"
         "1,p1,none,2,ok,1,1,0.03,1,1,-0.01,1,0.02,1,0.01,1\n"
         "2,p2,gear,1,ok,1,1,0.10,1,,,1,0.01,1,0.02,1\n"
         "3,p3,gear,2,ok,1,1,0.20,1,1,0.40,1,0.03,1,0.04,1\n"
         "4,p4,gear,3,\"trial x: diverged\",,,,,,,,,,,1\n";
  const SummaryFiles files = writeBudgetSummary(dir_, false, {});
  EXPECT_TRUE(files.pngs.empty());
  std::ifstream in(dir_ / "budget.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["sources"].size(), 2u);
  const auto& none = j["sources"][0];
  EXPECT_EQ(none["source"], "none");
  EXPECT_NEAR(none["bands"]["n.A"]["approach_a"]["mean"].get<double>(), 0.02, 1e-12);
  EXPECT_NEAR(none["bands"]["n.B"]["approach_a"]["mean"].get<double>(), -0.02, 1e-12);
  // Mean |error| over the bands: seed 1 (0.01 + 0.03) / 2, seed 2 (0.03 + 0.01) / 2.
  EXPECT_NEAR(none["mean_abs_error"]["approach_a"]["mean"].get<double>(), 0.02, 1e-12);
  EXPECT_NEAR(none["mean_abs_error"]["approach_a"]["ci95_half_width"].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(none["mean_abs_error"]["remedied/approach_a"]["mean"].get<double>(), 0.01, 1e-12);
  const auto& gear = j["sources"][1];
  EXPECT_EQ(gear["bands"]["n.B"]["approach_a"]["n"], 1);
  EXPECT_EQ(gear["bands"]["n.B"]["approach_a"]["not_identifiable"], 1);
  EXPECT_EQ(gear["mean_abs_error"]["approach_a"]["n"], 1);  // only seed 2 has both bands
  EXPECT_NEAR(gear["mean_abs_error"]["approach_a"]["mean"].get<double>(), 0.30, 1e-12);
  EXPECT_NEAR(gear["bands"]["n.A"]["approach_a"]["mean"].get<double>(), 0.15, 1e-12);
  EXPECT_NEAR(gear["bands"]["n.A"]["approach_a"]["ci95_half_width"].get<double>(),
              studentT975(1) * std::sqrt(0.005) / std::sqrt(2.0), 1e-12);
  const std::string md = readText(dir_ / "budget.md");
  EXPECT_NE(md.find("| gear | 30.00 % (n.i. 1/2) |"), std::string::npos) << md;
  EXPECT_NE(md.find("gear: trial x: diverged"), std::string::npos) << md;
  EXPECT_NE(md.find("A (remedied)"), std::string::npos) << md;
  // Not a budget's table: refused.
  std::ofstream(dir_ / "results.csv", std::ios::trunc) << "point,id,k,status\n0,p0,1,ok\n";
  EXPECT_THROW(writeBudgetSummary(dir_, false, {}), std::runtime_error);
}

}  // namespace
