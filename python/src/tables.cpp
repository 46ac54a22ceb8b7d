// Reading back the CSV files a run writes (experiment/trials.h):
// "# key: value" comment lines, one header row "time[s],name[unit],...",
// then one row of numbers per sample. The values were written with 9
// (time) and 12 significant digits; from_chars gives the double nearest
// each, which is what any reader of those files gets.
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"

namespace py = pybind11;

namespace suitsim::python {

namespace {

struct Table {
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<std::string> names, units;
  std::vector<double> values;  // row-major
  std::size_t rows = 0;
};

Table readTable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ":0: cannot open the file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  Table t;
  std::size_t at = 0, line_number = 0;
  bool have_columns = false;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++line_number;
    if (line.empty()) continue;
    if (line[0] == '#') {
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        std::string_view key = line.substr(1, colon - 1), value = line.substr(colon + 1);
        while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        t.header.emplace_back(key, value);
      }
      continue;
    }
    if (!have_columns) {
      // "name[unit]": the unit is what the brackets at the end hold.
      for (std::size_t a = 0; a <= line.size();) {
        std::size_t b = line.find(',', a);
        if (b == std::string_view::npos) b = line.size();
        const std::string_view field = line.substr(a, b - a);
        const std::size_t open = field.rfind('[');
        if (open != std::string_view::npos && field.back() == ']') {
          t.names.emplace_back(field.substr(0, open));
          t.units.emplace_back(field.substr(open + 1, field.size() - open - 2));
        } else {
          t.names.emplace_back(field);
          t.units.emplace_back();
        }
        a = b + 1;
      }
      have_columns = true;
      continue;
    }
    std::size_t count = 0;
    const char* p = line.data();
    const char* const stop = line.data() + line.size();
    while (p <= stop) {
      double v = 0.0;
      // from_chars takes "nan" and "inf" but not a leading '+', as written.
      const auto r = std::from_chars(p, stop, v);
      if (r.ec != std::errc() || (r.ptr != stop && *r.ptr != ',')) {
        throw std::invalid_argument(path + ":" + std::to_string(line_number) + ": field " +
                                    std::to_string(count + 1) + " is not a number");
      }
      t.values.push_back(v);
      ++count;
      p = r.ptr + 1;
    }
    if (count != t.names.size()) {
      throw std::invalid_argument(path + ":" + std::to_string(line_number) + ": " + std::to_string(count) +
                                  " fields, the header has " + std::to_string(t.names.size()));
    }
    ++t.rows;
  }
  if (!have_columns) throw std::invalid_argument(path + ":0: no header row");
  return t;
}

}  // namespace

void bindTables(py::module_& m) {
  m.def(
      "read_table",
      [](const std::string& path) {
        Table t;
        {
          py::gil_scoped_release release;
          t = readTable(path);
        }
        py::dict header;
        for (const auto& [key, value] : t.header) header[py::str(key)] = py::str(value);
        auto data = std::make_unique<std::vector<double>>(std::move(t.values));
        const std::size_t rows = t.rows, cols = t.names.size();
        double* ptr = data->data();
        // The array owns the parsed numbers: no copy.
        py::capsule owner(data.release(), [](void* p) { delete static_cast<std::vector<double>*>(p); });
        py::array_t<double> array({rows, cols}, {cols * sizeof(double), sizeof(double)}, ptr, owner);
        return py::make_tuple(header, t.names, t.units, array);
      },
      py::arg("path"),
      "Reads a CSV file as `suitsim run` writes it: (header dict, column names, units, rows x columns array). "
      "Raises ValueError naming the file and line of a malformed row.");
}

}  // namespace suitsim::python
