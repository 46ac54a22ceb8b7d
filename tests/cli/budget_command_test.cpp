// `suitsim budget` end to end on H1's protocol cut to 6-s trials, with the
// gear losses of the realistic preset as its one source and one seed: two
// whole evaluations (no source; the gears), each also remedied (--gear
// fit), and the budget's tables; then every bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

class BudgetCommand : public suitsim::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    timeout_seconds_ = 900;
  }
  // H1's protocol with 6-s trials, its files resolved beside the original.
  fs::path shortProtocol() {
    std::string text = readFile(sourcePath("scenes/h1_protocol.xml"));
    const std::string duration = "duration=\"12\"";
    const std::size_t at = text.find(duration);
    EXPECT_NE(at, std::string::npos);
    text.replace(at, duration.size(), "duration=\"6\"");
    const std::string root = "<scene name=\"h1_protocol\"";
    text.replace(text.find(root), root.size(),
                 root + " relative_to=\"" + fs::path(sourcePath("scenes")).lexically_normal().string() + "\"");
    const fs::path scene = dir_ / "h1_short.xml";
    std::ofstream(scene) << text;
    return scene;
  }
};

TEST_F(BudgetCommand, GearsAloneAndNoneWithTheirRemedyOverOneSeed) {
  const fs::path scene = shortProtocol();
  const fs::path realism = dir_ / "gear.xml";
  std::ofstream(realism) << "<realism preset=\"realistic\" sources=\"gear\"/>\n";
  const fs::path out = dir_ / "budget";
  const auto r = run({"budget", scene.string(), "--out", out.string(), "--realism", realism.string(), "--seeds", "1",
                      "--threads", "2", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "budget.md"));
  std::ifstream in(out / "budget.json");
  const json budget = json::parse(in);
  ASSERT_EQ(budget["sources"].size(), 2u);
  EXPECT_EQ(budget["sources"][0]["source"], "none");
  EXPECT_EQ(budget["sources"][1]["source"], "gear");
  for (const json& s : budget["sources"]) {
    for (const char* key : {"approach_a", "approach_b", "apriori", "remedied/approach_a", "remedied/approach_b"}) {
      EXPECT_TRUE(s["mean_abs_error"].contains(key)) << s["source"] << " " << key;
    }
  }
  // Each point's truth had its source and nothing else; its streams were
  // evaluated twice, the second time with the gear remedy.
  for (const char* id : {"p0000", "p0001"}) {
    SCOPED_TRACE(id);
    std::ifstream rf(out / "points" / id / "report.json");
    const json report = json::parse(rf);
    const bool gear = std::string(id) == "p0001";
    EXPECT_EQ(report["settings"]["realism_sources"]["on"], gear ? json::array({"gear"}) : json::array());
    EXPECT_EQ(report["settings"]["realism_sources"]["gear_efficiency"].get<double>(), gear ? 0.8 : 1.0);
    std::ifstream idf(out / "points" / id / "identification_remedied.json");
    ASSERT_TRUE(idf.good());
    EXPECT_EQ(json::parse(idf)["settings"]["gear"], "fit");
  }
  // Without the gear source the two evaluations see the same streams and
  // both work: every band's one evaluation is counted, as an estimate or as
  // not identifiable, and the type-A groups (the bend, 6 s) are estimated.
  // The torso's type-B group is not on this short protocol: its Cramer-Rao
  // bound alone is a 17 % relative std, beyond the 10 % the evaluator
  // accepts (it was estimated while the trials shared their noise, which
  // cancelled in approach A's difference).
  const json& none = budget["sources"][0];
  // The gear fit finds nothing to fit where the gears lose nothing, so the
  // row without sources takes it too; the budget says what each row ran.
  EXPECT_EQ(none["settings"]["remedied"], "gear=fit");
  EXPECT_EQ(budget["sources"][1]["settings"]["remedied"], "gear=fit");
  for (const auto& [band, cell] : none["bands"].items()) {
    for (const char* method : {"approach_a", "remedied/approach_a"}) {
      EXPECT_EQ(cell[method]["n"].get<int>() + cell[method]["not_identifiable"].get<int>(), 1) << band << " " << method;
      if (band.size() > 2 && band.substr(band.size() - 2) == ".A") EXPECT_EQ(cell[method]["n"], 1) << band << " " << method;
    }
  }
  // Run again: the same budget is complete, nothing runs, the tables stay.
  const std::string md = readFile(out / "budget.md");
  const auto again = run({"budget", scene.string(), "--out", out.string(), "--realism", realism.string(), "--seeds",
                          "1", "--no-plots"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(readFile(out / "budget.md"), md);
}

TEST_F(BudgetCommand, BadInputExits2AndWritesNothing) {
  const std::string scene = sourcePath("scenes/h1_protocol.xml");
  const fs::path out = dir_ / "out";
  // No source to budget.
  auto r = run({"budget", scene, "--out", out.string(), "--realism", "ideal", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("switches no error source on"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // A realism file that is not one.
  const fs::path bad = dir_ / "bad.xml";
  std::ofstream(bad) << "<realism preset=\"realistic\"\n  sources=\"backlash\"/>\n";
  r = run({"budget", scene, "--out", out.string(), "--realism", bad.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad.string() + ":1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'backlash' is not a source"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // A scene that does not exist.
  r = run({"budget", (dir_ / "none.xml").string(), "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(out));
  // Bad counts.
  r = run({"budget", scene, "--out", out.string(), "--seeds", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--seeds"), std::string::npos) << r.err;
  // A folder that holds another budget is not mixed into.
  const fs::path other = dir_ / "other";
  fs::create_directories(other);
  std::ofstream(other / "budget.xml") << "<sweep name=\"budget\" scene=\"x.xml\"/>\n";
  std::ofstream(other / "budget_scene.xml") << "<scene/>\n";
  r = run({"budget", scene, "--out", other.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds another budget"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(other / "budget.xml"), "<sweep name=\"budget\" scene=\"x.xml\"/>\n");
}

}  // namespace
