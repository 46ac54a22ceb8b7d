// What `suitsim run` and `suitsim evaluate` share around the experiment
// library: preparing the trials with the command line's error reporting, and
// the line each finished trial prints.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "suitsim/experiment/trials.h"

namespace suitsim::cli {

/// experiment::prepareTrials; a bad scene prints "error: ..." and returns 2,
/// overrides that do not fit it go to `usage_error` (which prints the usage
/// and returns 2), warnings are printed unless `quiet`. 0 on success.
int prepareJobs(const std::string& scene, const std::string& trial, const io::SceneOverrides& overrides,
                const std::filesystem::path& out, bool quiet,
                const std::function<int(const std::string&)>& usage_error, std::vector<experiment::TrialJob>* jobs);

/// "[k/n] trial NAME: done" (or FAILED and why) on stderr, unless `quiet`.
experiment::TrialDone trialReporter(bool quiet);

}  // namespace suitsim::cli
