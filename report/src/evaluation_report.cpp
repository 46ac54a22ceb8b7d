// report.json, report.md and the curve CSVs of an evaluation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "suitsim/core/stop.h"
#include "suitsim/core/write_failure.h"
#include "suitsim/report/report.h"

namespace suitsim::report {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

ordered_json numberOrNull(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

std::string percent(double relative) {
  if (!std::isfinite(relative)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100.0 * relative);
  return buf;
}

const char* methodTitle(eval::SupportMethod m) {
  switch (m) {
    case eval::SupportMethod::kApproachA: return "approach A, identified";
    case eval::SupportMethod::kApproachB: return "approach B, identified";
    case eval::SupportMethod::kAprioriB: return "approach B, a priori";
    case eval::SupportMethod::kAprioriA: return "approach A, a priori";
  }
  return "?";
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::string formatSig(double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  char buf[64];
  const double a = std::abs(value);
  if (a == 0.0) return "0";
  if (a < 1e-4 || a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.*e", std::max(0, digits - 1), value);
    return buf;
  }
  // Decimals so that `digits` significant digits show, none beyond.
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, digits - 1 - magnitude);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

// The wearer's balance per trial, and what each suit changes in it: the
// mean margin over the trial with the suit minus without, per motion.
ordered_json balanceJson(const eval::EvaluationResult& result, const Score& score) {
  ordered_json trials = ordered_json::object(), effect = ordered_json::object();
  for (std::size_t k = 0; k < result.balance.size(); ++k) {
    const eval::BalanceEstimate& b = result.balance[k];
    const BalanceScore& t = score.balance[k];
    trials[b.trial] = {
        {"purpose", b.purpose},
        {"motion", b.motion},
        {"suit", b.suit},
        {"device", b.device},
        {"window_s", {b.window_start, b.window_end}},
        {"estimate", {{"min_margin_m", numberOrNull(b.min_margin)},
                      {"mean_margin_m", numberOrNull(b.mean_margin)},
                      {"weighed_mass_kg", b.mass}}},
        {"truth", t.has_truth ? ordered_json{{"min_margin_m", t.true_min_margin}, {"mean_margin_m", t.true_mean_margin}}
                              : ordered_json(nullptr)},
        {"margin_rmse_m", t.has_truth ? numberOrNull(t.margin_rmse) : ordered_json(nullptr)}};
  }
  for (std::size_t k = 0; k < result.balance.size(); ++k) {
    const eval::BalanceEstimate& worn = result.balance[k];
    if (worn.suit == "none" && worn.device == "none") continue;
    for (std::size_t j = 0; j < result.balance.size(); ++j) {
      const eval::BalanceEstimate& bare = result.balance[j];
      if (bare.suit != "none" || bare.device != "none" || bare.motion != worn.motion || bare.purpose != worn.purpose) continue;
      const BalanceScore &tw = score.balance[k], &tb = score.balance[j];
      // Keyed by what is worn: a suit's name, or a device's.
      effect[worn.motion][worn.suit != "none" ? worn.suit : worn.device] = {
          {"mean_margin_change_m", numberOrNull(worn.mean_margin - bare.mean_margin)},
          {"min_margin_change_m", numberOrNull(worn.min_margin - bare.min_margin)},
          {"true_mean_margin_change_m",
           tw.has_truth && tb.has_truth ? numberOrNull(tw.true_mean_margin - tb.true_mean_margin) : ordered_json(nullptr)},
          {"true_min_margin_change_m",
           tw.has_truth && tb.has_truth ? numberOrNull(tw.true_min_margin - tb.true_min_margin) : ordered_json(nullptr)}};
    }
  }
  return {{"trials", trials}, {"suit_effect", effect}};
}

// Each powered device: its supporting torque by every method against the
// straps' true moments, and its controller's settings against the scene's.
ordered_json devicesJson(const eval::EvaluationResult& result, const Score& score) {
  ordered_json devices = ordered_json::object();
  for (std::size_t k = 0; k < result.devices.size(); ++k) {
    const eval::DeviceEvaluation& d = result.devices[k];
    const DeviceScore& t = score.devices[k];
    ordered_json support = ordered_json::object();
    for (std::size_t m = 0; m < std::size(eval::kSupportMethods); ++m) {
      support[eval::methodKey(eval::kSupportMethods[m])] = {
          {"relative_rmse", numberOrNull(t.relative_rmse[m])},
          {"relative_rmse_moving", numberOrNull(t.relative_rmse_moving[m])},
          {"relative_rmse_moving_in_band", numberOrNull(t.relative_rmse_moving_in_band[m])}};
    }
    ordered_json per_joint = ordered_json::object();
    for (std::size_t i = 0; i < t.joints.size(); ++i) {
      ordered_json jm = ordered_json::object(), jb = ordered_json::object();
      for (std::size_t m = 0; m < std::size(eval::kSupportMethods); ++m) {
        jm[eval::methodKey(eval::kSupportMethods[m])] =
            t.joint_moving_samples[i] > 0 && t.joint_moving_truth_sq[i] > 0.0
                ? numberOrNull(std::sqrt(t.joint_moving_error_sq[i][m] / t.joint_moving_truth_sq[i]))
                : ordered_json(nullptr);
        jb[eval::methodKey(eval::kSupportMethods[m])] =
            t.joint_moving_samples[i] > 0 && t.joint_moving_band_truth_sq[i] > 0.0
                ? numberOrNull(std::sqrt(t.joint_moving_band_error_sq[i][m] / t.joint_moving_band_truth_sq[i]))
                : ordered_json(nullptr);
      }
      per_joint[t.joints[i]] = {
          {"true_rms_nm", std::sqrt(t.joint_truth_sq[i] / std::max(1, t.joint_samples[i]))},
          {"moving_fraction", static_cast<double>(t.joint_moving_samples[i]) / std::max(1, t.joint_samples[i])},
          {"relative_rmse_moving", jm},
          {"relative_rmse_moving_in_band", jb}};
    }
    ordered_json motions = ordered_json::array();
    for (const eval::SupportCurves& c : d.curves) {
      motions.push_back({{"motion", c.motion}, {"trial", c.suit_trial}, {"bare_trial", c.bare_trial}});
    }
    ordered_json impedance = ordered_json::object();
    for (std::size_t h = 0; h < d.impedance.size(); ++h) {
      const eval::ImpedanceEstimate& e = d.impedance[h];
      ordered_json params = ordered_json::object();
      for (int p = 0; p < eval::kImpedanceParameters; ++p) {
        params[eval::impedanceParameterKey(p)] = {
            {"estimate", e.identifiable ? numberOrNull(e.estimate[p]) : ordered_json(nullptr)},
            {"truth", t.impedance_truth[h][p]},
            {"relative_error", numberOrNull(t.impedance_relative_error[h][p])},
            {"absolute_error", numberOrNull(t.impedance_absolute_error[h][p])},
            {"relative_std", e.identifiable ? numberOrNull(e.relative_std[p]) : ordered_json(nullptr)}};
      }
      ordered_json jh = {{"aligned_joint", e.aligned_joint},
                         {"identifiable", e.identifiable},
                         {"samples", e.samples},
                         {"fit_rmse_nm", e.identifiable ? numberOrNull(e.rms_residual) : ordered_json(nullptr)},
                         {"parameters", params}};
      if (!e.identifiable) jh["reason"] = e.reason;
      impedance[e.joint] = jh;
    }
    devices[d.device] = {{"joints", d.joints},
                         {"band_hz", d.band_hz},
                         {"motions", motions},
                         {"true_supporting_torque_rms_nm", t.truth_rms},
                         {"supporting_torque", support},
                         {"supporting_torque_per_joint", per_joint},
                         {"impedance", impedance}};
  }
  return devices;
}

namespace {

// The via points the wire model used: as designed, or fitted to the bands'
// logged lengths (suit_geometry.h), with what each band's fit saw.
const eval::SuitGeometry* measuredGeometry(const eval::EvaluationResult& result, const std::string& suit) {
  for (const eval::SuitGeometry& g : result.suit_geometry) {
    if (g.suit == suit) return &g;
  }
  return nullptr;
}

ordered_json suitGeometryJson(const eval::EvaluationResult& result, const std::string& suit) {
  const eval::SuitGeometry* g = measuredGeometry(result, suit);
  ordered_json out = {{"source", g ? "measured" : "designed"}};
  if (!g) return out;
  ordered_json bands;
  for (const eval::WornBand& b : g->bands) {
    ordered_json offsets = ordered_json::array();
    for (const Eigen::Vector3d& d : b.offset) offsets.push_back({d[0], d[1], d[2]});
    bands[b.name] = {{"via_point_offsets_m", offsets},
                     {"length_offset_m", b.length_offset},
                     {"designed_length_rms_m", b.designed_rms},
                     {"worn_length_rms_m", b.worn_rms},
                     {"determined_directions", b.determined_directions},
                     {"directions", 3 * b.offset.size()},
                     {"samples", b.samples}};
  }
  out["bands"] = bands;
  return out;
}

}  // namespace

ordered_json reportJson(const eval::EvaluationResult& result, const Score& score, const RunInfo& run,
                        const ordered_json& identification, const std::vector<std::string>& plots) {
  ordered_json report;
  report["scene"] = result.scene_name;
  report["settings"] = {{"noise", run.noise},
                        {"stribeck", run.stribeck},
                        {"suit_geometry", run.suit_geometry},
                        {"band_model", run.band_model},
                        {"straps", run.straps},
                        {"realism", run.realism.source},
                        {"realism_preset", run.realism.preset},
                        {"realism_sources",
                         {{"on", run.realism.activeSources()},
                          {"seed", run.realism.seed},
                          {"via_point_offset_m", run.realism.via_point_offset},
                          {"gear_efficiency", run.realism.gear_efficiency},
                          {"backdrive_efficiency", run.realism.backdrive_efficiency},
                          {"heating_rise_at_effort_K", run.realism.heating_rise_at_effort},
                          {"heating_time_constant_s", run.realism.heating_time_constant},
                          {"magnet_coefficient_per_K", run.realism.heating_magnet_coefficient},
                          {"heating_initial_rise_K", run.realism.heating_initial_rise},
                          {"sensor_chain", run.realism.sensor_chain},
                          {"imu_cutoff_Hz", run.realism.chain_imu_cutoff},
                          {"force_cutoff_Hz", run.realism.chain_force_cutoff},
                          {"current_cutoff_Hz", run.realism.chain_current_cutoff},
                          {"sampling_jitter_s", run.realism.chain_jitter},
                          {"gyro_bias_walk_rad_per_s_sqrt_s", run.realism.chain_gyro_bias_walk},
                          {"accel_bias_walk_m_per_s2_sqrt_s", run.realism.chain_accel_bias_walk},
                          {"force_crosstalk", run.realism.chain_force_crosstalk},
                          {"force_gain_error", run.realism.chain_force_gain},
                          {"attachment_stiffness_n_per_m", run.realism.attachment_stiffness},
                          {"attachment_spread", run.realism.attachment_spread},
                          {"hysteresis_relaxing_fraction", run.realism.hysteresis_fraction},
                          {"hysteresis_relaxation_time_s", run.realism.hysteresis_relaxation_time},
                          {"gear_stiffness_per_effort_per_rad", run.realism.compliance_stiffness_per_effort},
                          {"gear_backlash_rad", run.realism.compliance_backlash},
                          {"gear_damping_ratio", run.realism.compliance_damping_ratio},
                          {"encoder_on_motor", run.realism.compliance_encoder_on_motor},
                          {"capstan_friction", run.realism.capstan_friction}}}};
  const eval::RigidModel& model = result.identification.model;
  for (std::size_t s = 0; s < result.suits.size(); ++s) {
    const eval::SuitFit& suit = result.suits[s];
    const SuitScore& truth = score.suits[s];
    ordered_json js;
    // The headline group is the suit's first (A tables 2 and 3 report type A).
    js["headline_group"] = suit.group_order.front();
    js["true_stiffness_n_per_m"] = truth.group_stiffness.front();
    std::vector<std::string> joints;
    ordered_json fit_joints;
    for (const eval::FitJoints& f : suit.fit_joints) {
      for (const std::string& j : f.joints) {
        if (std::find(joints.begin(), joints.end(), j) == joints.end()) joints.push_back(j);
      }
      fit_joints[f.motion] = {{"joints", f.joints}, {"figure_joint", f.figure_joint}, {"reason", f.reason}};
    }
    js["joints"] = joints;
    js["fit_joints"] = fit_joints;
    for (std::size_t mi = 0; mi < suit.methods.size(); ++mi) {
      const eval::MethodFit& m = suit.methods[mi];
      ordered_json jm;
      jm["stiffness_n_per_m"] = numberOrNull(m.groups.front().stiffness);
      jm["relative_error"] = numberOrNull(truth.relative_error[mi].front());
      ordered_json groups;
      for (std::size_t g = 0; g < m.groups.size(); ++g) {
        const eval::GroupEstimate& e = m.groups[g];
        ordered_json jg = {{"stiffness_n_per_m", numberOrNull(e.stiffness)},
                           {"true_stiffness_n_per_m", truth.group_stiffness[g]},
                           {"true_worn_stiffness_n_per_m", truth.group_worn_stiffness[g]},
                           {"from", e.from},
                           {"observable", e.identifiable},
                           {"identifiable", e.identifiable},
                           {"relative_std", numberOrNull(e.relative_std)},
                           {"bands", e.bands}};
        if (eval::hasMaxwellArms(suit.band_model)) {
          // The Maxwell arm of A(26)'s viscoelastic model; the truth's is the
          // realism's (docs/realism.md), the band's own before any straps.
          jg["relaxing_stiffness_n_per_m"] = numberOrNull(e.relaxing_stiffness);
          jg["relaxation_time_s"] = numberOrNull(e.relaxation_time);
          jg["true_relaxing_stiffness_n_per_m"] = run.realism.hysteresis_fraction * truth.group_stiffness[g];
          jg["true_relaxation_time_s"] = run.realism.hysteresis_relaxation_time;
        }
        if (std::isfinite(e.worn_stiffness)) {
          // The straps' correction (band_attachments.h): the estimate as worn.
          jg["worn_stiffness_n_per_m"] = e.worn_stiffness;
        }
        if (eval::hasCapstanFriction(suit.band_model)) {
          // The friction coefficient of A(26)'s capstan model; the truth's
          // is the realism's (docs/realism.md).
          jg["capstan_friction"] = numberOrNull(e.capstan_friction);
          jg["true_capstan_friction"] = run.realism.capstan_friction;
        }
        if (!e.identifiable) jg["reason"] = e.reason;
        jg["relative_error"] = numberOrNull(truth.relative_error[mi][g]);
        // The Cramér-Rao bound of k (cramer_rao.h), and the error in its units.
        const double crb = truth.crb_std[mi][g];
        jg["crb_std_n_per_m"] = numberOrNull(crb);
        jg["crb_relative_std"] = numberOrNull(crb / truth.group_stiffness[g]);
        jg["error_over_crb"] = numberOrNull(std::abs(truth.relative_error[mi][g]) * truth.group_stiffness[g] / crb);
        jg["correlations"] = correlationsJson(e.correlations);
        groups[e.name] = jg;
      }
      jm["groups"] = groups;
      ordered_json bands;
      for (std::size_t b = 0; b < m.bands.size(); ++b) {
        bands[m.bands[b].name] = {{"natural_length_m", numberOrNull(m.bands[b].natural_length)},
                                  {"true_natural_length_m", truth.natural_length[b]},
                                  {"taut_samples", m.bands[b].taut_samples},
                                  {"group", m.bands[b].group}};
      }
      jm["bands"] = bands;
      jm["fit_rmse_nm"] = m.fit_rmse;
      // How far each curve is from the model curve (A Fig. 12 captions): scoring.
      ordered_json curve_rmse;
      for (std::size_t c = 0; c < result.curves.size(); ++c) {
        if (result.curves[c].suit != suit.suit) continue;
        const CurveScore& cs = score.curves[c];
        curve_rmse[result.curves[c].motion] = {{"joint", cs.joint},
                                               {"rmse_nm", cs.rmse[mi]},
                                               {"moving_rmse_nm", cs.moving_rmse[mi]}};
      }
      jm["supporting_torque_rmse"] = curve_rmse;
      js[eval::methodKey(m.method)] = jm;
    }
    js["geometry"] = suitGeometryJson(result, suit.suit);
    report["suits"][suit.suit] = js;
  }
  (void)model;
  if (run.remedies == "auto") {
    ordered_json choices = ordered_json::array();
    for (const eval::RemedyChoice& c : run.remedy_choices) {
      choices.push_back({{"remedy", c.option}, {"setting", c.setting}, {"applied", c.applied}, {"reason", c.reason}});
    }
    report["settings"]["remedies"] = {{"mode", "auto"}, {"choices", choices}};
  }
  report["identification"] = {{"total_mass_kg", identification["total_mass_kg"]},
                              {"true_total_mass_kg", score.total_mass},
                              {"base_link_only_total_mass_kg", identification["base_link_only"]["total_mass_kg"]},
                              {"apriori_total_mass_kg", identification["apriori_total_mass_kg"]},
                              {"condition_number", identification["condition_number"]},
                              {"validation", identification["validation"]}};
  report["balance"] = balanceJson(result, score);
  report["devices"] = devicesJson(result, score);
  report["plots"] = plots;
  report["simulation_wall_time_s"] = run.simulation_wall_s;
  report["wall_time_s"] = run.wall_s;
  return report;
}

namespace {

// " (error sources on: gear, motor_heating; docs/realism.md)", or nothing.
std::string realismOn(const io::Realism& r) {
  std::string on;
  for (const std::string& s : r.activeSources()) on += (on.empty() ? "" : ", ") + s;
  return on.empty() ? "" : " (error sources on: " + on + "; docs/realism.md)";
}

// Where a setting came from, for a reader who has not seen the command
// line: "scene" means the scene file's own word, anything else an option.
std::string fromScene(const std::string& v, const std::string& option) {
  if (v == "scene") return "as the scene declares";
  return v + " (" + option + " " + v + ")";
}

// The run's settings, each with what it is: the header of report.md.
// `--remedies auto`: which ran, which could not, and why.
std::string remediesInWords(const RunInfo& run) {
  if (run.remedies != "auto") return "";
  std::string ran, not_run;
  for (const eval::RemedyChoice& c : run.remedy_choices) {
    std::string& to = c.applied ? ran : not_run;
    to += (to.empty() ? "" : "; ") + c.option + " " + c.setting + " (" + c.reason + ")";
  }
  return "; remedies chosen for the streams (--remedies auto): " + (ran.empty() ? std::string("none") : ran) +
         "; not applied: " + (not_run.empty() ? std::string("none") : not_run);
}

std::string settingsInWords(const RunInfo& run) {
  std::string realism = fromScene(run.realism.source, "--realism");
  const std::string on = realismOn(run.realism);
  realism += on.empty() ? " (no error source on: the truth is the scene as designed)" : on;
  return "sensor noise (the sensors' random errors, docs/scene-format.md): " + fromScene(run.noise, "--noise") +
         "; Stribeck friction (the joints' drop from static to sliding friction, A(7)): " +
         fromScene(run.stribeck, "--stribeck") +
         "; realism (error sources the truth has and the evaluator does not model): " + realism +
         "; suit geometry (the via points the wire model uses): " + run.suit_geometry +
         "; band model (A(26)'s law for a band's tension): " + run.band_model + remediesInWords(run);
}

}  // namespace

namespace {

// The Cramér-Rao bound of every group's k beside its error (cramer_rao.h),
// and what k trades with in the groups that are not identifiable or are
// more than kOff off.
std::string crbMarkdown(const eval::SuitFit& suit, const SuitScore& truth) {
  constexpr double kOff = 0.01;  // approach A's goal (docs/realism.md)
  std::string md = "\nThe Cramér-Rao bound of k under the sensors' declared noise (CRB std relative to the true k; "
                   "|error| / CRB where there is an estimate; docs/method.md):\n\n| method |";
  for (const std::string& g : suit.group_order) md += " `" + g + "` CRB std | \\|error\\| / CRB |";
  md += "\n|---|";
  for (std::size_t g = 0; g < suit.group_order.size(); ++g) md += "---|---|";
  md += "\n";
  std::string traded;
  for (std::size_t mi = 0; mi < suit.methods.size(); ++mi) {
    const eval::MethodFit& m = suit.methods[mi];
    md += std::string("| ") + methodTitle(m.method) + " |";
    for (std::size_t g = 0; g < m.groups.size(); ++g) {
      const double crb = truth.crb_std[mi][g] / truth.group_stiffness[g], err = truth.relative_error[mi][g];
      md += " " + (std::isfinite(crb) ? percent(crb) : std::string("-")) + " | " +
            (std::isfinite(err) && crb > 0.0 && std::isfinite(crb) ? formatSig(std::abs(err) / crb) : std::string("")) + " |";
      const eval::GroupEstimate& e = m.groups[g];
      if ((e.identifiable && !(std::abs(err) > kOff)) || e.correlations.empty()) continue;
      traded += "- " + std::string(methodTitle(m.method)) + ", `" + e.name + "`:";
      for (const eval::ParameterCorrelation& c : e.correlations) traded += " " + c.parameter + " (r " + formatSig(c.r, 2) + ")";
      traded += "\n";
    }
    md += "\n";
  }
  if (!traded.empty()) {
    md += "\nWhat k trades with in its fit (|r| >= 0.5), where it is not identifiable or more than 1 % off:\n" + traded;
  }
  return md;
}

}  // namespace

std::string reportMarkdown(const eval::EvaluationResult& result, const Score& score, const RunInfo& run,
                           const std::vector<std::string>& plots, const std::string& plot_note) {
  const eval::IdentificationOutcome& id = result.identification;
  std::string md = "# suitsim evaluation: " + result.scene_name + "\n\n";
  md += "Scene `" + run.scene_path + "`; " + settingsInWords(run) + ". " +
        std::to_string(run.num_trials) +
        (run.streams_dir.empty() ? " trials simulated in " : " trials read from " + run.streams_dir + "; simulation ") +
        formatSig(run.simulation_wall_s) + " s; whole evaluation " + formatSig(run.wall_s) + " s.\n\n";
  md += "## Robot identification (A(13)-(20), B(4))\n\n" + identificationSummary(id) +
        "true total mass (the simulator's): " + formatSig(score.total_mass, 6) + " kg\n\n";
  md += "## Band stiffness (A tables 2 and 3)\n\n"
        "Rows: (a) the simulator's truth; (b) A(26) on the supporting torque of approach A, A(3), identified "
        "parameters; (c) approach B, A(4), identified parameters; (d) approach B with the a-priori parameters "
        "(the paper's row (d)); (e) approach A with the a-priori parameters. A group that the motions do not "
        "determine is reported as not identifiable, with the reason, and gets no estimate.\n";
  const char* rows[] = {"(b)", "(c)", "(d)", "(e)"};
  for (std::size_t s = 0; s < result.suits.size(); ++s) {
    const eval::SuitFit& suit = result.suits[s];
    const SuitScore& truth = score.suits[s];
    md += "\n### Suit `" + suit.suit + "`\n\n| row | method |";
    for (const std::string& g : suit.group_order) md += " `" + g + "` k [N/m] | error |";
    md += "\n|---|---|";
    for (std::size_t g = 0; g < suit.group_order.size(); ++g) md += "---|---|";
    md += "\n| (a) | truth |";
    for (double k : truth.group_stiffness) md += " " + formatSig(k, 4) + " | |";
    md += "\n";
    std::string why;
    for (std::size_t mi = 0; mi < suit.methods.size(); ++mi) {
      const eval::MethodFit& m = suit.methods[mi];
      md += std::string("| ") + rows[mi] + " | " + methodTitle(m.method) + " |";
      for (std::size_t g = 0; g < m.groups.size(); ++g) {
        const eval::GroupEstimate& e = m.groups[g];
        md += e.identifiable ? " " + formatSig(e.stiffness, 4) + " | " + percent(truth.relative_error[mi][g]) + " |"
                             : " not identifiable | |";
        if (!e.identifiable) why += "- " + std::string(methodTitle(m.method)) + ", `" + e.name + "`: " + e.reason + "\n";
      }
      md += "\n";
    }
    if (!why.empty()) md += "\nNot identifiable:\n" + why;
    md += crbMarkdown(suit, truth);
    md += "\nFit joints per motion:\n";
    for (const eval::FitJoints& f : suit.fit_joints) {
      md += "- " + f.motion + ": " + joinNames(f.joints) + " (" + f.reason + ")\n";
    }
    if (const eval::SuitGeometry* g = measuredGeometry(result, suit.suit)) {
      md += "\nThe suit as worn, fitted to the bands' logged lengths (docs/realism.md): per band, the RMS of "
            "measured minus modelled length with the designed via points and with the fitted ones, the largest "
            "via-point displacement, and the displacement directions the motions determine:\n";
      for (const eval::WornBand& b : g->bands) {
        double largest = 0.0;
        for (const Eigen::Vector3d& d : b.offset) largest = std::max(largest, d.norm());
        md += "- `" + b.name + "`: " + formatSig(1e3 * b.designed_rms) + " mm designed, " +
              formatSig(1e3 * b.worn_rms) + " mm worn; largest displacement " + formatSig(1e3 * largest) + " mm; " +
              std::to_string(b.determined_directions) + " of " + std::to_string(3 * b.offset.size()) +
              " directions determined\n";
      }
    }
  }
  md += "\n## Supporting torque against the model (A Figs. 12-13)\n\n"
        "RMSE (N m) of each estimate from A(21) evaluated with the true bands on the measured angles, at the joint "
        "the motion is about, over the samples where that joint moves; in brackets, over every sample. Where the "
        "joint rests static friction can hold any torque up to tau_s^max (A(7)-(8)), so no method sees the "
        "supporting torque there and the all-samples figure mostly measures the rests.\n\n"
        "| motion | suit | joint | A | B | B a priori | A a priori | RMS of the model |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (std::size_t c = 0; c < result.curves.size(); ++c) {
    const CurveScore& cs = score.curves[c];
    md += "| " + result.curves[c].motion + " | " + result.curves[c].suit + " | " + cs.joint;
    for (std::size_t m = 0; m < cs.rmse.size(); ++m) {
      md += " | " + formatSig(cs.moving_rmse[m]) + " (" + formatSig(cs.rmse[m]) + ")";
    }
    md += " | " + formatSig(cs.model_rms) + " |\n";
  }
  for (std::size_t k = 0; k < result.devices.size(); ++k) {
    const eval::DeviceEvaluation& d = result.devices[k];
    const DeviceScore& t = score.devices[k];
    md += "\n## Device `" + d.device + "` (seed 001, virtual impedance)\n\n"
          "Supporting torque on the joints its straps act on (" + joinNames(d.joints) + "): RMSE of each estimate "
          "from the straps' true moments over the RMS of those, where the joint moves (at rest static friction "
          "hides the torque from every method); then against the truth in the evaluator's band (low-passed at " +
          formatSig(d.band_hz, 3) + " Hz as its channels are: what any method here can see); in brackets, over "
          "every sample.\n\n| | A | B | B a priori | A a priori |\n|---|---|---|---|---|\n| moving |";
    for (std::size_t m = 0; m < t.relative_rmse.size(); ++m) {
      md += " " + percent(t.relative_rmse_moving[m]) + " (" + percent(t.relative_rmse[m]) + ") |";
    }
    md += "\n| moving, in band |";
    for (std::size_t m = 0; m < t.relative_rmse.size(); ++m) md += " " + percent(t.relative_rmse_moving_in_band[m]) + " |";
    md += "\n\nThe controller's settings identified from the device's own logs (estimate / truth):\n\n"
          "| hinge | virtual inertia [kg m^2] | viscous [N m s/rad] | Coulomb [N m] | gravity share | assist share |\n"
          "|---|---|---|---|---|---|\n";
    std::string why;
    for (std::size_t h = 0; h < d.impedance.size(); ++h) {
      const eval::ImpedanceEstimate& e = d.impedance[h];
      md += "| " + e.joint;
      for (int p = 0; p < eval::kImpedanceParameters; ++p) {
        md += (e.identifiable ? " | " + formatSig(e.estimate[p], 3) : std::string(" | -")) + " / " +
              formatSig(t.impedance_truth[h][p], 3);
      }
      md += " |\n";
      if (!e.identifiable) why += "- " + e.joint + ": not identifiable, " + e.reason + "\n";
    }
    if (!why.empty()) md += "\n" + why;
  }
  if (!result.balance.empty()) {
    md += "\n## Balance (seed 003, (11)-(15))\n\n"
          "The DCM's margin to the support polygon (m, > 0 inside), estimated from the sensor streams (encoders "
          "and the a-priori model for the CoM, the feet's force sensors for its acceleration and the support) and "
          "the simulator's, over each trial (identification trials too: the robot must keep its balance in "
          "them as well) without its ends (the filter's edges and the robot settling; "
          "report.json gives the window), and the RMSE between the two. report.json's suit_effect says how each "
          "suit changes the margins of its motion.\n\n| trial | purpose | motion | suit | min margin | true min | mean margin | "
          "true mean | RMSE |\n"
          "|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t k = 0; k < result.balance.size(); ++k) {
      const eval::BalanceEstimate& b = result.balance[k];
      const BalanceScore& t = score.balance[k];
      const auto cell = [](bool ok, double v) { return ok && std::isfinite(v) ? formatSig(v, 3) : std::string("-"); };
      md += "| " + b.trial + " | " + b.purpose + " | " + b.motion + " | " + b.suit + " | " + cell(true, b.min_margin) + " | " +
            cell(t.has_truth, t.true_min_margin) + " | " + cell(true, b.mean_margin) + " | " +
            cell(t.has_truth, t.true_mean_margin) + " | " + cell(t.has_truth, t.margin_rmse) + " |\n";
    }
  }
  if (!plots.empty()) {
    md += "\n## Plots\n\nShaded: the joint rests in either trial (static friction, A(7)-(8), makes the torque "
          "unobservable there; the estimates are not drawn).\n\n";
    for (const std::string& p : plots) md += "![" + p + "](" + p + ")\n\n";
  } else if (!plot_note.empty()) {
    md += "\n(" + plot_note + ")\n";
  }
  return md;
}

void writeCurves(const fs::path& dir, const eval::EvaluationResult& result, const Score& score) {
  const eval::RigidModel& model = result.identification.model;
  // Each device's curves on the joints its straps act on, with the truth.
  for (std::size_t k = 0; k < result.devices.size(); ++k) {
    const eval::DeviceEvaluation& d = result.devices[k];
    for (std::size_t c = 0; c < d.curves.size(); ++c) {
      const eval::SupportCurves& curve = d.curves[c];
      const Eigen::MatrixXd& truth = score.devices[k].truth[c];
      throwIfStopped();  // Ctrl-C or SIGTERM: per file (core/stop.h)
      const fs::path path = dir / (curve.motion + "_" + d.device + ".csv");
      std::ofstream f(path);
      f << "# supporting torque of device '" << d.device << "' during motion '" << curve.motion << "' (N m, A(3)-(4)); "
        << "truth = the straps' moments from the simulator (scoring); rest = 1 where the joint rests in either trial\n";
      f << "time[s]";
      for (const std::string& j : d.joints) {
        f << "," << j << ".angle[rad]";
        for (eval::SupportMethod m : eval::kSupportMethods) f << "," << j << "." << eval::methodKey(m) << "[N*m]";
        f << "," << j << ".truth[N*m]," << j << ".rest";
      }
      f << "\n";
      char buf[64];
      for (Eigen::Index t = 0; t < curve.time.size(); ++t) {
        std::snprintf(buf, sizeof buf, "%.6g", curve.time[t]);
        f << buf;
        for (const std::string& name : d.joints) {
          const int j = eval::jointIndex(model, name);
          std::snprintf(buf, sizeof buf, ",%.9g", curve.angle(t, j));
          f << buf;
          for (const Eigen::MatrixXd& m : curve.method) {
            std::snprintf(buf, sizeof buf, ",%.9g", m(t, j));
            f << buf;
          }
          std::snprintf(buf, sizeof buf, ",%.9g,%d", truth(t, j), curve.rest(t, j) ? 1 : 0);
          f << buf;
        }
        f << "\n";
      }
      f.close();
      if (!f) throw std::runtime_error(writeFailure(path));
    }
  }
  for (std::size_t k = 0; k < result.curves.size(); ++k) {
    const eval::SupportCurves& c = result.curves[k];
    const CurveScore& cs = score.curves[k];
    // The suit's fit joints, and the figure joint first among them.
    std::vector<std::string> joints;
    for (const eval::SuitFit& s : result.suits) {
      if (s.suit != c.suit) continue;
      for (const eval::FitJoints& f : s.fit_joints) {
        for (const std::string& j : f.joints) {
          if (std::find(joints.begin(), joints.end(), j) == joints.end()) joints.push_back(j);
        }
      }
    }
    throwIfStopped();
    const fs::path path = dir / (c.motion + "_" + c.suit + ".csv");
    std::ofstream f(path);
    f << "# supporting torque of suit '" << c.suit << "' during motion '" << c.motion << "' (N m, A(3)-(4)); "
      << "model = A(21) with the true bands on the measured angles (scoring); rest = 1 where the joint rests in "
         "either trial\n";
    f << "time[s]";
    for (const std::string& j : joints) {
      f << "," << j << ".angle[rad]";
      for (eval::SupportMethod m : eval::kSupportMethods) f << "," << j << "." << eval::methodKey(m) << "[N*m]";
      f << "," << j << ".model[N*m]," << j << ".rest";
    }
    f << "\n";
    char buf[64];
    for (Eigen::Index t = 0; t < c.time.size(); ++t) {
      std::snprintf(buf, sizeof buf, "%.6g", c.time[t]);
      f << buf;
      for (const std::string& name : joints) {
        const int j = eval::jointIndex(model, name);
        std::snprintf(buf, sizeof buf, ",%.9g", c.angle(t, j));
        f << buf;
        for (const Eigen::MatrixXd& m : c.method) {
          std::snprintf(buf, sizeof buf, ",%.9g", m(t, j));
          f << buf;
        }
        std::snprintf(buf, sizeof buf, ",%.9g,%d", cs.model(t, j), c.rest(t, j) ? 1 : 0);
        f << buf;
      }
      f << "\n";
    }
    f.close();
    if (!f) throw std::runtime_error(writeFailure(path));
  }
}

}  // namespace suitsim::report
