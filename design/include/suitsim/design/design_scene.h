// The scene `suitsim design-motions` writes: the input scene with its
// identification trials replaced by the chosen motions, evaluable as it is
// by `suitsim evaluate`. Generated motions are written as <keyframe>
// elements (the exact minimum-jerk reference that was checked), motions
// from CSV files by their file. File names of the input scene keep their
// meaning through the root's relative_to, as sweeps do (scene-format.md).
#pragma once

#include <string>
#include <vector>

#include "suitsim/design/candidates.h"

namespace suitsim::design {

/// A motion whose source is "scene" (candidateFromSetup, named as the
/// scene's <motion>) keeps its element; the trial names it.
struct DesignedTrial {
  std::string name;                   ///< the trial's and its motion's name
  const CandidateMotion* motion = nullptr;
  std::string file;                   ///< non-empty: the motion's CSV file (absolute path) instead of keyframes
};

/// Which of the input's trials stay beside the designed ones.
enum class KeepTrials {
  kEvaluation,      ///< the evaluation trials (the scene `design-motions` writes)
  kIdentification,  ///< the identification trials only (the curriculum's iteration 0)
  kNone,            ///< none (the curriculum's working scenes)
};

/// The XML text of the new scene. `joint_names`: the rigid model's (q
/// order). Throws std::invalid_argument when the scene cannot be read or has
/// no <robot> or <experiment>.
std::string designScene(const std::string& scene_path, const std::vector<DesignedTrial>& trials,
                        const std::vector<std::string>& joint_names, KeepTrials keep);

/// "time,<joint>,..." and one row per `dt` (s) of the candidate's reference:
/// the motion as a CSV a scene's <motion file> (or --motions) reads back.
std::string motionCsv(const CandidateMotion& motion, const std::vector<std::string>& joint_names, double dt);

}  // namespace suitsim::design
