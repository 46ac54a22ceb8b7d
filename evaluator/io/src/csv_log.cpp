// A robot's CSV log: the columns a channel map asks for (log_table.h). The
// lines are read with core's bounded line reader and the cells parsed as
// readSensorStream parses them (core/text_input.h), so a CSV log and our
// own sensors.csv agree on what a number is.
#include <fstream>
#include <map>

#include "log_table.h"
#include "suitsim/core/stop.h"
#include "suitsim/core/text_input.h"
#include "suitsim/eval/streams.h"

namespace suitsim::eval::detail {

namespace {

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw StreamError(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

std::string LogTable::where(int row, int column) const {
  const std::string& name = columns[static_cast<std::size_t>(column)];
  if (hdf5) {
    const std::string dataset = group == "/" ? "/" + name : group + "/" + name;
    return file + ": dataset '" + dataset + "' row " + std::to_string(row);
  }
  return file + ":" + std::to_string(row_line[static_cast<std::size_t>(row)]) + ": column '" + name + "'";
}

LogTable readCsvTable(const std::string& file, char delimiter, const std::vector<WantedColumn>& wanted) {
  if (const std::string problem = regularFileProblem(file); !problem.empty()) {
    fail(file, 0, "cannot open the log (" + problem + ")");
  }
  std::ifstream in(file);
  if (!in) fail(file, 0, "cannot open the log");
  LogTable t;
  t.file = file;
  std::string line;
  int line_no = 0, header_line = 0;
  std::vector<std::string> labels;
  for (LineRead got; (got = readLine(in, line)) != LineRead::kEnd;) {
    ++line_no;
    if (got == LineRead::kTooLong) fail(file, line_no, "a line longer than " + std::to_string(kMaxLineLength) + " characters");
    if (trimBlanks(line).empty() || line[0] == '#') continue;
    labels = splitFields(line, delimiter);
    header_line = line_no;
    break;
  }
  if (labels.empty()) fail(file, line_no, "no header row naming the columns");
  std::map<std::string, int> index;
  for (std::size_t c = 0; c < labels.size(); ++c) {
    const std::string name = trimBlanks(labels[c]);
    if (!index.emplace(name, static_cast<int>(c)).second) fail(file, header_line, "column '" + name + "' appears twice");
  }
  std::vector<int> source;
  std::vector<WantedColumn> all;
  for (const std::string& label : labels) all.push_back({trimBlanks(label), ""});
  for (const WantedColumn& w : wanted.empty() ? all : wanted) {
    const auto it = index.find(w.name);
    if (it == index.end()) fail(file, header_line, "no column '" + w.name + "' (named at " + w.map_where + ")");
    source.push_back(it->second);
    t.columns.push_back(w.name);
  }
  std::vector<double> values;
  for (LineRead got; (got = readLine(in, line)) != LineRead::kEnd;) {
    ++line_no;
    if ((line_no & 1023) == 0) throwIfStopped();  // Ctrl-C or SIGTERM (core/stop.h)
    if (got == LineRead::kTooLong) fail(file, line_no, "a line longer than " + std::to_string(kMaxLineLength) + " characters");
    if (trimBlanks(line).empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = splitFields(line, delimiter);
    if (fields.size() != labels.size()) {
      fail(file, line_no, std::to_string(fields.size()) + " fields, the header has " + std::to_string(labels.size()));
    }
    for (std::size_t k = 0; k < source.size(); ++k) {
      double v = 0.0;
      const std::string& cell = fields[static_cast<std::size_t>(source[k])];
      if (!parseFiniteNumber(cell, &v)) {
        fail(file, line_no, "column '" + t.columns[k] + "' is not a finite number ('" + trimBlanks(cell) + "')");
      }
      values.push_back(v);
    }
    t.row_line.push_back(line_no);
  }
  const Eigen::Index rows = static_cast<Eigen::Index>(t.row_line.size());
  const Eigen::Index cols = static_cast<Eigen::Index>(source.size());
  t.values = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), rows, cols);
  return t;
}

}  // namespace suitsim::eval::detail
