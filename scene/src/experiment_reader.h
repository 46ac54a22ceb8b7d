// A scene's <experiment>: its trials, and the evaluation settings it gives.
// Private to the scene library.
#pragma once

#include <string>
#include <vector>

#include <tinyxml2.h>

#include "suitsim/scene/scene.h"

namespace suitsim::io {

/// The <trial>s of the scene's <experiment>, in file order (none without one).
std::vector<TrialSpec> readTrials(const std::string& path, const tinyxml2::XMLElement* root);
/// <experiment><evaluation>.
EvaluationSpec readEvaluationSpec(const std::string& path, const tinyxml2::XMLElement* root);
/// Every joint named for the evaluation must be a joint of the robot.
void checkEvaluationJoints(const std::string& path, const RobotDescription& robot, const std::vector<std::string>& joints,
                           int line, const char* element, const char* attribute);
/// Whether a band of that name is in some <suit>.
bool bandOfSomeSuit(const tinyxml2::XMLElement* root, const std::string& band);

}  // namespace suitsim::io
