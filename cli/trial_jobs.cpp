#include "trial_jobs.h"

#include <cstdio>
#include <stdexcept>

#include "suitsim/scene/scene.h"

namespace suitsim::cli {

int prepareJobs(const std::string& scene, const std::string& trial, const io::SceneOverrides& overrides,
                const std::filesystem::path& out, bool quiet,
                const std::function<int(const std::string&)>& usage_error, std::vector<experiment::TrialJob>* jobs) {
  std::vector<std::string> warnings;
  try {
    *jobs = experiment::prepareTrials(scene, trial, overrides, out, quiet ? nullptr : &warnings);
  } catch (const io::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what());
  }
  for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return 0;
}

experiment::TrialDone trialReporter(bool quiet) {
  if (quiet) return {};
  return [](const experiment::TrialJob& job, int done, int n) {
    std::fprintf(stderr, "[%d/%d] trial %s: %s%s\n", done, n, job.scene.trial.name.c_str(),
                 job.ok ? "done" : "FAILED: ", job.error.c_str());
    for (const std::string& w : job.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  };
}

}  // namespace suitsim::cli
