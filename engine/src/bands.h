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
/// `state` gives the band's creep (State::band_creep, the Maxwell arm's
/// dashpot) and material (State::band_material, with capstan friction,
/// when `tension` is the segments' tensions averaged along the band).
BandState evaluateBand(const Model& model, const PhasePoint& x, const State& state, int band);

/// Every band's via-point forces, scattered to the particles by the via
/// weights; records length and tension in ws.band_length, ws.band_tension.
/// Runs on one thread of the team (an `omp single`, barrier at its end).
void addBandForces(const Model& model, const State& state, const PhasePoint& x, Workspace& ws);

/// max(0, l - l0) of band b at x (m).
double bandStretch(const Model& model, const PhasePoint& x, int band);

/// Band b's material (l0) shared among its segments in proportion to their
/// lengths at x, all equally strained: writes material[v - b] for each
/// segment v of the band (State::band_material's layout).
void shareBandMaterial(const Model& model, const PhasePoint& x, int band, double* material);

/// Every band's creep (State::band_creep) advanced over a step of dt that
/// ended at x (see bands.cpp: the hysteresis note).
void updateBandCreep(const Model& model, State& state, const PhasePoint& x, double dt);

/// Capstan friction's stick-slip: every band's material (State::band_material)
/// slid across the via points where the segments' tensions left the
/// friction cone, for the geometry a step ended at, x (see bands.cpp: the
/// capstan note). Runs after updateBandCreep; uses ws's solver scratch.
void updateBandCapstan(const Model& model, State& state, const PhasePoint& x, Workspace& ws);

/// Elastic energy sum 0.5 k (l - l0)^2 over taut bands (with capstan
/// friction, sum 0.5 (k l0 / s_j) (L_j - s_j)^2 over taut segments) plus the
/// Maxwell arms' 0.5 k_m (e - q)^2 (J).
double bandPotentialEnergy(const Model& model, const State& state);

}  // namespace suitsim::detail
