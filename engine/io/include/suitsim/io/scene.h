// Reading scene files: the XML that names an integrator, a time step, the
// world and its bodies, and what to record. See README.md for the format.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "suitsim/model.h"
#include "suitsim/recorder.h"

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

struct Scene {
  std::string path;   ///< the file it was read from
  std::string name;   ///< the scene's name attribute, or the file's stem
  Model model;
  SimulationSettings simulation;
  std::vector<ChannelSpec> channels;  ///< what `suitsim run` records
};

/// Reads and validates a scene. Throws SceneError naming file and line.
Scene loadScene(const std::string& path);

}  // namespace suitsim::io
