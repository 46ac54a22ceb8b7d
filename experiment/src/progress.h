// A one-line progress bar on stderr, shown only on a terminal and only once a
// run has taken more than a second.
#pragma once

#include <chrono>

namespace suitsim::experiment {

class Progress {
 public:
  explicit Progress(bool enabled);
  /// fraction in [0, 1]; cheap to call every step (it checks the clock rarely).
  void update(double fraction);
  void finish();

 private:
  bool enabled_;
  bool shown_ = false;
  long calls_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace suitsim::experiment
