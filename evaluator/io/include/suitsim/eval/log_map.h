// A channel map: how a robot's own logs (its column names, units, scales,
// signs, zero offsets, gear ratios and couplings, its rate, its trials)
// become the evaluator's SensorStream (streams.h). The map is an XML file
// read with the scenes' strict element reader; docs/logs.md is its
// reference. This header holds what the map says; log_streams.h reads the
// logs through it.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/streams.h"

namespace suitsim::eval {

/// How one logged column becomes a value in SI units:
///   x = sign · unit_factor · scale · (r − zero)
/// with r the logged reading (docs/logs.md, (L1)).
struct ColumnMap {
  std::string column;        ///< CSV header label, or HDF5 dataset under the trial's group ("name[k]": column k of a 2-D dataset)
  std::string unit;          ///< as the map writes it ("deg", "mA", ...)
  double unit_factor = 1.0;  ///< SI per unit
  double scale = 1.0;        ///< per reading (counts to unit, a logger's gain)
  double zero = 0.0;         ///< the reading at the physical zero (reading units)
  double sign = 1.0;         ///< +1 or -1: the logger's positive sense against the model's
  /// The sensor's stated range in reading units: a reading outside it is a
  /// bad sample (refused, or dropped when the map says so).
  double range_low = -std::numeric_limits<double>::infinity();
  double range_high = std::numeric_limits<double>::infinity();
  int line = 0;              ///< the map's line that states it
  bool present() const { return !column.empty(); }
  double toSI(double reading) const { return sign * unit_factor * scale * (reading - zero); }
};

/// A drive as logged: a joint read on its link side, or a motor behind a
/// gear and perhaps a coupling. Each channel may be absent.
struct LoggedDrive {
  std::string name;  ///< joint (of the a-priori robot) or motor (named in a <coupling>)
  ColumnMap angle;     ///< rad
  ColumnMap velocity;  ///< rad/s: checked against the joint's speed limit, not used by the identification
  ColumnMap current;   ///< A
  ColumnMap torque;    ///< N m
  int line = 0;
};

/// Motors that turn joints through gears and a linkage (a differential
/// wrist: two motors, each turning with both joints). With G = diag(gear)
/// and M the linkage (motor k turns by Σ_j M_kj q_j per turn of the gear's
/// output), the motor angles are θ_m = G M q (L2), so q = (G M)^-1 θ_m; the
/// link-side torques are τ = R_τ u (L3): R_τ = torque_matrix, by default
/// M^T, so each joint's "current" is the joint-equivalent current whose
/// k_T (the a-priori, link-side motor constant) the identification fits;
/// motor-side torque sensors give τ = (G M)^T τ_m (power balance).
struct LogCoupling {
  std::vector<std::string> joints;  ///< the joints it turns, in the matrices' column order
  std::vector<std::string> motors;  ///< the motors (LoggedDrive names), in row order
  Eigen::VectorXd gear;             ///< (n) gear ratio of each motor
  Eigen::MatrixXd linkage;          ///< M (n x n)
  Eigen::MatrixXd torque_matrix;    ///< R_τ (n x n)
  /// A motor that turns with several joints has its own rotor inertia and
  /// friction identified (CoupledDrive); false (motor_terms="none"): taken
  /// as negligible, the joints' own terms only.
  bool motor_terms = true;
  int line = 0;
};

/// The ground's wrench on a force sensor of the scene's layout, sensor frame.
struct LoggedForceSensor {
  std::string name;
  ColumnMap force[3];   ///< N
  ColumnMap moment[3];  ///< N m
  int line = 0;
};

/// A trial of the scene's experiment and where its samples are: a whole
/// file (one file per trial), or the rows of a file whose time lies in
/// [from, to] (one file for a session).
struct LogSegment {
  std::string trial;    ///< the scene's <trial> name
  std::string file;     ///< the data file, relative to the map's folder
  std::string group;    ///< HDF5: the group the trial's datasets sit in ("/": the root)
  double from = -std::numeric_limits<double>::infinity();  ///< s, on the log's clock
  double to = std::numeric_limits<double>::infinity();
  std::string purpose;  ///< "identification" or "evaluation" as the map states it (empty: not stated)
  std::string suit;     ///< the suit worn as the map states it (empty: not stated)
  /// <header name value> inside the <trial>: the logger's configuration for
  /// this trial only (after the map's own, which it may override).
  std::vector<std::pair<std::string, std::string>> headers;
  int line = 0;
};

/// What to do with a sample no sensor or joint can give.
enum class BadSample { Refuse, Drop };

struct LogMap {
  std::string path;     ///< the map file
  std::string folder;   ///< its folder: the data files are found from here
  enum class Format { Csv, Hdf5 };
  Format format = Format::Csv;
  char delimiter = ',';    ///< CSV only
  std::string file;        ///< the data file trials use when they name none
  ColumnMap time;          ///< the time column (s); absent: samples at `rate_hz` from 0
  double rate_hz = 0.0;    ///< stated rate (Hz); 0: from the time column
  int time_line = 0;
  std::vector<LoggedDrive> joints;   ///< joints logged on the link side
  std::vector<LoggedDrive> motors;   ///< motors, each in one coupling
  std::vector<LogCoupling> couplings;
  bool has_imu = false;
  ColumnMap gyro[3];       ///< rad/s, IMU frame
  ColumnMap accel[3];      ///< m/s², IMU frame (specific force)
  int imu_line = 0;
  std::vector<LoggedForceSensor> force_sensors;
  /// Channels asked for by name beyond the robot's (a band's length, a
  /// worn device's encoders), with the name the evaluation asks for.
  std::vector<std::pair<std::string, ColumnMap>> channels;
  /// <header name value>: what a stream's "# name: value" header line would
  /// say about the logger (its filters, "lowpass.imu: butterworth2 42 Hz";
  /// the encoders that sit on their motors, "encoders_on_motor: J1 J2"),
  /// given to every trial's stream; the remedies that read such lines
  /// (logger_delay.h, --gear-twist) read these.
  std::vector<std::pair<std::string, std::string>> headers;
  // <preprocess>: onto ConditioningOptions (identification.h).
  bool has_preprocess = false;
  double cutoff_hz = 8.0;
  int filter_order = 4;
  int decimate = 2;
  double trim_s = 0.3;
  double slip_velocity = 0.05;   ///< IdentificationOptions::slip_velocity (rad/s)
  double motion_margin_s = 0.1;  ///< IdentificationOptions::motion_margin_s
  int preprocess_line = 0;
  // <checks>
  BadSample on_bad_sample = BadSample::Refuse;
  int max_gap = 3;              ///< longest run of dropped samples filled by interpolation
  double limit_margin = kEncoderLimitMargin;  ///< rad a reading may lie beyond its joint's limits (streams.h)
  double speed_margin = 0.5;    ///< relative, over a joint's velocity limit
  double max_speed = 100.0;     ///< rad/s: the speed bound of a joint without a velocity limit
  std::vector<LogSegment> segments;
  int root_line = 0;
};

/// Reads a channel map. Throws io::SceneError "MAP:LINE: <element> problem"
/// for an unknown element or attribute, a missing one, a bad number or
/// unit, a coupling whose matrices are not square, invertible and of its
/// size, a motor in no coupling or in two, a joint both direct and coupled,
/// a trial named twice. Joints, sensors and trials are checked against the
/// scene by readLogs (log_streams.h), with the map's line.
LogMap readLogMap(const std::string& path);

/// SI per unit for a channel kind ("angle", "velocity", "current",
/// "torque", "force", "gyro", "accel", "time", "length"); false for a unit
/// that kind cannot have.
bool unitFactor(const std::string& kind, const std::string& unit, double* factor);

}  // namespace suitsim::eval
