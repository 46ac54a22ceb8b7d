#include "suitsim/sweep/table.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "suitsim/core/text_input.h"

namespace suitsim::sweep {

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

bool splitCsv(const std::string& line, std::vector<std::string>* fields) {
  fields->clear();
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      if (!cur.empty() || was_quoted) return false;
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields->push_back(cur);
      cur.clear();
      was_quoted = false;
    } else {
      if (was_quoted) return false;
      cur += c;
    }
  }
  if (quoted) return false;
  fields->push_back(cur);
  return true;
}

std::string joinCsv(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += fields[i];
  }
  return line;
}

ResultsTable::ResultsTable(std::filesystem::path file, std::vector<std::string> header)
    : file_(std::move(file)), header_(std::move(header)) {}

void ResultsTable::resume() {
  rows_.clear();
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return;
  if (const std::string problem = regularFileProblem(file_.string()); !problem.empty()) {
    throw std::runtime_error(file_.string() + ": " + problem);
  }
  std::ifstream in(file_);
  std::string line;
  int line_no = 0;
  std::vector<std::string> fields;
  const std::string expected_header = joinCsv([&] {
    std::vector<std::string> h;
    for (const std::string& c : header_) h.push_back(csvField(c));
    return h;
  }());
  while (true) {
    const LineRead got = readLine(in, line);
    if (got == LineRead::kEnd) break;
    ++line_no;
    const std::string where = file_.string() + ":" + std::to_string(line_no) + ": ";
    if (got == LineRead::kTooLong) throw std::runtime_error(where + "line too long for a results table");
    if (line_no == 1) {
      if (line != expected_header) {
        throw std::runtime_error(where + "the header is not this sweep's (another sweep, or an older suitsim, wrote "
                                 "it); give another --out or remove the file");
      }
      continue;
    }
    if (!splitCsv(line, &fields) || fields.size() != header_.size()) {
      throw std::runtime_error(where + "a row with " + std::to_string(fields.size()) + " fields, the header has " +
                               std::to_string(header_.size()));
    }
    std::size_t used = 0;
    int point = -1;
    try {
      point = std::stoi(fields[0], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != fields[0].size() || point < 0) {
      throw std::runtime_error(where + "'" + fields[0] + "' is not a point index");
    }
    rows_[point] = line;
  }
  if (line_no == 0) return;  // an empty file: nothing done yet
}

std::vector<std::string> ResultsTable::row(int point) const {
  std::vector<std::string> fields;
  auto it = rows_.find(point);
  if (it != rows_.end()) splitCsv(it->second, &fields);
  return fields;
}

void ResultsTable::add(int point, const std::vector<std::string>& fields) {
  if (fields.size() != header_.size()) {
    throw std::logic_error("results row of " + std::to_string(fields.size()) + " fields for a header of " +
                           std::to_string(header_.size()));
  }
  rows_[point] = joinCsv(fields);
  write();
}

void ResultsTable::write() const {
  std::string name = ".";  // (a + b + c of strings trips GCC 12's -Wrestrict, bug 105329)
  name += file_.filename().string();
  name += ".partial";
  const std::filesystem::path tmp = file_.parent_path() / name;
  {
    std::ofstream out(tmp, std::ios::trunc);
    std::vector<std::string> h;
    for (const std::string& c : header_) h.push_back(csvField(c));
    out << joinCsv(h) << "\n";
    for (const auto& [point, line] : rows_) out << line << "\n";
    out.flush();
    if (!out) {
      const int err = errno;
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw std::runtime_error("cannot write '" + tmp.string() + "': " + std::strerror(err));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file_, ec);
  if (ec) throw std::runtime_error("cannot rename '" + tmp.string() + "' to '" + file_.string() + "': " + ec.message());
}

int TableText::column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

TableText readResultsTable(const std::filesystem::path& file) {
  if (const std::string problem = regularFileProblem(file.string()); !problem.empty()) {
    throw std::runtime_error(file.string() + ": " + problem);
  }
  std::ifstream in(file);
  TableText t;
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

bool finiteNumber(const std::string& s, double* x) {
  if (s.empty()) return false;
  char* end = nullptr;
  *x = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*x);
}

}  // namespace suitsim::sweep
