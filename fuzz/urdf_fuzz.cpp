// libFuzzer target: URDF text through the reader and the robot compiler.
// A refused robot is a SceneError naming the file (reader) or a ModelError
// (compile stage); any other exception, a crash or a sanitizer report is a
// finding. Run: docs/testing.md, "Fuzzing".
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/rigid/rigid_model.h"
#include "suitsim/scene/urdf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = "fuzz.urdf";
  suitsim::RobotDescription robot;
  try {
    robot = suitsim::io::parseUrdf(std::string(reinterpret_cast<const char*>(data), size), path);
  } catch (const suitsim::io::SceneError& e) {
    suitsim::fuzz::expectNamed(e.what(), path);
    return 0;
  }
  // What the reader accepts, both consumers must take or refuse cleanly:
  // the engine's compiler and the evaluator's rigid model.
  try {
    suitsim::ModelBuilder builder;
    suitsim::addRobot(builder, robot, {}, {}, {});
    builder.build();
  } catch (const suitsim::ModelError& e) {
    suitsim::fuzz::expectNamed(e.what(), path);
  }
  try {
    suitsim::eval::makeRigidModel(robot);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
