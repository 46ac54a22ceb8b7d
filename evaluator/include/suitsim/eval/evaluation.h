// The paper's evaluation from the streams of an experiment, A §5: identify
// the robot, extract the suit's supporting torque by approaches A and B
// (with the identified and with the a-priori model), identify the bands of
// every suit. The result is plain data; report/ renders and scores it. No
// input of this library can carry a true parameter (inputs.h).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "suitsim/eval/balance_estimate.h"
#include "suitsim/eval/band_attachments.h"
#include "suitsim/eval/device_evaluation.h"
#include "suitsim/eval/inputs.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/eval/suit_fit.h"
#include "suitsim/eval/suit_geometry.h"
#include "suitsim/eval/supporting_torque.h"

namespace suitsim::eval {

struct EvaluationOptions {
  PipelineOptions pipeline;
  /// Fit joints for every motion, overriding the scene's and the derived
  /// choice (the CLI's --band-joints); empty: as the scene says, or derived.
  std::vector<std::string> band_joints;
  BalanceEstimateOptions balance;  ///< the wearer's balance (balance_estimate.h)
  /// The via points of the wire model: as designed, or fitted to the bands'
  /// logged lengths first (suit_geometry.h; needs <band_lengths> sensors).
  SuitGeometrySource suit_geometry = SuitGeometrySource::Designed;
  /// A(26)'s band model: A(25) as the paper, or standard linear solids
  /// (band_relaxation.h) for bands that relax.
  BandModel band_model = BandModel::Elastic;
  /// The straps at the bands' ends: ignored (the worn stiffness is the
  /// band's, as the paper), or corrected with the straps' measured stiffness
  /// (band_attachments.h; needs EvaluationInputs::attachment_stiffness).
  Straps straps = Straps::Ignored;
};

/// Pairs every evaluation trial with a suit with the trial of the same motion
/// that wears nothing. Throws std::invalid_argument ("scene:line: ...") for
/// a suit trial without its bare trial, or an experiment with no trial that
/// wears a suit or a device.
std::vector<TrialPair> pairTrials(const EvaluationInputs& inputs);
/// The same for the trials with a powered device (none: empty).
std::vector<TrialPair> pairDeviceTrials(const EvaluationInputs& inputs);

struct EvaluationResult {
  std::string scene_name;
  IdentificationOutcome identification;
  std::vector<SupportCurves> curves;  ///< one per TrialPair, pairTrials order
  std::vector<SuitFit> suits;         ///< per suit, in the order suits are first worn
  /// Per suit, same order, with SuitGeometrySource::Measured (empty otherwise).
  std::vector<SuitGeometry> suit_geometry;
  /// The wearer's balance in every evaluation trial, scene order (empty for
  /// a robot without force sensors or contact points).
  std::vector<BalanceEstimate> balance;
  /// Per worn device (EvaluationInputs::devices order, those some trial wears).
  std::vector<DeviceEvaluation> devices;
};

/// The whole evaluation from the streams in `streams_dir` (one directory per
/// trial, as experiment/trials.h writes them). Throws StreamError for bad
/// streams and std::invalid_argument for an experiment it cannot evaluate.
/// Its loops (streams read, the identification's and the band fits'
/// iterations, each trial and suit) poll the stop request and throw Stopped
/// (suitsim/core/stop.h) within a fraction of a second of Ctrl-C or SIGTERM.
EvaluationResult evaluateStreams(const EvaluationInputs& inputs, const std::filesystem::path& streams_dir,
                                 const EvaluationOptions& options = {});

}  // namespace suitsim::eval
