// The summary of a sweep, made from DIR/results.csv alone (so it can be
// rebuilt after the fact, or from a table gathered elsewhere): summary.md
// with, per approach and group, the error's distribution over all points
// and against each varied parameter (mean, spread over seeds and the other
// parameters, share within 1 %), and plots drawn by scripts/plot_sweep.py.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace suitsim::sweep {

struct SummaryFiles {
  std::vector<std::string> pngs;  ///< file names under DIR
  std::string note;               ///< why plots were skipped, when they were
};

/// Draws DIR/<prefix>*.png with `plot_script` (python3) reading `input`,
/// after removing the old ones (a rebuilt summary shows only what this
/// table makes), and lists them. An empty script: none drawn, the note says
/// that `script_name` was not found.
SummaryFiles drawPlots(const std::filesystem::path& out, const std::string& prefix,
                       const std::filesystem::path& plot_script, const std::string& script_name,
                       const std::filesystem::path& input);

/// The summary's plots section: the images, or why there are none.
std::string plotsMarkdown(const SummaryFiles& files);

/// Reads DIR/results.csv and writes DIR/summary.md, and with `plots` the
/// plots by `plot_script` (empty: not found, which the summary says). Throws std::runtime_error for a missing or
/// malformed table or a file it cannot write.
SummaryFiles writeSummary(const std::filesystem::path& out, bool plots, const std::filesystem::path& plot_script);

}  // namespace suitsim::sweep
