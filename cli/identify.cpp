#include "identify.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "suitsim/eval/regressor.h"

namespace suitsim::cli {

namespace fs = std::filesystem;

namespace {

double rms(const Eigen::VectorXd& x) { return x.size() ? std::sqrt(x.squaredNorm() / static_cast<double>(x.size())) : 0.0; }

// Readable names of the standard parameters (regressor.h order), for the
// base parameters' "made of" lists.
std::string standardName(const eval::RigidModel& model, int column) {
  static const char* kNames[10] = {"m", "mcx", "mcy", "mcz", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};
  return model.body_name[column / 10] + "." + kNames[column % 10];
}

nlohmann::ordered_json estimate(double identified, double apriori, double relative_std) {
  nlohmann::ordered_json j;
  j["identified"] = identified;
  j["apriori"] = apriori;
  j["relative_std"] = std::isfinite(relative_std) ? nlohmann::json(relative_std) : nlohmann::json(nullptr);
  return j;
}

// A(5) joint-row and base-row residuals of one model on one trial.
struct ValidationErrors {
  Eigen::VectorXd base_pitch;  // (Y_o φ − F_o)[pitch]
  Eigen::VectorXd joint;       // (Y_j φ − F_j) − actuator torque, at the validation joint
};

ValidationErrors validationErrors(const eval::RigidModel& model, const eval::BaseParameters& base,
                                  const Eigen::VectorXd& phi, const eval::JointParameters& xi,
                                  const eval::MotionData& d, int joint, double stop_velocity) {
  const Eigen::MatrixXd tau = eval::inverseDynamics(model, base, phi, d);
  const Eigen::MatrixXd act = eval::actuatorTorque(model, xi, d, tau, stop_velocity);
  ValidationErrors e;
  e.base_pitch = tau.col(4) - d.F.col(4);
  e.joint = tau.col(6 + joint) - d.F.col(6 + joint) - act.col(joint);
  return e;
}

}  // namespace

bool parseRestRows(const std::string& text, eval::IdentificationOptions::RestRows* rows) {
  if (text == "exclude") *rows = eval::IdentificationOptions::RestRows::Excluded;
  else if (text == "sign-rule") *rows = eval::IdentificationOptions::RestRows::SignRule;
  else return false;
  return true;
}

fs::path streamPath(const fs::path& streams_dir, const io::TrialSpec& trial) {
  return trial.name.empty() ? streams_dir / "sensors.csv" : streams_dir / trial.name / "sensors.csv";
}

eval::MotionData loadMotion(const EvaluatorView& view, const eval::RigidModel& model, const TrialView& trial,
                            const fs::path& streams_dir, const IdentifyOptions& options) {
  const eval::SensorStream s =
      eval::readSensorStream(streamPath(streams_dir, trial.spec).string(), model, view.layout, view.sensor_rate_hz);
  // The stream must be the trial the scene says it is.
  if (!trial.spec.name.empty() && s.meta("trial") != trial.spec.name) {
    throw eval::StreamError(s.path + ":1: stream of trial '" + s.meta("trial", "?") + "', expected '" +
                            trial.spec.name + "'");
  }
  eval::MotionData d = eval::conditionStream(model, view.layout, s, options.conditioning);
  d.name = trial.spec.name;
  d.held = trial.held;
  return d;
}

IdentifyOutcome identifyFromStreams(const EvaluatorView& view, const fs::path& streams_dir,
                                    const IdentifyOptions& options) {
  IdentifyOutcome out;
  out.model = eval::makeRigidModel(view.apriori);
  const eval::RigidModel& model = out.model;
  if (!model.floating_base) throw std::invalid_argument("identification needs a floating-base robot (A §3)");
  out.base = eval::computeBaseParameters(model);

  std::vector<const TrialView*> fit, validation;
  for (const TrialView& t : view.trials) {
    if (t.spec.purpose == "identification") fit.push_back(&t);
    else if (t.spec.suit == "none" || t.spec.name.empty()) validation.push_back(&t);
  }
  if (fit.empty()) {
    throw std::invalid_argument(view.scene_path +
                                ": no trial with purpose=\"identification\" (the robot is identified without the suit)");
  }
  bool in_sample = false;
  if (validation.empty()) {
    validation = fit;
    in_sample = true;
  }
  std::vector<eval::MotionData> fit_data, validation_data;
  for (const TrialView* t : fit) {
    fit_data.push_back(loadMotion(view, model, *t, streams_dir, options));
    out.fit_trials.push_back(t->spec.name);
  }
  for (const TrialView* t : validation) {
    validation_data.push_back(loadMotion(view, model, *t, streams_dir, options));
    out.validation_trials.push_back(t->spec.name);
  }

  const eval::JointParameters xi_apriori = eval::jointParameters(model, view.apriori);
  out.full = eval::identifyRobot(model, out.base, xi_apriori, fit_data, options.identification);
  out.base_only = eval::identifyBaseLinkOnly(model, out.base, fit_data, options.identification);

  int joint = eval::jointIndex(model, options.validation_joint);
  if (joint < 0) joint = 0;
  const double stop = options.identification.stop_velocity;
  const bool sign_rule = options.identification.rest_rows == eval::IdentificationOptions::RestRows::SignRule;
  Eigen::VectorXd e_id_base, e_id_joint, e_ap_base, e_ap_joint;
  // The same joint errors over the samples where the joint slides: at rest
  // both models can only guess the static friction (A(8)), while sliding
  // every term of the joint equation is known.
  std::vector<double> s_id_joint, s_ap_joint;
  nlohmann::ordered_json per_trial = nlohmann::ordered_json::array();
  for (const eval::MotionData& d : validation_data) {
    const ValidationErrors id = validationErrors(model, out.base, out.full.phi, out.full.xi, d, joint, stop);
    const ValidationErrors ap =
        validationErrors(model, out.base, out.full.phi_apriori, out.full.xi_apriori, d, joint, stop);
    auto append = [](Eigen::VectorXd& acc, const Eigen::VectorXd& x) {
      Eigen::VectorXd joined(acc.size() + x.size());
      joined << acc, x;
      acc = joined;
    };
    append(e_id_base, id.base_pitch);
    append(e_id_joint, id.joint);
    append(e_ap_base, ap.base_pitch);
    append(e_ap_joint, ap.joint);
    for (int t = 0; t < d.numSamples(); ++t) {
      if (std::abs(d.qd(t, joint)) <= stop) continue;
      s_id_joint.push_back(id.joint[t]);
      s_ap_joint.push_back(ap.joint[t]);
    }
    nlohmann::ordered_json t;
    t["trial"] = d.name;
    t["torque_rmse_nm"] = {{"identified", rms(id.joint)}, {"apriori", rms(ap.joint)}};
    t["base_moment_rmse_nm"] = {{"identified", rms(id.base_pitch)}, {"apriori", rms(ap.base_pitch)}};
    per_trial.push_back(t);
  }

  // identification.json
  nlohmann::ordered_json& j = out.json;
  j["scene"] = view.scene_name;
  j["fit_trials"] = out.fit_trials;
  j["samples"] = out.full.num_samples;
  j["total_mass_kg"] = out.full.total_mass;
  j["apriori_total_mass_kg"] = out.full.total_mass_apriori;
  j["condition_number"] = out.full.condition_number;
  j["residual_correlation_samples"] = out.full.correlation_samples;
  j["unexcited_columns"] = out.full.unexcited_columns;
  j["base_link_only"] = {{"total_mass_kg", out.base_only.total_mass},
                         {"condition_number", out.base_only.condition_number}};
  j["validation"]["trials"] = out.validation_trials;
  j["validation"]["in_sample"] = in_sample;
  j["validation"]["joint"] = model.joint_name[joint];
  j["validation"]["torque_rmse_nm"] = {{"identified", rms(e_id_joint)}, {"apriori", rms(e_ap_joint)}};
  auto rmsOf = [](const std::vector<double>& x) {
    return rms(Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())));
  };
  j["validation"]["sliding_torque_rmse_nm"] = {{"identified", rmsOf(s_id_joint)}, {"apriori", rmsOf(s_ap_joint)},
                                               {"samples", s_id_joint.size()}};
  j["validation"]["base_moment_rmse_nm"] = {{"identified", rms(e_id_base)}, {"apriori", rms(e_ap_base)},
                                            {"axis", "base-link pitch (y)"}};
  j["validation"]["per_trial"] = per_trial;
  j["settings"] = {{"cutoff_hz", options.conditioning.cutoff_hz},
                   {"decimate", options.conditioning.decimate},
                   {"stop_velocity_rad_s", stop},
                   {"rest_rows", sign_rule ? "sign-rule" : "exclude"},
                   {"slip_velocity_rad_s", options.identification.slip_velocity},
                   {"motion_margin_s", options.identification.motion_margin_s},
                   {"static_quantile", options.identification.static_quantile},
                   {"sign_rounds", sign_rule ? options.identification.sign_rounds : 0},
                   {"w_phi", options.identification.w_phi},
                   {"w_T", options.identification.w_T},
                   {"w_d", options.identification.w_d},
                   {"w_c", options.identification.w_c},
                   {"w_s", options.identification.w_s},
                   {"w_o", options.identification.w_o}};
  nlohmann::ordered_json bp = nlohmann::ordered_json::array();
  for (int k = 0; k < out.base.numBase(); ++k) {
    nlohmann::ordered_json p = estimate(out.full.phi[k], out.full.phi_apriori[k], out.full.phi_relative_std[k]);
    p["base_link_only"] = out.base_only.phi[k];
    // A base parameter is its leading standard parameter plus the
    // dependent ones folded into it (phi_B = phi_1 + K phi_2).
    nlohmann::ordered_json made = nlohmann::ordered_json::array();
    made.push_back(standardName(model, out.base.independent[k]));
    for (std::size_t c = 0; c < out.base.dependent.size(); ++c) {
      const double kc = out.base.K(k, static_cast<Eigen::Index>(c));
      if (std::abs(kc) > 1e-9) made.push_back(std::to_string(kc) + " " + standardName(model, out.base.dependent[c]));
    }
    p["standard"] = made;
    bp.push_back(p);
  }
  j["base_parameters"] = bp;
  nlohmann::ordered_json jp;
  const eval::JointParameters& xi = out.full.xi;
  const eval::JointParameters& ref = out.full.xi_apriori;
  const eval::JointParameters& rs = out.full.xi_relative_std;
  for (int i = 0; i < model.num_joints; ++i) {
    nlohmann::ordered_json p;
    p["motor_constant"] = estimate(xi.motor_constant[i], ref.motor_constant[i], rs.motor_constant[i]);
    p["viscous"] = estimate(xi.viscous[i], ref.viscous[i], rs.viscous[i]);
    p["coulomb"] = estimate(xi.coulomb[i], ref.coulomb[i], rs.coulomb[i]);
    p["static_max"] = estimate(xi.static_max[i], ref.static_max[i], rs.static_max[i]);
    p["offset"] = estimate(xi.offset[i], ref.offset[i], rs.offset[i]);
    jp[model.joint_name[i]] = p;
  }
  j["joint_parameters"] = jp;
  // How many estimates the motions pin down to 0.5 %: three relative stds
  // within it (the data's own std, see RobotIdentification).
  static constexpr double kDetermined = 0.005 / 3.0;
  auto determined = [](const Eigen::VectorXd& rstd) { return static_cast<int>((rstd.array() < kDetermined).count()); };
  nlohmann::ordered_json ex;
  ex["relative_std_below"] = kDetermined;
  ex["base_parameters"] = determined(out.full.phi_relative_std);
  ex["motor_constant"] = determined(rs.motor_constant);
  ex["viscous"] = determined(rs.viscous);
  ex["coulomb"] = determined(rs.coulomb);
  j["determined_to_half_percent"] = ex;

  char line[512];
  std::string& s = out.summary;
  std::snprintf(line, sizeof line, "identified from %zu trials (%d samples), %d base parameters, condition number %.3g\n",
                out.fit_trials.size(), out.full.num_samples, out.base.numBase(), out.full.condition_number);
  s += line;
  std::snprintf(line, sizeof line, "total mass: %.3f kg (full), %.3f kg (base link only, B(4)), a priori %.3f kg\n",
                out.full.total_mass, out.base_only.total_mass, out.full.total_mass_apriori);
  s += line;
  std::snprintf(line, sizeof line,
                "determined to 0.5 %% (3 relative std): %d of %d base parameters; of %d joints, k_T %d, k_d %d, tau_c %d\n",
                ex["base_parameters"].get<int>(), out.base.numBase(), model.num_joints, ex["motor_constant"].get<int>(),
                ex["viscous"].get<int>(), ex["coulomb"].get<int>());
  s += line;
  std::string validated = "the fitted trials (no other suit-free trial)";
  if (!in_sample) {
    validated.clear();
    for (const std::string& n : out.validation_trials) validated += (validated.empty() ? "" : ", ") + n;
  }
  std::snprintf(line, sizeof line,
                "validation on %s: %s torque RMSE %.3f N m identified vs %.3f a priori (%.1fx); base pitch moment "
                "RMSE %.3f vs %.3f N m (%.1fx)\n",
                validated.c_str(), model.joint_name[joint].c_str(), rms(e_id_joint), rms(e_ap_joint),
                rms(e_ap_joint) / std::max(rms(e_id_joint), 1e-300), rms(e_id_base), rms(e_ap_base),
                rms(e_ap_base) / std::max(rms(e_id_base), 1e-300));
  s += line;
  if (!s_id_joint.empty()) {
    std::snprintf(line, sizeof line, "  while %s slides: torque RMSE %.3f N m identified vs %.3f a priori (%.1fx)\n",
                  model.joint_name[joint].c_str(), rmsOf(s_id_joint), rmsOf(s_ap_joint),
                  rmsOf(s_ap_joint) / std::max(rmsOf(s_id_joint), 1e-300));
    s += line;
  }
  return out;
}

}  // namespace suitsim::cli
