#include "sweep_session.h"

#include <omp.h>

#include <chrono>
#include <cstdio>

#include "suitsim/experiment/interrupt.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sweep/mpi_link.h"

namespace suitsim::cli {

bool SweepSession::start() {
  std::string error;
  if (sweep::MpiLink::instance().start(nullptr, nullptr, &error)) return true;
  std::fprintf(stderr, "error: %s\n", error.c_str());
  return false;
}

bool SweepSession::writer() const { return sweep::MpiLink::instance().rank() == 0; }

int SweepSession::ranks() const { return sweep::MpiLink::instance().size(); }

int SweepSession::threads(int requested) const {
  return requested > 0 ? requested : (ranks() > 1 ? 1 : omp_get_num_procs());
}

void SweepSession::barrier() { sweep::MpiLink::instance().barrier(); }

int SweepSession::finish(int code) {
  sweep::MpiLink& mpi = sweep::MpiLink::instance();
  // The others would wait for this rank forever.
  if (mpi.size() > 1 && code != 0) mpi.abort(code);
  mpi.stop();
  return code;
}

int SweepSession::runPoints(const sweep::SweepSpec& spec, const std::filesystem::path& out,
                            const sweep::SweepOptions& options, bool quiet,
                            const std::function<std::string(const sweep::Point&)>& label, std::size_t* landed) {
  experiment::installInterruptHandlers();
  const auto start = std::chrono::steady_clock::now();
  try {
    sweep::runSweep(spec, out, options, [&](const sweep::Point& p, std::size_t done, std::size_t all) {
      if (landed) ++*landed;
      if (quiet) return;
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "[%zu/%zu] %s done (%.0f s)\n", done, all, label(p).c_str(), t);
    });
  } catch (const io::SceneError& e) {
    if (writer()) std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const sweep::Interrupted&) {
    const int sig = experiment::interruptSignal() ? experiment::interruptSignal() : 2;
    if (writer()) {
      std::fprintf(stderr, "interrupted: the rows written so far stay in %s; run the same command to go on\n",
                   (out / "results.csv").c_str());
    }
    return 128 + sig;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace suitsim::cli
