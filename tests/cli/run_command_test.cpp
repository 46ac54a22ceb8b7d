// `suitsim run`, tested through the real binary: bad scenes and bad options
// exit 2 with one clear message and write nothing; a good run writes a
// stream and a summary with the expected shape; the stream does not depend
// on the thread count.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <csignal>
#include <cstdio>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using namespace suitsim::testing::cli;

/// A fresh directory per test; removed afterwards.
/// A fresh directory per test (tests/support/cli_runner.h).
class RunCommand : public suitsim::testing::CliTest {};

int countLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

std::vector<std::string> dirEntries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// ---- bad scenes -------------------------------------------------------------

struct BadScene {
  const char* fixture;
  int line;
  const char* culprit;
};

TEST_F(RunCommand, BadScenesExit2WithFileAndLineAndWriteNothing) {
  const BadScene cases[] = {
      {"malformed_unclosed_tag", 5, "<particle>"},
      {"unknown_attribute", 7, "stifness"},
      {"particle_missing_mass", 5, "mass"},
      {"pos_two_numbers", 5, "pos"},
      {"dt_negative", 4, "dt"},
      {"record_unknown_body", 6, "body"},
      {"output_rate_above_one_over_dt", 4, "output_rate"},
      {"robot_link_model_unknown", 4, "link_model"},
  };
  for (const BadScene& c : cases) {
    SCOPED_TRACE(c.fixture);
    const std::string scene = sourcePath(std::string("scenes/invalid/") + c.fixture + ".xml");
    // An existing, empty output directory must stay empty ...
    const fs::path existing = dir_ / (std::string(c.fixture) + "_existing");
    fs::create_directories(existing);
    Result r = run({"run", scene, "--out", existing.string(), "--threads", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(scene + ":" + std::to_string(c.line) + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.culprit), std::string::npos) << r.err;
    EXPECT_EQ(countLines(r.err), 1) << "one error, one line:\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(dirEntries(existing).empty());
    // ... and a missing one must not be created.
    const fs::path missing = dir_ / (std::string(c.fixture) + "_missing");
    r = run({"run", scene, "--out", missing.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_FALSE(fs::exists(missing));
  }
}

TEST_F(RunCommand, MissingSceneFileExits2) {
  const std::string scene = sourcePath("scenes/invalid/does_not_exist.xml");
  const Result r = run({"run", scene, "--out", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(scene), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(RunCommand, DirectoryAsSceneExits2) {
  const Result r = run({"run", sourcePath("scenes"), "--out", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("directory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// --dt may break a sensor rate that divided the scene's own step: the
// message names the <sensors> line whose rate the step cannot serve.
TEST_F(RunCommand, DtTheSensorsCannotFollowNamesTheSensorsLine) {
  const std::string scene = sourcePath("scenes/jvrc1_stand.xml");
  const std::string text = readFile(scene);
  const std::size_t at = text.find("<sensors ");
  ASSERT_NE(at, std::string::npos);
  const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
  const Result r = run({"run", scene, "--out", (dir_ / "out").string(), "--dt", "0.01"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(scene + ":" + std::to_string(line) + ": <sensors> attribute 'rate' must be 1/(k dt)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("dt = 0.01 s, the step is --dt's) (got '200')"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// ---- bad options --------------------------------------------------------------

TEST_F(RunCommand, BadOptionsExit2AndWriteNothing) {
  const std::string scene = sourcePath("scenes/spring_mass.xml");
  const std::string out = (dir_ / "out").string();
  // Each message names the option and what is wrong with it.
  const std::string dt_needs = "--dt: needs a number > 0 (got '";
  const std::string threads_needs = "--threads: needs a whole number from 1 to 1024 (got '";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", scene, "--out", out, "--dt", "-1"}, dt_needs + "-1')"},
      {{"run", scene, "--out", out, "--dt", "0"}, dt_needs + "0')"},
      {{"run", scene, "--out", out, "--dt", "abc"}, dt_needs + "abc')"},
      {{"run", scene, "--out", out, "--dt", " 1e-4"}, dt_needs + " 1e-4')"},
      {{"run", scene, "--out", out, "--duration", "-2"}, "--duration: needs a number > 0 (got '-2')"},
      {{"run", scene, "--out", out, "--duration", "inf"}, "--duration: needs a number > 0 (got 'inf')"},
      {{"run", scene, "--out", out, "--threads", "0"}, threads_needs + "0')"},
      {{"run", scene, "--out", out, "--threads", "-1"}, threads_needs + "-1')"},
      {{"run", scene, "--out", out, "--threads", "1.5"}, threads_needs + "1.5')"},
      {{"run", scene, "--out", out, "--threads", "2x"}, threads_needs + "2x')"},
      {{"run", scene, "--out", out, "--threads", "100000"}, threads_needs + "100000')"},
      {{"run", scene, "--out", out, "--frobnicate"}, "not expected: --frobnicate"},
      {{"run", scene, "--out", out, "--dt"}, "--dt: 1 required S missing"},  // value missing
      {{"run", scene}, "--out is required"},
      {{"run", scene, "--out"}, "--out: 1 required DIR missing"},
      {{"run", scene, "--out", ""}, "--out: needs a non-empty DIR (got '')"},
      {{"run", "--out", out}, "SCENE is required"},
      {{"run", scene, scene, "--out", out}, "not expected: " + scene},  // two scenes
      {{"walk", scene, "--out", out}, "unknown command 'walk'"},
      {{}, "no command given"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(suitsim::testing::shownArgs(args));
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // Options valid alone that the scene cannot take: refused as the scene is
  // read, at its <simulation> line, naming the option (no usage: the
  // option's syntax was right).
  const std::string text = readFile(scene);
  const std::size_t sim_at = text.find("<simulation ");
  ASSERT_NE(sim_at, std::string::npos);
  const long sim_line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(sim_at), '\n');
  const std::string at = scene + ":" + std::to_string(sim_line) + ": <simulation> ";
  const std::vector<std::pair<std::vector<std::string>, std::string>> scene_cases = {
      {{"run", scene, "--out", out, "--dt", "1e-300"},
       at + "duration / dt = 1e+301 steps; at most 1e+12 are allowed (--dt's)"},
      {{"run", scene, "--out", out, "--duration", "1e-5"},
       at + "the time step is longer than the duration (dt = 0.0001 s, duration = 1e-05 s (--duration's))"},
  };
  for (const auto& [args, message] : scene_cases) {
    SCOPED_TRACE(suitsim::testing::shownArgs(args));
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

// ---- good runs ------------------------------------------------------------------

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string f;
  while (std::getline(in, f, ',')) fields.push_back(f);
  return fields;
}

TEST_F(RunCommand, SpringMassWritesStreamAndSummary) {
  const fs::path out = dir_ / "out";
  const Result r = run({"run", sourcePath("scenes/spring_mass.xml"), "--out", out.string(), "--duration", "0.5",
                        "--dt", "1e-4", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Exactly the two results; no temporary file left behind.
  auto entries = dirEntries(out);
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"stream.csv", "summary.json"}));

  std::ifstream stream(out / "stream.csv");
  std::string line;
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  while (std::getline(stream, line)) {
    if (!line.empty() && line[0] == '#') continue;
    if (header.empty()) {
      header = splitCsv(line);
      continue;
    }
    std::vector<double> row;
    for (const std::string& f : splitCsv(line)) row.push_back(std::stod(f));
    rows.push_back(row);
  }
  ASSERT_FALSE(header.empty());
  EXPECT_EQ(header[0], "time[s]");
  for (const std::string& column : header) {
    const auto open = column.find('[');
    EXPECT_TRUE(open != std::string::npos && open > 0 && column.back() == ']' && column.size() > open + 2)
        << "column without a unit: " << column;
  }
  // bob.position (3) + coil.tension (1) + energy (3), after time.
  EXPECT_EQ(header.size(), 1u + 3u + 1u + 3u);
  EXPECT_NE(std::find(header.begin(), header.end(), "coil.tension[N]"), header.end());
  // 200 Hz over 0.5 s, plus the row at t = 0.
  ASSERT_EQ(rows.size(), 101u);
  for (const auto& row : rows) ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(rows.front()[0], 0.0);
  EXPECT_NEAR(rows[1][0], 0.005, 1e-12);
  EXPECT_NEAR(rows.back()[0], 0.5, 1e-9);
  EXPECT_NEAR(rows.front()[1], 0.35, 1e-12);  // bob starts 5 cm out

  const auto summary = nlohmann::json::parse(readFile(out / "summary.json"));
  for (const char* key : {"steps", "sim_time_s", "wall_time_s", "realtime_factor", "energy_start_j", "energy_end_j"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_EQ(summary.at("steps").get<long>(), 5000);
  EXPECT_NEAR(summary.at("sim_time_s").get<double>(), 0.5, 1e-9);
  EXPECT_GE(summary.at("wall_time_s").get<double>(), 0.0);  // its value is the machine's business
  // 1/2 k x^2 = 1/2 * 200 N/m * (0.05 m)^2; Verlet keeps it to well under 0.1 %.
  EXPECT_NEAR(summary.at("energy_start_j").get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(summary.at("energy_end_j").get<double>(), 0.25, 2.5e-4);
  EXPECT_EQ(summary.at("spring_arithmetic"), "separate");
  EXPECT_NE(readFile(out / "stream.csv").find("\n# spring_arithmetic: separate\n"), std::string::npos);
}

// Fused and separate runs differ in their last bits: the stream and the
// summary say which the run used.
TEST_F(RunCommand, StreamAndSummaryNameTheSpringArithmetic) {
  std::string text = readFile(sourcePath("scenes/cloth.xml"));
  const std::size_t at = text.find("<simulation");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + std::string("<simulation").size(), " arithmetic=\"fused\"");
  const fs::path scene = dir_ / "cloth_fused.xml";
  std::ofstream(scene) << text;
  const fs::path out = dir_ / "fused";
  const Result r = run({"run", scene.string(), "--out", out.string(), "--duration", "0.05", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(readFile(out / "summary.json")).at("spring_arithmetic"), "fused");
  EXPECT_NE(readFile(out / "stream.csv").find("\n# spring_arithmetic: fused\n"), std::string::npos);
}

TEST_F(RunCommand, ClothStreamIsIdenticalForAnyThreadCount) {
  const std::string scene = sourcePath("scenes/cloth.xml");
  const fs::path one = dir_ / "one";
  const fs::path two = dir_ / "two";
  const Result r1 = run({"run", scene, "--out", one.string(), "--duration", "0.2", "--threads", "1", "--quiet"});
  const Result r2 = run({"run", scene, "--out", two.string(), "--duration", "0.2", "--threads", "2", "--quiet"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const std::string a = readFile(one / "stream.csv");
  const std::string b = readFile(two / "stream.csv");
  // 100 Hz over 0.2 s plus t = 0, after the comment lines and the header.
  EXPECT_GT(countLines(a), 21);
  EXPECT_TRUE(a == b) << "stream.csv differs between --threads 1 and --threads 2";
  const auto s1 = nlohmann::json::parse(readFile(one / "summary.json"));
  const auto s2 = nlohmann::json::parse(readFile(two / "summary.json"));
  EXPECT_EQ(s1.at("threads").get<int>(), 1);
  EXPECT_EQ(s2.at("threads").get<int>(), 2);
  EXPECT_EQ(s1.at("energy_end_j"), s2.at("energy_end_j"));
}

// A scene name that is not UTF-8 once made the summary writer throw and the
// process abort, leaving partial files behind.
TEST_F(RunCommand, NonUtf8SceneNameStillWritesSummary) {
  const fs::path scene = dir_ / "latin1.xml";
  std::ofstream(scene) << "<scene name=\"caf\xe9\">\n"
                          "  <simulation integrator=\"rk4\" dt=\"1e-3\" duration=\"0.01\"/>\n"
                          "  <particle name=\"a\" pos=\"0 0 0\" mass=\"1\"/>\n"
                          "</scene>\n";
  const fs::path out = dir_ / "out";
  const Result r = run({"run", scene.string(), "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "summary.json"));
  EXPECT_TRUE(fs::exists(out / "stream.csv"));
}

}  // namespace

// A robot with sensors: the same seed gives the same sensors.csv to the
// byte; sampling the sensors leaves the simulation (stream.csv) untouched.
TEST_F(RunCommand, SensorStreamIsReproducibleAndDoesNotDisturbTheRun) {
  const std::string scene = sourcePath("scenes/jvrc1_stand.xml");
  const fs::path a = dir_ / "a";
  const fs::path b = dir_ / "b";
  const Result ra = run({"run", scene, "--out", a.string(), "--duration", "0.1", "--threads", "1", "--quiet"});
  const Result rb = run({"run", scene, "--out", b.string(), "--duration", "0.1", "--threads", "1", "--quiet"});
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  const std::string sensors = readFile(a / "sensors.csv");
  EXPECT_TRUE(sensors == readFile(b / "sensors.csv")) << "same seed, different sensors.csv";
  EXPECT_NE(sensors.find("imu.accel.z[m/s^2]"), std::string::npos);
  EXPECT_NE(sensors.find("rfsensor.force.z[N]"), std::string::npos);
  EXPECT_NE(sensors.find("R_KNEE.encoder[rad]"), std::string::npos);
  // The truth goes to its own file, named so, at the sensor rate.
  const std::string truth = readFile(a / "truth.csv");
  EXPECT_NE(truth.find("must not read"), std::string::npos);
  EXPECT_NE(truth.find("WAIST_P.motor_torque[N*m]"), std::string::npos);
  EXPECT_NE(truth.find("WAIST_P.friction_torque[N*m]"), std::string::npos);
  auto dataRows = [](const std::string& text) {
    std::istringstream in(text);
    int rows = -1;  // the header row is not data
    for (std::string line; std::getline(in, line);) rows += !line.empty() && line[0] != '#';
    return rows;
  };
  EXPECT_GT(dataRows(truth), 10);
  EXPECT_EQ(dataRows(truth), dataRows(sensors));
  // The same scene without its <sensors> block runs the same trajectory.
  std::string text = readFile(scene);
  const auto begin = text.find("<sensors");
  const auto end = text.find("</sensors>");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  text.erase(begin, end + std::string("</sensors>").size() - begin);
  // The copy lives in the scratch directory: point it at the URDF by an
  // absolute path.
  const std::string relative = "urdf=\"../models/";
  const auto at = text.find(relative);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, relative.size(), "urdf=\"" + sourcePath("models/"));
  const fs::path copy = dir_ / "nosensors.xml";
  {
    std::ofstream out(copy);
    out << text;
  }
  const fs::path c = dir_ / "c";
  const Result rc = run({"run", copy.string(), "--out", c.string(), "--duration", "0.1", "--threads", "1", "--quiet"});
  ASSERT_EQ(rc.exit_code, 0) << rc.err;
  EXPECT_FALSE(fs::exists(c / "sensors.csv"));
  EXPECT_FALSE(fs::exists(c / "truth.csv"));
  // The streams differ only in the scene name on their first line.
  auto body = [](const std::string& s) { return s.substr(s.find('\n')); };
  EXPECT_TRUE(body(readFile(a / "stream.csv")) == body(readFile(c / "stream.csv")));
}

namespace {

// A non-finite result, whatever its cause, is a divergence: exit 1, nothing
// left behind (not even the output folder the run made).
TEST_F(RunCommand, OverflowingInitialStateStopsAsDivergence) {
  const fs::path scene = dir_ / "overflow.xml";
  std::ofstream(scene) << R"(<?xml version="1.0"?>
<scene name="overflow">
  <simulation integrator="velocity_verlet" dt="1e-3" duration="0.1"/>
  <particle name="a" mass="1" pos="0 0 1" vel="1e200 0 0"/>
</scene>
)";
  const fs::path out = dir_ / "out";
  const Result r = run({"run", scene.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("not finite"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// Toda and Sankai's spring-held links at a step their springs cannot
// follow (link_frequency 3e4 rad/s needs dt below about 6e-5 s): refused
// before anything runs, at the <robot> line, naming the body and the step
// it needs; at a step they can follow, the same scene runs, with a warning
// for its servo, whose period is short against the links' springs.
TEST_F(RunCommand, SpringLinksPastTheirStepAreRefusedNamingTheBody) {
  const fs::path scene = dir_ / "springs.xml";
  auto write = [&](const char* dt) {
    std::ofstream(scene) << "<?xml version=\"1.0\"?>\n<scene name=\"springs\">\n"
                         << "  <simulation integrator=\"velocity_verlet\" dt=\"" << dt << "\" duration=\"0.02\"/>\n"
                         << R"(  <robot name="arm" base="fixed" link_frequency="3e4" link_model="springs">
    <link name="base"/>
    <link name="upper" mass="1.2" com="0 0 -0.15" inertia="0.01 0.011 0.002 0 0 0"/>
    <joint name="shoulder" type="revolute" parent="base" child="upper" axis="0 1 0" lower="-2" upper="2"/>
    <servo joints="shoulder" kp="10" kd="0.1" rate="10000"/>
  </robot>
</scene>
)";
  };
  write("1e-4");
  const fs::path out = dir_ / "out";
  Result r = run({"run", scene.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(scene.string() + ":4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'link_model'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("body 'upper'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("take dt below"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  write("2e-5");
  r = run({"run", scene.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The 10 kHz servo holds its torque 1e-4 s, about half a period of the
  // links' 3e4 rad/s: the servo check's rigid inertia may not hold.
  EXPECT_NE(r.err.find("warning: the servo of joint 'shoulder'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not long against the link springs of body 'upper'"), std::string::npos) << r.err;
}

// Ctrl-C: the run stops, removes every temporary file and the folder it
// made, and exits 130 (128 + SIGINT).
TEST_F(RunCommand, InterruptRemovesPartialFilesAndExits130) {
  const fs::path out = dir_ / "out";
  const std::string scene = sourcePath("scenes/jvrc1_protocol.xml");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::FILE* devnull = std::freopen("/dev/null", "w", stdout);
    std::FILE* err = std::freopen((dir_ / "err.txt").c_str(), "w", stderr);
    (void)devnull;
    (void)err;
    execl(SUITSIM_BINARY, SUITSIM_BINARY, "run", scene.c_str(), "--out", out.c_str(), "--quiet",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the trials are writing, then interrupt.
  for (int k = 0; k < 1200 && !fs::exists(out / "ident_arms"); ++k) usleep(50000);
  usleep(500000);
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string err = readFile(dir_ / "err.txt");
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out)) << "partial results left behind";
}

}  // namespace
