// The four bands of the shipped suit, for evaluator tests.
#pragma once

#include <string>
#include <vector>

#include "suitsim/robot/suit.h"

namespace suitsim::testing {

// The four bands of scenes/jvrc1_bend_suit.xml (type A: shoulder to the
// opposite thigh across the back; type B: low back around the flank to the
// chest), copied here so the test does not depend on the scene reader.
inline std::vector<RobotBand> suitBands() {
  auto band = [](std::string name, std::vector<std::string> links, std::vector<Vec3> points) {
    RobotBand b;
    b.name = std::move(name);
    b.links = std::move(links);
    b.points = std::move(points);
    b.stiffness = 197.8;
    return b;
  };
  return {
      band("bandA_R",
           {"WAIST_R_S", "WAIST_R_S", "WAIST_R_S", "WAIST_R_S", "PELVIS_S", "PELVIS_S", "L_HIP_Y_S", "L_HIP_Y_S"},
           {{-0.10, -0.15, 0.38}, {-0.11, -0.10, 0.28}, {-0.12, -0.05, 0.17}, {-0.12, 0.0, 0.07},
            {-0.13, 0.04, 0.12}, {-0.12, 0.09, -0.02}, {-0.09, 0.0, -0.10}, {-0.08, 0.0, -0.25}}),
      band("bandA_L",
           {"WAIST_R_S", "WAIST_R_S", "WAIST_R_S", "WAIST_R_S", "PELVIS_S", "PELVIS_S", "R_HIP_Y_S", "R_HIP_Y_S"},
           {{-0.10, 0.15, 0.38}, {-0.11, 0.10, 0.28}, {-0.12, 0.05, 0.17}, {-0.12, 0.0, 0.07},
            {-0.13, -0.04, 0.12}, {-0.12, -0.09, -0.02}, {-0.09, 0.0, -0.10}, {-0.08, 0.0, -0.25}}),
      band("bandB_R", {"PELVIS_S", "WAIST_R_S", "WAIST_R_S", "WAIST_R_S", "WAIST_R_S"},
           {{-0.13, -0.03, 0.14}, {-0.11, -0.10, 0.06}, {-0.02, -0.14, 0.09}, {0.09, -0.11, 0.13},
            {0.12, -0.04, 0.16}}),
      band("bandB_L", {"PELVIS_S", "WAIST_R_S", "WAIST_R_S", "WAIST_R_S", "WAIST_R_S"},
           {{-0.13, 0.03, 0.14}, {-0.11, 0.10, 0.06}, {-0.02, 0.14, 0.09}, {0.09, 0.11, 0.13},
            {0.12, 0.04, 0.16}}),
  };
}

}  // namespace suitsim::testing
