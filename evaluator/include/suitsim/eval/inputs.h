// Everything the evaluator may know about an experiment, and nothing else:
// the a-priori ("CAD") robot, where the sensors are mounted, what each trial
// did (motion, suit worn, loads held), how the suit's bands are routed as
// designed, and the evaluation settings the scene declares. The types below
// have no field for a true parameter (band stiffness or natural length, the
// robot's true masses or frictions), so no loader can hand the truth to the
// evaluator through them: that is the firewall between the simulator and
// the evaluator (scoring reads the truth separately, report/truth.h).
#pragma once

#include <string>
#include <vector>

#include "suitsim/eval/balance.h"
#include "suitsim/eval/identification.h"
#include "suitsim/eval/streams.h"
#include "suitsim/eval/wires.h"
#include "suitsim/robot.h"

namespace suitsim::eval {

/// One trial as the experimenter ran it (A §5).
struct TrialInfo {
  std::string name;     ///< names the trial's stream directory
  std::string motion;   ///< reference motion
  std::string suit;     ///< suit worn, "none" without
  std::string purpose;  ///< "identification" or "evaluation"
  int line = 0;         ///< line of its <trial> in the scene
  std::vector<HeldLoad> held;   ///< known loads held during the motion
  std::vector<BandRoute> bands; ///< the suit as designed (routing only), empty without a suit
  /// Joints the band fit uses for this motion, as the scene declares them
  /// (empty: derived, see suit_fit.h).
  std::vector<std::string> fit_joints;
};

struct EvaluationInputs {
  std::string scene_path;
  std::string scene_name;
  RobotDescription apriori;     ///< the a-priori robot (never the true one)
  SensorLayout layout;          ///< sensor mounting, link frames
  /// Where the robot touches the ground, as designed (the scene's <contact>
  /// points, frames of makeRigidModel(apriori)): the soles' corners.
  std::vector<ContactPoint> soles;
  double sensor_rate_hz = 0.0;
  std::vector<TrialInfo> trials;  ///< every trial of the experiment (one unnamed for a plain scene)
  /// Joints the validation reports (A §5.2), as declared; empty: derived.
  std::vector<std::string> validation_joints;
};

}  // namespace suitsim::eval
