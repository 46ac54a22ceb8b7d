// Robot identification from an experiment's streams, and its validation
// (A §3, §5.2; B(4)): the pipeline shared by `suitsim identify`, `suitsim
// evaluate` and sweeps. Sees only EvaluationInputs and the sensor streams.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "suitsim/rigid/base_parameters.h"
#include "suitsim/eval/identification.h"
#include "suitsim/eval/inputs.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

struct PipelineOptions {
  ConditioningOptions conditioning;
  /// The windings' heating: Ignored (A(6): one k_T per joint, whatever the
  /// temperature), or Corrected: the currents read through each joint's
  /// logged winding temperature and the a-priori (datasheet) magnet
  /// coefficient (ConditioningOptions::magnet_coefficient, filled from
  /// EvaluationInputs::apriori by loadMotion).
  enum class Heating { Ignored, Corrected };
  Heating heating = Heating::Ignored;
  /// The logger's filters (logger_delay.h): Ignored (the streams read as
  /// stamped), or Compensated: each filtered channel kind read its declared
  /// filter's delay later, aligned with the encoders, before anything else.
  enum class SensorDelay { Ignored, Compensated };
  SensorDelay sensor_delay = SensorDelay::Ignored;
  /// The gears' twist (docs/realism.md): Ignored (the encoders read the
  /// joints), or Compensated: each encoder that sits on its motor (the
  /// stream's '# encoders_on_motor:' header; none listed: nothing changes) is read
  /// as the joint angle it leaves, the reading minus the gear's twist
  /// (k_T u + tau_o - I_a q'') / k with the a-priori (datasheet) k_T,
  /// tau_o, armature I_a and gear stiffness k (ConditioningOptions, filled
  /// from EvaluationInputs::apriori by loadMotion).
  enum class GearTwist { Ignored, Compensated };
  GearTwist gear_twist = GearTwist::Ignored;
  /// Where the trials' streams come from: unset, each trial's sensors.csv
  /// under the streams directory (readSensorStream); set, a robot's own logs
  /// read through a channel map (evaluator/io, log_map.h), given the trial
  /// and the extra channels asked for by name. Called from several threads
  /// at once; throws StreamError.
  std::function<SensorStream(const TrialInfo&, const std::vector<std::string>&)> read_stream;
  /// Its `threads` is the command line's --threads for the whole pipeline
  /// (identification, validation, supporting torque).
  IdentificationOptions identification;
};

/// RMSE of the identified and the a-priori model on the same samples (N m).
struct RmsePair {
  double identified = 0.0;
  double apriori = 0.0;
};

/// How the identified model predicts what it was not fitted on (A §5.2).
struct Validation {
  std::vector<std::string> trials;  ///< suit-free evaluation trials (or the fitted ones, in_sample)
  bool in_sample = false;           ///< no other suit-free trial: validated on the fitted trials
  std::vector<std::string> joints;  ///< joints whose torque is compared
  std::string joints_reason;        ///< declared in the scene, or how they were derived
  RmsePair torque;                  ///< A(5) joint rows minus the actuator torque, every sample
  RmsePair sliding_torque;          ///< the same where the joint slides (friction known from its rate)
  int sliding_samples = 0;
  RmsePair base_moment;             ///< A(5) base rows, pitch moment
  struct Trial {
    std::string name;
    RmsePair torque, base_moment;
  };
  std::vector<Trial> per_trial;
};

struct IdentificationOutcome {
  RigidModel model;  ///< the a-priori rigid model
  BaseParameters base;
  RobotIdentification full;
  BaseLinkIdentification base_only;
  std::vector<std::string> fit_trials;
  Validation validation;
};

/// "exclude" or "sign-rule" (the --rest-rows option); false for anything else.
bool parseRestRows(const std::string& text, IdentificationOptions::RestRows* rows);
/// "fit", "known" or "ignored" (IdentificationOptions::Armature); false otherwise.
bool parseArmature(const std::string& text, IdentificationOptions::Armature* armature);
const char* armatureName(IdentificationOptions::Armature armature);
/// "ignored" or "corrected" (PipelineOptions::Heating); false otherwise.
bool parseHeating(const std::string& text, PipelineOptions::Heating* heating);
const char* heatingName(PipelineOptions::Heating heating);
/// "ignored" or "compensated" (PipelineOptions::SensorDelay); false otherwise.
bool parseSensorDelay(const std::string& text, PipelineOptions::SensorDelay* delay);
const char* sensorDelayName(PipelineOptions::SensorDelay delay);
/// "ignored" or "compensated" (PipelineOptions::GearTwist); false otherwise.
bool parseGearTwist(const std::string& text, PipelineOptions::GearTwist* twist);
const char* gearTwistName(PipelineOptions::GearTwist twist);
/// The a-priori magnet coefficients in model joint order (1/K). Throws
/// std::invalid_argument when every one is zero: the correction needs the
/// datasheet's value (<apriori magnet_coefficient> in the scene).
Eigen::VectorXd aprioriMagnetCoefficients(const EvaluationInputs& inputs, const RigidModel& model);
/// "ideal" or "fit" (IdentificationOptions::Gear); false otherwise.
bool parseGear(const std::string& text, IdentificationOptions::Gear* gear);
const char* gearName(IdentificationOptions::Gear gear);

/// Refuses an experiment whose joint rows have no torque to read, before
/// anything runs (throws std::invalid_argument "SCENE:LINE: ..." with the
/// <robot>'s line): a fixed base with neither joint torque sensors nor
/// currents, or with currents and a branch hanging from the rig (a body on
/// the base and all below it) with neither a known gain (<apriori
/// known_motor_constants>) on one of its joints nor a known load held on it
/// in an identification trial: each branch's φ and k_T share a scale the
/// joint rows leave open (docs/method.md, "Fixed base"). A floating base
/// passes (its base rows fix the scale).
void checkTorqueSource(const EvaluationInputs& inputs);

/// The joints (model order) whose a-priori k_T is declared known.
std::vector<int> knownGains(const EvaluationInputs& inputs, const RigidModel& model);

/// Path of a trial's sensor stream under `streams_dir`.
std::filesystem::path streamPath(const std::filesystem::path& streams_dir, const TrialInfo& trial);

/// One trial's stream as recorded: from PipelineOptions::read_stream when
/// set, else readSensorStream on streamPath (throws StreamError).
SensorStream readTrialStream(const EvaluationInputs& inputs, const RigidModel& model, const TrialInfo& trial,
                             const std::filesystem::path& streams_dir, const PipelineOptions& options,
                             const std::vector<std::string>& extra_channels = {});

/// Reads one trial's stream as the evaluation reads it: the logger's
/// declared delays taken out when PipelineOptions::sensor_delay says so;
/// `extra_channels` as readSensorStream takes them (throws StreamError).
SensorStream loadStream(const EvaluationInputs& inputs, const RigidModel& model, const TrialInfo& trial,
                        const std::filesystem::path& streams_dir, const PipelineOptions& options,
                        const std::vector<std::string>& extra_channels = {});

/// The conditioning of one stream under `options`: the heating correction's
/// and the gear twist's a-priori values (the twist only on the encoders the
/// stream says sit on their motors).
ConditioningOptions conditioningFor(const EvaluationInputs& inputs, const RigidModel& model, const SensorStream& stream,
                                    const PipelineOptions& options);

/// Reads one trial's stream and conditions it (throws StreamError).
MotionData loadMotion(const EvaluationInputs& inputs, const RigidModel& model, const TrialInfo& trial,
                      const std::filesystem::path& streams_dir, const PipelineOptions& options);

/// Identifies the robot from the identification trials' streams and
/// validates on the suit-free evaluation trials, on the declared validation
/// joints or, without them, on the joint that carries the most torque while
/// sliding (validationJoint). A fixed base (the rig's pose from the inputs)
/// has joint rows only: no B(4) (base_only stays empty) and no base-moment
/// validation. Throws StreamError for bad streams, std::invalid_argument
/// for an experiment it cannot use (checkTorqueSource first).
IdentificationOutcome identifyFromStreams(const EvaluationInputs& inputs, const std::filesystem::path& streams_dir,
                                          const PipelineOptions& options = {});

/// The joint a validation is most informative on when the scene names none:
/// the one whose a-priori torque, summed in square over the samples where it
/// slides, is largest (a joint at rest only shows static friction, A(8); a
/// moving joint with no load shows nothing). `reason` says why, with figures.
/// `threads`: as IdentificationOptions::threads.
int validationJoint(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi_apriori,
                    const std::vector<MotionData>& data, double stop_velocity, std::string* reason, int threads = 0);

}  // namespace suitsim::eval
