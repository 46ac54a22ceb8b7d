// The error budget (docs/realism.md#the-budget): its sweep file, and its
// tables made from the sweep's results.csv alone.
#include "suitsim/sweep/budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include "suitsim/eval/supporting_torque.h"
#include "suitsim/servo_stability.h"
#include "suitsim/report/report.h"
#include "suitsim/sweep/points.h"
#include "suitsim/sweep/table.h"
#include "suitsim/scene/xml_reader.h"

namespace suitsim::sweep {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

namespace {

void writeFile(const fs::path& file, const std::string& text) {
  std::string hidden = ".";
  hidden.append(file.filename().string()).append(".partial");
  const fs::path tmp = file.parent_path() / hidden;
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    f.flush();
    if (!f) throw std::runtime_error("cannot write '" + tmp.string() + "'");
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) throw std::runtime_error("cannot write '" + file.string() + "': " + ec.message());
}

// A budget's own files: a folder holding another budget's is refused, so
// that resuming never mixes two budgets in one table.
void writeOwnFile(const fs::path& file, const std::string& text) {
  std::error_code ec;
  if (fs::exists(file, ec)) {
    std::ifstream in(file);
    const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (old == text) return;
    throw io::SceneError(file.string() + ": holds another budget (another scene, sources or seeds): give another "
                         "--out, or remove the folder");
  }
  writeFile(file, text);
}

// The remedy the evaluator has for a source, as <evaluator> attributes;
// empty: none (docs/realism.md says which are missing), or the scene lacks
// what the remedy reads. `self_limiting`: the remedy does nothing where its
// source is off (it fits what the streams show, or reads from their headers
// whether its source is there), so the `none` row can take it to show what
// it costs on clean streams; a remedy that corrects by a datasheet value
// alone is applied only to the rows with its source.
struct Remedy {
  std::string attributes;
  bool self_limiting = true;
};

Remedy remedyFor(const std::string& source, const XMLElement* scene) {
  const XMLElement* robot = scene->FirstChildElement("robot");
  const XMLElement* sensors = robot ? robot->FirstChildElement("sensors") : nullptr;
  const XMLElement* apriori = robot ? robot->FirstChildElement("apriori") : nullptr;
  if (source == "gear") return {"gear=\"fit\""};  // the load-proportional loss, one column per joint
  // The via points fitted to the bands' logged lengths: the scene must log them.
  if (source == "via_points") return {sensors && sensors->FirstChildElement("band_lengths") ? "suit_geometry=\"measured\"" : ""};
  // The bands read behind straps of their tensile test's stiffness (the
  // scene must state it): the correction assumes the straps are there.
  if (source == "attachments") {
    if (apriori && apriori->DoubleAttribute("attachment_stiffness", 0.0) > 0.0) return {"straps=\"corrected\"", false};
    return {};
  }
  // A(26) with standard linear solids: the arms' relaxation fitted too.
  if (source == "hysteresis") return {"band_model=\"viscoelastic\""};
  // A(26) with capstan friction where the bands turn, its coefficient fitted.
  if (source == "capstan") return {"band_model=\"capstan\""};
  // The motor-side encoders read through the gears' datasheet stiffness;
  // the streams' headers say which encoders sit on their motors.
  if (source == "compliance") {
    if (apriori && apriori->DoubleAttribute("gear_stiffness_per_effort", 0.0) > 0.0) return {"gear_twist=\"compensated\""};
    return {};
  }
  // The declared filters' delays taken out (the streams' headers state
  // them); the timing errors, the bias walk and the crosstalk have none.
  if (source == "sensor_chain") return {"sensor_delay=\"compensated\""};
  // The currents read through the logged winding temperatures and the
  // datasheet's magnet coefficient: both must be in the scene.
  if (source == "motor_heating") {
    if (sensors && sensors->FirstChildElement("winding_temperatures") && apriori &&
        apriori->DoubleAttribute("magnet_coefficient", 0.0) != 0.0) {
      return {"heating=\"corrected\""};
    }
  }
  return {};
}

// The remedies of a row whose truth has `on` switched on (`none`: the
// self-limiting remedies of every source in `sources`), as <evaluator>
// attributes. Hysteresis and capstan both choose A(26)'s band model: with
// both, it is the model that has both. Were two other remedies ever to set
// one setting, the first in source order would stand and `notes` say so.
std::string rowRemedies(const std::string& row, const std::vector<std::string>& sources, const XMLElement* scene,
                        std::vector<std::string>* notes) {
  std::vector<std::string> on;
  if (row == "none" || row == "all") {
    on = sources;
  } else {
    on = {row};
  }
  const bool both_band_sources = std::find(on.begin(), on.end(), "hysteresis") != on.end() &&
                                 std::find(on.begin(), on.end(), "capstan") != on.end();
  std::string remedies;
  for (const std::string& s : on) {
    const Remedy remedy = remedyFor(s, scene);
    if (row == "none" && !remedy.self_limiting) continue;
    std::string r = remedy.attributes;
    if (both_band_sources && (s == "hysteresis" || s == "capstan")) r = "band_model=\"viscoelastic-capstan\"";
    if (r.empty() || remedies.find(r) != std::string::npos) continue;
    const std::string setting = r.substr(0, r.find('='));
    if (remedies.find(" " + setting + "=") != std::string::npos) {
      if (notes) {
        notes->push_back("the remedied evaluation of row '" + row + "' takes one " + setting + ": '" + s +
                         "' is remedied without its " + r + " (evaluate its streams with that setting to see it)");
      }
      continue;
    }
    remedies += " " + r;
  }
  return remedies;
}

}  // namespace

fs::path writeBudgetSweep(const std::string& scene_path, const io::Realism& realism, const BudgetPlan& plan,
                          const fs::path& out, std::vector<std::string>* notes) {
  const std::vector<std::string> sources = realism.activeSources();
  if (sources.empty()) {
    throw io::SceneError(realism.source + ": switches no error source on: a budget needs at least one "
                         "(--realism realistic, or a realism file with its sources)");
  }
  tinyxml2::XMLDocument doc;
  io::loadXml(scene_path, doc);
  XMLElement* root = doc.RootElement();
  if (std::string(root->Name()) != "scene") {
    throw io::SceneError(scene_path + ":" + std::to_string(root->GetLineNum()) + ": <" + root->Name() +
                         "> the root element must be <scene>");
  }
  // The scene's own sources give way to the budget's.
  while (XMLElement* e = root->FirstChildElement("realism")) root->DeleteChild(e);
  tinyxml2::XMLDocument part;
  const std::string xml = io::realismXml(realism);
  if (part.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw std::logic_error("realismXml wrote what it cannot read: " + xml);
  }
  XMLElement* element = part.RootElement()->DeepClone(&doc)->ToElement();
  element->SetAttribute("sources", "all");
  root->InsertFirstChild(element);
  // The copy lives in DIR: its file names keep meaning what they meant.
  fs::path base_dir = fs::absolute(fs::path(scene_path)).parent_path();
  if (const char* given = root->Attribute("relative_to")) base_dir /= given;
  root->SetAttribute("relative_to", base_dir.lexically_normal().string().c_str());
  // Where it came from, after the XML declaration (a comment may not hold "--").
  std::string origin = " " + scene_path + " with the error sources of the budget (written by suitsim budget) ";
  for (std::size_t at; (at = origin.find("--")) != std::string::npos;) origin.replace(at, 2, "- -");
  tinyxml2::XMLComment* comment = doc.NewComment(origin.c_str());
  if (doc.FirstChild() && doc.FirstChild()->ToDeclaration()) {
    doc.InsertAfterChild(doc.FirstChild(), comment);
  } else {
    doc.InsertFirstChild(comment);
  }
  fs::create_directories(out);
  {
    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    writeOwnFile(out / "budget_scene.xml", printer.CStr());
  }

  // The seeds: the realism's draws and every sensor's noise.
  std::string seed_paths = "realism@seed";
  AttributePath sensors;
  std::string error;
  if (parseAttributePath("robot/sensors@seed", &sensors, &error) && countMatches(root, sensors) > 0) {
    seed_paths += " robot/sensors@seed";
  }
  std::string values = "none";
  for (const std::string& s : sources) values += " " + s;
  if (sources.size() > 1) values += " all";
  // Each row is evaluated again with the remedies for its own sources:
  // one <evaluator name="remedied"> per set of remedies, with the rows it
  // applies to (a row with no remedy has none, and empty columns).
  std::vector<std::pair<std::string, std::string>> remedied;  // attributes, the rows they apply to
  std::vector<std::string> rows = {"none"};
  rows.insert(rows.end(), sources.begin(), sources.end());
  if (sources.size() > 1) rows.push_back("all");
  for (const std::string& row : rows) {
    const std::string r = rowRemedies(row, sources, root, notes);
    if (r.empty()) continue;
    auto same = std::find_if(remedied.begin(), remedied.end(), [&r](const auto& e) { return e.first == r; });
    if (same == remedied.end()) {
      remedied.emplace_back(r, row);
    } else {
      same->second += " " + row;
    }
  }
  std::string named = scene_path;
  for (std::size_t at; (at = named.find("--")) != std::string::npos;) named.replace(at, 2, "- -");
  std::string sweep = "<?xml version=\"1.0\"?>\n<!-- The error budget of " + named +
                      " (suitsim budget; docs/realism.md): each source alone, all of them, none; "
                      "run it again with `suitsim sweep` to go on where it stopped. -->\n"
                      "<sweep name=\"budget\" scene=\"budget_scene.xml\">\n"
                      "  <parameter name=\"source\" values=\"" + values + "\" attribute=\"realism@sources\"/>\n"
                      "  <seeds attribute=\"" + seed_paths + "\" count=\"" + std::to_string(plan.seeds) +
                      "\" first=\"" + std::to_string(plan.first_seed) + "\"/>\n";
  if (plan.remedies) {
    for (const auto& [attributes, applies] : remedied) {
      sweep += "  <evaluator name=\"remedied\" when=\"source=" + applies + "\"" + attributes + "/>\n";
    }
  }
  sweep += "</sweep>\n";
  writeOwnFile(out / "budget.xml", sweep);
  return out / "budget.xml";
}

double studentT975(int dof) {
  if (dof < 1) return std::numeric_limits<double>::infinity();
  // The quantiles to 4 digits (any table of Student's t); past 30 the
  // Cornish-Fisher series in 1/dof is good to 1e-4.
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof <= 30) return kTable[dof - 1];
  const double z = 1.959964, n = dof;
  return z + (z * z * z + z) / (4.0 * n) + (5.0 * std::pow(z, 5) + 16.0 * z * z * z + 3.0 * z) / (96.0 * n * n);
}

BudgetCell budgetCell(const std::vector<double>& values, int missing) {
  BudgetCell c;
  c.n = static_cast<int>(values.size());
  c.missing = missing;
  if (c.n == 0) return c;
  for (double x : values) c.mean += x / c.n;
  double ss = 0.0;
  for (double x : values) ss += (x - c.mean) * (x - c.mean);
  c.half_width = c.n > 1 ? studentT975(c.n - 1) * std::sqrt(ss / (c.n - 1)) / std::sqrt(c.n)
                         : std::numeric_limits<double>::infinity();
  return c;
}

namespace {

// A column "[EVALUATOR/]SUIT.GROUP.METHOD.relative_error".
struct ErrorColumn {
  int column = 0;
  std::string evaluator, band, method;  // band: "SUIT.GROUP"
};

std::vector<ErrorColumn> errorColumns(const TableText& t) {
  std::vector<ErrorColumn> out;
  const std::string suffix = ".relative_error";
  for (int c = 0; c < static_cast<int>(t.header.size()); ++c) {
    std::string h = t.header[c];
    if (h.size() <= suffix.size() || h.compare(h.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    h.resize(h.size() - suffix.size());
    ErrorColumn e;
    e.column = c;
    if (const std::size_t slash = h.find('/'); slash != std::string::npos) {
      e.evaluator = h.substr(0, slash);
      h = h.substr(slash + 1);
    }
    const std::size_t dot = h.rfind('.');
    if (dot == std::string::npos) continue;
    e.band = h.substr(0, dot);
    e.method = h.substr(dot + 1);
    out.push_back(e);
  }
  return out;
}

std::string methodLabel(const std::string& method, const std::string& evaluator) {
  std::string label = method == "approach_a"   ? "A"
                      : method == "approach_b" ? "B"
                      : method == "apriori"    ? "a priori"
                                               : method;
  return evaluator.empty() ? label : label + " (" + evaluator + ")";
}

std::string cellText(const BudgetCell& c, bool signed_error) {
  if (c.n == 0) return c.missing ? "n.i." : "";
  char buf[96];
  if (std::isfinite(c.half_width)) {
    std::snprintf(buf, sizeof buf, signed_error ? "%+.2f ± %.2f %%" : "%.2f ± %.2f %%", 100.0 * c.mean,
                  100.0 * c.half_width);
  } else {
    std::snprintf(buf, sizeof buf, signed_error ? "%+.2f %%" : "%.2f %%", 100.0 * c.mean);
  }
  std::string s = buf;
  if (c.missing) s += " (n.i. " + std::to_string(c.missing) + "/" + std::to_string(c.n + c.missing) + ")";
  return s;
}

nlohmann::ordered_json cellJson(const BudgetCell& c) {
  const auto num = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); };
  return {{"n", c.n}, {"not_identifiable", c.missing}, {"mean", c.n ? num(c.mean) : nullptr},
          {"ci95_half_width", c.n ? num(c.half_width) : nullptr}};
}

// The evaluations that did not finish, counted per source and status
// (empty when every one did).
std::string failuresSection(const TableText& t, int source_col, int status) {
  std::map<std::string, int> failures;
  for (const auto& r : t.rows) {
    if (r[status] != "ok") ++failures[r[source_col] + ": " + r[status]];
  }
  if (failures.empty()) return "";
  std::string md = "## Evaluations that did not finish\n\n| source: status | seeds |\n|---|---|\n";
  for (const auto& [why, n] : failures) md += "| " + why + " | " + std::to_string(n) + " |\n";
  return md + "\n";
}

// What each row's other evaluations changed (their NAME/settings columns):
// a table per evaluation, and the same in budget.json's sources.
std::string settingsSections(const TableText& t, int source_col, const std::vector<std::string>& evaluators,
                             const std::vector<std::string>& sources, nlohmann::ordered_json& json) {
  std::string md;
  for (const std::string& ev : evaluators) {
    const int settings = ev.empty() ? -1 : t.column(ev + "/settings");
    if (settings < 0) continue;
    md += "\nSettings of the `" + ev + "` evaluation per source (a source without any has no " + ev +
          " figures):\n\n| source | settings |\n|---|---|\n";
    for (const std::string& source : sources) {
      std::string used;
      for (const auto& r : t.rows) {
        if (r[source_col] == source && !r[settings].empty()) used = r[settings];
      }
      md += "| " + source + " | " + (used.empty() ? "none" : "`" + used + "`") + " |\n";
      for (auto& js : json["sources"]) {
        if (js["source"] == source) js["settings"][ev] = used.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(used);
      }
    }
  }
  return md;
}

}  // namespace

SummaryFiles writeBudgetSummary(const fs::path& out, bool plots, const fs::path& plot_script) {
  const fs::path table_file = out / "results.csv";
  const TableText t = readResultsTable(table_file);
  const int source_col = t.column("source"), status = t.column("status");
  if (source_col < 0) throw std::runtime_error(table_file.string() + ":1: not a budget's table (no source column)");
  const std::vector<ErrorColumn> columns = errorColumns(t);
  // The order of first appearance, as the budget's sweep file lists them.
  std::vector<std::string> sources, bands, evaluators, methods;
  const auto note = [](std::vector<std::string>& list, const std::string& x) {
    if (std::find(list.begin(), list.end(), x) == list.end()) list.push_back(x);
  };
  for (const auto& r : t.rows) note(sources, r[source_col]);
  for (const ErrorColumn& e : columns) {
    note(bands, e.band);
    note(evaluators, e.evaluator);
    note(methods, e.method);
  }
  // What the budget shows: A, B and the a-priori row of the default
  // evaluation; A and B of the others (their a-priori rows are the same).
  std::vector<std::pair<std::string, std::string>> shown;  // evaluator, method
  for (const std::string& ev : evaluators) {
    for (const std::string& m : {std::string("approach_a"), std::string("approach_b"), std::string("apriori")}) {
      if (!ev.empty() && m == "apriori") continue;
      if (std::find(methods.begin(), methods.end(), m) != methods.end()) shown.emplace_back(ev, m);
    }
  }
  const auto column = [&](const std::string& ev, const std::string& band, const std::string& m) {
    for (const ErrorColumn& e : columns) {
      if (e.evaluator == ev && e.band == band && e.method == m) return e.column;
    }
    return -1;
  };

  nlohmann::ordered_json json = {{"table", "results.csv"},
                                 {"confidence", "95 % interval of the mean over seeds, Student t"}};
  std::string md = "# Error budget\n\n";
  md += "From `results.csv`: " + std::to_string(t.rows.size()) + " evaluations. Each cell is the band stiffness's "
        "relative error, (estimate - truth) / truth, as its mean over the seeds ± the half width of the mean's 95 % "
        "confidence interval (Student t); \"n.i.\": not identifiable (the fit's relative std over 10 %) in that many "
        "seeds, left out of the mean. Sources: `none` is the scene as written (its own sensor noise and friction), "
        "each other row adds one error source of the truth, `all` adds them all (docs/realism.md).\n\n";
  md += failuresSection(t, source_col, status);

  // Mean |error| over the bands, per seed, then over the seeds.
  md += "## Mean |error| over the bands\n\n| source |";
  std::string rule = "|---|";
  for (const auto& [ev, m] : shown) {
    md.append(" ").append(methodLabel(m, ev)).append(" |");
    rule += "---|";
  }
  md += "\n" + rule + "\n";
  nlohmann::ordered_json js_sources = nlohmann::ordered_json::array();
  std::vector<std::string> band_tables(bands.size()), crb_tables(bands.size());
  for (std::size_t b = 0; b < bands.size(); ++b) {
    band_tables[b] = "### " + bands[b] + "\n\n| source |";
    for (const auto& [ev, m] : shown) band_tables[b].append(" ").append(methodLabel(m, ev)).append(" |");
    band_tables[b] += "\n" + rule + "\n";
    crb_tables[b] = band_tables[b];
  }
  for (const std::string& source : sources) {
    nlohmann::ordered_json js;
    js["source"] = source;
    md += "| " + source + " |";
    for (std::size_t b = 0; b < bands.size(); ++b) {
      band_tables[b] += "| " + source + " |";
      crb_tables[b] += "| " + source + " |";
    }
    for (const auto& [ev, m] : shown) {
      const std::string key = (ev.empty() ? "" : ev + "/") + m;
      std::vector<double> mean_abs;
      int mean_missing = 0;
      std::vector<std::vector<double>> per_band(bands.size());
      std::vector<int> band_missing(bands.size(), 0);
      const int settings = ev.empty() ? -1 : t.column(ev + "/settings");
      for (const auto& r : t.rows) {
        if (r[source_col] != source || r[status] != "ok") continue;
        if (settings >= 0 && r[settings].empty()) continue;  // no remedy for this row
        double sum = 0.0;
        bool all = true;
        for (std::size_t b = 0; b < bands.size(); ++b) {
          const int c = column(ev, bands[b], m);
          double x;
          if (c >= 0 && finiteNumber(r[c], &x)) {
            per_band[b].push_back(x);
            sum += std::abs(x);
          } else {
            ++band_missing[b];
            all = false;
          }
        }
        if (all && !bands.empty()) {
          mean_abs.push_back(sum / static_cast<double>(bands.size()));
        } else {
          ++mean_missing;
        }
      }
      const BudgetCell overall = budgetCell(mean_abs, mean_missing);
      md.append(" ").append(cellText(overall, false)).append(" |");
      js["mean_abs_error"][key] = cellJson(overall);
      for (std::size_t b = 0; b < bands.size(); ++b) {
        const BudgetCell cell = budgetCell(per_band[b], band_missing[b]);
        band_tables[b].append(" ").append(cellText(cell, true)).append(" |");
        js["bands"][bands[b]][key] = cellJson(cell);
        // The Cramér-Rao bound beside it (cramer_rao.h): its mean over the
        // seeds that have one, relative to the true k.
        const int crb_column = t.column((ev.empty() ? "" : ev + "/") + bands[b] + "." + m + ".crb_relative_std");
        double crb_sum = 0.0;
        int crb_n = 0;
        for (const auto& r : t.rows) {
          double x;
          if (crb_column < 0 || r[source_col] != source || r[status] != "ok" || (settings >= 0 && r[settings].empty()) ||
              !finiteNumber(r[crb_column], &x)) {
            continue;
          }
          crb_sum += x;
          ++crb_n;
        }
        const double crb = crb_n > 0 ? crb_sum / crb_n : std::nan("");
        char buf[48] = "";
        if (crb_n > 0) std::snprintf(buf, sizeof buf, "%.3g %%", 100.0 * crb);
        crb_tables[b].append(" ").append(buf).append(" |");
        js["bands"][bands[b]][key]["crb_relative_std_mean"] =
            crb_n > 0 ? nlohmann::ordered_json(crb) : nlohmann::ordered_json(nullptr);
      }
    }
    md += "\n";
    for (std::size_t b = 0; b < bands.size(); ++b) {
      band_tables[b] += "\n";
      crb_tables[b] += "\n";
    }
    js_sources.push_back(js);
  }
  json["sources"] = js_sources;
  md += "\nA mean over the bands counts a seed only where every band was identifiable.\n";
  md += settingsSections(t, source_col, evaluators, sources, json);
  md += "\n## Per band (signed)\n\n";
  for (const std::string& table : band_tables) md += table + "\n";
  md += "## Per band: the Cramér-Rao bound\n\nThe smallest std any unbiased estimator of k could have under the "
        "sensors' declared white noise (the fit's model at its estimate, docs/method.md), relative to the true k, "
        "mean over the seeds: an error far above it is bias, not noise.\n\n";
  for (const std::string& table : crb_tables) md += table + "\n";

  const fs::path json_file = out / "budget.json";
  writeFile(json_file, json.dump(2) + "\n");
  SummaryFiles files;
  if (plots) files = drawPlots(out, "budget_", plot_script, "plot_budget.py", json_file);
  md += plotsMarkdown(files);
  writeFile(out / "budget.md", md);
  return files;
}

}  // namespace suitsim::sweep
