#include "suitsim/eval/robot_identification.h"
#include "logger_delay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "suitsim/core/stop.h"
#include "suitsim/rigid/regressor.h"

#include "parallel_for.h"

namespace suitsim::eval {

namespace fs = std::filesystem;

namespace {

double rms(const Eigen::VectorXd& x) { return x.size() ? std::sqrt(x.squaredNorm() / static_cast<double>(x.size())) : 0.0; }

double rmsOf(const std::vector<double>& x) {
  return rms(Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())));
}

// A(5) joint-row and base-row residuals of one model on one trial.
struct ValidationErrors {
  Eigen::VectorXd base_pitch;  // (Y_o φ − F_o)[pitch]
  Eigen::MatrixXd joint;       // (Y_j φ − F_j) − actuator torque, (N x num_joints)
};

ValidationErrors validationErrors(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi,
                                  const JointParameters& xi, const MotionData& d, double stop_velocity, int threads) {
  const Eigen::MatrixXd tau = inverseDynamics(model, base, phi, d, threads);
  const Eigen::MatrixXd act = actuatorTorque(model, xi, d, tau, stop_velocity);
  const int nj = model.num_joints;
  ValidationErrors e;
  if (model.floating_base) e.base_pitch = tau.col(4) - d.F.col(4);  // a fixed base has no base rows
  e.joint = tau.rightCols(nj) - d.F.rightCols(nj) - act;
  return e;
}

}  // namespace

bool parseRestRows(const std::string& text, IdentificationOptions::RestRows* rows) {
  if (text == "exclude") *rows = IdentificationOptions::RestRows::Excluded;
  else if (text == "sign-rule") *rows = IdentificationOptions::RestRows::SignRule;
  else return false;
  return true;
}

bool parseArmature(const std::string& text, IdentificationOptions::Armature* armature) {
  using A = IdentificationOptions::Armature;
  if (text == "fit") *armature = A::Fit;
  else if (text == "known") *armature = A::Known;
  else if (text == "ignored") *armature = A::Ignored;
  else return false;
  return true;
}

const char* armatureName(IdentificationOptions::Armature armature) {
  using A = IdentificationOptions::Armature;
  return armature == A::Fit ? "fit" : (armature == A::Known ? "known" : "ignored");
}

bool parseGear(const std::string& text, IdentificationOptions::Gear* gear) {
  if (text == "ideal") *gear = IdentificationOptions::Gear::Ideal;
  else if (text == "fit") *gear = IdentificationOptions::Gear::Fit;
  else return false;
  return true;
}

const char* gearName(IdentificationOptions::Gear gear) {
  return gear == IdentificationOptions::Gear::Fit ? "fit" : "ideal";
}

bool parseHeating(const std::string& text, PipelineOptions::Heating* heating) {
  if (text == "ignored") *heating = PipelineOptions::Heating::Ignored;
  else if (text == "corrected") *heating = PipelineOptions::Heating::Corrected;
  else return false;
  return true;
}

const char* heatingName(PipelineOptions::Heating heating) {
  return heating == PipelineOptions::Heating::Corrected ? "corrected" : "ignored";
}

bool parseSensorDelay(const std::string& text, PipelineOptions::SensorDelay* delay) {
  if (text == "ignored") *delay = PipelineOptions::SensorDelay::Ignored;
  else if (text == "compensated") *delay = PipelineOptions::SensorDelay::Compensated;
  else return false;
  return true;
}

const char* sensorDelayName(PipelineOptions::SensorDelay delay) {
  return delay == PipelineOptions::SensorDelay::Compensated ? "compensated" : "ignored";
}

bool parseGearTwist(const std::string& text, PipelineOptions::GearTwist* twist) {
  if (text == "ignored") *twist = PipelineOptions::GearTwist::Ignored;
  else if (text == "compensated") *twist = PipelineOptions::GearTwist::Compensated;
  else return false;
  return true;
}

const char* gearTwistName(PipelineOptions::GearTwist twist) {
  return twist == PipelineOptions::GearTwist::Compensated ? "compensated" : "ignored";
}

namespace {

// The datasheet's gears in model joint order: stiffness (0: rigid), and the
// motor constant, torque offset and armature the twist's torque is read with.
void aprioriGears(const EvaluationInputs& inputs, const RigidModel& model, ConditioningOptions* o) {
  const int nj = model.num_joints;
  o->gear_stiffness = Eigen::VectorXd::Zero(nj);
  o->motor_constant = Eigen::VectorXd::Zero(nj);
  o->torque_offset = Eigen::VectorXd::Zero(nj);
  o->armature = Eigen::VectorXd::Zero(nj);
  for (int j = 0; j < nj; ++j) {
    const int k = inputs.apriori.findJoint(model.joint_name[j]);
    if (k < 0) continue;
    const JointActuation& a = inputs.apriori.joints[k].actuation;
    o->gear_stiffness[j] = a.gear_stiffness;
    o->motor_constant[j] = a.motor_constant;
    o->torque_offset[j] = a.torque_offset;
    o->armature[j] = a.armature;
  }
  if (o->gear_stiffness.maxCoeff() <= 0.0) {
    throw std::invalid_argument("compensating the gears' twist needs their stiffness from the datasheets: "
                                "<apriori gear_stiffness_per_effort=\"...\"> in the scene");
  }
}

}  // namespace

Eigen::VectorXd aprioriMagnetCoefficients(const EvaluationInputs& inputs, const RigidModel& model) {
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(model.num_joints);
  for (int j = 0; j < model.num_joints; ++j) {
    const int k = inputs.apriori.findJoint(model.joint_name[j]);
    if (k >= 0) alpha[j] = inputs.apriori.joints[k].actuation.magnet_coefficient;
  }
  if (alpha.cwiseAbs().maxCoeff() == 0.0) {
    throw std::invalid_argument("correcting the windings' heating needs the magnets' temperature coefficient from "
                                "the motors' datasheets: <apriori magnet_coefficient=\"...\"> in the scene");
  }
  return alpha;
}

std::vector<int> knownGains(const EvaluationInputs& inputs, const RigidModel& model) {
  std::vector<int> known;
  for (int j = 0; j < model.num_joints; ++j) {
    const int k = inputs.apriori.findJoint(model.joint_name[j]);
    if (k >= 0 && inputs.apriori.joints[static_cast<std::size_t>(k)].actuation.motor_constant_known) known.push_back(j);
  }
  return known;
}

void checkTorqueSource(const EvaluationInputs& inputs) {
  if (inputs.apriori.floating_base || inputs.layout.has_joint_torques) return;
  const std::string where = inputs.scene_path + ":" + std::to_string(inputs.robot_line) + ": <robot base=\"fixed\">: ";
  if (!inputs.layout.has_currents) {
    throw std::invalid_argument(where + "the robot has neither joint torque sensors (<joint_torques>) nor motor "
                                "currents (<currents>) in its <sensors>: a fixed base has joint rows only, and they "
                                "need the joints' torques from one of them");
  }
  // Each branch hanging from the rig (a body on the base and everything
  // below it) shares no parameter with another: its joint rows make a
  // least-squares problem of their own, with its own common factor. So
  // every branch needs a known gain or a known load of its own.
  const RigidModel model = makeRigidModel(inputs.apriori);
  std::vector<int> branch(static_cast<std::size_t>(model.num_bodies), -1);  // body -> its branch's first body
  for (int b = 1; b < model.num_bodies; ++b) {
    const int parent = model.body_parent[b];
    branch[static_cast<std::size_t>(b)] = parent == 0 ? b : branch[static_cast<std::size_t>(parent)];
  }
  std::vector<char> fixed(static_cast<std::size_t>(model.num_bodies), 0);
  for (int j = 0; j < model.num_joints; ++j) {
    const int k = inputs.apriori.findJoint(model.joint_name[j]);
    if (k >= 0 && inputs.apriori.joints[static_cast<std::size_t>(k)].actuation.motor_constant_known) {
      fixed[static_cast<std::size_t>(branch[static_cast<std::size_t>(j + 1)])] = 1;
    }
  }
  for (const TrialInfo& t : inputs.trials) {
    if (t.purpose != "identification") continue;
    for (const HeldLoad& h : t.held) {
      const int f = frameIndex(model, h.link);
      const int b = f >= 0 ? model.frame_body[f] : 0;
      if (b > 0 && h.mass > 0.0) fixed[static_cast<std::size_t>(branch[static_cast<std::size_t>(b)])] = 1;
    }
  }
  for (int b = 1; b < model.num_bodies; ++b) {
    if (model.body_parent[b] != 0 || fixed[static_cast<std::size_t>(b)]) continue;
    throw std::invalid_argument(
        where + "motor currents alone give a fixed base's parameters and drive gains only up to a common factor "
                "(joint rows, no base rows), one per branch hanging from the rig, and the branch from joint '" +
        model.joint_name[b - 1] + "' has neither a calibrated gain (<apriori known_motor_constants=\"JOINT\"> on one "
        "of its joints) nor a known load held on it (<hold> in the motion) in an identification trial");
  }
}

fs::path streamPath(const fs::path& streams_dir, const TrialInfo& trial) {
  return trial.name.empty() ? streams_dir / "sensors.csv" : streams_dir / trial.name / "sensors.csv";
}

SensorStream readTrialStream(const EvaluationInputs& inputs, const RigidModel& model, const TrialInfo& trial,
                             const fs::path& streams_dir, const PipelineOptions& options,
                             const std::vector<std::string>& extra_channels) {
  if (options.read_stream) return options.read_stream(trial, extra_channels);
  return readSensorStream(streamPath(streams_dir, trial).string(), model, inputs.layout, inputs.sensor_rate_hz,
                          extra_channels);
}

SensorStream loadStream(const EvaluationInputs& inputs, const RigidModel& model, const TrialInfo& trial,
                        const fs::path& streams_dir, const PipelineOptions& options,
                        const std::vector<std::string>& extra_channels) {
  SensorStream s = readTrialStream(inputs, model, trial, streams_dir, options, extra_channels);
  if (options.sensor_delay == PipelineOptions::SensorDelay::Compensated) {
    s = withoutLoggerDelay(s, declaredLoggerDelays(s));
  }
  // The stream must be the trial the scene says it is.
  if (!trial.name.empty() && s.meta("trial") != trial.name) {
    throw StreamError(s.path + ":1: stream of trial '" + s.meta("trial", "?") + "', expected '" + trial.name + "'");
  }
  return s;
}

ConditioningOptions conditioningFor(const EvaluationInputs& inputs, const RigidModel& model, const SensorStream& s,
                                    const PipelineOptions& options) {
  ConditioningOptions conditioning = options.conditioning;
  if (options.heating == PipelineOptions::Heating::Corrected) {
    conditioning.magnet_coefficient = aprioriMagnetCoefficients(inputs, model);
  }
  if (options.gear_twist == PipelineOptions::GearTwist::Compensated) {
    aprioriGears(inputs, model, &conditioning);
    // Only the encoders the stream says sit on their motors read a twist
    // ('# encoders_on_motor: J1 J2 ...'); the others read their joints.
    std::istringstream listed(s.meta("encoders_on_motor"));
    std::vector<std::string> on_motor{std::istream_iterator<std::string>(listed), std::istream_iterator<std::string>()};
    for (int j = 0; j < model.num_joints; ++j) {
      if (std::find(on_motor.begin(), on_motor.end(), model.joint_name[j]) == on_motor.end()) {
        conditioning.gear_stiffness[j] = 0.0;
      }
    }
    if (on_motor.empty()) conditioning.gear_stiffness.resize(0);
  }
  return conditioning;
}

MotionData loadMotion(const EvaluationInputs& inputs, const RigidModel& model, const TrialInfo& trial,
                      const fs::path& streams_dir, const PipelineOptions& options) {
  const SensorStream s = loadStream(inputs, model, trial, streams_dir, options);
  MotionData d = conditionStream(model, inputs.layout, s, conditioningFor(inputs, model, s, options));
  if (!model.floating_base) d.base_R = inputs.rig_R;  // gravity in the base frame of the rig as set up
  d.name = trial.name;
  d.held = trial.held;
  return d;
}

int validationJoint(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi_apriori,
                    const std::vector<MotionData>& data, double stop_velocity, std::string* reason, int threads) {
  const int nj = model.num_joints;
  Eigen::VectorXd load = Eigen::VectorXd::Zero(nj);  // Σ τ² over sliding samples
  Eigen::VectorXi sliding = Eigen::VectorXi::Zero(nj);
  int samples = 0;
  for (const MotionData& d : data) {
    const Eigen::MatrixXd tau = inverseDynamics(model, base, phi_apriori, d, threads);
    samples += d.numSamples();
    for (int t = 0; t < d.numSamples(); ++t) {
      for (int j = 0; j < nj; ++j) {
        if (std::abs(d.qd(t, j)) <= stop_velocity) continue;
        const double tj = tau(t, model.base_dofs + j) - d.F(t, model.base_dofs + j);
        load[j] += tj * tj;
        ++sliding[j];
      }
    }
  }
  int best = -1;
  for (int j = 0; j < nj; ++j) {
    if (sliding[j] > 0 && (best < 0 || load[j] > load[best])) best = j;
  }
  if (best < 0) {
    throw std::invalid_argument("validation: no joint slides (|rate| > " + std::to_string(stop_velocity) +
                                " rad/s) in any validation trial; name the validation joints in the scene "
                                "(<experiment><evaluation validation_joints=...>)");
  }
  if (reason) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "derived: %s slides in %d of %d validation samples with an a-priori RMS torque of %.3g N m there, "
                  "the most torque while sliding of any joint",
                  model.joint_name[best].c_str(), sliding[best], samples,
                  std::sqrt(load[best] / std::max(1, sliding[best])));
    *reason = line;
  }
  return best;
}

IdentificationOutcome identifyFromStreams(const EvaluationInputs& inputs, const fs::path& streams_dir,
                                          const PipelineOptions& options) {
  IdentificationOutcome out;
  checkTorqueSource(inputs);
  out.model = makeRigidModel(inputs.apriori);
  const RigidModel& model = out.model;
  out.base = computeBaseParameters(model);

  std::vector<const TrialInfo*> fit, validation;
  for (const TrialInfo& t : inputs.trials) {
    if (t.purpose == "identification") fit.push_back(&t);
    else if (wearsNothing(t) || t.name.empty()) validation.push_back(&t);
  }
  if (fit.empty()) {
    throw std::invalid_argument(inputs.scene_path +
                                ": no trial with purpose=\"identification\" (the robot is identified without the suit)");
  }
  Validation& v = out.validation;
  if (validation.empty()) {
    validation = fit;
    v.in_sample = true;
  }
  // Every stream read and conditioned on a thread of its own (parallel_for.h).
  std::vector<const TrialInfo*> all = fit;
  all.insert(all.end(), validation.begin(), validation.end());
  std::vector<MotionData> loaded(all.size());
  detail::parallelFor(static_cast<int>(all.size()), options.identification.threads, [&](int k) {
    loaded[static_cast<std::size_t>(k)] = loadMotion(inputs, model, *all[static_cast<std::size_t>(k)], streams_dir, options);
  });
  std::vector<MotionData> fit_data, validation_data;
  for (std::size_t k = 0; k < all.size(); ++k) {
    (k < fit.size() ? fit_data : validation_data).push_back(std::move(loaded[k]));
    (k < fit.size() ? out.fit_trials : v.trials).push_back(all[k]->name);
  }

  const JointParameters xi_apriori = jointParameters(model, inputs.apriori);
  IdentificationOptions identification = options.identification;
  identification.known_gains = knownGains(inputs, model);
  out.full = identifyRobot(model, out.base, xi_apriori, fit_data, identification);
  throwIfStopped();
  // B(4) reads the base rows: a fixed base has none.
  if (model.floating_base) out.base_only = identifyBaseLinkOnly(model, out.base, fit_data, options.identification);
  throwIfStopped();

  const double stop = options.identification.stop_velocity;
  const int threads = options.identification.threads;
  std::vector<int> joints;
  if (!inputs.validation_joints.empty()) {
    for (const std::string& name : inputs.validation_joints) {
      const int j = jointIndex(model, name);
      if (j < 0) throw std::invalid_argument("validation joint '" + name + "' is no movable joint of the robot");
      joints.push_back(j);
    }
    v.joints_reason = "declared in the scene";
  } else {
    joints.push_back(validationJoint(model, out.base, out.full.phi_apriori, validation_data, stop, &v.joints_reason,
                                     options.identification.threads));
  }
  for (int j : joints) v.joints.push_back(model.joint_name[j]);

  // Errors over the validation joints, every sample; the same where the joint
  // slides: at rest both models can only guess the static friction (A(8)),
  // while sliding every term of the joint equation is known.
  std::vector<double> id_joint, ap_joint, id_base, ap_base, id_slide, ap_slide;
  for (const MotionData& d : validation_data) {
    throwIfStopped();  // Ctrl-C or SIGTERM (core/stop.h)
    const ValidationErrors id = validationErrors(model, out.base, out.full.phi, out.full.xi, d, stop, threads);
    const ValidationErrors ap = validationErrors(model, out.base, out.full.phi_apriori, out.full.xi_apriori, d, stop, threads);
    std::vector<double> tid, tap;
    for (int t = 0; t < d.numSamples(); ++t) {
      for (int j : joints) {
        tid.push_back(id.joint(t, j));
        tap.push_back(ap.joint(t, j));
        if (std::abs(d.qd(t, j)) <= stop) continue;
        id_slide.push_back(id.joint(t, j));
        ap_slide.push_back(ap.joint(t, j));
      }
      if (!model.floating_base) continue;
      id_base.push_back(id.base_pitch[t]);
      ap_base.push_back(ap.base_pitch[t]);
    }
    id_joint.insert(id_joint.end(), tid.begin(), tid.end());
    ap_joint.insert(ap_joint.end(), tap.begin(), tap.end());
    v.per_trial.push_back({d.name, {rmsOf(tid), rmsOf(tap)}, {rms(id.base_pitch), rms(ap.base_pitch)}});
  }
  v.torque = {rmsOf(id_joint), rmsOf(ap_joint)};
  v.sliding_torque = {rmsOf(id_slide), rmsOf(ap_slide)};
  v.sliding_samples = static_cast<int>(id_slide.size());
  v.base_moment = {rmsOf(id_base), rmsOf(ap_base)};
  return out;
}

}  // namespace suitsim::eval
