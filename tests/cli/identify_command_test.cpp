// `suitsim identify --scene SCENE --streams DIR --out OUT`, through the real
// binary: bad command lines, scenes it cannot use and bad streams exit 2
// with one message naming the file (and the line, for a stream) and write
// nothing; streams from `suitsim run` on the tiny experiment identify, and
// identification.json holds the figures (their accuracy is tested in the
// evaluator's own tests, not on this tiny robot).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using namespace suitsim::testing::cli;

int countLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

/// The streams of the tiny experiment, simulated once for the whole suite.
class IdentifyCommand : public suitsim::testing::CliTest {
 protected:
  static void SetUpTestSuite() {
    streams_ = new fs::path(fs::path(::testing::TempDir()) /
                            ("suitsim_identify_streams_" + std::to_string(static_cast<long>(::getpid()))));
    fs::remove_all(*streams_);
    const std::string command = quoted(SUITSIM_BINARY) + " run " + quoted(tinyScene()) + " --out " +
                                quoted(streams_->string()) + " --threads 2 --quiet >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    streams_ok_ = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*streams_);
    delete streams_;
    streams_ = nullptr;
  }
  void SetUp() override {
    CliTest::SetUp();
    ASSERT_TRUE(streams_ok_) << "suitsim run on " << tinyScene() << " failed";
  }

  /// A copy of the streams to break.
  fs::path copyStreams() {
    const fs::path copy = dir_ / "streams";
    fs::copy(*streams_, copy, fs::copy_options::recursive);
    return copy;
  }

  /// Replaces the file's line `line` (1-based) by `f(old line)`.
  static void editLine(const fs::path& file, int line, const std::function<std::string(const std::string&)>& f) {
    std::istringstream in(readFile(file));
    std::string text, l;
    for (int n = 1; std::getline(in, l); ++n) text += (n == line ? f(l) : l) + "\n";
    std::ofstream(file, std::ios::trunc) << text;
  }

  /// Line number (1-based) of the first line of `file` that starts with `prefix`.
  static int lineStartingWith(const fs::path& file, const std::string& prefix) {
    std::istringstream in(readFile(file));
    std::string l;
    for (int n = 1; std::getline(in, l); ++n) {
      if (l.rfind(prefix, 0) == 0) return n;
    }
    ADD_FAILURE() << "no line starting with '" << prefix << "' in " << file;
    return 0;
  }

  /// Runs identify expecting exit 2, one error line holding every fragment,
  /// and no output directory.
  void expectRefused(const fs::path& streams, const std::vector<std::string>& fragments,
                     const std::string& scene = tinyScene()) {
    const fs::path out = dir_ / "out";
    const Result r = run({"identify", "--scene", scene, "--streams", streams.string(), "--out", out.string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    for (const std::string& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << "lacks '" << f << "': " << r.err;
    EXPECT_EQ(countLines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(out / "identification.json"));
    EXPECT_FALSE(fs::exists(out));
  }

  static fs::path* streams_;
  static bool streams_ok_;
};

fs::path* IdentifyCommand::streams_ = nullptr;
bool IdentifyCommand::streams_ok_ = false;

// ---- a good run -----------------------------------------------------------------

TEST_F(IdentifyCommand, WritesIdentificationJson) {
  const fs::path out = dir_ / "out";
  const Result r = run({"identify", "--scene", tinyScene(), "--streams", streams_->string(), "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("identification.json"), std::string::npos) << r.out;
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(out)) entries.push_back(e.path().filename().string());
  EXPECT_EQ(entries, std::vector<std::string>{"identification.json"});  // no temporary file left
  const auto j = nlohmann::json::parse(readFile(out / "identification.json"));
  auto finite = [&](const nlohmann::json::json_pointer& p) {
    SCOPED_TRACE(p.to_string());
    ASSERT_TRUE(j.contains(p));
    ASSERT_TRUE(j.at(p).is_number());
    EXPECT_TRUE(std::isfinite(j.at(p).get<double>()));
  };
  for (const char* key : {"/total_mass_kg", "/base_link_only/total_mass_kg", "/validation/torque_rmse_nm/identified",
                          "/validation/torque_rmse_nm/apriori", "/validation/base_moment_rmse_nm/identified",
                          "/validation/base_moment_rmse_nm/apriori", "/condition_number"}) {
    finite(nlohmann::json::json_pointer(key));
  }
  // Fitted on the identification trials, validated on the suit-free evaluation trial.
  EXPECT_EQ(j.at("fit_trials"), (nlohmann::json{"ident_wave", "ident_nod"}));
  EXPECT_EQ(j.at("validation").at("trials"), (nlohmann::json{"lift_none"}));
  EXPECT_EQ(j.at("validation").at("in_sample"), false);
  EXPECT_EQ(j.at("scene"), "tiny_experiment");
  EXPECT_TRUE(j.at("joint_parameters").contains("elbow"));
  // The count of estimates pinned down to 0.5 %, in the file and on stdout.
  for (const char* kind : {"base_parameters", "motor_constant", "viscous", "coulomb"}) {
    EXPECT_TRUE(j.at("determined_to_half_percent").at(kind).is_number_integer()) << kind;
  }
  EXPECT_NE(r.out.find("determined to 0.5 % (3 relative std):"), std::string::npos) << r.out;
  // Only a sanity bound on the mass (truth 5.8 kg): the pipeline ran on real data.
  EXPECT_GT(j.at("total_mass_kg").get<double>(), 1.0);
  EXPECT_LT(j.at("total_mass_kg").get<double>(), 20.0);
}

// ---- bad command lines ------------------------------------------------------------

TEST_F(IdentifyCommand, BadCommandLinesExit2WithUsage) {
  const std::string scene = tinyScene();
  const std::string streams = streams_->string();
  const std::string out = (dir_ / "out").string();
  const std::vector<std::vector<std::string>> cases = {
      {"identify"},
      {"identify", "--streams", streams, "--out", out},
      {"identify", "--scene", scene, "--out", out},
      {"identify", "--scene", scene, "--streams", streams},
      {"identify", "--scene", scene, "--streams", streams, "--out"},
      {"identify", "--scene", scene, "--streams", streams, "--out", ""},
      {"identify", "--scene", "", "--streams", streams, "--out", out},
      {"identify", "--scene", scene, "--streams", "", "--out", out},
      {"identify", "--scene", scene, "--streams", streams, "--out", out, "--frobnicate"},
      {"identify", scene, "--streams", streams, "--out", out},  // scene without --scene
  };
  for (const auto& args : cases) {
    SCOPED_TRACE(suitsim::testing::shownArgs(args));
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("usage: suitsim identify"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

// ---- scenes it cannot use -----------------------------------------------------------

TEST_F(IdentifyCommand, SceneWithoutIdentificationTrialsExits2) {
  std::string text = readFile(tinyScene());
  for (std::size_t at; (at = text.find("purpose=\"identification\"")) != std::string::npos;) {
    text.replace(at, std::string("purpose=\"identification\"").size(), "purpose=\"evaluation\"");
  }
  const fs::path scene = dir_ / "no_identification.xml";
  std::ofstream(scene) << text;
  expectRefused(*streams_, {scene.string(), "purpose=\"identification\""}, scene.string());

  // A scene without any experiment has none either.
  const auto begin = text.find("  <experiment>");
  const auto end = text.find("</experiment>");
  ASSERT_NE(begin, std::string::npos);
  text.erase(begin, end + std::string("</experiment>\n").size() - begin);
  // One motion only outside an experiment.
  for (const char* name : {"nod", "lift"}) {
    const auto m = text.find(std::string("    <motion name=\"") + name + "\">");
    const auto m_end = text.find("</motion>", m);
    ASSERT_NE(m, std::string::npos);
    text.erase(m, m_end + std::string("</motion>\n").size() - m);
  }
  const fs::path plain = dir_ / "plain.xml";
  std::ofstream(plain) << text;
  expectRefused(*streams_, {plain.string(), "purpose=\"identification\""}, plain.string());
}

TEST_F(IdentifyCommand, BadSceneExits2WithFileAndLine) {
  const std::string scene = sourcePath("scenes/invalid/trial_unknown_motion.xml");
  expectRefused(*streams_, {scene + ":14:", "lfit"}, scene);
  const std::string missing = sourcePath("tests/cli/data/does_not_exist.xml");
  expectRefused(*streams_, {missing}, missing);
}

TEST_F(IdentifyCommand, SceneWithoutSensorsExits2) {
  std::string text = readFile(tinyScene());
  const auto begin = text.find("    <sensors");
  const auto end = text.find("</sensors>");
  ASSERT_NE(begin, std::string::npos);
  text.erase(begin, end + std::string("</sensors>\n").size() - begin);
  const fs::path scene = dir_ / "no_sensors.xml";
  std::ofstream(scene) << text;
  expectRefused(*streams_, {scene.string(), "<sensors>"}, scene.string());
}

// ---- bad streams --------------------------------------------------------------------

TEST_F(IdentifyCommand, MissingStreamFileExits2NamingIt) {
  const fs::path streams = copyStreams();
  fs::remove(streams / "ident_nod" / "sensors.csv");
  expectRefused(streams, {(streams / "ident_nod" / "sensors.csv").string(), "cannot open"});
  // The validation trial's stream is needed too.
  const fs::path again = dir_ / "streams2";
  fs::copy(*streams_, again, fs::copy_options::recursive);
  fs::remove_all(again / "lift_none");
  expectRefused(again, {(again / "lift_none" / "sensors.csv").string()});
  // No streams directory at all.
  expectRefused(dir_ / "no_such_dir", {(dir_ / "no_such_dir" / "ident_wave" / "sensors.csv").string()});
}

TEST_F(IdentifyCommand, NanInAStreamExits2NamingFileAndLine) {
  const fs::path streams = copyStreams();
  const fs::path file = streams / "ident_wave" / "sensors.csv";
  const int header = lineStartingWith(file, "time[s]");
  const int line = header + 37;
  editLine(file, line, [](const std::string& l) {
    // The third field (an encoder) becomes nan.
    std::vector<std::string> f;
    std::stringstream ss(l);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    f.at(2) = "nan";
    std::string joined;
    for (std::size_t k = 0; k < f.size(); ++k) joined += (k ? "," : "") + f[k];
    return joined;
  });
  expectRefused(streams, {file.string() + ":" + std::to_string(line) + ":", "not a finite number", "nan"});
}

// A finite value no sensor can read (a flipped bit, a logger's overflow) is
// bad input, not a sample: one encoder reading 1e308 had `identify` exit 0
// with every parameter 0. Refused for identify and for evaluate --streams,
// with the file, the line and the column (docs/commands.md).
TEST_F(IdentifyCommand, ReadingNoSensorCanMakeExits2NamingFileLineAndColumn) {
  struct Case {
    int field;           // 3: elbow.encoder (limits -2.5 .. 2.5 rad); 4: imu.gyro.x
    const char* value;
    const char* column;
    const char* rule;
  };
  const Case cases[] = {
      {3, "1e308", "elbow.encoder", "outside joint 'elbow''s limits [-2.5, 2.5] rad"},
      {3, "41", "elbow.encoder", "outside joint 'elbow''s limits [-2.5, 2.5] rad"},
      {4, "-2e6", "imu.gyro.x", "beyond ±1e6"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    const fs::path streams = copyStreams();
    const fs::path file = streams / "ident_wave" / "sensors.csv";
    const int header = lineStartingWith(file, "time[s]");
    ASSERT_NE(readFile(file).find(std::string(",") + c.column + "["), std::string::npos);
    const int line = header + 37;
    editLine(file, line, [&](const std::string& l) {
      std::vector<std::string> f;
      std::stringstream ss(l);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      f.at(static_cast<std::size_t>(c.field)) = c.value;
      std::string joined;
      for (std::size_t k = 0; k < f.size(); ++k) joined += (k ? "," : "") + f[k];
      return joined;
    });
    const std::vector<std::string> fragments = {file.string() + ":" + std::to_string(line) + ":",
                                                std::string("column '") + c.column + "' reads " + c.value, c.rule};
    expectRefused(streams, fragments);
    const fs::path out = dir_ / "evaluate_out";
    const Result r = run({"evaluate", tinyScene(), "--streams", streams.string(), "--out", out.string(), "--no-plots",
                          "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    for (const std::string& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << "lacks '" << f << "': " << r.err;
    EXPECT_FALSE(fs::exists(out)) << "a refused evaluate --streams leaves nothing";
    fs::remove_all(streams);
  }
}

TEST_F(IdentifyCommand, TimeGoingBackExits2NamingFileAndLine) {
  const fs::path streams = copyStreams();
  const fs::path file = streams / "lift_none" / "sensors.csv";
  const int header = lineStartingWith(file, "time[s]");
  // Row 50 (t = 0.25 s) gets the time of row 47 (0.235 s), after row 49 (0.245 s).
  editLine(file, header + 51, [](const std::string& l) { return "0.235" + l.substr(l.find(',')); });
  expectRefused(streams, {file.string() + ":" + std::to_string(header + 51) + ":", "time does not increase"});
}

TEST_F(IdentifyCommand, MissingChannelExits2NamingFileAndChannel) {
  const fs::path streams = copyStreams();
  const fs::path file = streams / "ident_nod" / "sensors.csv";
  const int header = lineStartingWith(file, "time[s]");
  editLine(file, header, [](std::string l) {
    const std::string column = "elbow.current[A]";
    const auto at = l.find(column);
    EXPECT_NE(at, std::string::npos) << l;
    return l.replace(at, column.size(), "elbow.currnt[A]");
  });
  expectRefused(streams, {file.string() + ":" + std::to_string(header) + ":", "missing channel 'elbow.current'"});
}

TEST_F(IdentifyCommand, StreamOfAnotherTrialExits2) {
  const fs::path streams = copyStreams();
  fs::copy_file(streams / "lift_strap" / "sensors.csv", streams / "lift_none" / "sensors.csv",
                fs::copy_options::overwrite_existing);
  expectRefused(streams, {(streams / "lift_none" / "sensors.csv").string() + ":1:", "'lift_strap'", "'lift_none'"});
}

TEST_F(IdentifyCommand, StreamAtAnotherRateExits2) {
  const fs::path streams = copyStreams();
  const fs::path file = streams / "ident_wave" / "sensors.csv";
  const int rate_line = lineStartingWith(file, "# sensor_rate_hz:");
  editLine(file, rate_line, [](const std::string&) { return "# sensor_rate_hz: 400"; });
  expectRefused(streams, {file.string() + ":", "sensor rate 400 Hz", "expected 200 Hz"});
}

}  // namespace
