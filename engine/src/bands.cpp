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
//
// Capstan friction. Where a band turns over the body at an interior via
// point (a fabric band over a fabric cover, or through a loop), friction
// lets the tensions of its two segments differ, by at most the capstan
// ratio: T_high <= T_low exp(mu theta), theta the angle the band turns
// through there, A(21)-(25) assuming one tension instead. The band's
// material is shared among its segments, s_j of it in segment j (state:
// State::band_material, sum s_j = l0), and a segment of a uniform band is
// stiffer by l0 / s_j:
//     T_j = max(0, k l0 (L_j - s_j) / s_j + C) while L_j > s_j, else 0,
// C = c l' + k_m (e - q) the band's damper and Maxwell arm, which act on
// the whole band's stretch e = max(0, l - l0) and rate l' as before and add
// alike to every taut segment (the arm stays one per band; splitting it per
// segment would make q a per-segment state for little gain). Segment j
// pulls its two via points with T_j: each segment is still an internal
// pair, and at an interior via point the difference of the two tensions is
// the friction force the body takes there. The elastic energy is
// sum 0.5 k l0 (L_j - s_j)^2 / s_j over taut segments, whose derivative in
// L_j is the elastic part of T_j.
//
// Stick and slip. The s_j are held over a step (every force evaluation of
// every integrator sees the same material) and updated at its end for the
// geometry it ended at (updateBandCapstan). At each interior via point,
// while exp(-mu theta) <= T_a / T_b <= exp(mu theta) (a, b the segments
// before and after) the material sticks; otherwise it slides from the
// slacker segment into the tauter one until the ratio sits on the bound.
// For one via point that is a 1-D monotone equation in s_a (s_a + s_b
// fixed: T_a falls and T_b rises as s_a grows); while both segments stay
// taut and unclamped it is a quadratic, solved in closed form, and
// otherwise by bisection, both to the last bit (slideBandMaterial in
// capstan.cpp, which the evaluator's capstan wire model shares).
// Several via points are swept Gauss-Seidel, alternating direction, until
// a whole sweep slips nowhere (at most kCapstanSweeps; what is left goes
// to the next step). The update is not a time integration: it moves no
// mass and takes no rate, it projects the material onto the friction cone
// for fixed positions, so it is stable for any step. It never adds energy:
// dU/ds_j = -(T_j + T_j^2 / (2 k l0)) elastically, so material moved from
// the slacker into the tauter segment lowers U, and friction dissipates
// what it lowers. With T_low = 0 (a slack side) the bound is 0: a band
// cannot hold tension on one side of a wrap with none on the other. mu = 0
// takes the frictionless path above, one tension for the whole band.
#include "bands.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solver_workspace.h"
#include "suitsim/robot/capstan.h"

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

/// The band's damper and Maxwell arm, common to all its taut segments: the
/// whole band's stretch and rate set them (see the capstan note).
inline double commonTension(const Model& m, int b, double stretch, double rate, double creep) {
  return stretch > 0.0 ? m.band_damping[b] * rate + m.band_relaxing_stiffness[b] * (stretch - creep) : 0.0;
}

inline bool hasCapstan(const Model& m, int b) {
  return !m.band_capstan_friction.empty() && m.band_capstan_friction[b] > 0.0;
}

}  // namespace

BandState evaluateBand(const Model& model, const PhasePoint& x, const State& state, int b) {
  BandState out;
  for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) {
    const Segment s = segment(model, x, v);
    out.length += s.length;  // A(23)
    out.rate += s.rate;
  }
  const double stretch = out.length - model.band_natural_length[b];
  if (!hasCapstan(model, b)) {
    // A(25): a slack band pulls nothing; while taut the damper and the
    // relaxing arm may only reduce the pull, never make the wire push.
    if (stretch > 0.0) {
      out.tension = std::max(0.0, model.band_stiffness[b] * stretch + model.band_damping[b] * out.rate +
                                      model.band_relaxing_stiffness[b] * (stretch - state.band_creep[b]));
    }
    return out;
  }
  // Capstan friction: the segments' tensions averaged along the band.
  const double common = commonTension(model, b, stretch, out.rate, state.band_creep[b]);
  const double kl0 = model.band_stiffness[b] * model.band_natural_length[b];
  double weighted = 0.0;
  for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) {
    const double length = segment(model, x, v).length;
    weighted += capstanSegmentTension(kl0, length, state.band_material[v - b], common) * length;
  }
  if (out.length > 0.0) out.tension = weighted / out.length;
  return out;
}

void addBandForces(const Model& model, const State& state, const PhasePoint& x, Workspace& ws) {
  if (model.num_bands == 0) return;
  // One thread, in band order (see the design note); the implied barrier
  // at the end puts every band force in place before the hinges run.
#pragma omp single
  for (int b = 0; b < model.num_bands; ++b) {
    const int first = model.band_via_begin[b], last = model.band_via_begin[b + 1];
    if (!hasCapstan(model, b)) {
      const BandState band = evaluateBand(model, x, state, b);
      ws.band_length[b] = band.length;
      ws.band_tension[b] = band.tension;
      for (int v = first; v + 1 < last; ++v) ws.band_segment_tension[v - b] = band.tension;
      if (band.tension == 0.0) continue;
      for (int v = first; v + 1 < last; ++v) {
        const Segment s = segment(model, x, v);
        // The wire pulls p_v toward p_{v+1} and p_{v+1} toward p_v.
        const double f[3] = {band.tension * s.u[0], band.tension * s.u[1], band.tension * s.u[2]};
        const double g[3] = {-f[0], -f[1], -f[2]};
        addAtVia(model, v, f, ws.force);
        addAtVia(model, v + 1, g, ws.force);
      }
      continue;
    }
    // Capstan friction: segment j pulls its two via points with its own T_j.
    double length = 0.0, rate = 0.0;
    for (int v = first; v + 1 < last; ++v) {
      const Segment s = segment(model, x, v);
      length += s.length;
      rate += s.rate;
    }
    const double common =
        commonTension(model, b, length - model.band_natural_length[b], rate, state.band_creep[b]);
    const double kl0 = model.band_stiffness[b] * model.band_natural_length[b];
    double weighted = 0.0;
    for (int v = first; v + 1 < last; ++v) {
      const Segment s = segment(model, x, v);
      const double t = capstanSegmentTension(kl0, s.length, state.band_material[v - b], common);
      ws.band_segment_tension[v - b] = t;
      weighted += t * s.length;
      if (t == 0.0) continue;
      const double f[3] = {t * s.u[0], t * s.u[1], t * s.u[2]};
      const double g[3] = {-f[0], -f[1], -f[2]};
      addAtVia(model, v, f, ws.force);
      addAtVia(model, v + 1, g, ws.force);
    }
    ws.band_length[b] = length;
    ws.band_tension[b] = length > 0.0 ? weighted / length : 0.0;
  }
}

double bandStretch(const Model& model, const PhasePoint& x, int b) {
  double length = 0.0;
  for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) length += segment(model, x, v).length;
  return std::max(0.0, length - model.band_natural_length[b]);
}

void shareBandMaterial(const Model& model, const PhasePoint& x, int b, double* material) {
  const int first = model.band_via_begin[b], last = model.band_via_begin[b + 1];
  std::vector<double> length;  // once, when a State is made
  for (int v = first; v + 1 < last; ++v) length.push_back(segment(model, x, v).length);
  suitsim::shareBandMaterial(model.band_natural_length[b], length.data(), material + (first - b),
                             last - first - 1);
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

void updateBandCapstan(const Model& model, State& state, const PhasePoint& x, Workspace& ws) {
  double* length = ws.solver->band_segment_length.data();
  double* ratio = ws.solver->via_capstan_ratio.data();
  for (int b = 0; b < model.num_bands; ++b) {
    if (!hasCapstan(model, b)) continue;
    const int first = model.band_via_begin[b], last = model.band_via_begin[b + 1];
    if (last - first < 3) continue;  // no interior via point: nothing to slide over
    // The geometry the step ended at: each segment's length, and each
    // interior via point's turn theta between its in- and outgoing
    // directions, atan2(|u_a x u_b|, u_a . u_b) (exact near 0 and pi).
    double total = 0.0, rate = 0.0, u_prev[3] = {0.0, 0.0, 0.0};
    const double mu = model.band_capstan_friction[b];
    for (int v = first; v + 1 < last; ++v) {
      const Segment s = segment(model, x, v);
      length[v - b] = s.length;
      total += s.length;
      rate += s.rate;
      if (v > first) {
        const double c[3] = {u_prev[1] * s.u[2] - u_prev[2] * s.u[1], u_prev[2] * s.u[0] - u_prev[0] * s.u[2],
                             u_prev[0] * s.u[1] - u_prev[1] * s.u[0]};
        const double sine = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        const double cosine = u_prev[0] * s.u[0] + u_prev[1] * s.u[1] + u_prev[2] * s.u[2];
        ratio[v] = std::exp(mu * std::atan2(sine, cosine));
      }
      for (int k = 0; k < 3; ++k) u_prev[k] = s.u[k];
    }
    const double common =
        commonTension(model, b, total - model.band_natural_length[b], rate, state.band_creep[b]);
    const double kl0 = model.band_stiffness[b] * model.band_natural_length[b];
    // The band's stick and slip, the rounding of sum s_j = l0 put back.
    slipBandMaterial(kl0, common, model.band_natural_length[b], length + (first - b), ratio + first,
                     state.band_material.data() + (first - b), last - first - 1);
  }
}

double bandPotentialEnergy(const Model& model, const State& state) {
  double energy = 0.0;
  const PhasePoint x = phasePoint(state.position, state.velocity);
  for (int b = 0; b < model.num_bands; ++b) {
    const double stretch = evaluateBand(model, x, state, b).length - model.band_natural_length[b];
    if (!hasCapstan(model, b)) {
      if (stretch > 0.0) energy += 0.5 * model.band_stiffness[b] * stretch * stretch;  // taut only
    } else {
      // Each taut segment's 0.5 (k l0 / s_j) (L_j - s_j)^2.
      const double kl0 = model.band_stiffness[b] * model.band_natural_length[b];
      for (int v = model.band_via_begin[b]; v + 1 < model.band_via_begin[b + 1]; ++v) {
        const double e = segment(model, x, v).length - state.band_material[v - b];
        if (e > 0.0) energy += 0.5 * kl0 / state.band_material[v - b] * e * e;
      }
    }
    // The Maxwell arm's spring holds 0.5 k_m (e - q)^2 whether taut or not.
    const double arm = std::max(0.0, stretch) - state.band_creep[b];
    energy += 0.5 * model.band_relaxing_stiffness[b] * arm * arm;
  }
  return energy;
}

}  // namespace suitsim::detail
