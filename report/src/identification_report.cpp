// identification.json and the identification summary lines.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "suitsim/rigid/regressor.h"
#include "suitsim/report/report.h"

namespace suitsim::report {

namespace {

using nlohmann::ordered_json;

// Readable names of the standard parameters (regressor.h order), for the
// base parameters' "made of" lists.
std::string standardName(const eval::RigidModel& model, int column) {
  static const char* kNames[10] = {"m", "mcx", "mcy", "mcz", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};
  return model.body_name[column / 10] + "." + kNames[column % 10];
}

ordered_json estimate(double identified, double apriori, double relative_std) {
  ordered_json j;
  j["identified"] = identified;
  j["apriori"] = apriori;
  j["relative_std"] = std::isfinite(relative_std) ? ordered_json(relative_std) : ordered_json(nullptr);
  return j;
}

ordered_json rmsePair(const eval::RmsePair& p) { return {{"identified", p.identified}, {"apriori", p.apriori}}; }

// How many estimates the motions pin down to 0.5 %: three relative stds
// within it (the data's own std, see RobotIdentification).
constexpr double kDetermined = 0.005 / 3.0;
int determined(const Eigen::VectorXd& rstd) { return static_cast<int>((rstd.array() < kDetermined).count()); }

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

ordered_json identificationJson(const eval::IdentificationOutcome& id, const std::string& scene_name,
                                const eval::PipelineOptions& options) {
  const eval::RigidModel& model = id.model;
  const eval::Validation& v = id.validation;
  const double stop = options.identification.stop_velocity;
  const bool sign_rule = options.identification.rest_rows == eval::IdentificationOptions::RestRows::SignRule;
  ordered_json j;
  j["scene"] = scene_name;
  j["fit_trials"] = id.fit_trials;
  j["samples"] = id.full.num_samples;
  j["total_mass_kg"] = id.full.total_mass;
  j["apriori_total_mass_kg"] = id.full.total_mass_apriori;
  j["condition_number"] = id.full.condition_number;
  j["residual_correlation_samples"] = id.full.correlation_samples;
  j["unexcited_columns"] = id.full.unexcited_columns;
  j["base_link_only"] = {{"total_mass_kg", id.base_only.total_mass}, {"condition_number", id.base_only.condition_number}};
  if (!model.floating_base) {
    // Fixed base (docs/method.md): joint rows only; what gave their torque.
    j["fixed_base"] = {{"torque_source", id.full.torque_sensors ? "joint_torque_sensors" : "currents"}};
  }
  j["validation"]["trials"] = v.trials;
  j["validation"]["in_sample"] = v.in_sample;
  j["validation"]["joint"] = v.joints.empty() ? "" : v.joints.front();
  j["validation"]["joints"] = v.joints;
  j["validation"]["joints_reason"] = v.joints_reason;
  j["validation"]["torque_rmse_nm"] = rmsePair(v.torque);
  j["validation"]["sliding_torque_rmse_nm"] = rmsePair(v.sliding_torque);
  j["validation"]["sliding_torque_rmse_nm"]["samples"] = v.sliding_samples;
  j["validation"]["base_moment_rmse_nm"] = rmsePair(v.base_moment);
  j["validation"]["base_moment_rmse_nm"]["axis"] = "base-link pitch (y)";
  ordered_json per_trial = ordered_json::array();
  for (const eval::Validation::Trial& t : v.per_trial) {
    per_trial.push_back({{"trial", t.name}, {"torque_rmse_nm", rmsePair(t.torque)}, {"base_moment_rmse_nm", rmsePair(t.base_moment)}});
  }
  j["validation"]["per_trial"] = per_trial;
  const eval::IdentificationOptions& o = options.identification;
  j["settings"] = {{"cutoff_hz", options.conditioning.cutoff_hz},
                   {"decimate", options.conditioning.decimate},
                   {"stop_velocity_rad_s", stop},
                   {"rest_rows", sign_rule ? "sign-rule" : "exclude"},
                   {"armature", eval::armatureName(o.armature)},
                   {"gear", eval::gearName(o.gear)},
                   {"heating", eval::heatingName(options.heating)},
                   {"sensor_delay", eval::sensorDelayName(options.sensor_delay)},
                   {"gear_twist", eval::gearTwistName(options.gear_twist)},
                   {"slip_velocity_rad_s", o.slip_velocity},
                   {"motion_margin_s", o.motion_margin_s},
                   {"static_quantile", o.static_quantile},
                   {"sign_rounds", sign_rule ? o.sign_rounds : 0},
                   {"w_phi", o.w_phi},
                   {"w_T", o.w_T},
                   {"w_d", o.w_d},
                   {"w_c", o.w_c},
                   {"w_s", o.w_s},
                   {"w_o", o.w_o}};
  ordered_json bp = ordered_json::array();
  for (int k = 0; k < id.base.numBase(); ++k) {
    ordered_json p = estimate(id.full.phi[k], id.full.phi_apriori[k], id.full.phi_relative_std[k]);
    // B(4) needs base rows: none on a fixed base (null).
    p["base_link_only"] = k < id.base_only.phi.size() ? ordered_json(id.base_only.phi[k]) : ordered_json();
    // A base parameter is its leading standard parameter plus the dependent
    // ones folded into it (phi_B = phi_1 + K phi_2).
    ordered_json made = ordered_json::array();
    made.push_back(standardName(model, id.base.independent[k]));
    for (std::size_t c = 0; c < id.base.dependent.size(); ++c) {
      const double kc = id.base.K(k, static_cast<Eigen::Index>(c));
      if (std::abs(kc) > 1e-9) made.push_back(std::to_string(kc) + " " + standardName(model, id.base.dependent[c]));
    }
    p["standard"] = made;
    bp.push_back(p);
  }
  j["base_parameters"] = bp;
  ordered_json jp;
  const eval::JointParameters& xi = id.full.xi;
  const eval::JointParameters& ref = id.full.xi_apriori;
  const eval::JointParameters& rs = id.full.xi_relative_std;
  for (int i = 0; i < model.num_joints; ++i) {
    ordered_json p;
    p["motor_constant"] = estimate(xi.motor_constant[i], ref.motor_constant[i], rs.motor_constant[i]);
    p["viscous"] = estimate(xi.viscous[i], ref.viscous[i], rs.viscous[i]);
    p["coulomb"] = estimate(xi.coulomb[i], ref.coulomb[i], rs.coulomb[i]);
    p["static_max"] = estimate(xi.static_max[i], ref.static_max[i], rs.static_max[i]);
    p["offset"] = estimate(xi.offset[i], ref.offset[i], rs.offset[i]);
    p["armature"] = estimate(xi.armature[i], ref.armature[i], rs.armature[i]);
    p["backdrive_excess"] = estimate(xi.backdrive_excess[i], ref.backdrive_excess[i], rs.backdrive_excess[i]);
    jp[model.joint_name[i]] = p;
  }
  j["joint_parameters"] = jp;
  // Motors that turn with several joints (a coupled wrist): motor-side
  // rotor inertia and friction (identification.h, CoupledDrive).
  if (!xi.drives.empty()) {
    ordered_json drives = ordered_json::array();
    for (std::size_t c = 0; c < xi.drives.size(); ++c) {
      const eval::CoupledDrive &d = xi.drives[c], &d0 = ref.drives[c], &dr = rs.drives[c];
      ordered_json e;
      e["motor"] = d.name;
      ordered_json row;
      for (int i = 0; i < model.num_joints; ++i) {
        if (d.row[i] != 0.0) row[model.joint_name[i]] = d.row[i];
      }
      e["row"] = row;
      e["rotor_inertia"] = estimate(d.rotor_inertia, d0.rotor_inertia, dr.rotor_inertia);
      e["viscous"] = estimate(d.viscous, d0.viscous, dr.viscous);
      e["coulomb"] = estimate(d.coulomb, d0.coulomb, dr.coulomb);
      drives.push_back(e);
    }
    j["coupled_drives"] = drives;
  }
  ordered_json ex;
  ex["relative_std_below"] = kDetermined;
  ex["base_parameters"] = determined(id.full.phi_relative_std);
  ex["motor_constant"] = determined(rs.motor_constant);
  ex["viscous"] = determined(rs.viscous);
  ex["coulomb"] = determined(rs.coulomb);
  ex["armature"] = determined(rs.armature);
  ex["backdrive_excess"] = determined(rs.backdrive_excess);
  j["determined_to_half_percent"] = ex;
  // The columns that trade most (parameter_correlation.h).
  ordered_json pairs = ordered_json::array();
  for (const auto& c : id.full.correlated_pairs) pairs.push_back({{"a", c.a}, {"b", c.b}, {"r", c.r}});
  j["correlated_pairs"] = {{"min_abs_r", eval::kStrongCorrelation},
                           {"count", id.full.correlated_pair_count},
                           {"strongest", pairs}};
  return j;
}

ordered_json correlationsJson(const std::vector<eval::ParameterCorrelation>& correlations) {
  ordered_json out = ordered_json::array();
  for (const eval::ParameterCorrelation& c : correlations) out.push_back({{"parameter", c.parameter}, {"r", c.r}});
  return out;
}

ordered_json bandFitsJson(const eval::EvaluationResult& result) {
  ordered_json out;
  for (const eval::SuitFit& suit : result.suits) {
    for (const eval::MethodFit& m : suit.methods) {
      for (const eval::GroupEstimate& e : m.groups) {
        out[suit.suit][eval::methodKey(m.method)][e.name] = {
            {"from", e.from}, {"identifiable", e.identifiable}, {"correlations", correlationsJson(e.correlations)}};
      }
    }
  }
  return out;
}

// What the count of determined base parameters means for the estimates. A
// base parameter is a combination of link inertias (B(4)); the motions
// excite few of them strongly, and the band estimates never use one alone:
// they use the model's torque Y(q, q', q'') phi at the fit joints, A(21),
// whose error the validation line measures directly. The median relative
// std says how loose the typical one is.
static std::string determinedMeaning(const eval::IdentificationOutcome& id) {
  const Eigen::VectorXd& r = id.full.phi_relative_std;
  std::vector<double> v;
  for (Eigen::Index k = 0; k < r.size(); ++k) {
    if (std::isfinite(r[k])) v.push_back(r[k]);
  }
  if (v.empty()) return "what this means: no base parameter has a finite standard deviation";
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return "what this means: a base parameter is a combination of link inertias, and the median one has a relative "
         "std of " + formatSig(100.0 * v[v.size() / 2], 2) + " %; the supporting torque uses no parameter alone "
         "but the model's torque at the fit joints, whose error against the measured torque the validation line "
         "below gives (identified against a priori): judge the model by that line, not by this count";
}

std::string identificationSummary(const eval::IdentificationOutcome& id) {
  const eval::RigidModel& model = id.model;
  const eval::Validation& v = id.validation;
  const eval::JointParameters& rs = id.full.xi_relative_std;
  std::string s;
  s += "identified from " + std::to_string(id.fit_trials.size()) + " trials (" + std::to_string(id.full.num_samples) +
       " samples), " + std::to_string(id.base.numBase()) + " base parameters, condition number " +
       formatSig(id.full.condition_number) + "\n";
  if (model.floating_base) {
    s += "total mass: " + formatSig(id.full.total_mass, 6) + " kg (full), " + formatSig(id.base_only.total_mass, 6) +
         " kg (base link only, B(4)), a priori " + formatSig(id.full.total_mass_apriori, 6) + " kg\n";
  } else {
    s += "fixed base: joint rows only (the rig holds the base: no total mass, no B(4)); joint torques from " +
         std::string(id.full.torque_sensors ? "the link-side torque sensors" : "the motor currents") + "\n";
  }
  s += "determined to 0.5 % (3 relative std): " + std::to_string(determined(id.full.phi_relative_std)) + " of " +
       std::to_string(id.base.numBase()) + " base parameters; of " + std::to_string(model.num_joints) + " joints, k_T " +
       std::to_string(determined(rs.motor_constant)) + ", k_d " + std::to_string(determined(rs.viscous)) + ", tau_c " +
       std::to_string(determined(rs.coulomb)) + "\n";
  s += "  " + determinedMeaning(id) + "\n";
  for (std::size_t c = 0; c < id.full.xi.drives.size(); ++c) {
    const eval::CoupledDrive &d = id.full.xi.drives[c], &dr = rs.drives[c];
    auto withStd = [](double value, double relative) {
      return formatSig(value, 3) + (std::isfinite(relative) ? " (" + formatSig(100.0 * relative, 2) + " %)" : "");
    };
    s += "coupled motor " + d.name + " (motor side): rotor inertia " + withStd(d.rotor_inertia, dr.rotor_inertia) +
         " kg m^2, viscous " + withStd(d.viscous, dr.viscous) + " N m s/rad, Coulomb " + withStd(d.coulomb, dr.coulomb) +
         " N m\n";
  }
  const std::string validated = v.in_sample ? "the fitted trials (no other suit-free trial)" : joinNames(v.trials);
  auto ratio = [](const eval::RmsePair& p) { return formatSig(p.apriori / std::max(p.identified, 1e-300), 2) + "x"; };
  s += "validation on " + validated + ": " + joinNames(v.joints) + " torque RMSE " + formatSig(v.torque.identified) +
       " N m identified vs " + formatSig(v.torque.apriori) + " a priori (" + ratio(v.torque) + ")";
  if (model.floating_base) {
    s += "; base pitch moment RMSE " + formatSig(v.base_moment.identified) + " vs " + formatSig(v.base_moment.apriori) +
         " N m (" + ratio(v.base_moment) + ")";
  }
  s += "\n";
  if (v.sliding_samples > 0) {
    s += "  while sliding: torque RMSE " + formatSig(v.sliding_torque.identified) + " N m identified vs " +
         formatSig(v.sliding_torque.apriori) + " a priori (" + ratio(v.sliding_torque) + ")\n";
  }
  s += "  validation joints: " + v.joints_reason + "\n";
  return s;
}

nlohmann::ordered_json logJson(const eval::LogReading& logs) {
  nlohmann::ordered_json j;
  j["map"] = logs.map.path;
  j["format"] = logs.map.format == eval::LogMap::Format::Csv ? "csv" : "hdf5";
  j["on_bad_sample"] = logs.map.on_bad_sample == eval::BadSample::Drop ? "drop" : "refuse";
  nlohmann::ordered_json trials = nlohmann::ordered_json::array();
  for (const eval::LogTrialReading& t : logs.trials) {
    nlohmann::ordered_json e = {{"trial", t.trial}, {"file", t.file}};
    if (!t.group.empty()) e["group"] = t.group;
    e["first_row"] = t.first_row;
    e["rows"] = t.rows;
    e["rate_hz"] = t.rate_hz;
    e["dropped"] = t.dropped;
    e["filled"] = t.filled;
    e["dropped_by_rule"] = t.dropped_by_rule;
    trials.push_back(e);
  }
  j["trials"] = trials;
  j["steps"] = logs.steps;
  return j;
}

}  // namespace suitsim::report
