// `suitsim evaluate SCENE --out DIR`: the whole evaluation of A §5 on one
// command. Runs every trial of the experiment (parallel across trials),
// identifies the robot from the identification trials, extracts the suit's
// supporting torque by approaches A and B (and with the a-priori model),
// identifies the band stiffness from each, and scores everything against
// the simulator's truth. Writes DIR/report.md, DIR/report.json,
// DIR/identification.json, DIR/curves/*.csv, DIR/*.png and keeps the trial
// streams in DIR/trials/.
//
// The estimation steps see only the EvaluatorView and the sensor streams;
// the truth (band stiffness, natural lengths) is read from the scene only to
// score, and only in this file.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "evaluate.h"
#include "evaluator_view.h"
#include "identify.h"
#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/wires.h"
#include "trials.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

int usageError(const std::string& message) {
  std::fprintf(stderr, "suitsim evaluate: %s\n", message.c_str());
  std::fprintf(stderr,
               "usage: suitsim evaluate SCENE --out DIR [--noise on|off] [--stribeck on|off] [--threads N] "
               "[--streams DIR] [--band-joints J1,J2] [--rest-rows exclude|sign-rule] [--no-plots] [--quiet]\n");
  return 2;
}

struct EvaluateOptions {
  std::string scene, out;
  SimulationOverrides overrides;
  bool quiet = false;
  bool plots = true;
  std::string streams;  // evaluate existing streams instead of simulating
  std::vector<std::string> band_joints;  // joints A(26) fits on (empty: chosen from the routes)
  eval::IdentificationOptions::RestRows rest_rows = eval::IdentificationOptions::RestRows::Excluded;
};

// A joint moves (its friction is known from its rate) above this (rad/s):
// beyond the Stribeck drop and well above the rate noise of the filtered
// encoders.
constexpr double kMovingSpeed = 0.05;

double rms(const Eigen::MatrixXd& x) {
  return x.size() ? std::sqrt(x.squaredNorm() / static_cast<double>(x.size())) : 0.0;
}

// Bands in one stiffness group share k (A §5.4): the group the suit
// declares, a group of its own when it declares none.
std::string stiffnessGroupOf(const RobotBand& band) { return band.group.empty() ? band.name : band.group; }

struct SuitBandResult {
  std::vector<std::string> joints;          // joints the fit used
  eval::BandIdentificationResult result;
};

// Joints to identify the bands from: those a band acts on (its length
// changes by more than 2 cm per radian of the joint somewhere in the
// motions) that lie on no path from the base link to a foot. A(3) assumes
// the ground pushes the same way with and without the suit; on a leg joint
// the suit shifts load between the feet and the contact term of that
// joint's row, which approach A leaves out, changes with it. The waist
// joints see no contact force at all.
std::vector<std::string> suitJoints(const eval::RigidModel& model, const std::vector<eval::WireGeometry>& wires,
                                    const Eigen::MatrixXd& angles, const eval::SensorLayout& layout) {
  std::set<int> contact_chain;  // joint indices between the base and a force sensor
  for (const eval::SensorMount& m : layout.force_sensors) {
    const int f = eval::frameIndex(model, m.link);
    for (int b = f >= 0 ? model.frame_body[f] : 0; b > 0; b = model.body_parent[b]) contact_chain.insert(b - 1);
  }
  const eval::WireSamples all = eval::sampleWires(model, wires, angles, model.joint_name);
  std::vector<std::string> joints;
  for (int j = 0; j < all.numJoints(); ++j) {
    if (contact_chain.count(eval::jointIndex(model, all.joint[j]))) continue;
    double most = 0.0;
    for (const Eigen::MatrixXd& J : all.jacobian) most = std::max(most, J.col(j).cwiseAbs().maxCoeff());
    if (most > 0.02) joints.push_back(all.joint[j]);
  }
  return joints;
}

Eigen::MatrixXd stackRows(const std::vector<Eigen::MatrixXd>& parts) {
  Eigen::Index rows = 0;
  for (const Eigen::MatrixXd& p : parts) rows += p.rows();
  Eigen::MatrixXd out(rows, parts.empty() ? 0 : parts.front().cols());
  Eigen::Index r = 0;
  for (const Eigen::MatrixXd& p : parts) {
    out.middleRows(r, p.rows()) = p;
    r += p.rows();
  }
  return out;
}

bool writeFile(const fs::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

void writeCurvesCsv(const fs::path& path, const eval::RigidModel& model, const SupportCurves& c,
                    const std::vector<std::string>& joints) {
  std::ofstream f(path);
  f << "# supporting torque of suit '" << c.suit << "' during motion '" << c.motion << "' (N m, A(3)-(4)); "
    << "model = A(21) with the true bands on the measured angles\n";
  f << "time[s]";
  for (const std::string& j : joints) {
    f << "," << j << ".angle[rad]";
    for (SupportMethod m : kSupportMethods) f << "," << j << "." << methodKey(m) << "[N*m]";
    f << "," << j << ".model[N*m]";
  }
  f << "\n";
  char buf[64];
  for (Eigen::Index t = 0; t < c.time.size(); ++t) {
    std::snprintf(buf, sizeof buf, "%.6g", c.time[t]);
    f << buf;
    for (const std::string& name : joints) {
      const int j = eval::jointIndex(model, name);
      std::snprintf(buf, sizeof buf, ",%.9g", c.angle(t, j));
      f << buf;
      for (std::size_t m = 0; m < c.method.size(); ++m) {
        std::snprintf(buf, sizeof buf, ",%.9g", c.method[m](t, j));
        f << buf;
      }
      std::snprintf(buf, sizeof buf, ",%.9g", c.model(t, j));
      f << buf;
    }
    f << "\n";
  }
}

// The joint a motion is about (its figure): the suit joint that moves most.
std::string figureJoint(const eval::RigidModel& model, const SupportCurves& c, const std::vector<std::string>& joints) {
  std::string best = joints.empty() ? model.joint_name[0] : joints[0];
  double range = -1.0;
  for (const std::string& name : joints) {
    const int j = eval::jointIndex(model, name);
    const double r = c.angle.col(j).maxCoeff() - c.angle.col(j).minCoeff();
    if (r > range) {
      range = r;
      best = name;
    }
  }
  return best;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

int evaluateChecked(int argc, char** argv) {
  const auto wall_start = std::chrono::steady_clock::now();
  EvaluateOptions opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return !v->empty();
    };
    std::string v;
    if (arg == "--out") {
      if (!value(&opt.out)) return usageError("--out needs a directory");
    } else if (arg == "--noise") {
      if (!value(&v) || (v != "on" && v != "off")) return usageError("--noise takes on or off");
      opt.overrides.noise = v == "on" ? 1 : 0;
    } else if (arg == "--stribeck") {
      if (!value(&v) || (v != "on" && v != "off")) return usageError("--stribeck takes on or off");
      opt.overrides.no_stribeck = v == "off";
    } else if (arg == "--threads") {
      if (!value(&v)) return usageError("--threads needs a whole number from 1 to 1024");
      char* end = nullptr;
      const long t = std::strtol(v.c_str(), &end, 10);
      if (*end != '\0' || t < 1 || t > 1024) return usageError("--threads needs a whole number from 1 to 1024");
      opt.overrides.threads = static_cast<int>(t);
    } else if (arg == "--streams") {
      if (!value(&opt.streams)) return usageError("--streams needs a directory (the trials/ of an earlier run)");
    } else if (arg == "--band-joints") {
      if (!value(&v)) return usageError("--band-joints needs joint names separated by commas");
      for (std::size_t a = 0; a <= v.size();) {
        const std::size_t b = std::min(v.find(',', a), v.size());
        if (b > a) opt.band_joints.push_back(v.substr(a, b - a));
        a = b + 1;
      }
    } else if (arg == "--rest-rows") {
      if (!value(&v) || !parseRestRows(v, &opt.rest_rows)) return usageError("--rest-rows takes exclude or sign-rule");
    } else if (arg == "--no-plots") {
      opt.plots = false;
    } else if (arg == "--quiet") {
      opt.quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (opt.scene.empty()) {
      opt.scene = arg;
    } else {
      return usageError("more than one scene given");
    }
  }
  if (opt.scene.empty()) return usageError("no scene file given");
  if (opt.out.empty()) return usageError("--out DIR is required");

  // Everything about the experiment is checked before anything runs.
  EvaluatorView view;
  std::map<std::string, std::vector<RobotBand>> truth_bands;  // per trial: scoring only
  double true_mass = 0.0;  // of the robot in the identification trials: scoring only
  try {
    view = loadEvaluatorView(opt.scene);
    for (const TrialView& t : view.trials) {
      const io::Scene trial_scene = io::loadScene(opt.scene, t.spec.name);
      truth_bands[t.spec.name] = trial_scene.robot->bands;
      if (t.spec.purpose == "identification") true_mass = trial_scene.robot->truth.totalMass();
    }
  } catch (const io::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  if (view.trials.front().spec.name.empty()) {
    std::fprintf(stderr,
                 "error: %s: no <experiment>: the evaluation needs trials (identification trials without the suit, "
                 "and each motion with and without the suit); see scenes/jvrc1_protocol.xml\n",
                 opt.scene.c_str());
    return 2;
  }
  for (const std::string& j : opt.band_joints) {
    if (view.apriori.findJoint(j) < 0) return usageError("--band-joints: '" + j + "' is no joint of the robot");
  }
  // Pairs (bare, suit) of the same motion: what approach A needs.
  struct Pair {
    const TrialView* bare;
    const TrialView* worn;
  };
  std::vector<Pair> pairs;
  std::vector<std::string> suits;
  for (const TrialView& w : view.trials) {
    if (w.spec.purpose != "evaluation" || w.spec.suit == "none") continue;
    const auto bare = std::find_if(view.trials.begin(), view.trials.end(), [&](const TrialView& b) {
      return b.spec.purpose == "evaluation" && b.spec.suit == "none" && b.spec.motion == w.spec.motion;
    });
    if (bare == view.trials.end()) {
      std::fprintf(stderr, "error: %s:%d: trial '%s' has no trial of motion '%s' without the suit (approach A, A(3), needs one)\n",
                   opt.scene.c_str(), w.spec.line, w.spec.name.c_str(), w.spec.motion.c_str());
      return 2;
    }
    pairs.push_back({&*bare, &w});
    if (std::find(suits.begin(), suits.end(), w.spec.suit) == suits.end()) suits.push_back(w.spec.suit);
  }
  if (pairs.empty()) {
    std::fprintf(stderr, "error: %s: the experiment has no evaluation trial with a suit: nothing to evaluate\n",
                 opt.scene.c_str());
    return 2;
  }

  // 1. Run every trial (or take the streams of an earlier run).
  const fs::path out(opt.out);
  const fs::path streams = opt.streams.empty() ? out / "trials" : fs::path(opt.streams);
  std::vector<TrialJob> jobs;
  std::error_code ec;
  if (opt.streams.empty()) {
    std::string usage_problem;
    if (const int code = prepareTrials(opt.scene, "", opt.overrides, streams, opt.quiet, &jobs, &usage_problem)) {
      return usage_problem.empty() ? code : usageError(usage_problem);
    }
    fs::create_directories(streams, ec);
    if (ec) {
      std::fprintf(stderr, "error: cannot create '%s': %s\n", streams.c_str(), ec.message().c_str());
      return 1;
    }
    const int threads = opt.overrides.threads > 0 ? opt.overrides.threads : omp_get_num_procs();
    if (!opt.quiet) std::fprintf(stderr, "running %zu trials on %d threads...\n", jobs.size(), threads);
    const bool ran = simulateTrials(jobs, threads, opt.quiet);
    if (!ran) {
      for (const TrialJob& job : jobs) {
        if (!job.ok && !job.error.empty()) {
          std::fprintf(stderr, "error: trial %s: %s\n", job.scene.trial.name.c_str(), job.error.c_str());
        }
      }
      commitTrials(jobs, false);
      return 1;
    }
    if (!commitTrials(jobs, true)) return 1;
  } else {
    fs::create_directories(out, ec);
  }
  const double sim_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  // 2. Identify the robot (suit-free identification trials only).
  IdentifyOptions id_options;
  id_options.identification.rest_rows = opt.rest_rows;
  IdentifyOutcome id;
  try {
    id = identifyFromStreams(view, streams, id_options);
  } catch (const eval::StreamError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return opt.streams.empty() ? 1 : 2;  // our own streams are never bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: identification failed: %s\n", e.what());
    return 1;
  }
  const eval::RigidModel& model = id.model;

  // 3. Supporting torques, 4. band identification, per suit.
  ordered_json report;
  report["scene"] = view.scene_name;
  report["settings"] = {{"noise", opt.overrides.noise == 0 ? "off" : (opt.overrides.noise == 1 ? "on" : "scene")},
                        {"stribeck", opt.overrides.no_stribeck ? "off" : "scene"}};
  std::vector<SupportCurves> curves;
  for (const Pair& p : pairs) {
    curves.push_back(supportCurves(view, id, *p.bare, *p.worn, truth_bands[p.worn->spec.name], streams, id_options));
  }
  fs::create_directories(out / "curves", ec);

  std::string md_tables, md_rmse;
  std::map<std::string, std::string> figure_joint_of_motion;
  for (const std::string& suit : suits) {
    std::vector<const SupportCurves*> mine;
    std::vector<RobotBand> truth, routes;  // truth: scoring only; routes: what the evaluator knows
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      if (pairs[k].worn->spec.suit != suit) continue;
      mine.push_back(&curves[k]);
      truth = truth_bands[pairs[k].worn->spec.name];
      routes = pairs[k].worn->band_routes;
    }
    std::vector<eval::WireGeometry> wires = eval::makeWireGeometries(model, routes);
    std::vector<Eigen::MatrixXd> angle_parts;
    for (const SupportCurves* c : mine) angle_parts.push_back(c->angle);
    const Eigen::MatrixXd angles = stackRows(angle_parts);
    const std::vector<std::string> joints =
        opt.band_joints.empty() ? suitJoints(model, wires, angles, view.layout) : opt.band_joints;
    for (const std::string& j : joints) {
      if (eval::jointIndex(model, j) < 0) return usageError("--band-joints: '" + j + "' is no moving joint of the robot");
    }

    // Stiffness groups as the suit declares them.
    eval::BandIdentificationOptions bopt;
    for (const RobotBand& b : routes) {
      const std::string g = stiffnessGroupOf(b);
      auto it = std::find_if(bopt.groups.begin(), bopt.groups.end(), [&](const eval::StiffnessGroup& s) { return s.name == g; });
      if (it == bopt.groups.end()) {
        bopt.groups.push_back({g, {b.name}});
      } else {
        it->bands.push_back(b.name);
      }
    }
    ordered_json js;
    // The headline stiffness is that of the first group (type A in the
    // shipped suit: the bands the paper identifies, A §5.4).
    const std::string headline = bopt.groups.front().name;
    double headline_truth = 0.0;
    for (const RobotBand& b : truth) {
      if (stiffnessGroupOf(b) == headline) headline_truth = b.stiffness;
    }
    js["headline_group"] = headline;
    js["true_stiffness_n_per_m"] = headline_truth;
    js["joints"] = joints;
    md_tables += "\n### Suit `" + suit + "`: stiffness of `" + headline + "` bands (A(26); truth " +
                 fmt("%.1f", headline_truth) + " N/m)\n\n| row | method | stiffness [N/m] | error |\n|---|---|---|---|\n";
    md_tables += "| (a) | truth | " + fmt("%.1f", headline_truth) + " | |\n";
    const char* row_names[] = {"(b)", "(c)", "(d)", "(e)"};
    const char* method_names[] = {"approach A, identified", "approach B, identified", "approach B, a priori",
                                  "approach A, a priori"};
    int row = 0;
    for (SupportMethod m : kSupportMethods) {
      const std::size_t mi = static_cast<std::size_t>(m);
      // A(26) motion by motion, on the joint the motion is about, from the
      // samples where that joint moves: while a joint is at rest its static
      // friction can take any value up to tau_s^max, so neither A(3) nor
      // A(4) knows the actuator torque there (the sign rule A(8)-(9) guesses
      // +-tau_s^max), and a wrong torque at the stance pose, where the bands
      // are just taut, trades k against l0. Bands whose geometric effect on
      // that joint is under a quarter of the strongest band's are left out
      // of that motion's fit (type B in the bend, as A section 5.4 does):
      // fitted there, their weak effect trades with the strong bands' k.
      // Each group's stiffness comes from the motion where it is most
      // relevant.
      //
      // A band left out still pulls, though: type B gives the waist pitch
      // about a tenth of the bend's supporting torque, and fitting type A
      // alone to the bend's curve put that share into k_A (+1.1 % on the
      // exact model curve, where fitting every band recovers k to 1e-14).
      // So the fits are repeated once more with each left-out band's torque,
      // A(21) at its group's estimate from its own best motion, taken off
      // the curve first.
      std::vector<eval::WireSamples> motion_samples;
      std::vector<Eigen::MatrixXd> motion_tau;
      std::vector<std::string> motion_joint;
      for (const SupportCurves* c : mine) {
        const std::string fj = figureJoint(model, *c, joints);
        const int j = eval::jointIndex(model, fj);
        std::vector<int> rows;
        for (Eigen::Index t = 0; t < c->velocity.rows(); ++t) {
          if (std::abs(c->velocity(t, j)) > kMovingSpeed) rows.push_back(static_cast<int>(t));
        }
        Eigen::MatrixXd q(rows.size(), c->angle.cols()), tau(rows.size(), 1);
        for (std::size_t r = 0; r < rows.size(); ++r) {
          q.row(static_cast<Eigen::Index>(r)) = c->angle.row(rows[r]);
          tau(static_cast<Eigen::Index>(r), 0) = c->method[mi](rows[r], j);
        }
        motion_samples.push_back(eval::sampleWires(model, wires, q, {fj}));
        motion_tau.push_back(tau);
        motion_joint.push_back(c->motion + ":" + fj);
      }
      eval::BandIdentificationOptions o = bopt;
      o.relevance_threshold = 0.25;
      // Each band's stiffness group (every motion samples the same bands).
      std::vector<int> group_of_band;
      for (const std::string& band : motion_samples.front().band) {
        const auto it = std::find_if(o.groups.begin(), o.groups.end(),
                                     [&](const eval::StiffnessGroup& g) { return std::find(g.bands.begin(), g.bands.end(), band) != g.bands.end(); });
        group_of_band.push_back(it == o.groups.end() ? -1 : static_cast<int>(it - o.groups.begin()));
      }
      std::vector<eval::BandIdentificationResult> per_motion;
      eval::BandIdentificationResult r;
      std::vector<std::string> source(bopt.groups.size());
      for (int pass = 0; pass < 2; ++pass) {
        std::vector<eval::BandIdentificationResult> fits;
        for (std::size_t k = 0; k < motion_samples.size(); ++k) {
          Eigen::MatrixXd tau = motion_tau[k];
          if (pass > 0) {
            // The bands this motion's first fit left out, at the estimates
            // of the combined result.
            const eval::BandIdentificationResult& first = per_motion[k];
            const int nb = static_cast<int>(first.band.size());
            Eigen::VectorXd k_left = Eigen::VectorXd::Zero(nb);
            Eigen::VectorXd l0_left = Eigen::VectorXd::Zero(nb);
            for (int b = 0; b < nb; ++b) {
              const int g = group_of_band[static_cast<std::size_t>(b)];
              if (first.fitted[b] || g < 0 || !std::isfinite(r.stiffness[g]) || !std::isfinite(r.natural_length[b])) continue;
              k_left[b] = r.stiffness[g];
              l0_left[b] = r.natural_length[b];
            }
            tau -= eval::predictSupportingTorque(motion_samples[k], k_left, l0_left);
          }
          fits.push_back(eval::identifyBands(motion_samples[k], tau, o));
        }
        if (pass == 0) per_motion = fits;
        r = fits.front();
        for (std::size_t g = 0; g < bopt.groups.size(); ++g) {
          double best = -1.0;
          for (std::size_t k = 0; k < fits.size(); ++k) {
            const eval::BandIdentificationResult& pm = fits[k];
            if (!std::isfinite(pm.stiffness[g]) || !pm.group_observable[g]) continue;
            double relevance = 0.0;
            for (std::size_t b = 0; b < pm.band.size(); ++b) {
              if (pm.band_group[b] == static_cast<int>(g)) relevance = std::max(relevance, pm.relevance[b]);
            }
            if (relevance <= best) continue;
            best = relevance;
            source[g] = motion_joint[k];
            r.stiffness[g] = pm.stiffness[g];
            r.group_observable[g] = true;
            for (std::size_t b = 0; b < pm.band.size(); ++b) {
              if (pm.band_group[b] != static_cast<int>(g)) continue;
              r.natural_length[b] = pm.natural_length[b];
              r.taut_samples[b] = pm.taut_samples[b];
            }
          }
          if (best < 0.0) r.stiffness[g] = std::nan("");
        }
        if (pass > 0) per_motion = fits;
      }
      double fit_rmse = 0.0;
      for (const eval::BandIdentificationResult& pm : per_motion) fit_rmse = std::max(fit_rmse, pm.rmse);
      r.rmse = fit_rmse;
      ordered_json jm;
      const double k = r.stiffness[0];
      jm["stiffness_n_per_m"] = std::isfinite(k) ? ordered_json(k) : ordered_json(nullptr);
      jm["relative_error"] = std::isfinite(k) ? ordered_json((k - headline_truth) / headline_truth) : ordered_json(nullptr);
      ordered_json groups;
      for (std::size_t g = 0; g < r.group.size(); ++g) {
        double gt = 0.0;
        for (const RobotBand& b : truth) {
          if (stiffnessGroupOf(b) == r.group[g]) gt = b.stiffness;
        }
        groups[r.group[g]] = {{"stiffness_n_per_m", std::isfinite(r.stiffness[g]) ? ordered_json(r.stiffness[g]) : ordered_json(nullptr)},
                              {"true_stiffness_n_per_m", gt},
                              {"from", source[g]},
                              {"observable", static_cast<bool>(r.group_observable[g])}};
      }
      jm["groups"] = groups;
      ordered_json bands;
      for (std::size_t b = 0; b < r.band.size(); ++b) {
        double l0_true = 0.0;
        for (const RobotBand& t : truth) {
          if (t.name == r.band[b]) l0_true = t.natural_length;
        }
        bands[r.band[b]] = {{"natural_length_m", std::isfinite(r.natural_length[b]) ? ordered_json(r.natural_length[b]) : ordered_json(nullptr)},
                            {"true_natural_length_m", l0_true},
                            {"taut_samples", r.taut_samples[b]}};
      }
      jm["bands"] = bands;
      jm["fit_rmse_nm"] = r.rmse;
      // How far each curve is from the model prediction (A Fig. 12 captions).
      ordered_json curve_rmse;
      for (const SupportCurves* c : mine) {
        const std::string fj = figureJoint(model, *c, joints);
        const int j = eval::jointIndex(model, fj);
        curve_rmse[c->motion] = {{"joint", fj}, {"rmse_nm", rms(c->method[mi].col(j) - c->model.col(j))}};
      }
      jm["supporting_torque_rmse"] = curve_rmse;
      js[methodKey(m)] = jm;
      md_tables += std::string("| ") + row_names[row] + " | " + method_names[row] + " | " +
                   (std::isfinite(k) ? fmt("%.1f", k) : std::string("n/a")) + " | " +
                   (std::isfinite(k) ? fmt("%+.1f %%", 100.0 * (k - headline_truth) / headline_truth) : std::string("")) +
                   " |\n";
      ++row;
    }
    // All groups, approach A and B.
    md_tables += "\nAll stiffness groups (truth / A / B / a priori, N/m): ";
    for (std::size_t g = 0; g < bopt.groups.size(); ++g) {
      const std::string& name = bopt.groups[g].name;
      const auto val = [&](const char* key) {
        const ordered_json& v = js[key]["groups"][name]["stiffness_n_per_m"];
        return v.is_null() ? std::string("n/a") : fmt("%.1f", v.get<double>());
      };
      md_tables += "`" + name + "` " + fmt("%.1f", js["approach_a"]["groups"][name]["true_stiffness_n_per_m"].get<double>()) +
                   " / " + val("approach_a") + " / " + val("approach_b") + " / " + val("apriori") + (g + 1 < bopt.groups.size() ? "; " : ".\n");
    }
    md_tables += "Joints used: " + [&] {
      std::string s;
      for (const std::string& j : joints) s += (s.empty() ? "" : ", ") + j;
      return s;
    }() + ".\n";
    report["suits"][suit] = js;

    // Curves: CSV per (motion, suit), plot arguments per motion.
    for (const SupportCurves* c : mine) {
      const fs::path csv = out / "curves" / (c->motion + "_" + suit + ".csv");
      writeCurvesCsv(csv, model, *c, joints);
      if (!figure_joint_of_motion.count(c->motion)) figure_joint_of_motion[c->motion] = figureJoint(model, *c, joints);
      const std::string fj = figure_joint_of_motion[c->motion];
      const int j = eval::jointIndex(model, fj);
      md_rmse += "| " + c->motion + " | " + suit + " | " + fj;
      for (SupportMethod m : kSupportMethods) md_rmse += " | " + fmt("%.2f", rms(c->method[static_cast<std::size_t>(m)].col(j) - c->model.col(j)));
      md_rmse += " | " + fmt("%.2f", rms(c->model.col(j))) + " |\n";
    }
  }

  // Plots: one figure per motion (angle; suit by suit), like A Figs. 12-13.
  std::vector<std::string> pngs;
  std::string plot_note;
  if (opt.plots) {
    for (const auto& [motion, joint] : figure_joint_of_motion) {
      const fs::path png = out / ("support_" + motion + "_" + joint + ".png");
      // Debian's interpreter, where python3-matplotlib lives, before any
      // other python3 on the PATH.
      const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
      std::string cmd = python + " '" SUITSIM_SOURCE_DIR "/scripts/plot_support.py' --joint '" + joint + "' --title '" +
                        motion + "' --out '" + png.string() + "'";
      for (const std::string& suit : suits) {
        const fs::path csv = out / "curves" / (motion + "_" + suit + ".csv");
        if (fs::exists(csv)) cmd += " '" + csv.string() + "'";
      }
      cmd += " 2>&1";
      if (std::system(cmd.c_str()) == 0 && fs::exists(png)) {
        pngs.push_back(png.filename().string());
      } else {
        plot_note = "plots skipped: python3 with matplotlib not found (scripts/setup.sh installs python3-matplotlib)";
      }
    }
    if (!plot_note.empty() && !opt.quiet) std::fprintf(stderr, "warning: %s\n", plot_note.c_str());
  }

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  report["identification"] = {{"total_mass_kg", id.json["total_mass_kg"]},
                              {"true_total_mass_kg", true_mass},
                              {"base_link_only_total_mass_kg", id.json["base_link_only"]["total_mass_kg"]},
                              {"apriori_total_mass_kg", id.json["apriori_total_mass_kg"]},
                              {"condition_number", id.json["condition_number"]},
                              {"validation", id.json["validation"]}};
  report["plots"] = pngs;
  report["simulation_wall_time_s"] = sim_wall;
  report["wall_time_s"] = wall;

  // report.md
  std::string md = "# suitsim evaluation: " + view.scene_name + "\n\n";
  md += "Scene `" + opt.scene + "`; noise " + report["settings"]["noise"].get<std::string>() + ", Stribeck friction " +
        report["settings"]["stribeck"].get<std::string>() + ". " + std::to_string(view.trials.size()) + (opt.streams.empty() ? " trials simulated in " : " trials read from " + opt.streams + "; simulation ") +
        fmt("%.1f", sim_wall) + " s; whole evaluation " + fmt("%.1f", wall) + " s.\n\n";
  md += "## Robot identification (A(13)-(20), B(4))\n\n" + id.summary + "true total mass (the simulator's): " +
        fmt("%.3f", true_mass) + " kg\n\n";
  md += "## Band stiffness (A tables 2 and 3)\n\n"
        "Rows: (a) the simulator's truth; (b) A(26) on the supporting torque of approach A, A(3), identified "
        "parameters; (c) approach B, A(4), identified parameters; (d) approach B with the a-priori parameters "
        "(the paper's row (d)); (e) approach A with the a-priori parameters.\n" + md_tables;
  md += "\n## Supporting torque against the model (A Figs. 12-13)\n\n"
        "RMSE (N m) of each estimate from A(21) evaluated with the true bands on the measured angles, at the "
        "joint the motion is about.\n\n| motion | suit | joint | A | B | B a priori | A a priori | RMS of the model |\n"
        "|---|---|---|---|---|---|---|---|\n" + md_rmse;
  if (!pngs.empty()) {
    md += "\n## Plots\n\n";
    for (const std::string& p : pngs) md += "![" + p + "](" + p + ")\n\n";
  } else if (!plot_note.empty()) {
    md += "\n(" + plot_note + ")\n";
  }
  const bool ok = writeFile(out / "report.md", md) &&
                  writeFile(out / "report.json", report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n") &&
                  writeFile(out / "identification.json", id.json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!ok) {
    std::fprintf(stderr, "error: writing the report into '%s' failed\n", out.c_str());
    return 1;
  }
  if (!opt.quiet) {
    std::printf("%s", id.summary.c_str());
    for (const std::string& suit : suits) {
      const ordered_json& s = report["suits"][suit];
      std::printf("suit %s: %s stiffness truth %.1f N/m;", suit.c_str(), s["headline_group"].get<std::string>().c_str(),
                  s["true_stiffness_n_per_m"].get<double>());
      for (SupportMethod m : {SupportMethod::kApproachA, SupportMethod::kApproachB, SupportMethod::kAprioriB}) {
        const ordered_json& e = s[methodKey(m)];
        if (e["stiffness_n_per_m"].is_null()) continue;
        std::printf(" %s %.1f (%+.1f%%)", methodKey(m), e["stiffness_n_per_m"].get<double>(),
                    100.0 * e["relative_error"].get<double>());
      }
      std::printf("\n");
    }
    std::printf("wrote %s, %s, %s, curves/ and %zu plots in %.1f s\n", (out / "report.md").c_str(),
                (out / "report.json").c_str(), (out / "identification.json").c_str(), pngs.size(), wall);
  }
  return 0;
}

}  // namespace

int evaluateCommand(int argc, char** argv) {
  try {
    return evaluateChecked(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace suitsim::cli
