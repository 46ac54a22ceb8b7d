// Reading a trial's sensor stream: the only measurement the evaluator sees,
// exactly what a real robot's logger would give (A §3.2: encoders, a gyro and
// accelerometer on the base link, force sensors at the feet, motor currents).
//
// File format (written by `suitsim run`): '#' comment lines "# key: value"
// (sensor_rate_hz, trial, motion, suit, ...), one header row
// "time[s],<channel>[unit],...", then one row per sample. Channel names:
//   <joint>.encoder[rad]   <joint>.current[A]   <joint>.torque[N*m] (link side)
//   <imu>.gyro.{x,y,z}[rad/s]   <imu>.accel.{x,y,z}[m/s^2]   (sensor frame)
//   <sensor>.force.{x,y,z}[N]   <sensor>.torque.{x,y,z}[N*m] (sensor frame,
//                               moment about the sensor origin)
//
// Where the sensors sit on the robot (SensorLayout) is the experimenter's
// knowledge of the mounting, given in link frames; it is not in the stream.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// A stream that cannot be used. what() is "FILE:LINE: problem" (line 0 when
/// the problem is not on one line, e.g. a missing file).
class StreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A sensor fixed on a link: its frame in the link frame.
struct SensorMount {
  std::string name;   ///< channel prefix in the stream ("imu", "rfsensor")
  std::string link;   ///< link it is fixed to
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  ///< link from sensor (rotation)
  Eigen::Vector3d p = Eigen::Vector3d::Zero();      ///< sensor origin in the link frame (m)
};

/// What the robot measures and where: the evaluator's view of the sensors.
struct SensorLayout {
  SensorMount imu;                          ///< gyro + accelerometer, on the base link (A §3.2); no name: none (a robot on a rig)
  std::vector<SensorMount> force_sensors;   ///< one per foot: the ground's wrench on it
  bool has_currents = true;                 ///< motor current per joint (full identification needs them)
  /// A link-side torque sensor per joint (`<joint>.torque[N*m]`): the torque
  /// the drive passes to the link, measured after the gear (issue 44).
  bool has_joint_torques = false;
  bool has_winding_temperatures = false;    ///< a winding thermistor per joint (the heating correction needs them)
  bool has_band_lengths = false;            ///< a length sensor along every band worn (the measured suit geometry needs them)
  /// Each joint's position limits (rad) from the robot description, by
  /// joint name: an encoder reading far outside them is no reading
  /// (readSensorStream). A joint not listed, or with infinite limits
  /// (continuous), gets only the bound every channel has.
  std::map<std::string, std::pair<double, double>> joint_limits;
};

/// Every reading of a stream (time aside) is within ±kMaxSensorReading of
/// its unit: no sensor of a robot reads a million radians, amperes,
/// newtons or m/s², so a larger value is a corrupt sample, not a reading.
inline constexpr double kMaxSensorReading = 1e6;
/// An encoder reads its joint within the joint's limits; one that reads
/// more than this (half a turn, rad) beyond them is a corrupt sample. The
/// margin leaves room for what a real encoder adds: noise, an offset, a
/// gear's twist, a joint pressed into its stop.
inline constexpr double kEncoderLimitMargin = 3.14159265358979323846;

/// One trial's measurements, resampled to nothing: as recorded, in the rigid
/// model's joint order. Every matrix has one row per sample.
struct SensorStream {
  std::string path;
  std::map<std::string, std::string> header;  ///< the "# key: value" lines
  std::map<std::string, int> header_line;     ///< each key's line in the file
  double rate_hz = 0.0;                       ///< from the header, checked against the times
  Eigen::VectorXd time;                       ///< (N) s, strictly increasing
  Eigen::MatrixXd joint_angle;                ///< (N x num_joints) encoders (rad)
  Eigen::MatrixXd current;                    ///< (N x num_joints) motor currents (A); empty without currents
  /// (N x num_joints) link-side joint torques (N m) when the layout has
  /// joint torque sensors; empty otherwise.
  Eigen::MatrixXd joint_torque;
  /// (N x num_joints) winding temperatures (degC) when every joint has a
  /// `<joint>.winding_temperature` channel; empty otherwise (only the
  /// heating correction needs them: ConditioningOptions).
  Eigen::MatrixXd winding_temperature;
  Eigen::MatrixXd gyro;                       ///< (N x 3) rad/s, IMU frame; empty without an IMU
  Eigen::MatrixXd accel;                      ///< (N x 3) specific force, m/s², IMU frame; empty without an IMU
  std::vector<Eigen::MatrixXd> wrench;        ///< per force sensor (N x 6): force (N), moment (N m), sensor frame
  /// (N x extra channels) the channels asked for by name beyond the robot's
  /// (a worn device's encoders and currents), in the order asked.
  Eigen::MatrixXd extra;
  int numSamples() const { return static_cast<int>(time.size()); }
  /// header value, or `fallback` when absent.
  std::string meta(const std::string& key, const std::string& fallback = "") const;
};

/// Reads and checks a sensor stream for `model` and `layout`. Throws
/// StreamError naming the file and line for: a missing file; no header row;
/// a missing channel (every movable joint's encoder, current when
/// layout.has_currents and torque when layout.has_joint_torques; the IMU's
/// six channels when the layout names an IMU; each force sensor's six); a
/// row with the wrong number of fields; a field that is not a finite number
/// (NaN, inf, text); a reading no sensor can make (beyond
/// ±kMaxSensorReading; an encoder more than kEncoderLimitMargin outside its
/// joint's layout.joint_limits; a winding temperature below absolute zero),
/// naming the column; time not strictly increasing; a sample spacing that is
/// not 1 / sensor_rate_hz (within 1 %), or no sensor_rate_hz line; a rate
/// different from `expected_rate_hz` when that is > 0; fewer than 20 samples.
/// `extra_channels`: more channels to read by name (without the unit), each required.
SensorStream readSensorStream(const std::string& path, const RigidModel& model, const SensorLayout& layout,
                              double expected_rate_hz = 0.0, const std::vector<std::string>& extra_channels = {});

}  // namespace suitsim::eval
