#include "suitsim/eval/evaluation.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "suitsim/core/stop.h"
#include "parallel_for.h"

namespace suitsim::eval {

namespace {

// Every evaluation trial that wears what `wears` picks, with the trial of
// the same motion that wears nothing.
std::vector<TrialPair> pairWith(const EvaluationInputs& inputs, bool devices) {
  std::vector<TrialPair> pairs;
  for (const TrialInfo& w : inputs.trials) {
    if (w.purpose != "evaluation" || (devices ? w.device == "none" : w.suit == "none")) continue;
    // The same motion wearing nothing: an evaluation trial, or else (for a
    // device) an identification trial of that motion, which is one too.
    auto bare = std::find_if(inputs.trials.begin(), inputs.trials.end(), [&](const TrialInfo& b) {
      return b.purpose == "evaluation" && wearsNothing(b) && b.motion == w.motion;
    });
    if (bare == inputs.trials.end() && devices) {
      bare = std::find_if(inputs.trials.begin(), inputs.trials.end(),
                          [&](const TrialInfo& b) { return wearsNothing(b) && b.motion == w.motion; });
    }
    if (bare == inputs.trials.end()) {
      throw std::invalid_argument(inputs.scene_path + ":" + std::to_string(w.line) + ": trial '" + w.name +
                                  "' has no trial of motion '" + w.motion + "' without the " +
                                  (devices ? "device" : "suit") + " (approach A, A(3), needs one)");
    }
    pairs.push_back({&*bare, &w});
  }
  return pairs;
}

}  // namespace

std::vector<TrialPair> pairTrials(const EvaluationInputs& inputs) {
  std::vector<TrialPair> pairs = pairWith(inputs, false);
  if (pairs.empty() && pairWith(inputs, true).empty()) {
    throw std::invalid_argument(inputs.scene_path +
                                ": the experiment has no evaluation trial with a suit or a device: nothing to evaluate");
  }
  return pairs;
}

std::vector<TrialPair> pairDeviceTrials(const EvaluationInputs& inputs) { return pairWith(inputs, true); }

EvaluationResult evaluateStreams(const EvaluationInputs& inputs, const std::filesystem::path& streams_dir,
                                 const EvaluationOptions& options) {
  const std::vector<TrialPair> pairs = pairTrials(inputs);
  EvaluationResult out;
  out.scene_name = inputs.scene_name;
  out.identification = identifyFromStreams(inputs, streams_dir, options.pipeline);
  throwIfStopped();
  const RigidModel& model = out.identification.model;
  for (const std::string& j : options.band_joints) {
    if (jointIndex(model, j) < 0) throw std::invalid_argument("band joint '" + j + "' is no movable joint of the robot");
  }
  // Trial pairs, suits and balance trials are independent of one another:
  // each runs on a thread of its own (parallel_for.h).
  const int threads = options.pipeline.identification.threads;
  out.curves.resize(pairs.size());
  detail::parallelFor(static_cast<int>(pairs.size()), threads, [&](int k) {
    const TrialPair& p = pairs[static_cast<std::size_t>(k)];
    out.curves[static_cast<std::size_t>(k)] =
        supportCurves(inputs, out.identification, *p.bare, *p.worn, streams_dir, options.pipeline);
  });
  // Suits in the order they are first worn; each fitted on all its motions.
  std::vector<std::string> suits;
  for (const TrialPair& p : pairs) {
    if (std::find(suits.begin(), suits.end(), p.worn->suit) == suits.end()) suits.push_back(p.worn->suit);
  }
  std::vector<std::optional<SuitGeometry>> geometries(suits.size());
  std::vector<SuitFit> fits(suits.size());
  detail::parallelFor(static_cast<int>(suits.size()), threads, [&](int si) {
    const std::string& suit = suits[static_cast<std::size_t>(si)];
    std::vector<const SupportCurves*> mine;
    std::vector<FitJoints> fit_joints;
    const std::vector<BandRoute>* routes = nullptr;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      if (pairs[k].worn->suit != suit) continue;
      routes = &pairs[k].worn->bands;
      mine.push_back(&out.curves[k]);
    }
    if (options.suit_geometry == SuitGeometrySource::Measured) {
      // The suit as worn, from its bands' logged lengths in every trial
      // that wears it (suit_geometry.h); the fit below uses it.
      std::vector<std::string> channels;
      for (const BandRoute& b : *routes) channels.push_back(b.name + ".length");
      // The joint angles are read as the rest of the evaluation reads them
      // (the logger's delays and the gears' twist taken out when those
      // remedies are on): with motor-side encoders the raw readings carry
      // the twist, and a geometry fitted to them moved the via points to
      // match it (JVRC-1's realistic budget: type A +5 % instead of +1 %).
      std::vector<Eigen::MatrixXd> angles, lengths;
      for (const TrialPair& p : pairs) {
        if (p.worn->suit != suit) continue;
        const SensorStream s = loadStream(inputs, model, *p.worn, streams_dir, options.pipeline, channels);
        angles.push_back(jointAnglesBehindGears(s, conditioningFor(inputs, model, s, options.pipeline)));
        lengths.push_back(s.extra);
      }
      geometries[static_cast<std::size_t>(si)] = measureSuitGeometry(model, suit, *routes, angles, lengths);
      routes = &geometries[static_cast<std::size_t>(si)]->routes;
    }
    const std::vector<WireGeometry> wires = makeWireGeometries(model, *routes);
    for (std::size_t k = 0, m = 0; k < pairs.size(); ++k) {
      if (pairs[k].worn->suit != suit) continue;
      const std::vector<std::string>& declared =
          options.band_joints.empty() ? pairs[k].worn->fit_joints : options.band_joints;
      FitJoints f = chooseFitJoints(model, wires, *mine[m++], declared);
      if (!options.band_joints.empty()) f.reason = "given on the command line (--band-joints)";
      fit_joints.push_back(std::move(f));
    }
    fits[static_cast<std::size_t>(si)] = fitSuit(model, suit, *routes, mine, fit_joints, options.band_model);
    if (options.straps == Straps::Corrected) {
      if (!(inputs.attachment_stiffness > 0.0)) {
        throw std::invalid_argument("the straps' correction needs their measured stiffness (<apriori attachment_stiffness>)");
      }
      correctForAttachments(fits[static_cast<std::size_t>(si)], inputs.attachment_stiffness);
    }
  });
  for (std::size_t si = 0; si < suits.size(); ++si) {
    if (geometries[si]) out.suit_geometry.push_back(std::move(*geometries[si]));
    out.suits.push_back(std::move(fits[si]));
  }
  // Powered devices: supporting torque by approaches A and B, and the
  // controller's settings from the device's own logs (device_evaluation.h).
  const std::vector<TrialPair> device_pairs = pairDeviceTrials(inputs);
  for (const DeviceDesign& d : inputs.devices) {
    throwIfStopped();  // Ctrl-C or SIGTERM (core/stop.h)
    std::vector<TrialPair> mine;
    for (const TrialPair& p : device_pairs) {
      if (p.worn->device == d.name) mine.push_back(p);
    }
    if (!mine.empty()) out.devices.push_back(evaluateDevice(inputs, out.identification, d, mine, streams_dir, options.pipeline));
  }
  // The wearer's balance, trial by trial (seed 003 (11)-(15)): every
  // trial, identification trials too (issue 41: a squat that rocked the
  // robot while it was being identified went unseen).
  if (!inputs.soles.empty() && !inputs.layout.force_sensors.empty()) {
    std::vector<const TrialInfo*> trials;
    for (const TrialInfo& t : inputs.trials) trials.push_back(&t);
    out.balance.resize(trials.size());
    detail::parallelFor(static_cast<int>(trials.size()), threads, [&](int k) {
      const TrialInfo& t = *trials[static_cast<std::size_t>(k)];
      const SensorStream s = readTrialStream(inputs, model, t, streams_dir, options.pipeline);
      BalanceEstimate& b = out.balance[static_cast<std::size_t>(k)];
      b = estimateBalance(model, inputs.layout, s, inputs.soles, t.held, options.balance);
      b.trial = t.name;
      b.motion = t.motion;
      b.suit = t.suit;
      b.device = t.device;
      b.purpose = t.purpose;
    });
  }
  return out;
}

}  // namespace suitsim::eval
