// A robot on a rig (<robot base="fixed">, docs/method.md "Fixed base"):
// identification from joint rows only, with the joints' torque from
// link-side torque sensors or from the currents with a known gain, on
// JVRC-1 (scenes/jvrc1_rig.xml) and H1 (scenes/h1_rig.xml), each against the
// truth's own parameters: the torque the identified base parameters predict
// on the fitted motion against the truth's (Y φ, the rigid model's inverse
// dynamics, over every joint and sample), the sensors' offset, and the
// motor constants. Then the suit evaluated end to end on the rig against
// the truth's band stiffness, and each experiment a fixed base cannot serve
// refused before any trial runs, naming the <robot> line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/rigid/regressor.h"
#include "suitsim/scene/scene.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;
namespace eval = suitsim::eval;

class FixedBase : public suitsim::testing::CliTest {
 public:
  /// The rig scene `scene` with each (from, to) replaced (each must occur)
  /// and its <experiment> replaced by `experiment`, written into the test's
  /// folder.
  fs::path variant(const std::string& scene, const std::string& name,
                   const std::vector<std::pair<std::string, std::string>>& edits, const std::string& experiment) {
    std::string text = readFile(sourcePath(scene));
    for (const auto& [from, to] : edits) {
      const std::size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    const std::size_t begin = text.find("<experiment>"), end = text.find("</experiment>");
    if (begin != std::string::npos && end != std::string::npos) {
      text.replace(begin, end + 13 - begin, "<experiment>\n" + experiment + "  </experiment>");
    }
    // The URDF by its absolute path: the copy lives in the test's folder.
    const std::size_t urdf = text.find("urdf=\"../models/");
    EXPECT_NE(urdf, std::string::npos);
    if (urdf != std::string::npos) text.replace(urdf, 16, "urdf=\"" + sourcePath("models/"));
    const fs::path path = dir_ / (name + ".xml");
    std::ofstream(path) << text;
    return path;
  }

  struct Recovered {
    // ‖(Y φ − τ_o) − (Y φ_true − τ_o,true)‖ / ‖Y φ_true‖ on the held-out
    // trial bend_none: how far the torque the model predicts at the joints
    // (what the sensor or the drive reads) is from the truth's.
    double torque_error = 0.0;
    double apriori_torque_error = 0.0;  // the same for the a-priori set
    Eigen::MatrixXd error, torque;      // (N x joints) identified minus truth, and the truth's Y φ
    /// torque_error over the named joints only.
    double errorOn(const std::vector<std::string>& joints) const {
      double e = 0.0, t = 0.0;
      for (const std::string& name : joints) {
        const int j = eval::jointIndex(id.model, name);
        EXPECT_GE(j, 0) << name;
        if (j < 0) continue;
        e += error.col(j).squaredNorm();
        t += torque.col(j).squaredNorm();
      }
      return std::sqrt(e / t);
    }
    eval::IdentificationOutcome id;
    suitsim::RobotDescription truth;
  };

  /// Runs the scene's trials and identifies the robot from their streams;
  /// `true_offset`: τ_o of the truth's joint rows (N m, every joint).
  Recovered identify(const fs::path& scene, double true_offset) {
    const fs::path streams = dir_ / (scene.stem().string() + "_streams");
    const auto ran = run({"run", scene.string(), "--out", streams.string(), "--threads", "2", "--quiet"});
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    Recovered r;
    const eval::EvaluationInputs inputs = eval::loadEvaluationInputs(scene.string());
    eval::PipelineOptions options;
    options.identification.threads = 2;
    r.id = eval::identifyFromStreams(inputs, streams, options);
    r.truth = suitsim::io::loadScene(scene.string(), inputs.trials.front().name).robot->truth;
    const eval::RigidModel& model = r.id.model;
    const eval::RigidModel true_model = eval::makeRigidModel(r.truth);
    const Eigen::VectorXd phi_true = r.id.base.fromStandard(eval::standardParameters(true_model));
    const auto held_out = std::find_if(inputs.trials.begin(), inputs.trials.end(),
                                       [](const eval::TrialInfo& t) { return t.name == "bend_none"; });
    EXPECT_NE(held_out, inputs.trials.end());
    const eval::MotionData d = eval::loadMotion(inputs, model, *held_out, streams, options);
    const std::vector<Eigen::MatrixXd> tau =
        eval::inverseDynamics(model, r.id.base, {phi_true, r.id.full.phi, r.id.full.phi_apriori}, d, 2);
    const Eigen::MatrixXd truth = tau[0].array() - true_offset;
    const Eigen::MatrixXd identified = tau[1].rowwise() - r.id.full.xi.offset.transpose();
    const Eigen::MatrixXd apriori = tau[2].rowwise() - r.id.full.xi_apriori.offset.transpose();
    r.torque_error = (identified - truth).norm() / tau[0].norm();
    r.error = identified - truth;
    r.torque = tau[0];
    // The joint that contributes most, for the record.
    Eigen::Index worst = 0;
    (identified - truth).colwise().norm().maxCoeff(&worst);
    std::printf("[measured]   worst joint %s: RMS error %.4g N m, RMS torque %.4g N m, offset %.4g N m\n",
                model.joint_name[static_cast<std::size_t>(worst)].c_str(),
                (identified - truth).col(worst).norm() / std::sqrt(static_cast<double>(d.numSamples())),
                tau[0].col(worst).norm() / std::sqrt(static_cast<double>(d.numSamples())), r.id.full.xi.offset[worst]);
    r.apriori_torque_error = (apriori - truth).norm() / tau[0].norm();
    return r;
  }
};

constexpr const char* kJvrcIdent =
    "    <trial name=\"ident_arms\" motion=\"ident_arms\" purpose=\"identification\"/>\n"
    "    <trial name=\"ident_squat\" motion=\"ident_squat\" purpose=\"identification\"/>\n"
    "    <trial name=\"ident_waist\" motion=\"ident_waist\" purpose=\"identification\"/>\n"
    "    <trial name=\"bend_none\" motion=\"bend\" suit=\"none\"/>\n";
constexpr const char* kH1Ident =
    "    <trial name=\"ident_arms\" motion=\"ident_arms\" purpose=\"identification\"/>\n"
    "    <trial name=\"ident_squat\" motion=\"ident_squat\" purpose=\"identification\"/>\n"
    "    <trial name=\"ident_hip\" motion=\"ident_hip\" purpose=\"identification\"/>\n"
    "    <trial name=\"bend_none\" motion=\"bend\" suit=\"none\"/>\n";

constexpr const char* kBend = "    <trial name=\"bend_normal\" motion=\"bend\" suit=\"normal\"/>\n";

// The torque the identified model predicts on the held-out bend, relative
// to the truth's (Recovered): the a-priori sets are 5-9 % off.
constexpr double kTorqueTolerance = 0.01;

// Reports and checks an identification from torque sensors whose zero
// error is `bias` (N m): the sensors' τ_o is then −bias.
void expectFromTorqueSensors(const char* robot, const FixedBase::Recovered& r, double bias) {
  std::printf("[measured] %s rig, torque sensors: predicted torque %.3g %% off the truth's (a priori %.3g %%), "
              "offsets %.4f .. %.4f N m (bias %g)\n",
              robot, 100 * r.torque_error, 100 * r.apriori_torque_error, r.id.full.xi.offset.minCoeff(),
              r.id.full.xi.offset.maxCoeff(), bias);
  EXPECT_TRUE(r.id.full.torque_sensors);
  EXPECT_LT(r.torque_error, kTorqueTolerance);
  EXPECT_GT(r.apriori_torque_error, 5 * r.torque_error);
}

TEST_F(FixedBase, JvrcRigIdentifiedFromJointTorqueSensors) {
  const fs::path scene = variant("scenes/jvrc1_rig.xml", "jvrc_torque",
                                 {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>",
                                   "<joint_torques noise=\"0.05\" resolution=\"0.01\" bias=\"0.2\"/>"}},
                                 kJvrcIdent);
  expectFromTorqueSensors("JVRC-1", identify(scene, -0.2), 0.2);
}

TEST_F(FixedBase, H1RigIdentifiedFromJointTorqueSensors) {
  expectFromTorqueSensors("H1", identify(variant("scenes/h1_rig.xml", "h1_torque", {}, kH1Ident), 0.0), 0.0);
}

// Currents, the scale fixed by a calibrated gain in each branch hanging
// from the rig (each leg, the torso with the arms): the other k_T come out
// at the truth's (the a-priori set has them 5 % low). Checked on joints the
// motions slide: the joint rows of a current identification keep only
// sliding samples (RestRows::Excluded), and the standing protocols' motions
// barely move some joints of a hanging leg (H1's hip roll: 32 % of its
// torque off, where the torque sensors, whose rows are all used, get it).
void expectMotorConstants(const eval::IdentificationOutcome& id, const suitsim::RobotDescription& truth,
                          const std::vector<std::string>& joints, double tolerance) {
  for (const std::string& name : joints) {
    const int j = eval::jointIndex(id.model, name);
    ASSERT_GE(j, 0) << name;
    const double k_true = truth.joints[truth.findJoint(name)].actuation.motor_constant;
    const double k = id.full.xi.motor_constant[j];
    std::printf("[measured]   %s k_T %.5f, truth %.5f (%+.2f %%), a priori %.5f\n", name.c_str(), k, k_true,
                100 * (k / k_true - 1), id.full.xi_apriori.motor_constant[j]);
    EXPECT_NEAR(k / k_true, 1.0, tolerance) << name;
  }
}

TEST_F(FixedBase, JvrcRigIdentifiedFromCurrentsWithAKnownGain) {
  const fs::path scene = variant(
      "scenes/jvrc1_rig.xml", "jvrc_currents",
      {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>", ""},
       {"<apriori motor_constant_scale=\"0.95\"", "<apriori known_motor_constants=\"WAIST_P R_HIP_P L_HIP_P\" motor_constant_scale=\"0.95\""}},
      kJvrcIdent);
  const Recovered r = identify(scene, 0.0);  // the scene's motors have no torque offset
  const std::vector<std::string> joints{"WAIST_P", "WAIST_Y", "R_SHOULDER_P", "L_SHOULDER_P", "R_KNEE", "L_KNEE"};
  std::printf("[measured] JVRC-1 rig, currents and a known gain: predicted torque %.3g %% off the truth's over all "
              "joints, %.3g %% over the checked ones (a priori %.3g %%)\n",
              100 * r.torque_error, 100 * r.errorOn(joints), 100 * r.apriori_torque_error);
  EXPECT_FALSE(r.id.full.torque_sensors);
  EXPECT_LT(r.errorOn(joints), 2 * kTorqueTolerance);
  expectMotorConstants(r.id, r.truth, joints, 0.04);
}

TEST_F(FixedBase, H1RigIdentifiedFromCurrentsWithAKnownGain) {
  const fs::path scene = variant(
      "scenes/h1_rig.xml", "h1_currents",
      {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>", ""},
       {"<apriori motor_constant_scale=\"0.95\"",
        "<apriori known_motor_constants=\"torso_joint right_hip_pitch_joint left_hip_pitch_joint\" "
        "motor_constant_scale=\"0.95\""}},
      kH1Ident);
  const Recovered r = identify(scene, 0.0);  // the scene's motors have no torque offset
  const std::vector<std::string> joints{"torso_joint", "right_knee_joint", "left_knee_joint",
                                       "right_shoulder_pitch_joint"};
  std::printf("[measured] H1 rig, currents and a known gain: predicted torque %.3g %% off the truth's over all "
              "joints, %.3g %% over the checked ones (a priori %.3g %%)\n",
              100 * r.torque_error, 100 * r.errorOn(joints), 100 * r.apriori_torque_error);
  EXPECT_FALSE(r.id.full.torque_sensors);
  // The knees' torque on the bend is 7-8 % off (each leg is one problem,
  // its hip roll barely slides): the torso's branch is checked here.
  EXPECT_LT(r.errorOn({"torso_joint", "right_shoulder_pitch_joint"}), 2 * kTorqueTolerance);
  // 4 % as on JVRC-1 (measured: -0.9 to +0.2 % at the knees, -3.1 % at the
  // shoulder, whose 0.4 N m/A gain makes 0.05 A of current noise the
  // largest relative torque noise of the four).
  expectMotorConstants(r.id, r.truth, joints, 0.04);
}

// The suit on the rig, end to end: approach A and B from the torque sensors,
// against the truth's type-A stiffness (the bend stretches type A).
TEST_F(FixedBase, JvrcRigSuitEvaluatesAgainstTheTruthsStiffness) {
  const fs::path scene = variant("scenes/jvrc1_rig.xml", "jvrc_suit", {},
                                 std::string(kJvrcIdent) + kBend);
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", scene.string(), "--out", out.string(), "--threads", "2", "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  const json& s = report["suits"]["normal"];
  for (const char* approach : {"approach_a", "approach_b"}) {
    const json& g = s[approach]["groups"]["A"];
    ASSERT_TRUE(g["stiffness_n_per_m"].is_number()) << g;
    const double err = g["relative_error"].get<double>();
    std::printf("[measured] JVRC-1 rig, normal suit, type A, %s: %.2f N/m (%+.2f %%)\n", approach,
                g["stiffness_n_per_m"].get<double>(), 100 * err);
    EXPECT_LT(std::abs(err), 0.05) << approach;
  }
  const json id = json::parse(readFile(out / "identification.json"));
  EXPECT_EQ(id["fixed_base"]["torque_source"], "joint_torque_sensors");
  EXPECT_TRUE(id["validation"]["torque_rmse_nm"]["identified"].is_number());
}

// What a fixed base cannot serve is refused before anything runs: exit 2,
// the scene's <robot> line, and no output folder.
TEST_F(FixedBase, ExperimentsARigCannotServeAreRefusedBeforeAnyTrialRuns) {
  const std::string robot_line = ":22:";  // <robot> in scenes/jvrc1_rig.xml
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> edits;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no_torque", {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>", ""}, {"<currents noise=\"0.05\"/>", ""}},
       "neither joint torque sensors (<joint_torques>) nor motor currents"},
      {"no_scale", {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>", ""}},
       "only up to a common factor"},
      {"one_branch",
       {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>", ""},
        {"<apriori motor_constant_scale=\"0.95\"", "<apriori known_motor_constants=\"WAIST_P\" motor_constant_scale=\"0.95\""}},
       "the branch from joint 'R_HIP_P' has neither a calibrated gain"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path scene = variant("scenes/jvrc1_rig.xml", c.name, c.edits, std::string(kJvrcIdent) + kBend);
    const fs::path out = dir_ / ("out_" + c.name);
    const auto r = run({"evaluate", scene.string(), "--out", out.string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(scene.filename().string() + robot_line), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // A known load held in an identification trial fixes the scale too: the
  // same currents-only scene with the bend (it holds 0.5 kg per hand, on
  // the torso's branch) as an identification trial and the legs' gains
  // known passes the check (the run is cut short by
  // --streams pointing nowhere, after the check).
  const fs::path held = variant("scenes/jvrc1_rig.xml", "held",
                                {{"<joint_torques noise=\"0.05\" resolution=\"0.01\"/>", ""},
                                 {"<apriori motor_constant_scale=\"0.95\"",
                                  "<apriori known_motor_constants=\"R_HIP_P L_HIP_P\" motor_constant_scale=\"0.95\""}},
                                "    <trial name=\"bend_ident\" motion=\"bend\" purpose=\"identification\"/>\n"
                                "    <trial name=\"bend_none\" motion=\"bend\" suit=\"none\"/>\n" +
                                    std::string(kBend));
  const auto r = run({"evaluate", held.string(), "--out", (dir_ / "out_held").string(), "--streams",
                      (dir_ / "none").string(), "--quiet"});
  EXPECT_EQ(r.err.find("common factor"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((dir_ / "none").string()), std::string::npos) << r.err;  // it got as far as the streams
}

// The scene's new elements and attributes, each bad value against its message.
TEST_F(FixedBase, BadJointTorqueSensorsAndKnownGainsNameTheLine) {
  struct Case {
    std::string name, from, to, message;
  };
  const std::string sensor = "<joint_torques noise=\"0.05\" resolution=\"0.01\"/>";
  const std::vector<Case> cases = {
      {"negative_noise", sensor, "<joint_torques noise=\"-1\"/>", "noise"},
      {"negative_resolution", sensor, "<joint_torques resolution=\"-0.1\"/>", "resolution"},
      {"unknown_joint", sensor, "<joint_torques joints=\"NO_SUCH_JOINT\"/>", "NO_SUCH_JOINT"},
      {"twice", sensor, sensor + sensor, "joint_torques"},
      {"unknown_gain", "<apriori motor_constant_scale=\"0.95\"",
       "<apriori known_motor_constants=\"NO_SUCH_JOINT\" motor_constant_scale=\"0.95\"", "NO_SUCH_JOINT"},
      {"empty_gain", "<apriori motor_constant_scale=\"0.95\"",
       "<apriori known_motor_constants=\" \" motor_constant_scale=\"0.95\"", "lists no joint"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path scene = variant("scenes/jvrc1_rig.xml", c.name, {{c.from, c.to}}, std::string(kJvrcIdent) + kBend);
    const auto r = run({"evaluate", scene.string(), "--out", (dir_ / ("out_" + c.name)).string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(scene.filename().string() + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

}  // namespace
