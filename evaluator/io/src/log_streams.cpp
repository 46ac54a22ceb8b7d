// A robot's logs through a channel map into SensorStreams (log_streams.h,
// docs/logs.md): the map's names resolved against the scene once
// (log_plan.cpp), then per trial the columns read (csv_log.cpp,
// hdf5_log.cpp), the segment cut out of its file, every reading turned into SI (L1), motor-side channels
// through their couplings (L2), (L3), and every sample checked against what
// a sensor or a joint can do before the identification sees it.
#include "suitsim/eval/log_streams.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "log_plan.h"
#include "log_table.h"
#include "suitsim/core/stop.h"
#include "suitsim/scene/scene.h"

namespace suitsim::eval {

namespace {

using namespace log_plan;  // log_plan.h: the map resolved against the scene
namespace fs = std::filesystem;
using detail::LogTable;
using detail::WantedColumn;
using Eigen::MatrixXd;
using Eigen::VectorXd;


/// The columns one trial reads, each once.
struct Wanted {
  std::vector<WantedColumn> list;
  std::map<std::string, int> index;
  const LogMap* map = nullptr;
  int add(const ColumnMap& c) {
    if (!c.present()) return -1;
    const auto it = index.find(c.column);
    if (it != index.end()) return it->second;
    list.push_back({c.column, map->path + ":" + std::to_string(c.line)});
    return index[c.column] = static_cast<int>(list.size()) - 1;
  }
};

/// The bad samples of one segment: refused at once, or marked for dropping.
struct BadSamples {
  BadSample policy;
  std::vector<std::string> rule;  // per row: why it is dropped (empty: kept)
  void flag(int row, const std::string& why, const std::string& message) {
    if (policy == BadSample::Refuse) throw StreamError(message + " (the map's <checks on_bad_sample=\"drop\"> would drop it)");
    if (rule[static_cast<std::size_t>(row)].empty()) rule[static_cast<std::size_t>(row)] = why;
  }
  bool bad(int row) const { return !rule[static_cast<std::size_t>(row)].empty(); }
};

/// One column of the segment in SI units (L1), its readings checked against
/// the sensor's stated range and the bound every reading has.
VectorXd readColumn(const LogTable& t, int col, const ColumnMap& c, int first, int n, BadSamples& bad) {
  VectorXd x(n);
  for (int r = 0; r < n; ++r) {
    const double reading = t.values(first + r, col);
    x[r] = c.toSI(reading);
    if (!std::isfinite(x[r]) || std::abs(x[r]) > kMaxSensorReading) {
      throw StreamError(t.where(first + r, col) + " reads " + number(reading) + " " + c.unit + ", beyond ±" +
                        number(kMaxSensorReading) + " in SI units, which no sensor reads");
    }
    if (reading < c.range_low || reading > c.range_high) {
      bad.flag(r, "stated range", t.where(first + r, col) + " reads " + number(reading) + ", outside the sensor's stated range [" +
                                      number(c.range_low) + ", " + number(c.range_high) + "]");
    }
  }
  return x;
}

/// Linear interpolation over the dropped rows between kept neighbours
/// (rows [a, b] of `m`, both ends kept).
void fillDropped(MatrixXd& m, const VectorXd& time, const BadSamples& bad, int a, int b) {
  if (m.rows() == 0) return;  // a channel the robot has not (no IMU on a rig)
  for (int r = a + 1; r < b;) {
    if (!bad.bad(r)) {
      ++r;
      continue;
    }
    const int k0 = r - 1;
    int k1 = r;
    while (bad.bad(k1)) ++k1;
    for (int k = r; k < k1; ++k) {
      const double w = (time[k] - time[k0]) / (time[k1] - time[k0]);
      m.row(k) = (1.0 - w) * m.row(k0) + w * m.row(k1);
    }
    r = k1;
  }
}

struct SegmentResult {
  SensorStream stream;
  std::map<std::string, VectorXd> channels;
  LogTrialReading reading;
};

// Where each channel of the map sits among the columns one trial reads.
struct SegmentColumns {
  Wanted wanted;
  int time = -1;
  std::vector<std::array<int, 4>> joint, motor;  // per drive: angle, velocity, current, torque
  int gyro[3] = {-1, -1, -1}, accel[3] = {-1, -1, -1};
  std::vector<std::array<int, 6>> force;  // per force sensor: force xyz, moment xyz
  std::vector<int> channel;
};

SegmentColumns segmentColumns(const LogMap& m, const Plan& p) {
  SegmentColumns c;
  Wanted& w = c.wanted;
  w.map = &m;
  c.time = w.add(m.time);
  c.joint.resize(m.joints.size());
  c.motor.resize(m.motors.size());
  for (std::size_t d = 0; d < m.joints.size(); ++d) {
    for (int k = 0; k < 4; ++k) c.joint[d][static_cast<std::size_t>(k)] = w.add(channelOf(m.joints[d], k));
  }
  for (std::size_t d = 0; d < m.motors.size(); ++d) {
    for (int k = 0; k < 4; ++k) c.motor[d][static_cast<std::size_t>(k)] = w.add(channelOf(m.motors[d], k));
  }
  for (int k = 0; k < 3 && p.imu; ++k) {
    c.gyro[k] = w.add(m.gyro[k]);
    c.accel[k] = w.add(m.accel[k]);
  }
  c.force.resize(m.force_sensors.size());
  for (std::size_t f = 0; f < m.force_sensors.size(); ++f) {
    for (int k = 0; k < 3; ++k) {
      c.force[f][static_cast<std::size_t>(k)] = w.add(m.force_sensors[f].force[k]);
      c.force[f][static_cast<std::size_t>(3 + k)] = w.add(m.force_sensors[f].moment[k]);
    }
  }
  for (const auto& [name, column] : m.channels) c.channel.push_back(w.add(column));
  return c;
}

// The file's table, read once for every trial that shares it.
const LogTable& tableOf(const LogMap& m, const LogSegment& seg, const Wanted& w, std::map<std::string, LogTable>& tables) {
  const std::string file = (fs::path(m.folder) / seg.file).string();
  std::string group = seg.group;
  if (group.empty() || group[0] != '/') group = "/" + group;
  while (group.size() > 1 && group.back() == '/') group.pop_back();
  const std::string key = file + "\n" + group;
  auto it = tables.find(key);
  if (it == tables.end()) {
    LogTable t = m.format == LogMap::Format::Csv ? detail::readCsvTable(file, m.delimiter, w.list)
                                                 : detail::readHdf5Table(file, group, w.list);
    it = tables.emplace(key, std::move(t)).first;
  }
  return it->second;
}

// The segment's rows of the file, [first, first + n), their times and rate.
struct SegmentTimes {
  int first = 0, n = 0;
  VectorXd time;
  double rate = 0.0;
  std::string where;  // the map's <trial> line and the file, for messages
};

SegmentTimes segmentTimes(const LogMap& m, const LogSegment& seg, const LogTable& t, int time_col) {
  const int rows = static_cast<int>(t.values.rows());
  // Time: the column (strictly increasing over the whole file), or the rate.
  VectorXd time_all(rows);
  for (int r = 0; r < rows; ++r) {
    time_all[r] = time_col >= 0 ? m.time.toSI(t.values(r, time_col)) : r / m.rate_hz;
    if (r > 0 && !(time_all[r] > time_all[r - 1])) {
      throw StreamError(t.where(r, time_col) + ": time goes back or stands still (" + number(time_all[r]) + " s after " +
                        number(time_all[r - 1]) + " s)");
    }
  }
  SegmentTimes st;
  while (st.first < rows && time_all[st.first] < seg.from) ++st.first;
  int last = st.first;
  while (last < rows && time_all[last] <= seg.to) ++last;
  st.n = last - st.first;
  st.where = m.path + ":" + std::to_string(seg.line) + ": trial '" + seg.trial + "' (" + t.file +
             (t.hdf5 ? " group " + t.group : "") + ")";
  const int n = st.n;
  if (n < 20) throw StreamError(st.where + ": only " + std::to_string(n) + " samples; identification needs at least 20");
  st.time = time_all.segment(st.first, n);
  st.rate = m.rate_hz;
  if (!(st.rate > 0.0)) st.rate = (n - 1) / (st.time[n - 1] - st.time[0]);
  for (int r = 1; r < n && time_col >= 0; ++r) {
    const double dt = st.time[r] - st.time[r - 1];
    if (std::abs(dt * st.rate - 1.0) > 0.01) {
      throw StreamError(t.where(st.first + r, time_col) + ": sample spacing " + number(dt) + " s does not match the rate " +
                        number(st.rate) + " Hz (missing or extra samples?)");
    }
  }
  return st;
}

// Joint-side channels in model order, from the joints' own columns or
// through their couplings' motors; `source` names the column a joint's
// value came from, for the messages.
struct JointChannels {
  MatrixXd angle, velocity, current, torque;
  std::vector<int> source, speed_source;
  std::vector<bool> has_velocity;
};

JointChannels jointChannels(const LogMap& m, const Plan& p, const RigidModel& model, const SegmentColumns& cols,
                            const LogTable& t, const SegmentTimes& st, BadSamples& bad) {
  const int nj = model.num_joints, n = st.n;
  const auto column = [&](int col, const ColumnMap& c) { return readColumn(t, col, c, st.first, n, bad); };
  JointChannels j{MatrixXd::Zero(n, nj), MatrixXd::Zero(n, nj), MatrixXd::Zero(n, nj), MatrixXd::Zero(n, nj),
                  std::vector<int>(static_cast<std::size_t>(nj), -1), std::vector<int>(static_cast<std::size_t>(nj), -1),
                  std::vector<bool>(static_cast<std::size_t>(nj), false)};
  MatrixXd* kinds[4] = {&j.angle, &j.velocity, &j.current, &j.torque};
  for (int q = 0; q < nj; ++q) {
    const JointSource& s = p.joint[static_cast<std::size_t>(q)];
    if (s.direct < 0) continue;
    const LoggedDrive& d = m.joints[static_cast<std::size_t>(s.direct)];
    for (int k = 0; k < 4; ++k) {
      const int col = cols.joint[static_cast<std::size_t>(s.direct)][static_cast<std::size_t>(k)];
      if (col >= 0) kinds[k]->col(q) = column(col, channelOf(d, k));
    }
    j.source[static_cast<std::size_t>(q)] = cols.joint[static_cast<std::size_t>(s.direct)][0];
    j.speed_source[static_cast<std::size_t>(q)] = cols.joint[static_cast<std::size_t>(s.direct)][1];
    j.has_velocity[static_cast<std::size_t>(q)] = d.velocity.present();
  }
  for (std::size_t c = 0; c < m.couplings.size(); ++c) {
    const LogCoupling& cp = m.couplings[c];
    const int size = static_cast<int>(cp.joints.size());
    std::vector<int> jidx;
    for (const std::string& name : cp.joints) jidx.push_back(jointIndex(model, name));
    for (int k = 0; k < 4; ++k) {
      MatrixXd motor(n, size);
      bool all = true;
      for (int i = 0; i < size; ++i) {
        const int mi = p.coupling_motor[c][static_cast<std::size_t>(i)];
        const int col = cols.motor[static_cast<std::size_t>(mi)][static_cast<std::size_t>(k)];
        if (col < 0) {
          all = false;
          continue;
        }
        motor.col(i) = column(col, channelOf(m.motors[static_cast<std::size_t>(mi)], k));
      }
      if (!all) continue;
      // (L2) angles and speeds: q = (G M)^-1 θ_m; (L3) currents: the
      // joint-equivalent R_τ u; torque sensors on the motors: (G M)^T τ_m.
      const MatrixXd joint = k <= 1 ? MatrixXd(motor * p.angle_from_motor[c].transpose())
                           : k == 2 ? MatrixXd(motor * cp.torque_matrix.transpose())
                                    : MatrixXd(motor * p.torque_from_motor[c].transpose());
      for (int i = 0; i < size; ++i) {
        kinds[k]->col(jidx[static_cast<std::size_t>(i)]) = joint.col(i);
        if (k == 1) j.has_velocity[static_cast<std::size_t>(jidx[static_cast<std::size_t>(i)])] = true;
      }
    }
    for (int i = 0; i < size; ++i) {
      const auto& motor_cols = cols.motor[static_cast<std::size_t>(p.coupling_motor[c][static_cast<std::size_t>(i)])];
      j.source[static_cast<std::size_t>(jidx[static_cast<std::size_t>(i)])] = motor_cols[0];
      j.speed_source[static_cast<std::size_t>(jidx[static_cast<std::size_t>(i)])] = motor_cols[1];
    }
  }
  return j;
}

// What no joint can do: beyond its limits, faster than it can turn
// (a logged speed, or a jump from the last sample kept).
void flagImpossibleJoints(const LogMap& m, const Plan& p, const RigidModel& model, const LogTable& t,
                          const SegmentTimes& st, const JointChannels& j, BadSamples& bad) {
  const int nj = model.num_joints;
  const VectorXd& time = st.time;
  std::vector<int> last_kept(static_cast<std::size_t>(nj), -1);
  for (int r = 0; r < st.n; ++r) {
    for (int q = 0; q < nj; ++q) {
      const std::size_t u = static_cast<std::size_t>(q);
      const std::string where = t.where(st.first + r, j.source[u]);
      const double angle = j.angle(r, q), bound = p.speed_bound[u];
      if (angle < p.lower[u] || angle > p.upper[u]) {
        bad.flag(r, "joint limits", where + ": joint '" + model.joint_name[q] + "' at " + number(angle) + " rad, more than " +
                                        number(m.limit_margin) + " rad outside its limits [" +
                                        number(p.lower[u] + m.limit_margin) + ", " + number(p.upper[u] - m.limit_margin) +
                                        "] rad");
      }
      if (j.has_velocity[u] && std::abs(j.velocity(r, q)) > bound) {
        bad.flag(r, "speed", t.where(st.first + r, j.speed_source[u]) + ": joint '" + model.joint_name[q] +
                                 "' logs a speed of " + number(j.velocity(r, q)) + " rad/s, beyond the " + number(bound) +
                                 " rad/s it can turn");
      }
      const int k = last_kept[u];
      if (k >= 0 && std::abs(angle - j.angle(k, q)) > bound * (time[r] - time[k])) {
        bad.flag(r, "jump", where + ": joint '" + model.joint_name[q] + "' jumps by " + number(angle - j.angle(k, q)) +
                                " rad in " + number(time[r] - time[k]) + " s, faster than the " + number(bound) +
                                " rad/s it can turn");
      }
    }
    if (!bad.bad(r)) std::fill(last_kept.begin(), last_kept.end(), r);
  }
}

// Dropped samples: cut at the ends ([a, b] is what stays), counted, and a
// run longer than max_gap refused.
void dropBadSamples(const LogMap& m, const LogTable& t, const SegmentTimes& st, int source, const BadSamples& bad,
                    LogTrialReading& rd, int* a, int* b) {
  const int n = st.n;
  *a = 0;
  *b = n - 1;
  while (*a < n && bad.bad(*a)) ++*a;
  while (*b >= *a && bad.bad(*b)) --*b;
  for (int r = 0, run = 0; r < n; ++r) {
    run = bad.bad(r) ? run + 1 : 0;
    if (run > m.max_gap) {
      throw StreamError(t.where(st.first + r, source) + ": " + std::to_string(run) +
                        " bad samples in a row (the last: " + bad.rule[static_cast<std::size_t>(r)] +
                        "), more than the max_gap of " + std::to_string(m.max_gap) + " the map lets drop");
    }
    if (bad.bad(r)) {
      ++rd.dropped;
      ++rd.dropped_by_rule[bad.rule[static_cast<std::size_t>(r)]];
      if (r > *a && r < *b) ++rd.filled;
    }
  }
}

SegmentResult readSegment(const LogMap& m, const Plan& p, const RigidModel& model,
                          const LogSegment& seg, std::map<std::string, LogTable>& tables) {
  const int nj = model.num_joints;
  const SegmentColumns cols = segmentColumns(m, p);
  const LogTable& t = tableOf(m, seg, cols.wanted, tables);
  const SegmentTimes st = segmentTimes(m, seg, t, cols.time);
  const int n = st.n, first = st.first;
  BadSamples bad{m.on_bad_sample, std::vector<std::string>(static_cast<std::size_t>(n))};
  auto column = [&](int col, const ColumnMap& c) { return readColumn(t, col, c, first, n, bad); };
  JointChannels j = jointChannels(m, p, model, cols, t, st, bad);
  flagImpossibleJoints(m, p, model, t, st, j, bad);
  MatrixXd gyro(p.imu ? n : 0, 3), accel(p.imu ? n : 0, 3);
  for (int k = 0; k < 3 && p.imu; ++k) {
    gyro.col(k) = column(cols.gyro[k], m.gyro[k]);
    accel.col(k) = column(cols.accel[k], m.accel[k]);
  }
  std::vector<MatrixXd> wrench;
  for (int f : p.force_sensor) {
    MatrixXd w6(n, 6);
    const LoggedForceSensor& fs_map = m.force_sensors[static_cast<std::size_t>(f)];
    for (int k = 0; k < 6; ++k) {
      w6.col(k) = column(cols.force[static_cast<std::size_t>(f)][static_cast<std::size_t>(k)], k < 3 ? fs_map.force[k] : fs_map.moment[k - 3]);
    }
    wrench.push_back(w6);
  }
  MatrixXd extra(n, static_cast<Eigen::Index>(m.channels.size()));
  for (std::size_t c = 0; c < m.channels.size(); ++c) {
    extra.col(static_cast<Eigen::Index>(c)) = column(cols.channel[c], m.channels[c].second);
  }

  // Dropped samples: cut at the ends, filled by linear interpolation
  // inside, a run no longer than max_gap.
  SegmentResult out;
  LogTrialReading& rd = out.reading;
  int a = 0, b = n - 1;
  dropBadSamples(m, t, st, j.source[0], bad, rd, &a, &b);
  const VectorXd& time = st.time;
  for (MatrixXd* mat : {&j.angle, &j.current, &j.torque, &gyro, &accel, &extra}) fillDropped(*mat, time, bad, a, b);
  for (MatrixXd& w6 : wrench) fillDropped(w6, time, bad, a, b);
  const int kept = b - a + 1;
  if (kept < 20) throw StreamError(st.where + ": only " + std::to_string(kept) + " samples left after dropping bad ones");

  SensorStream& s = out.stream;
  s.path = t.hdf5 ? t.file + ":" + t.group : t.file;
  for (const auto& [name, value] : m.headers) s.header[name] = value;
  for (const auto& [name, value] : seg.headers) s.header[name] = value;
  s.header["trial"] = seg.trial;
  s.header["log_map"] = m.path;
  s.header["sensor_rate_hz"] = number(st.rate);
  s.rate_hz = st.rate;
  s.time = time.segment(a, kept);
  s.joint_angle = j.angle.middleRows(a, kept);
  if (p.currents) s.current = j.current.middleRows(a, kept);
  if (p.torques) s.joint_torque = j.torque.middleRows(a, kept);
  if (p.imu) {
    s.gyro = gyro.middleRows(a, kept);
    s.accel = accel.middleRows(a, kept);
  }
  for (MatrixXd& w6 : wrench) s.wrench.push_back(w6.middleRows(a, kept));
  if (!p.temperature.empty()) {
    s.winding_temperature.resize(kept, nj);
    for (int q = 0; q < nj; ++q) s.winding_temperature.col(q) = extra.col(p.temperature[static_cast<std::size_t>(q)]).segment(a, kept);
  }
  for (std::size_t c = 0; c < m.channels.size(); ++c) {
    out.channels[m.channels[c].first] = extra.col(static_cast<Eigen::Index>(c)).segment(a, kept);
  }
  rd.trial = seg.trial;
  rd.file = t.file;
  rd.group = t.hdf5 ? t.group : "";
  rd.first_row = first;
  rd.rows = n;
  rd.rate_hz = st.rate;
  return out;
}

std::vector<std::string> describeSteps(const LogMap& m, const LogReading& r) {
  std::vector<std::string> steps;
  int dropped = 0, filled = 0;
  for (const LogTrialReading& t : r.trials) {
    dropped += t.dropped;
    filled += t.filled;
  }
  steps.push_back(std::string("read ") + std::to_string(r.trials.size()) + " trial(s) from " +
                  (m.format == LogMap::Format::Csv ? "CSV" : "HDF5") + " logs through the channel map " + m.path);
  steps.push_back(m.time.present() ? "time from column '" + m.time.column + "' (" + m.time.unit + ")" +
                                         (m.rate_hz > 0 ? ", rate stated " + number(m.rate_hz) + " Hz"
                                                        : ", rate measured from it") + ", spacing checked within 1 %"
                                   : "time from the stated rate " + number(m.rate_hz) + " Hz");
  steps.push_back("every reading to SI: x = sign * unit * scale * (reading - zero) (docs/logs.md (L1))");
  for (const LogCoupling& c : m.couplings) {
    steps.push_back("joints " + joinNames(c.joints) + " from motors " + joinNames(c.motors) +
                    ": q = (G M)^-1 theta_m (L2), joint-equivalent currents R_tau u (L3)");
  }
  for (const CoupledDrive& d : r.coupled_drives) {
    steps.push_back("motor " + d.name + " turns with several joints: its rotor inertia, viscous and Coulomb "
                    "friction (motor side) are identified through its row of G M (docs/logs.md)");
  }
  steps.push_back("checks: joint limits + " + number(m.limit_margin) + " rad, speeds and jumps within each joint's "
                  "velocity limit + " + number(100.0 * m.speed_margin) + " % (else " + number(m.max_speed) +
                  " rad/s), sensors' stated ranges; bad samples " +
                  (m.on_bad_sample == BadSample::Drop
                       ? "dropped (" + std::to_string(dropped) + " dropped, " + std::to_string(filled) +
                             " of them filled by linear interpolation, the rest cut at the ends; runs up to " +
                             std::to_string(m.max_gap) + ")"
                       : std::string("refused")));
  steps.push_back("logged velocities checked only: the identification differentiates the filtered angles");
  steps.push_back("zero-phase Butterworth low-pass, order " + std::to_string(m.filter_order) + ", cut-off " +
                  number(m.cutoff_hz) + " Hz, forward and backward (signals.h)");
  steps.push_back("derivatives: central differences, O(h^2) (signals.h)");
  steps.push_back("decimation: every " + std::to_string(m.decimate) + " sample(s) kept");
  steps.push_back("trimmed " + number(m.trim_s) + " s at each end");
  steps.push_back("joint rows used where the joint (and each coupled motor it turns with) slides one way faster "
                  "than " + number(m.slip_velocity) + " rad/s for " + number(m.motion_margin_s) + " s on both sides");
  return steps;
}

}  // namespace

LogReading readLogs(const LogMap& map, const EvaluationInputs& inputs) {
  const RigidModel model = makeRigidModel(inputs.apriori);
  const Plan plan = makePlan(map, model, inputs);
  // Every segment names a trial of the scene, which must agree with what
  // the map says it is.
  for (const LogSegment& seg : map.segments) {
    const auto t = std::find_if(inputs.trials.begin(), inputs.trials.end(),
                                [&](const TrialInfo& x) { return x.name == seg.trial; });
    if (t == inputs.trials.end() || seg.trial.empty()) {
      std::vector<std::string> names;
      for (const TrialInfo& x : inputs.trials) names.push_back(x.name);
      mapFail(map, seg.line, "<trial> '" + seg.trial + "' is no trial of the scene's experiment (" + joinNames(names) + ")");
    }
    if (!seg.purpose.empty() && seg.purpose != t->purpose) {
      mapFail(map, seg.line, "<trial> '" + seg.trial + "' purpose '" + seg.purpose + "', the scene's is '" + t->purpose + "'");
    }
    if (!seg.suit.empty() && seg.suit != t->suit) {
      mapFail(map, seg.line, "<trial> '" + seg.trial + "' suit '" + seg.suit + "', the scene's is '" + t->suit + "'");
    }
  }
  LogReading out;
  out.map = map;
  std::map<std::string, LogTable> tables;
  for (const LogSegment& seg : map.segments) {
    throwIfStopped();
    SegmentResult r = readSegment(map, plan, model, seg, tables);
    if (!out.trials.empty() && std::abs(r.reading.rate_hz / out.trials.front().rate_hz - 1.0) > 0.01) {
      throw StreamError(map.path + ":" + std::to_string(seg.line) + ": trial '" + seg.trial + "' is sampled at " +
                        number(r.reading.rate_hz) + " Hz, trial '" + out.trials.front().trial + "' at " +
                        number(out.trials.front().rate_hz) + " Hz (all trials share one rate)");
    }
    out.streams[seg.trial] = std::move(r.stream);
    out.channels[seg.trial] = std::move(r.channels);
    out.trials.push_back(r.reading);
  }
  // A motor that turns with several joints brings its own rotor inertia and
  // friction into the identification (CoupledDrive): its row of G M, in
  // the model's joint order.
  for (std::size_t c = 0; c < map.couplings.size(); ++c) {
    const LogCoupling& cp = map.couplings[c];
    if (!cp.motor_terms) continue;
    const MatrixXd GM = cp.gear.asDiagonal() * cp.linkage;
    for (Eigen::Index k = 0; k < GM.rows(); ++k) {
      if ((GM.row(k).array() != 0.0).count() < 2) continue;  // one joint's own motor: its I_a, k_d, tau_c
      CoupledDrive drive;
      drive.name = cp.motors[static_cast<std::size_t>(k)];
      drive.row = VectorXd::Zero(model.num_joints);
      for (std::size_t j = 0; j < cp.joints.size(); ++j) {
        drive.row[jointIndex(model, cp.joints[j])] = GM(k, static_cast<Eigen::Index>(j));
      }
      out.coupled_drives.push_back(drive);
    }
  }
  out.steps = describeSteps(map, out);
  return out;
}

EvaluationInputs inputsForLogs(const EvaluationInputs& scene, const LogReading& logs) {
  EvaluationInputs in = scene;
  in.trials.clear();
  for (const TrialInfo& t : scene.trials) {
    if (logs.streams.count(t.name)) in.trials.push_back(t);
  }
  in.sensor_rate_hz = logs.trials.front().rate_hz;
  return in;
}

std::shared_ptr<const LogReading> readLogsFor(const std::string& map_path, EvaluationInputs* inputs,
                                              PipelineOptions* pipeline) {
  const LogMap map = readLogMap(map_path);
  auto logs = std::make_shared<const LogReading>(readLogs(map, *inputs));
  *inputs = inputsForLogs(*inputs, *logs);
  useLogs(logs, pipeline);
  return logs;
}

void useLogs(std::shared_ptr<const LogReading> logs, PipelineOptions* options) {
  const LogMap& m = logs->map;
  options->conditioning.cutoff_hz = m.cutoff_hz;
  options->conditioning.filter_order = m.filter_order;
  options->conditioning.decimate = m.decimate;
  options->conditioning.trim_s = m.trim_s;
  options->identification.slip_velocity = m.slip_velocity;
  options->identification.motion_margin_s = m.motion_margin_s;
  options->identification.coupled_drives = logs->coupled_drives;
  options->read_stream = [logs](const TrialInfo& trial, const std::vector<std::string>& extra) {
    const auto it = logs->streams.find(trial.name);
    if (it == logs->streams.end()) {
      throw StreamError(logs->map.path + ":" + std::to_string(logs->map.root_line) + ": no <trial> '" + trial.name + "'");
    }
    SensorStream s = it->second;
    const std::map<std::string, VectorXd>& channels = logs->channels.at(trial.name);
    s.extra.resize(s.numSamples(), static_cast<Eigen::Index>(extra.size()));
    for (std::size_t k = 0; k < extra.size(); ++k) {
      const auto c = channels.find(extra[k]);
      if (c == channels.end()) {
        throw StreamError(logs->map.path + ":" + std::to_string(logs->map.root_line) + ": the evaluation needs channel '" +
                          extra[k] + "', which the map has no <channel name=\"" + extra[k] + "\"> for");
      }
      s.extra.col(static_cast<Eigen::Index>(k)) = c->second;
    }
    return s;
  };
}

}  // namespace suitsim::eval
