// Small helpers shared by engine tests and benchmarks: run a model for a
// while, find oscillation periods from zero crossings.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "suitsim/model.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::testing {

/// An enabled ground plane whose anchor (friction) spring and damper equal
/// the normal ones.
inline GroundModel groundModel(double stiffness, double damping, double mu_static, double mu_kinetic,
                               Vec3 normal = {0.0, 0.0, 1.0}) {
  GroundModel g;
  g.enabled = true;
  g.normal = normal;
  g.stiffness = stiffness;
  g.damping = damping;
  g.friction_stiffness = stiffness;
  g.friction_damping = damping;
  g.mu_static = mu_static;
  g.mu_kinetic = mu_kinetic;
  return g;
}

/// Steps `state` for `duration` seconds, calling observe(state) after every step.
inline void runFor(const Model& model, State& state, Workspace& ws, Integrator integrator, double dt,
                   double duration, const std::function<void(const State&)>& observe = {}) {
  const long steps = std::lround(duration / dt);
  for (long k = 0; k < steps; ++k) {
    step(model, state, ws, integrator, dt);
    if (observe) observe(state);
  }
}

/// Largest change, over the states it is shown, of any component of the
/// total linear (kg m/s) and angular (kg m^2/s, about the origin) momentum
/// from their values in the state it starts from.
class MomentumDrift {
 public:
  MomentumDrift(const Model& model, const State& start) : model_(&model) {
    computeMomentum(model, start, &linear0_, &angular0_);
  }
  void add(const State& state) {
    Vec3 l, h;
    computeMomentum(*model_, state, &l, &h);
    for (int a = 0; a < 3; ++a) {
      linear_ = std::max(linear_, std::abs(l[a] - linear0_[a]));
      angular_ = std::max(angular_, std::abs(h[a] - angular0_[a]));
    }
  }
  double linear() const { return linear_; }
  double angular() const { return angular_; }
  const Vec3& initialLinear() const { return linear0_; }
  const Vec3& initialAngular() const { return angular0_; }

 private:
  const Model* model_;
  Vec3 linear0_{}, angular0_{};
  double linear_ = 0.0, angular_ = 0.0;
};

/// Times of upward zero crossings of a sampled signal, linearly interpolated.
class ZeroCrossings {
 public:
  void add(double t, double value) {
    if (has_previous_ && previous_value_ < 0.0 && value >= 0.0) {
      times_.push_back(previous_t_ + (t - previous_t_) * (-previous_value_) / (value - previous_value_));
    }
    previous_t_ = t;
    previous_value_ = value;
    has_previous_ = true;
  }
  /// Mean period over all complete cycles seen (needs at least two crossings).
  double meanPeriod() const {
    if (times_.size() < 2) return NAN;
    return (times_.back() - times_.front()) / static_cast<double>(times_.size() - 1);
  }
  std::size_t count() const { return times_.size(); }

 private:
  std::vector<double> times_;
  double previous_t_ = 0.0, previous_value_ = 0.0;
  bool has_previous_ = false;
};

}  // namespace suitsim::testing
