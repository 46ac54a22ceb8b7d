// `suitsim run` on an experiment, through the real binary: every trial gets
// OUT/<trial>/ with its stream, sensors, truth and summary, and
// OUT/experiment.json lists them; --trial runs one; an unknown trial exits 2
// and writes nothing; a failing trial leaves no trial files; and a trial's
// files do not depend on whether it ran alone or beside others, on one
// thread or two (a regression test: the engine's worksharing loops once
// bound to the trial runner's parallel region and mixed trials up).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
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

/// Runs every command under `timeout`: with the old OpenMP bug a parallel
/// experiment deadlocked at a barrier shared by two trials, and a hang must
/// fail the test, not stall ctest until its own limit.
class RunExperiment : public suitsim::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    timeout_seconds_ = 30;
  }
};

const std::vector<std::string> kTrials = {"ident_wave", "ident_nod", "lift_none", "lift_strap"};
const std::vector<std::string> kTrialFiles = {"stream.csv", "sensors.csv", "truth.csv", "summary.json"};

std::vector<std::string> dirEntries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Every regular file under `dir`, relative to it.
std::vector<std::string> filesUnder(const fs::path& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string headerRow(const std::string& csv) {
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') return line;
  }
  return "";
}

/// summary.json without what depends on the machine or the thread count.
nlohmann::json reproducibleSummary(const fs::path& file) {
  nlohmann::json j = nlohmann::json::parse(readFile(file));
  for (const char* key : {"wall_time_s", "realtime_factor", "threads"}) j.erase(key);
  return j;
}

/// The tiny experiment plus a trial whose motion flings the elbow to 1e4 rad
/// in 10 ms: the servo's torque blows the arm apart within a few steps.
fs::path writeDivergingScene(const fs::path& dir) {
  std::string text = readFile(tinyScene());
  const std::string motion =
      "    <motion name=\"fling\">\n"
      "      <keyframe time=\"0.01\" angles=\"elbow:0.4\"/>\n"
      "      <keyframe time=\"0.02\" angles=\"elbow:1e4\"/>\n"
      "    </motion>\n";
  const auto sensors = text.find("    <sensors");
  const auto end = text.find("  </experiment>");
  EXPECT_NE(sensors, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  text.insert(end, "    <trial name=\"fling\" motion=\"fling\"/>\n");
  text.insert(sensors, motion);
  const fs::path path = dir / "diverging.xml";
  std::ofstream(path) << text;
  return path;
}

// ---- a whole experiment ---------------------------------------------------------

TEST_F(RunExperiment, WritesEveryTrialAndTheExperimentSummary) {
  const fs::path out = dir_ / "out";
  const Result r = run({"run", tinyScene(), "--out", out.string(), "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> expected_entries = kTrials;
  expected_entries.push_back("experiment.json");
  std::sort(expected_entries.begin(), expected_entries.end());
  EXPECT_EQ(dirEntries(out), expected_entries);  // no stream.csv at the top, no temporary file
  std::vector<std::string> sorted_files = kTrialFiles;
  std::sort(sorted_files.begin(), sorted_files.end());
  for (const std::string& trial : kTrials) {
    SCOPED_TRACE(trial);
    EXPECT_EQ(dirEntries(out / trial), sorted_files);
    // Each file says which trial it is.
    for (const char* file : {"stream.csv", "sensors.csv", "truth.csv"}) {
      EXPECT_NE(readFile(out / trial / file).find("# trial: " + trial + "\n"), std::string::npos) << file;
    }
    const auto summary = nlohmann::json::parse(readFile(out / trial / "summary.json"));
    EXPECT_EQ(summary.at("trial"), trial);
    EXPECT_EQ(summary.at("scene"), "tiny_experiment");
    EXPECT_NEAR(summary.at("sim_time_s").get<double>(), 1.0, 1e-9);
    EXPECT_EQ(summary.at("steps").get<long>(), 5000);
    EXPECT_EQ(summary.at("threads").get<int>(), 1);  // several trials: one thread each
  }

  const auto experiment = nlohmann::json::parse(readFile(out / "experiment.json"));
  EXPECT_EQ(experiment.at("scene"), "tiny_experiment");
  const auto& trials = experiment.at("trials");
  ASSERT_EQ(trials.size(), kTrials.size());
  const char* motions[] = {"wave", "nod", "lift", "lift"};
  const char* suits[] = {"none", "none", "none", "strap"};
  const char* purposes[] = {"identification", "identification", "evaluation", "evaluation"};
  for (std::size_t k = 0; k < kTrials.size(); ++k) {
    SCOPED_TRACE(kTrials[k]);
    EXPECT_EQ(trials[k].at("name"), kTrials[k]);  // in the scene's order
    EXPECT_EQ(trials[k].at("dir"), kTrials[k]);
    EXPECT_EQ(trials[k].at("motion"), motions[k]);
    EXPECT_EQ(trials[k].at("suit"), suits[k]);
    EXPECT_EQ(trials[k].at("purpose"), purposes[k]);
    EXPECT_NEAR(trials[k].at("sim_time_s").get<double>(), 1.0, 1e-9);
  }

  // The suit's band exists only in the trial that wears it: recorded there,
  // in its truth, and silently left out elsewhere.
  EXPECT_NE(headerRow(readFile(out / "lift_strap" / "stream.csv")).find("front.tension[N]"), std::string::npos);
  EXPECT_EQ(headerRow(readFile(out / "lift_none" / "stream.csv")).find("front"), std::string::npos);
  EXPECT_NE(readFile(out / "lift_strap" / "truth.csv").find("# band front: stiffness 80 N/m"), std::string::npos);
  EXPECT_EQ(readFile(out / "lift_none" / "truth.csv").find("front"), std::string::npos);
  EXPECT_NE(readFile(out / "lift_strap" / "sensors.csv").find("# suit: strap\n"), std::string::npos);
  EXPECT_NE(readFile(out / "ident_nod" / "sensors.csv").find("# purpose: identification\n"), std::string::npos);
}

TEST_F(RunExperiment, TrialOptionRunsOnlyThatTrial) {
  const fs::path out = dir_ / "out";
  const Result r = run({"run", tinyScene(), "--out", out.string(), "--trial", "lift_none", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dirEntries(out), (std::vector<std::string>{"experiment.json", "lift_none"}));
  EXPECT_TRUE(fs::exists(out / "lift_none" / "sensors.csv"));
  const auto experiment = nlohmann::json::parse(readFile(out / "experiment.json"));
  ASSERT_EQ(experiment.at("trials").size(), 1u);
  EXPECT_EQ(experiment.at("trials")[0].at("name"), "lift_none");
}

TEST_F(RunExperiment, UnknownTrialExits2AndWritesNothing) {
  const fs::path missing = dir_ / "missing";
  Result r = run({"run", tinyScene(), "--out", missing.string(), "--trial", "lift_hard"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'lift_hard'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(tinyScene()), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(missing));
  // An existing directory stays empty.
  const fs::path existing = dir_ / "existing";
  fs::create_directories(existing);
  r = run({"run", tinyScene(), "--out", existing.string(), "--trial", "lift_hard"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(dirEntries(existing).empty());
  // A trial name that differs only in case is another name.
  r = run({"run", tinyScene(), "--out", missing.string(), "--trial", "LIFT_NONE"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(missing));
}

// A trial named ".." once wrote its files into OUT's parent directory.
TEST_F(RunExperiment, TrialNamedDotDotIsRefused) {
  const std::string scene = sourcePath("scenes/invalid/trial_name_dotdot.xml");
  const fs::path parent = dir_ / "parent";
  fs::create_directories(parent);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", scene, "--out", (parent / "out").string()},
        std::vector<std::string>{"run", scene, "--out", (parent / "out").string(), "--trial", ".."}}) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(scene + ":15:"), std::string::npos) << r.err;
    EXPECT_TRUE(dirEntries(parent).empty());
  }
}

TEST_F(RunExperiment, TrialOptionOnASceneWithoutExperimentExits2) {
  const fs::path out = dir_ / "out";
  const Result r = run({"run", sourcePath("scenes/spring_mass.xml"), "--out", out.string(), "--trial", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'x'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(RunExperiment, TrialOptionNeedsAName) {
  const fs::path out = dir_ / "out";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", tinyScene(), "--out", out.string(), "--trial"},
        std::vector<std::string>{"run", tinyScene(), "--out", out.string(), "--trial", ""}}) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("usage"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

// ---- reproducibility --------------------------------------------------------------

TEST_F(RunExperiment, TrialFilesAreIdenticalAloneOrTogetherOnAnyThreadCount) {
  const fs::path one = dir_ / "one", two = dir_ / "two";
  const Result r1 = run({"run", tinyScene(), "--out", one.string(), "--threads", "1", "--quiet"});
  const Result r2 = run({"run", tinyScene(), "--out", two.string(), "--threads", "2", "--quiet"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  for (const std::string& trial : kTrials) {
    SCOPED_TRACE(trial);
    const fs::path alone = dir_ / ("alone_" + trial);
    const Result ra = run({"run", tinyScene(), "--out", alone.string(), "--trial", trial, "--threads", "2", "--quiet"});
    ASSERT_EQ(ra.exit_code, 0) << ra.err;
    for (const char* file : {"stream.csv", "sensors.csv", "truth.csv"}) {
      SCOPED_TRACE(file);
      const std::string reference = readFile(one / trial / file);
      EXPECT_GT(reference.size(), 1000u);
      EXPECT_TRUE(reference == readFile(two / trial / file)) << "--threads 1 and --threads 2 differ";
      EXPECT_TRUE(reference == readFile(alone / trial / file)) << "alone (--trial) and together differ";
    }
    const nlohmann::json reference = reproducibleSummary(one / trial / "summary.json");
    EXPECT_EQ(reference, reproducibleSummary(two / trial / "summary.json"));
    EXPECT_EQ(reference, reproducibleSummary(alone / trial / "summary.json"));
  }
  // The trials differ from each other (a runner mixing them up would not show otherwise).
  EXPECT_NE(readFile(one / "lift_none" / "sensors.csv"), readFile(one / "ident_wave" / "sensors.csv"));
  EXPECT_NE(readFile(one / "lift_none" / "truth.csv"), readFile(one / "lift_strap" / "truth.csv"));
}

// ---- a failing trial -----------------------------------------------------------------

TEST_F(RunExperiment, DivergingTrialExits1AndLeavesNoTrialFiles) {
  const fs::path scene = writeDivergingScene(dir_);
  const fs::path out = dir_ / "out";
  Result r = run({"run", scene.string(), "--out", out.string(), "--threads", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("error: trial fling:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("diverged"), std::string::npos) << r.err;
  // The other trials finished, but an experiment is kept whole or not at all.
  EXPECT_EQ(filesUnder(out), std::vector<std::string>{});
  if (fs::exists(out)) {
    EXPECT_EQ(dirEntries(out), std::vector<std::string>{});
  }

  // Alone, the same.
  const fs::path alone = dir_ / "alone";
  r = run({"run", scene.string(), "--out", alone.string(), "--trial", "fling", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("diverged"), std::string::npos) << r.err;
  EXPECT_EQ(filesUnder(alone), std::vector<std::string>{});
  if (fs::exists(alone)) {
    EXPECT_EQ(dirEntries(alone), std::vector<std::string>{});
  }

  // And the scene's good trials still run alone.
  r = run({"run", scene.string(), "--out", alone.string(), "--trial", "lift_none", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
