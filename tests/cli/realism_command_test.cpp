// `suitsim evaluate --realism ideal|FILE` (docs/realism.md): a realism file
// replaces the scene's <realism>; a bad one is refused before anything runs.
#include <gtest/gtest.h>

#include <filesystem>
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

class RealismOption : public suitsim::testing::CliTest {};

TEST_F(RealismOption, BadRealismFilesExit2NamingTheFileAndWriteNothing) {
  struct Case {
    std::string text, fragment;
  };
  const std::vector<Case> cases = {
      {"", "no such file"},
      {"<scene/>\n", "root element of a realism file must be <realism>"},
      {"<realism>\n  <via_points offset=\"-0.002\"/>\n</realism>\n", ":2:"},
      {"<realism>\n  <via_point offset=\"0.002\"/>\n</realism>\n", "unknown element"},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE(cases[k].fragment);
    const fs::path file = dir_ / ("realism" + std::to_string(k) + ".xml");
    if (!cases[k].text.empty()) std::ofstream(file) << cases[k].text;
    const fs::path out = dir_ / "out";
    const auto r = run({"evaluate", sourcePath("scenes/h1_protocol.xml"), "--out", out.string(), "--realism",
                        file.string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(cases[k].fragment), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST_F(RealismOption, IdealReplacesTheScenesRealismAndTheReportSaysSo) {
  // H1's protocol with the suit worn 3 mm off its design, evaluated with
  // --realism ideal: the truth wears the design again.
  std::string text = readFile(sourcePath("scenes/h1_protocol.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  text.insert(text.find("<simulation"), "<realism seed=\"2\"><via_points offset=\"0.003\"/></realism>\n  ");
  const fs::path scene = dir_ / "h1_worn.xml";
  std::ofstream(scene) << text;
  const fs::path out = dir_ / "ideal";
  const auto r = run({"evaluate", scene.string(), "--out", out.string(), "--realism", "ideal", "--threads", "2",
                      "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  EXPECT_EQ(report["settings"]["realism"], "ideal");
  EXPECT_EQ(report["settings"]["realism_sources"]["via_point_offset_m"].get<double>(), 0.0);
  // As designed, the evaluation is as good as the plain protocol's (A within 3 %).
  EXPECT_LT(std::abs(report["suits"]["normal"]["approach_a"]["relative_error"].get<double>()), 0.03);
  EXPECT_NE(readFile(out / "report.md").find("realism ideal"), std::string::npos);
}

// --heating corrected reads the windings' thermistors and the datasheet's
// magnet coefficient: a scene without either is refused before anything
// runs, naming what is missing.
TEST_F(RealismOption, HeatingCorrectionWithoutThermistorsOrCoefficientExits2) {
  std::string text = readFile(sourcePath("scenes/h1_protocol.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  const std::string thermistors = "<winding_temperatures noise=\"0.1\" resolution=\"0.0625\"/>";
  const std::string coefficient = " magnet_coefficient=\"-0.0012\"";
  ASSERT_NE(text.find(thermistors), std::string::npos);
  ASSERT_NE(text.find(coefficient), std::string::npos);
  const struct {
    std::string removed, fragment;
  } cases[] = {{thermistors, "needs the windings' temperatures"}, {coefficient, "magnets' temperature coefficient"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fragment);
    std::string cut = text;
    cut.erase(cut.find(c.removed), c.removed.size());
    const fs::path scene = dir_ / "h1_cut.xml";
    std::ofstream(scene, std::ios::trunc) << cut;
    const fs::path out = dir_ / "out";
    const auto r = run({"evaluate", scene.string(), "--out", out.string(), "--heating", "corrected", "--quiet"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  const auto r = run({"evaluate", sourcePath("scenes/h1_protocol.xml"), "--out", (dir_ / "o").string(), "--heating",
                      "warm"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--heating"), std::string::npos) << r.err;
}

}  // namespace
