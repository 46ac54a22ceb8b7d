// The results table of a sweep: DIR/results.csv, one row per point, sorted
// by point index, with a header of the parameters and the results. It is
// rewritten whole under a temporary name and renamed over the old one for
// every new row, so a reader (or a killed sweep) never sees half a row.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace suitsim::sweep {

class ResultsTable {
 public:
  ResultsTable(std::filesystem::path file, std::vector<std::string> header);

  /// Reads the rows an earlier run of the same sweep left (a missing file
  /// is an empty table). Throws std::runtime_error when the file's header is
  /// not this table's (another sweep wrote it) or a row is malformed.
  void resume();

  bool has(int point) const { return rows_.count(point) > 0; }
  std::size_t size() const { return rows_.size(); }
  const std::vector<std::string>& header() const { return header_; }
  /// The row of `point` as its fields (header order).
  std::vector<std::string> row(int point) const;
  const std::map<int, std::string>& rows() const { return rows_; }

  /// Adds a row (its fields, already CSV-escaped, header order) and
  /// rewrites the file. Throws std::runtime_error when writing fails.
  void add(int point, const std::vector<std::string>& fields);

 private:
  void write() const;
  std::filesystem::path file_;
  std::vector<std::string> header_;
  std::map<int, std::string> rows_;  ///< point index -> the row's text, no newline
};

/// A results table read back whole (the summaries are made from it alone).
struct TableText {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int column(const std::string& name) const;  ///< -1 when absent
};

/// Reads DIR/results.csv. Throws std::runtime_error naming the file and line
/// when it is missing, a row is malformed, or it is not a sweep's table (no
/// point and status columns).
TableText readResultsTable(const std::filesystem::path& file);

/// A field's number, when it is one and finite.
bool finiteNumber(const std::string& field, double* x);

/// A field as CSV: quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& text);
/// Joins fields (already escaped) into one CSV line, without a newline.
std::string joinCsv(const std::vector<std::string>& fields);
/// Splits one CSV line into fields (quotes undone); false when malformed.
bool splitCsv(const std::string& line, std::vector<std::string>* fields);

}  // namespace suitsim::sweep
