#include "forces.h"

#include <omp.h>

#include "bands.h"
#include "straps.h"
#include "solver_workspace.h"

namespace suitsim {

namespace {
// Below this many force terms a parallel region costs more than it saves
// (measured: two threads gain nothing on a 1e4-spring cloth, whose colours
// mean one barrier each per evaluation).
constexpr int kParallelWork = 20000;
}  // namespace

Workspace::Workspace(const Model& model, int threads)
    : num_threads(threads < 1 ? 1 : threads), solver(std::make_unique<detail::SolverWorkspace>()) {
  const std::size_t np = model.num_particles;
  force.assign(np, 0.0);
  solver->stage_position.assign(np, 0.0);
  solver->stage_velocity.assign(np, 0.0);
  solver->stage_acceleration.assign(np, 0.0);
  hinge_motor_torque.assign(model.num_hinges, 0.0);
  hinge_friction_torque.assign(model.num_hinges, 0.0);
  hinge_drive_torque.assign(model.num_hinges, 0.0);
  rotor_acceleration.assign(model.num_hinges, 0.0);
  solver->stage_rotor_angle.assign(model.num_hinges, 0.0);
  solver->stage_rotor_velocity.assign(model.num_hinges, 0.0);
  solver->sum_rotor_angle.assign(model.num_hinges, 0.0);
  solver->sum_rotor_velocity.assign(model.num_hinges, 0.0);
  solver->hinge_slipped.assign(model.num_hinges, 0);
  detail::initHingeWorkspace(model, *this);
  band_length.assign(model.num_bands, 0.0);
  band_tension.assign(model.num_bands, 0.0);
  band_segment_tension.assign(static_cast<std::size_t>(model.numVia() - model.num_bands), 0.0);
  solver->band_segment_length.assign(static_cast<std::size_t>(model.numVia() - model.num_bands), 0.0);
  solver->via_capstan_ratio.assign(static_cast<std::size_t>(model.numVia()), 1.0);
  strap_force.assign(model.num_straps, 0.0);
  solver->sum_dx.assign(np, 0.0);
  solver->sum_dv.assign(np, 0.0);
  solver->spring_force.assign(4 * static_cast<std::size_t>(model.num_springs), 0.0);
}

Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

void computeAcceleration(const Model& model, const State& state, const PhasePoint& x, Workspace& ws,
                         Vec3Array& acc) {
  const int np = model.num_particles;
  const bool parallel = ws.num_threads > 1 && (np + model.num_springs) >= kParallelWork;
  double* fx = ws.force.x.data();
  double* fy = ws.force.y.data();
  double* fz = ws.force.z.data();
  const double* m = model.particle_mass.data();
  const double* inv_m = model.particle_inv_mass.data();
  const Vec3 g = model.gravity;
  auto accumulate = [&] {
    // Start from the forces that need no neighbour: constant, caller-applied, gravity.
#pragma omp for simd schedule(static)
    for (int i = 0; i < np; ++i) {
      fx[i] = model.particle_force_x[i] + state.applied_force.x[i] + m[i] * g[0];
      fy[i] = model.particle_force_y[i] + state.applied_force.y[i] + m[i] * g[1];
      fz[i] = model.particle_force_z[i] + state.applied_force.z[i] + m[i] * g[2];
    }
    detail::addContactForces(model, state, x, ws.force);
    detail::addBandForces(model, state, x, ws);  // A(21)-(25): suit bands, before the hinges see the forces
    detail::addStrapForces(model, x, ws);  // a worn device's straps, likewise
    // Hinged bodies take what acts on them so far as rigid bodies; the
    // springs come after, so that a link spring acts on its tetrahedron's
    // strain and is not averaged away with the rest.
    detail::spreadBodyForcesRigidly(model, x, ws);
    detail::addSpringForces(model, x, ws.solver->spring_force.data(), ws.force);
    detail::applyHinges(model, state, x, ws);  // needs every other force in place
    // Newton: a = F / m; fixed particles have inverse mass 0 and stay put.
#pragma omp for simd schedule(static)
    for (int i = 0; i < np; ++i) {
      acc.x[i] = fx[i] * inv_m[i];
      acc.y[i] = fy[i] * inv_m[i];
      acc.z[i] = fz[i] * inv_m[i];
    }
  };
  // Small models run on one thread: a fork and join cost more than the
  // work. Outside any parallel region they run without one: the worksharing
  // constructs then bind to the initial thread alone and cost nothing,
  // whereas even an inactive region's team of one pays for every implicit
  // barrier (libgomp wakes waiters with a futex system call at each: about
  // nine per evaluation, some 5 % of a humanoid step). Inside a caller's
  // region the inactive region is still opened, so the worksharing loops
  // bind to it, never to the caller's team (a caller running several
  // simulations at once, one per thread, would otherwise have each
  // simulation's loops shared out across its team).
  if (!parallel && omp_get_level() == 0) {
    accumulate();
    return;
  }
#pragma omp parallel if (parallel) num_threads(parallel ? ws.num_threads : 1)
  accumulate();
}

}  // namespace suitsim
