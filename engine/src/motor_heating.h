// The motors' windings warm and their torque per ampere falls
// (JointActuation::km, docs/realism.md).
#pragma once

#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim::detail {

/// The motor's torque k_T (1 + magnet_coefficient dT) u + tau_o (N m).
inline double motorTorque(const Model& model, const State& state, int h) {
  const double k = model.hinge_motor_constant[h] * (1.0 + model.hinge_magnet_coefficient[h] * state.hinge_winding_rise[h]);
  return k * state.hinge_current[h] + model.hinge_torque_offset[h];
}

/// Advances every heating winding's rise over a step of dt with the step's
/// current (end of step, like the friction's stick state).
void updateWindings(const Model& model, State& state, double dt);

}  // namespace suitsim::detail
