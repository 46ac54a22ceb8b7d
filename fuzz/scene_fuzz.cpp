// libFuzzer target: scene files through the scene reader (the robot it
// names, its trials, suits, motions, sensors). A refused scene is a
// SceneError naming a file (the scene, or the URDF or CSV it points to);
// any other exception, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "suitsim/scene/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = suitsim::fuzz::writeInput(data, size, "scenes/fuzz.xml");
  try {
    for (const suitsim::io::TrialSpec& trial : suitsim::io::listTrials(path)) {
      suitsim::io::loadScene(path, trial.name);
    }
    suitsim::io::loadScene(path);
  } catch (const suitsim::io::SceneError& e) {
    // The error may name the URDF or a motion CSV the scene points to; it
    // must name some file and line, never be bare.
    const std::string what = e.what();
    if (what.find(':') == std::string::npos) suitsim::fuzz::expectNamed(what, path);
  }
  return 0;
}
