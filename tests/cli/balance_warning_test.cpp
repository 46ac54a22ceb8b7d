// Every trial's balance is checked after it runs, from the simulator's state
// (issue 41: an identification trial's squat rocked the robot and nothing
// said so). JVRC-1 shoved at the chest (scenes/jvrc1_push.xml): the job's
// warnings name the trial, when the DCM left the support polygon and by how
// much; standing still (scenes/jvrc1_stand.xml) warns of nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "suitsim/experiment/trials.h"

namespace {

namespace fs = std::filesystem;

std::string sourcePath(const std::string& rel) { return std::string(SUITSIM_SOURCE_DIR) + "/" + rel; }

std::vector<std::string> warningsOf(const std::string& scene, double duration, const std::string& out) {
  suitsim::io::SceneOverrides overrides;
  overrides.duration = duration;
  const fs::path dir = fs::path(::testing::TempDir()) / out;
  fs::remove_all(dir);
  std::vector<suitsim::experiment::TrialJob> jobs =
      suitsim::experiment::prepareTrials(sourcePath(scene), "", overrides, dir);
  EXPECT_TRUE(suitsim::experiment::simulateTrials(jobs, 1));
  const std::vector<std::string> w = jobs[0].warnings;
  suitsim::experiment::commitTrials(jobs, false);
  fs::remove_all(dir);
  return w;
}

TEST(BalanceWarning, ShovedRobotWarnsNamingTrialTimeAndMargin) {
  // Shoved at t = 1 s for 0.2 s; it falls at 3.48 s (measured): by 4 s its
  // DCM is out, its centre of pressure on the soles' edge and a foot up.
  const std::vector<std::string> w = warningsOf("scenes/jvrc1_push.xml", 4.0, "suitsim_balance_warning_push");
  std::string all;
  for (const std::string& s : w) all += s + "\n";
  EXPECT_NE(all.find("the robot fell at t = "), std::string::npos) << all;
  EXPECT_NE(all.find("the centre of pressure was at the soles' edge"), std::string::npos) << all;
  EXPECT_NE(all.find("a foot lifted off the ground at t = "), std::string::npos) << all;
  const std::string m = all;
  EXPECT_NE(m.find("'jvrc1_push'"), std::string::npos) << m;
  EXPECT_NE(m.find("the DCM left the support polygon"), std::string::npos) << m;
  EXPECT_NE(m.find("first at t = "), std::string::npos) << m;
  EXPECT_NE(m.find("mm at t ="), std::string::npos) << m;
}

TEST(BalanceWarning, StandingRobotWarnsOfNothing) {
  const std::vector<std::string> w = warningsOf("scenes/jvrc1_stand.xml", 0.5, "suitsim_balance_warning_stand");
  EXPECT_TRUE(w.empty()) << w.front();
}

}  // namespace
