// The compiled, immutable description of what the engine simulates.
//
// A Model is built once (by ModelBuilder, which the scene reader drives) and
// never written by step(). Everything is structure-of-arrays: one contiguous
// array per quantity, indexed by entity. Units are SI throughout.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "suitsim/core/vec3.h"

namespace suitsim {

/// Time integrators selectable per scene (see step.h for their properties).
enum class Integrator : std::uint8_t {
  kSemiImplicitEuler,  ///< symplectic Euler: v += a dt, then x += v dt
  kVelocityVerlet,     ///< kick-drift-kick leapfrog, second order, symplectic
  kRk4,                ///< classical fourth-order Runge-Kutta, four force evaluations
  kPositionVerlet,     ///< drift-kick-drift leapfrog, second order, symplectic, one force evaluation a step
};

/// How a hinged body's four particles take the forces on it (docs/engine.md,
/// "The two link models").
enum class LinkModel : std::uint8_t {
  kRigid,    ///< as a rigid body (Euler's equations); link springs only take out drift
  kSprings,  ///< Toda and Sankai's: by the points' weights, held by stiff link springs, T(1)-(10)
};

/// How the spring kernel rounds T(6)-(10) (engine/src/springs_kernel.h,
/// docs/engine.md "Spring arithmetic"). Results differ between the two in
/// the last bits (and so, over a chaotic run, beyond); within one they are
/// the same on every CPU and for any thread count.
enum class SpringArithmetic : std::uint8_t {
  kSeparate,  ///< every multiply and add rounded on its own: the reference, on any CPU
  kFused,     ///< fused multiply-adds in a fixed order: faster on CPUs with FMA
};

/// Parses "separate" or "fused"; false when the name is unknown.
bool parseSpringArithmetic(const std::string& name, SpringArithmetic* out);
/// The scene name of an arithmetic ("separate", "fused").
const char* springArithmeticName(SpringArithmetic arithmetic);

/// Parses "euler" / "semi_implicit_euler", "verlet" / "velocity_verlet", "rk4",
/// "position_verlet".
/// Returns false when the name is unknown.
bool parseIntegrator(const std::string& name, Integrator* out);
/// The canonical scene name of an integrator ("semi_implicit_euler", ...).
const char* integratorName(Integrator integrator);

/// A ground plane {p : normal . p = offset} with penalty contact.
///
/// Normal contact is a one-sided spring-damper on penetration depth. Friction
/// is an elasto-plastic (anchor, or "bristle") model: a tangential
/// spring-damper pulls each contact particle toward an anchor point. The
/// contact sticks while the anchor spring's force stays within mu_static * N;
/// beyond it the particle slides with force mu_kinetic * N and the anchor is
/// dragged along, until the slip speed falls below stick_speed. This gives
/// true sticking (no creep) with a finite, regularising tangential stiffness.
/// Damp the anchor near critically (2 sqrt(k_t m)) or a suddenly applied load
/// overshoots and breaks a contact loose early.
struct GroundModel {
  bool enabled = false;
  Vec3 normal{0.0, 0.0, 1.0};   ///< unit outward normal
  Vec3 tangent_u{1.0, 0.0, 0.0};  ///< unit tangent, normal x tangent_u = tangent_v
  Vec3 tangent_v{0.0, 1.0, 0.0};  ///< unit tangent
  double offset = 0.0;            ///< plane offset along normal (m)
  double stiffness = 0.0;         ///< normal penalty stiffness per particle (N/m)
  double damping = 0.0;           ///< normal damping per particle (N s/m), pushes only
  double friction_stiffness = 0.0;  ///< tangential anchor stiffness (N/m)
  double friction_damping = 0.0;    ///< tangential anchor damping (N s/m)
  double mu_static = 0.0;           ///< static friction coefficient
  double mu_kinetic = 0.0;          ///< kinetic friction coefficient, <= mu_static
  double stick_speed = 1e-3;        ///< slip speed below which a sliding contact may re-stick (m/s)
};

namespace detail {
struct KernelLayout;

/// Owns a Model's kernel layout, which only the engine's sources can see.
/// It copies what it owns, so a Model copies as a value.
class KernelLayoutHandle {
 public:
  KernelLayoutHandle();
  KernelLayoutHandle(const KernelLayoutHandle& other);
  KernelLayoutHandle(KernelLayoutHandle&& other) noexcept;
  KernelLayoutHandle& operator=(const KernelLayoutHandle& other);
  KernelLayoutHandle& operator=(KernelLayoutHandle&& other) noexcept;
  ~KernelLayoutHandle();

  KernelLayout* operator->() { return layout_.get(); }
  const KernelLayout* operator->() const { return layout_.get(); }
  KernelLayout& operator*() { return *layout_; }
  const KernelLayout& operator*() const { return *layout_; }

 private:
  std::unique_ptr<KernelLayout> layout_;
};
}  // namespace detail

struct Model {
  // ---- particles -----------------------------------------------------------
  int num_particles = 0;
  std::vector<double> particle_mass;         ///< mass (kg), (num_particles)
  std::vector<double> particle_inv_mass;     ///< 1/mass, 0 for fixed particles (1/kg), (num_particles)
  std::vector<std::uint8_t> particle_fixed;  ///< 1 if held fixed in the world, (num_particles)
  std::vector<std::string> particle_name;    ///< unique name, (num_particles)
  Vec3Array particle_initial_position;       ///< position at t = 0 (m), (num_particles)
  Vec3Array particle_initial_velocity;       ///< velocity at t = 0 (m/s), (num_particles)
  std::vector<double> particle_force_x;      ///< constant external force x (N), (num_particles)
  std::vector<double> particle_force_y;      ///< constant external force y (N), (num_particles)
  std::vector<double> particle_force_z;      ///< constant external force z (N), (num_particles)

  // ---- springs ---------------------------------------------------------------
  // Stored in an order chosen for locality (the builder's layoutSprings);
  // spring_input_index maps back to the order they were added in. A
  // particle sums its spring forces in an order the builder fixes (the
  // kernel's layout, Model::kernel), so the same for any thread count.
  int num_springs = 0;
  std::vector<std::int32_t> spring_a;          ///< first particle, (num_springs)
  std::vector<std::int32_t> spring_b;          ///< second particle, (num_springs)
  std::vector<double> spring_stiffness;        ///< k (N/m), (num_springs)
  std::vector<double> spring_damping;          ///< c along the spring (N s/m), (num_springs)
  std::vector<double> spring_rest_length;      ///< l0 (m), (num_springs)
  std::vector<std::int32_t> spring_input_index;  ///< index in the order the springs were added, (num_springs)
  /// How the kernel rounds the spring law (SpringArithmetic); a run setting,
  /// which the scene's <simulation arithmetic> sets after the build.
  SpringArithmetic spring_arithmetic = SpringArithmetic::kSeparate;

  // ---- contact -----------------------------------------------------------------
  // A contact is a point: a particle (weight 1), or an affine combination
  // of up to four particles of a body (unused slots repeat the first
  // particle with weight 0). The ground force goes back by the weights.
  GroundModel ground;
  std::vector<std::array<std::int32_t, 4>> contact_particle;  ///< (num_contacts)
  std::vector<std::array<double, 4>> contact_weight;          ///< (num_contacts)

  // ---- hinges: rotation-plane joints, T(11)-(19) ----------------------------
  // A hinge joins a parent and a child body, each a tetrahedron of four
  // particles. Its points are fixed affine combinations of a body's four
  // particles (weights summing to 1), so they move with the body (hinge
  // forces reach the particles as a rigid body takes them, hinges.cpp): the
  // joint centre on each side (J_p, J_c), the parent's axis point A (the
  // axis n = (A - J_p)/|A - J_p| is carried by the parent), the parent's arm
  // B and the child's arms C1, C2, both perpendicular to the axis. Constraints keep
  // J_p = J_c (a ball joint) and the child arms in the rotation plane
  // (n . (C - J_c) = 0); the joint angle is the turn from B to C1 about n.
  int num_hinges = 0;
  std::vector<std::string> hinge_name;             ///< joint name, (num_hinges)
  std::vector<std::int32_t> hinge_parent_body;     ///< (num_hinges)
  std::vector<std::int32_t> hinge_child_body;      ///< (num_hinges)
  std::vector<std::array<double, 4>> hinge_centre_parent;  ///< J_p weights on the parent's particles, (num_hinges)
  std::vector<std::array<double, 4>> hinge_centre_child;   ///< J_c weights on the child's particles, (num_hinges)
  std::vector<std::array<double, 4>> hinge_axis_point;     ///< A weights (parent), (num_hinges)
  std::vector<std::array<double, 4>> hinge_parent_arm;     ///< B weights (parent), (num_hinges)
  std::vector<std::array<double, 4>> hinge_child_arm;      ///< C1 weights (child), (num_hinges)
  std::vector<std::array<double, 4>> hinge_child_arm2;     ///< C2 weights (child), (num_hinges)
  std::vector<double> hinge_motor_constant;     ///< k_T (N m/A), (num_hinges)
  std::vector<double> hinge_torque_offset;      ///< tau_o (N m), (num_hinges)
  std::vector<double> hinge_viscous;            ///< k_d (N m s/rad), (num_hinges)
  std::vector<double> hinge_coulomb;            ///< tau_c (N m), (num_hinges)
  std::vector<double> hinge_static_max;         ///< tau_s^max (N m), (num_hinges)
  std::vector<double> hinge_stribeck_velocity;  ///< Stribeck speed (rad/s), 0 = off, (num_hinges)
  std::vector<double> hinge_armature;           ///< reflected rotor inertia (kg m^2), 0 = none, (num_hinges)
  std::vector<double> hinge_gear_efficiency;     ///< motor driving the link, (0, 1], (num_hinges)
  std::vector<double> hinge_backdrive_efficiency;  ///< link driving the motor, (0, 1], (num_hinges)
  std::vector<double> hinge_gear_transition;     ///< speed over which the two blend (rad/s), (num_hinges)
  // The gear trains' compliance (JointActuation::gear_stiffness; gear_compliance.cpp), (num_hinges) each.
  std::vector<double> hinge_gear_stiffness;       ///< torsional stiffness (N m/rad), 0 = rigid
  std::vector<double> hinge_gear_backlash;        ///< dead band's total width (rad)
  std::vector<double> hinge_gear_damping;         ///< (N m s/rad) while the teeth touch
  std::vector<std::uint8_t> hinge_encoder_on_motor;  ///< 1: the encoder reads the rotor
  // The windings' heating (JointActuation::km; motor_heating.cpp), (num_hinges) each.
  std::vector<double> hinge_km;                     ///< motor constant at the joint (N m/sqrt(W)), 0 = no heating
  std::vector<double> hinge_thermal_resistance;     ///< winding to ambient (K/W)
  std::vector<double> hinge_thermal_time_constant;  ///< (s)
  std::vector<double> hinge_magnet_coefficient;     ///< k_T's change per kelvin (1/K)
  std::vector<double> hinge_initial_winding_rise;   ///< (K)
  std::vector<double> hinge_lower;              ///< lower limit (rad), (num_hinges)
  std::vector<double> hinge_upper;              ///< upper limit (rad), (num_hinges)
  /// Angle in the built pose (rad): where State::hinge_angle starts (the
  /// geometric angle, in (-pi, pi], plus the multiple of 2 pi nearest to
  /// this), (num_hinges).
  std::vector<double> hinge_initial_angle;
  double hinge_constraint_frequency = 200.0;  ///< Baumgarte stabilisation of the constraints (rad/s)
  LinkModel hinge_link_model = LinkModel::kRigid;  ///< how hinged bodies take forces (hinges.cpp)
  double hinge_stick_speed = 1e-3;            ///< a slipping hinge slower than this may stick (rad/s)
  double hinge_limit_stiffness = 0.0;         ///< torque per rad beyond a limit (N m/rad); 0 = no limits
  double hinge_limit_damping = 0.0;           ///< (N m s/rad), acts only beyond a limit

  // ---- couplings: URDF <mimic> joints, hinges.cpp ----------------------------
  // A coupling holds a follower hinge's angle at multiplier x the leader's
  // plus offset, e = theta_f - multiplier theta_l - offset = 0, by a
  // multiplier mu solved with the hinge rows: torque mu on the follower's
  // joint and -multiplier mu on the leader's, each an internal pair like a
  // motor torque, T(13)-(19). A follower has no stick row of its own and no
  // leader is a follower (no chains).
  int num_couplings = 0;
  std::vector<std::int32_t> coupling_leader;    ///< leader hinge, (num_couplings)
  std::vector<std::int32_t> coupling_follower;  ///< follower hinge, (num_couplings)
  std::vector<double> coupling_multiplier;      ///< (rad/rad), (num_couplings)
  std::vector<double> coupling_offset;          ///< (rad), (num_couplings)
  /// The coupling whose follower hinge h is, or -1, (num_hinges).
  std::vector<std::int32_t> hinge_follower_coupling;

  // ---- suit bands: elastic wires through via points, A(21)-(25) -------------
  // A band runs through via points p_1..p_n (n >= 2), each an affine
  // combination of one four-particle body's particles (like a hinge point),
  // so the wire's force at a via point reaches the particles by the same
  // weights. Length l = sum |p_j - p_{j-1}| (A(23)); tension
  // f = k (l - l0) + c l' while taut (l > l0), 0 when slack (A(25)); the
  // wire pulls each via point toward its neighbours, an internal force set.
  int num_bands = 0;
  std::vector<std::string> band_name;            ///< unique name, (num_bands)
  std::vector<double> band_stiffness;            ///< k (N/m), (num_bands)
  std::vector<double> band_natural_length;       ///< l0 (m), (num_bands)
  std::vector<double> band_damping;              ///< c on the stretch rate while taut (N s/m), (num_bands)
  // Hysteresis (docs/engine.md#band-hysteresis): a Maxwell arm in parallel,
  // k_m (e - q) with the arm's creep q relaxing toward the stretch e,
  // q' = (e - q) / tau. k_m = 0: a purely elastic band.
  std::vector<double> band_relaxing_stiffness;   ///< k_m (N/m), (num_bands)
  std::vector<double> band_relaxation_time;      ///< tau (s), 0 where k_m = 0, (num_bands)
  // Capstan friction (docs/engine.md#capstan-friction): where the band turns
  // through theta at an interior via point, the tensions on its two sides
  // may differ by up to exp(mu theta) before its material slides across
  // (State::band_material). mu = 0: one tension along the whole band.
  std::vector<double> band_capstan_friction;     ///< mu (-), >= 0, (num_bands)
  std::vector<std::int32_t> band_via_begin;      ///< first via point of each band, (num_bands + 1)
  std::vector<std::int32_t> via_body;            ///< body the via point is fixed on, (num_via)
  std::vector<std::array<double, 4>> via_weight;  ///< weights on that body's four particles, sum 1, (num_via)

  // ---- straps: a worn device held on the robot (exoskeleton.h) ---------------
  // A strap ties a point of one four-particle body (a device's cuff) to a
  // point of another (the link it is worn on) by an isotropic spring-damper
  // of zero rest length: the two points coincide in the built pose. Each
  // point is an affine combination of its body's particles, as a via point,
  // so the pair of forces reaches both bodies with its moment and no
  // Jacobian. Force on point b: f = k (p_a - p_b) + c (v_a - v_b); on a: -f.
  int num_straps = 0;
  std::vector<std::string> strap_name;                ///< unique, (num_straps)
  std::vector<std::int32_t> strap_body_a;             ///< the device's body, (num_straps)
  std::vector<std::array<double, 4>> strap_weight_a;  ///< point on it, weights sum 1, (num_straps)
  std::vector<std::int32_t> strap_body_b;             ///< the worn-on body, (num_straps)
  std::vector<std::array<double, 4>> strap_weight_b;  ///< (num_straps)
  std::vector<double> strap_stiffness;                ///< k (N/m), (num_straps)
  std::vector<double> strap_damping;                  ///< c (N s/m), (num_straps)

  // ---- bodies: particle clusters that stand for rigid links ------------------
  // A body owns a contiguous range of particles (bodies in order of it; a
  // body with hinges owns exactly four, a tetrahedron); particle_body_position gives
  // each owned particle's place in the body frame, so the body's pose can be
  // recovered from the particles (a mass-weighted best fit).
  int num_bodies = 0;
  std::vector<std::string> body_name;               ///< (num_bodies)
  std::vector<std::int32_t> body_particle_begin;    ///< first owned particle, (num_bodies)
  std::vector<std::int32_t> body_particle_end;      ///< one past the last owned particle, (num_bodies)
  Vec3Array particle_body_position;                 ///< owned particle in its body frame (m), (num_particles)
  std::vector<std::int32_t> particle_body;          ///< owning body or -1, (num_particles)

  // ---- world -----------------------------------------------------------------
  Vec3 gravity{0.0, 0.0, -9.81};  ///< gravitational acceleration (m/s^2)

  /// How the kernels lay the above out (the springs' tiles, blocks and
  /// incidence lists, the contact pass's threading, the hinges' elimination
  /// order): made by the builder,
  /// read only by the engine (engine/src/kernel_layout.h). A Model built by
  /// hand, without the builder, has an empty layout and no springs or
  /// hinges for the kernels.
  detail::KernelLayoutHandle kernel;

  int numContacts() const { return static_cast<int>(contact_particle.size()); }
  int numVia() const { return static_cast<int>(via_body.size()); }
  /// Band index by name, or -1.
  int findBand(const std::string& name) const;
  /// Strap index by name, or -1.
  int findStrap(const std::string& name) const;
  /// Sorted position of the spring that was added as number `input_index`.
  int springIndexFromInput(int input_index) const;
  /// Index of the particle with this name, or -1.
  int findParticle(const std::string& name) const;
  double totalMass() const;
};

}  // namespace suitsim
