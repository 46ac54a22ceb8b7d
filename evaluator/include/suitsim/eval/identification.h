// Identification of the robot from its sensor streams, A §3 and B(4).
//
// Equations. With the base link's local frame as the reference (A §3.2: the
// IMU's link, so neither the base pose q_o nor its velocity is needed), A(5)
// with A(6)-(7) reads, per sample t,
//   base rows   Y_o φ           = F_o                      (A(11) upper)
//   joint rows  Y_j φ + Z ξ     = F_j                      (A(11) lower)
// φ: base parameters (base_parameters.h); F = Σ_k J_kᵀ F_k^ext, the force
// sensors' wrenches mapped to generalised forces, A(10);
// ξ = [k_T; k_d; τ_c; τ_s^max; τ_o; I_a; Δk_b] (7 blocks of num_joints),
// and row i of Z, A(12) with our signs (friction opposes motion, τ = k_T u
// + τ_o), the armature I_a (the rotor's inertia through its gear, which
// takes I_a θ̈ of the motor's torque; the standard extra column of robot
// identification, not in A(12)) and the gear's loss Δk_b (below):
//   [ −u_i,  θ̇_i,  sgn θ̇_i (moving),  s_i (stopped),  −1,  θ̈_i,  −b_i (u_i + τ_o/k_T) ]
// where "moving" is |θ̇_i| > stop_velocity and, for a stopped joint, s_i is
// the sign rule A(8)-(9): the sign of k_T u + τ_o − Y_j φ + F_j evaluated
// with the a-priori parameters (the residual the static friction must hold).
//
// The gear's loss (not in A(12)). A gear that loses a share of the torque
// it passes gives the link eta_f (k u + τ_o) while the motor drives (its
// torque and the rate alike in sign) and (k u + τ_o) / eta_b while the link
// drives the motor: a loss proportional to the load, mu |τ| sgn θ̇, the
// usual model. The load is measured here (the current), so the term is
// linear: the link sees k_T = eta_f k per ampere while driven by the motor
// and k_T + Δk_b = k / eta_b while backdriven, b_i = 1 then and 0 else,
// taken from the sign of (k_T u + τ_o) θ̇ with the reference parameters.
// Only the product eta_f eta_b = k_T / (k_T + Δk_b) is identifiable from
// currents; the effective k_T is what the evaluation needs.
//
// Fixed base (a robot on a rig, docs/method.md "Fixed base"). No base
// rows: the rig holds the base. The model stands at the rig's pose
// (MotionData::base_R), gravity kept in the model, and the joint rows are
// those above with the fixed-base regressor. From link-side torque sensors
// (MotionData::joint_torque, read after the drive) they are
//   Y_j φ − F_j = τ_s + τ_o,
// τ_o the sensors' offset and the only ξ column; the other ξ stay at their
// a-priori values. From currents they are A(12) as above, whose every term
// scales with (φ, ξ): a known k_T (IdentificationOptions::known_gains) or
// a known held load moves a term to the right-hand side and fixes the scale.
//
// Estimation: weighted least squares A(13)-(14), regularised toward the
// a-priori values A(15) with weights normalised as A(16)-(20), solved by
// orthogonal factorisation of the stacked weighted rows with the
// regularisation as extra rows (least_squares.h), never by the normal
// equations, which square the condition number. The row
// weights W_o, W_j are the inverse residual variances of each equation
// (a first unweighted pass gives them), as A §3.2 suggests ("according to
// the variance of the measured force or moment in each equation").
//
// Reliability (Kang et al. 2023): the condition number of the stacked,
// weighted regressor with unit-norm columns (its own singular values), and
// the relative standard deviation of each estimate, σ_p / |p|, from the
// data's σ² (AᵀWA)⁻¹ (the regularisation left out, see RobotIdentification).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/base_parameters.h"
#include "suitsim/rigid/rigid_model.h"
#include "suitsim/eval/streams.h"
#include "suitsim/robot/robot.h"

namespace suitsim::eval {

/// An object held by the robot during a trial (known to the experimenter).
struct HeldLoad {
  std::string link;
  double mass = 0.0;                          ///< (kg)
  Eigen::Vector3d com = Eigen::Vector3d::Zero();  ///< in the link frame (m)
  double radius = 0.0;                        ///< solid sphere (m); 0: point mass
};

/// Standard parameters (10 num_bodies, regressor.h order) of held loads.
Eigen::VectorXd heldParameters(const RigidModel& model, const std::vector<HeldLoad>& held);

/// How a stream is turned into identification samples.
struct ConditioningOptions {
  double cutoff_hz = 8.0;  ///< zero-phase Butterworth low-pass on every channel (-3 dB point of one pass, Hz)
  int filter_order = 4;    ///< its order, 2 or 4 (signals.h); a robot's log map may state it (log_map.h)
  int decimate = 2;        ///< keep every n-th sample after filtering
  double trim_s = 0.3;     ///< drop this much at each end (filter and difference edges)
  /// The windings' heating (docs/realism.md): non-empty (one per joint, 1/K,
  /// the magnets' temperature coefficient from the motors' datasheets), each
  /// current is read as the torque it makes at the datasheet's temperature,
  /// u (1 + alpha (T - datasheet_temperature)), T the joint's logged winding
  /// temperature, before anything else; the stream must then have them.
  Eigen::VectorXd magnet_coefficient;
  /// The temperature motor datasheets state k_T at (degC). An ambient away
  /// from it changes k_T by a constant factor (taken up by the identified
  /// k_T) and the correction by alpha^2 (T - 25) dT, about 1e-4 relative.
  double datasheet_temperature = 25.0;
  /// The gears' twist (docs/realism.md): non-empty (one per joint, N m/rad,
  /// 0 for a rigid gear), each joint's angle is read as the encoder's minus
  /// the twist (k_T u + tau_o - I_a q'') / k, with these datasheet values
  /// (N m/A, N m, kg m^2), q'' the encoder's; the stream must have currents.
  Eigen::VectorXd gear_stiffness, motor_constant, torque_offset, armature;
};

/// One trial as samples of A(11): conditioned sensor signals, model frame.
struct MotionData {
  std::string name;
  std::vector<HeldLoad> held;  ///< known loads in this trial
  Eigen::VectorXd time;        ///< (N) s
  Eigen::MatrixXd q, qd, qdd;  ///< (N x num_joints) filtered joint angles and their derivatives
  Eigen::MatrixXd omega;       ///< (N x 3) base angular velocity, base axes
  Eigen::MatrixXd omegad;      ///< (N x 3) its derivative
  Eigen::MatrixXd base_acc;    ///< (N x 3) base-origin acceleration minus gravity, base axes
  Eigen::MatrixXd current;     ///< (N x num_joints) filtered currents (empty without)
  /// (N x num_joints) filtered link-side joint torques (empty without
  /// torque sensors). With them they are the joint rows' drive torque
  /// (identifyRobot, actuatorTorque), whatever else the stream has.
  Eigen::MatrixXd joint_torque;
  Eigen::MatrixXd F;           ///< (N x nv) generalised contact force A(10)
  /// How each force sensor's noise reaches F: per sample and row, the sum
  /// over the sensor's three force axes of the squared Jacobian entry
  /// (force_gain) and over its three moment axes (moment_gain). A rotation
  /// does not change it, so noise of σ on each axis of the sensor adds σ²
  /// times the gain to the row's variance. (N x nv) each, in the order of
  /// `force_sensor` (the layout's).
  std::vector<std::string> force_sensor;
  std::vector<Eigen::MatrixXd> force_gain, moment_gain;
  /// Fixed base: the rig's orientation (world from base), constant, which
  /// turns gravity into the base frame; the identity on a floating base
  /// (the IMU's frame is the reference there).
  Eigen::Matrix3d base_R = Eigen::Matrix3d::Identity();
  int numSamples() const { return static_cast<int>(time.size()); }
};

/// The stream's raw joint angles as the model reads them: with
/// ConditioningOptions::gear_stiffness, each motor-side encoder's reading
/// less its gear's twist (the torque through the gear from the conditioned
/// currents, over k), unfiltered; without, the readings as logged. What
/// conditionStream filters, and what any other user of a stream's joint
/// angles (the suit-geometry fit) must read for the same joints.
Eigen::MatrixXd jointAnglesBehindGears(const SensorStream& stream, const ConditioningOptions& options);

/// Filters, differentiates and maps one stream into the base frame. The IMU
/// must sit on the root body (throws std::invalid_argument otherwise). A
/// fixed-base model needs no IMU: omega, omegad and base_acc are then zero
/// and base_R is left for the caller to set to the rig's orientation.
MotionData conditionStream(const RigidModel& model, const SensorLayout& layout, const SensorStream& stream,
                           const ConditioningOptions& options = {});

/// Blocks of ξ: k_T, k_d, τ_c, τ_s^max, τ_o, I_a, Δk_b.
constexpr int kXi = 7;

/// A motor that turns with more than one joint (a coupled wrist, a
/// differential): its angle is θ_m = r q, r the row of the drive's gears
/// and linkage (G M of a log map's <coupling>, docs/logs.md (L2)). Its
/// rotor inertia J and viscous and Coulomb friction b, c act on the motor
/// side, so through the same row the joints feel (power balance)
///   τ = rᵀ (J r q̈ + b r q̇ + c sgn(r q̇)).
/// The diagonal of rᵀr J and rᵀr b is the same column as each joint's own
/// I_a θ̈_i and k_d θ̇_i, so the joints' I_a and k_d take it up (they are
/// then the diagonal of the reflected rotor inertia and viscous friction);
/// what the coupling adds are the off-diagonal terms and the Coulomb term,
/// which depends on the motor's direction, not the joint's:
///   row i:  J r_i Σ_{j≠i} r_j θ̈_j + b r_i Σ_{j≠i} r_j θ̇_j + c r_i sgn(r θ̇).
struct CoupledDrive {
  std::string name;          ///< the motor's name (the log map's <motor>)
  Eigen::VectorXd row;       ///< r (num_joints): motor angle per joint angle
  double rotor_inertia = 0.0;  ///< J (kg m², motor side)
  double viscous = 0.0;        ///< b (N m s/rad, motor side)
  double coulomb = 0.0;        ///< c (N m, motor side)
  /// The three columns of joint row i at a sample with rates qd, qdd:
  /// [J, b, c] coefficients, as above.
  Eigen::Vector3d columns(int i, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) const;
  /// What the drive's rotor and friction take from joint i: the row times
  /// [J, b, c].
  double torque(int i, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) const;
};

/// The joint parameters ξ, one entry per movable joint (model order).
struct JointParameters {
  Eigen::VectorXd motor_constant;  ///< k_T (N m / A)
  Eigen::VectorXd viscous;         ///< k_d (N m s / rad)
  Eigen::VectorXd coulomb;         ///< τ_c (N m)
  Eigen::VectorXd static_max;      ///< τ_s^max (N m)
  Eigen::VectorXd offset;          ///< τ_o (N m)
  Eigen::VectorXd armature;        ///< I_a, reflected rotor inertia (kg m²)
  /// Δk_b: what the link feels per ampere beyond k_T while it drives the
  /// motor (N m / A); 0 for an ideal gear (see the header's note).
  Eigen::VectorXd backdrive_excess;
  /// Motors coupled to several joints, identified with ξ
  /// (IdentificationOptions::coupled_drives); not in stacked().
  std::vector<CoupledDrive> drives;
  /// Stacked [k_T; k_d; τ_c; τ_s; τ_o; I_a; Δk_b] (kXi num_joints).
  Eigen::VectorXd stacked() const;
  static JointParameters fromStacked(const Eigen::VectorXd& xi);
};

/// ξ of a description (the a-priori one: its friction is usually zero).
JointParameters jointParameters(const RigidModel& model, const RobotDescription& description);

struct IdentificationOptions {
  double stop_velocity = 0.01;  ///< |θ̇| below this (rad/s): the joint is at rest, A(7)
  /// A(16)-(17) normalised regularisation weights w_φ, w_T, w_d, w_c, w_s, w_o
  /// (and w_a for the armature, normalised like w_d by its column's scale).
  /// Small: they only have to hold what the motions do not excite (a joint
  /// that never slides, the mass distribution along an unmoved axis). At
  /// 1e-5 they pulled well-excited parameters a few per cent toward the
  /// a-priori model (its 8 kg of missing payload), on clean streams as well;
  /// at 1e-7 still 1-3 % for leg and shoulder inertia combinations that
  /// double support barely moves. 1e-8 to 1e-10 give the same validation
  /// RMSE with the default noise.
  double w_phi = 1e-8, w_T = 1e-8, w_d = 1e-8, w_c = 1e-8, w_s = 1e-8, w_o = 1e-8, w_a = 1e-8, w_g = 1e-8;
  /// The rotors' armature I_a:
  ///  - Fit (default): one column θ̈_i per joint, fitted with the rest;
  ///  - Known: the a-priori values taken as known (I_a θ̈ moved to the
  ///    right-hand side), relative std NaN;
  ///  - Ignored: as Known with every a-priori value zero, what an
  ///    identification without rotors does (the cost shows in the report).
  enum class Armature { Fit, Known, Ignored };
  Armature armature = Armature::Fit;
  bool fitArmature() const { return armature == Armature::Fit; }
  /// The gears' load-proportional loss (the header's note):
  ///  - Ideal: k_T alone, Δk_b held at the a-priori value (an ideal gear: 0);
  ///  - Fit: Δk_b fitted per joint, one more column each.
  enum class Gear { Ideal, Fit };
  Gear gear = Gear::Ideal;
  bool fitGear() const { return gear == Gear::Fit; }
  /// Gear::Fit: at most this many more rounds that take the gear's column
  /// from the last estimate instead of the a-priori values; they stop
  /// early when no row changed sides and no parameter moved by more than
  /// gear_tolerance of its own standard deviation (identification.cpp says
  /// why one round is the default).
  int gear_rounds = 1;
  double gear_tolerance = 0.05;
  /// Rounds of the static-friction sign rule: 1 takes the signs from the
  /// a-priori model as A(9) does; each further round from the last estimate.
  /// Used only with `rest_rows = RestRows::SignRule`.
  int sign_rounds = 2;

  /// What the joint rows do with a joint at rest.
  ///  - SignRule: the paper's A(8)-(9): the static friction is taken at its
  ///    bound, sign(τ̂_s) τ_s^max, and τ_s^max is fitted with the rest.
  ///  - Excluded (default): a resting joint's friction holds whatever is left
  ///    over, anywhere within ±τ_s^max (mostly near τ_c, where sliding left
  ///    it), so its row says nothing about φ or the other joint parameters
  ///    and only biases them if forced to ±τ_s^max. Joint rows are kept only
  ///    where the joint has been sliding one way for `motion_margin_s` on
  ///    both sides (the low-pass filter spreads a stop or a reversal over
  ///    about that long), and τ_s^max is the `static_quantile` quantile of
  ///    the torque the friction held at rest: the largest hold seen is the
  ///    breakaway torque A(7).
  enum class RestRows { SignRule, Excluded };
  RestRows rest_rows = RestRows::Excluded;
  double slip_velocity = 0.05;    ///< |θ̇| above this (rad/s) counts as sliding (Excluded)
  double motion_margin_s = 0.1;   ///< sliding needed on both sides of a used sample (Excluded)
  double static_quantile = 0.99;  ///< quantile of the held torque taken as τ_s^max (Excluded)
  /// OpenMP threads for the regressor rows and the least squares (0:
  /// OpenMP's default, omp_get_max_threads()). The estimates are the same
  /// to the bit for any count: samples and equations are split in fixed
  /// pieces and combined in a fixed order (least_squares.h).
  int threads = 0;
  /// Joints (model order) whose k_T is known exactly (the a-priori set's
  /// JointActuation::motor_constant_known; identifyFromStreams fills it):
  /// k_T u moves to the right-hand side and the value is kept. On a fixed
  /// base one such gain (or a known load) fixes the scale of φ and ξ.
  std::vector<int> known_gains;
  /// Motors that turn with several joints (CoupledDrive; a log map's
  /// couplings give them, log_streams.h useLogs): each adds its J, b and c
  /// as three columns shared by the joint rows it turns with, and a joint
  /// row is used only while its coupled motors slide as well. Their values
  /// here are the a-priori ones.
  std::vector<CoupledDrive> coupled_drives;
};

/// Result of the full identification A(13)-(20).
struct RobotIdentification {
  Eigen::VectorXd phi;               ///< identified base parameters
  Eigen::VectorXd phi_apriori;       ///< a-priori base parameters
  /// σ / |φ| per base parameter (Kang 2023), with the residual variance
  /// scaled by correlation_samples: filtered residuals are correlated. From
  /// the data's information alone: the regularisation toward the a-priori
  /// values is left out, so a parameter the motions do not reach shows a
  /// large std however firmly the a-priori value holds it.
  Eigen::VectorXd phi_relative_std;
  JointParameters xi, xi_apriori;
  JointParameters xi_relative_std;  ///< its drives' J, b, c: relative std
  /// Integrated autocorrelation time of the weighted residuals (samples):
  /// how many rows make one independent residual.
  double correlation_samples = 1.0;
  double condition_number = 0.0;     ///< stacked weighted regressor, unit-norm columns (excited ones)
  int unexcited_columns = 0;         ///< columns identically zero (e.g. k_d of a joint that never moves)
  double total_mass = 0.0;           ///< Σ m from φ (kg); NaN on a fixed base (the rig holds it)
  double total_mass_apriori = 0.0;
  int num_samples = 0;
  Eigen::VectorXd row_rms;           ///< (nv) rms residual per equation with the final weights
  int gear_rounds = 0;               ///< Gear::Fit: rounds after the first solve (IdentificationOptions)
  /// The joint rows read link-side joint torque sensors (every trial had
  /// them): ξ is then the a-priori set but for τ_o, the sensors' offset.
  bool torque_sensors = false;
  /// The columns that trade most: pairs among the base parameters
  /// ("base_parameter[k]", identification.json's order), the coupled
  /// drives' ("drive:MOTOR.rotor_inertia", ...) and the fitted joint
  /// parameters ("motor_constant:JOINT", "viscous:", "coulomb:", "offset:",
  /// "armature:", "backdrive_excess:") with |r| >= kStrongCorrelation, from
  /// the covariance the relative stds come from (parameter_correlation.h),
  /// strongest first, at most kMostCorrelatedPairs.
  struct Correlated {
    std::string a, b;
    double r = 0.0;
  };
  std::vector<Correlated> correlated_pairs;
  int correlated_pair_count = 0;  ///< pairs over the threshold before the cut
};

/// RobotIdentification::correlated_pairs' threshold and length.
inline constexpr double kStrongCorrelation = 0.9;
inline constexpr int kMostCorrelatedPairs = 30;

/// Total mass (kg) from base parameters: the vertical force a unit vertical
/// base acceleration needs, with gravity off.
double totalMass(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi);

RobotIdentification identifyRobot(const RigidModel& model, const BaseParameters& base,
                                  const JointParameters& xi_apriori, const std::vector<MotionData>& trials,
                                  const IdentificationOptions& options = {});

/// B(4): base parameters from the base-link rows alone (no current sensing).
struct BaseLinkIdentification {
  Eigen::VectorXd phi;
  Eigen::VectorXd phi_relative_std;
  double correlation_samples = 1.0;
  double condition_number = 0.0;
  double total_mass = 0.0;
};
BaseLinkIdentification identifyBaseLinkOnly(const RigidModel& model, const BaseParameters& base,
                                            const std::vector<MotionData>& trials,
                                            const IdentificationOptions& options = {});

/// Inverse dynamics Y φ (+ the trial's held loads) per sample: (N x nv),
/// base rows then joint torques (contact forces not subtracted).
/// `threads`: OpenMP threads for the per-sample loop (0: OpenMP's default);
/// the result does not depend on it.
Eigen::MatrixXd inverseDynamics(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi,
                                const MotionData& motion, int threads = 0);
/// The same for several parameter sets at once (one regressor per sample
/// serves them all): one (N x nv) matrix per entry of `phis`.
std::vector<Eigen::MatrixXd> inverseDynamics(const RigidModel& model, const BaseParameters& base,
                                             const std::vector<Eigen::VectorXd>& phis, const MotionData& motion,
                                             int threads = 0);

/// Torque the actuators deliver to the links, A(6)-(7): k_T u + τ_o
/// + b Δk_b (u + τ_o / k_T) − I_a θ̈ − τ_f (b: backdriven, the header's note),
/// (N x num_joints). A stopped joint's static friction takes the sign of
/// what it must hold, A(8)-(9), from `inverse_dynamics` (inverseDynamics of
/// the same motion) and the contact forces. A motion with link-side joint
/// torques (MotionData::joint_torque) gives them plus the sensors' offset
/// τ_o: the drive, its friction and rotor sit before the sensor.
Eigen::MatrixXd actuatorTorque(const RigidModel& model, const JointParameters& xi, const MotionData& motion,
                               const Eigen::MatrixXd& inverse_dynamics, double stop_velocity);

}  // namespace suitsim::eval
