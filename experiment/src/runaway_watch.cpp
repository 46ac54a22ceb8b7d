#include "runaway_watch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace suitsim::experiment {

namespace {

// A runaway: ten times the element's own largest rate before the window,
// and at least 1 rad/s, so that a joint at rest until then is not named
// for starting to move.
constexpr double kGrowth = 10.0, kFloor = 1.0;

}  // namespace

RunawayWatch::RunawayWatch(const Model& model) : num_hinges_(model.num_hinges) {
  for (int h = 0; h < model.num_hinges; ++h) {
    if (model.hinge_gear_stiffness[h] > 0.0) gear_hinge_.push_back(h);
  }
  elements_ = num_hinges_ + static_cast<int>(gear_hinge_.size());
  rate_.assign(static_cast<std::size_t>(kRing) * elements_, 0.0);
  time_.assign(kRing, 0.0);
  before_.assign(elements_, 0.0);
  last_.assign(elements_, 0.0);
}

void RunawayWatch::sample(const State& state) {
  if (elements_ == 0) return;
  const int slot = static_cast<int>(samples_ % kRing);
  double* rate = &rate_[static_cast<std::size_t>(slot) * elements_];
  // The sample about to be overwritten leaves the window: it joins `before_`.
  if (samples_ >= kRing) {
    for (int e = 0; e < elements_; ++e) before_[e] = std::max(before_[e], rate[e]);
  }
  const double dt = state.time - last_time_;
  for (int e = 0; e < elements_; ++e) {
    const double value = e < num_hinges_ ? state.hinge_angle[e]
                                         : state.rotor_angle[gear_hinge_[e - num_hinges_]] -
                                               state.hinge_angle[gear_hinge_[e - num_hinges_]];
    const double r = samples_ > 0 && dt > 0.0 ? std::abs(value - last_[e]) / dt : 0.0;
    rate[e] = std::isfinite(r) ? r : std::numeric_limits<double>::infinity();
    last_[e] = value;
  }
  time_[slot] = state.time;
  last_time_ = state.time;
  ++samples_;
}

std::string RunawayWatch::firstRunaway(const Model& model) const {
  if (elements_ == 0 || samples_ < 2) return "";
  const long window = std::min<long>(samples_, kRing);
  const long oldest = samples_ - window;
  int best = -1;
  long best_sample = 0;
  double best_ratio = 0.0;
  for (int e = 0; e < elements_; ++e) {
    const double threshold = kGrowth * std::max(before_[e], kFloor);
    for (long s = oldest; s < samples_; ++s) {
      const double r = rate_[static_cast<std::size_t>(s % kRing) * elements_ + e];
      if (!(r > threshold)) continue;
      const double ratio = r / threshold;
      if (best < 0 || s < best_sample || (s == best_sample && ratio > best_ratio)) {
        best = e;
        best_sample = s;
        best_ratio = ratio;
      }
      break;
    }
  }
  if (best < 0) return "";
  // Its rate a window's tenth before it crossed, and where it went next.
  const long from = std::max(oldest, best_sample - window / 10);
  const auto at = [&](long s) { return rate_[static_cast<std::size_t>(s % kRing) * elements_ + best]; };
  double peak = at(best_sample);
  long peak_sample = best_sample;
  for (long s = best_sample; s < samples_; ++s) {
    if (std::isfinite(at(s)) && at(s) > peak) {
      peak = at(s);
      peak_sample = s;
    }
  }
  const bool gear = best >= num_hinges_;
  const int hinge = gear ? gear_hinge_[best - num_hinges_] : best;
  char text[512];
  std::snprintf(text, sizeof text,
                "%s '%s' ran away first: its %s went from %.3g rad/s at t = %.6g s to %.3g rad/s at t = %.6g s (past "
                "ten times the larger of 1 rad/s and its largest before, %.3g rad/s) and %.3g rad/s at t = %.6g s",
                gear ? "the compliant gear of joint" : "joint", model.hinge_name[hinge].c_str(),
                gear ? "twist rate" : "rate", at(from), time_[from % kRing], at(best_sample),
                time_[best_sample % kRing], before_[best], peak, time_[peak_sample % kRing]);
  return text;
}

}  // namespace suitsim::experiment
