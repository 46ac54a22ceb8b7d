// Reading scene files: the XML that names an integrator, a time step, the
// world and its bodies, and what to record. See README.md for the format.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <optional>

#include "suitsim/articulated.h"
#include "suitsim/model.h"
#include "suitsim/recorder.h"
#include "suitsim/robot.h"
#include "suitsim/sensors.h"
#include "suitsim/servo.h"

namespace suitsim::io {

/// A bad scene file. what() is "path:line: <element> problem (got value)".
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimulationSettings {
  Integrator integrator = Integrator::kVelocityVerlet;
  double dt = 1e-3;          ///< time step (s)
  double duration = 1.0;     ///< simulated time (s)
  double output_rate = 100;  ///< samples per second written to the stream (Hz)
  int threads = 0;           ///< OpenMP threads; 0 means one per core
};

/// A robot in a scene: the two parameter sets and how it is driven.
struct RobotSetup {
  RobotDescription truth;    ///< what the engine simulates (URDF + scene additions)
  RobotDescription apriori;  ///< what an evaluator starts from (the "CAD" set)
  CompiledRobot compiled;    ///< where the truth went in the particle model
  bool has_servo = false;
  std::vector<ServoGains> gains;  ///< per hinge
  double servo_rate = 1000.0;     ///< (Hz)
  Motion motion;                  ///< reference for the servo (empty: hold the initial pose)
  /// The suit's bands, A(21)-(25), as the truth has them: via points as (link,
  /// point in link frame), true stiffness, natural length resolved (auto: the
  /// initial length). The a-priori set has no bands: the evaluator identifies
  /// them, A(26). Model band index of bands[k]: compiled.band[k].
  std::vector<RobotBand> bands;
  /// Description link of each contact point, in the order of
  /// compiled.contact_point (the scene's <contact link=...> elements).
  std::vector<int> contact_link;
  /// The robot's <sensors>, resolved to model indices (see sensors.h); empty
  /// when the scene has none.
  std::optional<SensorSpec> sensors;
};

struct Scene {
  std::string path;   ///< the file it was read from
  std::string name;   ///< the scene's name attribute, or the file's stem
  Model model;
  SimulationSettings simulation;
  std::vector<ChannelSpec> channels;  ///< what `suitsim run` records
  std::optional<RobotSetup> robot;    ///< the scene's robot, if it has one
};

/// Reads and validates a scene. Throws SceneError naming file and line.
Scene loadScene(const std::string& path);

}  // namespace suitsim::io
