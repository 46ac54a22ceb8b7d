// Independent pieces of the evaluation (trials, trial pairs, suits) spread
// over OpenMP threads. Each piece writes only its own slot, so the results
// are those of a serial loop for any thread count; a piece's own parallel
// loops then run inside an inactive region, on its one thread.
#pragma once

#include <omp.h>

#include <exception>
#include <vector>

#include "suitsim/core/stop.h"

namespace suitsim::eval::detail {

/// Runs body(k) for k = 0 .. n-1 on `threads` threads (0: OpenMP's default).
/// An exception is rethrown once all have run: that of the lowest k, the
/// one a serial loop would have stopped at. A stop request (core/stop.h)
/// skips the pieces not yet begun and wins over any error.
template <class Body>
void parallelFor(int n, int threads, Body body) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (int k = 0; k < n; ++k) {
    try {
      throwIfStopped();
      body(k);
    } catch (...) {
      errors[static_cast<std::size_t>(k)] = std::current_exception();
    }
  }
  throwIfStopped();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace suitsim::eval::detail
