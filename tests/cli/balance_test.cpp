// A robot's balance in `suitsim run`: summary.json says whether it fell
// (the rule in docs/commands.md) and how close its DCM came to the support
// polygon's edge; the balance channels are recordable; truth.csv carries
// the simulator's margin for scoring. JVRC-1 and H1 standing, and JVRC-1
// without its servo (it collapses).
#include <gtest/gtest.h>

#include <algorithm>
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

TEST_F(RobotBalance, ShovedRobotFallsAloneAndTheAssistBringsItsDcmBack) {
  // JVRC-1, the shipped pair of scenes (100 N for 0.2 s at the chest).
  const json alone = runFor(sourcePath("scenes/jvrc1_push.xml"), "4", "push");
  EXPECT_TRUE(alone["fell"].get<bool>()) << alone.dump(2);
  EXPECT_FALSE(alone.contains("assist"));
  const json helped = runFor(sourcePath("scenes/jvrc1_push_assist.xml"), "4", "push_assist");
  EXPECT_FALSE(helped["fell"].get<bool>()) << helped.dump(2);
  const json& a = helped["assist"];
  // Measured: peak 290 N, 40.5 N s, DCM outside the region for 0.31 s.
  EXPECT_GT(a["peak_force_n"].get<double>(), 50.0);
  EXPECT_LE(a["peak_force_n"].get<double>(), 400.0 + 1e-9);  // the scene's limit
  EXPECT_GT(a["time_dcm_outside_region_s"].get<double>(), 0.0);
  EXPECT_LT(a["time_dcm_outside_region_s"].get<double>(), 1.0);
  // The DCM is back over the feet at the end, and the assist let go.
  const std::vector<double> margin = column(out_ / "stream.csv", "balance_margin[m]");
  const std::vector<double> fx = column(out_ / "stream.csv", "applied_force.x[N]");
  ASSERT_FALSE(margin.empty());
  EXPECT_GT(margin.back(), 0.01);
  EXPECT_LT(std::abs(fx.back()), 1.0);
  const double peak_applied = *std::max_element(fx.begin(), fx.end(), [](double x, double y) { return std::abs(x) < std::abs(y); });
  EXPECT_GT(std::abs(peak_applied), 50.0);

  // H1: a shove at the torso that fells it alone (150 N for 0.2 s).
  std::string text = readFile(sourcePath("scenes/h1_stand.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  const std::string push = R"(<push link="torso_link" point="0 0 0.3" force="150 0 0" start="1" duration="0.2"/>)";
  const std::string assist =
      R"(<assist link="pelvis" law="acceleration" kp="5" max_force="400" bandwidth="20" rate="200" margin="0.02"/>)";
  std::string pushed = text, assisted = text;
  pushed.insert(pushed.find("</robot>"), push + "\n");
  assisted.insert(assisted.find("</robot>"), push + "\n" + assist + "\n");
  std::ofstream(dir_ / "h1_push.xml") << pushed;
  std::ofstream(dir_ / "h1_push_assist.xml") << assisted;
  EXPECT_TRUE(runFor(dir_ / "h1_push.xml", "4", "h1_push")["fell"].get<bool>());
  const json h1 = runFor(dir_ / "h1_push_assist.xml", "4", "h1_push_assist");
  EXPECT_FALSE(h1["fell"].get<bool>()) << h1.dump(2);
  EXPECT_GT(h1["assist"]["peak_force_n"].get<double>(), 50.0);
}

TEST_F(RobotBalance, BadPushesAndAssistsExit2NamingTheLine) {
  const std::string text = readFile(sourcePath("scenes/jvrc1_push_assist.xml"));
  struct Case {
    std::string from, to, fragment;
  };
  const std::vector<Case> cases = {
      {R"(law="acceleration")", R"(law="pid")", "'law'"},
      {R"(<push link="WAIST_R_S")", R"(<push link="CHEST")", "names no link"},
      {R"(max_force="400")", R"(max_force="-1")", "'max_force'"},
      {R"(duration="0.2")", R"(duration="0")", "'duration'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    std::string bad = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
    ASSERT_NE(bad.find(c.from), std::string::npos);
    bad.replace(bad.find(c.from), c.from.size(), c.to);
    const fs::path path = dir_ / "bad.xml";
    std::ofstream(path) << bad;
    const auto r = run({"run", path.string(), "--out", (dir_ / "bad_out").string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(path.string() + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "bad_out"));
  }
}

}  // namespace
