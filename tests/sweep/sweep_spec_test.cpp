// Sweep files: attribute paths, every bad input's message, the points and
// their scenes, the results table. No simulation runs here (the command's
// tests, tests/cli/sweep_command_test.cpp, run whole sweeps).
#include <gtest/gtest.h>
#include <tinyxml2.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "error_message.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sweep/points.h"
#include "suitsim/sweep/spec.h"
#include "suitsim/sweep/sweep.h"
#include "suitsim/sweep/table.h"

namespace fs = std::filesystem;
using namespace suitsim::sweep;

namespace {

const fs::path kData = fs::path(SUITSIM_SOURCE_DIR) / "tests" / "sweep" / "data";

class SweepFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_sweep_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // A sweep file in the temp folder whose scene is tests/sweep/data/base.xml.
  std::string write(const std::string& body, const std::string& scene = "") {
    const fs::path p = dir_ / "sweep.xml";
    std::ofstream(p) << "<?xml version=\"1.0\"?>\n<sweep name=\"t\" scene=\""
                     << (scene.empty() ? (kData / "base.xml").string() : scene) << "\">\n"
                     << body << "</sweep>\n";
    return p.string();
  }
  ::testing::AssertionResult failsWith(const std::string& body, int line, const std::vector<std::string>& fragments,
                                       const std::string& scene = "") {
    const std::string path = write(body, scene);
    try {
      readSweep(path);
    } catch (const suitsim::io::SceneError& e) {
      std::vector<std::string> wanted = fragments;
      wanted.push_back(path + ":" + std::to_string(line) + ":");
      return suitsim::testing::namesAllOnOneLine(e.what(), wanted);
    }
    return ::testing::AssertionFailure() << "read without error";
  }
  fs::path dir_;
};

}  // namespace

TEST(AttributePath, ParsesStepsConditionsAndTheAttribute) {
  AttributePath p;
  std::string error;
  ASSERT_TRUE(parseAttributePath("robot/suit[@name='normal']/band[@group=\"A\"][@name='a1']@stiffness", &p, &error))
      << error;
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(p.steps[0].element, "robot");
  EXPECT_EQ(p.steps[1].conditions, (std::vector<std::pair<std::string, std::string>>{{"name", "normal"}}));
  EXPECT_EQ(p.steps[2].conditions.size(), 2u);
  EXPECT_EQ(p.attribute, "stiffness");
  for (const char* bad : {"", "robot", "robot/", "/robot@a", "robot@", "robot[@name]@a", "robot[@name='x'@a",
                          "robot[name='x']@a", "robot@a@b", "robot@a/b", "robot[@name='x]@a"}) {
    EXPECT_FALSE(parseAttributePath(bad, &p, &error)) << bad;
    EXPECT_NE(error.find("character"), std::string::npos) << bad << ": " << error;
  }
}

TEST(AttributePath, SetsEveryMatchAndOnlyThose) {
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile((kData / "base.xml").c_str()), tinyxml2::XML_SUCCESS);
  AttributePath p;
  std::string error;
  ASSERT_TRUE(parseAttributePath("robot/suit/band[@group='A']@stiffness", &p, &error));
  EXPECT_EQ(countMatches(doc.RootElement(), p), 3);  // two in normal, one in modified
  setAttributes(doc.RootElement(), p, "123");
  int set = 0, kept = 0;
  for (auto* s = doc.RootElement()->FirstChildElement("robot")->FirstChildElement("suit"); s;
       s = s->NextSiblingElement("suit")) {
    for (auto* b = s->FirstChildElement("band"); b; b = b->NextSiblingElement("band")) {
      (std::string(b->Attribute("stiffness")) == "123" ? set : kept) += 1;
      EXPECT_EQ(std::string(b->Attribute("stiffness")) == "123", std::string(b->Attribute("group")) == "A");
    }
  }
  EXPECT_EQ(set, 3);
  EXPECT_EQ(kept, 1);
}

TEST_F(SweepFiles, GridsListsAndRandomDraws) {
  const SweepSpec s = readSweep(write(
      "  <parameter name=\"lin\" from=\"50\" to=\"800\" count=\"4\" attribute=\"simulation@duration\"/>\n"
      "  <parameter name=\"log\" from=\"1\" to=\"100\" count=\"3\" spacing=\"log\" attribute=\"simulation@dt\"/>\n"
      "  <parameter name=\"words\" values=\"fixed floating\" attribute=\"robot@base\"/>\n"
      "  <parameter name=\"rnd\" random=\"uniform\" from=\"2\" to=\"3\" count=\"50\" seed=\"7\" "
      "attribute=\"robot/sensors@rate\"/>\n"));
  EXPECT_EQ(s.parameters[0].values, (std::vector<std::string>{"50", "300", "550", "800"}));
  EXPECT_EQ(s.parameters[1].values, (std::vector<std::string>{"1", "10", "100"}));
  EXPECT_TRUE(s.parameters[0].numeric);
  EXPECT_FALSE(s.parameters[2].numeric);
  std::set<std::string> distinct;
  for (const std::string& v : s.parameters[3].values) {
    const double x = std::stod(v);
    EXPECT_GE(x, 2.0);
    EXPECT_LT(x, 3.0);
    distinct.insert(v);
  }
  EXPECT_GT(distinct.size(), 45u);
  // The same seed draws the same values; another draws others.
  const SweepSpec again = readSweep(write(
      "  <parameter name=\"rnd\" random=\"uniform\" from=\"2\" to=\"3\" count=\"50\" seed=\"7\" "
      "attribute=\"robot/sensors@rate\"/>\n"));
  EXPECT_EQ(again.parameters[0].values, s.parameters[3].values);
  const SweepSpec other = readSweep(write(
      "  <parameter name=\"rnd\" random=\"uniform\" from=\"2\" to=\"3\" count=\"50\" seed=\"8\" "
      "attribute=\"robot/sensors@rate\"/>\n"));
  EXPECT_NE(other.parameters[0].values, s.parameters[3].values);
}

TEST_F(SweepFiles, PointsRunEveryCombinationWithEverySeedInIndexOrder) {
  const SweepSpec s = readSweep(write(
      "  <parameter name=\"a\" values=\"1 2 3\" attribute=\"simulation@duration\"/>\n"
      "  <parameter name=\"b\" values=\"x y\" attribute=\"robot@name\"/>\n"
      "  <seeds attribute=\"robot/sensors@seed\" count=\"2\" first=\"5\"/>\n"));
  const std::vector<Point> pts = enumeratePoints(s);
  ASSERT_EQ(pts.size(), 12u);
  EXPECT_EQ(pts[0].id, "p0000");
  EXPECT_EQ(pts[11].id, "p0011");
  EXPECT_EQ(pts[0].values, (std::vector<std::string>{"1", "x"}));
  EXPECT_EQ(pts[1].values, (std::vector<std::string>{"1", "x"}));
  EXPECT_EQ(pts[1].seed, 6);
  EXPECT_EQ(pts[2].values, (std::vector<std::string>{"1", "y"}));
  EXPECT_EQ(pts[4].values, (std::vector<std::string>{"2", "x"}));
  EXPECT_EQ(pts[11].values, (std::vector<std::string>{"3", "y"}));
  EXPECT_EQ(pts[11].seed, 6);
}

TEST_F(SweepFiles, APointsSceneHasItsValuesScaledAndItsFilesStillResolve) {
  const SweepSpec s = readSweep(write(
      "  <parameter name=\"k\" values=\"150 300\">\n"
      "    <set attribute=\"robot/suit[@name='normal']/band[@group='A']@stiffness\"/>\n"
      "    <set attribute=\"robot/suit[@name='modified']/band[@group='A']@stiffness\" scale=\"2.5\"/>\n"
      "  </parameter>\n"
      "  <seeds attribute=\"robot/sensors@seed\" count=\"1\" first=\"9\"/>\n"));
  std::ifstream in(s.scene);
  const std::string base((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<Point> pts = enumeratePoints(s);
  tinyxml2::XMLDocument doc;
  const std::string xml = pointScene(s, base, pts[1]);
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS);
  const auto* robot = doc.RootElement()->FirstChildElement("robot");
  const auto* normal = robot->FirstChildElement("suit");
  EXPECT_STREQ(normal->FirstChildElement("band")->Attribute("stiffness"), "300");
  EXPECT_STREQ(normal->LastChildElement("band")->Attribute("stiffness"), "50");  // group B untouched
  EXPECT_STREQ(normal->NextSiblingElement("suit")->FirstChildElement("band")->Attribute("stiffness"), "750");
  EXPECT_STREQ(robot->FirstChildElement("sensors")->Attribute("seed"), "9");
  // Written anywhere, the scene's robot file still means the one beside the base scene.
  EXPECT_EQ(fs::path(doc.RootElement()->Attribute("relative_to")), kData.lexically_normal());
}

// One seed into several attributes (the sensors' noise and a realism's
// draws, as the budget does).
TEST_F(SweepFiles, SeedsGoIntoEveryAttributeTheyName) {
  const SweepSpec s = readSweep(write("  <seeds attribute=\"robot/sensors@seed robot@seed\" count=\"2\" first=\"9\"/>\n"));
  ASSERT_EQ(s.seeds.paths.size(), 2u);
  std::ifstream in(s.scene);
  const std::string base((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tinyxml2::XMLDocument doc;
  const std::string xml = pointScene(s, base, enumeratePoints(s)[1]);
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS);
  const auto* robot = doc.RootElement()->FirstChildElement("robot");
  EXPECT_STREQ(robot->Attribute("seed"), "10");
  EXPECT_STREQ(robot->FirstChildElement("sensors")->Attribute("seed"), "10");
  EXPECT_TRUE(failsWith("  <seeds attribute=\"robot/sensors@seed robot/suit[@name='none']@seed\" count=\"1\"/>\n", 3,
                        {"<seeds>", "names no element", "suit[@name='none']"}));
}

// <evaluator>: the same streams evaluated again with other settings; its
// columns carry its name in front of the suit.
TEST_F(SweepFiles, EvaluatorsAddTheirColumnsAndBadOnesNameTheLine) {
  const SweepSpec s = readSweep(write("  <seeds attribute=\"robot/sensors@seed\" count=\"1\"/>\n"
                                      "  <evaluator name=\"remedied\" gear=\"fit\" armature=\"known\" "
                                      "sensor_delay=\"compensated\" band_model=\"viscoelastic\"/>\n"));
  ASSERT_EQ(s.evaluators.size(), 1u);
  EXPECT_EQ(s.evaluators[0].name, "remedied");
  EXPECT_EQ(s.evaluators[0].gear, "fit");
  EXPECT_EQ(s.evaluators[0].armature, "known");
  EXPECT_EQ(s.evaluators[0].sensor_delay, "compensated");
  EXPECT_EQ(s.evaluators[0].band_model, "viscoelastic");
  const ResultLayout layout{{{"normal", {"A", "B"}}}};
  const std::vector<std::string> h = resultsHeader(s, layout);
  const auto has = [&](const std::string& c) { return std::find(h.begin(), h.end(), c) != h.end(); };
  EXPECT_TRUE(has("normal.B.approach_b.relative_error"));
  EXPECT_TRUE(has("remedied/normal.A.approach_a.relative_error"));
  EXPECT_TRUE(has("remedied/normal.B.apriori.stiffness"));
  EXPECT_TRUE(has("remedied/validation.torque_rmse"));
  EXPECT_FALSE(has("remedied/normal.A.true_stiffness"));  // the truth is the default's column
  ASSERT_GE(h.size(), 2u);
  EXPECT_EQ(h[h.size() - 2], "simulation_time_s");
  EXPECT_EQ(h.back(), "wall_time_s");
  const std::string seeds = "  <seeds attribute=\"robot/sensors@seed\" count=\"1\"/>\n";
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\" gear=\"lossy\"/>\n", 4, {"gear", "ideal or fit", "lossy"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\" armature=\"maybe\"/>\n", 4, {"armature", "maybe"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\" suit_geometry=\"worn\"/>\n", 4,
                        {"suit_geometry", "designed or measured", "worn"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\" sensor_delay=\"shifted\"/>\n", 4,
                        {"sensor_delay", "ignored or compensated", "shifted"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\" band_model=\"plastic\"/>\n", 4,
                        {"band_model", "elastic, viscoelastic, capstan or viscoelastic-capstan", "plastic"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\" straps=\"tight\"/>\n", 4,
                        {"straps", "ignored or corrected", "tight"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"a/b\"/>\n", 4, {"name", "without '/'"}));
  EXPECT_TRUE(failsWith(seeds + "  <evaluator name=\"g\"/>\n  <evaluator name=\"g\"/>\n", 5,
                        {"names another evaluator"}));
}

// <evaluator when="PARAMETER=VALUE ...">: elements sharing a name, each at
// its own values of one parameter (the budget's per-row remedies); a point
// none of them matches has no evaluation of that name, and the table one
// set of columns per name, with the settings that ran.
TEST_F(SweepFiles, EvaluatorsChosenByAParameterShareTheirColumns) {
  const std::string parameter =
      "  <parameter name=\"k\" values=\"10 20 30\" attribute=\"robot/suit/band[@group='A']@stiffness\"/>\n";
  const SweepSpec s = readSweep(write(parameter +
                                      "  <evaluator name=\"r\" when=\"k=10 30\" gear=\"fit\"/>\n"
                                      "  <evaluator name=\"r\" when=\"k=20\" straps=\"corrected\" heating=\"corrected\"/>\n"
                                      "  <evaluator name=\"plain\"/>\n"));
  ASSERT_EQ(s.evaluators.size(), 3u);
  EXPECT_EQ(evaluatorNames(s), (std::vector<std::string>{"r", "plain"}));
  EXPECT_EQ(s.evaluators[0].when_parameter, "k");
  EXPECT_EQ(s.evaluators[0].when_values, (std::vector<std::string>{"10", "30"}));
  EXPECT_EQ(evaluatorAt(s, "r", {"10"}), &s.evaluators[0]);
  EXPECT_EQ(evaluatorAt(s, "r", {"20"}), &s.evaluators[1]);
  EXPECT_EQ(evaluatorAt(s, "r", {"30"}), &s.evaluators[0]);
  EXPECT_EQ(evaluatorAt(s, "plain", {"20"}), &s.evaluators[2]);
  EXPECT_EQ(evaluatorSettings(s.evaluators[1]), "heating=corrected straps=corrected");
  EXPECT_EQ(evaluatorSettings(s.evaluators[2]), "default");
  const std::vector<std::string> h = resultsHeader(s, ResultLayout{{{"normal", {"A", "B"}}}});
  EXPECT_EQ(std::count(h.begin(), h.end(), "r/normal.A.approach_a.relative_error"), 1);
  EXPECT_EQ(std::count(h.begin(), h.end(), "r/settings"), 1);
  EXPECT_EQ(std::count(h.begin(), h.end(), "plain/settings"), 1);
  // Only 10 has an element: 20 and 30 have no evaluation named "one".
  const SweepSpec partial = readSweep(write(parameter + "  <evaluator name=\"one\" when=\"k=10\" gear=\"fit\"/>\n"));
  EXPECT_EQ(evaluatorAt(partial, "one", {"20"}), nullptr);

  EXPECT_TRUE(failsWith(parameter + "  <evaluator name=\"r\" when=\"j=10\"/>\n", 4,
                        {"when", "PARAMETER=VALUE", "j=10"}));
  EXPECT_TRUE(failsWith(parameter + "  <evaluator name=\"r\" when=\"k\"/>\n", 4, {"when", "PARAMETER=VALUE"}));
  EXPECT_TRUE(failsWith(parameter + "  <evaluator name=\"r\" when=\"k=15\"/>\n", 4,
                        {"when", "'15' is not a value of parameter 'k'"}));
  EXPECT_TRUE(failsWith(parameter + "  <evaluator name=\"r\" when=\"k=10 10\"/>\n", 4, {"when", "'10' twice"}));
  EXPECT_TRUE(failsWith(parameter + "  <evaluator name=\"r\" when=\"k=10 20\"/>\n  <evaluator name=\"r\" when=\"k=20\"/>\n",
                        5, {"when", "'20' has an 'r' already (line 4)"}));
  EXPECT_TRUE(failsWith(parameter + "  <evaluator name=\"r\" when=\"k=10\"/>\n  <evaluator name=\"r\"/>\n", 5,
                        {"names another evaluator too (line 4)", "each need when="}));
}

TEST_F(SweepFiles, EveryBadInputNamesFileAndLine) {
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1\" attribute=\"robot/suit/band[@group='C']@stiffness\"/>\n",
                        3, {"<parameter>", "names no element of the base scene", "band[@group='C']"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"\" attribute=\"simulation@dt\"/>\n", 3,
                        {"values", "at least one value"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1 1\" attribute=\"simulation@dt\"/>\n", 3, {"twice"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" attribute=\"simulation@dt\"/>\n", 3, {"exactly one of"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" from=\"1\" to=\"2\" count=\"0\" attribute=\"simulation@dt\"/>\n", 3,
                        {"count", "at least 1"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" from=\"0\" to=\"2\" count=\"3\" spacing=\"log\" "
                        "attribute=\"simulation@dt\"/>\n",
                        3, {"log spacing"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1\" attribute=\"simulation[dt]@dt\"/>\n", 3,
                        {"attribute", "expected '@' after '['"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1\"/>\n", 3, {"sets nothing"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"a b\">\n    <set attribute=\"simulation@dt\" scale=\"2\"/>\n"
                        "  </parameter>\n",
                        4, {"scale", "numeric values"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"status\" values=\"1\" attribute=\"simulation@dt\"/>\n", 3,
                        {"column of its own"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1\" attribute=\"simulation@dt\"/>\n"
                        "  <parameter name=\"k\" values=\"2\" attribute=\"simulation@duration\"/>\n",
                        4, {"names another parameter"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1\" atribute=\"simulation@dt\"/>\n", 3, {"atribute"}));
  EXPECT_TRUE(failsWith("  <seeds attribute=\"robot/sensors@seed\" count=\"0\"/>\n", 3, {"count"}));
  EXPECT_TRUE(failsWith("  <grid/>\n", 3, {"grid"}));
  EXPECT_TRUE(failsWith("", 2, {"varies nothing"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"a\" from=\"1\" to=\"2\" count=\"2000\" attribute=\"simulation@dt\"/>\n"
                        "  <parameter name=\"b\" from=\"1\" to=\"2\" count=\"1000\" attribute=\"simulation@duration\"/>\n",
                        2, {"2000000 points", "more than 1000000"}));
  EXPECT_TRUE(failsWith("  <parameter name=\"k\" values=\"1\" attribute=\"simulation@dt\"/>\n", 2,
                        {"scene", "cannot be read", "no_such_scene.xml"}, (dir_ / "no_such_scene.xml").string()));
}

TEST_F(SweepFiles, TableResumesItsRowsAndRefusesAnotherSweepsTable) {
  const fs::path file = dir_ / "results.csv";
  {
    ResultsTable t(file, {"point", "id", "k", "status", "wall_time_s"});
    t.resume();
    EXPECT_EQ(t.size(), 0u);
    t.add(3, {"3", "p0003", "300", csvField("error: a, \"quoted\" reason"), "1.5"});
    t.add(1, {"1", "p0001", "100", "ok", "2.5"});
    EXPECT_FALSE(fs::exists(dir_ / ".results.csv.partial"));
  }
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "point,id,k,status,wall_time_s\n1,p0001,100,ok,2.5\n3,p0003,300,\"error: a, \"\"quoted\"\" reason\",1.5\n");
  ResultsTable again(file, {"point", "id", "k", "status", "wall_time_s"});
  again.resume();
  EXPECT_TRUE(again.has(1));
  EXPECT_TRUE(again.has(3));
  EXPECT_FALSE(again.has(2));
  EXPECT_EQ(again.row(3)[3], "error: a, \"quoted\" reason");
  ResultsTable other(file, {"point", "id", "other", "status", "wall_time_s"});
  try {
    other.resume();
    ADD_FAILURE() << "another sweep's table was resumed";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(suitsim::testing::namesAllOnOneLine(e.what(), {file.string() + ":1:", "header"}));
  }
}
