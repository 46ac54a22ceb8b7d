// `suitsim evaluate --realism ideal|FILE` (docs/realism.md): a realism file
// replaces the scene's <realism>; a bad one is refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
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
    const auto r = run({"evaluate", "--remedies", "none", sourcePath("scenes/h1_protocol.xml"), "--out", out.string(), "--realism",
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
  const auto r = run({"evaluate", "--remedies", "none", scene.string(), "--out", out.string(), "--realism", "ideal", "--threads", "2",
                      "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  EXPECT_EQ(report["settings"]["realism"], "ideal");
  EXPECT_EQ(report["settings"]["realism_sources"]["via_point_offset_m"].get<double>(), 0.0);
  EXPECT_EQ(report["settings"]["realism_sources"]["capstan_friction"].get<double>(), 0.0);
  // As designed, the evaluation is as good as the plain protocol's (A within
  // 6 %, as h1_evaluate_test.cpp holds it; measured +5.01 %, the sensor
  // seed's draw: the hips' rows carry both trials' foot-sensor noise).
  EXPECT_LT(std::abs(report["suits"]["normal"]["approach_a"]["relative_error"].get<double>()), 0.06);
  EXPECT_NE(readFile(out / "report.md").find(": ideal (--realism ideal"), std::string::npos);
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

// --suit-geometry measured fits the via points to the bands' logged lengths
// before the band fit (suit_geometry.h): on JVRC-1's protocol with the suit
// worn 5 mm (RMS) off its design, it takes most of what the wrong moment
// arms cost off approach A; the report says what it fitted.
TEST_F(RealismOption, MeasuredSuitGeometryTakesTheWornSuitsErrorAway) {
  // Seed 8's draw of the worn via points costs both band groups (3.1 % on
  // type A and 8.8 / 10.5 % on type B as designed, when written); seed 2's
  // happens to cost type A 0.6 % only, too little to show a remedy.
  const fs::path realism = dir_ / "worn.xml";
  std::ofstream(realism) << "<realism seed=\"8\"><via_points offset=\"0.005\"/></realism>\n";
  const fs::path designed = dir_ / "designed", measured = dir_ / "measured";
  auto r = run({"evaluate", "--remedies", "none", sourcePath("scenes/jvrc1_protocol.xml"), "--out", designed.string(), "--realism",
                realism.string(), "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"evaluate", "--remedies", "none", sourcePath("scenes/jvrc1_protocol.xml"), "--out", measured.string(), "--realism",
           realism.string(), "--streams", (designed / "trials").string(), "--suit-geometry", "measured", "--no-plots",
           "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json a = json::parse(readFile(designed / "report.json")), b = json::parse(readFile(measured / "report.json"));
  EXPECT_EQ(a["settings"]["suit_geometry"], "designed");
  EXPECT_EQ(b["settings"]["suit_geometry"], "measured");
  EXPECT_EQ(a["suits"]["normal"]["geometry"]["source"], "designed");
  for (const char* suit : {"normal", "modified"}) {
    SCOPED_TRACE(suit);
    const json &worn = a["suits"][suit], &fitted = b["suits"][suit];
    auto error = [](const json& s, const char* approach, const char* group) {
      return std::abs(s[approach]["groups"][group]["relative_error"].get<double>());
    };
    for (const char* group : {"A", "B"}) {
      SCOPED_TRACE(group);
      // Approach A fitted: 0.3-0.7 % (measured since each trial draws its
      // own noise), against 2.3-10.4 % as designed; approach B fitted within
      // 3 % like the protocol's own figures (0.2-1.9 %).
      EXPECT_GT(error(worn, "approach_a", group), 0.02);
      EXPECT_LT(error(fitted, "approach_a", group), 0.4 * error(worn, "approach_a", group));
      EXPECT_LT(error(fitted, "approach_a", group), 0.01);
      EXPECT_LT(error(fitted, "approach_b", group), 0.03);
    }
    const json& g = b["suits"][suit]["geometry"];
    EXPECT_EQ(g["source"], "measured");
    for (const auto& [name, band] : g["bands"].items()) {
      SCOPED_TRACE(name);
      // Fitted, the lengths are off by the sensor's noise (0.2 mm) only.
      EXPECT_LT(band["worn_length_rms_m"].get<double>(), 0.00025);
      EXPECT_GT(band["determined_directions"].get<int>(), 0);
    }
  }
  EXPECT_NE(readFile(measured / "report.md").find("The suit as worn, fitted"), std::string::npos);
}

// A causal logger (<sensor_chain>, filters only) delays the IMU, the force
// sensors and the currents by 4.5-5.4 ms against the encoders; on JVRC-1's
// protocol that costs approach A's twist band (type B) 4.7 and 6.1 % when
// written (0.95 and 1.7 % on the ideal logger's streams). --sensor-delay
// compensated reads the delays the stream declares and takes most of it
// away (1.0 and 1.75 % when written).
TEST_F(RealismOption, SensorDelayCompensationAlignsTheCausalLoggersChannels) {
  const fs::path realism = dir_ / "filters.xml";
  std::ofstream(realism) << "<realism><sensor_chain imu_cutoff=\"42\" force_cutoff=\"50\" current_cutoff=\"50\"/></realism>\n";
  const fs::path stamped = dir_ / "stamped", compensated = dir_ / "compensated";
  auto r = run({"evaluate", "--remedies", "none", sourcePath("scenes/jvrc1_protocol.xml"), "--out", stamped.string(), "--realism",
                realism.string(), "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = readFile(stamped / "trials" / "bend_normal" / "sensors.csv").substr(0, 4000);
  EXPECT_NE(header.find("# lowpass.imu: butterworth2 42 Hz\n"), std::string::npos) << header;
  EXPECT_NE(header.find("# lowpass.current: butterworth2 50 Hz\n"), std::string::npos) << header;
  r = run({"evaluate", "--remedies", "none", sourcePath("scenes/jvrc1_protocol.xml"), "--out", compensated.string(), "--realism",
           realism.string(), "--streams", (stamped / "trials").string(), "--sensor-delay", "compensated",
           "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json a = json::parse(readFile(stamped / "report.json")), b = json::parse(readFile(compensated / "report.json"));
  EXPECT_EQ(a["settings"]["realism_sources"]["on"], json::array({"sensor_chain"}));
  EXPECT_EQ(json::parse(readFile(stamped / "identification.json"))["settings"]["sensor_delay"], "ignored");
  EXPECT_EQ(json::parse(readFile(compensated / "identification.json"))["settings"]["sensor_delay"], "compensated");
  for (const char* suit : {"normal", "modified"}) {
    SCOPED_TRACE(suit);
    const double before = std::abs(a["suits"][suit]["approach_a"]["groups"]["B"]["relative_error"].get<double>());
    const double after = std::abs(b["suits"][suit]["approach_a"]["groups"]["B"]["relative_error"].get<double>());
    EXPECT_GT(before, 0.03);
    EXPECT_LT(after, 0.5 * before);
  }
  // A word the option does not know is refused before anything runs.
  const fs::path out = dir_ / "out";
  r = run({"evaluate", sourcePath("scenes/jvrc1_protocol.xml"), "--out", out.string(), "--sensor-delay", "shifted"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--sensor-delay"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// --band-model viscoelastic (band_relaxation.h) on JVRC-1's protocol with
// bands that relax (<hysteresis>): the elastic fit takes the loop's stiffer
// outward half for k; the standard linear solid gives k back within a few
// per cent and finds the truth's arm and time constant.
TEST_F(RealismOption, ViscoelasticBandModelTakesTheHysteresisOut) {
  const fs::path realism = dir_ / "sls.xml";
  std::ofstream(realism) << "<realism seed=\"2\"><hysteresis relaxing_fraction=\"0.15\" relaxation_time=\"1\"/></realism>\n";
  const fs::path elastic = dir_ / "elastic", viscoelastic = dir_ / "viscoelastic";
  auto r = run({"evaluate", "--remedies", "none", sourcePath("scenes/jvrc1_protocol.xml"), "--out", elastic.string(), "--realism",
                realism.string(), "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"evaluate", "--remedies", "none", sourcePath("scenes/jvrc1_protocol.xml"), "--out", viscoelastic.string(), "--realism",
           realism.string(), "--streams", (elastic / "trials").string(), "--band-model", "viscoelastic",
           "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json a = json::parse(readFile(elastic / "report.json")), b = json::parse(readFile(viscoelastic / "report.json"));
  EXPECT_EQ(a["settings"]["band_model"], "elastic");
  EXPECT_EQ(b["settings"]["band_model"], "viscoelastic");
  EXPECT_EQ(a["settings"]["realism_sources"]["on"], json::array({"hysteresis"}));
  for (const char* suit : {"normal", "modified"}) {
    SCOPED_TRACE(suit);
    const json& before = a["suits"][suit]["approach_a"]["groups"]["A"];
    const json& after = b["suits"][suit]["approach_a"]["groups"]["A"];
    EXPECT_FALSE(before.contains("relaxing_stiffness_n_per_m"));
    // Measured when written: +7.4 / +7.5 % elastic, +2.2 / +1.1 % viscoelastic.
    EXPECT_GT(before["relative_error"].get<double>(), 0.05);
    EXPECT_LT(std::abs(after["relative_error"].get<double>()), 0.035);
    const double km = after["relaxing_stiffness_n_per_m"].get<double>();
    const double km_true = after["true_relaxing_stiffness_n_per_m"].get<double>();
    EXPECT_NEAR(km, km_true, 0.2 * km_true);
    // The time constant is the loosest of the three: 0.85 / 1.08 s (normal /
    // modified) when written, 0.85 / 0.80 s once the sliding margin no
    // longer depended on the clock's rounding (identification_joint_rows.cpp), which
    // changed which few joint rows fit the friction. Hence 25 %.
    EXPECT_NEAR(after["relaxation_time_s"].get<double>(), 1.0, 0.25);
    EXPECT_EQ(after["true_relaxation_time_s"].get<double>(), 1.0);
  }
  const fs::path out = dir_ / "out";
  r = run({"evaluate", sourcePath("scenes/jvrc1_protocol.xml"), "--out", out.string(), "--band-model", "plastic"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--band-model"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// <compliance> (gear_train.h) on JVRC-1's protocol, at the protocol's own
// step (the gears' springs are implicit: nothing refuses the scene, though
// the stiffest mode has omega dt near 1): the motor-side encoders' twist
// costs the band fit a few per cent, and --gear-twist compensated (the
// datasheet's stiffness, <apriori gear_stiffness_per_effort>) takes it out.
TEST_F(RealismOption, GearTwistCompensationReadsTheJointsBehindTheGears) {
  const fs::path realism = dir_ / "compliance.xml";
  std::ofstream(realism) << "<realism seed=\"2\"><compliance stiffness_per_effort=\"150\" backlash=\"3e-4\" "
                            "damping_ratio=\"0.1\" spread=\"0.1\" encoder=\"motor\"/></realism>\n";
  const std::string scene = sourcePath("scenes/jvrc1_protocol.xml");
  const fs::path read = dir_ / "read", compensated = dir_ / "compensated";
  auto r = run({"evaluate", "--remedies", "none", scene, "--out", read.string(), "--realism", realism.string(), "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(readFile(read / "trials" / "bend_normal" / "summary.json"))["dt_s"], 5e-4);
  r = run({"evaluate", "--remedies", "none", scene, "--out", compensated.string(), "--realism", realism.string(), "--streams",
           (read / "trials").string(), "--gear-twist", "compensated", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(readFile(read / "identification.json"))["settings"]["gear_twist"], "ignored");
  EXPECT_EQ(json::parse(readFile(compensated / "identification.json"))["settings"]["gear_twist"], "compensated");
  const json a = json::parse(readFile(read / "report.json")), b = json::parse(readFile(compensated / "report.json"));
  EXPECT_EQ(a["settings"]["realism_sources"]["on"], json::array({"compliance"}));
  for (const char* suit : {"normal", "modified"}) {
    for (const char* approach : {"approach_a", "approach_b"}) {
      SCOPED_TRACE(std::string(suit) + " " + approach);
      // Measured: type A +2.9 to +3.4 % read, -1.6 to -0.1 % compensated
      // (+4.1 to +5.2 and +0.4 to +1.0 % while the trials shared their noise).
      const json& before = a["suits"][suit][approach]["groups"]["A"];
      const json& after = b["suits"][suit][approach]["groups"]["A"];
      EXPECT_GT(before["relative_error"].get<double>(), 0.025);
      EXPECT_LT(std::abs(after["relative_error"].get<double>()), 0.02);
    }
  }
  // The streams say which encoders sit on their motors; on rigid gears
  // read at the joints none does, and the compensation changes nothing.
  EXPECT_NE(readFile(read / "trials" / "bend_normal" / "sensors.csv").find("# encoders_on_motor: "), std::string::npos);
  const fs::path rigid_read = dir_ / "rigid_read", rigid_compensated = dir_ / "rigid_compensated";
  r = run({"evaluate", sourcePath("scenes/jvrc1_protocol.xml"), "--out", rigid_read.string(), "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(readFile(rigid_read / "trials" / "bend_normal" / "sensors.csv").find("# encoders_on_motor"),
            std::string::npos);
  r = run({"evaluate", sourcePath("scenes/jvrc1_protocol.xml"), "--out", rigid_compensated.string(), "--streams",
           (rigid_read / "trials").string(), "--gear-twist", "compensated", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json c = json::parse(readFile(rigid_read / "report.json")),
             d = json::parse(readFile(rigid_compensated / "report.json"));
  for (const char* suit : {"normal", "modified"}) {
    EXPECT_EQ(c["suits"][suit]["approach_a"]["groups"]["A"]["relative_error"],
              d["suits"][suit]["approach_a"]["groups"]["A"]["relative_error"]) << suit;
  }
  const fs::path out = dir_ / "out";
  r = run({"evaluate", scene, "--out", out.string(), "--gear-twist", "undone"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gear-twist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  std::string text = readFile(scene);
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  const fs::path rigid = dir_ / "jvrc1_no_datasheet.xml";
  std::ofstream(rigid) << std::regex_replace(text, std::regex("gear_stiffness_per_effort=\"150\""), "");
  r = run({"evaluate", rigid.string(), "--out", out.string(), "--gear-twist", "compensated", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("<apriori gear_stiffness_per_effort>"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// Capstan friction at the H1's sharp turns makes its hips feel a band some
// 25 % stiffer than k; the capstan band model fits the friction and takes
// it back, and identifies the twist's groups that one tension cannot.
TEST_F(RealismOption, CapstanBandModelFitsTheFrictionWhereTheBandsTurn) {
  const fs::path realism = dir_ / "capstan.xml";
  std::ofstream(realism) << "<realism seed=\"2\"><capstan friction=\"0.3\"/></realism>\n";
  const fs::path elastic = dir_ / "elastic", capstan = dir_ / "capstan";
  auto r = run({"evaluate", "--remedies", "none", sourcePath("scenes/h1_protocol.xml"), "--out", elastic.string(), "--realism",
                realism.string(), "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({"evaluate", "--remedies", "none", sourcePath("scenes/h1_protocol.xml"), "--out", capstan.string(), "--realism", realism.string(),
           "--streams", (elastic / "trials").string(), "--band-model", "capstan", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json a = json::parse(readFile(elastic / "report.json")), b = json::parse(readFile(capstan / "report.json"));
  EXPECT_EQ(b["settings"]["band_model"], "capstan");
  for (const char* suit : {"normal", "modified"}) {
    for (const char* approach : {"approach_a", "approach_b"}) {
      SCOPED_TRACE(std::string(suit) + " " + approach);
      // Measured: type A +29.4 to +29.7 % elastic on the normal suit and
      // not identifiable on the modified one; +1.4 to +6.6 % capstan (mu
      // 0.28-0.32), where the H1 protocol without friction gives +2.8 to
      // +5.0 % at this sensor seed (h1_evaluate_test.cpp); type B not
      // identifiable, then -5.5 to -7.1 % (the H1's own -5.5 to -7.4 %).
      const json& before = a["suits"][suit][approach]["groups"];
      const json& after = b["suits"][suit][approach]["groups"];
      EXPECT_TRUE(!before["A"]["identifiable"].get<bool>() || before["A"]["relative_error"].get<double>() > 0.15);
      EXPECT_LT(std::abs(after["A"]["relative_error"].get<double>()), 0.08);
      EXPECT_NEAR(after["A"]["capstan_friction"].get<double>(), 0.3, 0.03);
      EXPECT_EQ(after["A"]["true_capstan_friction"].get<double>(), 0.3);
      EXPECT_FALSE(before["B"]["identifiable"].get<bool>());
      ASSERT_TRUE(after["B"]["identifiable"].get<bool>());
      EXPECT_LT(std::abs(after["B"]["relative_error"].get<double>()), 0.08);
    }
  }
}

// --straps corrected reads the band behind straps of the stiffness the
// scene's <apriori attachment_stiffness> states; without it, or with a word
// it does not know, it refuses before anything runs.
TEST_F(RealismOption, StrapsCorrectionNeedsTheStrapsTensileTest) {
  std::string text = readFile(sourcePath("scenes/jvrc1_protocol.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  const fs::path untested = dir_ / "jvrc1_no_tensile_test.xml";
  std::ofstream(untested) << std::regex_replace(text, std::regex("attachment_stiffness=\"10000\""), "");
  const fs::path out = dir_ / "out";
  auto r = run({"evaluate", untested.string(), "--out", out.string(), "--straps", "corrected", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--straps corrected needs the straps' stiffness"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("<apriori attachment_stiffness>"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  r = run({"evaluate", sourcePath("scenes/jvrc1_protocol.xml"), "--out", out.string(), "--straps", "loose"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--straps"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(RealismOption, MeasuredSuitGeometryWithoutLengthSensorsExits2) {
  std::string text = readFile(sourcePath("scenes/h1_protocol.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  const std::regex sensor("<band_lengths[^>]*/>");
  ASSERT_TRUE(std::regex_search(text, sensor));
  const fs::path scene = dir_ / "h1_no_lengths.xml";
  std::ofstream(scene) << std::regex_replace(text, sensor, "");
  const fs::path out = dir_ / "out";
  auto r = run({"evaluate", scene.string(), "--out", out.string(), "--suit-geometry", "measured", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs the bands' lengths: <band_lengths>"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  r = run({"evaluate", sourcePath("scenes/h1_protocol.xml"), "--out", out.string(), "--suit-geometry", "worn"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--suit-geometry"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace

namespace {

// `--remedies auto` (the default with error sources on): every remedy the
// streams and the a-priori set support runs, and the report says which and
// why not (remedies.h). The tiny experiment logs currents but no band
// lengths, winding temperatures or filters, and states no datasheet values:
// only the gear's column and the band model can run. A single option given
// keeps its word; `--remedies none` and a truth without sources list nothing.
TEST_F(RealismOption, RemediesAutoAppliesWhatTheStreamsSupportAndSaysWhyNot) {
  const fs::path realism = dir_ / "gear.xml";
  std::ofstream(realism) << "<realism seed=\"2\">\n  <gear efficiency=\"0.85\" backdrive_efficiency=\"0.8\"/>\n</realism>\n";
  const std::string scene = sourcePath("tests/cli/data/tiny_experiment.xml");
  const auto choices = [](const json& report) {
    std::map<std::string, json> by;
    for (const json& c : report.at("settings").at("remedies").at("choices")) by[c.at("remedy")] = c;
    return by;
  };
  const fs::path automatic = dir_ / "auto";
  auto r = run({"evaluate", scene, "--out", automatic.string(), "--realism", realism.string(), "--no-plots"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("remedy gear: fit (the currents measure the load"), std::string::npos) << r.err;
  const json a = json::parse(readFile(automatic / "report.json"));
  EXPECT_EQ(a["settings"]["remedies"]["mode"], "auto");
  auto c = choices(a);
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c["gear"]["setting"], "fit");
  EXPECT_TRUE(c["gear"]["applied"].get<bool>());
  EXPECT_FALSE(c["suit_geometry"]["applied"].get<bool>());
  EXPECT_NE(c["suit_geometry"]["reason"].get<std::string>().find("no band-length sensors"), std::string::npos);
  EXPECT_FALSE(c["heating"]["applied"].get<bool>());
  EXPECT_FALSE(c["straps"]["applied"].get<bool>());
  EXPECT_EQ(c["band_model"]["setting"], "viscoelastic-capstan");
  EXPECT_EQ(a["settings"]["band_model"], "viscoelastic-capstan");
  EXPECT_NE(readFile(automatic / "report.md").find("remedies chosen for the streams (--remedies auto)"), std::string::npos);
  // A single option keeps its word, and the report says so.
  const fs::path given = dir_ / "given";
  r = run({"evaluate", scene, "--out", given.string(), "--realism", realism.string(), "--streams",
           (automatic / "trials").string(), "--gear", "ideal", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  c = choices(json::parse(readFile(given / "report.json")));
  EXPECT_EQ(c["gear"]["setting"], "ideal");
  EXPECT_FALSE(c["gear"]["applied"].get<bool>());
  EXPECT_EQ(c["gear"]["reason"], "set by --gear on the command line");
  // --remedies none, or no source on: nothing chosen, nothing listed.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--realism", realism.string(), "--remedies", "none"}, std::vector<std::string>{}}) {
    const fs::path none = dir_ / ("none" + std::to_string(extra.size()));
    std::vector<std::string> args = {"evaluate", scene, "--out", none.string(), "--streams",
                                     (automatic / "trials").string(), "--no-plots", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    r = run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json n = json::parse(readFile(none / "report.json"));
    EXPECT_FALSE(n["settings"].contains("remedies"));
    EXPECT_EQ(n["settings"]["band_model"], "elastic");
  }
  r = run({"evaluate", scene, "--out", (dir_ / "bad").string(), "--remedies", "some"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--remedies"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad"));
}

}  // namespace
