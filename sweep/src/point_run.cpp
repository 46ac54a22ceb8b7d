// One point of a sweep: the whole evaluation of its scene, as `suitsim
// evaluate` does it, through the libraries, on one thread.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "suitsim/core/stop.h"
#include "suitsim/eval/evaluation.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/eval/supporting_torque.h"
#include "suitsim/experiment/interrupt.h"
#include "suitsim/experiment/trials.h"
#include "suitsim/scene/scene.h"
#include "suitsim/report/report.h"
#include "suitsim/report/scoring.h"
#include "suitsim/report/truth.h"
#include "suitsim/sweep/sweep.h"
#include "suitsim/sweep/table.h"
#include "suitsim/core/number_text.h"

namespace suitsim::sweep {

namespace fs = std::filesystem;

namespace {

// A table cell: empty for a value not there.
std::string number(double x) {
  if (!std::isfinite(x)) return {};
  return significantText(x, 10);
}

ResultLayout layoutOf(const eval::EvaluationInputs& inputs) {
  ResultLayout layout;
  for (const eval::TrialInfo& t : inputs.trials) {
    if (t.purpose != "evaluation" || t.suit == "none" || t.suit.empty()) continue;
    bool known = false;
    for (const ResultLayout::Suit& s : layout.suits) known = known || s.name == t.suit;
    if (known) continue;
    ResultLayout::Suit suit{t.suit, {}};
    for (const eval::BandRoute& b : t.bands) {
      bool seen = false;
      for (const std::string& g : suit.groups) seen = seen || g == b.group;
      if (!seen) suit.groups.push_back(b.group);
    }
    layout.suits.push_back(suit);
  }
  return layout;
}

bool sameLayout(const ResultLayout& a, const ResultLayout& b) {
  if (a.suits.size() != b.suits.size()) return false;
  for (std::size_t s = 0; s < a.suits.size(); ++s) {
    if (a.suits[s].name != b.suits[s].name || a.suits[s].groups != b.suits[s].groups) return false;
  }
  return true;
}

std::string describe(const ResultLayout& l) {
  std::string out;
  for (const ResultLayout::Suit& s : l.suits) {
    out += (out.empty() ? "" : "; ") + s.name + ":";
    for (const std::string& g : s.groups) out += " " + g;
  }
  return out.empty() ? "no suit" : out;
}

void writeText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error("cannot write '" + file.string() + "'");
}

// Loads what the evaluation of `scene` needs, as `suitsim evaluate` checks
// it before running: the trials, the evaluator's inputs, the truth.
eval::EvaluationInputs checkScene(const std::string& scene, const fs::path& trials_dir) {
  experiment::prepareTrials(scene, "", {}, trials_dir);
  eval::EvaluationInputs inputs = eval::loadEvaluationInputs(scene);
  report::loadTruth(scene);
  if (inputs.trials.front().name.empty()) {
    throw std::invalid_argument(scene + ": no <experiment>: a sweep point is an evaluation and needs trials");
  }
  eval::pairTrials(inputs);
  return inputs;
}

}  // namespace

std::vector<std::string> resultsHeader(const SweepSpec& spec, const ResultLayout& layout) {
  std::vector<std::string> h{"point", "id"};
  for (const Parameter& p : spec.parameters) h.push_back(p.name);
  if (spec.seeds.count > 0) h.push_back("seed");
  h.push_back("status");
  for (const ResultLayout::Suit& s : layout.suits) {
    for (const std::string& g : s.groups) {
      const std::string prefix = s.name + "." + g + ".";
      h.push_back(prefix + "true_stiffness");
      for (eval::SupportMethod m : eval::kSupportMethods) {
        h.push_back(prefix + eval::methodKey(m) + ".stiffness");
        h.push_back(prefix + eval::methodKey(m) + ".relative_error");
        h.push_back(prefix + eval::methodKey(m) + ".crb_relative_std");
      }
    }
  }
  for (const char* c : {"identification.condition_number", "identification.determined_1pct",
                        "identification.total_mass_relative_error", "validation.torque_rmse",
                        "validation.torque_rmse_apriori"}) {
    h.push_back(c);
  }
  // The other evaluators of the same streams: the estimates and the
  // validation only (the truth columns are the default's).
  for (const std::string& name : evaluatorNames(spec)) {
    for (const ResultLayout::Suit& s : layout.suits) {
      for (const std::string& g : s.groups) {
        const std::string prefix = name + "/" + s.name + "." + g + ".";
        for (eval::SupportMethod m : eval::kSupportMethods) {
          h.push_back(prefix + eval::methodKey(m) + ".stiffness");
          h.push_back(prefix + eval::methodKey(m) + ".relative_error");
        h.push_back(prefix + eval::methodKey(m) + ".crb_relative_std");
        }
      }
    }
    h.push_back(name + "/validation.torque_rmse");
    h.push_back(name + "/settings");  // empty where no element of the name applies
  }
  h.push_back("simulation_time_s");
  h.push_back("wall_time_s");
  return h;
}

ResultLayout checkPoints(const SweepSpec& spec, const std::string& base_xml, const fs::path& scratch,
                         bool every_value) {
  const std::vector<Point> all = enumeratePoints(spec);
  const Point& first = all.front();
  ResultLayout layout;
  bool have_layout = false;
  // The first point, then each parameter's values in turn (the seed is an
  // integer the scene takes for any point, so its first value stands for all).
  std::vector<std::pair<int, Point>> variants{{-1, first}};
  for (std::size_t k = 0; every_value && k < spec.parameters.size(); ++k) {
    for (std::size_t v = 1; v < spec.parameters[k].values.size(); ++v) {
      Point p = first;
      p.values[k] = spec.parameters[k].values[v];
      variants.emplace_back(static_cast<int>(k), p);
    }
  }
  fs::create_directories(scratch);
  // The scratch folder goes whether the checks pass or throw.
  struct Remove {
    fs::path dir;
    ~Remove() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } remove{scratch};
  const fs::path scene = scratch / "scene.xml";
  for (const auto& [k, point] : variants) {
    const Parameter* p = k >= 0 ? &spec.parameters[static_cast<std::size_t>(k)] : nullptr;
    const std::string where =
        spec.path + ":" +
        (p ? std::to_string(p->line) + ": <parameter> '" + p->name + "' = '" + point.values[static_cast<std::size_t>(k)] +
                 "'"
           : std::to_string(spec.scene_line) + ": <sweep> the first point") +
        " makes a scene that cannot be evaluated: ";
    // The scratch scene is gone when the user reads the message: its
    // "path:line: " gives way to the base scene it was made from.
    const auto explain = [&](std::string message) {
      const std::string prefix = scene.string() + ":";
      if (message.rfind(prefix, 0) == 0) {
        const std::size_t end = message.find(": ", prefix.size());
        if (end != std::string::npos) message = message.substr(end + 2);
        message += " (in " + spec.scene + " with the point's values)";
      }
      return io::SceneError(where + message);
    };
    ResultLayout l;
    try {
      writeText(scene, pointScene(spec, base_xml, point));
      l = layoutOf(checkScene(scene.string(), scratch / "trials"));
    } catch (const io::SceneError& e) {
      throw explain(e.what());
    } catch (const std::invalid_argument& e) {
      throw explain(e.what());
    }
    if (!have_layout) {
      layout = l;
      have_layout = true;
    } else if (!sameLayout(layout, l)) {
      throw io::SceneError(where + "its suits and groups (" + describe(l) + ") differ from the first point's (" +
                           describe(layout) + "): every row of the table must report the same");
    }
  }
  return layout;
}

std::vector<std::string> runPoint(const SweepSpec& spec, const std::string& base_xml, const ResultLayout& layout,
                                  const Point& point, const fs::path& out, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path dir = out / "points" / point.id;
  std::error_code ec;
  fs::remove_all(dir, ec);  // what an interrupted run of this point left
  fs::create_directories(dir);
  const fs::path scene = dir / "scene.xml";
  writeText(scene, pointScene(spec, base_xml, point));
  const fs::path trials_dir = dir / "trials";

  const std::vector<std::string> header = resultsHeader(spec, layout);
  std::vector<std::string> row(header.size());
  std::size_t c = 0;
  row[c++] = std::to_string(point.index);
  row[c++] = point.id;
  for (const std::string& v : point.values) row[c++] = csvField(v);
  if (spec.seeds.count > 0) row[c++] = std::to_string(point.seed);
  const std::size_t status_col = c++;
  // Messages name files inside DIR: shown relative to it, so that a row does
  // not depend on where the sweep was written.
  const auto relative = [&](std::string message) {
    const std::string prefix = out.string() + "/";
    for (std::size_t at; (at = message.find(prefix)) != std::string::npos;) message.erase(at, prefix.size());
    return message;
  };
  double sim_wall = 0.0;
  try {
    std::vector<experiment::TrialJob> jobs = experiment::prepareTrials(scene.string(), "", {}, trials_dir);
    fs::create_directories(trials_dir);
    const bool ok = experiment::simulateTrials(jobs, 1);
    if (!ok) {
      experiment::commitTrials(jobs, false);
      if (experiment::interruptSignal()) {
        fs::remove_all(dir, ec);
        throw Interrupted{};
      }
      std::string why = "failed";
      for (const experiment::TrialJob& j : jobs) {
        if (!j.ok && !j.error.empty()) {
          why = "trial " + j.scene.trial.name + ": " + j.error;
          break;
        }
      }
      row[status_col] = csvField(relative(why));
    } else {
      std::string error;
      if (!experiment::commitTrials(jobs, true, &error)) throw std::runtime_error(error);
      sim_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

      eval::EvaluationInputs inputs = eval::loadEvaluationInputs(scene.string());
      eval::pairTrials(inputs);
      if (!sameLayout(layoutOf(inputs), layout)) throw std::invalid_argument("the suits differ from the first point's");
      const report::Truth truth = report::loadTruth(scene.string());
      // The default evaluation, then each other evaluator of the same
      // streams; one that does not apply at this point leaves its columns
      // empty.
      const std::vector<std::string> names = evaluatorNames(spec);
      for (std::size_t k = 0; k <= names.size(); ++k) {
        const Evaluator* ev = k > 0 ? evaluatorAt(spec, names[k - 1], point.values) : nullptr;
        if (k > 0 && !ev) {
          for (const ResultLayout::Suit& s : layout.suits) c += s.groups.size() * 2 * std::size(eval::kSupportMethods);
          c += 2;  // its validation and settings
          continue;
        }
        eval::EvaluationOptions eo;
        eo.pipeline.identification.threads = 1;  // the points are the parallelism
        if (ev) {
          // Checked when the sweep file was read.
          eval::parseGear(ev->gear, &eo.pipeline.identification.gear);
          eval::parseArmature(ev->armature, &eo.pipeline.identification.armature);
          eval::parseHeating(ev->heating, &eo.pipeline.heating);
          eval::parseSensorDelay(ev->sensor_delay, &eo.pipeline.sensor_delay);
          eval::parseGearTwist(ev->gear_twist, &eo.pipeline.gear_twist);
          eval::parseSuitGeometry(ev->suit_geometry, &eo.suit_geometry);
          eval::parseBandModel(ev->band_model, &eo.band_model);
          eval::parseStraps(ev->straps, &eo.straps);
        }
        const eval::EvaluationResult result = eval::evaluateStreams(inputs, trials_dir, eo);
        const report::Score score = report::scoreEvaluation(result, truth);

        report::RunInfo run;
        run.scene_path = scene.string();
        run.num_trials = inputs.trials.size();
        run.simulation_wall_s = sim_wall;
        run.realism = truth.realism;
        run.suit_geometry = eval::suitGeometryName(eo.suit_geometry);
        run.band_model = eval::bandModelName(eo.band_model);
        run.straps = eval::strapsName(eo.straps);
        run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        auto id_json = report::identificationJson(result.identification, inputs.scene_name, eo.pipeline);
        id_json["band_fits"] = report::bandFitsJson(result);
        const std::string suffix = ev ? "_" + ev->name : "";
        writeText(dir / ("identification" + suffix + ".json"), id_json.dump(2) + "\n");
        writeText(dir / ("report" + suffix + ".json"), report::reportJson(result, score, run, id_json, {}).dump(2) + "\n");

        for (std::size_t s = 0; s < layout.suits.size(); ++s) {
          const eval::SuitFit& fit = result.suits[s];
          for (std::size_t g = 0; g < layout.suits[s].groups.size(); ++g) {
            if (!ev) row[c++] = number(score.suits[s].group_stiffness[g]);
            for (std::size_t m = 0; m < fit.methods.size(); ++m) {
              const eval::GroupEstimate& e = fit.methods[m].groups[g];
              row[c++] = e.identifiable ? number(e.stiffness) : "";
              row[c++] = e.identifiable ? number(score.suits[s].relative_error[m][g]) : "";
              // The Cramér-Rao bound relative to the true k (cramer_rao.h), identifiable or not.
              const double crb = score.suits[s].crb_std[m][g] / score.suits[s].group_stiffness[g];
              row[c++] = std::isfinite(crb) ? number(crb) : "";
            }
          }
        }
        if (ev) {
          row[c++] = number(result.identification.validation.torque.identified);
          row[c++] = csvField(evaluatorSettings(*ev));
          continue;
        }
        const eval::RobotIdentification& id = result.identification.full;
        int determined = 0;
        for (Eigen::Index i = 0; i < id.phi_relative_std.size(); ++i) determined += id.phi_relative_std[i] < 0.01;
        row[c++] = number(id.condition_number);
        row[c++] = std::to_string(determined);
        row[c++] = number((id.total_mass - score.total_mass) / score.total_mass);
        row[c++] = number(result.identification.validation.torque.identified);
        row[c++] = number(result.identification.validation.torque.apriori);
      }
      row[status_col] = "ok";
    }
  } catch (const Interrupted&) {
    throw;
  } catch (const Stopped&) {
    // Ctrl-C or SIGTERM during the evaluation (core/stop.h): no row, and
    // nothing of the point kept, as when it comes during the trials.
    fs::remove_all(dir, ec);
    throw Interrupted{};
  } catch (const std::exception& e) {
    row[status_col] = csvField(relative(std::string("error: ") + e.what()));
  }
  if (!options.keep_streams) fs::remove_all(trials_dir, ec);
  row[header.size() - 2] = number(sim_wall);
  row[header.size() - 1] = number(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return row;
}

}  // namespace suitsim::sweep
