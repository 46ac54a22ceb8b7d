#include "suitsim/servo.h"

#include <algorithm>
#include <stdexcept>

#include "forces.h"
#include "suitsim/robot_readout.h"

namespace suitsim {

Motion::Motion(std::vector<int> hinges, std::vector<double> time, std::vector<double> angles)
    : hinges_(std::move(hinges)), time_(std::move(time)), angle_(std::move(angles)) {
  if (time_.empty() || angle_.size() != time_.size() * hinges_.size()) {
    throw std::invalid_argument("motion: needs one angle per hinge per sample");
  }
  for (std::size_t k = 1; k < time_.size(); ++k) {
    if (!(time_[k] > time_[k - 1])) throw std::invalid_argument("motion: times must increase");
  }
}

Motion Motion::minimumJerk(std::vector<int> hinges, std::vector<double> time, std::vector<double> angles) {
  Motion m(std::move(hinges), std::move(time), std::move(angles));
  m.kind_ = Kind::kMinimumJerk;
  return m;
}

Motion Motion::renumbered(std::vector<int> hinges) const {
  if (hinges.size() != hinges_.size()) throw std::invalid_argument("motion: renumbered needs one index per hinge");
  Motion m = *this;
  m.hinges_ = std::move(hinges);
  return m;
}

void Motion::sample(double t, double* angle, double* rate) const {
  const std::size_t nj = hinges_.size();
  const std::size_t ns = time_.size();
  if (ns == 1 || t <= time_.front() || t >= time_.back()) {
    const std::size_t k = (ns == 1 || t <= time_.front()) ? 0 : ns - 1;
    for (std::size_t j = 0; j < nj; ++j) {
      angle[j] = angle_[k * nj + j];
      rate[j] = 0.0;
    }
    return;
  }
  const std::size_t k = static_cast<std::size_t>(std::upper_bound(time_.begin(), time_.end(), t) - time_.begin()) - 1;
  const double h = time_[k + 1] - time_[k];
  const double s = (t - time_[k]) / h;
  for (std::size_t j = 0; j < nj; ++j) {
    const double q0 = angle_[k * nj + j], q1 = angle_[(k + 1) * nj + j];
    if (kind_ == Kind::kMinimumJerk) {
      // 10 s^3 - 15 s^4 + 6 s^5: zero velocity and acceleration at both ends.
      const double blend = s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
      const double blend_rate = 30.0 * s * s * (1.0 - s) * (1.0 - s) / h;
      angle[j] = q0 + (q1 - q0) * blend;
      rate[j] = (q1 - q0) * blend_rate;
      continue;
    }
    // Cubic Hermite with finite-difference tangents (one-sided at the ends).
    auto tangent = [&](std::size_t i) {
      const std::size_t lo = i == 0 ? 0 : i - 1, hi = i + 1 >= ns ? ns - 1 : i + 1;
      return (angle_[hi * nj + j] - angle_[lo * nj + j]) / (time_[hi] - time_[lo]);
    };
    const double m0 = tangent(k) * h, m1 = tangent(k + 1) * h;
    const double s2 = s * s, s3 = s2 * s;
    angle[j] = (2 * s3 - 3 * s2 + 1) * q0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * q1 + (s3 - s2) * m1;
    rate[j] = ((6 * s2 - 6 * s) * q0 + (3 * s2 - 4 * s + 1) * m0 + (-6 * s2 + 6 * s) * q1 + (3 * s2 - 2 * s) * m1) / h;
  }
}

JointServo::JointServo(const Model& model, const State& initial, Motion motion, std::vector<ServoGains> gains,
                       double rate_hz)
    : motion_(std::move(motion)), gains_(std::move(gains)), period_(1.0 / rate_hz) {
  if (static_cast<int>(gains_.size()) != model.num_hinges) {
    throw std::invalid_argument("servo: needs gains for every hinge");
  }
  if (!(rate_hz > 0.0)) throw std::invalid_argument("servo: rate must be > 0");
  hold_.resize(model.num_hinges);
  for (int h = 0; h < model.num_hinges; ++h) hold_[h] = encoderAngle(model, initial, h);
  reference_ = hold_;
  reference_rate_.assign(model.num_hinges, 0.0);
  motion_angle_.assign(motion_.hinges().size(), 0.0);
  motion_rate_.assign(motion_.hinges().size(), 0.0);
  desired_.assign(model.num_hinges, 0.0);
  driven_.assign(model.num_hinges, 1);
}

void JointServo::update(const Model& model, State& state) {
  if (state.time + 1e-12 < next_update_) return;
  next_update_ = (next_update_ < 0.0 ? state.time : next_update_) + period_;
  if (!motion_.hinges().empty()) {
    motion_.sample(state.time, motion_angle_.data(), motion_rate_.data());
    for (std::size_t j = 0; j < motion_.hinges().size(); ++j) {
      reference_[motion_.hinges()[j]] = motion_angle_[j];
      reference_rate_[motion_.hinges()[j]] = motion_rate_[j];
    }
  }
  for (int h = 0; h < model.num_hinges; ++h) {
    if (!driven_[h]) continue;
    double q = 0.0, qd = 0.0;  // the encoder's angle and rate: jointAngle and jointVelocity, from one look at the hinge
    if (model.hinge_encoder_on_motor[h]) {
      q = state.rotor_angle[h];  // the loop closes on the motor's side of the gear
      qd = state.rotor_velocity[h];
    } else {
      detail::readHinge(model, state, h, &q, &qd);
    }
    desired_[h] = gains_[h].kp * (reference_[h] - q) + gains_[h].kd * (reference_rate_[h] - qd);
    // A(6) inverted: the current that makes the motor give the desired torque.
    state.hinge_current[h] = (desired_[h] - model.hinge_torque_offset[h]) / model.hinge_motor_constant[h];
  }
}

}  // namespace suitsim
