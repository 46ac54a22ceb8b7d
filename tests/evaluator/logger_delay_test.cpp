// The logger's filter delay as the evaluator takes it out (logger_delay.h):
// the header's declarations read or refused with file and line, and a slow
// signal passed through the engine's causal filter at the simulation's
// step, logged at 200 Hz, comes back aligned with the unfiltered one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "logger_delay.h"
#include "suitsim/sensors.h"

namespace suitsim::eval {
namespace {

SensorStream streamWith(std::map<std::string, std::string> header) {
  SensorStream s;
  s.path = "trial/sensors.csv";
  s.header = std::move(header);
  int line = 1;
  for (const auto& [key, value] : s.header) s.header_line[key] = line++;
  s.rate_hz = 200.0;
  return s;
}

TEST(LoggerDelay, HeaderDeclaresEachKindsFilter) {
  const LoggerDelays d = declaredLoggerDelays(streamWith({{"anti_alias", "causal (...)"},
                                                          {"lowpass.imu", "butterworth2 42 Hz"},
                                                          {"lowpass.force", "butterworth2 50 Hz"},
                                                          {"lowpass.current", "none"}}));
  EXPECT_NEAR(d.imu, std::sqrt(2.0) / (2.0 * M_PI * 42.0), 1e-15);
  EXPECT_NEAR(d.force, butterworthDelay(50.0), 1e-15);  // the engine's formula
  EXPECT_EQ(d.current, 0.0);
  // The ideal logger's centred windows: nothing to compensate.
  const LoggerDelays ideal = declaredLoggerDelays(streamWith({{"anti_alias", "imu, force and current channels are means"}}));
  EXPECT_EQ(ideal.imu, 0.0);
  EXPECT_EQ(ideal.force, 0.0);
  EXPECT_EQ(ideal.current, 0.0);
}

TEST(LoggerDelay, MalformedOrMissingDeclarationsNameTheLine) {
  const auto fails = [](std::map<std::string, std::string> header, const std::string& fragment) {
    try {
      declaredLoggerDelays(streamWith(std::move(header)));
      ADD_FAILURE() << "accepted";
    } catch (const StreamError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  fails({{"lowpass.imu", "butterworth4 42 Hz"}}, "trial/sensors.csv:1: '# lowpass.imu: butterworth4 42 Hz' is not");
  fails({{"anti_alias", "causal"}, {"lowpass.force", "butterworth2 -5 Hz"}}, "sensors.csv:2:");
  fails({{"lowpass.current", "butterworth2 50 kHz"}}, "is not 'none' or 'butterworth2 F Hz'");
  fails({{"lowpass.current", "butterworth2 50 Hz extra"}}, "is not 'none'");
  fails({}, "declares no logger filter");
  fails({{"anti_alias", "causal (each channel's own filter)"}}, "declares no logger filter");
}

// A 0.7 Hz + 3 Hz signal through the engine's 42 Hz filter at dt = 5e-4 s,
// logged every 10th step: 5.4 ms late, about 0.04 of its amplitude off at
// the stamps. Compensated, it is within 0.2 % of the unfiltered signal
// (what is left: the group delay's change with frequency and the filter's
// slight gain loss at 3 Hz). Columns of other kinds move by their own
// delays; encoders do not move.
TEST(LoggerDelay, CompensationAlignsTheEnginesFilteredSignalWithTheTruth) {
  const double dt = 5e-4, cutoff = 42.0;
  const int steps_per_sample = 10, samples = 1200;
  const auto truth = [](double t) { return std::sin(2.0 * M_PI * 0.7 * t) + 0.3 * std::sin(2.0 * M_PI * 3.0 * t + 1.0); };
  const LowPass2 f = LowPass2::butterworth(cutoff, dt);
  double z1 = 0.0, z2 = 0.0;
  f.settle(truth(0.0), z1, z2);
  SensorStream s = streamWith({{"anti_alias", "causal"}, {"lowpass.imu", "butterworth2 42 Hz"},
                               {"lowpass.force", "none"}, {"lowpass.current", "butterworth2 84 Hz"}});
  s.time.resize(samples);
  s.gyro.resize(samples, 3);
  s.accel.resize(samples, 3);
  s.current.resize(samples, 1);
  s.joint_angle.resize(samples, 1);
  s.wrench.push_back(Eigen::MatrixXd(samples, 6));
  for (int n = 0, k = 0; n < samples; ++n) {
    double y = 0.0;
    for (; k <= n * steps_per_sample; ++k) y = f.step(truth(k * dt), z1, z2);
    s.time[n] = n * steps_per_sample * dt;
    s.gyro.row(n).setConstant(y);
    s.accel.row(n).setConstant(y);
    s.current(n, 0) = y;
    s.joint_angle(n, 0) = y;
    s.wrench[0].row(n).setConstant(y);
  }
  const SensorStream c = withoutLoggerDelay(s, declaredLoggerDelays(s));
  double before = 0.0, after = 0.0;
  for (int n = 50; n < samples - 50; ++n) {  // the first filter transient and the held end left out
    const double x = truth(s.time[n]);
    before = std::max(before, std::abs(s.gyro(n, 0) - x));
    after = std::max(after, std::abs(c.gyro(n, 0) - x));
    EXPECT_EQ(c.joint_angle(n, 0), s.joint_angle(n, 0));    // encoders stay
    EXPECT_EQ(c.wrench[0](n, 2), s.wrench[0](n, 2));        // force: declared "none"
    EXPECT_EQ(c.accel(n, 1), c.gyro(n, 1));                 // the IMU moves as one
    EXPECT_NE(c.current(n, 0), c.gyro(n, 0));               // its own, shorter delay
  }
  std::printf("max error at the stamps: filtered %.4g, compensated %.4g\n", before, after);
  EXPECT_GT(before, 0.03);
  EXPECT_LT(after, 2e-4);
}

}  // namespace
}  // namespace suitsim::eval
