#include "progress.h"

#include <cstdio>
#include <unistd.h>

namespace suitsim::experiment {

Progress::Progress(bool enabled)
    : enabled_(enabled && isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void Progress::update(double fraction) {
  if (!enabled_ || (++calls_ & 255) != 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || std::chrono::duration<double>(now - last_draw_).count() < 0.1) return;
  last_draw_ = now;
  shown_ = true;
  constexpr int kWidth = 40;
  const int filled = static_cast<int>(fraction * kWidth);
  const double eta = fraction > 0.0 ? elapsed * (1.0 - fraction) / fraction : 0.0;
  std::fprintf(stderr, "\r[");
  for (int i = 0; i < kWidth; ++i) std::fputc(i < filled ? '#' : '.', stderr);
  std::fprintf(stderr, "] %5.1f%%  %.0f s left ", 100.0 * fraction, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (shown_) std::fprintf(stderr, "\r%*s\r", 70, "");
}

}  // namespace suitsim::experiment
