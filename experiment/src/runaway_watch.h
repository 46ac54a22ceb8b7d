// Which element ran away first when a run diverges. The checks before a run
// (run_checks.h, step_check.h) predict from the robot at its initial pose;
// a divergence they did not predict (a pose, a contact or a coupling they
// do not see) needs what happened instead. The watch keeps, every step, each
// joint's angular rate and each compliant gear's twist rate (gear_train.h)
// over the last kRing steps, in one preallocated ring (the step loop
// allocates nothing), and each element's largest rate before that window.
// When the run diverges, the element whose rate first went past ten times
// its own earlier largest (at least 1 rad/s) is named, with the rates and
// times that show it.
#pragma once

#include <string>
#include <vector>

#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim::experiment {

class RunawayWatch {
 public:
  explicit RunawayWatch(const Model& model);

  /// After every step (allocation-free).
  void sample(const State& state);

  /// "joint 'X' (its rate grew from a to b rad/s between t = .. and .. s)",
  /// or empty when no element's rate stood out before the state overflowed.
  std::string firstRunaway(const Model& model) const;

 private:
  static constexpr int kRing = 1024;
  int num_hinges_ = 0;
  std::vector<int> gear_hinge_;  ///< the hinges with a compliant gear, one element each after the joints
  int elements_ = 0;
  long samples_ = 0;
  std::vector<double> rate_;    ///< kRing x elements_, rad/s (inf when not finite)
  std::vector<double> time_;    ///< kRing
  std::vector<double> before_;  ///< each element's largest rate over the samples that left the ring
  std::vector<double> last_;    ///< the last sample's angles and twists
  double last_time_ = 0.0;
};

}  // namespace suitsim::experiment
