// The causal sensor chain (SensorChainSpec; docs/sensors.md#the-causal-chain):
// low-pass filters with their real group delay, sampling at a jittered
// instant, and IMU biases that walk.
//
// Design note. The filters are two-pole biquads written here rather than
// taken from a DSP library: Debian's (liquid-dsp, for one) would bring a
// large dependency for ten lines, and the coefficients must be exactly the
// ones the docs state. Each channel's filter runs at every step on the
// channel's instantaneous value, so the logger's output is what a real
// anti-alias filter sampled by an ADC gives: delayed by about
// sqrt(2) / (2 pi f_c) for slow signals, attenuated near the cutoff, and
// folding back what lies above half the sample rate.
//
// The accelerometer's input is the mean acceleration over the step just
// taken, (v_k - v_{k-1}) / dt, rotated into the sensor frame at step k: a
// proof mass read once per step, half a step late (docs/sensors.md). The
// gyro reads the body's angular velocity at the step.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "suitsim/sensors.h"

namespace suitsim {

LowPass2 LowPass2::butterworth(double cutoff, double dt) {
  if (!(cutoff > 0.0) || !(dt > 0.0) || !(cutoff < 0.45 / dt)) {
    throw std::invalid_argument("low-pass cutoff " + std::to_string(cutoff) +
                                " Hz must be above 0 and below 0.45 / dt = " + std::to_string(0.45 / dt) + " Hz");
  }
  // Bilinear transform of w^2 / (s^2 + sqrt(2) w s + w^2), prewarped so
  // that the digital filter's -3 dB point is the cutoff.
  const double K = std::tan(M_PI * cutoff * dt);
  const double norm = 1.0 / (1.0 + std::sqrt(2.0) * K + K * K);
  LowPass2 f;
  f.b0 = K * K * norm;
  f.b1 = 2.0 * f.b0;
  f.b2 = f.b0;
  f.a1 = 2.0 * (K * K - 1.0) * norm;
  f.a2 = (1.0 - std::sqrt(2.0) * K + K * K) * norm;
  return f;
}

double butterworthDelay(double cutoff) { return std::sqrt(2.0) / (2.0 * M_PI * cutoff); }

void Sensors::setUpChain(double dt) {
  const SensorChainSpec& ch = spec_.chain;
  const std::size_t n = columns_.size();
  chain_filter_ = {LowPass2{}, LowPass2{}, LowPass2{}, LowPass2{}};
  const double cutoffs[4] = {0.0, ch.imu_cutoff, ch.force_cutoff, ch.current_cutoff};
  const char* kinds[4] = {"", "imu", "force", "current"};
  for (int kind = 1; kind < 4; ++kind) {
    if (cutoffs[kind] == 0.0) continue;
    try {
      chain_filter_[kind] = LowPass2::butterworth(cutoffs[kind], dt);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("sensor chain, ") + kinds[kind] + ": " + e.what());
    }
  }
  if (!(ch.jitter >= 0.0) || !(ch.gyro_bias_walk >= 0.0) || !(ch.accel_bias_walk >= 0.0)) {
    throw std::invalid_argument("sensor chain: jitter and bias walks must be >= 0");
  }

  // Columns in the constructor's order: encoders, IMUs (gyro, accel),
  // force sensors, currents, thermistors, joint torques, band lengths.
  chain_kind_.assign(n, 0);
  chain_device_.assign(n, 0);
  std::vector<std::string> devices;
  std::size_t c = 0;
  auto device = [&](const std::string& name, std::size_t count, int kind) {
    if (count == 0) return;
    for (std::size_t i = 0; i < count; ++i, ++c) {
      chain_kind_[c] = kind;
      chain_device_[c] = static_cast<int>(devices.size());
    }
    devices.push_back(name);
  };
  device("encoders", spec_.encoders.hinges.size(), 0);
  for (const ImuSpec& imu : spec_.imus) device(imu.name, 6, 1);
  for (const ForceSensorSpec& fs : spec_.force_sensors) device(fs.name, 6, 2);
  device("currents", spec_.currents.hinges.size(), 3);
  device("winding_temperatures", spec_.winding_temperatures.hinges.size(), 0);
  device("joint_torques", spec_.joint_torques.hinges.size(), 0);
  device("band_lengths", spec_.band_lengths.bands.size(), 0);
  for (const AttitudeSpec& a : spec_.attitudes) device(a.name, 3, 0);
  if (c != n) throw std::logic_error("sensor chain: column count mismatch");

  // The largest timing error, in whole steps: 3 sigma, at most half a
  // sample period (a device cannot be read in its neighbour's period).
  const double on = spec_.noise ? 1.0 : 0.0;
  chain_delay_ = 0;
  if (on * ch.jitter > 0.0) {
    chain_delay_ = std::min(static_cast<long>(std::ceil(3.0 * ch.jitter / dt)), (steps_per_sample_ - 1) / 2);
  }
  chain_ring_length_ = 2 * chain_delay_ + 2;
  chain_ring_.assign(static_cast<std::size_t>(chain_ring_length_) * n, 0.0);
  chain_z1_.assign(n, 0.0);
  chain_z2_.assign(n, 0.0);
  for (const std::string& d : devices) chain_jitter_rng_.emplace_back(streamSeed(noise_seed_, d + ".jitter"));
  chain_offset_.assign(devices.size(), 0.0);

  // The bias walk: a Wiener process sampled once per sample period T, so
  // each step's std is walk sqrt(T).
  const double period = static_cast<double>(steps_per_sample_) * dt;
  chain_bias_walk_.assign(n, 0.0);
  chain_walk_step_.assign(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) chain_walk_rng_.emplace_back(streamSeed(noise_seed_, columns_[k] + ".bias_walk"));
  for (std::size_t s = 0; s < spec_.imus.size(); ++s) {
    const int accel = imu_accel_column_[s];
    for (int d = 0; d < 3; ++d) {
      chain_walk_step_[static_cast<std::size_t>(accel - 3 + d)] = on * ch.gyro_bias_walk * std::sqrt(period);
      chain_walk_step_[static_cast<std::size_t>(accel + d)] = on * ch.accel_bias_walk * std::sqrt(period);
    }
  }
  imu_last_velocity_.assign(3 * spec_.imus.size(), 0.0);
  imu_step_acceleration_.assign(3 * spec_.imus.size(), 0.0);
}

bool Sensors::chainStep(const State& state, long k, bool first, double* row, double* stamp) {
  const std::size_t n = columns_.size();
  const long S = steps_per_sample_;
  const long J = chain_delay_;
  // The unfiltered channels are read only near a sample step, where a
  // jittered instant may fall; the filtered ones at every step.
  const long phase = k % S;
  const bool near_sample = phase <= J + 1 || phase >= S - J - 1;
  trackCurrents(state, first);
  // Accelerometers: the IMU points' mean acceleration over the step just
  // taken (world), which measure() turns into the specific force in the
  // sensor frame at this step.
  if (!spec_.imus.empty()) {
    imuVelocities(state, false, imu_window_end_.data());
    if (first) imu_last_velocity_ = imu_window_end_;
    for (std::size_t i = 0; i < imu_window_end_.size(); ++i) {
      imu_step_acceleration_[i] = (imu_window_end_[i] - imu_last_velocity_[i]) / dt_;
    }
    imu_last_velocity_ = imu_window_end_;
  }
  measure(state, instant_.data(), !near_sample, false, imu_step_acceleration_.data());
  std::copy(current_mid_.begin(), current_mid_.end(), instant_.begin() + current_column_);

  // Filter, then keep the step in the ring.
  double* slot = &chain_ring_[static_cast<std::size_t>(k % chain_ring_length_) * n];
  for (std::size_t c = 0; c < n; ++c) {
    const LowPass2& f = chain_filter_[static_cast<std::size_t>(chain_kind_[c])];
    if (first) f.settle(instant_[c], chain_z1_[c], chain_z2_[c]);
    slot[c] = f.step(instant_[c], chain_z1_[c], chain_z2_[c]);
  }
  if (first) {
    // Held before the start: every earlier step the ring could be asked for.
    for (long q = 1; q < chain_ring_length_; ++q) {
      std::copy(slot, slot + n, &chain_ring_[static_cast<std::size_t>(q) * n]);
    }
  }

  if (phase == 0) {
    chain_sample_step_ = k;
    chain_sample_time_ = state.time;
  }
  if (chain_sample_step_ < 0 || k != chain_sample_step_ + J) return false;
  return chainEmit(row, stamp);
}

bool Sensors::chainEmit(double* row, double* stamp) {
  const std::size_t n = columns_.size();
  const long J = chain_delay_;
  const double on = spec_.noise ? 1.0 : 0.0;
  // A fresh pair per draw, its second value dropped: one kept across
  // generators would hand one generator's second value to the next.
  const auto normal = [](std::mt19937_64& rng) { return freshStandardNormal(rng); };
  // Each device's instant, in steps from the stamp, drawn for every sample
  // (so a device's sequence depends on its seed alone).
  double* reading = pending_.data();
  std::vector<double>& offsets = chain_offset_;
  // Step q's slot (q may be before 0: the ring was filled with step 0).
  const auto ring = [&](long q) {
    const long L = chain_ring_length_;
    return &chain_ring_[static_cast<std::size_t>(((q % L) + L) % L) * n];
  };
  for (std::size_t d = 0; d < chain_jitter_rng_.size(); ++d) {
    const double e = on * spec_.chain.jitter * normal(chain_jitter_rng_[d]) / dt_;
    offsets[d] = std::clamp(e, -static_cast<double>(J), static_cast<double>(J));
  }
  for (std::size_t c = 0; c < n; ++c) {
    const double p = offsets[static_cast<std::size_t>(chain_device_[c])];
    const double base = std::floor(p);
    const double frac = p - base;
    const long s0 = chain_sample_step_ + static_cast<long>(base);
    const double v0 = ring(s0)[c];
    const double v = frac > 0.0 ? (1.0 - frac) * v0 + frac * ring(s0 + 1)[c] : v0;
    truth_[c] = v;
  }
  std::copy(truth_.begin(), truth_.end(), reading);
  if (has_crosstalk_) applyCrosstalk(reading);
  for (std::size_t c = 0; c < n; ++c) {
    row[c] = noise_[c](reading[c] + chain_bias_walk_[c]);
    // The next sample's bias: one step of the walk (drawn for every column
    // so that the sequence depends on the seed alone).
    chain_bias_walk_[c] += chain_walk_step_[c] * normal(chain_walk_rng_[c]);
  }
  *stamp = chain_sample_time_;
  chain_sample_step_ = -1;
  return true;
}

}  // namespace suitsim

namespace suitsim {

bool Sensors::chainFinish(long k_last, double* row, double* stamp) {
  if (chain_sample_step_ < 0 || k_last < chain_sample_step_) {
    chain_sample_step_ = -1;
    return false;
  }
  // The run ended before the row's last instant: the final step's values
  // stand for the steps after it.
  const std::size_t n = columns_.size();
  const double* last = &chain_ring_[static_cast<std::size_t>(k_last % chain_ring_length_) * n];
  for (long q = k_last + 1; q <= chain_sample_step_ + chain_delay_; ++q) {
    double* slot = &chain_ring_[static_cast<std::size_t>(q % chain_ring_length_) * n];
    std::copy(last, last + n, slot);
  }
  return chainEmit(row, stamp);
}

void Sensors::applyCrosstalk(double* reading) const {
  for (std::size_t s = 0; s < spec_.force_sensors.size(); ++s) {
    double* w = reading + force_column_[s];
    const std::array<double, 36>& C = spec_.force_sensors[s].crosstalk;
    double out[6];
    for (int i = 0; i < 6; ++i) {
      out[i] = 0.0;
      for (int j = 0; j < 6; ++j) out[i] += C[static_cast<std::size_t>(6 * i + j)] * w[j];
    }
    std::copy(out, out + 6, w);
  }
}

}  // namespace suitsim
