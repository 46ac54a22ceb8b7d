// `suitsim evaluate SCENE --out DIR`: the whole evaluation of A §5 on one
// command: options in, calls into the libraries, files out. The experiment
// library runs the trials, the evaluator (which sees only EvaluationInputs
// and the streams) identifies the robot, the supporting torques and the
// bands, and the report library scores the result against the truth and
// writes DIR/report.md, DIR/report.json, DIR/identification.json,
// DIR/curves/*.csv and DIR/*.png; the trial streams stay in DIR/trials/.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "trial_jobs.h"
#include "suitsim/core/stop.h"
#include "suitsim/core/write_failure.h"
#include "suitsim/eval/evaluation.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/log_streams.h"
#include "suitsim/eval/remedies.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/experiment/interrupt.h"
#include "suitsim/experiment/trials.h"
#include "suitsim/scene/scene.h"
#include "suitsim/report/report.h"
#include "suitsim/report/truth.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;

struct EvaluateOptions {
  std::string scene, out;
  std::string noise, stribeck;  // "on", "off" or empty (as the scene says)
  io::SceneOverrides overrides;
  bool quiet = false;
  bool plots = true;
  std::string streams;  // evaluate existing streams instead of simulating
  std::string log;      // evaluate a robot's own logs through this channel map instead of simulating
  std::string realism;  // --realism: a preset's name or a realism file (empty: as the scene says)
  std::string remedies;  // --remedies auto|none (empty: auto when the truth has error sources on, else none)
  std::vector<std::string> band_joints;  // joints A(26) fits on for every motion (empty: scene or derived)
  eval::IdentificationOptions::RestRows rest_rows = eval::IdentificationOptions::RestRows::Excluded;
  eval::IdentificationOptions::Armature armature = eval::IdentificationOptions::Armature::Fit;
  eval::IdentificationOptions::Gear gear = eval::IdentificationOptions::Gear::Ideal;
  eval::PipelineOptions::Heating heating = eval::PipelineOptions::Heating::Ignored;
  eval::PipelineOptions::SensorDelay sensor_delay = eval::PipelineOptions::SensorDelay::Ignored;
  eval::PipelineOptions::GearTwist gear_twist = eval::PipelineOptions::GearTwist::Ignored;
  eval::SuitGeometrySource suit_geometry = eval::SuitGeometrySource::Designed;
  eval::BandModel band_model = eval::BandModel::Elastic;
  eval::Straps straps = eval::Straps::Ignored;
};

bool writeFile(const fs::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

// Moves every file of `staging` (and of its curves/) into `out`, replacing
// files of the same name, the report last; then removes `staging`.
bool moveIntoPlace(const fs::path& staging, const fs::path& out, std::string* error) {
  std::error_code ec;
  fs::create_directories(out / "curves", ec);
  std::vector<fs::path> moves;
  for (const fs::path& dir : {staging / "curves", staging}) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      if (e.is_regular_file(ec) && e.path().filename() != "report.md") moves.push_back(e.path());
    }
  }
  if (fs::exists(staging / "report.md", ec)) moves.push_back(staging / "report.md");  // last: marks a finished run
  for (const fs::path& from : moves) {
    fs::rename(from, out / fs::relative(from, staging, ec), ec);
    if (ec) {
      *error = ec.message();
      return false;
    }
  }
  fs::remove_all(staging, ec);
  return true;
}

std::string dumpJson(const nlohmann::ordered_json& j) {
  // Names come from files and need not be valid UTF-8; the default handler would throw.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int evaluateChecked(const EvaluateOptions& opt, const CLI::App& app) {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto usage_error = [&app](const std::string& message) { return usageError(app, message); };

  // Everything about the experiment is checked before anything runs: the
  // evaluator's inputs, the truth for scoring, the trial pairs.
  eval::EvaluationInputs inputs;
  report::Truth truth;
  // --log: every log read and checked here too, before anything is written.
  std::shared_ptr<const eval::LogReading> logs;
  eval::PipelineOptions log_pipeline;
  const bool simulate = opt.streams.empty() && opt.log.empty();
  try {
    inputs = eval::loadEvaluationInputs(opt.scene);
    truth = report::loadTruth(opt.scene, opt.overrides.realism ? &*opt.overrides.realism : nullptr);
    if (inputs.trials.front().name.empty()) {
      std::fprintf(stderr,
                   "error: %s: no <experiment>: the evaluation needs trials (identification trials without the suit, "
                   "and each motion with and without the suit); see docs/scene-format.md, Experiments\n",
                   opt.scene.c_str());
      return 2;
    }
    if (!opt.log.empty()) logs = eval::readLogsFor(opt.log, &inputs, &log_pipeline);
    eval::pairTrials(inputs);
    eval::pairDeviceTrials(inputs);
    eval::checkTorqueSource(inputs);  // a fixed base needs torque sensors, or currents with their scale fixed
    if (opt.heating == eval::PipelineOptions::Heating::Corrected) {
      if (!inputs.layout.has_winding_temperatures) {
        throw std::invalid_argument(opt.scene + ": --heating corrected needs the windings' temperatures: "
                                    "<winding_temperatures> in the robot's <sensors>");
      }
      eval::aprioriMagnetCoefficients(inputs, eval::makeRigidModel(inputs.apriori));
    }
    if (opt.gear_twist == eval::PipelineOptions::GearTwist::Compensated &&
        std::none_of(inputs.apriori.joints.begin(), inputs.apriori.joints.end(),
                     [](const RobotJoint& j) { return j.actuation.gear_stiffness > 0.0; })) {
      throw std::invalid_argument(opt.scene + ": --gear-twist compensated needs the gears' stiffness from their "
                                  "datasheets: <apriori gear_stiffness_per_effort> in the robot");
    }
    if (opt.straps == eval::Straps::Corrected && !(inputs.attachment_stiffness > 0.0)) {
      throw std::invalid_argument(opt.scene + ": --straps corrected needs the straps' stiffness from a tensile test "
                                  "of them: <apriori attachment_stiffness> in the robot");
    }
    if (opt.suit_geometry == eval::SuitGeometrySource::Measured && !inputs.layout.has_band_lengths) {
      throw std::invalid_argument(opt.scene + ": --suit-geometry measured needs the bands' lengths: "
                                  "<band_lengths> in the robot's <sensors>");
    }
  } catch (const io::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const eval::StreamError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  for (const std::string& j : opt.band_joints) {
    const int k = inputs.apriori.findJoint(j);
    if (k < 0 || inputs.apriori.joints[static_cast<std::size_t>(k)].type == JointType::kFixed) {
      return usage_error("--band-joints: '" + j + "' is no joint of the robot that can move");
    }
  }

  // 1. Run every trial (or take the streams of an earlier run, or a
  // robot's logs: truth files, where a run wrote any, beside the map).
  const fs::path out(opt.out);
  const fs::path streams = !opt.log.empty() ? fs::path(opt.log).parent_path()
                           : opt.streams.empty() ? out / "trials" : fs::path(opt.streams);
  std::error_code ec;
  std::vector<experiment::TrialJob> jobs;
  if (simulate) {
    if (const int code = prepareJobs(opt.scene, "", opt.overrides, streams, opt.quiet, usage_error, &jobs)) return code;
  }
  // A run that fails or is interrupted, at any stage, leaves nothing behind
  // that it made: the trials' files once they are in place, the report's
  // files (written into a folder of their own, moved into place only when
  // all are written), and the folders it created. Nothing else is touched.
  const bool out_existed = fs::exists(out, ec);
  const bool streams_existed = simulate && fs::exists(streams, ec);
  const fs::path staging = out / (".evaluate-" + std::to_string(::getpid()) + ".partial");
  bool trials_in_place = false;
  const auto removeCreated = [&] {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    for (const experiment::TrialJob& job : jobs) {
      if (!trials_in_place) break;
      for (const fs::path& p : job.written) fs::remove(p, ignored);
      if (!job.scene.trial.name.empty()) fs::remove(job.dir, ignored);  // only if empty
    }
    if (simulate && !streams_existed) fs::remove(streams, ignored);  // only if empty
    if (!out_existed) fs::remove(out, ignored);
  };
  // Every way out after this point: remove what was made, and say so when a
  // signal was the cause (128 + the signal, whatever else failed with it).
  const auto failed = [&](int code) {
    removeCreated();
    if (const int sig = stopSignal()) {
      std::fprintf(stderr, "interrupted: the partial results were removed\n");
      return 128 + sig;
    }
    return code;
  };
  experiment::installInterruptHandlers();
  if (simulate) {
    fs::create_directories(streams, ec);
    if (ec) {
      std::fprintf(stderr, "error: cannot create '%s': %s\n", streams.c_str(), ec.message().c_str());
      return failed(1);
    }
    const int threads = opt.overrides.threads > 0 ? opt.overrides.threads : omp_get_num_procs();
    if (!opt.quiet) std::fprintf(stderr, "running %zu trials on %d threads...\n", jobs.size(), threads);
    if (!experiment::simulateTrials(jobs, threads, !opt.quiet, trialReporter(opt.quiet))) {
      for (const experiment::TrialJob& job : jobs) {
        if (!job.ok && !job.error.empty()) {
          std::fprintf(stderr, "error: trial %s: %s\n", job.scene.trial.name.c_str(), job.error.c_str());
        }
      }
      experiment::commitTrials(jobs, false);
      return failed(1);
    }
    std::string commit_error;
    if (!experiment::commitTrials(jobs, true, &commit_error)) {
      std::fprintf(stderr, "error: %s\n", commit_error.c_str());
      return failed(1);
    }
    trials_in_place = true;
  }
  // With --streams the folder is made only once they have been read (the
  // curves' folder below): streams refused as bad input leave nothing.
  const double sim_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  // 2-4. Identification, supporting torques, band identification: the
  // evaluator sees the inputs and the streams, nothing else.
  eval::EvaluationOptions eo;
  eo.pipeline.conditioning = log_pipeline.conditioning;  // the map's <preprocess> with --log, else the defaults
  eo.pipeline.read_stream = log_pipeline.read_stream;
  eo.pipeline.identification.rest_rows = opt.rest_rows;
  eo.pipeline.identification.armature = opt.armature;
  eo.pipeline.identification.gear = opt.gear;
  eo.pipeline.heating = opt.heating;
  eo.pipeline.sensor_delay = opt.sensor_delay;
  eo.pipeline.gear_twist = opt.gear_twist;
  eo.pipeline.identification.threads = std::max(opt.overrides.threads, 0);  // 0 (not given): OpenMP's default
  eo.band_joints = opt.band_joints;
  eo.suit_geometry = opt.suit_geometry;
  eo.band_model = opt.band_model;
  eo.straps = opt.straps;
  // --remedies auto: every remedy the streams and the a-priori set support
  // (remedies.h), judged on the first trial's stream as recorded; a single
  // option given on the command line keeps its word.
  const bool auto_remedies = opt.remedies == "auto" || (opt.remedies.empty() && !truth.realism.activeSources().empty());
  std::vector<eval::RemedyChoice> remedy_choices;
  if (auto_remedies) {
    try {
      const eval::RigidModel model = eval::makeRigidModel(inputs.apriori);
      const eval::SensorStream first =
          eval::readTrialStream(inputs, model, inputs.trials.front(), streams, eo.pipeline);
      eval::EvaluationOptions chosen = eo;
      remedy_choices = eval::chooseRemedies(inputs, first, &chosen);
      const auto given = [&app](const char* name) { return app.count(name) > 0; };
      if (!given("--gear")) eo.pipeline.identification.gear = chosen.pipeline.identification.gear;
      if (!given("--heating")) eo.pipeline.heating = chosen.pipeline.heating;
      if (!given("--sensor-delay")) eo.pipeline.sensor_delay = chosen.pipeline.sensor_delay;
      if (!given("--gear-twist")) eo.pipeline.gear_twist = chosen.pipeline.gear_twist;
      if (!given("--suit-geometry")) eo.suit_geometry = chosen.suit_geometry;
      if (!given("--band-model")) eo.band_model = chosen.band_model;
      if (!given("--straps")) eo.straps = chosen.straps;
      // What runs in the end: a single option given keeps its word.
      const std::map<std::string, std::string> effective = {
          {"gear", eval::gearName(eo.pipeline.identification.gear)},
          {"heating", eval::heatingName(eo.pipeline.heating)},
          {"sensor_delay", eval::sensorDelayName(eo.pipeline.sensor_delay)},
          {"gear_twist", eval::gearTwistName(eo.pipeline.gear_twist)},
          {"suit_geometry", eval::suitGeometryName(eo.suit_geometry)},
          {"band_model", eval::bandModelName(eo.band_model)},
          {"straps", eval::strapsName(eo.straps)}};
      for (eval::RemedyChoice& c : remedy_choices) {
        std::string option = "--" + c.option;
        for (char& ch : option) ch = ch == '_' ? '-' : ch;
        if (!given(option.c_str())) continue;
        c.setting = effective.at(c.option);
        c.applied = c.setting != "ideal" && c.setting != "ignored" && c.setting != "designed" && c.setting != "elastic";
        c.reason = "set by " + option + " on the command line";
      }
    } catch (const eval::StreamError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return failed(simulate ? 1 : 2);
    }
    if (!opt.quiet) {
      for (const eval::RemedyChoice& c : remedy_choices) {
        std::fprintf(stderr, "remedy %s: %s%s (%s)\n", c.option.c_str(), c.setting.c_str(),
                     c.applied ? "" : ", not applied", c.reason.c_str());
      }
    }
  }
  if (!opt.quiet) std::fprintf(stderr, "identifying the robot, the supporting torques and the bands...\n");
  eval::EvaluationResult result;
  try {
    result = eval::evaluateStreams(inputs, streams, eo);
  } catch (const Stopped&) {
    return failed(1);
  } catch (const eval::StreamError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return failed(simulate ? 1 : 2);  // our own streams are never bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: evaluation failed: %s\n", e.what());
    return failed(1);
  }

  // 5. Scoring against the truth, then the report.
  try {
    std::vector<std::string> names;
    for (const eval::TrialInfo& t : inputs.trials) names.push_back(t.name);
    report::loadBalanceTruth(streams.string(), names, truth);
    std::vector<std::string> device_trials;
    for (const eval::TrialInfo& t : inputs.trials) {
      if (t.device != "none") device_trials.push_back(t.name);
    }
    report::loadStrapTruth(streams.string(), device_trials, truth);
  } catch (const std::exception& e) {
    if (stopSignal()) return failed(1);
    std::fprintf(stderr, "error: %s\n", e.what());
    return failed(simulate ? 1 : 2);
  }
  if (stopSignal()) return failed(1);
  const report::Score score = report::scoreEvaluation(result, truth);
  if (!opt.quiet) std::fprintf(stderr, "writing the report...\n");
  fs::create_directories(staging / "curves", ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create '%s': %s\n", (staging / "curves").c_str(), ec.message().c_str());
    return failed(1);
  }
  std::vector<std::string> pngs;
  std::string plot_note;
  try {
    report::writeCurves(staging / "curves", result, score);
    if (opt.plots) {
      pngs = report::writePlots(staging, staging / "curves", result,
                                report::findPlotScript(fs::read_symlink("/proc/self/exe", ec)), &plot_note);
      if (!plot_note.empty() && !opt.quiet) std::fprintf(stderr, "warning: %s\n", plot_note.c_str());
    }
  } catch (const Stopped&) {
    return failed(1);
  } catch (const std::exception& e) {
    // Named as the user will look for them: in --out, not the temporary folder.
    std::string message = e.what();
    for (std::size_t at; (at = message.find(staging.string())) != std::string::npos;) {
      message.replace(at, staging.string().size(), out.string());
    }
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return failed(1);
  }
  report::RunInfo run;
  run.scene_path = opt.scene;
  run.noise = opt.overrides.noise == 0 ? "off" : (opt.overrides.noise == 1 ? "on" : "scene");
  run.stribeck = opt.overrides.no_stribeck ? "off" : "scene";
  run.realism = truth.realism;
  run.streams_dir = opt.log.empty() ? opt.streams : opt.log;
  run.suit_geometry = eval::suitGeometryName(eo.suit_geometry);
  run.band_model = eval::bandModelName(eo.band_model);
  run.straps = eval::strapsName(eo.straps);
  if (auto_remedies) {
    run.remedies = "auto";
    run.remedy_choices = remedy_choices;
  }
  run.num_trials = inputs.trials.size();
  run.simulation_wall_s = sim_wall;
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  nlohmann::ordered_json id_json = report::identificationJson(result.identification, inputs.scene_name, eo.pipeline);
  id_json["band_fits"] = report::bandFitsJson(result);
  if (logs) id_json["log"] = report::logJson(*logs);
  const nlohmann::ordered_json report_json = report::reportJson(result, score, run, id_json, pngs);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"identification.json", dumpJson(id_json)},
      {"report.json", dumpJson(report_json)},
      {"report.md", report::reportMarkdown(result, score, run, pngs, plot_note)}};
  for (const auto& [name, text] : files) {
    if (stopSignal()) return failed(1);
    if (!writeFile(staging / name, text)) {
      std::fprintf(stderr, "error: %s\n", writeFailure(staging / name, out / name).c_str());
      return failed(1);
    }
  }
  // The last chance to stop: moving the finished files into place takes
  // microseconds, and a run past it has its complete results.
  if (stopSignal()) return failed(1);
  std::string move_error;
  if (!moveIntoPlace(staging, out, &move_error)) {
    std::fprintf(stderr, "error: cannot move the report into place in '%s': %s\n", out.c_str(), move_error.c_str());
    return failed(1);
  }
  if (!opt.quiet) {
    std::printf("%s", report::identificationSummary(result.identification).c_str());
    for (std::size_t s = 0; s < result.suits.size(); ++s) {
      const eval::SuitFit& suit = result.suits[s];
      const report::SuitScore& t = score.suits[s];
      for (std::size_t g = 0; g < suit.group_order.size(); ++g) {
        std::printf("suit %s: group %s stiffness truth %s N/m;", suit.suit.c_str(), suit.group_order[g].c_str(),
                    report::formatSig(t.group_stiffness[g], 4).c_str());
        for (std::size_t mi = 0; mi < 3; ++mi) {
          const eval::GroupEstimate& e = suit.methods[mi].groups[g];
          if (!e.identifiable) {
            std::printf(" %s not identifiable;", eval::methodKey(suit.methods[mi].method));
            continue;
          }
          std::printf(" %s %s (%+.2f%%)", eval::methodKey(suit.methods[mi].method), report::formatSig(e.stiffness, 4).c_str(),
                      100.0 * t.relative_error[mi][g]);
        }
        std::printf("\n");
      }
    }
    for (std::size_t k = 0; k < result.devices.size(); ++k) {
      const eval::DeviceEvaluation& d = result.devices[k];
      const report::DeviceScore& t = score.devices[k];
      std::printf("device %s: supporting torque RMSE / RMS where the joints move:", d.device.c_str());
      for (std::size_t m = 0; m < t.relative_rmse.size(); ++m) {
        std::printf(" %s %.2f%%", eval::methodKey(eval::kSupportMethods[m]), 100.0 * t.relative_rmse_moving[m]);
      }
      std::printf("; in the evaluator's band (%s Hz):", report::formatSig(d.band_hz, 3).c_str());
      for (std::size_t m = 0; m < t.relative_rmse.size(); ++m) {
        std::printf(" %s %.2f%%", eval::methodKey(eval::kSupportMethods[m]), 100.0 * t.relative_rmse_moving_in_band[m]);
      }
      std::printf("\n");
      for (std::size_t h = 0; h < d.impedance.size(); ++h) {
        const eval::ImpedanceEstimate& e = d.impedance[h];
        if (!e.identifiable) {
          std::printf("device %s: hinge %s not identifiable: %s\n", d.device.c_str(), e.joint.c_str(), e.reason.c_str());
          continue;
        }
        std::printf("device %s: hinge %s:", d.device.c_str(), e.joint.c_str());
        for (int p = 0; p < eval::kImpedanceParameters; ++p) {
          std::printf(" %s %s (truth %s)", eval::impedanceParameterKey(p), report::formatSig(e.estimate[p], 3).c_str(),
                      report::formatSig(t.impedance_truth[h][p], 3).c_str());
        }
        std::printf("\n");
      }
    }
    std::printf("wrote %s, %s, %s, curves/ and %zu plots in %.1f s\n", (out / "report.md").c_str(),
                (out / "report.json").c_str(), (out / "identification.json").c_str(), pngs.size(), run.wall_s);
  }
  return 0;
}

}  // namespace

Command addEvaluateCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<EvaluateOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "evaluate", "the whole evaluation: run the experiment, identify, supporting torque, band stiffness, report");
  addSceneArgument(*app, &opt->scene);
  addOutOption(*app, &opt->out, "where to write the report (created if needed)");
  addChoiceOption(*app, "--noise", &opt->noise, {"on", "off"},
                  "force the sensors' noise on or off (default: as the scene says)");
  addChoiceOption(*app, "--stribeck", &opt->stribeck, {"on", "off"},
                  "off: remove the Stribeck drop from the joints' friction");
  addThreadsOption(*app, &opt->overrides.threads,
                   "threads for running the trials and for the identification (default: one per core); the "
                   "results are the same for any");
  CLI::Option* streams = addTextOption(*app, "--streams", "DIR", &opt->streams,
                                       "evaluate the streams of an earlier run (its trials/) instead of simulating");
  CLI::Option* log = addTextOption(*app, "--log", "MAP", &opt->log,
                                   "evaluate a robot's own logs (CSV or HDF5) read through the channel map MAP instead "
                                   "of simulating (docs/logs.md)");
  streams->excludes(log);
  log->excludes(streams);
  addParsedOption(
      *app, "--band-joints", "J1,J2",
      [o = opt.get()](const std::string& v) {
        o->band_joints.clear();
        for (std::size_t a = 0; a <= v.size();) {
          const std::size_t b = std::min(v.find(',', a), v.size());
          if (b > a) o->band_joints.push_back(v.substr(a, b - a));
          a = b + 1;
        }
        return !o->band_joints.empty();
      },
      "joint names separated by commas", "the joints A(26) fits on for every motion (default: the scene's or derived)");
  addRestRowsOption(*app, &opt->rest_rows);
  addArmatureOption(*app, &opt->armature);
  addGearOption(*app, &opt->gear);
  addHeatingOption(*app, &opt->heating);
  addSensorDelayOption(*app, &opt->sensor_delay);
  addGearTwistOption(*app, &opt->gear_twist);
  addParsedOption(
      *app, "--suit-geometry", "designed|measured",
      [o = opt.get()](const std::string& v) { return eval::parseSuitGeometry(v, &o->suit_geometry); },
      "designed or measured",
      "the via points of the bands' wire model: as designed (default) or fitted to the bands' logged lengths "
      "first (needs <band_lengths> sensors; docs/realism.md)");
  addParsedOption(
      *app, "--band-model", "elastic|viscoelastic|capstan|viscoelastic-capstan",
      [o = opt.get()](const std::string& v) { return eval::parseBandModel(v, &o->band_model); },
      "elastic, viscoelastic, capstan or viscoelastic-capstan",
      "A(26)'s model of a band's tension: elastic, A(25) (default); viscoelastic, a standard linear solid "
      "whose relaxing arm and time constant are fitted too; capstan, one tension per segment with friction "
      "where the band turns, its coefficient fitted too; or viscoelastic-capstan, both (docs/method.md)");
  addParsedOption(
      *app, "--straps", "ignored|corrected",
      [o = opt.get()](const std::string& v) { return eval::parseStraps(v, &o->straps); }, "ignored or corrected",
      "the straps at the bands' ends: ignored (default: the stiffness as worn is the band's), or corrected: each "
      "estimate read as the band behind two straps of the stiffness a tensile test of them gave (<apriori "
      "attachment_stiffness>; docs/realism.md)");
  addChoiceOption(*app, "--remedies", &opt->remedies, {"auto", "none"},
                  "auto: apply every remedy the streams and the a-priori set support and list which ran and why "
                  "(the default when the truth has error sources on: the scene's <realism> or --realism); none: "
                  "only the single options above (docs/realism.md)");
  addTextOption(*app, "--realism", "ideal|realistic|FILE", &opt->realism,
                "error sources of the truth, replacing the scene's <realism>: a preset (ideal: none; realistic: "
                "every source at its documented magnitude) or a realism file (docs/realism.md)");
  app->add_flag("--no-plots", [o = opt.get()](std::int64_t) { o->plots = false; }, "no PNG files");
  addQuietFlag(*app, &opt->quiet, "nothing on stdout or stderr except errors");
  return {app, [opt, app] {
            // The choices, as the experiment library takes them.
            if (!opt->noise.empty()) opt->overrides.noise = opt->noise == "on" ? 1 : 0;
            opt->overrides.no_stribeck = opt->stribeck == "off";
            if (!opt->realism.empty()) {
              try {
                opt->overrides.realism = io::realismOption(opt->realism);
              } catch (const io::SceneError& e) {
                std::fprintf(stderr, "error: %s\n", e.what());
                return 2;
              }
            }
            return evaluateChecked(*opt, *app);
          }};
}

}  // namespace suitsim::cli
