#pragma once
// The integrated autocorrelation time of a fit's residual: the one rule the
// robot's identification (A(13)-(20)) and the band fit (A(26)) both use to
// widen their least-squares standard deviations (docs/method.md,
// "Standard deviations").

#include <algorithm>

namespace suitsim {

/// tau = 1 + 2 sum_{l=1}^{L} rho(l), rho(l) = c(l) / c(0), in samples, over
/// the initial run of positive autocorrelations: the sum stops at the first
/// rho <= 0 (beyond it the estimate is noise) and at max_lag. At least 1.
///
/// `autocovariance(l)` is the residual's autocovariance sum at lag l: the
/// sum of r_t r_{t+l} over the pairs that lie in one unbroken stretch of
/// samples. The caller sets max_lag to half its longest stretch: lags
/// beyond it have too few pairs to estimate rho.
///
/// Filtered and differentiated signals make neighbouring residuals alike,
/// so a sum of N squared residuals holds about N / tau independent terms and
/// a least-squares covariance counting N is too small by about tau.
template <class Autocovariance>
double integratedAutocorrelationTime(Autocovariance&& autocovariance, int max_lag) {
  const double c0 = autocovariance(0);
  if (!(c0 > 0.0)) return 1.0;
  double tau = 1.0;
  for (int lag = 1; lag <= max_lag; ++lag) {
    const double rho = autocovariance(lag) / c0;
    if (!(rho > 0.0)) break;
    tau += 2.0 * rho;
  }
  return std::max(1.0, tau);
}

/// A residual of several series fitted together (a band fit's joints, the
/// identification's equations): each series' own tau by the rule above,
/// averaged with each series' share of the residual power, c_s(0) (weighted
/// as the fit weighs its rows). `autocovariance(s, l)` is series s's
/// autocovariance sum at lag l. Pooling the sums over the series instead
/// would stop every series at the first lag where their mixture turns
/// negative, and let one slow series set everyone's time.
template <class Autocovariance>
double meanAutocorrelationTime(int num_series, Autocovariance&& autocovariance, int max_lag) {
  double sum = 0.0, total = 0.0;
  for (int s = 0; s < num_series; ++s) {
    const double c0 = autocovariance(s, 0);
    if (!(c0 > 0.0)) continue;
    sum += c0 * integratedAutocorrelationTime([&](int lag) { return autocovariance(s, lag); }, max_lag);
    total += c0;
  }
  return total > 0.0 ? sum / total : 1.0;
}

}  // namespace suitsim
