#include "bands.h"
#include "forces.h"
#include "gear_train.h"
#include "motor_heating.h"
#include "solver_workspace.h"

namespace suitsim {

namespace {

constexpr int kParallelParticles = 8192;

// Runs body(i) for every particle: in parallel for large models, else as a
// plain loop (a parallel region's fork and join outweigh small loops).
template <typename Body>
inline void forEachParticle(int n, int threads, Body body) {
  if (threads > 1 && n >= kParallelParticles) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
    for (int i = 0; i < n; ++i) body(i);
  } else {
#pragma omp simd
    for (int i = 0; i < n; ++i) body(i);
  }
}

// With kKeep, the passes below also write the values they make to `copy`:
// velocity Verlet keeps what its cached acceleration was computed from
// (state.cpp) in the passes that make those values, rather than in a pass
// of its own over every particle. (A template flag, not a null test: the
// test inside the loop kept GCC from vectorising it.)
inline void keepAt(Vec3Array& copy, const Vec3Array& from, int i) {
  copy.x[i] = from.x[i];
  copy.y[i] = from.y[i];
  copy.z[i] = from.z[i];
}

// y += h * d for the three coordinates of n entities.
template <bool kKeep = false>
inline void axpy(int n, double h, const Vec3Array& d, Vec3Array& y, int threads, Vec3Array* copy = nullptr) {
  forEachParticle(n, threads, [&](int i) {
    y.x[i] += h * d.x[i];
    y.y[i] += h * d.y[i];
    y.z[i] += h * d.z[i];
    if constexpr (kKeep) keepAt(*copy, y, i);
  });
}

// v += h_kick * a, then x += h_drift * v with the new v: a kick and a drift
// in one pass, the same operations as the two axpy calls.
template <bool kKeep = false>
inline void kickDrift(int n, double h_kick, const Vec3Array& a, double h_drift, Vec3Array& v, Vec3Array& x,
                      int threads, Vec3Array* copy = nullptr) {
  forEachParticle(n, threads, [&](int i) {
    v.x[i] += h_kick * a.x[i];
    v.y[i] += h_kick * a.y[i];
    v.z[i] += h_kick * a.z[i];
    x.x[i] += h_drift * v.x[i];
    x.y[i] += h_drift * v.y[i];
    x.z[i] += h_drift * v.z[i];
    if constexpr (kKeep) keepAt(*copy, x, i);
  });
}

// out = base + h * d
inline void offset(int n, const Vec3Array& base, double h, const Vec3Array& d, Vec3Array& out, int threads) {
  forEachParticle(n, threads, [&](int i) {
    out.x[i] = base.x[i] + h * d.x[i];
    out.y[i] = base.y[i] + h * d.y[i];
    out.z[i] = base.z[i] + h * d.z[i];
  });
}

// out = (first ? 0 : out) + w * b   (RK4 accumulation)
inline void accumulate(int n, Vec3Array& out, double w, const Vec3Array& b, bool first, int threads) {
  forEachParticle(n, threads, [&](int i) {
    out.x[i] = (first ? 0.0 : out.x[i]) + w * b.x[i];
    out.y[i] = (first ? 0.0 : out.y[i]) + w * b.y[i];
    out.z[i] = (first ? 0.0 : out.z[i]) + w * b.z[i];
  });
}

// The compliant gears' rotors (gear_train.h) are coordinates like the
// particles' and take the same kicks and drifts: v += h_kick a, then
// x += h_drift v. Rigid gears' entries have a = 0 and are never read.
void kickDriftRotors(State& s, double h_kick, const std::vector<double>& a, double h_drift) {
  for (std::size_t h = 0; h < a.size(); ++h) {
    s.rotor_velocity[h] += h_kick * a[h];
    s.rotor_angle[h] += h_drift * s.rotor_velocity[h];
  }
}

// The state the forces carry from step to step moves on at the point `x`
// (the step's end; velocity Verlet's half step): friction anchors, stick
// and slip, the tracked angles, windings and bands.
void moveCarriedState(const Model& model, State& s, const PhasePoint& x, bool x_is_final, Workspace& ws, double dt) {
  detail::updateContactAnchors(model, s, x);
  detail::updateHingeFriction(model, s, x, ws, x_is_final);
  detail::updateWindings(model, s, dt);
  detail::updateBandCreep(model, s, x, dt);
  detail::updateBandCapstan(model, s, x, ws);
}

// The end of a step of every integrator but velocity Verlet: the carried
// state moves on there, and velocity Verlet's acceleration cache no longer applies.
void finishStep(const Model& model, State& s, Workspace& ws, double dt) {
  moveCarriedState(model, s, detail::phasePoint(s.position, s.velocity), true, ws, dt);
  s.acceleration_cache.filled = false;
}

void stepSemiImplicitEuler(const Model& model, State& s, Workspace& ws, double dt) {
  const int n = model.num_particles;
  computeAcceleration(model, s, detail::phasePoint(s.position, s.velocity), ws, ws.solver->stage_acceleration);
  // The drift uses the new velocity: symplectic.
  kickDrift(n, dt, ws.solver->stage_acceleration, dt, s.velocity, s.position, ws.num_threads);
  kickDriftRotors(s, dt, ws.rotor_acceleration, dt);
  finishStep(model, s, ws, dt);
}

void stepVelocityVerlet(const Model& model, State& s, Workspace& ws, double dt) {
  const int n = model.num_particles;
  // The last step's closing evaluation serves as this step's opening one
  // unless the caller changed anything the forces read (state.cpp).
  Vec3Array& acceleration = s.acceleration_cache.acceleration;
  std::vector<double>& rotor_acceleration = s.acceleration_cache.rotor_acceleration;
  if (cachedAcceleration(s) == nullptr) {
    computeAcceleration(model, s, detail::phasePoint(s.position, s.velocity), ws, acceleration);
    rotor_acceleration = ws.rotor_acceleration;  // same size: no allocation
  }
  // The copies of the inputs change from here: the cache is void until the step's end.
  s.acceleration_cache.filled = false;
  detail::AccelerationCache& kept = s.acceleration_cache;
  // To the half step; the positions are final.
  kickDrift<true>(n, 0.5 * dt, acceleration, dt, s.velocity, s.position, ws.num_threads, &kept.position);
  kickDriftRotors(s, 0.5 * dt, rotor_acceleration, dt);
  // Anchors move before the closing evaluation so the cached acceleration
  // matches the anchors the next step starts from.
  const PhasePoint half = detail::phasePoint(s.position, s.velocity);
  // The hinges' readings there are at the half-step velocity: never the final state's.
  moveCarriedState(model, s, half, false, ws, dt);
  ws.solver->hinge_geometry_current = true;  // the friction update just evaluated the hinges at `half`
  computeAcceleration(model, s, half, ws, acceleration);  // damping sees the half-step velocity
  axpy<true>(n, 0.5 * dt, acceleration, s.velocity, ws.num_threads, &kept.velocity);  // closing kick
  rotor_acceleration = ws.rotor_acceleration;
  kickDriftRotors(s, 0.5 * dt, rotor_acceleration, 0.0);
  detail::keepAccelerationInputsButMotion(s);
}

// Drift-kick-drift: half a drift to the midpoint, one force evaluation
// there, a full kick, half a drift with the new velocity. Second order and
// symplectic like velocity Verlet, but with exactly one evaluation per
// step whatever changed between steps: a servo that sets new torques every
// step (1 kHz at dt = 1 ms) makes velocity Verlet evaluate twice, since its
// opening kick needs the forces at the step's start under the new torques.
// A torque held over the step is integrated by the midpoint rule.
// Velocity-dependent forces (damping, contact, the hinges' stabilisation
// and spin terms) see the step's starting velocity: first order in them,
// as velocity Verlet's closing evaluation at the half-step velocity is.
void stepPositionVerlet(const Model& model, State& s, Workspace& ws, double dt) {
  const int n = model.num_particles;
  detail::SolverWorkspace& sw = *ws.solver;
  offset(n, s.position, 0.5 * dt, s.velocity, sw.stage_position, ws.num_threads);
  for (std::size_t h = 0; h < s.rotor_angle.size(); ++h) {
    sw.stage_rotor_angle[h] = s.rotor_angle[h] + 0.5 * dt * s.rotor_velocity[h];
  }
  computeAcceleration(model, s, detail::phasePoint(sw.stage_position, s.velocity, sw.stage_rotor_angle, s.rotor_velocity),
                      ws, sw.stage_acceleration);
  // The kick, then the second half drift from the midpoint with the new velocity.
  axpy(n, dt, sw.stage_acceleration, s.velocity, ws.num_threads);
  offset(n, sw.stage_position, 0.5 * dt, s.velocity, s.position, ws.num_threads);
  for (std::size_t h = 0; h < s.rotor_angle.size(); ++h) {
    s.rotor_velocity[h] += dt * ws.rotor_acceleration[h];
    s.rotor_angle[h] = sw.stage_rotor_angle[h] + 0.5 * dt * s.rotor_velocity[h];
  }
  finishStep(model, s, ws, dt);
}

void stepRk4(const Model& model, State& s, Workspace& ws, double dt) {
  const int n = model.num_particles;
  const int t = ws.num_threads;
  Vec3Array& acc = ws.solver->stage_acceleration;
  // The rotors (gear_train.h) take the same stages.
  detail::SolverWorkspace& sw = *ws.solver;
  const std::size_t nh = s.rotor_angle.size();
  // Stage 1 at the start point.
  computeAcceleration(model, s, detail::phasePoint(s.position, s.velocity), ws, acc);
  accumulate(n, ws.solver->sum_dx, 1.0, s.velocity, true, t);
  accumulate(n, ws.solver->sum_dv, 1.0, acc, true, t);
  offset(n, s.position, 0.5 * dt, s.velocity, ws.solver->stage_position, t);
  offset(n, s.velocity, 0.5 * dt, acc, ws.solver->stage_velocity, t);
  for (std::size_t h = 0; h < nh; ++h) {
    sw.sum_rotor_angle[h] = s.rotor_velocity[h];
    sw.sum_rotor_velocity[h] = ws.rotor_acceleration[h];
    sw.stage_rotor_angle[h] = s.rotor_angle[h] + 0.5 * dt * s.rotor_velocity[h];
    sw.stage_rotor_velocity[h] = s.rotor_velocity[h] + 0.5 * dt * ws.rotor_acceleration[h];
  }
  // Stages 2 and 3 at the midpoint, stage 4 at the end.
  for (int stage = 2; stage <= 4; ++stage) {
    computeAcceleration(model, s,
                        detail::phasePoint(sw.stage_position, sw.stage_velocity, sw.stage_rotor_angle,
                                           sw.stage_rotor_velocity),
                        ws, acc);
    const double w = stage == 4 ? 1.0 : 2.0;
    accumulate(n, ws.solver->sum_dx, w, ws.solver->stage_velocity, false, t);
    accumulate(n, ws.solver->sum_dv, w, acc, false, t);
    for (std::size_t h = 0; h < nh; ++h) {
      sw.sum_rotor_angle[h] += w * sw.stage_rotor_velocity[h];
      sw.sum_rotor_velocity[h] += w * ws.rotor_acceleration[h];
    }
    if (stage < 4) {
      const double h = stage == 2 ? 0.5 * dt : dt;
      offset(n, s.position, h, ws.solver->stage_velocity, ws.solver->stage_position, t);  // before stage_velocity changes
      offset(n, s.velocity, h, acc, ws.solver->stage_velocity, t);
      for (std::size_t j = 0; j < nh; ++j) {
        sw.stage_rotor_angle[j] = s.rotor_angle[j] + h * sw.stage_rotor_velocity[j];
        sw.stage_rotor_velocity[j] = s.rotor_velocity[j] + h * ws.rotor_acceleration[j];
      }
    }
  }
  axpy(n, dt / 6.0, ws.solver->sum_dx, s.position, t);
  axpy(n, dt / 6.0, ws.solver->sum_dv, s.velocity, t);
  for (std::size_t h = 0; h < nh; ++h) {
    s.rotor_angle[h] += dt / 6.0 * sw.sum_rotor_angle[h];
    s.rotor_velocity[h] += dt / 6.0 * sw.sum_rotor_velocity[h];
  }
  finishStep(model, s, ws, dt);
}

}  // namespace

void step(const Model& model, State& state, Workspace& ws, Integrator integrator, double dt) {
  ws.solver->hinge_geometry_current = false;  // the caller may have moved the particles since
  ws.solver->step_dt = dt;  // the compliant gears' implicit springs (gear_train.h)
  switch (integrator) {
    case Integrator::kSemiImplicitEuler: stepSemiImplicitEuler(model, state, ws, dt); break;
    case Integrator::kVelocityVerlet: stepVelocityVerlet(model, state, ws, dt); break;
    case Integrator::kRk4: stepRk4(model, state, ws, dt); break;
    case Integrator::kPositionVerlet: stepPositionVerlet(model, state, ws, dt); break;
  }
  state.time += dt;
}

}  // namespace suitsim
