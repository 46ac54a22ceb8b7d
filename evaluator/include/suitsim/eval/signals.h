// Conditioning of sampled sensor streams for identification: zero-phase
// Butterworth low-pass filtering and numerical differentiation (B §4 filters
// the encoder angles before forming q̇ and q̈, and the gyro before forming the
// base angular acceleration).
//
// Signals are matrices with one row per sample and one column per channel,
// uniformly sampled at rate_hz. A plain vector passes as an n x 1 matrix.
//
// Filtering runs the filter forward, then backward over the forward output,
// so the phase cancels and the magnitude response is |H(f)|²: a peak stays at
// the sample where it was, which matters because q, q̇, q̈ and the measured
// forces must line up in time in the regressor rows. Both passes run over a
// padded copy: each end is extended by an odd reflection about its end sample
// (2 x_0 − x_k), which continues the value and the slope, and each pass
// starts from the filter's steady state for its first padded sample, so a
// constant passes unchanged and the start-up transient of anything else
// (the filter starting "at rest" on a slope) decays inside the padding.
//
// Bad arguments (order not 2 or 4, cutoff not in (0, Nyquist), rate <= 0,
// too few samples) throw std::invalid_argument.
#pragma once

#include <vector>

#include <Eigen/Core>

namespace suitsim::eval {

/// Signals: rows are samples, columns are channels.
using SignalsRef = Eigen::Ref<const Eigen::MatrixXd>;

/// One second-order section of a digital filter, a0 normalised to 1:
/// y[k] = b0 x[k] + b1 x[k−1] + b2 x[k−2] − a1 y[k−1] − a2 y[k−2].
struct Biquad {
  double b0 = 1.0, b1 = 0.0, b2 = 0.0;
  double a1 = 0.0, a2 = 0.0;
};

/// A digital Butterworth low-pass filter as a cascade of order/2 biquads,
/// each with unit gain at DC.
struct ButterworthLowPass {
  int order = 0;             ///< 2 or 4
  double cutoff_hz = 0.0;    ///< −3 dB frequency of one pass (Hz)
  double rate_hz = 0.0;      ///< sample rate (Hz)
  std::vector<Biquad> sections;  ///< (order / 2)

  /// |H(e^{jωh})| of one pass at frequency f_hz (Hz), evaluated from the
  /// sections. Zero-phase filtering attenuates a sinusoid by gain(f)².
  double gain(double f_hz) const;
};

/// Designs the order-`order` (2 or 4) Butterworth low-pass with −3 dB point
/// cutoff_hz for samples at rate_hz: analog prototype, cutoff pre-warped to
/// ω_a = 2 rate tan(π cutoff / rate), then the bilinear transform, so the
/// digital response is exactly 1 / (1 + (tan(π f/rate) / tan(π cutoff/rate))^(2 order)) in |H|².
/// Requires rate_hz > 0 and 0 < cutoff_hz < rate_hz / 2.
ButterworthLowPass designButterworthLowPass(int order, double cutoff_hz, double rate_hz);

/// Number of samples added at each end before filtering: about three periods
/// of the cutoff (3 rate/cutoff), capped at num_samples − 1 because the odd
/// reflection needs that many distinct samples.
int paddingSamples(const ButterworthLowPass& filter, int num_samples);

/// Zero-phase (forward-backward) filtering of every column of `signals`
/// (num_samples x channels, num_samples >= 3). Returns the same shape.
Eigen::MatrixXd filterZeroPhase(const ButterworthLowPass& filter, const SignalsRef& signals);

/// First time derivative of every column (units per second), O(h²) with
/// h = 1/rate_hz: central differences (x[k+1] − x[k−1]) / 2h inside, which
/// err by h² x'''/6; second-order one-sided differences
/// (∓3 x[0] ± 4 x[1] ∓ x[2]) / 2h at the ends, which err by h² x'''/3.
/// Needs at least 3 samples.
Eigen::MatrixXd differentiate(const SignalsRef& signals, double rate_hz);

/// Second time derivative of every column (units per second²), O(h²):
/// (x[k+1] − 2 x[k] + x[k−1]) / h² inside, erring by h² x''''/12; the
/// four-point one-sided (2 x[0] − 5 x[1] + 4 x[2] − x[3]) / h² at the ends,
/// erring by 11 h² x''''/12. Needs at least 4 samples.
Eigen::MatrixXd secondDerivative(const SignalsRef& signals, double rate_hz);

/// A filtered signal and its first two time derivatives, each
/// (num_samples x channels): for encoder angles q, q̇, q̈; for a gyro ω, ω̇
/// (and ω̈, usually unused).
struct FilteredSignals {
  Eigen::MatrixXd x;    ///< filtered samples
  Eigen::MatrixXd xd;   ///< d/dt of x (per s)
  Eigen::MatrixXd xdd;  ///< d²/dt² of x (per s²)
};

/// Zero-phase low-pass of order `order` at cutoff_hz, then differentiate()
/// and secondDerivative() of the filtered samples. Needs at least 4 samples.
FilteredSignals filterAndDifferentiate(const SignalsRef& signals, double rate_hz, double cutoff_hz,
                                       int order = 4);

}  // namespace suitsim::eval
