// Force kernels shared by the integrators (engine-internal).
//
// The add*Forces functions contain orphaned `omp for` loops: called inside a
// parallel region they split their work across the team, called outside one
// they run serially. Each loop writes a particle's force from exactly one
// iteration per pass, in an order fixed by the Model, never by the schedule.
#pragma once

#include <cmath>

#include "suitsim/model.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::detail {

/// T(6)-(10): each spring pulls its two particles together (or apart) along
/// their separation with k (l - l0), plus damping c on the relative velocity
/// along that line: an internal pair, so it moves no momentum.
/// `spring_force` is scratch of 4 num_springs doubles.
void addSpringForces(const Model& model, const PhasePoint& x, double* spring_force, Vec3Array& force);

/// addSpringForces with a given one of the kernels (springs_kernel.h), for
/// tests: `isa` 4 (AVX-512), 3 (AVX2) or 0 (scalar). The portable build holds
/// all three, a native one only the one its target allows. Returns false,
/// and does nothing, when this build lacks that kernel or the CPU cannot run it.
bool addSpringForcesWithIsa(int isa, const Model& model, const PhasePoint& x, double* spring_force,
                            Vec3Array& force);

/// The ground's force on contact c at phase point x.
Vec3 contactForce(const Model& model, const State& state, const PhasePoint& x, int c);

/// Ground contact: normal penalty spring-damper and anchor friction.
void addContactForces(const Model& model, const State& state, const PhasePoint& x, Vec3Array& force);

/// Moves friction anchors to match the phase point `x` (end of a step):
/// new contacts anchor where they touch, a contact whose anchor force
/// exceeds the static cone starts sliding, a sliding contact drags its anchor
/// and re-sticks once slow. Lifted contacts release their anchor.
void updateContactAnchors(const Model& model, State& state, const PhasePoint& x);

/// Sizes the Workspace's hinge solver buffers and fills what depends on the
/// Model only (block structure, body masses).
void initHingeWorkspace(const Model& model, Workspace& ws);

/// Every force so far on a hinged body (its particles and points) acts on
/// it as on a rigid body, with the centripetal accelerations of its spin;
/// also computes the bodies' mass data the hinge solve uses. Runs after the
/// contact and band forces and before the springs and hinges.
void spreadBodyForcesRigidly(const Model& model, const PhasePoint& x, Workspace& ws);

/// Hinge torques (motor, friction, limits) as internal pairs and the
/// rotation-plane constraint forces; must run after every other force.
void applyHinges(const Model& model, const State& state, const PhasePoint& x, Workspace& ws);

/// End of step: a stuck hinge whose friction gave way slips; a slipping one
/// that slowed down or reversed sticks where it is. Leaves every hinge's
/// geometry at x in ws.solver->hinge_geometry; an integrator whose next force
/// evaluation is at the same x sets ws.solver->hinge_geometry_current to reuse it.
/// When x is the step's final state (`x_is_final`), the hinges' readings
/// are kept for readHinge; else (velocity Verlet's half step, whose closing
/// kick moves the velocity on) they are marked stale and nothing is copied.
void updateHingeFriction(const Model& model, State& state, const PhasePoint& x, Workspace& ws, bool x_is_final);

/// Marks state.acceleration_cache.acceleration as the acceleration at the
/// state as it is now, copying what it was computed from (state.cpp).
void keepAccelerationInputs(State& state);
/// The same for every input but the particles' positions and velocities,
/// whose copies the caller has written (velocity Verlet, in its passes).
void keepAccelerationInputsButMotion(State& state);

/// The angle a hinge's geometry gives, in (-pi, pi], moved by the multiple
/// of 2 pi that brings it nearest to `reference` (the tracked angle of the
/// last step: a joint turns far less than pi in one step). When the two are
/// within pi of each other the wrapped value comes back unchanged, bit for
/// bit.
inline double unwrapAngle(double wrapped, double reference) {
  constexpr double kTurn = 2.0 * 3.14159265358979323846;
  const double turns = std::nearbyint((reference - wrapped) / kTurn);
  return turns == 0.0 ? wrapped : wrapped + kTurn * turns;
}

/// Joint angle at x (rad), unwrapped against `reference` (unwrapAngle),
/// and its rate, from one evaluation of the hinge geometry.
void hingeAngleAndVelocity(const Model& model, const PhasePoint& x, int h, double reference, double* angle,
                           double* velocity);
/// Hinge h's angle (unwrapped against state.hinge_angle[h]) and rate at
/// the state's own position and velocity: hingeAngleAndVelocity's values,
/// bit for bit, from State::hinge_reading while it applies to the hinge.
void readHinge(const Model& model, const State& state, int h, double* angle, double* velocity);
/// Records the particles the hinge readings just taken at x came from
/// (the end of updateHingeFriction).
void keepHingeReading(const Model& model, const PhasePoint& x, State& state);

double springPotentialEnergy(const Model& model, const State& state);
double contactPotentialEnergy(const Model& model, const State& state);

/// Position and velocity at x of the point with affine weights w on the four
/// particles from `first` (a band's via point, a strap's end).
inline void affinePoint(const PhasePoint& x, int first, const std::array<double, 4>& w, double p[3], double v[3]) {
  p[0] = p[1] = p[2] = v[0] = v[1] = v[2] = 0.0;
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    p[0] += w[k] * x.px[i];
    p[1] += w[k] * x.py[i];
    p[2] += w[k] * x.pz[i];
    v[0] += w[k] * x.vx[i];
    v[1] += w[k] * x.vy[i];
    v[2] += w[k] * x.vz[i];
  }
}

/// A force f at that point: w_k f on each particle (the same force and moment).
inline void addAtAffinePoint(int first, const std::array<double, 4>& w, const double f[3], Vec3Array& force) {
  for (int k = 0; k < 4; ++k) {
    force.x[first + k] += w[k] * f[0];
    force.y[first + k] += w[k] * f[1];
    force.z[first + k] += w[k] * f[2];
  }
}

inline PhasePoint phasePoint(const Vec3Array& p, const Vec3Array& v) {
  return {p.x.data(), p.y.data(), p.z.data(), v.x.data(), v.y.data(), v.z.data()};
}

/// With the rotors at a stage of their own (RK4).
inline PhasePoint phasePoint(const Vec3Array& p, const Vec3Array& v, const std::vector<double>& rotor_angle,
                             const std::vector<double>& rotor_velocity) {
  return {p.x.data(), p.y.data(), p.z.data(), v.x.data(), v.y.data(), v.z.data(), rotor_angle.data(),
          rotor_velocity.data()};
}

}  // namespace suitsim::detail
