// Reading a channel map (log_map.h, docs/logs.md) with the scenes' strict
// element reader: unknown elements and attributes first, then missing ones,
// then counts and syntax, then what the values mean (a coupling that no
// motor arrangement can have). The scene-dependent checks (a joint the
// robot lacks, a trial the experiment lacks) are readLogs', with this
// map's lines.
#include "suitsim/eval/log_map.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <Eigen/LU>
#include <tinyxml2.h>

#include "suitsim/core/decompositions.h"
#include "suitsim/eval/identification.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/xml_reader.h"

namespace suitsim::eval {

namespace {

using io::ElementReader;
using tinyxml2::XMLElement;

struct Unit {
  const char* kind;
  const char* name;
  double factor;
};

constexpr double kPi = 3.14159265358979323846;

// SI per unit. "g" is the standard gravity (9.80665 m/s², the BIPM's), the
// unit accelerometers state their range in.
constexpr Unit kUnits[] = {
    {"angle", "rad", 1.0},          {"angle", "mrad", 1e-3},         {"angle", "deg", kPi / 180.0},
    {"angle", "rev", 2.0 * kPi},    {"velocity", "rad/s", 1.0},      {"velocity", "deg/s", kPi / 180.0},
    {"velocity", "rpm", 2.0 * kPi / 60.0},                           {"velocity", "rev/s", 2.0 * kPi},
    {"current", "A", 1.0},          {"current", "mA", 1e-3},         {"torque", "N*m", 1.0},
    {"torque", "mN*m", 1e-3},       {"force", "N", 1.0},             {"force", "kN", 1e3},
    {"accel", "m/s^2", 1.0},        {"accel", "g", 9.80665},         {"time", "s", 1.0},
    {"time", "ms", 1e-3},           {"time", "us", 1e-6},            {"time", "ns", 1e-9},
    {"length", "m", 1.0},           {"length", "mm", 1e-3},          {"temperature", "degC", 1.0},
};

std::string unitsOf(const std::string& kind) {
  std::string list;
  for (const Unit& u : kUnits) {
    if (kind == u.kind || kind == "any") list += (list.empty() ? "" : ", ") + std::string(u.name);
  }
  return list;
}

std::vector<double> numbers(const ElementReader& r, const char* name, const std::string& text) {
  std::vector<double> out;
  for (const std::string& w : io::words(text)) {
    double v = 0.0;
    if (!io::parseNumber(w, &v)) r.failAttribute(name, "'" + w + "' is not a finite number");
    out.push_back(v);
  }
  return out;
}

// One number, or one per axis: `count` values.
std::vector<double> perAxis(const ElementReader& r, const char* name, double fallback, std::size_t count) {
  if (!r.has(name)) return std::vector<double>(count, fallback);
  std::vector<double> v = numbers(r, name, r.text(name));
  if (v.size() == 1) v.assign(count, v[0]);
  if (v.size() != count) {
    r.failAttribute(name, "needs 1 or " + std::to_string(count) + " numbers (got " + std::to_string(v.size()) + ")");
  }
  return v;
}

// <angle>, <velocity>, <current>, <torque>, <gyro>, <accel>, <force>,
// <moment>, <channel>: `count` columns of one kind.
std::vector<ColumnMap> readColumns(const std::string& path, const XMLElement* e, const std::string& kind,
                                   std::size_t count, std::initializer_list<const char*> more = {}) {
  std::vector<const char*> allowed = {count == 1 ? "column" : "columns", "unit", "scale", "zero", "sign", "range"};
  allowed.insert(allowed.end(), more.begin(), more.end());
  const ElementReader r(path, e, allowed);
  io::rejectUnknownChildren(path, e, {});
  const char* col = count == 1 ? "column" : "columns";
  const std::vector<std::string> names = io::words(r.text(col));
  if (names.size() != count) {
    r.failAttribute(col, "needs " + std::to_string(count) + " column name" + (count == 1 ? "" : "s") + " (got " +
                             std::to_string(names.size()) + ")");
  }
  // A <channel> of no stated unit is taken as logged (SI): the evaluation
  // asks for it by name and knows its unit.
  const std::string unit = kind == "any" ? r.text("unit", "") : r.text("unit");
  double factor = 1.0;
  if (!(kind == "any" && unit.empty()) && !unitFactor(kind, unit, &factor)) {
    r.failAttribute("unit", "'" + unit + "' is no unit of " + (kind == "any" ? "a channel" : "a " + kind) + " (one of " +
                                unitsOf(kind) + ")");
  }
  const std::vector<double> scale = perAxis(r, "scale", 1.0, count);
  const std::vector<double> zero = perAxis(r, "zero", 0.0, count);
  const std::vector<double> sign = perAxis(r, "sign", 1.0, count);
  std::vector<ColumnMap> out(count);
  for (std::size_t k = 0; k < count; ++k) {
    if (scale[k] == 0.0) r.failAttribute("scale", "must not be 0");
    if (sign[k] != 1.0 && sign[k] != -1.0) r.failAttribute("sign", "must be 1 or -1");
    ColumnMap& c = out[k];
    c.column = names[k];
    c.unit = unit;
    c.unit_factor = factor;
    c.scale = scale[k];
    c.zero = zero[k];
    c.sign = sign[k];
    c.line = r.line();
  }
  if (r.has("range")) {
    const std::vector<double> range = numbers(r, "range", r.text("range"));
    if (range.size() != 2 || !(range[0] < range[1])) r.failAttribute("range", "needs two numbers, low < high");
    for (ColumnMap& c : out) {
      c.range_low = range[0];
      c.range_high = range[1];
    }
  }
  return out;
}

LoggedDrive readDrive(const std::string& path, const XMLElement* e) {
  const ElementReader r(path, e, {"name"});
  io::rejectUnknownChildren(path, e, {"angle", "velocity", "current", "torque"});
  LoggedDrive d;
  d.name = r.text("name");
  d.line = r.line();
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    ColumnMap* slot = tag == "angle" ? &d.angle : tag == "velocity" ? &d.velocity : tag == "current" ? &d.current : &d.torque;
    if (slot->present()) {
      io::checkedReader(path, c).fail("appears twice in <" + std::string(e->Name()) + " name=\"" + d.name + "\">");
    }
    *slot = readColumns(path, c, tag, 1)[0];
  }
  return d;
}

// "a b; c d": rows separated by ';'.
Eigen::MatrixXd readMatrix(const ElementReader& r, const char* name, int n) {
  std::string text = r.text(name);
  std::vector<std::vector<double>> rows;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t semi = std::min(text.find(';', start), text.size());
    rows.push_back(numbers(r, name, text.substr(start, semi - start)));
    start = semi + 1;
  }
  if (static_cast<int>(rows.size()) != n) {
    r.failAttribute(name, "needs " + std::to_string(n) + " rows separated by ';' (got " + std::to_string(rows.size()) + ")");
  }
  Eigen::MatrixXd m(n, n);
  for (int i = 0; i < n; ++i) {
    if (static_cast<int>(rows[i].size()) != n) {
      r.failAttribute(name, "row " + std::to_string(i + 1) + " needs " + std::to_string(n) + " numbers (got " +
                                std::to_string(rows[i].size()) + ")");
    }
    for (int j = 0; j < n; ++j) m(i, j) = rows[i][j];
  }
  // A linkage that loses a degree of freedom has no inverse: the joint
  // angles could not be read back from the motors' (L2).
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(m);
  if (lu.rank() < n) r.failAttribute(name, "is singular: the joints cannot be read back from the motors");
  return m;
}

// <header name value>: a header line of the streams; the names the reader
// sets itself (the trial, the map, the rate) are not the map's to give.
std::pair<std::string, std::string> readHeader(const std::string& path, const XMLElement* e) {
  const ElementReader r(path, e, {"name", "value"});
  io::rejectUnknownChildren(path, e, {});
  const std::string name = r.text("name");
  if (name.empty() || name.find_first_of(": \t") != std::string::npos) {
    r.failAttribute("name", "must be one word without ':' (got '" + name + "')");
  }
  if (name == "trial" || name == "log_map" || name == "sensor_rate_hz") {
    r.failAttribute("name", "'" + name + "' is set by the reader, not the map");
  }
  return {name, r.text("value")};
}

LogCoupling readCoupling(const std::string& path, const XMLElement* e) {
  const ElementReader r(path, e, {"joints", "motors", "gear", "linkage", "torque_matrix", "motor_terms"});
  io::rejectUnknownChildren(path, e, {});
  LogCoupling c;
  c.line = r.line();
  c.joints = io::words(r.text("joints"));
  c.motors = io::words(r.text("motors"));
  const int n = static_cast<int>(c.joints.size());
  if (n == 0) r.failAttribute("joints", "names no joint");
  if (static_cast<int>(c.motors.size()) != n) {
    r.failAttribute("motors", "needs one motor per joint (" + std::to_string(n) + ", got " +
                                  std::to_string(c.motors.size()) + ")");
  }
  const std::vector<double> gear = perAxis(r, "gear", 1.0, static_cast<std::size_t>(n));
  c.gear = Eigen::Map<const Eigen::VectorXd>(gear.data(), n);
  for (int k = 0; k < n; ++k) {
    if (!(c.gear[k] != 0.0)) r.failAttribute("gear", "a gear ratio must not be 0");
  }
  c.linkage = r.has("linkage") ? readMatrix(r, "linkage", n) : Eigen::MatrixXd::Identity(n, n);
  c.torque_matrix = r.has("torque_matrix") ? readMatrix(r, "torque_matrix", n) : Eigen::MatrixXd(c.linkage.transpose());
  const std::string terms = r.text("motor_terms", "fit");
  if (terms != "fit" && terms != "none") r.failAttribute("motor_terms", "must be fit or none (got '" + terms + "')");
  c.motor_terms = terms == "fit";
  return c;
}

// <format type file delimiter>.
void readFormat(const std::string& path, const XMLElement* e, LogMap& m) {
    const ElementReader r(path, e, {"type", "file", "delimiter"});
    io::rejectUnknownChildren(path, e, {});
    const std::string type = r.text("type");
    if (type == "csv") m.format = LogMap::Format::Csv;
    else if (type == "hdf5") m.format = LogMap::Format::Hdf5;
    else r.failAttribute("type", "must be csv or hdf5 (got '" + type + "')");
    m.file = r.text("file", "");
    if (r.has("delimiter")) {
      const std::string d = r.text("delimiter") == "\\t" ? "\t" : r.text("delimiter");
      if (m.format != LogMap::Format::Csv) r.failAttribute("delimiter", "only a CSV log has one");
      if (d.size() != 1 || d == "\"" || d == "#" || d == "." || d == "-" || d == "+" || (d[0] >= '0' && d[0] <= '9')) {
        r.failAttribute("delimiter", "must be one character that no number contains (got '" + d + "')");
      }
      m.delimiter = d[0];
    }
}

// <time column unit rate>.
void readTime(const std::string& path, const XMLElement* e, LogMap& m) {
    const ElementReader r(path, e, {"column", "unit", "rate"});
    io::rejectUnknownChildren(path, e, {});
    m.time_line = r.line();
    if (!r.has("column") && !r.has("rate")) r.fail("needs a column, a rate, or both");
    if (r.has("rate")) m.rate_hz = r.positive("rate", r.number("rate"));
    if (r.has("column")) {
      m.time.column = r.text("column");
      m.time.unit = r.text("unit", "s");
      if (!unitFactor("time", m.time.unit, &m.time.unit_factor)) {
        r.failAttribute("unit", "'" + m.time.unit + "' is no unit of time (one of " + unitsOf("time") + ")");
      }
      m.time.line = r.line();
    } else if (r.has("unit")) {
      r.failAttribute("unit", "belongs to a time column (no column given)");
    }
}

// <imu>: its <gyro> and <accel> columns.
void readImu(const std::string& path, const XMLElement* e, LogMap& m) {
    const ElementReader r(path, e, {});
    io::rejectUnknownChildren(path, e, {"gyro", "accel"});
    m.has_imu = true;
    m.imu_line = r.line();
    for (const char* kind : {"gyro", "accel"}) {
      const XMLElement* c = e->FirstChildElement(kind);
      if (!c) r.fail(std::string("needs a <") + kind + ">");
      if (c->NextSiblingElement(kind)) io::checkedReader(path, c->NextSiblingElement(kind)).fail("appears twice");
      const std::vector<ColumnMap> cols = readColumns(path, c, kind, 3);
      for (int k = 0; k < 3; ++k) (std::string(kind) == "gyro" ? m.gyro : m.accel)[k] = cols[static_cast<std::size_t>(k)];
    }
}

// <force_sensor name>: its <force> and <moment> columns.
void readForceSensor(const std::string& path, const XMLElement* e, LogMap& m) {
    const ElementReader r(path, e, {"name"});
    io::rejectUnknownChildren(path, e, {"force", "moment"});
    LoggedForceSensor f;
    f.name = r.text("name");
    f.line = r.line();
    for (const char* kind : {"force", "moment"}) {
      const XMLElement* c = e->FirstChildElement(kind);
      if (!c) r.fail(std::string("needs a <") + kind + ">");
      if (c->NextSiblingElement(kind)) io::checkedReader(path, c->NextSiblingElement(kind)).fail("appears twice");
      const std::vector<ColumnMap> cols = readColumns(path, c, kind, 3);
      for (int k = 0; k < 3; ++k) (std::string(kind) == "force" ? f.force : f.moment)[k] = cols[static_cast<std::size_t>(k)];
    }
    for (const LoggedForceSensor& other : m.force_sensors) {
      if (other.name == f.name) r.fail("'" + f.name + "' appears twice");
    }
    m.force_sensors.push_back(f);
}

// <preprocess>: the conditioning and the rows the friction model serves.
void readPreprocess(const std::string& path, const XMLElement* e, LogMap& m) {
    const ElementReader r(path, e,
                          {"cutoff_hz", "order", "derivatives", "decimate", "trim_s", "slip_velocity", "motion_margin"});
    io::rejectUnknownChildren(path, e, {});
    m.has_preprocess = true;
    m.preprocess_line = r.line();
    m.cutoff_hz = r.positive("cutoff_hz", r.number("cutoff_hz", m.cutoff_hz));
    m.filter_order = r.integer("order", m.filter_order);
    if (m.filter_order != 2 && m.filter_order != 4) r.failAttribute("order", "must be 2 or 4 (signals.h)");
    // The identification differentiates the filtered samples with the
    // O(h²) central differences of signals.h; no other rule is offered.
    const std::string derivatives = r.text("derivatives", "central");
    if (derivatives != "central") r.failAttribute("derivatives", "must be central (got '" + derivatives + "')");
    m.decimate = r.integer("decimate", m.decimate);
    if (m.decimate < 1) r.failAttribute("decimate", "must be >= 1");
    m.trim_s = r.nonNegative("trim_s", r.number("trim_s", m.trim_s));
    // Which joint rows the friction model can serve: sliding faster than
    // slip_velocity, for motion_margin s on both sides (identification.h).
    m.slip_velocity = r.positive("slip_velocity", r.number("slip_velocity", m.slip_velocity));
    m.motion_margin_s = r.nonNegative("motion_margin", r.number("motion_margin", m.motion_margin_s));
}

// <checks>: what a bad sample does, and the bounds that make one.
void readChecks(const std::string& path, const XMLElement* e, LogMap& m) {
    const ElementReader r(path, e, {"on_bad_sample", "max_gap", "limit_margin", "speed_margin", "max_speed"});
    io::rejectUnknownChildren(path, e, {});
    const std::string bad = r.text("on_bad_sample", "refuse");
    if (bad == "refuse") m.on_bad_sample = BadSample::Refuse;
    else if (bad == "drop") m.on_bad_sample = BadSample::Drop;
    else r.failAttribute("on_bad_sample", "must be refuse or drop (got '" + bad + "')");
    m.max_gap = r.integer("max_gap", m.max_gap);
    if (m.max_gap < 1) r.failAttribute("max_gap", "must be >= 1");
    m.limit_margin = r.nonNegative("limit_margin", r.number("limit_margin", m.limit_margin));
    m.speed_margin = r.nonNegative("speed_margin", r.number("speed_margin", m.speed_margin));
    m.max_speed = r.positive("max_speed", r.number("max_speed", m.max_speed));
}

// <trial>: one segment of a log, with its own <header> lines.
void readTrial(const std::string& path, const XMLElement* e, LogMap& m, std::set<std::string>& trials) {
    const ElementReader r(path, e, {"name", "file", "group", "from", "to", "purpose", "suit"});
    io::rejectUnknownChildren(path, e, {"header"});
    LogSegment s;
    for (const XMLElement* h = e->FirstChildElement("header"); h; h = h->NextSiblingElement("header")) {
      s.headers.push_back(readHeader(path, h));
    }
    s.trial = r.text("name");
    s.line = r.line();
    if (!trials.insert(s.trial).second) r.fail("trial '" + s.trial + "' appears twice");
    s.file = r.text("file", "");
    s.group = r.text("group", "/");
    s.from = r.number("from", s.from);
    s.to = r.number("to", s.to);
    if (!(s.from < s.to)) r.failAttribute("to", "must be after from");
    s.purpose = r.text("purpose", "");
    if (!s.purpose.empty() && s.purpose != "identification" && s.purpose != "evaluation") {
      r.failAttribute("purpose", "must be identification or evaluation (got '" + s.purpose + "')");
    }
    s.suit = r.text("suit", "");
    m.segments.push_back(s);
}

// After every element: the names and the format's requirements.
void checkSegmentsAndCouplings(const std::string& path, LogMap& m) {
  for (LogSegment& s : m.segments) {
    if (s.file.empty()) s.file = m.file;
    if (s.file.empty()) {
      throw io::SceneError(path + ":" + std::to_string(s.line) +
                           ": <trial> names no file, and <format> gives none for every trial");
    }
    if (m.format == LogMap::Format::Csv && s.group != "/") {
      throw io::SceneError(path + ":" + std::to_string(s.line) + ": <trial> attribute 'group' is for HDF5 logs only");
    }
  }
  std::set<std::string> coupled_joints, coupled_motors;
  for (const LogCoupling& c : m.couplings) {
    for (const std::string& j : c.joints) {
      const bool direct = std::any_of(m.joints.begin(), m.joints.end(), [&](const LoggedDrive& d) { return d.name == j; });
      if (direct || !coupled_joints.insert(j).second) {
        throw io::SceneError(path + ":" + std::to_string(c.line) + ": <coupling> joint '" + j +
                             (direct ? "' is logged directly too (<joint>)" : "' is in two couplings"));
      }
    }
    for (const std::string& k : c.motors) {
      const bool known = std::any_of(m.motors.begin(), m.motors.end(), [&](const LoggedDrive& d) { return d.name == k; });
      if (!known) throw io::SceneError(path + ":" + std::to_string(c.line) + ": <coupling> motor '" + k + "' has no <motor>");
      if (!coupled_motors.insert(k).second) {
        throw io::SceneError(path + ":" + std::to_string(c.line) + ": <coupling> motor '" + k + "' is in two couplings");
      }
    }
  }
  for (const LoggedDrive& d : m.motors) {
    if (!coupled_motors.count(d.name)) {
      throw io::SceneError(path + ":" + std::to_string(d.line) + ": <motor> '" + d.name + "' is in no <coupling>");
    }
  }
}

}  // namespace

bool unitFactor(const std::string& kind, const std::string& unit, double* factor) {
  const std::string k = kind == "gyro" ? "velocity" : kind == "moment" ? "torque" : kind;
  for (const Unit& u : kUnits) {
    if ((k == "any" || k == u.kind) && unit == u.name) {
      *factor = u.factor;
      return true;
    }
  }
  return false;
}

LogMap readLogMap(const std::string& path) {
  tinyxml2::XMLDocument doc;
  io::loadXml(path, doc);
  const XMLElement* root = doc.RootElement();
  LogMap m;
  // Without a <preprocess>, the identification's own conditioning.
  const ConditioningOptions conditioning;
  m.cutoff_hz = conditioning.cutoff_hz;
  m.filter_order = conditioning.filter_order;
  m.decimate = conditioning.decimate;
  m.trim_s = conditioning.trim_s;
  const IdentificationOptions identification;
  m.slip_velocity = identification.slip_velocity;
  m.motion_margin_s = identification.motion_margin_s;
  m.path = path;
  m.folder = std::filesystem::path(path).parent_path().string();
  if (std::string(root->Name()) != "log_map") {
    io::checkedReader(path, root).fail("is not a channel map (the root element must be <log_map>)");
  }
  const ElementReader rr(path, root, {});
  m.root_line = rr.line();
  io::rejectUnknownChildren(path, root, {"format", "time", "joint", "motor", "coupling", "imu", "force_sensor",
                                         "channel", "preprocess", "checks", "trial", "header"});
  // Counts: one <format> and one <time>, at most one of the others.
  std::map<std::string, int> count;
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (++count[tag] > 1 && (tag == "format" || tag == "time" || tag == "imu" || tag == "preprocess" || tag == "checks")) {
      io::checkedReader(path, e).fail("appears twice (one per map)");
    }
  }
  for (const char* needed : {"format", "time", "trial"}) {
    if (count[needed] == 0) rr.fail(std::string("needs a <") + needed + "> element");
  }
  std::set<std::string> drives, trials;
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "format") {
      readFormat(path, e, m);
    } else if (tag == "time") {
      readTime(path, e, m);
    } else if (tag == "joint" || tag == "motor") {
      LoggedDrive d = readDrive(path, e);
      if (!drives.insert(d.name).second) io::checkedReader(path, e).fail("'" + d.name + "' appears twice");
      (tag == "joint" ? m.joints : m.motors).push_back(std::move(d));
    } else if (tag == "coupling") {
      m.couplings.push_back(readCoupling(path, e));
    } else if (tag == "imu") {
      readImu(path, e, m);
    } else if (tag == "force_sensor") {
      readForceSensor(path, e, m);
    } else if (tag == "channel") {
      const ElementReader r(path, e, {"name", "column", "unit", "scale", "zero", "sign", "range"});
      const std::string name = r.text("name");
      for (const auto& [other, _] : m.channels) {
        if (other == name) r.fail("'" + name + "' appears twice");
      }
      m.channels.emplace_back(name, readColumns(path, e, "any", 1, {"name"})[0]);
    } else if (tag == "preprocess") {
      readPreprocess(path, e, m);
    } else if (tag == "checks") {
      readChecks(path, e, m);
    } else if (tag == "header") {
      m.headers.push_back(readHeader(path, e));
    } else if (tag == "trial") {
      readTrial(path, e, m, trials);
    }
  }
  checkSegmentsAndCouplings(path, m);
  return m;
}

}  // namespace suitsim::eval
