// The tiny experiment's robot (tests/cli/data/tiny_experiment.xml) as the
// excitation design sees it: a box standing on four contact points with a
// three-joint arm, shared by the design tests.
#pragma once

#include <string>

#include "suitsim/design/design_robot.h"
#include "suitsim/scene/scene.h"

namespace suitsim::testing {

inline std::string tinyScenePath() { return std::string(SUITSIM_SOURCE_DIR) + "/tests/cli/data/tiny_experiment.xml"; }

inline const design::DesignRobot& tinyDesignRobot() {
  static const design::DesignRobot robot = [] {
    const io::Scene scene = io::loadScene(tinyScenePath(), "ident_wave");
    return design::makeDesignRobot(scene.robot.value());
  }();
  return robot;
}

}  // namespace suitsim::testing
