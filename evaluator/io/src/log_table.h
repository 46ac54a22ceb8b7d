// The columns a channel map asks for from one data file, every row as
// logged, before any unit or check (private to suitsim_eval_io): what the
// CSV reader (csv_log.cpp) and the HDF5 reader (hdf5_log.cpp) both give
// the conversion into a SensorStream (log_streams.cpp).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

namespace suitsim::eval::detail {

/// A column asked for, with the map's line that names it (for "missing").
struct WantedColumn {
  std::string name;
  std::string map_where;  ///< "MAP:LINE" of the element naming it
};

struct LogTable {
  std::string file;                  ///< the data file as opened
  bool hdf5 = false;
  std::string group;                 ///< HDF5: the group the datasets sit in
  std::vector<std::string> columns;  ///< as asked, in order
  Eigen::MatrixXd values;            ///< (rows x columns) readings, each a finite number
  std::vector<int> row_line;         ///< CSV: each row's line in the file
  /// Where a reading is, for a message: "FILE:LINE: column 'x'" (CSV) or
  /// "FILE: dataset '/g/x' row R" (HDF5, rows from 0).
  std::string where(int row, int column) const;
};

/// Reads the wanted columns (none wanted: every column) of a CSV file: '#' lines and blank lines are
/// skipped, the first other line names the columns (blanks around a name
/// ignored), every later one is a row. Throws StreamError "FILE:LINE: ..."
/// for a missing file, no header row, a name twice, a wanted column
/// missing (naming the map's line), a row with the wrong number of fields,
/// a wanted cell that is not a finite number (text, NaN, inf, overflow).
LogTable readCsvTable(const std::string& file, char delimiter, const std::vector<WantedColumn>& wanted);

/// Reads the wanted datasets under `group` of an HDF5 file: each a 1-D
/// dataset of numbers, or "name[k]" for column k of a 2-D one (rows x
/// columns). Throws StreamError "FILE: ..." for a file HDF5 cannot open, a
/// missing dataset or group (naming the map's line), a dataset that holds
/// no numbers or has another shape, datasets of different lengths, a value
/// that is not finite (naming the dataset and its row).
LogTable readHdf5Table(const std::string& file, const std::string& group, const std::vector<WantedColumn>& wanted);

}  // namespace suitsim::eval::detail

namespace suitsim::eval::detail {

/// Writes one group per entry of `groups` ("/trial"), each with one 1-D
/// float64 dataset per name holding that column of `values` (rows x
/// names). Throws StreamError "FILE: ..." when HDF5 cannot.
void writeHdf5Tables(const std::string& file, const std::vector<std::string>& groups,
                     const std::vector<std::vector<std::string>>& names, const std::vector<Eigen::MatrixXd>& values);

}  // namespace suitsim::eval::detail
