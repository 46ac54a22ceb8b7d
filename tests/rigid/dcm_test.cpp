// The DCM, VRP and eCMP of dcm.h (seed 003, (11)-(15)) against closed forms:
// the linear inverted pendulum (its DCM runs away as exp(omega0 t) from a
// VRP fixed at the pendulum's height above the pivot, its eCMP is the pivot,
// which is its centre of pressure), a standing robot (VRP at the CoM, Δz
// above the eCMP on the ground), a CoM that bobs up and down (the DCM obeys
// (12) with the time-varying omega), and what has no DCM (a robot in the air).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "suitsim/rigid/dcm.h"

namespace suitsim::eval {
namespace {

using Eigen::Vector2d;
using Eigen::Vector3d;

constexpr double kG = 9.81;
const Vector3d kGravity(0.0, 0.0, -kG);
constexpr double kMass = 60.0;

SupportPolygon square(double half) { return convexHull({{-half, -half}, {half, -half}, {half, half}, {-half, half}}); }

// The linear inverted pendulum over a pivot at the origin, height h: c̈_xy = omega0² c_xy.
std::vector<CentroidalSample> invertedPendulum(double h, const Vector2d& c0, const Vector2d& v0, double dt, int n) {
  const double w = std::sqrt(kG / h);
  std::vector<CentroidalSample> s(n);
  for (int k = 0; k < n; ++k) {
    const double t = k * dt;
    const Vector2d c = c0 * std::cosh(w * t) + v0 / w * std::sinh(w * t);
    const Vector2d v = c0 * w * std::sinh(w * t) + v0 * std::cosh(w * t);
    s[k].time = t;
    s[k].com << c, h;
    s[k].com_velocity << v, 0.0;
    s[k].com_acceleration << w * w * c, 0.0;
    // The ground pushes along the line from the pivot to the CoM.
    s[k].contact_force = kMass * (s[k].com_acceleration - kGravity);
  }
  return s;
}

TEST(Dcm, InvertedPendulumDivergesFromItsVrpAndItsEcmpIsThePivot) {
  const double h = 0.8, w = std::sqrt(kG / h), dt = 1e-3;
  const Vector2d c0(0.01, -0.004), v0(0.02, 0.0);
  const std::vector<CentroidalSample> s = invertedPendulum(h, c0, v0, dt, 1001);
  const std::vector<DcmPoints> p = dcmPoints(s, kMass, kGravity, GroundPlane{}, square(0.1));
  const Vector2d xi0 = c0 + v0 / w;
  for (std::size_t k = 0; k < s.size(); ++k) {
    SCOPED_TRACE("t = " + std::to_string(s[k].time));
    EXPECT_NEAR(p[k].omega, w, 1e-12);
    EXPECT_NEAR(p[k].omega_rate, 0.0, 1e-9);
    // Capture point: xi = xi0 exp(omega0 t), at the CoM's height.
    const Vector2d xi = xi0 * std::exp(w * s[k].time);
    EXPECT_NEAR((p[k].dcm.head<2>() - xi).norm(), 0.0, 1e-12 * std::exp(w * s[k].time) + 1e-13);
    EXPECT_NEAR(p[k].dcm.z(), h, 1e-12);
    // VRP fixed Δz above the pivot (4); eCMP on the pivot, which is the CoP.
    EXPECT_NEAR((p[k].vrp - Vector3d(0.0, 0.0, h)).norm(), 0.0, 1e-9);
    EXPECT_NEAR(p[k].ecmp.norm(), 0.0, 1e-9);
    EXPECT_NEAR((p[k].dcm_ground - p[k].dcm.head<2>()).norm(), 0.0, 1e-15);
  }
  // The margin to a 0.2 m square falls through zero when xi_x reaches 0.1.
  const double crossing = std::log(0.1 / xi0.x()) / w;
  ASSERT_LT(crossing, 1.0);
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (std::abs(s[k].time - crossing) < 2 * dt) continue;
    EXPECT_EQ(p[k].margin > 0.0, s[k].time < crossing) << s[k].time;
  }
}

TEST(Dcm, StandingStillTheVrpIsTheComDeltaZAboveTheEcmp) {
  std::vector<CentroidalSample> s(3);
  for (int k = 0; k < 3; ++k) {
    s[k].time = 0.01 * k;
    s[k].com = Vector3d(0.04, -0.01, 0.86);
    s[k].contact_force = -kMass * kGravity;  // the ground carries the weight
  }
  const SupportPolygon feet = convexHull({{-0.03, -0.15}, {0.17, -0.15}, {0.17, 0.15}, {-0.03, 0.15}});
  for (const DcmPoints& p : dcmPoints(s, kMass, kGravity, GroundPlane{}, feet)) {
    EXPECT_NEAR(p.omega, std::sqrt(kG / 0.86), 1e-12);
    EXPECT_EQ(p.omega_rate, 0.0);
    EXPECT_NEAR((p.dcm - s[0].com).norm(), 0.0, 1e-15);
    EXPECT_NEAR((p.vrp - s[0].com).norm(), 0.0, 1e-15);
    EXPECT_NEAR((p.ecmp - Vector3d(0.04, -0.01, 0.0)).norm(), 0.0, 1e-12);  // (4): v = r_ecmp + Δz n
    EXPECT_NEAR(p.margin, 0.07, 1e-12);  // nearest edge: u = -0.03
  }
}

TEST(Dcm, ABobbingComObeysTheTimeVaryingDcmDynamics) {
  // c = (0.05 sin(2t), 0, 0.8 + 0.05 sin(5t)): omega changes with c̈_z and Δz.
  const double dt = 1e-4;
  std::vector<CentroidalSample> s;
  for (int k = 0; k <= 20000; ++k) {
    const double t = k * dt;
    CentroidalSample c;
    c.time = t;
    c.com = Vector3d(0.05 * std::sin(2 * t), 0.0, 0.8 + 0.05 * std::sin(5 * t));
    c.com_velocity = Vector3d(0.1 * std::cos(2 * t), 0.0, 0.25 * std::cos(5 * t));
    c.com_acceleration = Vector3d(-0.2 * std::sin(2 * t), 0.0, -1.25 * std::sin(5 * t));
    c.contact_force = kMass * (c.com_acceleration - kGravity);
    s.push_back(c);
  }
  const std::vector<DcmPoints> p = dcmPoints(s, kMass, kGravity, GroundPlane{}, SupportPolygon{});
  double worst_rate = 0.0, worst_dynamics = 0.0;
  for (std::size_t k = 1; k + 1 < s.size(); ++k) {
    const double t = s[k].time;
    // omega' in closed form: omega = sqrt(q / z), q = g + c̈_z.
    const double z = 0.8 + 0.05 * std::sin(5 * t), zd = 0.25 * std::cos(5 * t);
    const double q = kG - 1.25 * std::sin(5 * t), qd = -6.25 * std::cos(5 * t);
    const double omega = std::sqrt(q / z);
    const double omega_rate = 0.5 / omega * (qd * z - q * zd) / (z * z);
    EXPECT_NEAR(p[k].omega, omega, 1e-12);
    worst_rate = std::max(worst_rate, std::abs(p[k].omega_rate - omega_rate));
    // (12): xi' = (omega - omega'/omega)(xi - v), xi' by central differences.
    const Vector3d xi_rate = (p[k + 1].dcm - p[k - 1].dcm) / (2 * dt);
    const Vector3d rhs = (p[k].omega - p[k].omega_rate / p[k].omega) * (p[k].dcm - p[k].vrp);
    worst_dynamics = std::max(worst_dynamics, (xi_rate - rhs).norm());
    // (14): with c̈ = F_ext/m + gravity, v = r_ecmp + g n / (omega² - omega').
    const double stiffness = p[k].omega * p[k].omega - p[k].omega_rate;
    EXPECT_NEAR((p[k].vrp - p[k].ecmp - Vector3d(0.0, 0.0, kG / stiffness)).norm(), 0.0, 1e-12);
    EXPECT_TRUE(std::isnan(p[k].margin));  // no polygon given
  }
  EXPECT_LT(worst_rate, 1e-6);      // central differences: O(dt²)
  EXPECT_LT(worst_dynamics, 1e-6);
}

TEST(Dcm, AirborneHasNoDcmAndBadInputThrows) {
  std::vector<CentroidalSample> s(2);
  for (int k = 0; k < 2; ++k) {
    s[k].time = k * 0.01;
    s[k].com = Vector3d(0.0, 0.0, 1.0);
    s[k].com_acceleration = kGravity;  // free fall: no contact force
  }
  for (const DcmPoints& p : dcmPoints(s, kMass, kGravity, GroundPlane{}, square(0.1))) {
    EXPECT_TRUE(std::isnan(p.omega));
    EXPECT_FALSE(p.dcm.allFinite());
    EXPECT_FALSE(p.vrp.allFinite());
    EXPECT_TRUE(std::isnan(p.margin));
  }
  EXPECT_THROW(dcmPoints(s, 0.0, kGravity, GroundPlane{}, {}), std::invalid_argument);
  EXPECT_THROW(dcmPoints(s, kMass, Vector3d(9.81, 0.0, 0.0), GroundPlane{}, {}), std::invalid_argument);
  s[1].time = s[0].time;
  EXPECT_THROW(dcmPoints(s, kMass, kGravity, GroundPlane{}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace suitsim::eval
