#include "suitsim/sensors.h"

#include "bands.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace suitsim {

namespace {

Eigen::Matrix3d rotation(const Pose& pose) {
  Eigen::Matrix3d R;
  R << pose.R[0], pose.R[1], pose.R[2], pose.R[3], pose.R[4], pose.R[5], pose.R[6], pose.R[7], pose.R[8];
  return R;
}

Eigen::Vector3d toEigen(const Vec3& v) { return {v[0], v[1], v[2]}; }

/// World-from-sensor pose: the body's best-fit pose composed with the
/// sensor's frame on the body.
void sensorPose(const Model& model, const State& state, int body, const Pose& frame, Eigen::Matrix3d* R,
                Eigen::Vector3d* origin) {
  const Pose b = bodyPose(model, state, body);
  *R = rotation(b) * rotation(frame);
  *origin = toEigen(b.apply(frame.p));
}

void checkBody(const Model& model, int body, const std::string& what) {
  if (body < 0 || body >= model.num_bodies) throw std::invalid_argument(what + ": body index out of range");
}

void checkHinges(const Model& model, const std::vector<int>& hinges, const std::vector<std::string>& names,
                 const char* what) {
  if (hinges.size() != names.size()) throw std::invalid_argument(std::string(what) + ": one name per hinge");
  for (int h : hinges) {
    if (h < 0 || h >= model.num_hinges) throw std::invalid_argument(std::string(what) + ": hinge index out of range");
  }
}

}  // namespace

long sensorStepsPerSample(double rate, double dt) {
  if (!(rate > 0.0) || !(dt > 0.0) || !std::isfinite(rate) || !std::isfinite(dt)) return 0;
  const double steps = 1.0 / (rate * dt);
  // A rate that does not divide the step would sample at uneven intervals;
  // it is refused rather than silently rounded, so the header's rate is the
  // one the scene asked for.
  const double whole = std::round(steps);
  if (whole < 1.0 || whole > 1e15 || std::abs(steps - whole) > 1e-9 * whole) return 0;
  return static_cast<long>(whole);
}

namespace {
// Rounds to the nearest multiple of `resolution` (> 0); 0 leaves v as is.
double quantise(double v, double resolution) {
  // + 0.0 turns a rounded -0 into 0: the file then never shows "-0".
  return resolution > 0.0 ? std::round(v / resolution) * resolution + 0.0 : v;
}
}  // namespace

NoiseChannel::NoiseChannel(std::uint64_t seed, std::string_view stream, double stddev, double bias, double resolution)
    : rng_(streamSeed(seed, stream)), stddev_(stddev), bias_(bias), resolution_(resolution) {}

double NoiseChannel::operator()(double truth) {
  // Draw even when stddev is 0 so that a channel's sequence depends only on
  // its seed and the sample count.
  const double n = rng_.normal();
  return quantise(truth + bias_ + stddev_ * n, resolution_);
}

Sensors::Sensors(const Model& model, SensorSpec spec, double dt) : model_(&model), spec_(std::move(spec)) {
  // Each recording draws its own noise: two trials that shared one sequence
  // would have errors that cancel in a with/without difference (approach A,
  // A(21)), which no pair of real recordings has.
  noise_seed_ = spec_.recording.empty() ? spec_.seed : streamSeed(spec_.seed, "recording." + spec_.recording);
  steps_per_sample_ = sensorStepsPerSample(spec_.rate, dt);
  if (steps_per_sample_ == 0) {
    char message[160];
    std::snprintf(message, sizeof message, "sensor rate %.9g Hz is not 1/(k dt) for a whole k (dt = %.9g s)",
                  spec_.rate, dt);
    throw std::invalid_argument(message);
  }
  // Noise off: ideal sensors, every reading the exact value. Quantisation
  // goes too: without noise to dither it, rounding a slowly moving signal
  // is a slowly moving error (up to half a step for seconds), a bias the
  // low-pass filter of the identification passes straight through.
  const double on = spec_.noise ? 1.0 : 0.0;
  auto add = [&](const std::string& column, double stddev, double bias, double resolution) {
    columns_.push_back(column);
    noise_.emplace_back(noise_seed_, column, on * stddev, on * bias, on * resolution);
  };
  static constexpr const char* kAxis[3] = {"x", "y", "z"};

  checkHinges(model, spec_.encoders.hinges, spec_.encoders.names, "encoders");
  for (const std::string& name : spec_.encoders.names) add(name + ".encoder[rad]", 0.0, 0.0, spec_.encoders.resolution);

  for (const ImuSpec& imu : spec_.imus) {
    checkBody(model, imu.body, imu.name);
    const int begin = model.body_particle_begin[imu.body];
    if (model.body_particle_end[imu.body] - begin != 4) {
      throw std::invalid_argument(imu.name + ": an IMU needs a body of four particles");
    }
    // The sensor origin as an affine combination of the body's particles:
    // its acceleration is then the same combination of theirs (exact for
    // the particle model, vibrations of the link springs included).
    Eigen::Matrix4d A;
    for (int k = 0; k < 4; ++k) {
      A.col(k) << model.particle_body_position.x[begin + k], model.particle_body_position.y[begin + k],
          model.particle_body_position.z[begin + k], 1.0;
    }
    const Eigen::Vector4d w = A.fullPivLu().solve(Eigen::Vector4d(imu.frame.p[0], imu.frame.p[1], imu.frame.p[2], 1.0));
    imu_weight_.push_back({w[0], w[1], w[2], w[3]});
    for (int k = 0; k < 3; ++k) add(imu.name + ".gyro." + kAxis[k] + "[rad/s]", imu.gyro_noise, imu.gyro_bias[k], 0.0);
    imu_accel_column_.push_back(static_cast<int>(columns_.size()));
    for (int k = 0; k < 3; ++k) {
      add(imu.name + ".accel." + kAxis[k] + "[m/s^2]", imu.accel_noise, imu.accel_bias[k], 0.0);
    }
  }

  for (const ForceSensorSpec& fs : spec_.force_sensors) {
    checkBody(model, fs.body, fs.name);
    force_column_.push_back(static_cast<int>(columns_.size()));
    for (int c : fs.contacts) {
      if (c < 0 || c >= model.numContacts()) throw std::invalid_argument(fs.name + ": contact index out of range");
    }
    for (int k = 0; k < 3; ++k) add(fs.name + ".force." + kAxis[k] + "[N]", fs.force_noise, 0.0, fs.force_resolution);
    for (int k = 0; k < 3; ++k) {
      add(fs.name + ".torque." + kAxis[k] + "[N*m]", fs.torque_noise, 0.0, fs.torque_resolution);
    }
  }

  checkHinges(model, spec_.currents.hinges, spec_.currents.names, "currents");
  current_column_ = static_cast<int>(columns_.size());
  current_last_.assign(spec_.currents.hinges.size(), 0.0);
  current_mid_.assign(spec_.currents.hinges.size(), 0.0);
  for (const std::string& name : spec_.currents.names) add(name + ".current[A]", spec_.currents.noise, 0.0, 0.0);
  checkHinges(model, spec_.winding_temperatures.hinges, spec_.winding_temperatures.names, "winding temperatures");
  const int temperature_column = static_cast<int>(columns_.size());
  for (const std::string& name : spec_.winding_temperatures.names) {
    add(name + ".winding_temperature[degC]", spec_.winding_temperatures.noise, 0.0,
        spec_.winding_temperatures.resolution);
  }

  checkHinges(model, spec_.joint_torques.hinges, spec_.joint_torques.names, "joint torques");
  for (const std::string& name : spec_.joint_torques.names) {
    add(name + ".torque[N*m]", spec_.joint_torques.noise, spec_.joint_torques.bias, spec_.joint_torques.resolution);
  }

  for (int b : spec_.band_lengths.bands) {
    if (b < 0 || b >= model.num_bands) throw std::invalid_argument("band lengths: band index out of range");
  }
  if (spec_.band_lengths.bands.size() != spec_.band_lengths.names.size()) {
    throw std::invalid_argument("band lengths: one name per band");
  }
  for (const std::string& name : spec_.band_lengths.names) {
    add(name + ".length[m]", spec_.band_lengths.noise, spec_.band_lengths.bias, spec_.band_lengths.resolution);
  }

  for (const AttitudeSpec& a : spec_.attitudes) {
    checkBody(model, a.body, a.name);
    for (int k = 0; k < 3; ++k) add(a.name + ".gravity." + kAxis[k] + "[m/s^2]", 0.0, 0.0, 0.0);
  }

  truth_.assign(columns_.size(), 0.0);
  window_sum_.assign(columns_.size(), 0.0);
  instant_.assign(columns_.size(), 0.0);
  pending_.assign(columns_.size(), 0.0);
  averaged_.assign(columns_.size(), 1);
  for (std::size_t c = 0; c < spec_.encoders.hinges.size(); ++c) averaged_[c] = 0;  // encoders come first
  // Thermistors, joint torque, band length and attitude sensors (last) read
  // at the sample instant: a joint torque needs a force evaluation of its
  // own (driveTorques), once per sample rather than at every step.
  for (std::size_t c = static_cast<std::size_t>(temperature_column); c < columns_.size(); ++c) averaged_[c] = 0;
  half_window_ = spec_.anti_alias ? (steps_per_sample_ - 1) / 2 : 0;
  window_duration_ = static_cast<double>(2 * half_window_ + 1) * dt;
  dt_ = dt;
  imu_next_start_.assign(3 * spec_.imus.size(), 0.0);
  imu_window_start_.assign(3 * spec_.imus.size(), 0.0);
  imu_window_end_.assign(3 * spec_.imus.size(), 0.0);
  imu_sample_rotation_.assign(9 * spec_.imus.size(), 0.0);
  if (!spec_.imus.empty() || !spec_.joint_torques.hinges.empty()) {
    scratch_ = std::make_unique<Workspace>(model, 1);
    scratch_acceleration_.assign(static_cast<std::size_t>(model.num_particles), 0.0);
  }
  for (const ForceSensorSpec& fs : spec_.force_sensors) {
    if (fs.crosstalk != ForceSensorSpec::identity6()) has_crosstalk_ = true;
  }
  if (spec_.chain.causal) setUpChain(dt);
}

void Sensors::sample(const State& state, double* row) {
  measure(state, truth_.data(), false, true);
  for (std::size_t k = 0; k < truth_.size(); ++k) row[k] = noise_[k](truth_[k]);
}

void Sensors::trackCurrents(const State& state, bool held) {
  for (std::size_t i = 0; i < spec_.currents.hinges.size(); ++i) {
    const double now = state.hinge_current[spec_.currents.hinges[i]];
    current_mid_[i] = held ? now : 0.5 * (current_last_[i] + now);
    current_last_[i] = now;
  }
}

void Sensors::addToWindow(const State& state, double weight, bool at_sample_step) {
  // The logged accelerometer is the window's velocity change (emit).
  measure(state, instant_.data(), !at_sample_step, false);
  std::copy(current_mid_.begin(), current_mid_.end(), instant_.begin() + current_column_);
  for (std::size_t c = 0; c < instant_.size(); ++c) {
    if (averaged_[c]) window_sum_[c] += weight * instant_[c];
    else if (at_sample_step) pending_[c] = instant_[c];
  }
  window_weight_ += weight;
}

const Vec3Array& Sensors::particleAccelerations(const State& state) {
  // Velocity Verlet's cache when it is valid, else one force evaluation
  // into our own buffers.
  if (const Vec3Array* cached = cachedAcceleration(state)) return *cached;
  const PhasePoint x{state.position.x.data(), state.position.y.data(), state.position.z.data(),
                     state.velocity.x.data(), state.velocity.y.data(), state.velocity.z.data()};
  computeAcceleration(*model_, state, x, *scratch_, scratch_acceleration_);
  return scratch_acceleration_;
}

const std::vector<double>& Sensors::driveTorques(const State& state) {
  // Always evaluated: the cache of particleAccelerations carries no
  // workspace, and the drive torque depends on the currents just set.
  const PhasePoint x{state.position.x.data(), state.position.y.data(), state.position.z.data(),
                     state.velocity.x.data(), state.velocity.y.data(), state.velocity.z.data()};
  computeAcceleration(*model_, state, x, *scratch_, scratch_acceleration_);
  return scratch_->hinge_drive_torque;
}

void Sensors::imuVelocities(const State& state, bool half_step_ahead, double* out) {
  const Model& m = *model_;
  // The acceleration the next step opens with: the servo has already set
  // the currents it will apply, so the cache holds it only when they did
  // not change; otherwise one force evaluation (twice per sample at most).
  const Vec3Array* acc = half_step_ahead ? &particleAccelerations(state) : nullptr;
  const double kick = half_step_ahead ? 0.5 * dt_ : 0.0;
  for (std::size_t s = 0; s < spec_.imus.size(); ++s) {
    double* v = out + 3 * s;
    const int begin = m.body_particle_begin[spec_.imus[s].body];
    for (int d = 0; d < 3; ++d) v[d] = 0.0;
    for (int k = 0; k < 4; ++k) {
      const int i = begin + k;
      const double w = imu_weight_[s][k];
      v[0] += w * (state.velocity.x[i] + (acc ? kick * acc->x[i] : 0.0));
      v[1] += w * (state.velocity.y[i] + (acc ? kick * acc->y[i] : 0.0));
      v[2] += w * (state.velocity.z[i] + (acc ? kick * acc->z[i] : 0.0));
    }
  }
}

void Sensors::trackImus(const State& state, bool next_window_opens, bool window_closes, bool at_sample_step) {
  if (spec_.imus.empty()) return;
  if (next_window_opens || window_closes) {
    // Velocity Verlet's velocity at the midpoint of the coming step: a
    // window's edges sit half a step outside its first and last states,
    // so the window is centred on its stamp like the averaged channels.
    imuVelocities(state, true, imu_window_end_.data());
    if (next_window_opens) imu_next_start_ = imu_window_end_;
  }
  if (at_sample_step) {
    for (std::size_t s = 0; s < spec_.imus.size(); ++s) {
      Eigen::Matrix3d R;
      Eigen::Vector3d origin;
      sensorPose(*model_, state, spec_.imus[s].body, spec_.imus[s].frame, &R, &origin);
      for (int q = 0; q < 9; ++q) imu_sample_rotation_[9 * s + q] = R(q / 3, q % 3);
    }
  }
}

void Sensors::openWindow(long sample_step) {
  std::fill(window_sum_.begin(), window_sum_.end(), 0.0);
  window_weight_ = 0.0;
  pending_sample_ = sample_step;
  imu_window_start_ = imu_next_start_;
}

void Sensors::emit(double* row, double* stamp) {
  for (std::size_t c = 0; c < truth_.size(); ++c) {
    truth_[c] = averaged_[c] ? window_sum_[c] / window_weight_ : pending_[c];
  }
  // Accelerometers: the window's velocity change (see logStep in sensors.h).
  const Eigen::Vector3d g = toEigen(model_->gravity);
  for (std::size_t s = 0; s < spec_.imus.size(); ++s) {
    const Eigen::Vector3d dv(imu_window_end_[3 * s] - imu_window_start_[3 * s],
                             imu_window_end_[3 * s + 1] - imu_window_start_[3 * s + 1],
                             imu_window_end_[3 * s + 2] - imu_window_start_[3 * s + 2]);
    const Eigen::Matrix3d R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(&imu_sample_rotation_[9 * s]);
    const Eigen::Vector3d f = R.transpose() * (dv / window_duration_ - g);
    for (int d = 0; d < 3; ++d) truth_[imu_accel_column_[s] + d] = f[d];
  }
  std::copy(truth_.begin(), truth_.end(), instant_.begin());
  if (has_crosstalk_) applyCrosstalk(instant_.data());
  for (std::size_t c = 0; c < truth_.size(); ++c) row[c] = noise_[c](instant_[c]);
  *stamp = pending_time_;
  pending_sample_ = -1;
}

bool Sensors::startLog(const State& state, double* row, double* stamp) {
  if (spec_.chain.causal) return chainStep(state, 0, true, row, stamp);
  // Sample 0's window reaches h steps before the start: the initial state
  // stands for them (the robot is taken to have been there already, so
  // the accelerometers' window starts at the initial velocity).
  imuVelocities(state, false, imu_next_start_.data());
  openWindow(0);
  pending_time_ = state.time;
  trackCurrents(state, true);
  const bool closes = half_window_ == 0;
  trackImus(state, closes && (1 + half_window_) % steps_per_sample_ == 0, closes, true);
  addToWindow(state, static_cast<double>(half_window_ + 1), true);
  if (!closes) return false;
  emit(row, stamp);
  return true;
}

bool Sensors::logStep(const State& state, long k, double* row, double* stamp) {
  if (spec_.chain.causal) return chainStep(state, k, false, row, stamp);
  // A window opens h steps before its sample's step.
  if (pending_sample_ < 0 && (k + half_window_) % steps_per_sample_ == 0) openWindow(k + half_window_);
  trackCurrents(state, false);
  const bool at_sample = k == pending_sample_;
  const bool closes = pending_sample_ >= 0 && k == pending_sample_ + half_window_;
  // Every step, inside a window or not: the accelerometers need the
  // velocity half a step before the next window's first state.
  const bool next_opens = (pending_sample_ < 0 || closes) && (k + 1 + half_window_) % steps_per_sample_ == 0;
  trackImus(state, next_opens, closes, at_sample);
  if (pending_sample_ < 0) return false;  // between windows (S - 2h - 1 steps per period)
  if (at_sample) pending_time_ = state.time;
  addToWindow(state, 1.0, at_sample);
  if (!closes) return false;
  emit(row, stamp);
  return true;
}

bool Sensors::finishLog(const State& state, long k_last, double* row, double* stamp) {
  if (spec_.chain.causal) return chainFinish(k_last, row, stamp);
  if (pending_sample_ < 0 || k_last < pending_sample_) {
    pending_sample_ = -1;
    return false;
  }
  // The run ended inside the window: the final state stands for the rest
  // (held, so the accelerometers see no velocity change after it).
  imuVelocities(state, false, imu_window_end_.data());
  addToWindow(state, static_cast<double>(pending_sample_ + half_window_ - k_last), false);
  emit(row, stamp);
  return true;
}

void Sensors::measure(const State& state, double* out, bool averaged_only, bool imu_acceleration,
                      const double* imu_world_acceleration) {
  const Model& m = *model_;
  double* t = out;

  for (int h : spec_.encoders.hinges) {
    if (!averaged_only) *t = encoderAngle(m, state, h);
    ++t;
  }

  if (!spec_.imus.empty()) {
    const Vec3Array* acc = imu_acceleration ? &particleAccelerations(state) : nullptr;
    const Eigen::Vector3d g = toEigen(m.gravity);
    for (std::size_t s = 0; s < spec_.imus.size(); ++s) {
      const ImuSpec& imu = spec_.imus[s];
      Eigen::Matrix3d R;
      Eigen::Vector3d origin;
      sensorPose(m, state, imu.body, imu.frame, &R, &origin);
      Vec3 v_com, omega;
      bodyVelocity(m, state, imu.body, &v_com, &omega);
      const Eigen::Vector3d gyro = R.transpose() * toEigen(omega);
      Eigen::Vector3d a = Eigen::Vector3d::Zero();
      const int begin = m.body_particle_begin[imu.body];
      for (int k = 0; k < (imu_acceleration ? 4 : 0); ++k) {
        a += imu_weight_[s][k] * Eigen::Vector3d(acc->x[begin + k], acc->y[begin + k], acc->z[begin + k]);
      }
      if (imu_world_acceleration) a = Eigen::Map<const Eigen::Vector3d>(imu_world_acceleration + 3 * s);
      // Specific force: what a proof mass feels, gravity included.
      const Eigen::Vector3d f = R.transpose() * (a - g);
      for (int k = 0; k < 3; ++k) *t++ = gyro[k];
      for (int k = 0; k < 3; ++k) *t++ = f[k];
    }
  }

  for (const ForceSensorSpec& fs : spec_.force_sensors) {
    Eigen::Matrix3d R;
    Eigen::Vector3d origin;
    sensorPose(m, state, fs.body, fs.frame, &R, &origin);
    Eigen::Vector3d force = Eigen::Vector3d::Zero(), moment = Eigen::Vector3d::Zero();
    for (int c : fs.contacts) {
      const Eigen::Vector3d f = toEigen(groundForce(m, state, c));
      Eigen::Vector3d p = Eigen::Vector3d::Zero();
      for (int k = 0; k < 4; ++k) {
        const int i = m.contact_particle[c][k];
        p += m.contact_weight[c][k] * Eigen::Vector3d(state.position.x[i], state.position.y[i], state.position.z[i]);
      }
      force += f;
      moment += (p - origin).cross(f);
    }
    const Eigen::Vector3d force_S = R.transpose() * force, moment_S = R.transpose() * moment;
    for (int k = 0; k < 3; ++k) *t++ = force_S[k];
    for (int k = 0; k < 3; ++k) *t++ = moment_S[k];
  }

  for (int h : spec_.currents.hinges) *t++ = state.hinge_current[h];

  for (int h : spec_.winding_temperatures.hinges) {
    if (!averaged_only) *t = spec_.winding_temperatures.ambient + state.hinge_winding_rise[h];
    ++t;
  }

  if (!spec_.joint_torques.hinges.empty()) {
    if (!averaged_only) {
      const std::vector<double>& drive = driveTorques(state);
      for (std::size_t k = 0; k < spec_.joint_torques.hinges.size(); ++k) t[k] = drive[spec_.joint_torques.hinges[k]];
    }
    t += spec_.joint_torques.hinges.size();
  }

  if (!spec_.band_lengths.bands.empty() && !averaged_only) {
    const PhasePoint x = detail::phasePoint(state.position, state.velocity);
    for (int b : spec_.band_lengths.bands) *t++ = detail::evaluateBand(m, x, state, b).length;
  }

  for (const AttitudeSpec& a : spec_.attitudes) {
    if (!averaged_only) {
      Eigen::Matrix3d R;
      Eigen::Vector3d origin;
      sensorPose(m, state, a.body, a.frame, &R, &origin);
      const Eigen::Vector3d g = R.transpose() * toEigen(m.gravity);
      for (int k = 0; k < 3; ++k) t[k] = g[k];
    }
    t += 3;
  }
}

}  // namespace suitsim
