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
/// `creep`: each band's State::band_creep (the Maxwell arms' dashpots).
BandState evaluateBand(const Model& model, const PhasePoint& x, const double* creep, int band);

/// Every band's via-point forces, scattered to the particles by the via
/// weights; records length and tension in ws.band_length, ws.band_tension.
/// Runs on one thread of the team (an `omp single`, barrier at its end).
void addBandForces(const Model& model, const State& state, const PhasePoint& x, Workspace& ws);

/// max(0, l - l0) of band b at x (m).
double bandStretch(const Model& model, const PhasePoint& x, int band);

/// Every band's creep (State::band_creep) advanced over a step of dt that
/// ended at x (see bands.cpp: the hysteresis note).
void updateBandCreep(const Model& model, State& state, const PhasePoint& x, double dt);

/// Elastic energy sum 0.5 k (l - l0)^2 over taut bands plus the Maxwell
/// arms' 0.5 k_m (e - q)^2 (J).
double bandPotentialEnergy(const Model& model, const State& state);

}  // namespace suitsim::detail
