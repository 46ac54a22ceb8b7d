// Reading a sensor stream (streams.h): a good file reads with its values,
// rate and header lines, by channel name whatever the column order; every
// bad input throws one StreamError naming the file, the line and the problem.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "robots.h"
#include "error_message.h"
#include "suitsim/eval/identification.h"
#include "suitsim/rigid/rigid_model.h"
#include "suitsim/eval/streams.h"

namespace {

namespace fs = std::filesystem;
using suitsim::eval::readSensorStream;
using suitsim::eval::SensorLayout;
using suitsim::eval::SensorStream;
using suitsim::eval::StreamError;

/// A stream as text: '#' lines, the header row and data rows, each row a
/// list of fields so that a test can break one. Channel values are a
/// smooth function of row and column, so every value is known.
struct StreamText {
  std::vector<std::string> comments;
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> rows;

  static std::string format(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    return buf;
  }
  static double value(int row, int column) { return std::sin(0.1 * row + 0.7 * column) + column; }

  /// File line (1-based) of data row k.
  int lineOfRow(int k) const { return static_cast<int>(comments.size()) + 2 + k; }
  int headerLine() const { return static_cast<int>(comments.size()) + 1; }
  int column(const std::string& label) const {
    for (std::size_t c = 0; c < labels.size(); ++c) {
      if (labels[c] == label) return static_cast<int>(c);
    }
    ADD_FAILURE() << "no column " << label;
    return 0;
  }
  /// Removes the column `label` from the header and every row.
  void drop(const std::string& label) {
    const int c = column(label);
    labels.erase(labels.begin() + c);
    for (auto& row : rows) row.erase(row.begin() + c);
  }
  void write(const fs::path& path) const {
    std::ofstream out(path);
    for (const std::string& c : comments) out << c << "\n";
    for (std::size_t c = 0; c < labels.size(); ++c) out << (c ? "," : "") << labels[c];
    out << "\n";
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << row[c];
      out << "\n";
    }
  }
};

class SensorStreams : public ::testing::Test {
 protected:
  SensorStreams() : model_(suitsim::eval::makeRigidModel(suitsim::testing::doublePendulum())) {
    layout_.imu.name = "imu";
    layout_.imu.link = "upper";
    suitsim::eval::SensorMount fs;
    fs.name = "fs";
    fs.link = "lower";
    layout_.force_sensors.push_back(fs);
    layout_.has_currents = true;
  }

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_streams_" + std::string(info->name()) + "_" + std::to_string(static_cast<long>(::getpid())));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  /// A good 100 Hz stream of `samples` rows for the double pendulum: two
  /// encoders, two currents, the IMU and one force sensor.
  static StreamText goodStream(int samples = 40) {
    StreamText s;
    s.comments = {"# scene: streams_test", "# trial: t1", "# motion: swing", "# sensor_rate_hz: 100",
                  "# noise: off"};
    s.labels = {"time[s]",         "shoulder.encoder[rad]", "elbow.encoder[rad]", "shoulder.current[A]",
                "elbow.current[A]", "imu.gyro.x[rad/s]",    "imu.gyro.y[rad/s]",  "imu.gyro.z[rad/s]",
                "imu.accel.x[m/s^2]", "imu.accel.y[m/s^2]", "imu.accel.z[m/s^2]", "fs.force.x[N]",
                "fs.force.y[N]",    "fs.force.z[N]",        "fs.torque.x[N*m]",   "fs.torque.y[N*m]",
                "fs.torque.z[N*m]"};
    for (int k = 0; k < samples; ++k) {
      std::vector<std::string> row{StreamText::format(0.01 * k)};
      for (std::size_t c = 1; c < s.labels.size(); ++c) row.push_back(StreamText::format(StreamText::value(k, c)));
      s.rows.push_back(row);
    }
    return s;
  }

  SensorStream read(const StreamText& s, double expected_rate_hz = 0.0) {
    const fs::path path = dir_ / "sensors.csv";
    s.write(path);
    return readSensorStream(path.string(), model_, layout_, expected_rate_hz);
  }

  /// Writes `s`, reads it and expects a StreamError naming the file, "file:line:"
  /// and every fragment, on one line.
  ::testing::AssertionResult failsWith(const StreamText& s, int line, const std::vector<std::string>& fragments,
                                       double expected_rate_hz = 0.0) {
    const fs::path path = dir_ / "sensors.csv";
    s.write(path);
    return failsAt(path.string(), line, fragments, expected_rate_hz);
  }

  ::testing::AssertionResult failsAt(const std::string& path, int line, const std::vector<std::string>& fragments,
                                     double expected_rate_hz = 0.0) {
    try {
      readSensorStream(path, model_, layout_, expected_rate_hz);
    } catch (const StreamError& e) {
      const std::string message = e.what();
      std::vector<std::string> wanted = fragments;
      wanted.push_back(path + ":" + std::to_string(line) + ":");
      return suitsim::testing::namesAllOnOneLine(message, wanted);
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << "threw something other than StreamError: " << e.what();
    }
    return ::testing::AssertionFailure() << path << " read without error";
  }

  suitsim::eval::RigidModel model_;
  SensorLayout layout_;
  fs::path dir_;
};

// ---- good streams ----------------------------------------------------------------

TEST_F(SensorStreams, GoodStreamReadsValuesRateAndHeader) {
  const StreamText text = goodStream(40);
  const SensorStream s = read(text, 100.0);
  EXPECT_EQ(s.path, (dir_ / "sensors.csv").string());
  EXPECT_DOUBLE_EQ(s.rate_hz, 100.0);
  EXPECT_EQ(s.meta("trial"), "t1");
  EXPECT_EQ(s.meta("motion"), "swing");
  EXPECT_EQ(s.meta("scene"), "streams_test");
  EXPECT_EQ(s.meta("suit"), "");
  EXPECT_EQ(s.meta("suit", "none"), "none");
  ASSERT_EQ(s.numSamples(), 40);
  ASSERT_EQ(model_.num_joints, 2);
  ASSERT_EQ(s.joint_angle.rows(), 40);
  ASSERT_EQ(s.joint_angle.cols(), 2);
  ASSERT_EQ(s.current.cols(), 2);
  ASSERT_EQ(s.wrench.size(), 1u);
  ASSERT_EQ(s.wrench[0].cols(), 6);
  // Values as written (%.12g), each from its named column.
  auto expected = [&](int k, const std::string& label) {
    return std::stod(StreamText::format(StreamText::value(k, text.column(label))));
  };
  const char* axes[3] = {"x", "y", "z"};
  for (int k : {0, 1, 17, 39}) {
    EXPECT_DOUBLE_EQ(s.time[k], 0.01 * k);
    for (int j = 0; j < 2; ++j) {
      const std::string joint = model_.joint_name[j];
      EXPECT_EQ(s.joint_angle(k, j), expected(k, joint + ".encoder[rad]"));
      EXPECT_EQ(s.current(k, j), expected(k, joint + ".current[A]"));
    }
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(s.gyro(k, a), expected(k, std::string("imu.gyro.") + axes[a] + "[rad/s]"));
      EXPECT_EQ(s.accel(k, a), expected(k, std::string("imu.accel.") + axes[a] + "[m/s^2]"));
      EXPECT_EQ(s.wrench[0](k, a), expected(k, std::string("fs.force.") + axes[a] + "[N]"));
      EXPECT_EQ(s.wrench[0](k, 3 + a), expected(k, std::string("fs.torque.") + axes[a] + "[N*m]"));
    }
  }
}

// Channels are found by name: the column order (and units) do not matter.
TEST_F(SensorStreams, ColumnOrderDoesNotMatter) {
  const SensorStream plain = read(goodStream());
  StreamText shuffled = goodStream();
  // Reverse every column but time.
  std::reverse(shuffled.labels.begin() + 1, shuffled.labels.end());
  for (auto& row : shuffled.rows) std::reverse(row.begin() + 1, row.end());
  const SensorStream s = read(shuffled);
  EXPECT_EQ(s.joint_angle, plain.joint_angle);
  EXPECT_EQ(s.current, plain.current);
  EXPECT_EQ(s.gyro, plain.gyro);
  EXPECT_EQ(s.accel, plain.accel);
  EXPECT_EQ(s.wrench[0], plain.wrench[0]);
}

TEST_F(SensorStreams, CommentsBlankLinesCrlfAndExtraChannelsAreAccepted) {
  StreamText text = goodStream(25);
  text.labels.push_back("extra.channel[1]");
  for (auto& row : text.rows) row.push_back("7");
  const fs::path path = dir_ / "sensors.csv";
  text.write(path);
  // Rewrite with CRLF endings, a blank line and a comment among the rows.
  std::ifstream in(path);
  std::string out_text, line;
  int n = 0;
  while (std::getline(in, line)) {
    out_text += line + "\r\n";
    if (++n == text.lineOfRow(10)) out_text += "\r\n# a note in the middle\r\n";
  }
  in.close();
  std::ofstream(path, std::ios::binary) << out_text;
  const SensorStream s = readSensorStream(path.string(), model_, layout_);
  EXPECT_EQ(s.numSamples(), 25);
  EXPECT_EQ(s.meta("trial"), "t1");  // no '\r' left on header values
  EXPECT_DOUBLE_EQ(s.time[24], 0.24);
}

TEST_F(SensorStreams, WithoutCurrentSensingCurrentsAreNotNeeded) {
  layout_.has_currents = false;
  StreamText text = goodStream();
  for (const char* label : {"shoulder.current[A]", "elbow.current[A]"}) text.drop(label);
  const SensorStream s = read(text);
  EXPECT_EQ(s.current.size(), 0);
  EXPECT_EQ(s.joint_angle.rows(), 40);
}

// Link-side joint torques (<joint_torques>): read into joint_torque, in
// the model's joint order, when the layout has them; a missing one is
// named. A rig without an IMU (no name in the layout) needs no IMU channels.
TEST_F(SensorStreams, JointTorquesAreReadWhenTheLayoutHasThemAndARigNeedsNoImu) {
  StreamText text = goodStream();
  text.labels.push_back("elbow.torque[N*m]");
  text.labels.push_back("shoulder.torque[N*m]");
  for (std::size_t k = 0; k < text.rows.size(); ++k) {
    text.rows[k].push_back(StreamText::format(-1.0 - 0.01 * k));
    text.rows[k].push_back(StreamText::format(2.0 + 0.01 * k));
  }
  EXPECT_EQ(read(text).joint_torque.size(), 0);  // not in the layout: not read
  layout_.has_joint_torques = true;
  const SensorStream s = read(text);
  ASSERT_EQ(s.joint_torque.rows(), 40);
  EXPECT_DOUBLE_EQ(s.joint_torque(3, 0), 2.03);   // shoulder first, as the model orders it
  EXPECT_DOUBLE_EQ(s.joint_torque(3, 1), -1.03);

  StreamText missing = text;
  missing.drop("elbow.torque[N*m]");
  EXPECT_TRUE(failsWith(missing, missing.headerLine(), {"missing channel 'elbow.torque'"}));

  // No IMU in the layout: the IMU's channels are neither needed nor read.
  layout_.imu = suitsim::eval::SensorMount{};
  StreamText rig = text;
  for (const char* label : {"imu.gyro.x[rad/s]", "imu.gyro.y[rad/s]", "imu.gyro.z[rad/s]", "imu.accel.x[m/s^2]",
                            "imu.accel.y[m/s^2]", "imu.accel.z[m/s^2]"}) {
    rig.drop(label);
  }
  const SensorStream r = read(rig);
  EXPECT_EQ(r.gyro.size(), 0);
  EXPECT_EQ(r.joint_torque.rows(), 40);
}

// Winding temperatures: read when every joint has one, left out otherwise
// (only the heating correction needs them).
TEST_F(SensorStreams, WindingTemperaturesAreReadWhenEveryJointHasOne) {
  StreamText text = goodStream();
  text.labels.push_back("shoulder.winding_temperature[degC]");
  for (auto& row : text.rows) row.push_back("31.5");
  EXPECT_EQ(read(text).winding_temperature.size(), 0);  // the elbow has none
  text.labels.push_back("elbow.winding_temperature[degC]");
  for (std::size_t k = 0; k < text.rows.size(); ++k) text.rows[k].push_back(StreamText::format(25.0 + 0.1 * k));
  const SensorStream s = read(text);
  ASSERT_EQ(s.winding_temperature.rows(), 40);
  EXPECT_EQ(s.winding_temperature(3, 0), 31.5);
  EXPECT_DOUBLE_EQ(s.winding_temperature(3, 1), 25.3);
}

// The heating correction reads each current as the torque it makes at the
// datasheet's temperature, u (1 + alpha (T - 25)), before the filter: the
// same as conditioning currents corrected by hand.
TEST_F(SensorStreams, HeatingCorrectionScalesEachCurrentByItsWindingTemperature) {
  StreamText text = goodStream(200);
  text.labels.push_back("shoulder.winding_temperature[degC]");
  text.labels.push_back("elbow.winding_temperature[degC]");
  for (std::size_t k = 0; k < text.rows.size(); ++k) {
    text.rows[k].push_back(StreamText::format(40.0 + 0.05 * k));
    text.rows[k].push_back(StreamText::format(20.0 - 0.02 * k));
  }
  const SensorStream s = read(text);
  layout_.imu.link = "base";  // the identification works in the base link's frame
  suitsim::eval::ConditioningOptions corrected;
  corrected.magnet_coefficient = Eigen::Vector2d(-0.0012, -0.002);
  const suitsim::eval::MotionData d = suitsim::eval::conditionStream(model_, layout_, s, corrected);
  SensorStream by_hand = s;
  for (Eigen::Index t = 0; t < s.current.rows(); ++t) {
    by_hand.current(t, 0) *= 1.0 - 0.0012 * (s.winding_temperature(t, 0) - 25.0);
    by_hand.current(t, 1) *= 1.0 - 0.002 * (s.winding_temperature(t, 1) - 25.0);
  }
  const suitsim::eval::MotionData e = suitsim::eval::conditionStream(model_, layout_, by_hand, {});
  EXPECT_EQ(d.current, e.current);
  const suitsim::eval::MotionData plain = suitsim::eval::conditionStream(model_, layout_, s, {});
  EXPECT_GT((plain.current - d.current).cwiseAbs().maxCoeff(), 1e-3);  // it did something
  // Without the temperatures the correction cannot be made: refused.
  SensorStream cold = s;
  cold.winding_temperature.resize(0, 0);
  try {
    suitsim::eval::conditionStream(model_, layout_, cold, corrected);
    ADD_FAILURE() << "corrected without temperatures";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("winding temperature"), std::string::npos) << ex.what();
  }
}

TEST_F(SensorStreams, TwentySamplesAreEnough) { EXPECT_EQ(read(goodStream(20)).numSamples(), 20); }

// ---- bad streams -------------------------------------------------------------------

TEST_F(SensorStreams, MissingFile) {
  EXPECT_TRUE(failsAt((dir_ / "nope" / "sensors.csv").string(), 0, {"cannot open"}));
}

// A FIFO would block forever and a file of one endless line would fill
// memory: both are refused.
TEST_F(SensorStreams, FifoIsRefused) {
  const fs::path path = dir_ / "fifo.csv";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_TRUE(failsAt(path.string(), 0, {"not a regular file"}));
}

TEST_F(SensorStreams, OverlongLineIsRefused) {
  const fs::path path = dir_ / "long.csv";
  std::ofstream(path) << "# sensor_rate_hz: 200\n" << std::string(2 << 20, 'x') << "\n";
  EXPECT_TRUE(failsAt(path.string(), 2, {"a line longer than"}));
}

TEST_F(SensorStreams, NoHeaderRow) {
  StreamText text = goodStream();
  text.labels.clear();
  text.rows.clear();
  // Only the comment lines: the problem is at the end of the file.
  const fs::path path = dir_ / "sensors.csv";
  {
    std::ofstream out(path);
    for (const std::string& c : text.comments) out << c << "\n";
  }
  EXPECT_TRUE(failsAt(path.string(), static_cast<int>(text.comments.size()), {"no header row"}));
  std::ofstream(path, std::ios::trunc).close();  // empty file
  EXPECT_TRUE(failsAt(path.string(), 0, {"no header row"}));
}

TEST_F(SensorStreams, FirstColumnNotTime) {
  StreamText text = goodStream();
  std::swap(text.labels[0], text.labels[1]);
  EXPECT_TRUE(failsWith(text, text.headerLine(), {"first column must be time", "shoulder.encoder"}));
}

TEST_F(SensorStreams, MissingChannelIsNamed) {
  for (const std::string channel : {"shoulder.encoder", "elbow.encoder", "shoulder.current", "elbow.current",
                                    "imu.gyro.x", "imu.gyro.z", "imu.accel.y", "fs.force.x", "fs.force.z",
                                    "fs.torque.y"}) {
    SCOPED_TRACE(channel);
    StreamText text = goodStream();
    int c = -1;
    for (std::size_t k = 0; k < text.labels.size(); ++k) {
      if (text.labels[k].rfind(channel + "[", 0) == 0) c = static_cast<int>(k);
    }
    ASSERT_GE(c, 0);
    text.labels.erase(text.labels.begin() + c);
    for (auto& row : text.rows) row.erase(row.begin() + c);
    EXPECT_TRUE(failsWith(text, text.headerLine(), {"missing channel '" + channel + "'"}));
  }
}

TEST_F(SensorStreams, SensorNamedDifferentlyIsAMissingChannel) {
  layout_.force_sensors[0].name = "rfsensor";
  const StreamText text = goodStream();
  EXPECT_TRUE(failsWith(text, text.headerLine(), {"missing channel 'rfsensor.force.x'"}));
}

TEST_F(SensorStreams, DuplicateChannel) {
  StreamText text = goodStream();
  text.labels[text.column("imu.accel.y[m/s^2]")] = "imu.gyro.x[rad/s]";
  EXPECT_TRUE(failsWith(text, text.headerLine(), {"'imu.gyro.x'", "appears twice"}));
}

TEST_F(SensorStreams, WrongFieldCount) {
  StreamText text = goodStream();
  text.rows[12].pop_back();
  EXPECT_TRUE(failsWith(text, text.lineOfRow(12), {"16 fields", "header has 17"}));
  text = goodStream();
  text.rows[30].push_back("1");
  EXPECT_TRUE(failsWith(text, text.lineOfRow(30), {"18 fields", "header has 17"}));
}

TEST_F(SensorStreams, FieldsThatAreNotFiniteNumbers) {
  struct Bad {
    const char* field;
    const char* column;
  };
  const Bad cases[] = {
      {"nan", "elbow.encoder[rad]"}, {"NaN", "imu.gyro.y[rad/s]"}, {"inf", "fs.force.z[N]"},
      {"-inf", "shoulder.current[A]"}, {"abc", "imu.accel.x[m/s^2]"}, {"1.5x", "fs.torque.x[N*m]"},
      {"", "elbow.current[A]"},      {"1e999", "shoulder.encoder[rad]"}, {"nan", "time[s]"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(std::string(c.column) + " = '" + c.field + "'");
    StreamText text = goodStream();
    text.rows[21][text.column(c.column)] = c.field;
    std::string name = c.column;
    name = name.substr(0, name.find('['));
    EXPECT_TRUE(failsWith(text, text.lineOfRow(21),
                          {"column '" + name + "'", "not a finite number", "('" + std::string(c.field) + "')"}));
  }
}

TEST_F(SensorStreams, TimeNotIncreasing) {
  StreamText text = goodStream();
  text.rows[8][0] = text.rows[7][0];  // repeated
  EXPECT_TRUE(failsWith(text, text.lineOfRow(8), {"time does not increase"}));
  text = goodStream();
  text.rows[16][0] = text.rows[14][0];  // going back: 0.14 s after 0.15 s
  EXPECT_TRUE(failsWith(text, text.lineOfRow(16), {"time does not increase"}));
}

TEST_F(SensorStreams, SpacingNotMatchingTheRate) {
  StreamText text = goodStream();
  text.rows.erase(text.rows.begin() + 10);  // a dropped sample: 0.02 s after 0.09 s
  EXPECT_TRUE(failsWith(text, text.lineOfRow(10), {"sample spacing", "sensor_rate_hz 100"}));
  text = goodStream();
  text.comments[3] = "# sensor_rate_hz: 200";  // header disagrees with every step
  EXPECT_TRUE(failsWith(text, text.lineOfRow(1), {"sample spacing", "sensor_rate_hz 200"}));
  // Jitter within 1 % is tolerated.
  text = goodStream();
  text.rows[5][0] = StreamText::format(0.05 + 0.00005);
  EXPECT_EQ(read(text).numSamples(), 40);
}

TEST_F(SensorStreams, MissingOrBadRateLine) {
  StreamText text = goodStream();
  text.comments.erase(text.comments.begin() + 3);
  EXPECT_TRUE(failsWith(text, text.headerLine(), {"sensor_rate_hz"}));
  for (const char* bad : {"# sensor_rate_hz:", "# sensor_rate_hz: fast", "# sensor_rate_hz: 0",
                          "# sensor_rate_hz: -100", "# sensor_rate_hz: nan"}) {
    SCOPED_TRACE(bad);
    text = goodStream();
    text.comments[3] = bad;
    EXPECT_TRUE(failsWith(text, text.headerLine(), {"sensor_rate_hz"}));
  }
}

TEST_F(SensorStreams, RateDifferentFromExpected) {
  const StreamText text = goodStream();
  EXPECT_TRUE(failsWith(text, text.headerLine(), {"sensor rate 100 Hz", "expected 200 Hz"}, 200.0));
  EXPECT_EQ(read(text, 100.0).numSamples(), 40);
  EXPECT_EQ(read(text, 0.0).numSamples(), 40);  // 0: any rate
}

TEST_F(SensorStreams, FewerThanTwentySamples) {
  const StreamText text = goodStream(19);
  EXPECT_TRUE(failsWith(text, text.lineOfRow(18), {"only 19 samples", "at least 20"}));
  const StreamText empty = goodStream(0);
  EXPECT_TRUE(failsWith(empty, empty.headerLine(), {"only 0 samples"}));
}

}  // namespace
