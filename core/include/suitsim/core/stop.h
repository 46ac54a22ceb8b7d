// A request to stop the whole run (Ctrl-C, SIGTERM), process-wide. The
// front ends' signal handlers (experiment/interrupt.h) may only store to a
// lock-free atomic, and every layer's long loops must see that store: the
// stepping loops, and the evaluator and the report, which may not include
// the experiment library (docs/architecture.md). So the flag lives here,
// below them all; setting it from a handler is the one thing core knows of
// signals.
#pragma once

#include <exception>

namespace suitsim {

/// Asks every loop that polls to stop; `signal` is the signal that asked.
/// Async-signal-safe (one store to a lock-free atomic). 0 withdraws the
/// request (tests).
void requestStop(int signal) noexcept;

/// The signal that asked the run to stop, or 0.
int stopSignal() noexcept;

/// What a polling loop throws once a stop was asked for: the front end
/// catches it, removes what the run wrote and exits with 128 + signal().
class Stopped : public std::exception {
 public:
  explicit Stopped(int signal) noexcept : signal_(signal) {}
  int signal() const noexcept { return signal_; }
  const char* what() const noexcept override { return "stopped by a signal"; }

 private:
  int signal_;
};

/// Throws Stopped when a stop was asked for: one relaxed load, cheap
/// enough for every iteration of an outer loop.
inline void throwIfStopped() {
  if (const int signal = stopSignal()) throw Stopped(signal);
}

}  // namespace suitsim
