// Reference motions and the joint PD servo that tracks them by commanding
// motor current, A(6): tau = k_T u + tau_o.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim {

/// A reference trajectory for some hinges: samples of joint angles over
/// time, interpolated with a cubic that is C1 (Catmull-Rom style tangents),
/// so the reference velocity is continuous. Before the first sample and after
/// the last the motion holds still.
class Motion {
 public:
  Motion() = default;
  /// `angles` is row-major: angles[k * hinges.size() + j] is hinge j at time[k].
  /// Times must be strictly increasing.
  Motion(std::vector<int> hinges, std::vector<double> time, std::vector<double> angles);

  /// Keyframes joined by minimum-jerk segments (zero velocity and
  /// acceleration at each keyframe): a smooth start, stop and reversal.
  static Motion minimumJerk(std::vector<int> hinges, std::vector<double> time, std::vector<double> angles);

  /// The same motion for other indices (one per hinge, same order): a
  /// motion read for the engine's hinges, sampled by joint elsewhere.
  Motion renumbered(std::vector<int> hinges) const;

  const std::vector<int>& hinges() const { return hinges_; }
  double duration() const { return time_.empty() ? 0.0 : time_.back(); }
  /// Reference angle (rad) and rate (rad/s) of every hinge of the motion at t.
  void sample(double t, double* angle, double* rate) const;

 private:
  enum class Kind { kCubic, kMinimumJerk } kind_ = Kind::kCubic;
  std::vector<int> hinges_;
  std::vector<double> time_;
  std::vector<double> angle_;
};

/// PD gains of one hinge: desired torque kp (q_ref - q) + kd (qd_ref - qd).
struct ServoGains {
  double kp = 0.0;  ///< (N m/rad)
  double kd = 0.0;  ///< (N m s/rad)
};

/// Tracks a Motion: at its control rate it reads each hinge's angle and rate
/// from the particles, computes the desired torque and commands the motor
/// current u = (tau_d - tau_o) / k_T that produces it; between updates the
/// current is held. Hinges the motion does not name hold their initial angle.
class JointServo {
 public:
  JointServo(const Model& model, const State& initial, Motion motion, std::vector<ServoGains> gains,
             double rate_hz);
  /// Leaves hinge h's current to another controller (a worn device's,
  /// exoskeleton.h): the servo neither reads nor writes it. Call before the first update.
  void leaveAlone(int hinge) { driven_[hinge] = 0; }
  /// Call before every step: updates the currents when a control period has
  /// passed. Allocates nothing.
  void update(const Model& model, State& state);
  /// The torque the servo asked for at its last update (N m), (num_hinges).
  const std::vector<double>& desiredTorque() const { return desired_; }
  /// The reference angle at its last update (rad), (num_hinges).
  const std::vector<double>& referenceAngle() const { return reference_; }

 private:
  Motion motion_;
  std::vector<ServoGains> gains_;
  double period_;
  double next_update_ = -1.0;
  std::vector<double> hold_;       // initial angles, for hinges the motion leaves alone
  std::vector<double> reference_;  // (num_hinges)
  std::vector<double> reference_rate_;
  std::vector<double> motion_angle_, motion_rate_;  // scratch, (motion hinges)
  std::vector<double> desired_;
  std::vector<std::uint8_t> driven_;  // 1: the servo sets this hinge's current
};

}  // namespace suitsim
