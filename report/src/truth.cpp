#include "suitsim/report/truth.h"

#include "suitsim/io/scene.h"

namespace suitsim::report {

Truth loadTruth(const std::string& scene_path) {
  Truth truth;
  std::vector<io::TrialSpec> trials = io::listTrials(scene_path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  for (const io::TrialSpec& t : trials) {
    const io::Scene scene = io::loadScene(scene_path, t.name);
    if (!scene.robot) continue;
    truth.bands[t.name] = scene.robot->bands;
    if (t.purpose == "identification" || truth.total_mass == 0.0) truth.total_mass = scene.robot->truth.totalMass();
  }
  return truth;
}

}  // namespace suitsim::report
