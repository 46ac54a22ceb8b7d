// The checks of a trial as it will run, before anything runs: a servo the
// step cannot hold (servo_stability.h), the servo and friction on the whole
// joint tree, compliant gears and spring links past their explicit bound;
// and, when a run diverges all the same, the message that names the likely
// cause. Private to the experiment library (trials.cpp); the step check
// over every stiff element is step_check.h.
#pragma once

#include <string>
#include <vector>

#include "suitsim/scene/scene.h"

namespace suitsim::experiment {

/// Why a run diverged at `time`, as far as the checks can tell.
std::string divergenceMessage(const io::Scene& scene, const io::SimulationSettings& sim, double time,
                              const std::string& runaway = {});

/// Refuses (SceneError at the <servo>'s line) a joint whose held derivative
/// gain certainly diverges; warns of one that may only lag (once per joint:
/// `warned` holds the hinges warned of).
void refuseDivergingServo(const io::Scene& scene, const io::SimulationSettings& sim, const std::string& scene_path,
                          std::vector<std::string>* warnings, std::vector<int>* warned);

/// Warns of coupled modes of the servo and friction on the whole tree that grow.
void warnGrowingJointSpace(const io::Scene& scene, const io::SimulationSettings& sim,
                           std::vector<std::string>* warnings);

/// Refuses spring links past their bound at dt; warns of a servo period not
/// long against them.
void refuseUnstableLinks(const io::Scene& scene, const io::SimulationSettings& sim, const std::string& scene_path,
                         std::vector<std::string>* warnings);

}  // namespace suitsim::experiment
