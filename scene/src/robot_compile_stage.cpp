// Compiling a read robot (SceneRobot) into the model builder: the truth
// with its suit's bands, every device, and the servo's gains, the sensors
// and the motion moved from the description's joints and links onto the
// builder's hinges and bodies (robot_scene.h).
#include "robot_scene.h"

#include "suitsim/scene/xml_reader.h"

namespace suitsim::io {

namespace {

using tinyxml2::XMLElement;

// "path:line: <tag> message", or the message alone when it names its own
// line in the scene already (a segment's or strap's fault).
[[noreturn]] void failAt(const std::string& path, int line, const char* tag, const std::string& message) {
  if (message.rfind(path + ":", 0) == 0) throw SceneError(message);
  throw SceneError(path + ":" + std::to_string(line) + ": <" + tag + "> " + message);
}

}  // namespace

RobotSetup compileRobot(const std::string& scene_path, const XMLElement* element, const SceneRobot& robot,
                        ModelBuilder& builder) {
  RobotSetup setup;
  static_cast<SceneRobot&>(setup) = robot;
  const RobotDescription& truth = setup.truth;
  try {
    setup.compiled = addRobot(builder, truth, setup.initial_pose, setup.contacts, setup.compile_options, setup.bands);
  } catch (const ModelError& e) {
    checkedReader(scene_path, element).fail(e.what());
  }
  // natural_length="auto": the length at the initial pose, as compiled.
  for (std::size_t k = 0; k < setup.bands.size(); ++k) setup.bands[k].natural_length = setup.compiled.band_natural_length[k];

  // Every device is built (the others into a copy of the builder), so an
  // error shows whichever trial runs; the worn one into the model.
  for (const auto& [spec, line] : setup.devices) {
    const bool worn = setup.exoskeleton && setup.exoskeleton->name == spec.name;
    try {
      if (worn) {
        setup.exoskeleton_compiled =
            addExoskeleton(builder, truth, setup.compiled, setup.initial_pose, spec, setup.compile_options);
      } else {
        ModelBuilder scratch = builder;
        addExoskeleton(scratch, truth, setup.compiled, setup.initial_pose, spec, setup.compile_options);
      }
    } catch (const ModelError& e) {
      failAt(scene_path, line, "exoskeleton", e.what());
    }
  }

  // The servo's gains on the hinges (a device's hinges have none).
  setup.gains.assign(builder.numHinges(), ServoGains{});
  setup.gain_line.assign(builder.numHinges(), 0);
  for (std::size_t j = 0; j < setup.joint_gains.size(); ++j) {
    const int h = setup.compiled.joint_hinge[j];
    if (h < 0) continue;
    setup.gains[h] = setup.joint_gains[j];
    setup.gain_line[h] = setup.joint_gain_line[j];
  }
  std::vector<int> hinges;
  for (int j : setup.joint_motion.hinges()) hinges.push_back(setup.compiled.joint_hinge[j]);
  setup.motion = setup.joint_motion.renumbered(hinges);
  placeSensors(setup);
  addDeviceSensors(setup);
  return setup;
}

}  // namespace suitsim::io
