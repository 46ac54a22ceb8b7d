// The windings' temperature, a first-order thermal model per motor:
//   C dT' = P - dT / R_th,  P = (k_T u)^2 / km^2 (1 + alpha_Cu dT),
// C = time_constant / R_th. P is the copper loss R i^2 written with the
// motor constant km = k / sqrt(R) seen at the joint, so that it needs no
// gear ratio or winding resistance, and the copper's resistance rises with
// its temperature. With u held over the step the equation is linear in dT,
// dT' = a + b dT, and is advanced exactly: stable for any step.
#include "motor_heating.h"

#include <cmath>

namespace suitsim::detail {

namespace {
// Copper's resistance rises 0.393 % per kelvin near room temperature.
constexpr double kCopperCoefficient = 0.00393;
}  // namespace

void updateWindings(const Model& model, State& state, double dt) {
  for (int h = 0; h < model.num_hinges; ++h) {
    const double km = model.hinge_km[h];
    if (!(km > 0.0)) continue;
    const double r_th = model.hinge_thermal_resistance[h];
    const double capacity = model.hinge_thermal_time_constant[h] / r_th;  // J/K
    const double torque = model.hinge_motor_constant[h] * state.hinge_current[h];
    const double p0 = torque * torque / (km * km);  // W at the rated temperature
    const double a = p0 / capacity, b = (p0 * kCopperCoefficient - 1.0 / r_th) / capacity;
    const double x = b * dt;
    // expm1(x) / x -> 1 as x -> 0 (b = 0: heating and cooling in balance).
    const double growth = std::abs(x) > 1e-12 ? std::expm1(x) / x : 1.0;
    double& rise = state.hinge_winding_rise[h];
    rise = rise * std::exp(x) + a * dt * growth;
  }
}

}  // namespace suitsim::detail
