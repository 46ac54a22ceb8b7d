// Suit bands: elastic wires through via points fixed on links, A(21)-(25).
//
// Design note. A via point is an affine combination of its body's four
// particles (weights summing to 1), so it moves with the body and a force on
// it reaches the particles by the same weights: sum_i w_i f = f and
// sum_i x_i x w_i f = p x f, the same force and moment as the point force,
// with no Jacobian. The wire pulls each via point toward its neighbours with
// the one tension f, so segment j (from p_j to p_{j+1}, unit u_j) adds
// +f u_j at p_j and -f u_j at p_{j+1}: equal and opposite on one line, an
// internal pair with no net force or moment. The supporting torque A(21)
// (tau = J^T f, J = dl/dtheta) is what these forces do to the joints; the
// engine never forms J.
//
// Bands are few (a suit has four), so the pass runs on one thread in band
// order: bit-identical for any thread count, and it allocates nothing.
//
// Hysteresis. Fabric and rubber bands pull harder while they are being
// stretched than while they shorten, and their pull relaxes at a held
// stretch. A standard linear solid models both with one internal variable:
// the equilibrium spring k in parallel with a Maxwell arm, a spring k_m in
// series with a dashpot of time constant tau. With e = max(0, l - l0) the
// band's stretch and q the dashpot's elongation (the creep),
//     f = k e + c l' + k_m (e - q),   q' = (e - q) / tau,
// so a stretch held for long pulls k e, a sudden one (k + k_m) e, and a
// cycle at angular frequency w stores k + k_m w^2 tau^2 / (1 + w^2 tau^2)
// and loses energy in the arm. q is state (State::band_creep), held over a
// step like the motor currents and advanced exactly at the step's end for
// the stretch the step ended at (updateBandCreep): stable for any step,
// with a lag of half a step in the arm's input. A slack band (e = 0) is at
// its natural length, so its creep relaxes toward 0 and the arm cannot push.
#include "bands.h"

#include <algorithm>
#include <cmath>

namespace suitsim {

int Model::findBand(const std::string& name) const {
  for (int b = 0; b < num_bands; ++b) {
    if (band_name[b] == name) return b;
  }
  return -1;
}

}  // namespace suitsim

namespace suitsim::detail {

namespace {

/// Via point v's position and velocity at phase point x.
inline void viaPoint(const Model& m, const PhasePoint& x, int v, double p[3], double vel[3]) {
  affinePoint(x, m.body_particle_begin[m.via_body[v]], m.via_weight[v], p, vel);
}

/// Segment from via point v to v + 1: its length, unit direction (zero for a
/// degenerate segment) and rate of lengthening.
struct Segment {
  double length = 0.0;
  double u[3] = {0.0, 0.0, 0.0};
  double rate = 0.0;
};

inline Segment segment(const Model& m, const PhasePoint& x, int v) {
  double pa[3], va[3], pb[3], vb[3];
  viaPoint(m, x, v, pa, va);
  viaPoint(m, x, v + 1, pb, vb);
  Segment s;
  const double d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
  s.length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (s.length > 0.0) {
    for (int k = 0; k < 3; ++k) s.u[k] = d[k] / s.length;
    s.rate = s.u[0] * (vb[0] - va[0]) + s.u[1] * (vb[1] - va[1]) + s.u[2] * (vb[2] - va[2]);
  }
  return s;
}

inline void addAtVia(const Model& m, int v, const double f[3], Vec3Array& force) {
  addAtAffinePoint(m.body_particle_begin[m.via_body[v]], m.via_weight[v], f, force);
}

}  // namespace

BandState evaluateBand(const Model& model, const PhasePoint& x, const double* creep, int b) {
  BandState out;
  for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) {
    const Segment s = segment(model, x, v);
    out.length += s.length;  // A(23)
    out.rate += s.rate;
  }
  const double stretch = out.length - model.band_natural_length[b];
  // A(25): a slack band pulls nothing; while taut the damper and the
  // relaxing arm may only reduce the pull, never make the wire push.
  if (stretch > 0.0) {
    out.tension = std::max(0.0, model.band_stiffness[b] * stretch + model.band_damping[b] * out.rate +
                                    model.band_relaxing_stiffness[b] * (stretch - creep[b]));
  }
  return out;
}

void addBandForces(const Model& model, const State& state, const PhasePoint& x, Workspace& ws) {
  if (model.num_bands == 0) return;
  // One thread, in band order (see the design note); the implied barrier
  // at the end puts every band force in place before the hinges run.
#pragma omp single
  for (int b = 0; b < model.num_bands; ++b) {
    const BandState band = evaluateBand(model, x, state.band_creep.data(), b);
    ws.band_length[b] = band.length;
    ws.band_tension[b] = band.tension;
    if (band.tension == 0.0) continue;
    for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) {
      const Segment s = segment(model, x, v);
      // The wire pulls p_v toward p_{v+1} and p_{v+1} toward p_v.
      const double f[3] = {band.tension * s.u[0], band.tension * s.u[1], band.tension * s.u[2]};
      const double g[3] = {-f[0], -f[1], -f[2]};
      addAtVia(model, v, f, ws.force);
      addAtVia(model, v + 1, g, ws.force);
    }
  }
}

double bandStretch(const Model& model, const PhasePoint& x, int b) {
  double length = 0.0;
  for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) length += segment(model, x, v).length;
  return std::max(0.0, length - model.band_natural_length[b]);
}

void updateBandCreep(const Model& model, State& state, const PhasePoint& x, double dt) {
  for (int b = 0; b < model.num_bands; ++b) {
    if (!(model.band_relaxing_stiffness[b] > 0.0)) continue;
    // q' = (e - q) / tau with e held at the step's end value: exact.
    const double e = bandStretch(model, x, b);
    double& q = state.band_creep[b];
    q = e + (q - e) * std::exp(-dt / model.band_relaxation_time[b]);
  }
}

double bandPotentialEnergy(const Model& model, const State& state) {
  double energy = 0.0;
  const PhasePoint x = phasePoint(state.position, state.velocity);
  for (int b = 0; b < model.num_bands; ++b) {
    const double stretch = evaluateBand(model, x, state.band_creep.data(), b).length - model.band_natural_length[b];
    if (stretch > 0.0) energy += 0.5 * model.band_stiffness[b] * stretch * stretch;  // taut only
    // The Maxwell arm's spring holds 0.5 k_m (e - q)^2 whether taut or not.
    const double arm = std::max(0.0, stretch) - state.band_creep[b];
    energy += 0.5 * model.band_relaxing_stiffness[b] * arm * arm;
  }
  return energy;
}

}  // namespace suitsim::detail
