// A robot's HDF5 log through HDF5's C API (Debian's libhdf5-dev): the
// datasets a channel map asks for (log_table.h), and the writer of
// suitsim's own streams in the same layout (log_writer.cpp). HDF5's error
// stack is silenced while we call it: every failure becomes one StreamError
// naming the file and the dataset, as our other readers' messages do.
#include <hdf5.h>

#include <cmath>
#include <utility>

#include "log_table.h"
#include "suitsim/core/text_input.h"
#include "suitsim/eval/streams.h"

namespace suitsim::eval::detail {

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what) { throw StreamError(file + ": " + what); }

/// An HDF5 identifier closed by its own close function.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// HDF5 prints its error stack on stderr by default; while one of these
/// lives it prints nothing (our messages say what went wrong).
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

std::string datasetPath(const std::string& group, const std::string& name) {
  return group == "/" ? "/" + name : group + "/" + name;
}

// "name[k]" -> ("name", k); "name" -> ("name", -1).
std::pair<std::string, int> splitColumn(const std::string& column) {
  const std::size_t open = column.rfind('[');
  if (open == std::string::npos || column.back() != ']' || open + 2 > column.size() - 1) return {column, -1};
  const std::string digits = column.substr(open + 1, column.size() - open - 2);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6) return {column, -1};
  return {column.substr(0, open), std::stoi(digits)};
}

// H5Lexists needs every step of the path to exist ("/a/b" with no "/a" is
// an error, not "no"): each prefix is asked in turn.
bool linkExists(hid_t file, const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  std::size_t at = 0;
  do {
    at = path.find('/', at + 1);
    if (H5Lexists(file, path.substr(0, at).c_str(), H5P_DEFAULT) <= 0) return false;
  } while (at != std::string::npos);
  return true;
}

}  // namespace

LogTable readHdf5Table(const std::string& file, const std::string& group, const std::vector<WantedColumn>& wanted) {
  if (const std::string problem = regularFileProblem(file); !problem.empty()) fail(file, "cannot open the log (" + problem + ")");
  const QuietErrors quiet;
  if (H5Fis_hdf5(file.c_str()) <= 0) fail(file, "is not an HDF5 file");
  const Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) fail(file, "HDF5 cannot open it");
  if (group != "/" && !linkExists(f.get(), group)) {
    fail(file, "no group '" + group + "' (named at " + wanted.front().map_where + ")");
  }
  LogTable t;
  t.file = file;
  t.hdf5 = true;
  t.group = group;
  std::vector<std::vector<double>> columns;
  hsize_t rows = 0;
  std::string first;
  for (const WantedColumn& w : wanted) {
    const auto [name, k] = splitColumn(w.name);
    const std::string path = datasetPath(group, name);
    const bool exists = linkExists(f.get(), path);
    if (!exists) fail(file, "no dataset '" + path + "' (named at " + w.map_where + ")");
    const Handle d(H5Dopen2(f.get(), path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ok()) fail(file, "'" + path + "' is not a dataset (named at " + w.map_where + ")");
    const Handle type(H5Dget_type(d.get()), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) fail(file, "dataset '" + path + "' holds no numbers");
    const Handle space(H5Dget_space(d.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    hsize_t dims[2] = {0, 0};
    if (rank == 1 || rank == 2) H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    if (k < 0 && rank != 1) {
      fail(file, "dataset '" + path + "' has " + std::to_string(rank) + " dimensions; a column is 1-D, or '" + name +
                     "[k]' for column k of a 2-D dataset");
    }
    if (k >= 0 && (rank != 2 || static_cast<hsize_t>(k) >= dims[1])) {
      fail(file, "dataset '" + path + "' has no column " + std::to_string(k) +
                     (rank == 2 ? " (it has " + std::to_string(dims[1]) + ")" : " (it is not 2-D)"));
    }
    const hsize_t width = rank == 2 ? dims[1] : 1;
    std::vector<double> all(static_cast<std::size_t>(dims[0] * width));
    // HDF5 converts any integer or float type to double as it reads.
    if (!all.empty() && H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) < 0) {
      fail(file, "cannot read dataset '" + path + "'");
    }
    if (columns.empty()) {
      rows = dims[0];
      first = path;
    } else if (dims[0] != rows) {
      fail(file, "dataset '" + path + "' has " + std::to_string(dims[0]) + " rows, '" + first + "' has " +
                     std::to_string(rows));
    }
    std::vector<double> column(static_cast<std::size_t>(rows));
    for (hsize_t r = 0; r < rows; ++r) column[r] = all[r * width + static_cast<hsize_t>(std::max(k, 0))];
    columns.push_back(std::move(column));
    t.columns.push_back(w.name);
  }
  t.values.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    for (hsize_t r = 0; r < rows; ++r) {
      const double v = columns[c][r];
      if (!std::isfinite(v)) {
        fail(file, "dataset '" + datasetPath(group, splitColumn(t.columns[c]).first) + "' row " + std::to_string(r) +
                       ": not a finite number (" + std::to_string(v) + ")");
      }
      t.values(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = v;
    }
  }
  return t;
}

void writeHdf5Tables(const std::string& file, const std::vector<std::string>& groups,
                     const std::vector<std::vector<std::string>>& names, const std::vector<Eigen::MatrixXd>& values) {
  const QuietErrors quiet;
  const Handle f(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) fail(file, "HDF5 cannot create it");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Handle group(H5Gcreate2(f.get(), groups[g].c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!group.ok()) fail(file, "cannot create group '" + groups[g] + "'");
    const Eigen::MatrixXd& m = values[g];
    const hsize_t rows = static_cast<hsize_t>(m.rows());
    std::vector<double> column(static_cast<std::size_t>(rows));
    for (std::size_t c = 0; c < names[g].size(); ++c) {
      const Handle space(H5Screate_simple(1, &rows, nullptr), H5Sclose);
      const Handle d(H5Dcreate2(group.get(), names[g][c].c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT),
                     H5Dclose);
      if (!d.ok()) fail(file, "cannot create dataset '" + groups[g] + "/" + names[g][c] + "'");
      for (hsize_t r = 0; r < rows; ++r) column[r] = m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c));
      if (H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, column.data()) < 0) {
        fail(file, "cannot write dataset '" + groups[g] + "/" + names[g][c] + "'");
      }
    }
  }
  if (H5Fflush(f.get(), H5F_SCOPE_GLOBAL) < 0) fail(file, "cannot write it (disk full?)");
}

}  // namespace suitsim::eval::detail
