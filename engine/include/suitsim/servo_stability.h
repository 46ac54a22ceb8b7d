// Will a joint servo's sample-and-hold PD loop stay stable? The check that
// `suitsim info`, `run` and `evaluate` make before anything is simulated,
// and that names the likely culprit when a run diverges.
//
// The springs' bound (omega_max dt, step.h) says nothing about the servo: the
// servo's torque is computed once per period T and held, and with it the
// joint's inertia can diverge in a few milliseconds while omega_max dt is
// tiny. The model here is one joint alone: an inertia I (the least one the
// joint drives, hingeEffectiveInertia), the joint's own viscous friction,
// and the PD torque held over the period, advanced by the engine's own
// integrator formulas. Its period map x_{k+1} = A x_k (x = [theta, T theta'])
// is affine in the gains, so the stability conditions of its characteristic
// polynomial p(z) = z^2 - tr A z + det A (Jury: p(1) > 0, p(-1) > 0,
// |det A| < 1) are straight lines in (kp, kd). Without friction, with
// a = kp T^2 / I and b = kd T / I:
//   velocity Verlet, RK4 (exact for a held torque):   b < 2   and  a < 2 b
//   semi-implicit Euler, servo every step:            b < 2   and  a + 2 b < 4
// p(-1) > 0 and det > -1 fail when an eigenvalue passes through -1: every
// period reverses the joint and grows it (|z| >= 1 from the first period
// past the bound). det < 1 fails when the held proportional torque lags
// enough to pump energy faster than kd takes it out: a slow oscillation.
#pragma once

#include <string>
#include <vector>

#include "suitsim/model.h"
#include "suitsim/servo.h"

namespace suitsim {

/// Joint-space effective inertia of every hinge (kg m^2), (num_hinges):
/// 1 / (M^-1)_hh, M the joint-space inertia of the rigid tree the hinged
/// bodies form (each body's mass, centre of mass and inertia from its
/// particles), at the model's initial positions, with every other hinge
/// and a floating root free (no ground contact). That is the least inertia a
/// torque at the hinge drives. A <mimic> follower moves with its leader (one
/// coordinate for both): its entry is the follower's share of it. Hinges of
/// a body that is fixed in the world count as the tree's root.
std::vector<double> hingeEffectiveInertia(const Model& model);

/// A compliant gear's mode (gear_train.h): the rotor and the link on the
/// gear's spring. The spring is implicit over a step, so the mode bounds no
/// step; omega dt says how much of it a step resolves (the scheme damps it
/// by a ratio of about omega dt / 2 while that is small), and `bound` is
/// what an explicit spring would need (2 undamped, less with the damper).
struct GearMode {
  int hinge = -1;
  double rotor_inertia = 0.0;  ///< I_a (kg m^2)
  double link_inertia = 0.0;   ///< the least inertia on the link's side, hingeEffectiveInertia (kg m^2)
  double omega = 0.0;          ///< sqrt(k (1 / I_a + 1 / I_link)) (rad/s)
  double damping_ratio = 0.0;  ///< zeta = b / (2 sqrt(k I_red)), I_red = 1 / (1 / I_a + 1 / I_link)
  double bound = 2.0;          ///< largest omega dt: 2 (sqrt(1 + zeta^2) - zeta)
};

/// Every compliant gear's mode, in hinge order (empty when all gears are rigid).
std::vector<GearMode> gearModes(const Model& model);

/// A hinged body's fastest mode on its own link springs, with the link
/// model of Toda and Sankai (LinkModel::kSprings), T(1)-(10): the springs
/// are explicit, and hold the body, so a run needs omega dt below `bound`.
struct LinkMode {
  int body = -1;
  double omega = 0.0;          ///< the body's particles on its springs, the mode nearest its bound (rad/s)
  double damping_ratio = 0.0;  ///< that mode's, from the springs' dampers
  double bound = 2.0;          ///< largest omega dt: 2 (sqrt(1 + zeta^2) - zeta)
};

/// Every hinged body's LinkMode, in body order (empty with rigid links,
/// whose springs only take out drift and do not limit the step).
std::vector<LinkMode> linkModes(const Model& model);

/// An element whose explicit integration bounds the step: its fastest mode
/// (omega, with the damping ratio of its dampers there) and the largest
/// omega dt an explicit step keeps it stable at, 2 (sqrt(1 + zeta^2) - zeta)
/// as for the gears. A damper past critical bounds the step by itself:
/// zeta >> 1 makes the bound about 1 / zeta, i.e. c dt / m < 2 or so.
struct StepLimit {
  enum class Kind {
    kSpring,       ///< the springs at the particle whose row is fastest; `index` the stiffest of them (input order)
    kGround,       ///< the ground's penalty contact on the body or point it is fastest on; `index` the body or -1
    kConstraints,  ///< the hinges' Baumgarte stabilisation, e'' = -2 w e' - w^2 e (omega = w, zeta = 1)
    kJointLimit,   ///< the limit spring-damper on the joint `index`, on its least inertia
    kLinkSprings,  ///< body `index` on its link springs (LinkMode)
  };
  Kind kind = Kind::kSpring;
  int index = -1;
  double omega = 0.0;          ///< (rad/s)
  double damping_ratio = 0.0;  ///< zeta
  double bound = 2.0;          ///< largest omega dt
  /// The share of `fraction` that is certain: 1 where omega is exact or a
  /// lower bound; less where it is an upper bound (the ground on a hinged
  /// body alone: the rest of the robot adds inertia), then the lower
  /// bound's share of it.
  double certain_share = 1.0;
  /// How far along its bound a step dt takes it: >= 1 diverges, if
  /// omega is exact.
  double fraction(double dt) const { return omega * dt / bound; }
  /// The part of that which is certain: >= 1 diverges for sure.
  double certainFraction(double dt) const { return certain_share * fraction(dt); }
  /// The damper rather than the spring sets the bound (zeta > 1).
  bool dampingDominates() const { return damping_ratio > 1.0; }
};

/// Every element that bounds the step, one entry per kind and element
/// (springs and ground: the fastest only), for the pre-run check and to
/// name the culprit of a divergence. Straps and bands are left out.
std::vector<StepLimit> stepLimits(const Model& model);

/// 2 (sqrt(1 + zeta^2) - zeta): the largest omega dt of a damped
/// oscillator stepped explicitly (symplectic Euler's Jury condition,
/// p(-1) > 0: (omega dt)^2 + 4 zeta omega dt < 4).
double explicitStepBound(double damping_ratio);

/// The servo and the joints' viscous friction on the whole rigid tree. The
/// per-joint check (ServoLoop below) takes each joint alone on its least
/// inertia; joints that share a light link couple, and their coupled modes
/// can grow where each joint alone would not (JVRC-1 standing under
/// position Verlet at 1 ms without its rotors: each wrist and elbow loop
/// alone within its bounds, the robot diverging in 0.09 s without joint
/// friction and chattering with it). This check linearises the tree about
/// its initial pose: M q'' = tau_servo - B q', M the joint-space inertia of
/// hingeEffectiveInertia (a floating root free, rotors included), B the
/// joints' viscous friction (taken every step at the velocity the
/// integrator has, as the engine does), tau_servo = -Kp q - Kd q' sampled
/// once a period and held. Its period map, stepped with the integrator's
/// own formulas, has the spectral radius `growth`; the modes of the free
/// root and of joints without servo or friction stay at 1 (neutral).
/// Contact, springs and gravity are left out; a compliant gear's servo
/// drives its rotor, not the link, and is left out too.
struct JointSpaceCheck {
  double period = 0.0;        ///< T, the servo period in whole steps (s); dt without a servo
  int steps_per_period = 1;
  double growth = 1.0;        ///< per period; > 1 (beyond round-off) grows
  bool reverses = false;      ///< that mode's eigenvalue is real and negative: it flips sign every period
  std::vector<int> hinges;    ///< the joints the growing mode moves, largest share first, down to a tenth
  std::vector<double> share;  ///< each one's share of the mode's kinetic energy
  bool grows() const { return growth > 1.0 + 1e-6; }
};

/// The check at `dt` with `integrator`, for a servo with `gains` (one per
/// hinge) at rate_hz, or friction alone when `gains` is empty. Throws
/// std::invalid_argument when the gains do not match the hinges or rate_hz
/// (with gains) or dt is not positive.
JointSpaceCheck checkJointSpace(const Model& model, const std::vector<ServoGains>& gains, double rate_hz, double dt,
                                Integrator integrator);

/// One sentence on a growing mode, for messages: its joints, the growth
/// per period and what to change.
std::string describeJointSpaceCheck(const Model& model, const JointSpaceCheck& check);

/// One joint under the servo, reduced to one degree of freedom.
struct ServoLoop {
  double inertia = 0.0;     ///< I (kg m^2)
  double kp = 0.0;          ///< (N m/rad)
  double kd = 0.0;          ///< (N m s/rad)
  double viscous = 0.0;     ///< the joint's viscous friction, applied every step (N m s/rad)
  double dt = 0.0;          ///< integrator step (s)
  int steps_per_period = 1; ///< steps the torque is held (servo period T = steps_per_period dt)
  Integrator integrator = Integrator::kVelocityVerlet;
};

/// Stability of a ServoLoop, in the dimensionless gains a = kp T^2 / I and
/// b = kd T / I.
struct ServoLoopStability {
  double kd_ratio = 0.0;  ///< b = kd T / I
  /// The largest b with no eigenvalue at or beyond -1 at this kp (the
  /// reversal bound); +inf when kd has none. Negative when kp alone breaks it.
  double kd_bound = 0.0;
  double kp_ratio = 0.0;  ///< a = kp T^2 / I
  /// The largest a that keeps both bounds at this kd; +inf when there is none.
  double kp_bound = 0.0;
  double growth = 0.0;    ///< spectral radius of the period map (per period); > 1 diverges
  bool reverses = false;  ///< an eigenvalue at or beyond -1: the fast divergence (see above)
  bool lags = false;      ///< |det| >= 1 with no reversal: the slow, oscillating divergence
  bool stable() const { return !reverses && !lags; }
};

/// The period map of `loop` and its bounds. Throws std::invalid_argument
/// for a non-positive inertia, dt or steps_per_period.
ServoLoopStability analyseServoLoop(const ServoLoop& loop);

/// The check of one servoed hinge.
struct ServoJointCheck {
  int hinge = -1;
  double inertia = 0.0;  ///< I_eff (kg m^2), hingeEffectiveInertia
  double kp = 0.0;       ///< (N m/rad)
  double kd = 0.0;       ///< (N m s/rad)
  ServoLoopStability loop;
  /// "kd" or "kp": the gain to lower for a diverging loop (kd when lowering
  /// it alone can end a reversal; kp otherwise), empty when stable.
  std::string gain;
  /// How close to its bound the loop is: the larger of kd_ratio / kd_bound
  /// and kp_ratio / kp_bound (>= 1: diverges).
  double bound_fraction = 0.0;
};

/// Every servoed hinge (kp or kd > 0) of a servo with `gains` (num_hinges)
/// at `rate_hz`, stepped at `dt` with `integrator`.
struct ServoStability {
  double period = 0.0;       ///< T: the longest time a torque is held, whole steps (s)
  int steps_per_period = 1;  ///< T / dt
  std::vector<ServoJointCheck> joints;  ///< servoed hinges, in hinge order
  /// Index in `joints` of the one closest to (or furthest past) its bound; -1 if none.
  int worst = -1;
  bool anyReverses() const;
};

/// The check for a model driven by a JointServo with these gains (one per
/// hinge) at rate_hz, integrated at dt. Throws std::invalid_argument when
/// the gains do not match the hinges or rate_hz or dt is not positive.
ServoStability checkServoStability(const Model& model, const std::vector<ServoGains>& gains, double rate_hz,
                                   double dt, Integrator integrator);

/// One sentence on a diverging joint, for messages: which joint and gain,
/// the ratio and its bound, I_eff, T and what to change.
std::string describeServoCheck(const Model& model, const ServoStability& stability, const ServoJointCheck& joint);

}  // namespace suitsim
