// The Cramér-Rao bound of a band stiffness (report/cramer_rao.h) against its
// closed form on a one-parameter fit: the current's noise alone, then the
// foot sensors' share on a row that carries the ground's force, for one
// trial (approach B) and two (approach A); a force sensor the scene does
// not declare gives no bound.
#include <gtest/gtest.h>

#include <cmath>

#include "suitsim/report/cramer_rao.h"

namespace suitsim::report {
namespace {

// One parameter (k) fitted on one joint's rows with Σ g_r² = g², each row
// standing for one raw sample (row interval 1 / rate).
eval::UnitInformation oneJoint(double g) {
  eval::UnitInformation info;
  info.parameter = {"k:A"};
  info.stiffness = 0;
  info.joint = {"hip"};
  info.factor = {Eigen::MatrixXd::Constant(1, 1, g)};
  info.rows = {100};
  info.row_interval = 1.0 / 200.0;
  return info;
}

TorqueNoise noise(double current, double force, double moment) {
  TorqueNoise n;
  n.rate = 200.0;
  n.current["hip"] = current;
  n.force_sensor["rfsensor"] = {force, moment};
  return n;
}

TEST(CramerRao, CurrentNoiseAloneIsSigmaOverTheInformation) {
  const double g = 40.0, sc = 0.1;
  const eval::UnitInformation info = oneJoint(g);
  EXPECT_NEAR(cramerRaoStd(info, noise(sc, 2.0, 0.2), eval::SupportMethod::kApproachB, false), sc / g, 1e-15);
  EXPECT_NEAR(cramerRaoStd(info, noise(sc, 2.0, 0.2), eval::SupportMethod::kApproachA, false), std::sqrt(2.0) * sc / g,
              1e-15);
}

TEST(CramerRao, FootSensorsAddTheirShareOnRowsThatCarryTheGround) {
  const double g = 40.0, sc = 0.1, sf = 2.0, sm = 0.2;
  eval::UnitInformation info = oneJoint(g);
  info.force_sensor = {"rfsensor"};
  info.force_gain = {{0.64}};   // a 0.8 m lever: (0.8 m)² summed over the force axes
  info.moment_gain = {{1.0}};   // a hinge axis of unit length
  const double per_trial = sc * sc + 0.64 * sf * sf + 1.0 * sm * sm;
  EXPECT_NEAR(cramerRaoStd(info, noise(sc, sf, sm), eval::SupportMethod::kApproachB, false), std::sqrt(per_trial) / g,
              1e-15);
  EXPECT_NEAR(cramerRaoStd(info, noise(sc, sf, sm), eval::SupportMethod::kApproachA, false),
              std::sqrt(2.0 * per_trial) / g, 1e-15);
  // A joint above the feet (gains 0) is bounded by its current alone.
  info.force_gain = {{0.0}};
  info.moment_gain = {{0.0}};
  EXPECT_NEAR(cramerRaoStd(info, noise(sc, sf, sm), eval::SupportMethod::kApproachB, false), sc / g, 1e-15);
}

TEST(CramerRao, AForceSensorTheSceneDoesNotDeclareGivesNoBound) {
  eval::UnitInformation info = oneJoint(40.0);
  info.force_sensor = {"lfsensor"};
  info.force_gain = {{0.5}};
  info.moment_gain = {{0.5}};
  EXPECT_TRUE(std::isnan(cramerRaoStd(info, noise(0.1, 2.0, 0.2), eval::SupportMethod::kApproachB, false)));
}

}  // namespace
}  // namespace suitsim::report
