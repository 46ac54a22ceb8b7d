// The servo stability check at the command line (engine/src/servo_stability.cpp
// through cli/info_command.cpp and experiment/src/trials.cpp): `info` names
// the joint and the gain that cannot be stable, `run` and `evaluate` refuse a
// servo loop that reverses (exit 2, the <servo> line), warn about one that
// lags, and a run that diverges names its likely culprit; coupled joints
// that grow together are a warning and, when the run fails, the culprit.
// The shipped scenes pass both checks in every trial.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "suitsim/robot_readout.h"
#include "suitsim/experiment/trials.h"
#include "suitsim/servo_stability.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace suitsim::testing::cli;

// The 1-based line of the first line of `text` that contains `needle`, 0 if none.
int lineOf(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  return 0;
}

class ServoCheck : public suitsim::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    timeout_seconds_ = 300;
    fs::create_directories(cwd());
  }
  fs::path cwd() const { return dir_ / "cwd"; }
  Result run(const std::vector<std::string>& args) { return CliTest::run(args, cwd()); }
  Json infoJson(const std::string& file) {
    const Result r = run({"info", file, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  }
  static const Json* joint(const Json& check, const std::string& name) {
    for (const Json& j : check["joints"]) {
      if (j["name"] == name) return &j;
    }
    return nullptr;
  }
};

const std::string kKdFixture = "tests/cli/data/servo_kd_too_large.xml";
const std::string kLagFixture = "tests/cli/data/servo_lagging.xml";

// The fixture's wrist: the hand (0.2 kg, izz 1e-4, centre 2 cm off the axis)
// is all it turns, and its axis is orthogonal to the shoulder's with the
// hand's inertia diagonal, so the free shoulder does not lower it.
constexpr double kWristInertia = 1e-4 + 0.2 * 0.02 * 0.02;
constexpr double kPeriod = 1e-3;

TEST_F(ServoCheck, InfoNamesTheJointAndTheGainThatDiverge) {
  const Json j = infoJson(sourcePath(kKdFixture));
  const Json& check = j["servo_stability"];
  ASSERT_TRUE(check.is_object()) << j.dump(2);
  EXPECT_EQ(check["steps_per_period"], 5);  // 1 kHz servo, 0.2 ms step
  EXPECT_NEAR(check["period_s"].get<double>(), kPeriod, 1e-15);
  EXPECT_EQ(check["num_joints"], 2);
  EXPECT_EQ(check["num_diverging"], 1);
  EXPECT_TRUE(check["run_refuses"].get<bool>());
  EXPECT_EQ(check["worst"], "wrist");
  const Json* wrist = joint(check, "wrist");
  ASSERT_NE(wrist, nullptr);
  EXPECT_EQ((*wrist)["status"], "diverges");
  EXPECT_EQ((*wrist)["gain"], "kd");
  EXPECT_NEAR((*wrist)["inertia_kg_m2"].get<double>(), kWristInertia, 1e-9 * kWristInertia);
  EXPECT_NEAR((*wrist)["kd_ratio"].get<double>(), 0.5 * kPeriod / kWristInertia, 1e-6);
  EXPECT_NEAR((*wrist)["kd_bound"].get<double>(), 2.0, 1e-9);  // velocity Verlet, no friction
  const Json* shoulder = joint(check, "shoulder");
  ASSERT_NE(shoulder, nullptr);
  EXPECT_EQ((*shoulder)["status"], "stable");
  EXPECT_TRUE((*shoulder)["gain"].is_null());

  const Result text = run({"info", sourcePath(kKdFixture)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("1 DIVERGE (suitsim run refuses)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("diverges: joint 'wrist'"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("kd T / I_eff = 2.78"), std::string::npos) << text.out;
}

TEST_F(ServoCheck, RunRefusesAtTheServoLine) {
  const std::string scene = sourcePath(kKdFixture);
  const int line = lineOf(readFile(scene), "<servo joints=\"wrist\"");
  ASSERT_GT(line, 0);
  const Result r = run({"run", scene, "--out", "out"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(scene + ":" + std::to_string(line) + ": <servo> attribute 'kd'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("joint 'wrist'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(got 0.5)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(fs::is_empty(cwd()));  // nothing written
}

TEST_F(ServoCheck, EvaluateRefusesBeforeSimulating) {
  // The small experiment with a derivative gain no joint of it can hold.
  std::string text = readFile(sourcePath("tests/cli/data/tiny_experiment.xml"));
  const std::string servo = "<servo kp=\"60\" kd=\"1.5\" rate=\"1000\"/>";
  ASSERT_NE(text.find(servo), std::string::npos);
  text.replace(text.find(servo), servo.size(), "<servo kp=\"60\" kd=\"40\" rate=\"1000\"/>");
  const fs::path scene = dir_ / "tiny_kd.xml";
  std::ofstream(scene) << text;
  const int line = lineOf(text, "<servo kp=");
  const Result r = run({"evaluate", scene.string(), "--out", "out", "--no-plots"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(scene.string() + ":" + std::to_string(line) + ": <servo> attribute 'kd'"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(cwd()));
}

TEST_F(ServoCheck, LaggingLoopIsAWarningAndItsDivergenceNamesTheJoint) {
  const std::string scene = sourcePath(kLagFixture);
  const Json j = infoJson(scene);
  const Json* wrist = joint(j["servo_stability"], "wrist");
  ASSERT_NE(wrist, nullptr);
  EXPECT_EQ((*wrist)["status"], "lags");
  EXPECT_EQ((*wrist)["gain"], "kp");
  // Velocity Verlet: the lag bound is a < 2 b.
  EXPECT_NEAR((*wrist)["kp_bound"].get<double>(), 2.0 * (*wrist)["kd_ratio"].get<double>(), 1e-9);
  EXPECT_FALSE(j["servo_stability"]["run_refuses"].get<bool>());

  const Result r = run({"run", scene, "--out", "out"});
  EXPECT_NE(r.err.find("warning: the servo loop may diverge at joint 'wrist'"), std::string::npos) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("the simulation diverged at t ="), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("likely culprit: the servo of joint 'wrist'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lower kp below"), std::string::npos) << r.err;
}

TEST_F(ServoCheck, DivergenceNamesTheServoedJointNearestItsBound) {
  // Past the check (the gains changed after it), a run of the small
  // experiment with the elbow's kd at three times its bound diverges; the
  // message names the elbow and kd.
  suitsim::io::SceneOverrides overrides;
  overrides.duration = 0.2;
  std::vector<suitsim::experiment::TrialJob> jobs = suitsim::experiment::prepareTrials(
      sourcePath("tests/cli/data/tiny_experiment.xml"), "ident_wave", overrides, dir_ / "out");
  ASSERT_EQ(jobs.size(), 1u);
  suitsim::io::Scene& s = jobs[0].scene;
  const int elbow = suitsim::findHinge(s.model, "elbow");
  ASSERT_GE(elbow, 0);
  const double inertia = suitsim::hingeEffectiveInertia(s.model)[elbow];
  s.robot->gains[elbow].kd = 3.0 * 2.0 * inertia * s.robot->servo_rate;
  EXPECT_FALSE(suitsim::experiment::simulateTrials(jobs, 1));
  const std::string& error = jobs[0].error;
  EXPECT_NE(error.find("the simulation diverged at t ="), std::string::npos) << error;
  EXPECT_NE(error.find("likely culprit: the servo of joint 'elbow'"), std::string::npos) << error;
  EXPECT_NE(error.find("kd T / I_eff"), std::string::npos) << error;
  // What ran away, measured during the run (runaway_watch.h), before the prediction.
  EXPECT_NE(error.find("joint 'elbow' ran away first: its rate went from"), std::string::npos) << error;
  EXPECT_LT(error.find("ran away first"), error.find("likely culprit"));
  suitsim::experiment::commitTrials(jobs, false);
}

TEST_F(ServoCheck, DivergenceWithoutAServoCulpritNamesTheSprings) {
  // A chain of stiff springs at a time step far past their bound: no servo
  // to blame, so the message points at the springs and --dt.
  suitsim::io::SceneOverrides overrides;
  overrides.duration = 0.5;
  overrides.dt = 2e-3;
  std::vector<suitsim::experiment::TrialJob> jobs =
      suitsim::experiment::prepareTrials(sourcePath("scenes/chain_pendulum.xml"), "", overrides, dir_ / "out");
  EXPECT_FALSE(suitsim::experiment::simulateTrials(jobs, 1));
  const std::string& error = jobs[0].error;
  EXPECT_NE(error.find("likely culprit: the <spring> (stiffness 2e+05 N/m"), std::string::npos) << error;
  EXPECT_NE(error.find("chain_pendulum.xml:"), std::string::npos) << error;
  EXPECT_NE(error.find("--dt"), std::string::npos) << error;
  suitsim::experiment::commitTrials(jobs, false);
}

// ---- the step check over every stiff element (step_check.h) -------------------

// A shipped scene with one attribute changed, read from its own folder.
fs::path editedScene(const fs::path& dir, const std::string& name, const std::string& from, const std::string& to) {
  std::string text = readFile(sourcePath("scenes/" + name + ".xml"));
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const std::string root = "<scene name=\"" + name + "\"";
  text.replace(text.find(root), root.size(), root + " relative_to=\"" + sourcePath("scenes") + "\"");
  const fs::path out = dir / (name + "_edited.xml");
  std::ofstream(out) << text;
  return out;
}

// The refusal prepareTrials gives `scene`, or "" when it runs.
std::string refusal(const fs::path& scene, const fs::path& out, std::vector<std::string>* warnings = nullptr) {
  try {
    suitsim::experiment::prepareTrials(scene.string(), "", {}, out, warnings);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Ground damping of 1e9 N s/m: a damper that reverses a contact's velocity
// each step (c dt / m >> 2). It used to run and diverge with the blame on an
// innocent servo; it is refused at the <ground>'s line, naming its damping.
TEST_F(ServoCheck, GroundDampingPastItsBoundIsRefusedAtTheGroundsLine) {
  const std::string shipped = readFile(sourcePath("scenes/jvrc1_stand.xml"));
  const fs::path scene =
      editedScene(dir_, "jvrc1_stand", "damping=\"400\" mu_static", "damping=\"1e9\" mu_static");
  const std::string error = refusal(scene, dir_ / "out");
  const std::string where = scene.string() + ":" + std::to_string(lineOf(shipped, "<ground ")) + ": ";
  EXPECT_EQ(error.rfind(where + "the <ground>'s damping (stiffness 2e+05 N/m, damping 1e+09 N s/m)", 0), 0u) << error;
  EXPECT_NE(error.find("the run would diverge"), std::string::npos) << error;
  EXPECT_EQ(error.find("servo"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// Ground stiffness of 1e13 N/m: refused at the <ground>'s line naming its
// stiffness, not "the stiffest spring or contact".
TEST_F(ServoCheck, StiffGroundIsRefusedAtTheGroundsLineNamingItsStiffness) {
  const std::string shipped = readFile(sourcePath("scenes/jvrc1_stand.xml"));
  const fs::path scene = editedScene(dir_, "jvrc1_stand", "<ground stiffness=\"2e5\"", "<ground stiffness=\"1e13\"");
  const std::string error = refusal(scene, dir_ / "out");
  const std::string where = scene.string() + ":" + std::to_string(lineOf(shipped, "<ground ")) + ": ";
  EXPECT_EQ(error.rfind(where + "the <ground>'s stiffness (stiffness 1e+13 N/m", 0), 0u) << error;
}

// constraint_frequency 1e6 rad/s on the <robot>: the hinges' Baumgarte
// stabilisation (critically damped at w) needs w dt < 0.83; refused at the
// <robot>'s line naming the attribute, where it used to blame a servo.
TEST_F(ServoCheck, HugeConstraintFrequencyIsRefusedAtTheRobotsLine) {
  const std::string shipped = readFile(sourcePath("scenes/jvrc1_stand.xml"));
  const fs::path scene = editedScene(dir_, "jvrc1_stand", "constraint_frequency=\"1000\"", "constraint_frequency=\"1e6\"");
  const std::string error = refusal(scene, dir_ / "out");
  const std::string where = scene.string() + ":" + std::to_string(lineOf(shipped, "<robot ")) + ": ";
  EXPECT_EQ(error.rfind(where + "the <robot>'s constraint_frequency (1e+06 rad/s", 0), 0u) << error;
  EXPECT_NE(error.find("omega dt = 500 at dt = 0.0005 s against its bound 0.828"), std::string::npos) << error;
}

// limit_stiffness 1e12 N m/rad: the joint limits' estimate takes each
// joint's least inertia (an upper bound on the rate), so it is a warning,
// naming the <robot>'s line, the attribute and the joint it is fastest on.
TEST_F(ServoCheck, StiffJointLimitsAreWarnedOfNamingTheJointAndTheLine) {
  const std::string shipped = readFile(sourcePath("scenes/jvrc1_stand.xml"));
  const fs::path scene = editedScene(dir_, "jvrc1_stand", "constraint_frequency=\"1000\"",
                                     "constraint_frequency=\"1000\" limit_stiffness=\"1e12\"");
  std::vector<std::string> warnings;
  EXPECT_EQ(refusal(scene, dir_ / "out", &warnings), "");
  const std::string where = "(" + scene.string() + ":" + std::to_string(lineOf(shipped, "<robot ")) + ")";
  const auto it = std::find_if(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("joint limits (limit_stiffness 1e+12 N m/rad") != std::string::npos;
  });
  ASSERT_NE(it, warnings.end()) << ::testing::PrintToString(warnings);
  EXPECT_EQ(it->rfind("the <robot>'s joint limits (limit_stiffness 1e+12 N m/rad, limit_damping 0 N m s/rad) on joint '", 0), 0u) << *it;
  EXPECT_NE(it->find(where), std::string::npos) << *it;
  // The shipped scene warns of none of these.
  std::vector<std::string> shipped_warnings;
  EXPECT_EQ(refusal(sourcePath("scenes/jvrc1_stand.xml"), dir_ / "out2", &shipped_warnings), "");
  for (const std::string& w : shipped_warnings) {
    EXPECT_EQ(w.find("has omega dt"), std::string::npos) << w;
  }
}

// One spring of 1e13 N/m among five: the run diverges, and the message
// names that <spring> at its own line, not the first one.
TEST_F(ServoCheck, DivergenceNamesTheStiffSpringAtItsLine) {
  std::string text = readFile(sourcePath("scenes/chain_pendulum.xml"));
  const std::string third = "<spring a=\"bead2\" b=\"bead3\" stiffness=\"2e5\"";
  const int line = lineOf(text, third);
  ASSERT_GT(line, 0);
  text.replace(text.find(third), third.size(), "<spring a=\"bead2\" b=\"bead3\" stiffness=\"1e13\"");
  const fs::path scene = dir_ / "stiff_spring.xml";
  std::ofstream(scene) << text;
  suitsim::io::SceneOverrides overrides;
  overrides.duration = 0.05;
  std::vector<std::string> warnings;
  std::vector<suitsim::experiment::TrialJob> jobs =
      suitsim::experiment::prepareTrials(scene.string(), "", overrides, dir_ / "out", &warnings);
  const std::string at = "(" + scene.string() + ":" + std::to_string(line) + ")";
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(warnings);
  EXPECT_EQ(warnings[0].rfind("the <spring> (stiffness 1e+13 N/m, damping 2 N s/m) " + at, 0), 0u) << warnings[0];
  EXPECT_FALSE(suitsim::experiment::simulateTrials(jobs, 1));
  EXPECT_NE(jobs[0].error.find("likely culprit: the <spring> (stiffness 1e+13 N/m, damping 2 N s/m) " + at),
            std::string::npos)
      << jobs[0].error;
  suitsim::experiment::commitTrials(jobs, false);
}

// JVRC-1 standing at 1 ms under drift-kick-drift without its motors'
// rotors: every joint alone passes the servo check, but the elbow-yaw and
// wrist-yaw joints coupled through the light links grow (servo_stability.h's
// JointSpaceCheck). `info` shows it, `run` warns naming those joints, and a
// run without the joints' dry friction (which otherwise catches the growth
// as chatter) diverges with them named as the likely culprit.
TEST_F(ServoCheck, CoupledJointsThatGrowAreNamedBeforeAndWhenTheRunFails) {
  std::string text = readFile(sourcePath("scenes/jvrc1_stand_1ms.xml"));
  const std::size_t before = text.size();
  text = std::regex_replace(text, std::regex(" armature=\"[^\"]*\""), "");
  ASSERT_LT(text.size(), before);
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  const fs::path scene = dir_ / "jvrc1_no_rotors.xml";
  std::ofstream(scene) << text;

  const Json j = infoJson(scene.string());
  EXPECT_EQ(j["servo_stability"]["num_diverging"], 0);
  EXPECT_EQ(j["servo_stability"]["num_lagging"], 0);
  const Json& tree = j["joint_space"];
  ASSERT_TRUE(tree["grows"].get<bool>()) << tree.dump(2);
  EXPECT_GT(tree["growth_per_period"].get<double>(), 1.2);
  std::vector<std::string> named;
  for (const Json& joint : tree["joints"]) named.push_back(joint["name"]);
  for (const char* joint : {"R_WRIST_Y", "L_WRIST_Y", "R_ELBOW_Y", "L_ELBOW_Y"}) {
    EXPECT_NE(std::find(named.begin(), named.end(), joint), named.end()) << joint << "\n" << tree.dump(2);
  }

  suitsim::io::SceneOverrides overrides;
  overrides.duration = 0.3;
  std::vector<std::string> warnings;
  std::vector<suitsim::experiment::TrialJob> jobs =
      suitsim::experiment::prepareTrials(scene.string(), "", overrides, dir_ / "out", &warnings);
  ASSERT_EQ(jobs.size(), 1u);
  const auto warned = std::find_if(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("the run may chatter or diverge: the servo and joint friction on the whole robot") == 0;
  });
  ASSERT_NE(warned, warnings.end());
  EXPECT_NE(warned->find("'R_WRIST_Y'"), std::string::npos) << *warned;
  EXPECT_NE(warned->find("<actuation armature>"), std::string::npos) << *warned;
  suitsim::Model& model = jobs[0].scene.model;
  std::fill(model.hinge_coulomb.begin(), model.hinge_coulomb.end(), 0.0);
  std::fill(model.hinge_static_max.begin(), model.hinge_static_max.end(), 0.0);
  EXPECT_FALSE(suitsim::experiment::simulateTrials(jobs, 1));
  const std::string& error = jobs[0].error;
  EXPECT_NE(error.find("likely culprit: the servo and joint friction on the whole robot"), std::string::npos) << error;
  EXPECT_NE(error.find("'L_ELBOW_Y'"), std::string::npos) << error;
  suitsim::experiment::commitTrials(jobs, false);
}

// Every shipped scene, every trial, as `suitsim run` prepares it: no refusal,
// no servo warning, and every servoed joint within its bounds.
TEST_F(ServoCheck, ShippedScenesPass) {
  int scenes_with_servo = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(sourcePath("scenes"))) {
    if (e.path().extension() != ".xml") continue;
    SCOPED_TRACE(e.path().string());
    std::vector<std::string> warnings;
    std::vector<suitsim::experiment::TrialJob> jobs;
    ASSERT_NO_THROW(jobs = suitsim::experiment::prepareTrials(e.path().string(), "", {}, dir_ / "out", &warnings));
    for (const std::string& w : warnings) EXPECT_EQ(w.find("servo"), std::string::npos) << w;
    bool servo = false;
    for (const suitsim::experiment::TrialJob& job : jobs) {
      if (!job.scene.robot || !job.scene.robot->has_servo) continue;
      servo = true;
      const suitsim::io::RobotSetup& r = *job.scene.robot;
      const suitsim::ServoStability check =
          suitsim::checkServoStability(job.scene.model, r.gains, r.servo_rate, job.scene.simulation.dt, job.scene.simulation.integrator);
      ASSERT_GE(check.worst, 0);
      for (const suitsim::ServoJointCheck& c : check.joints) {
        EXPECT_TRUE(c.loop.stable()) << suitsim::describeServoCheck(job.scene.model, check, c);
      }
      const suitsim::JointSpaceCheck tree =
          suitsim::checkJointSpace(job.scene.model, r.gains, r.servo_rate, job.scene.simulation.dt, job.scene.simulation.integrator);
      EXPECT_FALSE(tree.grows()) << suitsim::describeJointSpaceCheck(job.scene.model, tree);
      const suitsim::ServoJointCheck& worst = check.joints[check.worst];
      std::printf("%s %s: worst %s at %.3g of its bound\n", e.path().filename().c_str(),
                  job.scene.trial.name.c_str(), job.scene.model.hinge_name[worst.hinge].c_str(),
                  worst.bound_fraction);
    }
    scenes_with_servo += servo ? 1 : 0;
  }
  EXPECT_GE(scenes_with_servo, 2);
}

}  // namespace
