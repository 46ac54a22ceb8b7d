// Ctrl-C and SIGTERM during a run. A signal handler may only set a flag of
// type volatile sig_atomic_t (or a lock-free atomic), so the flag is one
// process-wide state, core's stop request (suitsim/core/stop.h), which the
// evaluator and the report poll too; the stepping loops poll it and stop,
// and the front ends then remove what was written (commitTrials(jobs,
// false)) and exit with 128 + the signal number (130 for Ctrl-C). A run
// leaves either its complete results or nothing: an interrupted trial's
// temporary files are removed, never kept as if finished.
#pragma once

namespace suitsim::experiment {

/// Installs the handlers for SIGINT and SIGTERM, and ignores SIGXFSZ so that
/// a write past the file-size limit fails (EFBIG) instead of killing the
/// process: every write of a caller must then be checked (idempotent).
void installInterruptHandlers();

/// The signal number that asked the run to stop, or 0.
int interruptSignal();

}  // namespace suitsim::experiment
