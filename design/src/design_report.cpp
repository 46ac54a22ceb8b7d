// design.json and design.md (design_report.h).
#include "suitsim/design/design_report.h"
#include "suitsim/core/number_text.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace suitsim::design {

namespace {

nlohmann::ordered_json number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json measures(const ExcitationMeasures& m) {
  nlohmann::ordered_json j;
  j["condition_number"] = number(m.condition_number);
  j["log_det"] = number(m.log_det);
  j["unexcited_columns"] = m.unexcited_columns;
  j["unseen_directions"] = m.unseen_directions;
  return j;
}

std::map<std::string, int> rejections(const DesignResult& r) {
  std::map<std::string, int> out{{"limits", 0}, {"balance", 0}, {"collision", 0}, {"duration", 0}};
  for (const Assessment& a : r.assessments) {
    if (a.accepted) continue;
    ++out[a.rejection.substr(0, a.rejection.find(':'))];
  }
  return out;
}

std::string sig(double x, int digits = 4) { return std::isfinite(x) ? significantText(x, digits) : "-"; }

}  // namespace

nlohmann::ordered_json designReportJson(const DesignResult& r, double target, const std::vector<std::string>& files) {
  nlohmann::ordered_json j;
  j["scene"] = r.scene_path;
  j["scene_name"] = r.scene_name;
  j["budget"] = {{"trials", r.budget_trials},
                 {"trial_duration_s", r.trial_duration},
                 {"total_s", r.budget_trials * r.trial_duration}};
  j["target_relative_std"] = target;
  j["start"] = r.start;
  j["selection"] = r.selection;
  j["base_parameters"] = r.num_base;
  j["zmp_margin_m"] = r.margin;
  j["zmp_margin_reason"] = r.margin_reason;
  j["zmp_margin_rule"] = r.margin_rule;
  if (r.margin_rule == "relaxed") j["zmp_margin_relaxation"] = {{"scale", r.relax_scale}, {"bias", r.relax_bias}};
  j["support_inscribed_radius_m"] = r.inscribed_radius;
  j["generation_margin_m"] = r.generation_margin;
  nlohmann::ordered_json collision;
  collision["pairs"] = r.collision_pairs;
  std::map<std::string, int> by_shape{{"urdf", 0}, {"inertia", 0}, {"none", 0}};
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkCollision& l : r.collision_links) {
    ++by_shape[l.shape];
    links.push_back({{"link", l.link}, {"body", l.body}, {"shape", l.shape}, {"detail", l.detail}});
  }
  for (const auto& [shape, n] : by_shape) collision[shape + "_links"] = n;
  collision["links"] = links;
  j["self_collision"] = collision;
  j["speed_fraction"] = r.speed_fraction;
  j["moved_joints"] = r.moved_joints;
  j["leg_joints"] = r.leg_joints;
  int accepted = 0;
  for (const Assessment& a : r.assessments) accepted += a.accepted ? 1 : 0;
  nlohmann::ordered_json lib;
  lib["generated"] = r.generated;
  lib["from_files"] = r.from_files;
  lib["accepted"] = accepted;
  nlohmann::ordered_json rej;
  for (const auto& [k, n] : rejections(r)) rej[k] = n;
  lib["rejected"] = rej;
  nlohmann::ordered_json file_rejections = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < r.library.size(); ++k) {
    if (r.library[k].source == "generated" || r.assessments[k].accepted) continue;
    file_rejections.push_back({{"file", r.library[k].source}, {"reason", r.assessments[k].rejection}});
  }
  lib["rejected_files"] = file_rejections;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < r.library.size(); ++k) {
    const Assessment& a = r.assessments[k];
    all.push_back({{"name", r.library[k].name},
                   {"accepted", a.accepted},
                   {"rejection", a.rejection},
                   {"zmp_margin_m", number(a.zmp_margin)},
                   {"clearance_m", number(a.clearance)}});
  }
  lib["candidates"] = all;
  j["library"] = lib;
  j["scene_motions"] = measures(r.scene_motions);
  nlohmann::ordered_json its = nlohmann::ordered_json::array();
  for (const DesignIteration& it : r.iterations) {
    nlohmann::ordered_json x;
    x["iteration"] = it.iteration;
    x["criterion"] = it.criterion;
    x["added"] = it.added;
    x["fell"] = it.fell;
    x["zmp_margin_m"] = number(it.margin);
    x["zmp_margin_share"] = number(it.margin_share);
    x["margin_condition_number"] = number(it.margin_condition_number);
    x["accepted"] = it.accepted >= 0 ? nlohmann::ordered_json(it.accepted) : nlohmann::ordered_json(nullptr);
    x["planned"] = measures(it.planned);
    x["predicted_determined"] =
        it.predicted_determined >= 0 ? nlohmann::ordered_json(it.predicted_determined) : nlohmann::ordered_json(nullptr);
    // +inf (a direction the fit rows need is unseen) as the string "unseen".
    x["predicted_fit_std_n_m"] = std::isinf(it.predicted_fit_std) ? nlohmann::ordered_json("unseen")
                                                                   : number(it.predicted_fit_std);
    nlohmann::ordered_json at = nlohmann::ordered_json::array();
    for (const auto& [below, n] : it.identified.determined_at) at.push_back({{"relative_std_below", below}, {"count", n}});
    // An a-priori start's iteration 0 has no identification.
    x["identified"] = it.identified.determined < 0
                          ? nlohmann::ordered_json(nullptr)
                          : nlohmann::ordered_json{{"condition_number", number(it.identified.condition_number)},
                                                   {"determined", it.identified.determined},
                                                   {"determined_half_percent", it.identified.determined_half_percent},
                                                   {"determined_at", at},
                                                   {"total_mass_kg", number(it.identified.total_mass)}};
    // Scoring against the simulated robot (K (17)); the design never reads it.
    x["truth_base_parameter_rmse"] = number(it.truth_rmse);
    its.push_back(x);
  }
  j["iterations"] = its;
  nlohmann::ordered_json motions = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < r.chosen.size(); ++k) {
    const ChosenMotion& c = r.chosen[k];
    const CandidateMotion& m = r.library[static_cast<std::size_t>(c.candidate)];
    const Assessment& a = r.assessments[static_cast<std::size_t>(c.candidate)];
    nlohmann::ordered_json x;
    x["name"] = c.name;
    x["file"] = k < files.size() ? files[k] : "";
    x["candidate"] = m.name;
    x["source"] = m.source;
    x["iteration"] = c.iteration;
    x["duration_s"] = m.duration();
    x["keyframes"] = m.time.size();
    x["zmp_margin_m"] = number(a.zmp_margin);
    x["zmp_time_s"] = a.zmp_time;
    x["clearance_m"] = number(a.clearance);
    x["alone"] = measures(c.alone);
    motions.push_back(x);
  }
  j["motions"] = motions;
  j["stop_reason"] = r.stop_reason;
  j["suit_fit_guard"] = {{"decision", r.fit_guard},
                         {"kept_scene_motions", r.kept_scene_motions},
                         {"set_aside_scene", r.set_aside.empty() ? nlohmann::ordered_json(nullptr)
                                                                 : nlohmann::ordered_json("set_aside.xml")},
                         {"evaluation_trials", r.fit_guard_trials}};
  j["wall_time_s"] = r.wall_s;
  return j;
}

std::string designReportMarkdown(const DesignResult& r, double target, const std::vector<std::string>& files) {
  std::string s = "# Excitation design: " + r.scene_name + "\n\n";
  int accepted = 0;
  for (const Assessment& a : r.assessments) accepted += a.accepted ? 1 : 0;
  s += "Budget: " + std::to_string(r.budget_trials) + " identification trials of " + sig(r.trial_duration) +
       " s (the scene's own). Library: " + std::to_string(r.generated) + " generated and " +
       std::to_string(r.from_files) + " from files, " + std::to_string(accepted) + " pass the checks (";
  bool first = true;
  for (const auto& [k, n] : rejections(r)) {
    s += (first ? "" : ", ") + std::to_string(n) + " rejected for " + k;
    first = false;
  }
  s += "). ZMP margin " + sig(r.margin, 3) + " m (" + r.margin_reason + "), " +
       (r.margin_rule == "relaxed"
            ? "relaxed per iteration as the identified condition number falls (Kang et al. (20), a = " +
                  sig(r.relax_scale, 3) + ", b = " + sig(r.relax_bias, 3) + "; the library keeps " +
                  sig(r.generation_margin, 3) + " m, the smallest it may come to)"
            : std::string("the same in every iteration")) +
       "; joint speeds at most " + sig(r.speed_fraction, 3) + " of their limits.\n\n";
  s += "## Iterations\n\n";
  s += "Condition number and log-determinant of the stacked regressor (unit-norm columns) of the motions identified on, "
       "as planned on the a-priori model; the identification's own condition number; base parameters with a relative "
       "std below " + sig(100.0 * target, 3) + " % (and below 2, 5 and 10 times that), and within 0.5 % at three stds.\n\n";
  s += "| iteration | criterion | ZMP margin (m) | candidates passing | motions | condition number (plan) | log det (plan) | predicted | condition number "
       "(identified) | below " + sig(100.0 * target, 3) + " % | below 2, 5, 10 times | 3 std within 0.5 % | total mass (kg) | "
       "suit fit std (N m) | K (17) error (truth) |\n";
  s += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const DesignIteration& it : r.iterations) {
    std::string added;
    for (const std::string& a : it.added) added += (added.empty() ? "" : " ") + a;
    if (!it.fell.empty()) {
      added += " (fell:";
      for (const std::string& f : it.fell) added += " " + f;
      added += ")";
    }
    const bool none = it.identified.determined < 0;  // an a-priori start's iteration 0
    s += "| " + std::to_string(it.iteration) + (it.iteration == 0 ? (none ? " (a priori)" : " (scene)") : "") + " | " +
         it.criterion + " | " +
         sig(it.margin, 3) + " | " + (it.accepted >= 0 ? std::to_string(it.accepted) : "-") + " | " + added + " | " + sig(it.planned.condition_number) + " | " + sig(it.planned.log_det, 5) + " | " +
         (it.predicted_determined >= 0 ? std::to_string(it.predicted_determined) : "-") + " | " +
         sig(it.identified.condition_number) + " | " + (none ? "-" : std::to_string(it.identified.determined)) + " | " + [&] {
           std::string c;
           for (std::size_t k = 1; k < it.identified.determined_at.size(); ++k) {
             c += (k > 1 ? ", " : "") + std::to_string(it.identified.determined_at[k].second);
           }
           return c;
         }() + " | " +
         (none ? "-" : std::to_string(it.identified.determined_half_percent)) + " | " + sig(it.identified.total_mass, 5) +
         " | " + (std::isinf(it.predicted_fit_std) ? std::string("unseen") : sig(it.predicted_fit_std)) + " | " +
         sig(it.truth_rmse) + " |\n";
  }
  s += std::string(r.start == "apriori" ? "\nIteration 0 is the a-priori model (nothing simulated)"
                                       : "\nIteration 0 is the scene's own identification motions, which the design replaces") +
       (r.selection == "random" ? "; every iteration chose at random among the motions that pass its checks" : "") +
       ". The K (17) error is scoring against the simulated robot: the RMS of the base parameters' errors, which the "
       "design never reads. Stopped: " + r.stop_reason + ".\n\n";
  s += "## The suit-fit guard\n\nThe suit fit std is the predicted std of the identified model's torque on the suit's "
       "fit joints along the evaluation motions (approach B's error from the identification; \"unseen\": the motions "
       "leave a direction it needs undetermined). A design that predicts a worse one than the scene's own motions is "
       "not proposed. Decision: " +
       r.fit_guard + "." +
       (r.set_aside.empty() ? std::string()
                            : " The design set aside is in `set_aside.xml`, to evaluate as `scene.xml` is.") +
       "\n\n";
  for (const std::string& t : r.fit_guard_trials) s += "- " + t + "\n";
  s += "\n## Chosen motions\n\n";
  s += "| trial | file | candidate | iteration | duration (s) | ZMP margin (m) | at (s) | clearance (m) | condition "
       "number alone |\n|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t k = 0; k < r.chosen.size(); ++k) {
    const ChosenMotion& c = r.chosen[k];
    const CandidateMotion& m = r.library[static_cast<std::size_t>(c.candidate)];
    const Assessment& a = r.assessments[static_cast<std::size_t>(c.candidate)];
    s += "| " + c.name + " | " + (k < files.size() ? files[k] : "") + " | " + m.name + " | " +
         std::to_string(c.iteration) + " | " + sig(m.duration()) + " | " + sig(a.zmp_margin, 3) + " | " +
         sig(a.zmp_time, 3) + " | " + sig(a.clearance, 3) + " | " + sig(c.alone.condition_number) + " |\n";
  }
  s += "\n## Self-collision\n\n" + std::to_string(r.collision_pairs) +
       " pairs of bodies checked (those apart in the initial stance, not parent and child, not siblings).\n\n";
  s += "| shape | links |\n|---|---|\n";
  for (const char* shape : {"urdf", "inertia", "none"}) {
    std::map<std::string, std::string> by_detail;
    for (const LinkCollision& l : r.collision_links) {
      if (l.shape != shape) continue;
      std::string& names = by_detail[l.detail];
      names += (names.empty() ? "" : ", ") + l.link;
    }
    for (const auto& [detail, names] : by_detail) {
      const std::string what = std::string(shape) == "urdf"      ? "URDF " + detail
                               : std::string(shape) == "inertia" ? "capsule from inertia (" + detail + ")"
                                                                 : "nothing (" + detail + ")";
      s += "| " + what + " | " + names + " |\n";
    }
  }
  s += "\n`scene.xml` is the input scene with these trials as its identification trials: `suitsim evaluate scene.xml "
       "--out OUT` evaluates it.\n";
  return s;
}

}  // namespace suitsim::design
