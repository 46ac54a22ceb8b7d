// The viscoelastic wire model (evaluator/src/band_relaxation.cpp): the
// arm's stretch against its closed form, and the fit recovering k, k_m and
// tau from a standard linear solid's torque, slack phases included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "suitsim/eval/band_relaxation.h"

namespace suitsim::eval {
namespace {

// A ramp e = r t held from t1: a(t) = r tau (1 - exp(-t / tau)) up to t1,
// then decaying as exp(-(t - t1) / tau).
TEST(BandRelaxation, ArmStretchOfARampAndHoldIsTheClosedForm) {
  const double tau = 0.7, r = 0.02, t1 = 1.5, dt = 0.01;
  const int n = 400;
  Eigen::VectorXd time(n), e(n);
  for (int i = 0; i < n; ++i) {
    time[i] = i * dt;
    e[i] = r * std::min(time[i], t1);
  }
  const Eigen::VectorXd a = maxwellArmStretch(time, e, tau);
  for (int i = 0; i < n; ++i) {
    const double t = time[i];
    const double expected = t <= t1 ? r * tau * (1.0 - std::exp(-t / tau))
                                    : r * tau * (1.0 - std::exp(-t1 / tau)) * std::exp(-(t - t1) / tau);
    EXPECT_NEAR(a[i], expected, 1e-12) << t;
  }
}

// One band over a joint with a varying moment arm, stretched by a bend
// out and back with holds (samples at 200 Hz): the torque of a standard
// linear solid with the engine's clamp (a band never pushes), fitted on the
// moving samples only, as suit_fit.cpp does.
struct Motion {
  RelaxationRows rows;
  Eigen::VectorXd torque;
};
Motion bendMotion(double k, double km, double tau, double damping = 0.0) {
  const double dt = 0.005;
  const int n = 2400;
  Motion m;
  m.rows.time.resize(n);
  m.rows.stretch.resize(n, 1);
  Eigen::VectorXd arm_length(n);
  for (int i = 0; i < n; ++i) {
    const double t = i * dt;
    m.rows.time[i] = t;
    // Out over 2-4 s, held to 5.5 s, back over 5.5-7.5 s, then a faster one at 8-9 s.
    auto smooth = [](double s) { s = std::clamp(s, 0.0, 1.0); return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s); };
    const double angle = 0.6 * (smooth((t - 2.0) / 2.0) - smooth((t - 5.5) / 2.0)) +
                         0.4 * (smooth((t - 8.0) / 0.5) - smooth((t - 8.6) / 0.5));
    arm_length[i] = 0.12 + 0.02 * std::cos(angle);  // m/rad
    m.rows.stretch(i, 0) = std::max(0.0, 0.12 * angle - 0.005);
  }
  const Eigen::VectorXd e = m.rows.stretch.col(0);
  const Eigen::VectorXd a = maxwellArmStretch(m.rows.time, e, tau);
  std::vector<double> torque;
  std::vector<double> jac;
  for (int i = 1; i + 1 < n; ++i) {
    const double rate = (e[i + 1] - e[i - 1]) / (2.0 * dt);
    if (std::abs(rate) < 1e-3) continue;  // the joint at rest: no fit row
    const double f = std::max(0.0, k * e[i] + km * a[i] + damping * rate);
    m.rows.sample.push_back(i);
    jac.push_back(arm_length[i]);
    torque.push_back(-arm_length[i] * f);
  }
  m.rows.jacobian = Eigen::Map<Eigen::VectorXd>(jac.data(), static_cast<Eigen::Index>(jac.size()));
  m.torque = Eigen::Map<Eigen::VectorXd>(torque.data(), static_cast<Eigen::Index>(torque.size()));
  m.rows.band_group = {0};
  m.rows.num_groups = 1;
  return m;
}

TEST(BandRelaxation, TheFitRecoversTheStandardLinearSolid) {
  for (const double tau : {0.3, 1.0, 3.0}) {
    const Motion m = bendMotion(200.0, 30.0, tau);
    const RelaxationFit fit = fitRelaxation(m.rows, m.torque);
    std::printf("[measured] tau %.2f: k %.6f, k_m %.6f, tau %.6f, rmse %.2e (elastic %.2e) N m\n", tau,
                fit.stiffness[0], fit.relaxing_stiffness[0], fit.relaxation_time, fit.rmse, fit.elastic_rmse);
    EXPECT_TRUE(fit.found);
    EXPECT_NEAR(fit.stiffness[0], 200.0, 1e-3) << tau;
    EXPECT_NEAR(fit.relaxing_stiffness[0], 30.0, 1e-3) << tau;
    EXPECT_NEAR(fit.relaxation_time, tau, 1e-4 * tau) << tau;
    EXPECT_LT(fit.rmse, 1e-6);
    EXPECT_GT(fit.elastic_rmse, 100.0 * fit.rmse + 1e-3);  // k alone cannot fit the loop
  }
}

TEST(BandRelaxation, AnElasticBandGetsNoArm) {
  const Motion m = bendMotion(200.0, 0.0, 1.0);
  const RelaxationFit fit = fitRelaxation(m.rows, m.torque);
  EXPECT_NEAR(fit.stiffness[0], 200.0, 1e-6);
  EXPECT_NEAR(fit.relaxing_stiffness[0], 0.0, 1e-6);
}

// A damper is not a relaxation these motions can tell: the arm would go to
// the shortest tau. The fit reports none and keeps k alone.
TEST(BandRelaxation, ADamperIsNotTakenForAnArm) {
  const Motion m = bendMotion(200.0, 0.0, 1.0, 5.0);
  const RelaxationFit fit = fitRelaxation(m.rows, m.torque);
  std::printf("[measured] damper: found %d, k %.4f, rmse %.3e N m\n", fit.found, fit.stiffness[0], fit.rmse);
  EXPECT_FALSE(fit.found);
  EXPECT_TRUE(std::isnan(fit.relaxation_time));
  EXPECT_EQ(fit.relaxing_stiffness[0], 0.0);
  EXPECT_EQ(fit.arm_torque.norm(), 0.0);
  EXPECT_NEAR(fit.stiffness[0], 200.0, 0.05 * 200.0);
}

TEST(BandRelaxation, BadInputThrows) {
  Motion m = bendMotion(200.0, 30.0, 1.0);
  EXPECT_THROW(fitRelaxation(m.rows, m.torque.head(3)), std::invalid_argument);
  EXPECT_THROW(fitRelaxation(m.rows, m.torque, 1.0, 0.5), std::invalid_argument);
  EXPECT_THROW(maxwellArmStretch(m.rows.time, m.rows.stretch.col(0), 0.0), std::invalid_argument);
  m.rows.num_groups = 0;
  EXPECT_THROW(fitRelaxation(m.rows, m.torque), std::invalid_argument);
  EXPECT_TRUE([] { BandModel b; return parseBandModel("viscoelastic", &b) && b == BandModel::Viscoelastic; }());
  EXPECT_FALSE([] { BandModel b; return parseBandModel("plastic", &b); }());
}

}  // namespace
}  // namespace suitsim::eval
