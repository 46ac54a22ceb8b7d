// Zero-phase Butterworth filtering and finite differences against closed-form
// responses and derivatives.
#include "suitsim/eval/signals.h"

#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

namespace suitsim::eval {
namespace {

constexpr double kPi = std::numbers::pi;

// Samples of a(t) = A sin(2π f t + phase) at t = k / rate, k = 0..n−1.
Eigen::VectorXd sampledSine(int n, double rate_hz, double f_hz, double amplitude = 1.0,
                            double phase = 0.0) {
  Eigen::VectorXd x(n);
  for (int k = 0; k < n; ++k) x[k] = amplitude * std::sin(2.0 * kPi * f_hz * k / rate_hz + phase);
  return x;
}

// Least-squares amplitude of the f_hz component of x over samples [begin, end).
double fittedAmplitude(const Eigen::VectorXd& x, double rate_hz, double f_hz, int begin, int end) {
  Eigen::MatrixXd basis(end - begin, 2);
  for (int k = begin; k < end; ++k) {
    basis(k - begin, 0) = std::sin(2.0 * kPi * f_hz * k / rate_hz);
    basis(k - begin, 1) = std::cos(2.0 * kPi * f_hz * k / rate_hz);
  }
  const Eigen::Vector2d c = basis.colPivHouseholderQr().solve(x.segment(begin, end - begin));
  return c.norm();
}

// Closed-form |H|² of the pre-warped bilinear Butterworth: the zero-phase gain.
double zeroPhaseGain(int order, double cutoff_hz, double rate_hz, double f_hz) {
  const double ratio = std::tan(kPi * f_hz / rate_hz) / std::tan(kPi * cutoff_hz / rate_hz);
  return 1.0 / (1.0 + std::pow(ratio, 2 * order));
}

double rms(const Eigen::VectorXd& e) { return std::sqrt(e.squaredNorm() / e.size()); }

TEST(Signals, DesignMatchesClosedFormResponse) {
  for (int order : {2, 4}) {
    const ButterworthLowPass filter = designButterworthLowPass(order, 10.0, 1000.0);
    ASSERT_EQ(filter.sections.size(), static_cast<size_t>(order / 2));
    // 1 + a1 + a2 is O(K²) small, so rounding in the coefficients shows at
    // ~1/K² ≈ 1e3 ulps at DC.
    EXPECT_NEAR(filter.gain(0.0), 1.0, 1e-12);
    EXPECT_NEAR(filter.gain(10.0), std::sqrt(0.5), 1e-12);  // −3 dB at the cutoff
    for (double f : {1.0, 5.0, 20.0, 55.0, 300.0}) {
      const double expected = zeroPhaseGain(order, 10.0, 1000.0, f);
      EXPECT_NEAR(filter.gain(f) * filter.gain(f) / expected, 1.0, 1e-9) << order << " " << f;
    }
  }
}

TEST(Signals, ConstantPassesUnchanged) {
  for (int order : {2, 4}) {
    const ButterworthLowPass filter = designButterworthLowPass(order, 5.0, 200.0);
    for (int n : {3, 10, 500}) {  // shorter and longer than the padding (120)
      const Eigen::MatrixXd x = Eigen::MatrixXd::Constant(n, 3, 1.7);
      const Eigen::MatrixXd y = filterZeroPhase(filter, x);
      EXPECT_LT((y - x).cwiseAbs().maxCoeff(), 1e-12) << order << " " << n;
    }
  }
}

TEST(Signals, SlowSinePassesWithoutPhaseShift) {
  const double rate = 1000.0, cutoff = 10.0, f = 1.0;
  const int n = 5000;
  const Eigen::VectorXd x = sampledSine(n, rate, f, 1.0, 0.3);
  for (int order : {2, 4}) {
    const Eigen::VectorXd y = filterZeroPhase(designButterworthLowPass(order, cutoff, rate), x);
    // Amplitude: |H|² = 1 − 1e-4 (order 2) or 1 − 1e-8 (order 4) at f = cutoff/10.
    EXPECT_NEAR(fittedAmplitude(y, rate, f, 0, n), 1.0, 1e-3) << order;
    // Pointwise: no phase lag inside; at the ends the odd reflection flips
    // the curvature, which the filter rounds off by under 2e-3 (no ringing).
    const int m = 300;  // three cutoff periods
    const double inner = (y - x).segment(m, n - 2 * m).cwiseAbs().maxCoeff();
    const double ends = (y - x).cwiseAbs().maxCoeff();
    EXPECT_LT(inner, 2e-4) << order;
    EXPECT_LT(ends, 2e-3) << order;
    std::printf("order %d, 1 Hz: amplitude %.8f, max |y - x| %.2e inside, %.2e with ends\n",
                order, fittedAmplitude(y, rate, f, 0, n), inner, ends);
    // Zero phase: each peak stays on its sample (peaks near 0.2 s + k s).
    for (int period = 0; period < 5; ++period) {
      const int begin = period * 1000, len = 1000;
      Eigen::Index peak_x = 0, peak_y = 0;
      x.segment(begin, len).maxCoeff(&peak_x);
      y.segment(begin, len).maxCoeff(&peak_y);
      EXPECT_EQ(peak_x, peak_y) << order << " period " << period;
    }
  }
}

TEST(Signals, FastSineAttenuatedByButterworthFactor) {
  const double rate = 1000.0, cutoff = 10.0;
  const int n = 4000, margin = 500;  // measure away from the ends
  for (int order : {2, 4}) {
    const ButterworthLowPass filter = designButterworthLowPass(order, cutoff, rate);
    for (double f : {20.0, 30.0, 50.0}) {
      const Eigen::VectorXd y = filterZeroPhase(filter, sampledSine(n, rate, f, 1.0, 0.7));
      const double measured = fittedAmplitude(y, rate, f, margin, n - margin);
      const double expected = zeroPhaseGain(order, cutoff, rate, f);
      EXPECT_NEAR(measured / expected, 1.0, 0.02) << order << " " << f << " Hz";
      std::printf("order %d, %2.0f Hz: zero-phase gain %.4e, |H|^2 %.4e\n", order, f, measured,
                  expected);
    }
  }
}

// x = sin(ω t + 0.4) on [0, 1] s (the phase keeps x'''' nonzero at the
// ends, where the one-sided stencils' h² terms live); returns the max errors of differentiate and
// secondDerivative over all samples, ends included.
struct DerivativeErrors {
  double first = 0.0, second = 0.0;
};
DerivativeErrors derivativeErrors(double rate_hz, double w) {
  const int n = static_cast<int>(std::lround(rate_hz)) + 1;
  Eigen::VectorXd x(n), xd(n), xdd(n);
  for (int k = 0; k < n; ++k) {
    const double t = k / rate_hz;
    x[k] = std::sin(w * t + 0.4);
    xd[k] = w * std::cos(w * t + 0.4);
    xdd[k] = -w * w * std::sin(w * t + 0.4);
  }
  const Eigen::VectorXd d1 = differentiate(x, rate_hz);
  const Eigen::VectorXd d2 = secondDerivative(x, rate_hz);
  return {(d1 - xd).cwiseAbs().maxCoeff(), (d2 - xdd).cwiseAbs().maxCoeff()};
}

TEST(Signals, DerivativesAreSecondOrder) {
  const double w = 2.0 * kPi * 2.0;  // 2 Hz
  // From 200 Hz (ωh ≤ 0.063): coarser, the end stencil's −h³ x⁽⁵⁾ term of
  // the second derivative still moves the ratio by ~10%.
  for (double rate : {200.0, 400.0, 800.0}) {
    const double h = 1.0 / rate;
    const DerivativeErrors coarse = derivativeErrors(rate, w);
    const DerivativeErrors fine = derivativeErrors(2.0 * rate, w);
    // Stated bounds (signals.h): h² |x'''| / 3 for the first derivative (at
    // the ends), 11 h² |x''''| / 12 for the second; 5% for higher-order terms.
    EXPECT_LT(coarse.first, 1.05 * h * h * std::pow(w, 3) / 3.0) << rate;
    EXPECT_LT(coarse.second, 1.05 * 11.0 * h * h * std::pow(w, 4) / 12.0) << rate;
    EXPECT_NEAR(coarse.first / fine.first, 4.0, 0.3) << rate;
    EXPECT_NEAR(coarse.second / fine.second, 4.0, 0.3) << rate;
    std::printf("rate %4.0f Hz: max error d1 %.3e (ratio %.3f), d2 %.3e (ratio %.3f)\n", rate,
                coarse.first, coarse.first / fine.first, coarse.second,
                coarse.second / fine.second);
  }
}

TEST(Signals, DerivativesOfPolynomialsAreExact) {
  // The stencils are exact for quadratics (first) and cubics (second).
  const double rate = 50.0;
  Eigen::MatrixXd x(20, 2);
  Eigen::MatrixXd xd(20, 2), xdd(20, 2);
  for (int k = 0; k < 20; ++k) {
    const double t = k / rate;
    x.row(k) << 1.0 + 2.0 * t - 3.0 * t * t, 0.5 * t * t * t - t;
    xd.row(k) << 2.0 - 6.0 * t, 1.5 * t * t - 1.0;
    xdd.row(k) << -6.0, 3.0 * t;
  }
  EXPECT_LT((differentiate(x, rate).col(0) - xd.col(0)).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((secondDerivative(x, rate) - xdd).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(Signals, FilteringBeforeDifferentiationRejectsNoise) {
  // Encoder-like stream: 1 rad, 1 Hz sine sampled at 500 Hz for 4 s with
  // 1 mrad white noise; 4th-order zero-phase low-pass at 10 Hz.
  const double rate = 500.0, f = 1.0, cutoff = 10.0, noise = 1e-3;
  const int n = 2001;
  const double w = 2.0 * kPi * f;
  std::mt19937 rng(7);
  std::normal_distribution<double> gauss(0.0, noise);
  Eigen::VectorXd x(n), xd(n), xdd(n);
  for (int k = 0; k < n; ++k) {
    const double t = k / rate;
    x[k] = std::sin(w * t) + gauss(rng);
    xd[k] = w * std::cos(w * t);
    xdd[k] = -w * w * std::sin(w * t);
  }
  const FilteredSignals filtered = filterAndDifferentiate(x, rate, cutoff);
  const Eigen::VectorXd raw_xd = differentiate(x, rate);
  const Eigen::VectorXd raw_xdd = secondDerivative(x, rate);
  const double raw_v = rms(raw_xd - xd), raw_a = rms(raw_xdd - xdd);
  const double filt_v = rms(filtered.xd.col(0) - xd), filt_a = rms(filtered.xdd.col(0) - xdd);
  // Interior only (0.2 s from each end), where the identification samples live.
  const int m = 100;
  const double filt_v_in = rms((filtered.xd.col(0) - xd).segment(m, n - 2 * m));
  const double filt_a_in = rms((filtered.xdd.col(0) - xdd).segment(m, n - 2 * m));
  RecordProperty("raw_velocity_rms", std::to_string(raw_v));
  RecordProperty("raw_acceleration_rms", std::to_string(raw_a));
  std::printf("velocity RMS error: raw %.4g, filtered %.4g (interior %.4g) rad/s\n", raw_v, filt_v,
              filt_v_in);
  std::printf("acceleration RMS error: raw %.4g, filtered %.4g (interior %.4g) rad/s^2\n", raw_a,
              filt_a, filt_a_in);
  // Raw: noise·rate/√2 ≈ 0.35 rad/s and noise·rate²·√6 ≈ 612 rad/s².
  EXPECT_GT(raw_v, 0.3);
  EXPECT_GT(raw_a, 500.0);
  EXPECT_LT(filt_v, raw_v / 10.0);
  EXPECT_LT(filt_a, raw_a / 100.0);
  EXPECT_LT(filt_v_in, 0.02);
  EXPECT_LT(filt_a_in, 1.0);
}

TEST(Signals, BadArgumentsThrow) {
  EXPECT_THROW(designButterworthLowPass(3, 10.0, 100.0), std::invalid_argument);
  EXPECT_THROW(designButterworthLowPass(4, 50.0, 100.0), std::invalid_argument);  // = Nyquist
  EXPECT_THROW(designButterworthLowPass(4, 60.0, 100.0), std::invalid_argument);
  EXPECT_THROW(designButterworthLowPass(4, 0.0, 100.0), std::invalid_argument);
  EXPECT_THROW(designButterworthLowPass(4, 10.0, 0.0), std::invalid_argument);
  EXPECT_THROW(designButterworthLowPass(4, 10.0, -100.0), std::invalid_argument);
  const ButterworthLowPass filter = designButterworthLowPass(2, 10.0, 100.0);
  EXPECT_THROW(filterZeroPhase(filter, Eigen::MatrixXd::Zero(2, 1)), std::invalid_argument);
  EXPECT_THROW(filterZeroPhase(ButterworthLowPass{}, Eigen::MatrixXd::Zero(10, 1)),
               std::invalid_argument);
  EXPECT_THROW(differentiate(Eigen::MatrixXd::Zero(2, 1), 100.0), std::invalid_argument);
  EXPECT_THROW(differentiate(Eigen::MatrixXd::Zero(10, 1), 0.0), std::invalid_argument);
  EXPECT_THROW(secondDerivative(Eigen::MatrixXd::Zero(3, 1), 100.0), std::invalid_argument);
  EXPECT_THROW(filterAndDifferentiate(Eigen::MatrixXd::Zero(3, 1), 100.0, 10.0),
               std::invalid_argument);
  EXPECT_THROW(filterAndDifferentiate(Eigen::MatrixXd::Zero(100, 1), 100.0, 50.0),
               std::invalid_argument);
  try {
    designButterworthLowPass(4, 60.0, 100.0);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Nyquist"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace suitsim::eval
