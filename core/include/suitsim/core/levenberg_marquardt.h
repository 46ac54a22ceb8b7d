#pragma once
// The one Levenberg-Marquardt loop: its damping schedule, its acceptance
// rule and its budgets, shared by the band fit A(26) (variable projection
// over the natural lengths), the capstan band fit and inverse kinematics.
//
// What differs between those problems is how a damped step is solved
// (Marquardt's scaling over the band fit's natural lengths, the dual form
// that keeps an under-determined IK step minimum-norm, a finite-difference
// Jacobian over a box) and where a trial point lives (a box, a rotation
// group). So the caller solves and evaluates; this loop decides the damping
// lambda, when to take a step, and when to stop. Each caller states its
// schedule in LevenbergMarquardtSettings, beside the reason for it.
//
// Per linearisation (the caller's Jacobian at the accepted point):
//   try lambda: accepted (the cost fell): lambda <- max(lambda / decrease, min)
//               rejected:                 lambda <- lambda * increase, try again
// and lambda carries over to the next linearisation, as in Marquardt (1963)
// and Nielsen's schedule: a damping that worked is a good first guess.

#include <algorithm>
#include <limits>

#include "suitsim/core/stop.h"

namespace suitsim {

struct LevenbergMarquardtSettings {
  double initial_damping = 1e-3;  ///< lambda of the first solve
  double increase = 4.0;          ///< lambda's factor after a rejected step
  double decrease = 3.0;          ///< lambda's divisor after an accepted step
  double min_damping = 0.0;       ///< lambda never falls below this
  /// A rejected step that takes lambda above this ends the fit: no damped
  /// step descends (a local minimum, or a cost at round-off).
  double max_damping = std::numeric_limits<double>::infinity();
  /// What max_iterations counts: linearisations (Jacobians) or damped solves.
  enum class Budget { kLinearisations, kSolves } budget = Budget::kLinearisations;
  int max_iterations = 100;
  /// Damped solves per linearisation before the fit gives up on it (0: no
  /// limit but max_damping).
  int max_attempts = 0;
};

/// What one damped solve came to, as the caller judged it.
enum class LmStep {
  kRejected,   ///< the trial point is no better (or the step was not finite); the caller kept its point
  kAccepted,   ///< the caller moved to the trial point
  kConverged,  ///< accepted, and the caller's test says the fit is done
};

struct LevenbergMarquardtOutcome {
  int linearisations = 0;  ///< Jacobians used
  int solves = 0;          ///< damped systems solved
  int accepted = 0;        ///< steps taken
  bool converged = false;  ///< a step ended with kConverged
};

/// Runs the loop. `linearise()` prepares the damped system at the current
/// point and returns false when there is nothing left to do (a residual
/// within tolerance, a cost at its floor, no parameter that acts);
/// `attempt(lambda)` solves with that damping, evaluates the trial point,
/// moves to it if it is better, and says so. Polls the stop request
/// (core/stop.h) once per linearisation.
template <class Linearise, class Attempt>
LevenbergMarquardtOutcome levenbergMarquardt(const LevenbergMarquardtSettings& s, Linearise&& linearise,
                                             Attempt&& attempt) {
  using Budget = LevenbergMarquardtSettings::Budget;
  LevenbergMarquardtOutcome out;
  const auto spent = [&] { return s.budget == Budget::kSolves ? out.solves : out.linearisations; };
  double lambda = s.initial_damping;
  while (spent() < s.max_iterations) {
    throwIfStopped();  // Ctrl-C or SIGTERM
    if (!linearise()) break;
    ++out.linearisations;
    bool accepted = false;
    for (int tries = 0; !accepted; ++tries) {
      if (s.max_attempts > 0 && tries >= s.max_attempts) break;
      if (s.budget == Budget::kSolves && out.solves >= s.max_iterations) break;
      ++out.solves;
      const LmStep step = attempt(lambda);
      if (step == LmStep::kRejected) {
        lambda *= s.increase;
        if (lambda > s.max_damping) return out;
        continue;
      }
      accepted = true;
      ++out.accepted;
      lambda = std::max(lambda / s.decrease, s.min_damping);
      if (step == LmStep::kConverged) {
        out.converged = true;
        return out;
      }
    }
    if (!accepted) break;
  }
  return out;
}

}  // namespace suitsim
