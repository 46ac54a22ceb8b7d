// The robot's sensors: what a controller or the evaluator may read, sampled
// from the particle state at a fixed rate with seeded, configurable noise.
//
// Design note. Every channel is truth + bias + white Gaussian noise, then
// quantised to its resolution (round to the nearest multiple; 0 = none):
//
//   encoder   joint angle (rad), quantised
//   imu       gyro: angular velocity of the link in the sensor frame (rad/s);
//             accelerometer: specific force R^T (a - g) of the sensor point
//             (m/s^2; standing still it reads +9.81 along the sensor's up axis)
//   force     6-axis F/T on a foot link: the ground's force on the contact
//             points of that link's body and its moment about the sensor
//             origin, in the sensor frame (N, N m). The mass of the sole below
//             the sensor is not subtracted (a real sensor would see the
//             contact wrench minus the sole's weight and inertia).
//   current   the commanded motor current State::hinge_current (A)
//   torque    a link-side joint torque sensor between the gear's output and
//             the link: Workspace::hinge_drive_torque, the torque the drive
//             (motor, gear with its friction and loss, rotor inertia) passes
//             to the link (N m), from a force evaluation of the state the
//             sample reads, read at the sample's instant
//   winding_temperature  a thermistor in the motor's winding: ambient +
//             State::hinge_winding_rise (degC), read at the sample's stamp
//             (the winding moves in seconds: nothing to average), quantised
//
// Noise: each column has its own std::mt19937_64 seeded from the scene seed
// and the column's name, so adding or removing a sensor leaves every other
// column's noise unchanged. noise = false makes the sensors ideal (a clean
// run): no noise, no biases and no quantisation. Rounding without noise to
// dither it is a slowly varying error, not noise, and it biased the
// identification on clean streams.
//
// Sampling never writes the State: the point acceleration comes from
// State::acceleration when it is valid (velocity Verlet caches it), else from
// a force evaluation into this object's own Workspace, sized once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "suitsim/articulated.h"
#include "suitsim/core/random.h"
#include "suitsim/model.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim {

/// Joint encoders: one angle channel per hinge.
struct EncoderSpec {
  std::vector<int> hinges;          ///< hinge indices
  std::vector<std::string> names;   ///< joint names (column labels), (hinges)
  double resolution = 0.0;          ///< quantisation step (rad), 0 = none
};

/// An IMU (gyro + accelerometer) fixed on a body.
struct ImuSpec {
  std::string name = "imu";
  int body = -1;                 ///< model body index
  Pose frame;                    ///< sensor frame in the body frame
  double gyro_noise = 0.0;       ///< white noise standard deviation (rad/s)
  Vec3 gyro_bias{0.0, 0.0, 0.0};   ///< constant bias, sensor axes (rad/s)
  double accel_noise = 0.0;      ///< (m/s^2)
  Vec3 accel_bias{0.0, 0.0, 0.0};  ///< (m/s^2)
};

/// The attitude a powered device's controller reads (exoskeleton.h): the
/// gravity vector in a body's frame, as its inclinometer or attitude filter
/// gives it. Idealised, as the controller's own attitude sensing is: exact,
/// read at the sample instant. A device logs the inputs its controller
/// used, so that its settings can be identified from its logs.
struct AttitudeSpec {
  std::string name;              ///< column prefix: "NAME.gravity.x" ...
  int body = -1;                 ///< model body index
  Pose frame;                    ///< its frame in the body frame
};

/// A 6-axis force/torque sensor fixed on a body with ground contacts.
struct ForceSensorSpec {
  std::string name;
  int body = -1;                 ///< model body index
  Pose frame;                    ///< sensor frame in the body frame
  std::vector<int> contacts;     ///< model contact indices whose ground force it measures
  double force_noise = 0.0;       ///< (N)
  double torque_noise = 0.0;      ///< (N m)
  double force_resolution = 0.0;  ///< (N), 0 = none
  double torque_resolution = 0.0; ///< (N m), 0 = none
  /// The calibration's crosstalk: the reading is C w for the true wrench w
  /// (forces then moments, sensor frame), C row-major. The identity (the
  /// default) is a perfect calibration.
  std::array<double, 36> crosstalk = identity6();
  static constexpr std::array<double, 36> identity6() {
    std::array<double, 36> c{};
    for (int i = 0; i < 6; ++i) c[7 * i] = 1.0;
    return c;
  }
};

/// Motor current channels: the commanded current plus noise.
struct CurrentSpec {
  std::vector<int> hinges;
  std::vector<std::string> names;
  double noise = 0.0;  ///< (A)
};

/// Winding temperature channels: a thermistor in each motor's winding.
struct WindingTemperatureSpec {
  std::vector<int> hinges;
  std::vector<std::string> names;
  double ambient = 25.0;     ///< the temperature of a winding at no rise (degC)
  double noise = 0.0;        ///< (K)
  double resolution = 0.0;   ///< (K), 0 = none
};

/// Link-side joint torque channels (the Design note's "torque"): one
/// strain-gauge sensor per joint between its gear's output and its link.
struct JointTorqueSpec {
  std::vector<int> hinges;
  std::vector<std::string> names;  ///< joint names (column labels), (hinges)
  double noise = 0.0;              ///< white noise standard deviation (N m)
  double bias = 0.0;               ///< the sensors' zero offset, the same on each (N m)
  double resolution = 0.0;         ///< quantisation step (N m), 0 = none
};

/// Band length channels: a stretch sensor sewn along each band of the suit
/// worn (capacitive or resistive strain gauges of textile suits), reading
/// the band's length between its end anchors, A(23), at the sample instant.
struct BandLengthSpec {
  std::vector<int> bands;          ///< model band indices
  std::vector<std::string> names;  ///< band names (column labels), (bands)
  double noise = 0.0;              ///< white noise standard deviation (m)
  double bias = 0.0;               ///< the sensors' zero offset, the same on each (m)
  double resolution = 0.0;         ///< quantisation step (m), 0 = none
};

/// A causal sensor chain (docs/sensors.md#the-causal-chain): what a real
/// logger does between the physical quantity and the file, in place of the
/// ideal logger's windows centred on their stamps.
///
///   filters   each analogue channel kind passes a 2nd-order Butterworth
///             low-pass (its anti-alias filter, or the sensor's own digital
///             low-pass) run at the simulation's step; 0 Hz: none
///   sampling  every device reads its channels at the stamp plus a timing
///             error drawn per sample and device (sample-and-hold at that
///             instant, interpolated between the steps around it); the row
///             keeps the nominal stamp
///   IMU bias  each gyro and accelerometer axis's bias walks randomly from
///             its constant value (a Wiener process), a new step per sample
///
/// Encoders, thermistors, joint torque and band length sensors have no
/// filter here (a joint torque sensor's bridge amplifier is fast beside the
/// band the evaluator keeps); they are sampled at their device's jittered instant.
struct SensorChainSpec {
  bool causal = false;          ///< false: the ideal logger (centred windows)
  double imu_cutoff = 0.0;      ///< gyro and accelerometer low-pass (Hz), 0 = none
  double force_cutoff = 0.0;    ///< force/torque sensors' low-pass (Hz), 0 = none
  double current_cutoff = 0.0;  ///< current sensors' low-pass (Hz), 0 = none
  double jitter = 0.0;          ///< RMS of each device's sampling-time error (s)
  double gyro_bias_walk = 0.0;  ///< gyro bias random walk (rad/s per sqrt(s))
  double accel_bias_walk = 0.0; ///< accelerometer bias random walk (m/s^2 per sqrt(s))
};

/// Every sensor of a robot and how they are sampled.
struct SensorSpec {
  double rate = 200.0;       ///< samples per second (Hz); 1/(rate dt) must be a whole number of steps
  std::uint64_t seed = 1;    ///< root of every column's generator
  /// The recording these samples belong to (a trial's name). Mixed into
  /// every column's generator, so two trials of one scene draw independent
  /// noise, jitter and bias walks, as two recordings on a real robot do;
  /// empty (a scene without trials): the seed and the columns' names alone.
  std::string recording;
  bool noise = true;         ///< false: ideal sensors (no noise, no bias, no quantisation)
  bool anti_alias = true;    ///< average IMU, force and current over the sample period (see Sensors)
  EncoderSpec encoders;      ///< empty hinges: no encoders
  std::vector<ImuSpec> imus;
  std::vector<ForceSensorSpec> force_sensors;
  CurrentSpec currents;      ///< empty hinges: no current channels
  WindingTemperatureSpec winding_temperatures;  ///< empty hinges: none
  JointTorqueSpec joint_torques;                ///< empty hinges: none
  BandLengthSpec band_lengths;                  ///< empty bands: none
  std::vector<AttitudeSpec> attitudes;          ///< a worn device's attitude (last columns)
  SensorChainSpec chain;                        ///< causal: replaces anti_alias's windows
};

/// A 2nd-order Butterworth low-pass at `cutoff` Hz discretised for a step
/// of dt by the bilinear transform, prewarped at the cutoff; run as a
/// transposed direct form II (two state values per channel).
struct LowPass2 {
  double b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0;
  /// Throws std::invalid_argument unless 0 < cutoff < 0.45 / dt.
  static LowPass2 butterworth(double cutoff, double dt);
  /// One step: input u, state (z1, z2) updated, the output returned.
  double step(double u, double& z1, double& z2) const {
    const double y = b0 * u + z1;
    z1 = b1 * u - a1 * y + z2;
    z2 = b2 * u - a2 * y;
    return y;
  }
  /// The state holding a constant input u (the output then equals u).
  void settle(double u, double& z1, double& z2) const {
    z2 = (b2 - a2) * u;
    z1 = (b1 - a1) * u + z2;
  }
};

/// The analogue 2nd-order Butterworth's group delay at zero frequency,
/// sqrt(2) / (2 pi cutoff) (s): what a slow signal is late by.
double butterworthDelay(double cutoff);

/// Steps per sample for `rate` at time step dt, or 0 when 1/(rate dt) is not
/// a whole number within a relative 1e-9 (or rate, dt are not positive).
long sensorStepsPerSample(double rate, double dt);

/// One noisy channel: value + bias + N(0, stddev^2), then quantised.
class NoiseChannel {
 public:
  NoiseChannel(std::uint64_t seed, std::string_view stream, double stddev, double bias, double resolution);
  double operator()(double truth);

 private:
  RandomStream rng_;  // core/random.h: the same draws with every standard library
  double stddev_, bias_, resolution_;
};

/// Samples a SensorSpec's channels from a state.
class Sensors {
 public:
  /// Throws std::invalid_argument when the rate does not divide into whole
  /// steps of dt, or a sensor refers to a body, hinge or contact out of range.
  Sensors(const Model& model, SensorSpec spec, double dt);
  Sensors(const Sensors&) = delete;
  Sensors& operator=(const Sensors&) = delete;

  /// Column names with units, e.g. "R_KNEE.encoder[rad]"; time is not included.
  const std::vector<std::string>& columns() const { return columns_; }
  const SensorSpec& spec() const { return spec_; }
  /// Steps between samples; the actual rate is exactly 1 / (stepsPerSample() dt).
  long stepsPerSample() const { return steps_per_sample_; }
  /// Writes columns().size() values for `state` into `row`. Reads the state
  /// only; advances the noise generators. Allocates nothing.
  void sample(const State& state, double* row);
  /// The noise-free values behind the last sample (same layout as the row).
  const std::vector<double>& truth() const { return truth_; }

  /// Logged sampling, the way a run records its stream. With
  /// SensorSpec::anti_alias the IMU, force and current channels of sample n
  /// (stamped at step n S, S = stepsPerSample()) are the mean over the steps
  /// n S - h .. n S + h, h = (S - 1) / 2: an anti-aliasing filter whose
  /// delay the logger has removed (the window is centred on the stamp).
  /// Without it, or for encoders, the value at step n S, as sample() gives,
  /// except for the two channels below.
  ///
  /// A motor current is held over a step, so at a step's instant two
  /// commands meet: the one that ended there and the one that starts. The
  /// logged current at a step is their mean (the window's mean is then the
  /// current's mean over the window's time span, centred on the stamp).
  /// Read as the command that ended, it lagged the encoders by half a step,
  /// and the identification took the gravity torque's change over that half
  /// step for viscous friction (k_d 1 to 2 % high at dt = 1e-4 s).
  /// Sampling a 1 kHz link vibration or the ground bounce at one instant per
  /// period folds it into the band the evaluator keeps (it cost the base
  /// rows of the identification about 0.3 N of disagreement on clean data).
  ///
  /// A logged accelerometer reads the velocity change of its point over the
  /// window, divided by its duration (2h + 1) dt, less gravity, in the
  /// sensor frame at the stamp. The window's edges are the middles of the
  /// steps into its first state and out of its last (velocity Verlet's
  /// half-kicked velocities), so it is centred on the stamp like the
  /// averaged channels. That is the mean acceleration the integrator
  /// really gave the point.
  /// The instantaneous acceleration sample() reads is the force evaluation
  /// closing the step (velocity Verlet evaluates it at the half-step
  /// velocity), and a servo that changes the currents every step makes the
  /// next step open with another evaluation: with stiff velocity-dependent
  /// forces the two differ, and their mismatch on the pelvis grew with the
  /// square of the arms' joint rates (0.1 m/s^2, 9 N on the base rows of
  /// the identification, with one arm swinging at 4.5 rad/s).
  ///
  /// startLog(state) takes the state at step 0 (held before it, for the
  /// first window); logStep(state, k) after every step k >= 1. Both must
  /// see the state with the currents of the coming step already set (call
  /// the servo first, as cli/trials.cpp does): the currents' mean and the
  /// accelerometer's far edge need the command the next step applies (the
  /// edge takes one force evaluation when the servo has just changed the
  /// currents, at most twice per sample). Each returns
  /// true when a row is complete, written to `row` with its time stamp (the
  /// state's time at the sample's step) in *stamp. finishLog(state, k_last)
  /// completes the last open window holding the final state; it returns
  /// false when no window is open or its sample's step was never reached.
  /// Allocates nothing.
  ///
  /// With SensorSpec::chain.causal the rows come from the causal chain
  /// instead (SensorChainSpec): every channel's filter runs at every step,
  /// and the row of sample n is complete J steps after its stamp, J the
  /// largest timing error in steps (the jitter's 3 sigma, at most half a
  /// sample period), so that a device sampled late is read from states
  /// already reached.
  bool startLog(const State& state, double* row, double* stamp);
  bool logStep(const State& state, long k, double* row, double* stamp);
  bool finishLog(const State& state, long k_last, double* row, double* stamp);

 private:
  /// Noise-free values of every channel at `state` into `out` (columns);
  /// with `averaged_only`, the encoders are left as they are; without
  /// `imu_acceleration`, the accelerometers read gravity alone (no force
  /// evaluation); `imu_world_acceleration` (3 per IMU), when given, is the
  /// IMU points' acceleration instead (the causal chain's step means).
  void measure(const State& state, double* out, bool averaged_only, bool imu_acceleration,
               const double* imu_world_acceleration = nullptr);
  void addToWindow(const State& state, double weight, bool at_sample_step);
  void emit(double* row, double* stamp);
  /// Logged accelerometers: the IMU points' velocities half a step after
  /// `state` when the next step opens a window (its start) or this step
  /// closes one (its end), and their orientation at the sample's step.
  void trackImus(const State& state, bool next_window_opens, bool window_closes, bool at_sample_step);
  /// The IMU points' velocities (world, 3 per IMU) at `state`, or half a
  /// step after it with the acceleration the next step opens with.
  void imuVelocities(const State& state, bool half_step_ahead, double* out);
  /// The particles' accelerations at `state` (the cache, or evaluated).
  const Vec3Array& particleAccelerations(const State& state);
  /// The drive torques (Workspace::hinge_drive_torque) of one force
  /// evaluation of `state` into this object's own workspace.
  const std::vector<double>& driveTorques(const State& state);
  void openWindow(long sample_step);

  const Model* model_;
  SensorSpec spec_;
  std::uint64_t noise_seed_ = 1;  // spec_.seed with the recording's name mixed in
  long steps_per_sample_ = 1;
  std::vector<std::string> columns_;
  std::vector<NoiseChannel> noise_;  // one per column
  std::vector<double> truth_;        // (columns)
  // Logged sampling: the window being averaged and the sample it belongs to.
  std::vector<double> window_sum_, instant_, pending_;  // (columns)
  std::vector<char> averaged_;                            // (columns) 1: averaged channel
  double window_weight_ = 0.0;
  long half_window_ = 0;
  long pending_sample_ = -1;                              // step of the open window's sample, -1: none
  double pending_time_ = 0.0;                             // state time at that step
  std::unique_ptr<Workspace> scratch_;  // force evaluation when the state has no valid acceleration
  Vec3Array scratch_acceleration_;
  // Barycentric weights of each IMU origin on its body's four particles.
  std::vector<std::array<double, 4>> imu_weight_;
  std::vector<int> imu_accel_column_;  // first accelerometer column of each IMU
  // Logged accelerometers (3 values per IMU): the point's velocity (world)
  // at the start of the next window, and at the start and end of the open
  // one (each half a step outside the window's states); the sensor
  // orientation (world from sensor, 9 values per IMU, row-major) at the
  // open window's sample step; the window's length (s) and the step.
  std::vector<double> imu_next_start_, imu_window_start_, imu_window_end_, imu_sample_rotation_;
  double window_duration_ = 0.0, dt_ = 0.0;
  // Logged currents (one per current channel): the command seen at the
  // last logged step, and the mean of it and the one before.
  std::vector<double> current_last_, current_mid_;
  int current_column_ = 0;  // first current column
  void trackCurrents(const State& state, bool held);
  /// The readings' crosstalk (ForceSensorSpec::crosstalk) on truth_.
  void applyCrosstalk(double* reading) const;
  std::vector<int> force_column_;  // first column of each force sensor
  bool has_crosstalk_ = false;

  // The causal chain (sensor_chain.cpp).
  void setUpChain(double dt);
  bool chainStep(const State& state, long k, bool first, double* row, double* stamp);
  bool chainEmit(double* row, double* stamp);
  bool chainFinish(long k_last, double* row, double* stamp);
  std::array<LowPass2, 4> chain_filter_;     // by kind: none, imu, force, current
  std::vector<int> chain_kind_;              // (columns) index into chain_filter_
  std::vector<int> chain_device_;            // (columns) the device whose instant it is read at
  std::vector<double> chain_z1_, chain_z2_;  // (columns) filter states
  std::vector<double> chain_ring_;           // (ring_length, columns): the filtered values of recent steps
  long chain_ring_length_ = 1, chain_delay_ = 0;  // steps kept; J
  std::vector<std::mt19937_64> chain_jitter_rng_;  // (devices)
  std::vector<double> chain_offset_;               // (devices) this sample's timing error (steps)
  std::vector<double> chain_bias_walk_;            // (columns) the walked part of each IMU bias
  std::vector<std::mt19937_64> chain_walk_rng_;    // (columns), IMU columns only drawn
  std::vector<double> chain_walk_step_;            // (columns) the walk's std per sample
  std::vector<double> imu_last_velocity_;          // (3 per IMU) the IMU points' velocities one step back
  std::vector<double> imu_step_acceleration_;      // (3 per IMU) their mean acceleration over the last step (world)
  long chain_sample_step_ = -1;                    // step of the pending sample, -1: none
  double chain_sample_time_ = 0.0;
};

}  // namespace suitsim
