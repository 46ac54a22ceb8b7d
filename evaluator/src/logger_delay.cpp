#include "logger_delay.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace suitsim::eval {

namespace {

[[noreturn]] void fail(const SensorStream& s, const std::string& key, const std::string& problem) {
  const auto it = s.header_line.find(key);
  throw StreamError(s.path + ":" + std::to_string(it == s.header_line.end() ? 0 : it->second) + ": " + problem);
}

/// "butterworth2 F Hz" -> sqrt(2) / (2 pi F); "none" -> 0.
double delayOf(const SensorStream& s, const std::string& kind) {
  const std::string key = "lowpass." + kind;
  const std::string text = s.meta(key, "none");
  if (text == "none") return 0.0;
  std::istringstream in(text);
  std::string shape, unit, rest;
  double cutoff = 0.0;
  if (!(in >> shape >> cutoff >> unit) || (in >> rest) || shape != "butterworth2" || unit != "Hz" ||
      !(cutoff > 0.0) || !std::isfinite(cutoff)) {
    fail(s, key, "'# " + key + ": " + text + "' is not 'none' or 'butterworth2 F Hz' with F > 0");
  }
  // The analogue 2nd-order Butterworth's group delay at zero frequency:
  // its phase is -sqrt(2) w / w_c to first order.
  return std::sqrt(2.0) / (2.0 * M_PI * cutoff);
}

/// Column c of m read `shift` samples later: 4-point cubic (Catmull-Rom)
/// interpolation, indices held at the ends.
void shiftColumns(Eigen::MatrixXd& m, double shift) {
  if (shift == 0.0 || m.rows() == 0) return;
  const Eigen::MatrixXd src = m;
  const long n = static_cast<long>(src.rows());
  const auto at = [&](long i, Eigen::Index c) { return src(std::clamp(i, 0L, n - 1), c); };
  const long whole = static_cast<long>(std::floor(shift));
  const double f = shift - static_cast<double>(whole);
  // Catmull-Rom weights for p(-1), p(0), p(1), p(2) at f.
  const double w0 = 0.5 * (-f + 2.0 * f * f - f * f * f);
  const double w1 = 0.5 * (2.0 - 5.0 * f * f + 3.0 * f * f * f);
  const double w2 = 0.5 * (f + 4.0 * f * f - 3.0 * f * f * f);
  const double w3 = 0.5 * (-f * f + f * f * f);
  for (Eigen::Index c = 0; c < src.cols(); ++c) {
    for (long i = 0; i < n; ++i) {
      const long k = i + whole;
      if (k >= n - 1) {
        m(i, c) = src(n - 1, c);  // past the end: the last value held
        continue;
      }
      m(i, c) = w0 * at(k - 1, c) + w1 * at(k, c) + w2 * at(k + 1, c) + w3 * at(k + 2, c);
    }
  }
}

}  // namespace

LoggerDelays declaredLoggerDelays(const SensorStream& s) {
  const std::string logger = s.meta("anti_alias");
  const bool any_lowpass = s.header.count("lowpass.imu") + s.header.count("lowpass.force") + s.header.count("lowpass.current") > 0;
  if (!any_lowpass) {
    if (!logger.empty() && logger.rfind("causal", 0) != 0) return {};  // the ideal logger: centred, no delay
    throw StreamError(s.path + ":0: the header declares no logger filter ('# lowpass.imu|force|current: "
                      "butterworth2 F Hz' or 'none' lines, or the ideal logger's '# anti_alias:' line): "
                      "its delays cannot be compensated");
  }
  LoggerDelays d;
  d.imu = delayOf(s, "imu");
  d.force = delayOf(s, "force");
  d.current = delayOf(s, "current");
  return d;
}

SensorStream withoutLoggerDelay(const SensorStream& stream, const LoggerDelays& delays) {
  SensorStream s = stream;
  const double samples = s.rate_hz;  // delay (s) times rate: samples
  shiftColumns(s.gyro, delays.imu * samples);
  shiftColumns(s.accel, delays.imu * samples);
  for (Eigen::MatrixXd& w : s.wrench) shiftColumns(w, delays.force * samples);
  shiftColumns(s.current, delays.current * samples);
  return s;
}

}  // namespace suitsim::eval
