// Zero-phase Butterworth filtering and finite differences (see signals.h).
#include "suitsim/eval/signals.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>
#include <string>

namespace suitsim::eval {
namespace {

// Cutoff periods of padding at each end. The slowest pole pair of the
// order-4 prototype has damping 0.77, so its envelope decays by e^{-0.38 ω_c t};
// after three periods (ω_c t = 6π) that is below 1e-3 of the start-up step.
constexpr double kPaddingCutoffPeriods = 3.0;

[[noreturn]] void argumentError(const char* function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

void checkRate(const char* function, double rate_hz) {
  if (!(rate_hz > 0.0) || !std::isfinite(rate_hz)) {
    argumentError(function, "sample rate must be > 0 (got " + std::to_string(rate_hz) + " Hz)");
  }
}

void checkSamples(const char* function, const SignalsRef& signals, Eigen::Index minimum) {
  if (signals.rows() < minimum) {
    argumentError(function, "needs at least " + std::to_string(minimum) + " samples (got " +
                                std::to_string(signals.rows()) + ")");
  }
}

// Direct form II transposed state of one biquad.
struct SectionState {
  double s1 = 0.0, s2 = 0.0;
};

// Runs the cascade over x in place, from the steady state for a constant
// input x[0]: with unit DC gain the output is then x[0] too, so
// s2 = (b2 − a2) x0 and s1 = (b1 − a1) x0 + s2.
void runCascade(const std::vector<Biquad>& sections, Eigen::VectorXd& x) {
  const double x0 = x[0];
  for (const Biquad& s : sections) {
    SectionState st;
    st.s2 = (s.b2 - s.a2) * x0;
    st.s1 = (s.b1 - s.a1) * x0 + st.s2;
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      const double in = x[k];
      const double out = s.b0 * in + st.s1;
      st.s1 = s.b1 * in - s.a1 * out + st.s2;
      st.s2 = s.b2 * in - s.a2 * out;
      x[k] = out;
    }
  }
}

}  // namespace

double ButterworthLowPass::gain(double f_hz) const {
  const double w = 2.0 * std::numbers::pi * f_hz / rate_hz;
  const std::complex<double> zi = std::polar(1.0, -w);  // z^{-1}
  double g = 1.0;
  for (const Biquad& s : sections) {
    const std::complex<double> num = s.b0 + zi * (s.b1 + zi * s.b2);
    const std::complex<double> den = 1.0 + zi * (s.a1 + zi * s.a2);
    g *= std::abs(num / den);
  }
  return g;
}

ButterworthLowPass designButterworthLowPass(int order, double cutoff_hz, double rate_hz) {
  constexpr const char* kFunction = "designButterworthLowPass";
  if (order != 2 && order != 4) {
    argumentError(kFunction, "order must be 2 or 4 (got " + std::to_string(order) + ")");
  }
  checkRate(kFunction, rate_hz);
  if (!(cutoff_hz > 0.0) || !(cutoff_hz < 0.5 * rate_hz)) {
    argumentError(kFunction, "cutoff must be in (0, Nyquist = " + std::to_string(0.5 * rate_hz) +
                                 ") Hz (got " + std::to_string(cutoff_hz) + " Hz)");
  }
  ButterworthLowPass filter;
  filter.order = order;
  filter.cutoff_hz = cutoff_hz;
  filter.rate_hz = rate_hz;
  // Pre-warping: the bilinear transform maps analog ω_a to digital
  // 2 atan(ω_a h / 2), so an analog cutoff of (2/h) tan(π f_c h) lands the
  // digital −3 dB point exactly on f_c. In the cutoff-normalised variable
  // s_n = (1/K)(1 − z⁻¹)/(1 + z⁻¹), K = tan(π f_c h).
  const double K = std::tan(std::numbers::pi * cutoff_hz / rate_hz);
  const double K2 = K * K;
  for (int k = 0; k < order / 2; ++k) {
    // Butterworth pole pair k: s_n² + d s_n + 1 with d = 2 cos(π (2k+1) / 2n).
    const double d = 2.0 * std::cos(std::numbers::pi * (2.0 * k + 1.0) / (2.0 * order));
    // 1 / (s_n² + d s_n + 1) times K²(1 + z⁻¹)² above and below.
    const double a0 = 1.0 + d * K + K2;
    Biquad s;
    s.b0 = K2 / a0;
    s.b1 = 2.0 * K2 / a0;
    s.b2 = K2 / a0;
    s.a1 = 2.0 * (K2 - 1.0) / a0;
    s.a2 = (1.0 - d * K + K2) / a0;
    filter.sections.push_back(s);
  }
  return filter;
}

int paddingSamples(const ButterworthLowPass& filter, int num_samples) {
  const int wanted =
      static_cast<int>(std::ceil(kPaddingCutoffPeriods * filter.rate_hz / filter.cutoff_hz));
  return std::clamp(wanted, 0, std::max(num_samples - 1, 0));
}

Eigen::MatrixXd filterZeroPhase(const ButterworthLowPass& filter, const SignalsRef& signals) {
  constexpr const char* kFunction = "filterZeroPhase";
  if (filter.order != 2 * static_cast<int>(filter.sections.size()) || filter.sections.empty()) {
    argumentError(kFunction, "filter has not been designed (use designButterworthLowPass)");
  }
  checkSamples(kFunction, signals, 3);
  const Eigen::Index n = signals.rows();
  const Eigen::Index p = paddingSamples(filter, static_cast<int>(n));
  Eigen::MatrixXd out(n, signals.cols());
  Eigen::VectorXd padded(n + 2 * p);
  for (Eigen::Index c = 0; c < signals.cols(); ++c) {
    const auto x = signals.col(c);
    // Odd reflection about the end samples keeps value and slope continuous,
    // so the filter sees no step or kink at the ends (even reflection would
    // put a kink there and bend the derivative near the ends).
    for (Eigen::Index i = 0; i < p; ++i) {
      padded[i] = 2.0 * x[0] - x[p - i];
      padded[n + p + i] = 2.0 * x[n - 1] - x[n - 2 - i];
    }
    padded.segment(p, n) = x;
    runCascade(filter.sections, padded);
    padded.reverseInPlace();
    runCascade(filter.sections, padded);
    padded.reverseInPlace();
    out.col(c) = padded.segment(p, n);
  }
  return out;
}

Eigen::MatrixXd differentiate(const SignalsRef& signals, double rate_hz) {
  constexpr const char* kFunction = "differentiate";
  checkRate(kFunction, rate_hz);
  checkSamples(kFunction, signals, 3);
  const Eigen::Index n = signals.rows();
  const double half_rate = 0.5 * rate_hz;  // 1 / 2h
  Eigen::MatrixXd d(n, signals.cols());
  d.middleRows(1, n - 2) = (signals.bottomRows(n - 2) - signals.topRows(n - 2)) * half_rate;
  d.row(0) = (-3.0 * signals.row(0) + 4.0 * signals.row(1) - signals.row(2)) * half_rate;
  d.row(n - 1) =
      (3.0 * signals.row(n - 1) - 4.0 * signals.row(n - 2) + signals.row(n - 3)) * half_rate;
  return d;
}

Eigen::MatrixXd secondDerivative(const SignalsRef& signals, double rate_hz) {
  constexpr const char* kFunction = "secondDerivative";
  checkRate(kFunction, rate_hz);
  checkSamples(kFunction, signals, 4);
  const Eigen::Index n = signals.rows();
  const double r2 = rate_hz * rate_hz;  // 1 / h²
  Eigen::MatrixXd dd(n, signals.cols());
  dd.middleRows(1, n - 2) =
      (signals.bottomRows(n - 2) - 2.0 * signals.middleRows(1, n - 2) + signals.topRows(n - 2)) *
      r2;
  // Three points cannot give a one-sided second derivative better than O(h);
  // the fourth point cancels the h x''' term.
  dd.row(0) = (2.0 * signals.row(0) - 5.0 * signals.row(1) + 4.0 * signals.row(2) -
               signals.row(3)) *
              r2;
  dd.row(n - 1) = (2.0 * signals.row(n - 1) - 5.0 * signals.row(n - 2) +
                   4.0 * signals.row(n - 3) - signals.row(n - 4)) *
                  r2;
  return dd;
}

FilteredSignals filterAndDifferentiate(const SignalsRef& signals, double rate_hz, double cutoff_hz,
                                       int order) {
  checkSamples("filterAndDifferentiate", signals, 4);
  const ButterworthLowPass filter = designButterworthLowPass(order, cutoff_hz, rate_hz);
  FilteredSignals result;
  result.x = filterZeroPhase(filter, signals);
  result.xd = differentiate(result.x, rate_hz);
  result.xdd = secondDerivative(result.x, rate_hz);
  return result;
}

}  // namespace suitsim::eval
