// libFuzzer target: sensor streams through the evaluator's reader, for a
// small robot (tests/support/robots.h's double pendulum with an IMU on the
// upper link and a force sensor on the lower: the layout of
// tests/evaluator/streams_test.cpp, whose good stream is the seed). A
// refused stream is a StreamError starting with the path; any other
// exception, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "robots.h"
#include "suitsim/rigid/rigid_model.h"
#include "suitsim/eval/streams.h"

namespace {

struct Robot {
  suitsim::eval::RigidModel model = suitsim::eval::makeRigidModel(suitsim::testing::doublePendulum());
  suitsim::eval::SensorLayout layout;
  Robot() {
    layout.imu.name = "imu";
    layout.imu.link = "upper";
    suitsim::eval::SensorMount fs;
    fs.name = "fs";
    fs.link = "lower";
    layout.force_sensors.push_back(fs);
    layout.has_currents = true;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Robot robot;
  const std::string path = suitsim::fuzz::writeInput(data, size, "sensors.csv");
  try {
    suitsim::eval::readSensorStream(path, robot.model, robot.layout);
  } catch (const suitsim::eval::StreamError& e) {
    suitsim::fuzz::expectNamed(e.what(), path);
  }
  return 0;
}
