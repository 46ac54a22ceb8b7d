// A real arm's logs against a published identification (docs/tx40.md):
// `suitsim identify` reads the first 3 s of the Staubli TX40's logs
// (tests/data/staubli_tx40, FIGAROH's data, Apache-2.0) through their
// channel map, motor-side angles through the gears and the coupled wrist,
// and its viscous and Coulomb friction per joint must lie within a stated
// band of the values FIGAROH published from the whole 9 s of the same logs
// (TX40_bp_5.csv, ordinary least squares). The bands: 10 % on viscous and
// 15 % on Coulomb friction, about three of suitsim's own relative standard
// deviations on this cut (2-6 % and 5-11 %); joint 6's Coulomb friction,
// 0.24 N m with a 56 % relative std in FIGAROH's own fit and 41 % in
// suitsim's, is held to within 1 N m only. The coupled motor's friction and
// rotor inertia, converted to FIGAROH's link-side terms, are checked the
// same way. On the whole 9 s suitsim's values are within 3 % of FIGAROH's
// (docs/tx40.md).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

// FIGAROH's published estimates (TX40_bp_5.csv, OLS column), joints 1-6.
constexpr double kViscous[6] = {8.107054, 5.60096, 1.978, 1.10695, 1.857995, 0.643794};
constexpr double kCoulomb[6] = {6.966832, 8.123402, 6.307204, 2.484089, 3.025972, 0.243976};
// The wrist's motor 6 in FIGAROH's link-side terms: Iam6, fvm6, fsm6.
constexpr double kIam6 = 0.007679, kFvm6 = 0.597492, kFsm6 = 2.033376;

class Tx40Logs : public suitsim::testing::CliTest {};

// The arm's file gives the flange (link_6) as a point mass, which no
// particle cluster can be; an identification from the logs never builds
// particles, so it runs on the robot as its file describes it.
TEST_F(Tx40Logs, AnIdentificationFromLogsRunsOnAPointMassLinkTheParticleCompileRefuses) {
  std::string text = readFile(sourcePath("scenes/tx40_identification.xml"));
  const std::size_t a = text.find("<inertial link=\"link_6\"");
  ASSERT_NE(a, std::string::npos);
  text.erase(a, text.find("/>", a) + 2 - a);
  const std::string root = "<scene name=\"tx40_identification\"";
  text.replace(text.find(root), root.size(), root + " relative_to=\"" + sourcePath("scenes") + "\"");
  const std::string scene = (dir_ / "tx40_point_mass.xml").string();
  std::ofstream(scene) << text;
  const std::string out = (dir_ / "tx40_point_mass").string();
  const auto r = run({"identify", "--scene", scene, "--log", sourcePath("tests/data/staubli_tx40/log_map.xml"), "--out",
                      out, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(readFile(out + "/identification.json"));
  for (int i = 0; i < 5; ++i) {
    const double viscous = j["joint_parameters"]["joint_" + std::to_string(i + 1)]["viscous"]["identified"];
    EXPECT_NEAR(viscous, kViscous[i], 0.10 * kViscous[i]) << "joint " << i + 1;
  }
  // Stepping it needs the particles: refused at the scene's <robot>, naming the link.
  const auto sim = run({"run", scene, "--out", (dir_ / "tx40_point_mass_run").string(), "--quiet"});
  EXPECT_EQ(sim.exit_code, 2);
  EXPECT_NE(sim.err.find(scene + ":27: <robot>"), std::string::npos) << sim.err;
  EXPECT_NE(sim.err.find("'link_6'"), std::string::npos) << sim.err;
}

TEST_F(Tx40Logs, FrictionFromTheRealArmsLogsIsWithinBandsOfThePublishedIdentification) {
  const std::string out = (dir_ / "tx40").string();
  const auto r = run({"identify", "--scene", sourcePath("scenes/tx40_identification.xml"), "--log",
                      sourcePath("tests/data/staubli_tx40/log_map.xml"), "--out", out, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(readFile(out + "/identification.json"));
  EXPECT_EQ(j["fixed_base"]["torque_source"], "currents");
  for (int i = 0; i < 6; ++i) {
    const nlohmann::json& p = j["joint_parameters"]["joint_" + std::to_string(i + 1)];
    const double viscous = p["viscous"]["identified"], coulomb = p["coulomb"]["identified"];
    EXPECT_NEAR(viscous, kViscous[i], 0.10 * kViscous[i]) << "joint " << i + 1;
    if (i < 5) {
      EXPECT_NEAR(coulomb, kCoulomb[i], 0.15 * kCoulomb[i]) << "joint " << i + 1;
    } else {
      EXPECT_NEAR(coulomb, kCoulomb[i], 1.0) << "joint 6";
    }
    EXPECT_EQ(p["motor_constant"]["identified"], 1.0) << "k_T is known: the drives log motor torque";
  }
  // The coupled wrist: motor 6 turns with joints 5 and 6 through 32 (q5 + q6).
  ASSERT_EQ(j["coupled_drives"].size(), 1u);
  const nlohmann::json& m6 = j["coupled_drives"][0];
  EXPECT_EQ(m6["motor"], "m6");
  EXPECT_EQ(m6["row"]["joint_5"], 32.0);
  EXPECT_EQ(m6["row"]["joint_6"], 32.0);
  // FIGAROH's Iam6 and fvm6 are the cross terms r5 r6 J and r5 r6 b (link
  // side), fsm6 the Coulomb term r5 c (identification.h, CoupledDrive).
  const double g = 32.0;
  EXPECT_NEAR(g * g * m6["viscous"]["identified"].get<double>(), kFvm6, 0.15 * kFvm6);
  // Joint 6's own Coulomb term sgn(q6') and the motor's sgn(q5' + q6')
  // differ only where the two joints turn against each other; on the 3 s
  // cut they trade (1.36 and 0.78 N m here, 1.91 and 0.28 on the whole 9 s),
  // their sum does not.
  const double fsm6 = g * m6["coulomb"]["identified"].get<double>();
  const double fs6 = j["joint_parameters"]["joint_6"]["coulomb"]["identified"];
  EXPECT_NEAR(fsm6, kFsm6, 0.5 * kFsm6);
  EXPECT_NEAR(fsm6 + fs6, kFsm6 + kCoulomb[5], 0.15 * (kFsm6 + kCoulomb[5]));
  // Iam6: 48 % relative std in FIGAROH's fit; within a factor of two.
  const double iam6 = g * g * m6["rotor_inertia"]["identified"].get<double>();
  EXPECT_GT(iam6, 0.5 * kIam6);
  EXPECT_LT(iam6, 2.0 * kIam6);
}

}  // namespace
