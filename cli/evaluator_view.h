// What the evaluator may know about an experiment, taken from a scene: the
// a-priori ("CAD") robot, where the sensors are mounted, how the suit's
// bands are routed (not their stiffness or natural length), which trials
// exist and what each held. Never the true parameters: the evaluator's
// results must not change when only the truth in the scene changes.
#pragma once

#include <string>
#include <vector>

#include "suitsim/eval/identification.h"
#include "suitsim/eval/streams.h"
#include "suitsim/io/scene.h"
#include "suitsim/robot.h"

namespace suitsim::cli {

struct TrialView {
  io::TrialSpec spec;
  std::vector<eval::HeldLoad> held;
  /// Band routes of the suit worn (stiffness and natural length cleared).
  std::vector<RobotBand> band_routes;
};

struct EvaluatorView {
  std::string scene_path;
  std::string scene_name;
  RobotDescription apriori;
  eval::SensorLayout layout;
  double sensor_rate_hz = 0.0;
  std::vector<TrialView> trials;  ///< every trial of the experiment (one unnamed for a plain scene)
};

/// Builds the view. Throws io::SceneError for a bad scene, std::invalid_argument
/// when the scene has no robot or its robot has no sensors.
EvaluatorView loadEvaluatorView(const std::string& scene_path);

}  // namespace suitsim::cli
