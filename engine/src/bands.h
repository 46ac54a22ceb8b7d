// Suit bands, A(21)-(25) (engine-internal; see bands.cpp).
#pragma once

#include "forces.h"

namespace suitsim::detail {

/// A band at a phase point: wire length l (m), its rate l' (m/s) and the
/// tension f >= 0 (N), zero while slack, A(23), A(25).
struct BandState {
  double length = 0.0;
  double rate = 0.0;
  double tension = 0.0;
};
BandState evaluateBand(const Model& model, const PhasePoint& x, int band);

/// Every band's via-point forces, scattered to the particles by the via
/// weights; records length and tension in ws.band_length, ws.band_tension.
/// Runs on one thread of the team (an `omp single`, barrier at its end).
void addBandForces(const Model& model, const PhasePoint& x, Workspace& ws);

/// Elastic energy sum 0.5 k (l - l0)^2 over taut bands (J).
double bandPotentialEnergy(const Model& model, const State& state);

}  // namespace suitsim::detail
