// suitsim's own streams as an HDF5 log with its channel map (`suitsim run
// --log-format hdf5`): the layout a robot's logger would write, read back
// through the same map reader as any robot's (log_streams.h). The file
// holds the doubles the CSV streams read as, so an identification from it
// is the identification from the CSV, bit for bit; the truth stays in its
// own files, never in the log.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "log_table.h"
#include "suitsim/eval/log_streams.h"

namespace suitsim::eval {

namespace {

namespace fs = std::filesystem;

/// "R_KNEE.encoder[rad]" -> "R_KNEE.encoder" (the dataset's name).
std::string withoutUnit(const std::string& label) { return label.substr(0, label.find('[')); }

/// XML attribute text: names come from scenes and may hold any character.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string rateOf(const std::string& csv) {
  std::ifstream in(csv);
  std::string line;
  while (std::getline(in, line) && !line.empty() && line[0] == '#') {
    const std::string key = "# sensor_rate_hz:";
    if (line.compare(0, key.size(), key) == 0) {
      std::istringstream value(line.substr(key.size()));
      std::string rate;
      value >> rate;
      return rate;
    }
  }
  throw StreamError(csv + ":0: no '# sensor_rate_hz:' line");
}

// The "# name: value" lines at the head of a stream file, in order.
std::vector<std::pair<std::string, std::string>> headerLines(const std::string& csv) {
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream in(csv);
  for (std::string line; std::getline(in, line) && !line.empty() && line[0] == '#';) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(1, colon - 1), value = line.substr(colon + 1);
    const auto trim = [](std::string& t) {
      t.erase(0, t.find_first_not_of(' '));
      t.erase(t.find_last_not_of(" \r") + 1);
    };
    trim(name);
    trim(value);
    if (!name.empty() && name.find(' ') == std::string::npos) out.emplace_back(name, value);
  }
  return out;
}

}  // namespace

void writeHdf5Log(const EvaluationInputs& inputs, const std::string& streams_dir, const std::string& h5_path,
                  const std::string& map_path, const std::string& h5_name) {
  std::vector<std::string> groups;
  std::vector<std::vector<std::string>> names;
  std::vector<Eigen::MatrixXd> values;
  std::string rate;
  std::vector<std::vector<std::pair<std::string, std::string>>> headers;
  for (const TrialInfo& t : inputs.trials) {
    if (t.name.empty()) throw StreamError(streams_dir + ":0: an HDF5 log needs named trials (an <experiment>)");
    const std::string csv = (fs::path(streams_dir) / t.name / "sensors.csv").string();
    const detail::LogTable table = detail::readCsvTable(csv, ',', {});
    if (rate.empty()) rate = rateOf(csv);
    headers.push_back(headerLines(csv));
    groups.push_back("/" + t.name);
    std::vector<std::string> datasets;
    for (const std::string& c : table.columns) datasets.push_back(withoutUnit(c));
    names.push_back(datasets);
    values.push_back(table.values);
  }
  detail::writeHdf5Tables(h5_path, groups, names, values);

  // The map: SI units throughout, the channels named as the streams name them.
  const RigidModel model = makeRigidModel(inputs.apriori);
  std::ostringstream x;
  x << "<?xml version=\"1.0\"?>\n<!-- The channel map of an HDF5 log that suitsim run wrote "
       "(docs/logs.md). -->\n<log_map>\n";
  x << "  <format type=\"hdf5\" file=\"" << escaped(h5_name.empty() ? fs::path(h5_path).filename().string() : h5_name) << "\"/>\n";
  x << "  <time column=\"time\" unit=\"s\" rate=\"" << rate << "\"/>\n";
  for (const std::string& j : model.joint_name) {
    x << "  <joint name=\"" << escaped(j) << "\">\n";
    x << "    <angle column=\"" << escaped(j) << ".encoder\" unit=\"rad\"/>\n";
    if (inputs.layout.has_currents) x << "    <current column=\"" << escaped(j) << ".current\" unit=\"A\"/>\n";
    if (inputs.layout.has_joint_torques) x << "    <torque column=\"" << escaped(j) << ".torque\" unit=\"N*m\"/>\n";
    x << "  </joint>\n";
  }
  const std::string imu = escaped(inputs.layout.imu.name);
  if (!inputs.layout.imu.name.empty()) {  // a robot on a rig may have none
    x << "  <imu>\n    <gyro columns=\"" << imu << ".gyro.x " << imu << ".gyro.y " << imu << ".gyro.z\" unit=\"rad/s\"/>\n";
    x << "    <accel columns=\"" << imu << ".accel.x " << imu << ".accel.y " << imu << ".accel.z\" unit=\"m/s^2\"/>\n  </imu>\n";
  }
  for (const SensorMount& f : inputs.layout.force_sensors) {
    const std::string n = escaped(f.name);
    x << "  <force_sensor name=\"" << n << "\">\n";
    x << "    <force columns=\"" << n << ".force.x " << n << ".force.y " << n << ".force.z\" unit=\"N\"/>\n";
    x << "    <moment columns=\"" << n << ".torque.x " << n << ".torque.y " << n << ".torque.z\" unit=\"N*m\"/>\n";
    x << "  </force_sensor>\n";
  }
  // Every other column (temperatures, band lengths, a device's channels)
  // by its own name, as the evaluation asks for them.
  for (const std::string& d : names.front()) {
    if (d == "time") continue;
    bool everywhere = true;  // a channel the map names must be in every trial
    for (const std::vector<std::string>& other : names) {
      everywhere = everywhere && std::find(other.begin(), other.end(), d) != other.end();
    }
    if (!everywhere) continue;
    bool robot = false;
    for (const std::string& j : model.joint_name) {
      robot = robot || d == j + ".encoder" || d == j + ".current" || d == j + ".torque";
    }
    if (!inputs.layout.imu.name.empty()) {
      robot = robot || d.rfind(inputs.layout.imu.name + ".gyro.", 0) == 0 || d.rfind(inputs.layout.imu.name + ".accel.", 0) == 0;
    }
    for (const SensorMount& f : inputs.layout.force_sensors) {
      robot = robot || d.rfind(f.name + ".force.", 0) == 0 || d.rfind(f.name + ".torque.", 0) == 0;
    }
    if (!robot) x << "  <channel name=\"" << escaped(d) << "\" column=\"" << escaped(d) << "\"/>\n";
  }
  // Each trial with its stream's header lines (the logger's filters, the
  // encoders on the motors: what the remedies read), but those the reader
  // sets itself.
  for (std::size_t k = 0; k < inputs.trials.size(); ++k) {
    const TrialInfo& t = inputs.trials[k];
    x << "  <trial name=\"" << escaped(t.name) << "\" group=\"/" << escaped(t.name) << "\" purpose=\"" << t.purpose
      << "\" suit=\"" << escaped(t.suit) << "\">\n";
    for (const auto& [name, value] : headers[k]) {
      if (name == "trial" || name == "sensor_rate_hz" || name == "log_map") continue;
      x << "    <header name=\"" << escaped(name) << "\" value=\"" << escaped(value) << "\"/>\n";
    }
    x << "  </trial>\n";
  }
  x << "</log_map>\n";
  std::ofstream f(map_path);
  f << x.str();
  f.close();
  if (!f) throw StreamError(map_path + ":0: cannot write the channel map");
}

}  // namespace suitsim::eval
