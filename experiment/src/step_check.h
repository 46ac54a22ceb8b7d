// The step check over every element that bounds an explicit step
// (servo_stability.h's StepLimit): the ground's springs and dampers, the
// hinges' constraint stabilisation, the joint limits, the gears, the link
// springs and the scene's own springs, each named with its scene line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "suitsim/scene/scene.h"
#include "suitsim/servo_stability.h"

namespace suitsim::experiment {

/// The element with the largest certain share of omega dt / bound
/// (StepLimit::certainFraction), or none.
std::optional<StepLimit> fastestStepLimit(const io::Scene& scene);

/// The element in words, with its line in the scene and its numbers at dt:
/// "the <ground> (line 4: stiffness 1e+05 N/m, damping 1e+09 N s/m; its
/// damping sets the bound) has omega dt = 2e+05 at dt = 0.001 s, past its
/// bound 1e-05".
std::string describeStepLimit(const io::Scene& scene, const StepLimit& limit, double dt);

/// Before anything runs: the ground and the constraints' stabilisation
/// certainly past their bound diverge whatever else the scene does, so the
/// run is refused (SceneError at the element's line). Any element at half
/// its bound or more by its upper estimate is warned of (the springs',
/// joint limits' and the ground's on one body are upper bounds). Gears and
/// link springs are refused by their own checks (trials.cpp).
void checkStepLimits(const io::Scene& scene, const io::SimulationSettings& sim, const std::string& scene_path,
                     std::vector<std::string>* warnings);

}  // namespace suitsim::experiment
