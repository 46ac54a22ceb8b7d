// The end-of-step stick/slip update of joint friction, A(8)-(9): static
// friction holds a hinge while it is slow, and lets go when the hinge solve
// found it beyond tau_s^max (hinges.cpp).
#include <cmath>
#include <cstring>

#include "forces.h"
#include "hinge_friction.h"
#include "hinge_geometry.h"
#include "isa_clones.h"
#include "solver_workspace.h"

namespace suitsim::detail {

SUITSIM_HOT void updateHingeFriction(const Model& model, State& state, const PhasePoint& x, Workspace& ws,
                                     bool x_is_final) {
  for (int h = 0; h < model.num_hinges; ++h) {
    HingeGeometry g;
    geometry(model, x, h, g);
    if (x_is_final) {  // what a servo or sensor reading this state would compute (readHinge)
      state.hinge_reading.wrapped_angle[h] = g.theta;
      state.hinge_reading.rate[h] = g.theta_dot;
    }
    // The tracked angle moves on by the wrapped change since the last step.
    g.theta = unwrapAngle(g.theta, state.hinge_angle[h]);
    state.hinge_angle[h] = g.theta;
    std::memcpy(&ws.solver->hinge_geometry[h * kGeometrySize], &g, sizeof g);
    if (!hasFriction(model, h)) continue;
    if (model.hinge_follower_coupling[h] >= 0) continue;  // held through its leader, never stuck itself
    if (state.hinge_sticking[h]) {
      if (ws.solver->hinge_slipped[h]) state.hinge_sticking[h] = 0;
    } else {
      // Stick when slow, or when the motion reversed within the step (friction
      // would have stopped it first: Coulomb friction never drives a reversal).
      const bool reversed = g.theta_dot * state.hinge_previous_velocity[h] < 0.0;
      if (std::abs(g.theta_dot) < model.hinge_stick_speed || reversed) {
        state.hinge_sticking[h] = 1;
        state.hinge_stick_angle[h] = g.theta;
      }
    }
    state.hinge_previous_velocity[h] = g.theta_dot;
  }
  // A reading at another velocity (velocity Verlet's half step) is never
  // served: no copy of the bodies' frames, which it would void at once.
  if (x_is_final) {
    keepHingeReading(model, x, state);
  } else {
    state.hinge_reading.filled = false;
  }
}

}  // namespace suitsim::detail
