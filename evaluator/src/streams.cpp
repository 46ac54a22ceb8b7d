#include "suitsim/eval/streams.h"


#include "suitsim/core/stop.h"
#include "suitsim/core/text_input.h"

#include <array>
#include <cmath>
#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

namespace suitsim::eval {

namespace {

[[noreturn]] void fail(const std::string& path, int line, const std::string& what) {
  throw StreamError(path + ":" + std::to_string(line) + ": " + what);
}

/// "R_KNEE.encoder[rad]" -> "R_KNEE.encoder": units are informative only.
std::string channelName(const std::string& label) {
  const std::string t = trimBlanks(label);
  const std::size_t bracket = t.find('[');
  return bracket == std::string::npos ? t : t.substr(0, bracket);
}

}  // namespace

std::string SensorStream::meta(const std::string& key, const std::string& fallback) const {
  const auto it = header.find(key);
  return it == header.end() ? fallback : it->second;
}

namespace {

// The header: '# key: value' lines into s.header, then the labels row.
std::vector<std::string> readHeader(std::istream& in, const std::string& path, SensorStream& s, int* line_no,
                                    int* header_line) {
  std::string line;
  for (LineRead got; (got = readLine(in, line)) != LineRead::kEnd;) {
    ++*line_no;
    if (got == LineRead::kTooLong) fail(path, *line_no, "a line longer than " + std::to_string(kMaxLineLength) + " characters");
    if (line.empty()) continue;
    if (line[0] == '#') {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const std::string key = trimBlanks(line.substr(1, colon - 1));
        s.header[key] = trimBlanks(line.substr(colon + 1));
        s.header_line[key] = *line_no;
      }
      continue;
    }
    *header_line = *line_no;
    return splitFields(line);
  }
  fail(path, *line_no, "no header row (expected \"time[s],<channel>,...\")");
}

// Where each channel the evaluator reads sits among the columns.
struct Columns {
  std::vector<int> encoder, current, torque, temperature;  // (nj) each; temperature -1 where absent
  bool has_temperatures = false, has_imu = false;
  int gyro[3] = {0, 0, 0}, accel[3] = {0, 0, 0};
  std::vector<std::array<int, 6>> wrench;  // force xyz, torque xyz per force sensor
  std::vector<int> extra;
};

Columns findColumns(const std::string& path, int header_line, const std::vector<std::string>& labels,
                    const RigidModel& model, const SensorLayout& layout, const std::vector<std::string>& extra_channels) {
  if (channelName(labels[0]) != "time") fail(path, header_line, "the first column must be time[s], got '" + labels[0] + "'");
  std::map<std::string, int> column;
  for (std::size_t c = 0; c < labels.size(); ++c) {
    const std::string name = channelName(labels[c]);
    if (!column.emplace(name, static_cast<int>(c)).second) {
      fail(path, header_line, "channel '" + name + "' appears twice");
    }
  }
  auto need = [&](const std::string& name) {
    const auto it = column.find(name);
    if (it == column.end()) fail(path, header_line, "missing channel '" + name + "'");
    return it->second;
  };
  const int nj = model.num_joints;
  Columns c;
  c.encoder.resize(nj);
  c.current.resize(layout.has_currents ? nj : 0);
  c.torque.resize(layout.has_joint_torques ? nj : 0);
  for (int j = 0; j < nj; ++j) {
    c.encoder[j] = need(model.joint_name[j] + ".encoder");
    if (layout.has_currents) c.current[j] = need(model.joint_name[j] + ".current");
    if (layout.has_joint_torques) c.torque[j] = need(model.joint_name[j] + ".torque");
  }
  // Winding temperatures are optional: all joints or none are used.
  c.temperature.assign(nj, -1);
  c.has_temperatures = nj > 0;
  for (int j = 0; j < nj; ++j) {
    const auto it = column.find(model.joint_name[j] + ".winding_temperature");
    if (it == column.end()) c.has_temperatures = false;
    else c.temperature[j] = it->second;
  }
  // A robot on a rig has no IMU (the layout names none): the rig's pose is known.
  c.has_imu = !layout.imu.name.empty();
  const char* axes[3] = {"x", "y", "z"};
  for (int k = 0; k < 3 && c.has_imu; ++k) {
    c.gyro[k] = need(layout.imu.name + ".gyro." + axes[k]);
    c.accel[k] = need(layout.imu.name + ".accel." + axes[k]);
  }
  c.wrench.resize(layout.force_sensors.size());
  for (std::size_t f = 0; f < layout.force_sensors.size(); ++f) {
    for (int k = 0; k < 3; ++k) {
      c.wrench[f][k] = need(layout.force_sensors[f].name + ".force." + axes[k]);
      c.wrench[f][3 + k] = need(layout.force_sensors[f].name + ".torque." + axes[k]);
    }
  }
  for (const std::string& name : extra_channels) c.extra.push_back(need(name));
  return c;
}

// What each column can physically read: beyond that a sample is corrupt
// (a flipped bit, a logger's overflow), and an estimate made from it
// would be silently wrong (a 1e308 encoder sample zeroed every parameter).
// Every column but time, the channels not read too.
struct ReadingBounds {
  std::vector<double> lowest, highest;
  std::vector<std::string> rule;
};

ReadingBounds readingBounds(std::size_t num_columns, const Columns& c, const RigidModel& model,
                            const SensorLayout& layout) {
  ReadingBounds b{std::vector<double>(num_columns, -kMaxSensorReading), std::vector<double>(num_columns, kMaxSensorReading),
                  std::vector<std::string>(num_columns, "beyond ±1e6, which no sensor reads")};
  b.lowest[0] = -std::numeric_limits<double>::infinity();
  b.highest[0] = std::numeric_limits<double>::infinity();
  for (int j = 0; j < model.num_joints; ++j) {
    const auto it = layout.joint_limits.find(model.joint_name[j]);
    if (it == layout.joint_limits.end()) continue;
    const auto [lower, upper] = it->second;
    const std::size_t col = static_cast<std::size_t>(c.encoder[j]);
    std::ostringstream m;
    m << "more than " << kEncoderLimitMargin << " rad outside joint '" << model.joint_name[j] << "''s limits ["
      << lower << ", " << upper << "] rad";
    if (!std::isfinite(lower) && !std::isfinite(upper)) continue;  // continuous
    if (std::isfinite(lower)) b.lowest[col] = std::max(b.lowest[col], lower - kEncoderLimitMargin);
    if (std::isfinite(upper)) b.highest[col] = std::min(b.highest[col], upper + kEncoderLimitMargin);
    b.rule[col] = m.str();
  }
  for (int j = 0; j < model.num_joints; ++j) {
    if (c.temperature[j] < 0) continue;
    const std::size_t col = static_cast<std::size_t>(c.temperature[j]);
    b.lowest[col] = -273.15;
    b.rule[col] = "below absolute zero (-273.15 degC) or above 1e6 degC";
  }
  return b;
}

// The samples: every field a finite number a sensor can read, times
// increasing at the stated rate.
std::vector<std::vector<double>> readRows(std::istream& in, const std::string& path, const std::vector<std::string>& labels,
                                          const ReadingBounds& bounds, double rate_hz, int* line_no) {
  std::vector<std::vector<double>> rows;
  std::vector<double> row(labels.size());
  std::string line;
  for (LineRead got; (got = readLine(in, line)) != LineRead::kEnd;) {
    ++*line_no;
    if ((*line_no & 1023) == 0) throwIfStopped();  // Ctrl-C or SIGTERM: a long trial's rows take a while (core/stop.h)
    if (got == LineRead::kTooLong) fail(path, *line_no, "a line longer than " + std::to_string(kMaxLineLength) + " characters");
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = splitFields(line);
    if (fields.size() != labels.size()) {
      fail(path, *line_no, std::to_string(fields.size()) + " fields, the header has " + std::to_string(labels.size()));
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      if (!parseFiniteNumber(fields[c], &row[c])) {
        fail(path, *line_no, "column '" + channelName(labels[c]) + "' is not a finite number ('" + trimBlanks(fields[c]) + "')");
      }
      if (row[c] < bounds.lowest[c] || row[c] > bounds.highest[c]) {
        fail(path, *line_no, "column '" + channelName(labels[c]) + "' reads " + trimBlanks(fields[c]) +
                                 ", which no sensor can: " + bounds.rule[c]);
      }
    }
    if (!rows.empty()) {
      const double dt = row[0] - rows.back()[0];
      if (!(dt > 0.0)) fail(path, *line_no, "time does not increase (" + trimBlanks(fields[0]) + " s after " +
                                                std::to_string(rows.back()[0]) + " s)");
      if (std::abs(dt * rate_hz - 1.0) > 0.01) {
        std::ostringstream m;
        m << "sample spacing " << dt << " s does not match sensor_rate_hz " << rate_hz << " (missing or extra samples?)";
        fail(path, *line_no, m.str());
      }
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

SensorStream readSensorStream(const std::string& path, const RigidModel& model, const SensorLayout& layout,
                              double expected_rate_hz, const std::vector<std::string>& extra_channels) {
  if (const std::string problem = regularFileProblem(path); !problem.empty()) {
    fail(path, 0, "cannot open the stream file (" + problem + ")");
  }
  std::ifstream in(path);
  if (!in) fail(path, 0, "cannot open the stream file");
  SensorStream s;
  s.path = path;
  int line_no = 0, header_line = 0;
  const std::vector<std::string> labels = readHeader(in, path, s, &line_no, &header_line);
  const Columns c = findColumns(path, header_line, labels, model, layout, extra_channels);
  const ReadingBounds bounds = readingBounds(labels.size(), c, model, layout);
  // Rate: stated in the header, and the times must agree with it.
  const std::string rate_text = s.meta("sensor_rate_hz");
  if (rate_text.empty() || !parseFiniteNumber(rate_text, &s.rate_hz) || s.rate_hz <= 0.0) {
    fail(path, header_line, "no valid '# sensor_rate_hz: <Hz>' line before the header");
  }
  if (expected_rate_hz > 0.0 && std::abs(s.rate_hz - expected_rate_hz) > 1e-9 * expected_rate_hz) {
    std::ostringstream m;
    m << "sensor rate " << s.rate_hz << " Hz, expected " << expected_rate_hz << " Hz (all trials must share one rate)";
    fail(path, header_line, m.str());
  }
  const std::vector<std::vector<double>> rows = readRows(in, path, labels, bounds, s.rate_hz, &line_no);
  const int n = static_cast<int>(rows.size());
  if (n < 20) fail(path, line_no, "only " + std::to_string(n) + " samples; identification needs at least 20");

  const int nj = model.num_joints;
  s.time.resize(n);
  s.joint_angle.resize(n, nj);
  if (layout.has_currents) s.current.resize(n, nj);
  if (c.has_temperatures) s.winding_temperature.resize(n, nj);
  if (layout.has_joint_torques) s.joint_torque.resize(n, nj);
  s.gyro.resize(c.has_imu ? n : 0, 3);
  s.accel.resize(c.has_imu ? n : 0, 3);
  s.wrench.assign(layout.force_sensors.size(), Eigen::MatrixXd(n, 6));
  s.extra.resize(n, static_cast<Eigen::Index>(c.extra.size()));
  for (int t = 0; t < n; ++t) {
    const std::vector<double>& r = rows[t];
    s.time[t] = r[0];
    for (int j = 0; j < nj; ++j) {
      s.joint_angle(t, j) = r[c.encoder[j]];
      if (layout.has_currents) s.current(t, j) = r[c.current[j]];
      if (c.has_temperatures) s.winding_temperature(t, j) = r[c.temperature[j]];
      if (layout.has_joint_torques) s.joint_torque(t, j) = r[c.torque[j]];
    }
    for (int k = 0; k < 3 && c.has_imu; ++k) {
      s.gyro(t, k) = r[c.gyro[k]];
      s.accel(t, k) = r[c.accel[k]];
    }
    for (std::size_t f = 0; f < c.wrench.size(); ++f) {
      for (int k = 0; k < 6; ++k) s.wrench[f](t, k) = r[c.wrench[f][k]];
    }
    for (std::size_t e = 0; e < c.extra.size(); ++e) s.extra(t, static_cast<Eigen::Index>(e)) = r[c.extra[e]];
  }
  return s;
}

}  // namespace suitsim::eval
