// The evaluator's loader: reads a scene and keeps what EvaluationInputs can
// hold (inputs.h). It is the only way from a scene file into the evaluator,
// and its result type has no field for a true parameter.
#pragma once

#include <string>

#include "suitsim/eval/inputs.h"

namespace suitsim::eval {

/// Builds the inputs of every trial of the scene's experiment (one unnamed
/// trial for a plain scene). Throws io::SceneError for a bad scene ("path:line:
/// ..."), std::invalid_argument when the scene has no robot or the robot has
/// no sensors or no IMU.
EvaluationInputs loadEvaluationInputs(const std::string& scene_path);

}  // namespace suitsim::eval
