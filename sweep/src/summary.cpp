#include "suitsim/sweep/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include "suitsim/report/report.h"
#include "suitsim/sweep/table.h"
#include "suitsim/text_input.h"

namespace suitsim::sweep {

namespace fs = std::filesystem;

namespace {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
};

Table readTable(const fs::path& file) {
  if (const std::string problem = regularFileProblem(file.string()); !problem.empty()) {
    throw std::runtime_error(file.string() + ": " + problem);
  }
  std::ifstream in(file);
  Table t;
  std::string line;
  int n = 0;
  for (LineRead got; (got = readLine(in, line)) != LineRead::kEnd;) {
    ++n;
    std::vector<std::string> fields;
    if (got == LineRead::kTooLong || !splitCsv(line, &fields)) {
      throw std::runtime_error(file.string() + ":" + std::to_string(n) + ": not a CSV row");
    }
    if (n == 1) {
      t.header = fields;
    } else if (fields.size() != t.header.size()) {
      throw std::runtime_error(file.string() + ":" + std::to_string(n) + ": " + std::to_string(fields.size()) +
                               " fields, the header has " + std::to_string(t.header.size()));
    } else {
      t.rows.push_back(fields);
    }
  }
  if (t.header.size() < 3 || t.header[0] != "point" || t.column("status") < 0) {
    throw std::runtime_error(file.string() + ":1: not a sweep's results table (no point, id and status columns)");
  }
  return t;
}

bool number(const std::string& s, double* x) {
  if (s.empty()) return false;
  char* end = nullptr;
  *x = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*x);
}

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

SummaryFiles writeSummary(const fs::path& out, bool plots, const fs::path& plot_script) {
  const fs::path table_file = out / "results.csv";
  const Table t = readTable(table_file);
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
      if (number((*r)[c], &x)) v.push_back(x);
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
          if ((*r)[p] == value && number((*r)[c], &x)) v.push_back(x);
        }
        md += statsRow(value, stats(v));
      }
    }
  }

  SummaryFiles files;
  if (!plots) {
    // Asked for none: the summary is the tables alone.
  } else if (!plot_script.empty()) {
    // Old plots go first: a rebuilt summary shows only what this table makes.
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(out, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("sweep_", 0) == 0 && entry.path().extension() == ".png") fs::remove(entry.path(), ec);
    }
    if (report::runPythonScript(plot_script, {table_file.string(), "--out-prefix", (out / "sweep_").string()}, out,
                                &files.note)) {
      for (const auto& entry : fs::directory_iterator(out, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("sweep_", 0) == 0 && entry.path().extension() == ".png") files.pngs.push_back(name);
      }
      std::sort(files.pngs.begin(), files.pngs.end());
    }
  } else {
    files.note = "plots skipped: plot_sweep.py not found beside the program or in ../share/suitsim";
  }
  if (!files.pngs.empty()) {
    md += "\n## Plots\n\n";
    for (const std::string& png : files.pngs) md += "![" + png + "](" + png + ")\n";
  } else if (!files.note.empty()) {
    md += "\n" + files.note + "\n";
  }
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
