// Reading scene files: the XML that names an integrator, a time step, the
// world and its bodies, and what to record. See README.md for the format.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <cstdint>
#include <memory>
#include <optional>

#include "suitsim/articulated.h"
#include "suitsim/model.h"
#include "suitsim/recorder.h"
#include "suitsim/robot/robot.h"
#include "suitsim/balance_assist.h"
#include "suitsim/exoskeleton.h"
#include "suitsim/sensors.h"
#include "suitsim/servo.h"

namespace tinyxml2 {
class XMLDocument;
}

namespace suitsim::io {

/// A bad scene file. what() is "path:line: <element> problem (got value)".
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimulationSettings {
  Integrator integrator = Integrator::kVelocityVerlet;
  double dt = 1e-3;          ///< time step (s)
  double duration = 1.0;     ///< simulated time (s)
  double output_rate = 100;  ///< samples per second written to the stream (Hz)
  int threads = 0;           ///< OpenMP threads; 0 means one per core
  /// How the spring kernel rounds (Model::spring_arithmetic, docs/engine.md).
  SpringArithmetic arithmetic = SpringArithmetic::kSeparate;
  int line = 0;              ///< line of the <simulation> element (0: not read from a scene)
};

/// An object the robot holds during a motion (<hold> inside <motion>), e.g.
/// 0.5 kg in each hand for the bend of A §5.1. It is added to the true
/// link's inertia; unlike the hidden payloads the experimenter knows it, so
/// the evaluator may add it to its model.
struct HeldObject {
  std::string link;              ///< link that holds it
  double mass = 0.0;             ///< (kg)
  Vec3 com{0.0, 0.0, 0.0};       ///< its centre in the link frame (m)
  double radius = 0.0;           ///< solid-sphere radius (m); 0: a point mass
};

/// A robot as the scene describes it (readScene): the two parameter sets,
/// the suit and device worn, the servo, the sensors and the motion, every
/// name resolved to the description's links and joints, and nothing of the
/// particle model. compileScene turns it into a RobotSetup.
struct SceneRobot {
  RobotDescription truth;    ///< what the engine simulates (URDF + scene additions)
  RobotDescription apriori;  ///< what an evaluator starts from (the "CAD" set)
  /// The bands' straps as a tensile test measured them (<apriori
  /// attachment_stiffness>, N/m per strap; 0: not stated).
  double apriori_attachment_stiffness = 0.0;
  int line = 0;              ///< line of the <robot> element
  /// How the truth is compiled (<robot link_frequency ... link_model>).
  RobotCompileOptions compile_options;
  bool has_servo = false;
  std::vector<ServoGains> joint_gains;  ///< per description joint (fixed and follower joints: zero)
  std::vector<int> joint_gain_line;     ///< line of the <servo> that set each joint's gains, 0: none
  double servo_rate = 1000.0;           ///< (Hz)
  /// The trial's reference motion, task-space keyframes solved by IK, over
  /// description joints (Motion::hinges() holds joint indices; empty: hold
  /// the initial pose).
  Motion joint_motion;
  /// The suit's bands, A(21)-(25), as the truth has them: via points as (link,
  /// point in link frame), true stiffness. Read: natural_length < 0 means
  /// auto (the compile resolves it to the initial length); in a RobotSetup
  /// it is resolved. The a-priori set has no bands: the evaluator identifies
  /// them, A(26).
  std::vector<RobotBand> bands;
  /// Objects held during this trial's motion (already in `truth`, not in `apriori`).
  std::vector<HeldObject> held;
  /// Description link of each contact point (the scene's <contact link=...> elements).
  std::vector<int> contact_link;
  /// The <contact> points themselves (link, point in the link frame), same order.
  std::vector<ContactPoint> contacts;
  /// The initial pose as the scene gives it (<robot pos rpy>, <initial>), per
  /// description joint; place_on_ground and the ground plane as the engine
  /// uses them (the ground plane is set even without a <ground>: z = 0).
  RobotPose initial_pose;
  /// The robot's <sensors> as declared, on the description: the joint
  /// channels' `hinges` hold description joints, an IMU's or force sensor's
  /// `body` its description link and `frame` its pose in that link's frame,
  /// a force sensor's `contacts` indices into `contacts` (those on links
  /// welded to its link), band_lengths.bands indices into `bands`.
  std::optional<SensorSpec> declared_sensors;
  int sensors_line = 0;  ///< line of the <sensors> element, 0 when absent
  /// Forces from outside (balance_assist.h): <push> disturbances and an
  /// <assist>, each at a point of a link (the `at` weights are resolved on
  /// the built model: robotForcePoint).
  struct LinkPoint {
    int link = -1;               ///< description link
    Vec3 point{0.0, 0.0, 0.0};   ///< in the link frame (m)
    int line = 0;                ///< of its element in the scene
  };
  std::vector<std::pair<LinkPoint, PushSpec>> pushes;
  /// Each band's via points as designed (bands[k].points is the band as
  /// worn: the same unless <realism> moves them), link frames (m).
  std::vector<std::vector<Vec3>> band_designed_points;
  std::optional<std::pair<LinkPoint, BalanceAssistSpec>> assist;
  /// The powered device this trial wears (<exoskeleton>, exoskeleton.h),
  /// with names resolved to the truth's links and joints.
  std::optional<ExoskeletonSpec> exoskeleton;
  /// Every <exoskeleton> of the scene, worn or not, with its element's line:
  /// the compile builds each (the others into a copy), so a device that
  /// cannot be built is refused whichever trial runs.
  std::vector<std::pair<ExoskeletonSpec, int>> devices;
};

/// A robot in a compiled scene: its description and where it went in the
/// particle model.
struct RobotSetup : SceneRobot {
  CompiledRobot compiled;         ///< where the truth went in the particle model
  std::vector<ServoGains> gains;  ///< per hinge
  std::vector<int> gain_line;     ///< line of the <servo> that set each hinge's gains, 0: none, (num_hinges)
  Motion motion;                  ///< joint_motion on the model's hinges
  /// The sensors on the model's bodies, hinges, contacts and bands (see
  /// sensors.h), the device's joints and attitude added; empty when the
  /// scene has none.
  std::optional<SensorSpec> sensors;
  /// Where the worn device went in the model (description: the device as a
  /// floating robot, placed on the compiled truth).
  CompiledExoskeleton exoskeleton_compiled;
};

/// The body point of a robot link's point on the built model.
BodyForcePoint robotForcePoint(const Model& model, const RobotSetup& robot, const RobotSetup::LinkPoint& at);

/// One trial of an experiment, A §5: a reference motion run with one suit
/// (or none). A scene with an <experiment> element lists several; each is
/// read as its own SceneDescription and compiled into its own Scene (the
/// suit's bands are part of the particle model).
struct TrialSpec {
  std::string name;    ///< unique within the experiment; names the trial's output files
  std::string motion;  ///< name of the robot's <motion> it runs
  std::string suit;    ///< name of the <suit> worn, or "none"
  std::string device = "none";  ///< name of the <exoskeleton> worn, or "none"
  /// What the trial is for: "identification" (robot identification, A(13)-(20),
  /// never with a suit) or "evaluation" (supporting torque, A(3)-(4)).
  std::string purpose = "evaluation";
  int line = 0;        ///< line of its <trial> element
  /// Joints the band fit A(26) uses for this trial's motion (<motion
  /// fit_joints>); empty: the evaluator derives them from the robot and suit.
  std::vector<std::string> fit_joints;
  int fit_joints_line = 0;  ///< line of the <motion> that names them
};

/// What the scene tells the evaluator beyond the trials (<experiment><evaluation>).
struct EvaluationSpec {
  /// Joints whose torque validates the identified model (A §5.2); empty: the
  /// evaluator derives them from the validation trials.
  std::vector<std::string> validation_joints;
  int line = 0;  ///< line of <evaluation>, 0 when absent
};

/// Error sources a real evaluation meets and the simulated world otherwise
/// leaves out (docs/realism.md): the scene's <realism> element. Zero: off.
struct Realism {
  std::uint64_t seed = 1;       ///< draws of every random source
  /// The suit as worn, not as designed: each band via point of the truth
  /// sits this far (RMS of the 3-D displacement, m) from its designed place,
  /// in a random direction; the evaluator's wire model keeps the design.
  double via_point_offset = 0.0;
  /// The gear trains' efficiency, every motorised joint of the truth
  /// (JointActuation): driving, backdriven, and the speed over which they
  /// blend (rad/s). 1, 1: off. The evaluator's model has no gear losses.
  double gear_efficiency = 1.0;
  double backdrive_efficiency = 1.0;
  double gear_transition_velocity = 0.01;
  /// The windings' heating (JointActuation::km), every motorised joint of
  /// the truth: the steady rise a joint's winding would reach holding its
  /// URDF effort limit (K; 0: off) sets its km, with R_th 1 K/W; the
  /// winding's time constant (s); the magnets' k_T change per kelvin (1/K);
  /// and the largest rise at a trial's start (K): each joint starts each
  /// trial at a rise drawn uniformly below it (its history is unknown).
  double heating_rise_at_effort = 0.0;
  double heating_time_constant = 0.0;
  double heating_magnet_coefficient = 0.0;
  double heating_initial_rise = 0.0;
  /// A causal sensor chain (SensorChainSpec) in place of the ideal logger's
  /// centred windows: each channel kind's 2nd-order Butterworth low-pass
  /// (Hz, 0: none), each device's sampling-time error (RMS, s), the IMU
  /// biases' random walks (per sqrt(s)), and the force sensors' calibration
  /// crosstalk (RMS of the off-diagonal terms coupling forces among
  /// themselves and moments among themselves; drawn per sensor).
  /// Compliant attachments: every band of the truth is anchored at each end
  /// by a strap of this stiffness (N/m; 0: rigid) in series with it
  /// (RobotBand::attachment_stiffness); the truth scored is the band's own k.
  double attachment_stiffness = 0.0;
  /// Each strap departs from attachment_stiffness by this relative spread
  /// (RMS), drawn per band end (0: all alike).
  double attachment_spread = 0.0;
  /// The bands' hysteresis: every band of the truth gains a Maxwell arm of
  /// this fraction of its k (0: off), relaxing with this time constant (s)
  /// (RobotBand::relaxing_stiffness); the truth scored is k, the stiffness
  /// of a stretch held long.
  double hysteresis_fraction = 0.0;
  double hysteresis_relaxation_time = 0.0;
  /// The gear trains' compliance and backlash (JointActuation::gear_stiffness),
  /// every motorised joint of the truth: its torsional stiffness is
  /// compliance_stiffness_per_effort times its URDF effort limit (N m/rad
  /// per N m; 0: off), its dead band compliance_backlash (rad, total), its
  /// damper compliance_damping_ratio of critical for the rotor against a
  /// held link (b = 2 zeta sqrt(k I_a)), and its encoder on the motor
  /// (compliance_encoder_on_motor) or on the link. Every such joint needs
  /// its rotor's inertia (<actuation armature>).
  double compliance_stiffness_per_effort = 0.0;
  double compliance_backlash = 0.0;
  double compliance_damping_ratio = 0.0;
  bool compliance_encoder_on_motor = false;
  /// Where the compliance was set, for messages about the gears: "FILE:LINE
  /// <compliance>" of the element that set it (or of the <realism
  /// preset="realistic"> that brought it), "--realism realistic" for the
  /// option's preset; empty while compliance is off.
  std::string compliance_origin;
  /// Each unit's stiffness departs from the datasheet's (the a-priori set's,
  /// stiffness_per_effort times the effort limit) by this relative spread
  /// (RMS, drawn per joint; at least half the datasheet's).
  double compliance_spread = 0.0;
  /// Capstan friction: every band of the truth rubs on the body where it
  /// turns at an interior via point, with this friction coefficient (0:
  /// off), so its tension changes along its path by up to exp(mu theta)
  /// at each (RobotBand::capstan_friction); the truth scored is k.
  double capstan_friction = 0.0;
  bool sensor_chain = false;
  double chain_imu_cutoff = 0.0;
  double chain_force_cutoff = 0.0;
  double chain_current_cutoff = 0.0;
  double chain_jitter = 0.0;
  double chain_gyro_bias_walk = 0.0;
  double chain_accel_bias_walk = 0.0;
  double chain_force_crosstalk = 0.0;
  /// Each force sensor's gain error: the calibration's diagonal departs
  /// from 1 by this RMS (drawn per sensor and axis; 0: exact gains).
  double chain_force_gain = 0.0;
  /// Where it came from: "scene" (the scene's <realism> or none), "ideal"
  /// or "realistic" (`--realism` with a preset's name), or the path of a
  /// realism file.
  std::string source = "scene";
  /// The preset it started from ("ideal": every source off; "realistic":
  /// realisticPreset()); the element's children and `sources` change it.
  std::string preset = "ideal";
  bool any() const { return !activeSources().empty(); }
  /// The sources switched on, by their element names (kRealismSources order).
  std::vector<std::string> activeSources() const;
};

/// The names of the sources a <realism> element can switch (its children's
/// element names), in the order the budget reports them.
inline constexpr const char* kRealismSources[] = {"via_points", "gear",       "motor_heating", "sensor_chain",
                                                  "attachments", "hysteresis", "capstan",       "compliance"};

/// The `realistic` preset: every source at a magnitude chosen from
/// datasheets and the literature for an HRP-class robot in a fabric suit
/// (each figure's reason: docs/realism.md#presets). Not tuned to any
/// evaluation's result.
Realism realisticPreset();

/// `r` with only the named sources left on (the others back to ideal).
/// Throws std::invalid_argument naming a source that is not in
/// kRealismSources, or one that `r` does not switch on (it has no
/// magnitude to keep).
Realism keepSources(const Realism& r, const std::vector<std::string>& sources);

/// `r` as a <realism> element with every magnitude written out (no preset),
/// so that a scene holding it needs nothing else: what `suitsim budget`
/// writes into the scenes it runs.
std::string realismXml(const Realism& r);

/// A realism file: an XML file whose root is <realism>, with the children a
/// scene's <realism> takes. Throws SceneError naming the file and line.
Realism loadRealism(const std::string& path);

/// The `--realism` choice: a preset's name ("ideal": every source off;
/// "realistic") or a realism file.
Realism realismOption(const std::string& value);

struct Scene {
  std::string path;   ///< the file it was read from
  std::string name;   ///< the scene's name attribute, or the file's stem
  TrialSpec trial;    ///< the trial this scene was loaded for (name empty: not an experiment)
  Model model;
  SimulationSettings simulation;
  std::vector<ChannelSpec> channels;  ///< what `suitsim run` records
  std::optional<RobotSetup> robot;    ///< the scene's robot, if it has one
  EvaluationSpec evaluation;          ///< evaluation settings of the experiment
  Realism realism;                    ///< the error sources switched on (<realism>)
  /// Where the springs came from, for messages that name one: each element
  /// that adds springs (<spring>, <cloth>, <block>, <robot>), in file order,
  /// as its tag, its line and the input index of its first spring.
  struct SpringSource {
    std::string tag;
    int line = 0;
    int first_spring = 0;
  };
  std::vector<SpringSource> spring_sources;
  int ground_line = 0;  ///< line of the <ground> element, 0 when absent
};

/// The trials of the scene's <experiment>, in file order; empty when it has
/// none. Throws SceneError for a malformed experiment.
std::vector<TrialSpec> listTrials(const std::string& path);

/// What a caller changes in a scene before it is validated: the command
/// line's --duration, --dt, --threads, --noise, --stribeck off and
/// --realism, or the same from a library user. Each replaces what the scene
/// says where the reader reads it, so every check that depends on it (a
/// sensor rate the step must divide, the number of steps, a servo the step
/// cannot hold) runs once, on the values the run will use, and names the
/// scene's line and the override. The scene's SimulationSettings then own
/// dt, the duration and the integrator; nothing downstream takes them apart.
struct SceneOverrides {
  double duration = -1.0;  ///< simulated time (s); <= 0: the scene's
  double dt = -1.0;        ///< time step (s); <= 0: the scene's
  int threads = -1;        ///< force-loop threads; < 0: the scene's (0: one per core)
  int noise = -1;          ///< sensor noise: -1 as the scene says, 0 off, 1 on
  bool no_stribeck = false;  ///< switch the joints' Stribeck drop off
  std::optional<Realism> realism;  ///< replaces the scene's <realism>
};

/// The most steps a run may take (duration / dt): beyond it the step count
/// is a typo (a dt of 1e-300) and would overflow the counters.
inline constexpr double kMaxSteps = 1e12;

/// A scene as read: every value checked at its line with the overrides
/// applied, names resolved to the robot's description, and no particle
/// model (readScene). What is made of particles by nature (<particle>,
/// <spring>, <cloth>, <block>) and the <record>s that name them stay in the
/// parsed file until compileScene reads them into the model.
struct SceneDescription {
  std::string path;   ///< the file it was read from
  std::string name;   ///< the scene's name attribute, or the file's stem
  TrialSpec trial;    ///< the trial it was read for (name empty: not an experiment)
  SimulationSettings simulation;  ///< overrides applied
  std::optional<Vec3> gravity;    ///< <world gravity> (m/s^2); empty: the engine's default
  GroundModel ground;             ///< <ground>; not enabled when absent
  int ground_line = 0;            ///< line of the <ground> element, 0 when absent
  std::optional<SceneRobot> robot;  ///< the scene's robot, if it has one
  EvaluationSpec evaluation;        ///< evaluation settings of the experiment
  Realism realism;                  ///< the error sources switched on (<realism> or the override)
  bool stribeck_off = false;        ///< --stribeck off: the compiled hinges lose their Stribeck drop
  /// The parsed file, for the elements the compile reads (see above).
  std::shared_ptr<const tinyxml2::XMLDocument> document;
};

/// Reads and validates a scene with `overrides` applied, building no
/// particle. For a scene with an <experiment>, `trial` names the trial to
/// read (empty: the first one); for any other scene it must be empty.
/// Throws SceneError naming file and line (and the override, when the value
/// at fault came from one).
SceneDescription readScene(const std::string& path, const std::string& trial = {},
                           const SceneOverrides& overrides = {});

/// Compiles a description into the particle model: the world's elements,
/// the true robot with its suit and device, the servo, sensors and motion
/// on the model's hinges and bodies, and the records. Throws SceneError
/// naming the element (file and line) that cannot be built, e.g. a moving
/// link without mass or a lattice beyond the machine's memory.
Scene compileScene(const SceneDescription& description);

/// readScene then compileScene, for the callers that step the world.
Scene loadScene(const std::string& path, const std::string& trial, const SceneOverrides& overrides);

/// As above with only the realism overridden (null: the scene's own).
Scene loadScene(const std::string& path, const std::string& trial = {}, const Realism* realism = nullptr);

}  // namespace suitsim::io
