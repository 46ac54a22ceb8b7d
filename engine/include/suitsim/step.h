// Advancing a State in time, and the quantities derived from it.
//
// Design note. One step is: evaluate forces at a phase-space point (springs,
// gravity, ground contact, constant and caller-applied forces), turn them into
// accelerations, and combine evaluations as the chosen integrator says.
//
//   semi-implicit Euler  1 force evaluation, first order, symplectic
//   velocity Verlet      1 evaluation (the end-of-step acceleration is cached
//                        in the State), second order, symplectic; damping
//                        forces use the half-step velocity
//   RK4                  4 evaluations, fourth order, not symplectic
//
// Threads: the force loops run in one OpenMP team of ws.num_threads threads.
// Springs are scattered colour by colour (Model stores them sorted by colour),
// every other loop writes only its own particle, and there are no parallel
// reductions, so the result is bit-identical for every thread count.
//
// Memory: Workspace owns every buffer a step needs; step() allocates nothing.
// The solver's scratch is private to the engine, as MuJoCo keeps it in
// mjData's arena: callers see forces and results only.
#pragma once

#include <memory>

#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim {

namespace detail {
struct SolverWorkspace;
}  // namespace detail

/// Every buffer a step needs, sized once from a Model, plus the thread
/// count: the force accumulator and the latest evaluation's per-hinge and
/// per-band results in the open, the solver's scratch behind a pointer.
struct Workspace {
  explicit Workspace(const Model& model, int num_threads = 1);

  int num_threads = 1;  ///< OpenMP threads used by step(); results do not depend on it
  Vec3Array force;      ///< force accumulator (N), (num_particles)
  // Per-hinge results of the latest force evaluation (for recording the
  // truth, and for the end-of-step stick/slip update).
  std::vector<double> hinge_motor_torque;     ///< k_T u + tau_o (N m), (num_hinges)
  std::vector<double> hinge_friction_torque;  ///< friction acting on the joint (N m), (num_hinges)
  /// The torque the drive passes to the link, what a link-side joint torque
  /// sensor between the gear's output and the link reads (N m), (num_hinges):
  /// the motor's torque through the gear (a compliant gear's spring torque
  /// instead), plus the joint's friction (hinge_friction_torque, the gear's
  /// loss included), plus the rigid rotor's reaction -I_a theta''. The joint
  /// limits and a <mimic> coupling act between the links, not through it.
  std::vector<double> hinge_drive_torque;
  /// A compliant gear's rotor acceleration phi'' (rad/s^2; gear_train.h), 0 for a rigid gear, (num_hinges).
  std::vector<double> rotor_acceleration;
  // Per-band results of the latest force evaluation (bands.cpp), for recording.
  std::vector<double> band_length;   ///< l (m), (num_bands)
  /// f >= 0 (N), 0 when slack, (num_bands); with capstan friction the
  /// segments' tensions averaged along the band (weighted by length).
  std::vector<double> band_tension;
  /// Each band segment's tension T_j >= 0 (N): the band's f everywhere
  /// without capstan friction; segment v - b of band b runs from via point
  /// v to v + 1 (State::band_material), (num_via - num_bands).
  std::vector<double> band_segment_tension;
  /// Per-strap force of the latest evaluation on the strap's worn-on end (N),
  /// world axes (straps.cpp), (num_straps).
  Vec3Array strap_force;

  /// The solver's scratch (integrator stages, the hinge system and its
  /// cached geometry), private to the engine (engine/src/solver_workspace.h):
  /// callers size nothing and clear nothing.
  std::unique_ptr<detail::SolverWorkspace> solver;

  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
};

/// Read-only view of a phase-space point: positions and velocities, and
/// the compliant gears' rotors (State::rotor_angle, rotor_velocity; null:
/// the State's own, as at a step's start).
struct PhasePoint {
  const double* px;
  const double* py;
  const double* pz;
  const double* vx;
  const double* vy;
  const double* vz;
  const double* rotor_angle = nullptr;
  const double* rotor_velocity = nullptr;
};

/// Accelerations (m/s^2) at the phase point `x` with the anchors and applied
/// forces of `state`. Writes ws.force (total force) and `acc`. Fixed particles
/// get zero acceleration.
void computeAcceleration(const Model& model, const State& state, const PhasePoint& x,
                         Workspace& ws, Vec3Array& acc);

/// Advances `state` by dt seconds with `integrator`. Allocates nothing.
void step(const Model& model, State& state, Workspace& ws, Integrator integrator, double dt);

/// Mechanical energy of the state (J): kinetic, gravity, spring, ground
/// penalty and friction-anchor potentials. Damping and sliding dissipate it.
struct Energy {
  double kinetic = 0.0;
  double gravity = 0.0;
  double spring = 0.0;
  double contact = 0.0;
  double total() const { return kinetic + gravity + spring + contact; }
};
Energy computeEnergy(const Model& model, const State& state);

/// Total linear momentum (kg m/s) and angular momentum about the origin (kg m^2/s).
void computeMomentum(const Model& model, const State& state, Vec3* linear, Vec3* angular);

/// Upper bound (Gershgorin) on the highest natural frequency of the model's
/// springs and ground contact (rad/s); a hinged body's contacts are taken on
/// its rigid-body mass and inertia, as it moves. Explicit integrators are
/// stable for omega * dt below about 2 (symplectic Euler, Verlet) or 2.8 (RK4).
double maxNaturalFrequency(const Model& model);

/// Force the ground exerts on contact `c` (N) in the state (its anchors as
/// they stand), and the sum over all contacts.
Vec3 groundForce(const Model& model, const State& state, int contact);
Vec3 totalGroundForce(const Model& model, const State& state);

/// True when every position and velocity is finite.
bool stateIsFinite(const State& state);

}  // namespace suitsim
