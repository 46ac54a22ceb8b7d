#include "suitsim/core/balance_points.h"

#include <cmath>
#include <limits>

namespace suitsim {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
}  // namespace

double pendulumFrequency(double height, double normal_acceleration, double g) {
  // After (11): the pendulum from the ground to the CoM, stiffened by the
  // CoM's own acceleration along the normal.
  const double pull = g + normal_acceleration;
  return height > 0.0 && pull > 0.0 ? std::sqrt(pull / height) : kNaN;
}

BalancePoints balancePoints(const Centroidal& c, const Vec3& gravity, const Vec3& normal, double offset,
                            double omega_rate) {
  BalancePoints p;
  const double g = -dot(gravity, normal);
  p.omega = pendulumFrequency(dot(c.com, normal) - offset, dot(c.com_acceleration, normal), g);
  p.omega_rate = omega_rate;
  // (13) and (15) share the stiffness omega² - omega' of (12).
  const double stiffness = p.omega * p.omega - omega_rate;
  const bool repellent = stiffness > 0.0;
  for (int k = 0; k < 3; ++k) {
    p.dcm[k] = c.com[k] + c.com_velocity[k] / p.omega;  // (11); NaN with omega
    p.vrp[k] = repellent ? c.com[k] - c.com_acceleration[k] / stiffness : kNaN;                  // (13)
    p.ecmp[k] = repellent && c.mass > 0.0 ? c.com[k] - c.external_force[k] / (c.mass * stiffness) : kNaN;  // (15)
  }
  return p;
}

}  // namespace suitsim
