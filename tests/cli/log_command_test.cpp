// `suitsim identify --log MAP`, `suitsim evaluate --log MAP` and `suitsim run
// --log-format hdf5` through the real binary (docs/logs.md): the HDF5 log a
// run writes identifies bit for bit as its CSV streams; a CSV log with
// renamed columns, other units, scales, signs, zero offsets, a time column
// in ms and a coupled (differential) pair of joints identifies as the
// streams it was made from, to rounding; and each bad input exits 2 with
// one message naming the file, line (or dataset and row) and column, and
// writes nothing.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using namespace suitsim::testing::cli;

constexpr double kPi = 3.14159265358979323846;

/// A CSV stream as columns by name (units stripped) and its rows.
struct Csv {
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
  double col(std::size_t r, const std::string& name) const {
    for (std::size_t c = 0; c < names.size(); ++c) {
      if (names[c] == name) return rows[r][c];
    }
    ADD_FAILURE() << "no column " << name;
    return 0.0;
  }
};

Csv readCsv(const fs::path& file) {
  std::istringstream in(readFile(file));
  Csv csv;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (csv.names.empty()) {
      for (const std::string& f : fields) csv.names.push_back(f.substr(0, f.find('[')));
      continue;
    }
    std::vector<double> row;
    for (const std::string& f : fields) row.push_back(std::stod(f));
    csv.rows.push_back(row);
  }
  return csv;
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

const char* kTrials[] = {"ident_wave", "ident_nod", "lift_none", "lift_strap"};

class LogCommand : public suitsim::testing::CliTest {
 protected:
  static void SetUpTestSuite() {
    base_ = new fs::path(fs::path(::testing::TempDir()) / ("suitsim_log_" + std::to_string(static_cast<long>(::getpid()))));
    fs::remove_all(*base_);
    for (const char* fmt : {"csv", "hdf5"}) {
      const std::string command = quoted(SUITSIM_BINARY) + " run " + quoted(tinyScene()) + " --out " +
                                  quoted((*base_ / fmt).string()) + " --log-format " + fmt +
                                  " --threads 2 --quiet >/dev/null 2>&1";
      const int status = std::system(command.c_str());
      ok_ = ok_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*base_);
    delete base_;
    base_ = nullptr;
  }
  void SetUp() override {
    CliTest::SetUp();
    ASSERT_TRUE(ok_) << "suitsim run on " << tinyScene() << " failed";
  }
  static fs::path csvStreams() { return *base_ / "csv"; }
  static fs::path hdf5Run() { return *base_ / "hdf5"; }

  nlohmann::json identify(const std::vector<std::string>& source, const std::string& name) {
    const fs::path out = dir_ / name;
    std::vector<std::string> args = {"identify", "--scene", tinyScene(), "--out", out.string(), "--quiet"};
    args.insert(args.end(), source.begin(), source.end());
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return {};
    return nlohmann::json::parse(readFile(out / "identification.json"));
  }

  /// Writes one CSV log of every trial, one after the other in one session
  /// file with a time column in ms and the trials as time ranges (or, with
  /// `per_trial`, one file per trial with the streams' own times, s); the
  /// channels renamed, in other units, scaled, signs flipped and zeros
  /// moved, shoulder and elbow read from two motors through a differential
  /// (theta_m = G M q, M = [1 1; 1 -1], G = 50), and the map that reads it.
  /// `edit(trial, row, column name, value text)` may change a cell.
  fs::path writeSessionLog(const std::string& checks = "",
                           const std::function<void(const std::string&, int, const std::string&, std::string&)>& edit = {},
                           const std::string& extra_map = "", bool per_trial = false) {
    const double G = 50.0;
    std::ostringstream csv;
    csv << "# a robot's own logger\n";
    csv << (per_trial ? "t_s" : "t_ms") << ";q_yaw_deg;i_yaw_mA;enc_m1;enc_m2;i_m1;i_m2;gx;gy;gz;ax;ay;az;fx;fy;fz;mx;my;mz;dq_yaw\n";
    std::ostringstream trials;
    double offset_ms = 0.0;
    for (const char* trial : kTrials) {
      const Csv s = readCsv(csvStreams() / trial / "sensors.csv");
      const double first_ms = offset_ms;
      for (std::size_t r = 0; r < s.rows.size(); ++r) {
        const double q_sh = s.col(r, "shoulder.encoder"), q_el = s.col(r, "elbow.encoder");
        const double u_sh = s.col(r, "shoulder.current"), u_el = s.col(r, "elbow.current");
        // (L2) theta_m = G M q in motor revolutions, zero at 1000 counts of 1e-3 rev.
        const double m1 = G * (q_sh + q_el) / (2 * kPi) * 1000.0 + 1000.0;
        const double m2 = G * (q_sh - q_el) / (2 * kPi) * 1000.0 + 1000.0;
        // (L3) u_joint = M^T u_m  ->  u_m = M^-T u_joint, M^-T = [1 1; 1 -1] / 2.
        const double i1 = 0.5 * (u_sh + u_el), i2 = 0.5 * (u_sh - u_el);
        std::vector<std::pair<std::string, std::string>> cells = {
            {"t_ms", per_trial ? num(s.col(r, "time")) : num(offset_ms + 1000.0 * s.col(r, "time") - 1000.0 * s.col(0, "time"))},
            {"q_yaw_deg", num(-s.col(r, "yaw.encoder") * 180.0 / kPi + 10.0)},  // sign -1, zero at 10 deg
            {"i_yaw_mA", num(1000.0 * s.col(r, "yaw.current"))},
            {"enc_m1", num(m1)}, {"enc_m2", num(m2)}, {"i_m1", num(1000.0 * i1)}, {"i_m2", num(1000.0 * i2)},
            {"gx", num(s.col(r, "imu.gyro.x") * 180.0 / kPi)}, {"gy", num(s.col(r, "imu.gyro.y") * 180.0 / kPi)},
            {"gz", num(s.col(r, "imu.gyro.z") * 180.0 / kPi)}, {"ax", num(s.col(r, "imu.accel.x") / 9.80665)},
            {"ay", num(s.col(r, "imu.accel.y") / 9.80665)}, {"az", num(s.col(r, "imu.accel.z") / 9.80665)},
            {"fx", num(s.col(r, "fsensor.force.x"))}, {"fy", num(s.col(r, "fsensor.force.y"))},
            {"fz", num(s.col(r, "fsensor.force.z"))}, {"mx", num(s.col(r, "fsensor.torque.x"))},
            {"my", num(s.col(r, "fsensor.torque.y"))}, {"mz", num(s.col(r, "fsensor.torque.z"))},
            {"dq_yaw", "0"}};  // a logged speed: only checked
        for (std::size_t c = 0; c < cells.size(); ++c) {
          if (edit) edit(trial, static_cast<int>(r), cells[c].first, cells[c].second);
          csv << (c ? ";" : "") << cells[c].second;
        }
        csv << "\n";
      }
      const double last_ms = offset_ms + 1000.0 * (s.col(s.rows.size() - 1, "time") - s.col(0, "time"));
      if (per_trial) {
        std::ofstream(dir_ / (std::string(trial) + ".csv")) << csv.str();
        csv.str("");
        csv << "t_s;q_yaw_deg;i_yaw_mA;enc_m1;enc_m2;i_m1;i_m2;gx;gy;gz;ax;ay;az;fx;fy;fz;mx;my;mz;dq_yaw\n";
        trials << "  <trial name=\"" << trial << "\" file=\"" << trial << ".csv\"/>\n";
      } else {
        trials << "  <trial name=\"" << trial << "\" from=\"" << num(first_ms * 1e-3) << "\" to=\""
               << num(last_ms * 1e-3 + 1e-4) << "\"/>\n";
      }
      offset_ms = last_ms + 5.0;  // the next trial follows one sample later
    }
    if (!per_trial) std::ofstream(dir_ / "session.csv") << csv.str();
    const fs::path map = dir_ / "map.xml";
    std::ofstream(map) << "<?xml version=\"1.0\"?>\n<log_map>\n"
                       << (per_trial ? "  <format type=\"csv\" delimiter=\";\"/>\n  <time column=\"t_s\" unit=\"s\" rate=\"200\"/>\n"
                                     : "  <format type=\"csv\" file=\"session.csv\" delimiter=\";\"/>\n"
                                       "  <time column=\"t_ms\" unit=\"ms\" rate=\"200\"/>\n")
                       << "  <joint name=\"yaw\">\n"
                          "    <angle column=\"q_yaw_deg\" unit=\"deg\" zero=\"10\" sign=\"-1\"/>\n"
                          "    <current column=\"i_yaw_mA\" unit=\"mA\"/>\n"
                          "    <velocity column=\"dq_yaw\" unit=\"deg/s\"/>\n"
                          "  </joint>\n"
                          "  <motor name=\"m1\">\n"
                          "    <angle column=\"enc_m1\" unit=\"rev\" scale=\"1e-3\" zero=\"1000\"/>\n"
                          "    <current column=\"i_m1\" unit=\"mA\"/>\n"
                          "  </motor>\n"
                          "  <motor name=\"m2\">\n"
                          "    <angle column=\"enc_m2\" unit=\"rev\" scale=\"1e-3\" zero=\"1000\"/>\n"
                          "    <current column=\"i_m2\" unit=\"mA\"/>\n"
                          "  </motor>\n"
                          "  <coupling joints=\"shoulder elbow\" motors=\"m1 m2\" gear=\"50\" linkage=\"1 1; 1 -1\" motor_terms=\"none\"/>\n"
                          "  <imu>\n"
                          "    <gyro columns=\"gx gy gz\" unit=\"deg/s\"/>\n"
                          "    <accel columns=\"ax ay az\" unit=\"g\"/>\n"
                          "  </imu>\n"
                          "  <force_sensor name=\"fsensor\">\n"
                          "    <force columns=\"fx fy fz\" unit=\"N\"/>\n"
                          "    <moment columns=\"mx my mz\" unit=\"N*m\"/>\n"
                          "  </force_sensor>\n"
                       << checks << extra_map << trials.str() << "</log_map>\n";
    return map;
  }

  /// identify --log exits 2 with one line holding every fragment, writing nothing.
  void expectRefused(const fs::path& map, const std::vector<std::string>& fragments) {
    const fs::path out = dir_ / "out";
    const Result r = run({"identify", "--scene", tinyScene(), "--log", map.string(), "--out", out.string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    for (const std::string& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << "lacks '" << f << "': " << r.err;
    int lines = 0;
    for (char c : r.err) lines += c == '\n';
    EXPECT_EQ(lines, 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }

  /// The file line of the `row`-th data row of trial `trial` in session.csv.
  static int sessionLine(int trial_index, int row) { return 3 + trial_index * 201 + row; }

  static fs::path* base_;
  static bool ok_;
};

fs::path* LogCommand::base_ = nullptr;
bool LogCommand::ok_ = true;

/// Every estimate of identification.json (the "log" block aside).
std::vector<double> estimates(const nlohmann::json& j) {
  std::vector<double> out;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
    if (v.is_number()) out.push_back(v.get<double>());
    if (v.is_structured()) {
      for (const auto& e : v) walk(e);
    }
  };
  for (const char* key : {"total_mass_kg", "base_parameters", "joint_parameters", "validation"}) walk(j.at(key));
  return out;
}

// ---- round trips ----------------------------------------------------------------

TEST_F(LogCommand, HdfLogOfARunIdentifiesBitForBitAsItsCsvStreams) {
  // The run wrote no CSV streams, only the log and its map; the truth kept apart.
  for (const char* trial : kTrials) {
    EXPECT_FALSE(fs::exists(hdf5Run() / trial / "sensors.csv")) << trial;
    EXPECT_TRUE(fs::exists(hdf5Run() / trial / "truth.csv")) << trial;
  }
  ASSERT_TRUE(fs::exists(hdf5Run() / "log.h5"));
  EXPECT_EQ(readFile(hdf5Run() / "log_map.xml").find("truth"), std::string::npos);
  // The streams' header lines travel with each trial (what the remedies
  // read: the logger's filters, the encoders on the motors), but those the
  // reader sets itself.
  const std::string map_text = readFile(hdf5Run() / "log_map.xml");
  EXPECT_NE(map_text.find("<header name=\"anti_alias\" value=\"imu, force and current channels are means"),
            std::string::npos) << map_text;
  EXPECT_EQ(map_text.find("<header name=\"trial\""), std::string::npos);
  nlohmann::json a = identify({"--streams", csvStreams().string()}, "from_csv");
  nlohmann::json b = identify({"--log", (hdf5Run() / "log_map.xml").string()}, "from_hdf5");
  ASSERT_TRUE(b.contains("log"));
  EXPECT_EQ(b.at("log").at("format"), "hdf5");
  b.erase("log");
  // The same doubles in, the same arithmetic: the same bits out.
  EXPECT_EQ(a.dump(), b.dump());
}

TEST_F(LogCommand, CsvLogsWithOtherNamesUnitsAndACouplingIdentifyAsTheStreams) {
  // One file per trial, the streams' own times: every other channel renamed,
  // in other units, scaled, signed, offset, two joints through a differential.
  const fs::path map = writeSessionLog("", {}, "", true);
  const nlohmann::json a = identify({"--streams", csvStreams().string()}, "from_streams");
  const nlohmann::json b = identify({"--log", map.string()}, "from_logs");
  ASSERT_FALSE(b.is_null());
  const std::vector<double> ea = estimates(a), eb = estimates(b);
  ASSERT_EQ(ea.size(), eb.size());
  // Units, scales and the coupling are exact up to rounding (a few 1e-16
  // relative per reading); the least squares amplify it by at most their
  // condition number.
  double worst = 0.0;
  for (std::size_t k = 0; k < ea.size(); ++k) {
    worst = std::max(worst, std::abs(ea[k] - eb[k]) / std::max(1e-3, std::abs(ea[k])));
  }
  EXPECT_LT(worst, 1e-6) << "largest relative difference " << worst;
  bool coupling_stated = false;
  for (const auto& step : b.at("log").at("steps")) {
    coupling_stated = coupling_stated || step.get<std::string>().find("(G M)^-1") != std::string::npos;
  }
  EXPECT_TRUE(coupling_stated) << b.at("log").dump();
}

TEST_F(LogCommand, ASessionFileIsCutIntoItsTrialsByTime) {
  const nlohmann::json j = identify({"--log", writeSessionLog().string()}, "from_session");
  ASSERT_FALSE(j.is_null());
  const auto& trials = j.at("log").at("trials");
  ASSERT_EQ(trials.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(trials[k].at("trial"), kTrials[k]);
    EXPECT_EQ(trials[k].at("first_row"), 201 * k);
    EXPECT_EQ(trials[k].at("rows"), 201);
  }
}

TEST_F(LogCommand, EvaluateReadsTheLogAndStatesItsSteps) {
  const fs::path out = dir_ / "eval";
  const Result r = run({"evaluate", tinyScene(), "--log", (hdf5Run() / "log_map.xml").string(), "--out", out.string(),
                        "--quiet", "--no-plots"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "trials"));  // nothing simulated
  const auto id = nlohmann::json::parse(readFile(out / "identification.json"));
  EXPECT_EQ(id.at("log").at("steps").size(), 10u) << id.at("log").dump();
}

// ---- bad cells, columns, times ---------------------------------------------------

TEST_F(LogCommand, BadCellsAreRefusedWithFileLineAndColumn) {
  for (const char* bad : {"abc", "nan", "inf"}) {
    SCOPED_TRACE(bad);
    const fs::path map = writeSessionLog("", [&](const std::string& t, int row, const std::string& c, std::string& v) {
      if (t == std::string("ident_nod") && row == 7 && c == "gy") v = bad;
    });
    expectRefused(map, {"session.csv:" + std::to_string(sessionLine(1, 7)) + ":", "column 'gy'", "not a finite number"});
  }
}

TEST_F(LogCommand, AReadingNoSensorMakesIsRefused) {
  const fs::path map = writeSessionLog("", [](const std::string& t, int row, const std::string& c, std::string& v) {
    if (t == std::string("ident_wave") && row == 12 && c == "fx") v = "1e308";
  });
  expectRefused(map, {"session.csv:" + std::to_string(sessionLine(0, 12)) + ": column 'fx'", "which no sensor reads"});
}

TEST_F(LogCommand, AMissingColumnNamesTheMapLine) {
  fs::path map = writeSessionLog();
  std::string text = readFile(map);
  text.replace(text.find("columns=\"gx gy gz\""), 18, "columns=\"gx gy gq\"");
  std::ofstream(map) << text;
  expectRefused(map, {"session.csv:2: no column 'gq'", "map.xml:20"});
}

TEST_F(LogCommand, TimeGoingBackIsRefused) {
  const fs::path map = writeSessionLog("", [](const std::string& t, int row, const std::string& c, std::string& v) {
    if (t == std::string("ident_wave") && row == 30 && c == "t_ms") v = "3";
  });
  expectRefused(map, {"session.csv:" + std::to_string(sessionLine(0, 30)) + ": column 't_ms'", "time goes back"});
}

// ---- the map ------------------------------------------------------------------------

TEST_F(LogCommand, AMapNamingAnUnknownJointIsRefusedAtItsLine) {
  fs::path map = writeSessionLog();
  std::string text = readFile(map);
  text.replace(text.find("<joint name=\"yaw\">"), 18, "<joint name=\"knee\">");
  std::ofstream(map) << text;
  expectRefused(map, {"map.xml:5:", "<joint> 'knee' is no movable joint of the robot"});
}

TEST_F(LogCommand, AMapErrorNamesTheMapsLine) {
  fs::path map = writeSessionLog();
  std::string text = readFile(map);
  text.replace(text.find("unit=\"mA\""), 9, "unit=\"mV\"");
  std::ofstream(map) << text;
  expectRefused(map, {"map.xml:7: <current> attribute 'unit'", "'mV' is no unit of a current"});
  text = readFile(map);
  text.replace(text.find("unit=\"mV\""), 9, "unit=\"mA\" gain=\"2\"");
  std::ofstream(map) << text;
  expectRefused(map, {"map.xml:7: <current>", "gain"});
  text = readFile(map);
  text.replace(text.find("linkage=\"1 1; 1 -1\""), 19, "linkage=\"1 1; 1 1\"");
  text.replace(text.find(" gain=\"2\""), 9, "");
  std::ofstream(map) << text;
  expectRefused(map, {"map.xml:18: <coupling> attribute 'linkage'", "singular"});
  text = readFile(map);
  text.replace(text.find("linkage=\"1 1; 1 1\""), 18, "linkage=\"1 1; 1 -1\"");
  text.replace(text.find("motor_terms=\"none\""), 18, "motor_terms=\"some\"");
  std::ofstream(map) << text;
  expectRefused(map, {"map.xml:18: <coupling> attribute 'motor_terms'", "must be fit or none"});
  text = readFile(map);
  text.replace(text.find("motor_terms=\"some\""), 18, "motor_terms=\"none\"");
  text.replace(text.find("</log_map>"), 10, "  <preprocess slip_velocity=\"0\"/>\n</log_map>");
  std::ofstream(map) << text;
  expectRefused(map, {"<preprocess> attribute 'slip_velocity'"});
  text = readFile(map);
  const std::string preprocess = "<preprocess slip_velocity=\"0\"/>";
  text.replace(text.find(preprocess), preprocess.size(), "<header name=\"trial\" value=\"x\"/>");
  std::ofstream(map) << text;
  expectRefused(map, {"<header> attribute 'name'", "'trial' is set by the reader, not the map"});
}

TEST_F(LogCommand, ATrialTheSceneLacksOrMislabelsIsRefused) {
  expectRefused(writeSessionLog("", {}, "  <trial name=\"jump\" from=\"100\" to=\"101\"/>\n"),
                {"map.xml:27:", "<trial> 'jump' is no trial of the scene's experiment"});
  const fs::path map = writeSessionLog();
  std::string text = readFile(map);
  text.replace(text.find("<trial name=\"lift_strap\""), 24, "<trial name=\"lift_strap\" suit=\"none\"");
  std::ofstream(map) << text;
  expectRefused(map, {"map.xml:30:", "suit 'none', the scene's is 'strap'"});
}

// ---- samples no joint or sensor can give ----------------------------------------------

TEST_F(LogCommand, ASampleBeyondTheJointsLimitsIsRefusedOrDropped) {
  auto spike = [](const std::string& t, int row, const std::string& c, std::string& v) {
    if (t == std::string("ident_nod") && row == 50 && c == "q_yaw_deg") v = "400";  // -390 deg: far beyond [-2, 2] rad
  };
  expectRefused(writeSessionLog("", spike), {"session.csv:" + std::to_string(sessionLine(1, 50)) + ": column 'q_yaw_deg'",
                                             "joint 'yaw'", "outside its limits [-2, 2] rad"});
  const fs::path map = writeSessionLog("  <checks on_bad_sample=\"drop\"/>\n", spike);
  const nlohmann::json j = identify({"--log", map.string()}, "dropped");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j.at("log").at("trials")[1].at("dropped"), 1);
  EXPECT_EQ(j.at("log").at("trials")[1].at("filled"), 1);
  EXPECT_EQ(j.at("log").at("trials")[1].at("dropped_by_rule").at("joint limits"), 1);
}

TEST_F(LogCommand, AJumpNoJointCanMakeIsRefusedOrDropped) {
  // 30 deg in one 5 ms sample: 105 rad/s, beyond the 100 rad/s bound.
  auto jump = [](const std::string& t, int row, const std::string& c, std::string& v) {
    if (t == std::string("lift_none") && row == 80 && c == "q_yaw_deg") v = num(std::stod(v) + 30.0);
  };
  expectRefused(writeSessionLog("", jump), {"session.csv:" + std::to_string(sessionLine(2, 80)) + ": column 'q_yaw_deg'",
                                            "joint 'yaw' jumps by"});
  const nlohmann::json j = identify({"--log", writeSessionLog("  <checks on_bad_sample=\"drop\"/>\n", jump).string()}, "dropped");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j.at("log").at("trials")[2].at("dropped_by_rule").at("jump"), 1);
  // A step that stays beyond the limits (an encoder that slipped by a
  // turn) is more than max_gap bad samples in a row: refused.
  auto slip = [](const std::string& t, int row, const std::string& c, std::string& v) {
    if (t == std::string("lift_none") && row >= 80 && c == "q_yaw_deg") v = num(std::stod(v) + 400.0);
  };
  expectRefused(writeSessionLog("  <checks on_bad_sample=\"drop\"/>\n", slip), {"bad samples in a row", "max_gap of 3"});
}

TEST_F(LogCommand, ALoggedSpeedNoJointReachesIsRefused) {
  // 10000 deg/s = 175 rad/s, beyond the 100 rad/s bound of a joint without a velocity limit.
  expectRefused(writeSessionLog("", [](const std::string& t, int row, const std::string& c, std::string& v) {
                  if (t == std::string("ident_nod") && row == 60 && c == "dq_yaw") v = "10000";
                }),
                {"session.csv:" + std::to_string(sessionLine(1, 60)) + ": column 'dq_yaw'",
                 "joint 'yaw' logs a speed of 174.5", "beyond the 100 rad/s it can turn"});
}

TEST_F(LogCommand, AReadingOutsideTheSensorsStatedRangeIsRefused) {
  fs::path map = writeSessionLog("", [](const std::string& t, int row, const std::string& c, std::string& v) {
    if (t == std::string("ident_wave") && row == 40 && c == "az") v = "17";
  });
  std::string text = readFile(map);
  text.replace(text.find("unit=\"g\""), 8, "unit=\"g\" range=\"-16 16\"");
  std::ofstream(map) << text;
  expectRefused(map, {"session.csv:" + std::to_string(sessionLine(0, 40)) + ": column 'az' reads 17",
                      "outside the sensor's stated range [-16, 16]"});
}

// ---- HDF5 ---------------------------------------------------------------------------------

TEST_F(LogCommand, HdfBadValuesAndMissingDatasetsNameTheDatasetAndRow) {
  fs::copy(hdf5Run() / "log.h5", dir_ / "log.h5");
  fs::copy(hdf5Run() / "log_map.xml", dir_ / "log_map.xml");
  {
    const hid_t f = H5Fopen((dir_ / "log.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "/ident_nod/elbow.current", H5P_DEFAULT);
    std::vector<double> v(201);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    v[17] = std::nan("");
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(d);
    H5Fclose(f);
  }
  expectRefused(dir_ / "log_map.xml", {"log.h5: dataset '/ident_nod/elbow.current' row 17", "not a finite number"});
  std::string text = readFile(dir_ / "log_map.xml");
  text.replace(text.find("column=\"yaw.current\""), 20, "column=\"yaw.amps\"");
  std::ofstream(dir_ / "log_map.xml") << text;
  expectRefused(dir_ / "log_map.xml", {"log.h5: no dataset '/ident_wave/yaw.amps'", "log_map.xml:8"});
}

}  // namespace
