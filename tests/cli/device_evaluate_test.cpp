// `suitsim evaluate` on a scene with a powered device (docs/devices.md):
// the supporting torque of approaches A and B against the straps' true
// moments, the controller's settings identified from the device's logs
// against the scene's, and a device trial without its bare trial refused.
// Bounds are set from this machine's measured figures with a margin, never
// from a paper's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

class DeviceEvaluate : public suitsim::testing::CliTest {};

TEST_F(DeviceEvaluate, Jvrc1ExoskeletonSupportAndSettingsAgainstTheTruth) {
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", sourcePath("scenes/jvrc1_exoskeleton.xml"), "--out", out.string(), "--threads", "2",
                      "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  ASSERT_TRUE(report["devices"].contains("exo")) << report.dump(1);
  const json& d = report["devices"]["exo"];
  // The straps act on both legs' hips and knees; nothing else.
  for (const char* j : {"R_HIP_P", "R_HIP_R", "R_HIP_Y", "R_KNEE", "L_HIP_P", "L_HIP_R", "L_HIP_Y", "L_KNEE"}) {
    EXPECT_NE(std::find(d["joints"].begin(), d["joints"].end(), j), d["joints"].end()) << j;
  }
  EXPECT_EQ(d["joints"].size(), 8u);
  EXPECT_GT(d["true_supporting_torque_rms_nm"].get<double>(), 1.0);
  // Measured: approaches A and B 9.1 % where the joints move; the knees 5-6 %
  // by A. Every row of a leg joint carries the ground's share from the foot
  // sensors (2 N of noise a sample, some 0.4 N m at a hip after the 8 Hz
  // filter), and approach A subtracts two trials, each with its own noise.
  // (While the two trials shared one noise sequence, approach A read 2.6 %
  // and the knees 1.7 %: the noise cancelled, as no pair of real recordings
  // allows.)
  EXPECT_LT(d["supporting_torque"]["approach_a"]["relative_rmse_moving"].get<double>(), 0.12);
  EXPECT_LT(d["supporting_torque"]["approach_b"]["relative_rmse_moving"].get<double>(), 0.2);
  // The hip rolls: approach A reads their supporting torque through their
  // identified motor constants. With the hip rolls sliding only in a small
  // sway those came out with a relative std of 16-19 % and one of them 12 %
  // low, so approach A was 2 % off at one hip and 11 % at the other; the
  // identification trials must determine them (measured: relative std 1.0-1.1 %,
  // approach A 5.8 and 6.6 %, the foot sensors' noise).
  const json id = json::parse(readFile(out / "identification.json"));
  for (const char* hip : {"R_HIP_R", "L_HIP_R"}) {
    SCOPED_TRACE(hip);
    const json& kt = id["joint_parameters"][hip]["motor_constant"];
    ASSERT_TRUE(kt["relative_std"].is_number()) << kt.dump();
    EXPECT_LT(kt["relative_std"].get<double>(), 0.03);
    EXPECT_LT(std::abs(kt["identified"].get<double>() / 0.15 - 1.0), 0.03);  // the scene's motor_constant
    EXPECT_LT(d["supporting_torque_per_joint"][hip]["relative_rmse_moving"]["approach_a"].get<double>(), 0.09);
  }
  for (const char* knee : {"R_KNEE", "L_KNEE"}) {
    const json& k = d["supporting_torque_per_joint"][knee];
    EXPECT_LT(k["relative_rmse_moving"]["approach_a"].get<double>(), 0.08) << knee;
    // In the evaluator's band the knees' cuffs' ringing is gone (0.3 % with
    // noise-free feet); what is left is the foot sensors' noise: measured
    // 5.1 and 5.7 %.
    EXPECT_LT(k["relative_rmse_moving_in_band"]["approach_a"].get<double>(), 0.08) << knee;
  }
  EXPECT_EQ(d["band_hz"].get<double>(), 8.0);
  EXPECT_LE(d["supporting_torque"]["approach_a"]["relative_rmse_moving_in_band"].get<double>(),
            d["supporting_torque"]["approach_a"]["relative_rmse_moving"].get<double>());
  // The controller's settings: the assist share within 2 % on every hinge
  // (measured 1 %), the knees' virtual inertia and Coulomb friction within
  // 12 % (measured 5 and 6 %).
  for (const char* hinge : {"exo.thigh_R", "exo.thigh_L", "exo.shank_R", "exo.shank_L"}) {
    SCOPED_TRACE(hinge);
    const json& h = d["impedance"][hinge];
    ASSERT_TRUE(h["identifiable"].get<bool>());
    EXPECT_LT(std::abs(h["parameters"]["assist"]["relative_error"].get<double>()), 0.02);
    EXPECT_EQ(h["parameters"]["assist"]["truth"].get<double>(), 0.2);
  }
  // Every hinge's virtual inertia, Coulomb friction and gravity share within
  // 5 % (measured 0-1.8 %); the knees' viscosity within 5 % (measured 0.1 and
  // 0.5 %), the hips' within 15 % (measured +5.2 and +8.9 %, relative std
  // 8.7 and 8.4 %: at slow hip speeds b_v q' is a hundredth of a newton
  // metre). The hips' viscosity was 26 % low while the evaluator took the
  // device's attitude from the pelvis (the belt gives on its straps) and
  // formed the controller's rate and acceleration at the log's rate.
  for (const char* hinge : {"exo.thigh_R", "exo.thigh_L", "exo.shank_R", "exo.shank_L"}) {
    SCOPED_TRACE(hinge);
    const json& p = d["impedance"][hinge]["parameters"];
    for (const char* key : {"inertia", "coulomb", "gravity"}) {
      EXPECT_LT(std::abs(p[key]["relative_error"].get<double>()), 0.05) << key;
    }
    const bool knee = std::string(hinge).find("shank") != std::string::npos;
    EXPECT_LT(std::abs(p["viscous"]["relative_error"].get<double>()), knee ? 0.05 : 0.15);
  }
  // The device trials' curves with their truth.
  EXPECT_TRUE(fs::exists(out / "curves" / "squat_exo.csv"));
  // The balance effect is keyed by what is worn.
  EXPECT_TRUE(report["balance"]["suit_effect"]["squat"].contains("exo")) << report["balance"].dump(1);
}

TEST_F(DeviceEvaluate, H1ExoskeletonSupportAndAssist) {
  // The same device on H1 (no waist pitch, hips yaw-roll-pitch).
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", sourcePath("scenes/h1_exoskeleton.xml"), "--out", out.string(), "--threads", "2",
                      "--no-plots", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(readFile(out / "report.json"));
  const json& d = report["devices"]["exo"];
  // Measured: A 7.5 %, B 6.0 % (A 1.6 % while the two trials shared their
  // noise: see the JVRC-1 test); the assist share 2-3.5 % low.
  EXPECT_LT(d["supporting_torque"]["approach_a"]["relative_rmse_moving"].get<double>(), 0.1);
  EXPECT_LT(d["supporting_torque"]["approach_b"]["relative_rmse_moving"].get<double>(), 0.1);
  // Measured: every setting within 3.5 % but the left thigh's viscosity
  // (-5.9 %) and a shank's gravity share (9.6 %, relative std 6.5 %).
  for (const char* hinge : {"exo.thigh_R", "exo.thigh_L", "exo.shank_R", "exo.shank_L"}) {
    const json& p = d["impedance"][hinge]["parameters"];
    for (const char* key : {"inertia", "coulomb", "assist"}) {
      EXPECT_LT(std::abs(p[key]["relative_error"].get<double>()), 0.05) << hinge << " " << key;
    }
    EXPECT_LT(std::abs(p["viscous"]["relative_error"].get<double>()), 0.08) << hinge;
    EXPECT_LT(std::abs(p["gravity"]["relative_error"].get<double>()), 0.12) << hinge;
  }
}

TEST_F(DeviceEvaluate, ADeviceTrialWithoutItsBareTrialExits2) {
  // The squat worn with the device, but no trial runs the squat without it.
  std::string text = readFile(sourcePath("scenes/jvrc1_exoskeleton.xml"));
  text = std::regex_replace(text, std::regex("\\.\\./models/"), sourcePath("models") + "/");
  text = std::regex_replace(text, std::regex("<trial name=\"squat_none\" motion=\"squat\"/>"), "");
  const fs::path scene = dir_ / "no_bare.xml";
  std::ofstream(scene) << text;
  const fs::path out = dir_ / "out";
  const auto r = run({"evaluate", scene.string(), "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trial 'squat_exo' has no trial of motion 'squat' without the device"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(scene.string() + ":"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
