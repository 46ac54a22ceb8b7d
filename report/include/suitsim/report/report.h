// Rendering an evaluation: identification.json, report.json, report.md, the
// supporting-torque curves as CSV and the plots. Everything here reads an
// EvaluationResult (the evaluator's output) and, for the scoring columns, a
// Score (scoring.h); nothing is computed from the streams again.
//
// Scoring fields (what changes when only the truth in a scene changes) are
// named so a reader can tell them apart: JSON keys that start with "true_",
// "relative_error", "supporting_torque_rmse"; CSV columns "<joint>.model".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suitsim/eval/evaluation.h"
#include "suitsim/eval/log_streams.h"
#include "suitsim/eval/remedies.h"
#include "suitsim/scene/scene.h"
#include "suitsim/report/scoring.h"

namespace suitsim::report {

/// How the evaluation was run (report headers and settings).
struct RunInfo {
  std::string scene_path;
  std::string noise = "scene";     ///< "on", "off" or "scene"
  std::string stribeck = "scene";  ///< "off" or "scene"
  io::Realism realism;             ///< the error sources the truth had (docs/realism.md)
  std::string streams_dir;         ///< non-empty: streams read from here instead of simulated
  std::string suit_geometry = "designed";  ///< the wire model's via points: "designed" or "measured"
  std::string band_model = "elastic";      ///< A(26)'s band model: "elastic", "viscoelastic", "capstan" or "viscoelastic-capstan"
  std::string straps = "ignored";          ///< the bands' straps: "ignored" or "corrected" (band_attachments.h)
  /// "auto": the remedies were chosen by what the streams and the a-priori
  /// set support (remedies.h), each listed with why; "none": as the single
  /// options set them (nothing is listed).
  std::string remedies = "none";
  std::vector<eval::RemedyChoice> remedy_choices;
  std::size_t num_trials = 0;
  double simulation_wall_s = 0.0;
  double wall_s = 0.0;
};

/// `value` with `digits` significant digits, without an exponent for
/// magnitudes from 1e-4 to 1e6: a 5 kg robot's 0.0123 N m prints as 0.0123,
/// not 0.01 or 0.00.
std::string formatSig(double value, int digits = 3);

/// identification.json: estimates, a-priori values, relative stds,
/// validation, settings.
nlohmann::ordered_json identificationJson(const eval::IdentificationOutcome& id, const std::string& scene_name,
                                          const eval::PipelineOptions& options);

/// identification.json's "log" (a robot's own logs, docs/logs.md): the
/// map, each trial's file, segment, rate and dropped samples, and every
/// step from the log to the identification's samples.
nlohmann::ordered_json logJson(const eval::LogReading& logs);

/// Human-readable lines: mass, determined parameters, validation.
std::string identificationSummary(const eval::IdentificationOutcome& id);

/// A group's correlations (eval::GroupEstimate::correlations) as
/// [{"parameter", "r"}], strongest first.
nlohmann::ordered_json correlationsJson(const std::vector<eval::ParameterCorrelation>& correlations);

/// identification.json's "band_fits": per suit, method and group, what its
/// k trades with in the fit that decided it (parameter_correlation.h).
nlohmann::ordered_json bandFitsJson(const eval::EvaluationResult& result);

/// report.json (today's keys kept; scoring keys as in the header note).
nlohmann::ordered_json reportJson(const eval::EvaluationResult& result, const Score& score, const RunInfo& run,
                                  const nlohmann::ordered_json& identification, const std::vector<std::string>& plots);

/// report.md: the paper's tables 2 and 3 for this robot, the curve RMSEs,
/// which joints were fitted and validated and why, and the plots.
std::string reportMarkdown(const eval::EvaluationResult& result, const Score& score, const RunInfo& run,
                           const std::vector<std::string>& plots, const std::string& plot_note);

/// DIR/<motion>_<suit>.csv per curve set: time, then per joint its angle,
/// each method's estimate, the model curve (scoring) and a rest flag.
/// Throws Stopped (core/stop.h) on a stop request and std::runtime_error
/// (writeFailure's words) when a file cannot be written.
void writeCurves(const std::filesystem::path& dir, const eval::EvaluationResult& result, const Score& score);

/// One PNG per motion (A Figs. 12-13) from the curve CSVs in `curves_dir`,
/// drawn by `script` (scripts/plot_support.py) with the python interpreter
/// started directly (no shell). Returns the PNG file names written into
/// `out_dir`; on failure `note` says why (the report then has no plots).
/// Throws as runPythonScript does.
std::vector<std::string> writePlots(const std::filesystem::path& out_dir, const std::filesystem::path& curves_dir,
                                    const eval::EvaluationResult& result, const std::filesystem::path& script,
                                    std::string* note);

/// Where plot_support.py is for the program at `exe`: beside it (the build
/// tree copies it there) or in ../share/suitsim (an installed tree). Empty
/// when neither exists.
std::filesystem::path findPlotScript(const std::filesystem::path& exe);

/// A helper script `name` beside the program `exe` or in
/// ../share/suitsim (installed); empty when neither has it.
std::filesystem::path findScript(const std::filesystem::path& exe, const std::string& name);

/// Runs Debian's python3 on `script` with `args` (an argument vector, no
/// shell), its output into a log in `log_dir` that is removed afterwards.
/// False with `note` saying why (and the script's last line) when it fails.
/// Throws Stopped (core/stop.h) when a stop was asked for while it ran (the
/// script is ended) or the script died of SIGINT or SIGTERM, and
/// std::runtime_error when it reached the file-size limit (SIGXFSZ, or
/// EFBIG in Python's words).
bool runPythonScript(const std::filesystem::path& script, const std::vector<std::string>& args,
                     const std::filesystem::path& log_dir, std::string* note);

}  // namespace suitsim::report
