#include "suitsim/sweep/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include "suitsim/report/report.h"
#include "suitsim/sweep/table.h"

namespace suitsim::sweep {

namespace fs = std::filesystem;

namespace {

struct Stats {
  int n = 0, within = 0;
  double mean = 0.0, sd = 0.0, min = 0.0, max = 0.0;
};

Stats stats(const std::vector<double>& v) {
  Stats s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  for (double x : v) {
    s.mean += x / s.n;
    s.within += std::abs(x) <= 0.01;
  }
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = s.n > 1 ? std::sqrt(s.sd / (s.n - 1)) : 0.0;
  return s;
}

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100.0 * x);
  return buf;
}

std::string statsRow(const std::string& label, const Stats& s) {
  if (s.n == 0) return "| " + label + " | 0 | | | | |\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %%", 100.0 * s.sd);
  return "| " + label + " | " + std::to_string(s.n) + " | " + pct(s.mean) + " | " + buf + " | " + pct(s.min) + " .. " +
         pct(s.max) + " | " + std::to_string(s.within) + "/" + std::to_string(s.n) + " |\n";
}

}  // namespace

SummaryFiles drawPlots(const fs::path& out, const std::string& prefix, const fs::path& plot_script,
                       const std::string& script_name, const fs::path& input) {
  SummaryFiles files;
  if (plot_script.empty()) {
    files.note = "plots skipped: " + script_name + " not found beside the program or in ../share/suitsim";
    return files;
  }
  const auto ours = [&](const fs::directory_entry& entry) {
    return entry.path().filename().string().rfind(prefix, 0) == 0 && entry.path().extension() == ".png";
  };
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(out, ec)) {
    if (ours(entry)) fs::remove(entry.path(), ec);
  }
  if (report::runPythonScript(plot_script, {input.string(), "--out-prefix", (out / prefix).string()}, out,
                              &files.note)) {
    for (const auto& entry : fs::directory_iterator(out, ec)) {
      if (ours(entry)) files.pngs.push_back(entry.path().filename().string());
    }
    std::sort(files.pngs.begin(), files.pngs.end());
  }
  return files;
}

std::string plotsMarkdown(const SummaryFiles& files) {
  if (!files.pngs.empty()) {
    std::string md = "\n## Plots\n\n";
    for (const std::string& png : files.pngs) md += "![" + png + "](" + png + ")\n";
    return md;
  }
  return files.note.empty() ? "" : "\n" + files.note + "\n";
}

SummaryFiles writeSummary(const fs::path& out, bool plots, const fs::path& plot_script) {
  const fs::path table_file = out / "results.csv";
  const TableText t = readResultsTable(table_file);
  const int status = t.column("status");
  // Parameters: the columns between id and seed/status.
  std::vector<int> parameters;
  for (int c = 2; c < static_cast<int>(t.header.size()) && t.header[c] != "seed" && t.header[c] != "status"; ++c) {
    parameters.push_back(c);
  }
  std::vector<int> errors;
  const std::string suffix = ".relative_error";
  for (int c = 0; c < static_cast<int>(t.header.size()); ++c) {
    const std::string& h = t.header[c];
    if (h.size() > suffix.size() && h.compare(h.size() - suffix.size(), suffix.size(), suffix) == 0) errors.push_back(c);
  }
  std::vector<const std::vector<std::string>*> ok;
  std::map<std::string, int> failures;
  for (const auto& r : t.rows) {
    if (r[status] == "ok") {
      ok.push_back(&r);
    } else {
      ++failures[r[status]];
    }
  }

  std::string md = "# Sweep summary\n\n";
  md += "From `results.csv`: " + std::to_string(t.rows.size()) + " points, " + std::to_string(ok.size()) +
        " evaluated, " + std::to_string(t.rows.size() - ok.size()) + " not.\n";
  md += "Errors are (estimate - truth) / truth of the band stiffness; \"within 1 %\" counts |error| <= 1 %.\n"
        "A group the method could not identify in a point has no estimate and is left out of its counts.\n\n";
  if (!failures.empty()) {
    md += "## Points that could not be evaluated\n\n| status | points |\n|---|---|\n";
    for (const auto& [why, n] : failures) md += "| " + why + " | " + std::to_string(n) + " |\n";
    md += "\n";
  }
  const std::string table_head = "| | n | mean | sd | range | within 1 % |\n|---|---|---|---|---|---|\n";
  md += "## Over all points\n\n" + table_head;
  for (int c : errors) {
    std::vector<double> v;
    for (const auto* r : ok) {
      double x;
      if (finiteNumber((*r)[c], &x)) v.push_back(x);
    }
    md += statsRow("`" + t.header[c] + "`", stats(v));
  }
  for (int p : parameters) {
    // The parameter's values in the order they first appear (the sweep's order).
    std::vector<std::string> values;
    for (const auto& r : t.rows) {
      if (std::find(values.begin(), values.end(), r[p]) == values.end()) values.push_back(r[p]);
    }
    if (values.size() < 2) continue;  // held fixed: nothing to compare
    md += "\n## Against `" + t.header[p] + "`\n";
    for (int c : errors) {
      md += "\n`" + t.header[c] + "`\n\n" + table_head;
      for (const std::string& value : values) {
        std::vector<double> v;
        for (const auto* r : ok) {
          double x;
          if ((*r)[p] == value && finiteNumber((*r)[c], &x)) v.push_back(x);
        }
        md += statsRow(value, stats(v));
      }
    }
  }

  SummaryFiles files;
  if (plots) files = drawPlots(out, "sweep_", plot_script, "plot_sweep.py", table_file);
  md += plotsMarkdown(files);
  const fs::path tmp = out / ".summary.md.partial";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << md;
    f.flush();
    if (!f) throw std::runtime_error("cannot write '" + tmp.string() + "'");
  }
  std::error_code ec;
  fs::rename(tmp, out / "summary.md", ec);
  if (ec) throw std::runtime_error("cannot write '" + (out / "summary.md").string() + "': " + ec.message());
  return files;
}

}  // namespace suitsim::sweep
