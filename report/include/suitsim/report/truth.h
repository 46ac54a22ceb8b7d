// What the simulator knows and the evaluator must recover: read from the
// scene for scoring only. Nothing under evaluator/ includes this header.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "suitsim/articulated.h"

namespace suitsim::report {

struct Truth {
  /// The true robot's total mass in the identification trials (kg).
  double total_mass = 0.0;
  /// Per trial name: the bands as simulated (true stiffness, resolved natural length).
  std::map<std::string, std::vector<RobotBand>> bands;
};

/// Reads the truth of every trial of the scene (throws io::SceneError).
Truth loadTruth(const std::string& scene_path);

}  // namespace suitsim::report
