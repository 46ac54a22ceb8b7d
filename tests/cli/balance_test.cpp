// A robot's balance in `suitsim run`: summary.json says whether it fell
// (the rule in docs/commands.md) and how close its DCM came to the support
// polygon's edge; the balance channels are recordable; truth.csv carries
// the simulator's margin for scoring. JVRC-1 and H1 standing, and JVRC-1
// without its servo (it collapses).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

class RobotBalance : public suitsim::testing::CliTest {
 protected:
  // A shipped scene with absolute model paths, the whole-model balance
  // channels recorded, and, with `servo` false, its <servo> elements gone.
  fs::path variant(const std::string& scene, bool servo) {
    std::string text = readFile(sourcePath("scenes/" + scene));
    if (!servo) text = std::regex_replace(text, std::regex("<servo [^>]*/>"), "");
    text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
    const std::string records = R"(<record quantity="com"/><record quantity="cop"/><record quantity="dcm"/>)"
                                R"(<record quantity="vrp"/><record quantity="ecmp"/><record quantity="balance_margin"/>)";
    text.insert(text.rfind("</scene>"), records + "\n");
    const fs::path path = dir_ / (scene + (servo ? "" : ".no_servo.xml"));
    std::ofstream(path) << text;
    return path;
  }

  json runFor(const fs::path& scene, const std::string& duration, const std::string& name) {
    const fs::path out = dir_ / name;
    const auto r = run({"run", scene.string(), "--out", out.string(), "--duration", duration, "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    out_ = out;
    return json::parse(readFile(out / "summary.json"));
  }

  // Column `name` of a CSV with '#' comments.
  static std::vector<double> column(const fs::path& csv, const std::string& name) {
    std::ifstream f(csv);
    std::string line;
    int col = -1;
    std::vector<double> values;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> fields;
      std::stringstream ss(line);
      for (std::string field; std::getline(ss, field, ',');) fields.push_back(field);
      if (col < 0) {
        for (std::size_t c = 0; c < fields.size(); ++c) {
          if (fields[c] == name) col = static_cast<int>(c);
        }
        if (col < 0) return {};
        continue;
      }
      values.push_back(std::stod(fields[col]));
    }
    return values;
  }

  fs::path out_;
};

TEST_F(RobotBalance, StandingRobotsDoNotFallAndKeepTheirDcmOverTheFeet) {
  for (const char* scene : {"jvrc1_stand.xml", "h1_stand.xml"}) {
    SCOPED_TRACE(scene);
    const json s = runFor(variant(scene, true), "2", std::string(scene) + ".out");
    ASSERT_TRUE(s.contains("fell")) << s.dump(2);
    EXPECT_FALSE(s["fell"].get<bool>());
    const json& b = s["balance"];
    EXPECT_TRUE(b["fell_at_s"].is_null());
    EXPECT_GT(b["com_height_min_m"].get<double>(), 0.9 * b["com_height_start_m"].get<double>());
    ASSERT_TRUE(b["standing_from_s"].is_number());
    EXPECT_LT(b["standing_from_s"].get<double>(), 0.5);
    // Standing still: the DCM stays well inside the soles' polygon.
    EXPECT_GT(b["min_balance_margin_m"].get<double>(), 0.01);
    EXPECT_EQ(b["fraction_dcm_outside_support"].get<double>(), 0.0);
    EXPECT_EQ(b["fraction_without_support"].get<double>(), 0.0);
    // The recorded channels, once the robot stands: the eCMP near the CoP
    // and the VRP near the CoM (a robot nearly at rest), the margin positive.
    const fs::path stream = out_ / "stream.csv";
    const std::vector<double> t = column(stream, "time[s]"), margin = column(stream, "balance_margin[m]");
    const std::vector<double> cop = column(stream, "cop.x[m]"), ecmp = column(stream, "ecmp.x[m]");
    const std::vector<double> com = column(stream, "com.z[m]"), vrp = column(stream, "vrp.z[m]");
    ASSERT_EQ(margin.size(), t.size());
    ASSERT_EQ(ecmp.size(), t.size());
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] < 1.0) continue;
      EXPECT_GT(margin[k], 0.0) << "t = " << t[k];
      EXPECT_NEAR(ecmp[k], cop[k], 0.01) << "t = " << t[k];
      EXPECT_NEAR(vrp[k], com[k], 0.01) << "t = " << t[k];
    }
    // The truth for scoring, at the sensors' rate.
    EXPECT_FALSE(column(out_ / "truth.csv", "balance_margin[m]").empty());
  }
}

TEST_F(RobotBalance, RobotWithoutItsServoFalls) {
  const json s = runFor(variant("jvrc1_stand.xml", false), "2", "collapse");
  EXPECT_TRUE(s["fell"].get<bool>()) << s.dump(2);
  const json& b = s["balance"];
  ASSERT_TRUE(b["fell_at_s"].is_number());
  EXPECT_GT(b["fell_at_s"].get<double>(), 0.0);
  EXPECT_LT(b["fell_at_s"].get<double>(), 2.0);
  EXPECT_LT(b["com_height_min_m"].get<double>(), 0.5 * b["com_height_start_m"].get<double>());
}

}  // namespace
