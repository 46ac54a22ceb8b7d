// Straps: a worn device held on the robot (engine-internal; see straps.cpp).
#pragma once

#include "forces.h"

namespace suitsim::detail {

/// Every strap's pair of forces, scattered to both bodies' particles by the
/// point weights; records the force on each strap's worn-on end in
/// ws.strap_force. Runs on one thread of the team (an `omp single`).
void addStrapForces(const Model& model, const PhasePoint& x, Workspace& ws);

/// Strap s's force on its worn-on end b at x (N), world axes.
Vec3 strapForce(const Model& model, const PhasePoint& x, int s);

/// Elastic energy sum 0.5 k |p_a - p_b|^2 (J).
double strapPotentialEnergy(const Model& model, const State& state);

}  // namespace suitsim::detail
