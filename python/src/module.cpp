// suitsim._core: the libraries' public API for the Python package
// (python/suitsim/__init__.py holds the Pythonic surface and the docs).
//
// What crosses into Python: a scene as plain dicts (robot, suits, trials),
// runs that write the trials' files into a folder the package chose, the
// evaluation (which, as in C++, is given EvaluationInputs and a streams
// folder and nothing that can hold a truth), scoring against the truth read
// separately (report/truth.h), and JSON text for report.json and
// identification.json, made by the same report functions `suitsim evaluate`
// calls, so the two agree to the byte.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "scene_loading.h"
#include "suitsim/core/stop.h"
#include "suitsim/eval/evaluation.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/log_streams.h"
#include "suitsim/eval/streams.h"
#include "suitsim/experiment/trials.h"
#include "suitsim/report/report.h"
#include "suitsim/report/scoring.h"
#include "suitsim/report/truth.h"
#include "suitsim/scene/scene.h"

namespace py = pybind11;

namespace suitsim::python {

namespace fs = std::filesystem;

void runInterruptible(const std::function<void()>& work) {
  std::exception_ptr failure;
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        work();
      } catch (...) {
        failure = std::current_exception();
      }
      done.set_value();
    });
    // Python's own SIGINT handler only marks the signal; its handlers run
    // when the main thread checks, which it does here every 50 ms.
    while (finished.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      py::gil_scoped_acquire acquire;
      if (!interrupted && PyErr_CheckSignals() != 0) {
        interrupted = true;
        requestStop(SIGINT);
      }
    }
    worker.join();
  }
  if (interrupted) {
    requestStop(0);  // the next run starts afresh
    throw py::error_already_set();  // the KeyboardInterrupt PyErr_CheckSignals set
  }
  if (failure) std::rethrow_exception(failure);
}

namespace {

using nlohmann::ordered_json;

std::string dumpJson(const ordered_json& j) {
  // As the command line writes its files (names need not be valid UTF-8).
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

py::dict jointDict(const RobotDescription& robot, const RobotJoint& j) {
  py::dict d;
  d["name"] = j.name;
  d["type"] = jointTypeName(j.type);
  d["parent"] = j.parent_link >= 0 ? robot.links[j.parent_link].name : std::string();
  d["child"] = j.child_link >= 0 ? robot.links[j.child_link].name : std::string();
  d["lower"] = j.lower;
  d["upper"] = j.upper;
  d["effort_limit"] = j.effort_limit;
  d["velocity_limit"] = j.velocity_limit;
  d["axis"] = py::make_tuple(j.axis[0], j.axis[1], j.axis[2]);
  d["mimic"] = j.mimic.joint;
  d["source"] = j.source;
  return d;
}

py::dict robotDict(const RobotDescription& robot) {
  py::dict d;
  d["name"] = robot.name;
  py::list links, joints;
  for (const RobotLink& l : robot.links) {
    py::dict ld;
    ld["name"] = l.name;
    ld["mass"] = l.inertial.mass;
    ld["com"] = py::make_tuple(l.inertial.com[0], l.inertial.com[1], l.inertial.com[2]);
    const auto& I = l.inertial.inertia;
    ld["inertia"] = py::make_tuple(I[0], I[1], I[2], I[3], I[4], I[5]);
    ld["source"] = l.source;
    links.append(ld);
  }
  for (const RobotJoint& j : robot.joints) joints.append(jointDict(robot, j));
  d["links"] = links;
  d["joints"] = joints;
  d["root_link"] = robot.root_link >= 0 ? robot.links[robot.root_link].name : std::string();
  d["floating_base"] = robot.floating_base;
  d["total_mass"] = robot.totalMass();
  return d;
}

py::dict bandDict(const RobotBand& b) {
  py::dict d;
  d["name"] = b.name;
  d["group"] = b.group.empty() ? b.name : b.group;  // a band without a group is its own (README)
  d["links"] = b.links;
  py::list points;
  for (const Vec3& p : b.points) points.append(py::make_tuple(p[0], p[1], p[2]));
  d["points"] = points;
  d["stiffness"] = b.stiffness;
  d["natural_length"] = b.natural_length;
  return d;
}

std::shared_ptr<SceneHandle> loadScene(const std::string& path, const std::string& trial, const SceneOptions& options) {
  auto h = std::make_shared<SceneHandle>();
  h->source = {path, trial, options};
  py::gil_scoped_release release;
  h->jobs = prepare(h->source, fs::path(), &h->warnings);
  return h;
}

py::dict sceneInfo(const SceneHandle& h) {
  py::dict d;
  const io::Scene& first = h.jobs.front().scene;
  d["name"] = first.name;
  d["path"] = h.source.path;
  py::list trials;
  py::dict suits;
  py::list motions;
  std::vector<std::string> seen_motions;
  for (const experiment::TrialJob& job : h.jobs) {
    const io::Scene& s = job.scene;
    if (!s.trial.name.empty()) {
      py::dict t;
      t["name"] = s.trial.name;
      t["motion"] = s.trial.motion;
      t["suit"] = s.trial.suit;
      t["device"] = s.trial.device;
      t["purpose"] = s.trial.purpose;
      t["line"] = s.trial.line;
      t["dt"] = job.scene.simulation.dt;
      t["duration"] = job.scene.simulation.duration;
      trials.append(t);
    }
    if (s.robot && s.trial.suit != "none" && !s.trial.suit.empty() && !suits.contains(s.trial.suit)) {
      py::list bands;
      for (const RobotBand& b : s.robot->bands) bands.append(bandDict(b));
      suits[py::str(s.trial.suit)] = bands;
    }
    if (s.robot && !s.trial.motion.empty() &&
        std::find(seen_motions.begin(), seen_motions.end(), s.trial.motion) == seen_motions.end()) {
      seen_motions.push_back(s.trial.motion);
      py::dict m;
      m["name"] = s.trial.motion;
      m["duration"] = s.robot->motion.duration();
      std::vector<std::string> joints;
      for (int hinge : s.robot->motion.hinges()) joints.push_back(s.model.hinge_name[hinge]);
      m["joints"] = joints;
      m["fit_joints"] = s.trial.fit_joints;
      motions.append(m);
    }
  }
  d["trials"] = trials;
  d["suits"] = suits;
  d["motions"] = motions;
  d["robot"] = first.robot ? py::object(robotDict(first.robot->truth)) : py::none();
  d["robot_apriori"] = first.robot ? py::object(robotDict(first.robot->apriori)) : py::none();
  const io::SimulationSettings& sim = h.jobs.front().scene.simulation;
  d["dt"] = sim.dt;
  d["duration"] = sim.duration;
  d["integrator"] = integratorName(sim.integrator);
  d["warnings"] = h.warnings;
  return d;
}

/// Runs the named trials (empty: all) into `out`; returns each trial's
/// summary.json text, by name ("" for a plain scene).
py::dict runScene(const SceneHandle& h, const std::vector<std::string>& names, int threads, const std::string& out) {
  std::vector<experiment::TrialJob> jobs;
  {
    py::gil_scoped_release release;
    jobs = prepare(h.source, fs::path(out), names);
  }
  const int team = threads > 0 ? threads : (threadsOption(h.source.options) > 0 ? threadsOption(h.source.options)
                                                                                 : omp_get_num_procs());
  bool ok = false;
  try {
    runInterruptible([&] { ok = experiment::simulateTrials(jobs, team); });
  } catch (...) {
    experiment::commitTrials(jobs, false);
    throw;
  }
  std::string commit_error;
  if (!ok || !experiment::commitTrials(jobs, true, &commit_error)) {
    if (ok) throw std::runtime_error(commit_error);
    experiment::commitTrials(jobs, false);
    std::string message;
    for (const experiment::TrialJob& j : jobs) {
      if (j.ok || j.error.empty()) continue;
      if (!message.empty()) message += "\n";
      message += (j.scene.trial.name.empty() ? "" : "trial " + j.scene.trial.name + ": ") + j.error;
    }
    // A divergence, a write failure: the run failed, the input was fine.
    throw std::runtime_error(message.empty() ? "the run failed" : message);
  }
  py::dict summaries;
  for (const experiment::TrialJob& j : jobs) {
    py::dict s;
    s["summary"] = dumpJson(j.summary);
    s["warnings"] = j.warnings;
    s["dir"] = j.dir.string();
    summaries[py::str(j.scene.trial.name)] = s;
  }
  return summaries;
}

// ---- the evaluation ---------------------------------------------------------

/// The keyword settings of evaluate()/identify(), as words (empty: default).
struct EvaluationSettings {
  std::string rest_rows, armature, gear, heating, sensor_delay, gear_twist, suit_geometry, band_model, straps;
  std::vector<std::string> band_joints;
  int threads = 0;
  std::string log_map;  // a robot's own logs through this channel map (docs/logs.md) instead of streams
};

template <class T>
void parseSetting(const std::string& word, const char* name, const std::string& choices,
                  bool (*parse)(const std::string&, T*), T* out) {
  if (!word.empty() && !parse(word, out)) {
    throw std::invalid_argument(std::string(name) + ": needs " + choices + " (got '" + word + "')");
  }
}

eval::EvaluationOptions evaluationOptions(const EvaluationSettings& s) {
  eval::EvaluationOptions eo;
  eval::PipelineOptions& p = eo.pipeline;
  parseSetting(s.rest_rows, "rest_rows", "'exclude' or 'sign-rule'", eval::parseRestRows, &p.identification.rest_rows);
  parseSetting(s.armature, "armature", "'fit', 'known' or 'ignored'", eval::parseArmature, &p.identification.armature);
  parseSetting(s.gear, "gear", "'ideal' or 'fit'", eval::parseGear, &p.identification.gear);
  parseSetting(s.heating, "heating", "'ignored' or 'corrected'", eval::parseHeating, &p.heating);
  parseSetting(s.sensor_delay, "sensor_delay", "'ignored' or 'compensated'", eval::parseSensorDelay, &p.sensor_delay);
  parseSetting(s.gear_twist, "gear_twist", "'ignored' or 'compensated'", eval::parseGearTwist, &p.gear_twist);
  parseSetting(s.suit_geometry, "suit_geometry", "'designed' or 'measured'", eval::parseSuitGeometry, &eo.suit_geometry);
  parseSetting(s.band_model, "band_model", "'elastic', 'viscoelastic', 'capstan' or 'viscoelastic-capstan'",
               eval::parseBandModel, &eo.band_model);
  parseSetting(s.straps, "straps", "'ignored' or 'corrected'", eval::parseStraps, &eo.straps);
  p.identification.threads = s.threads;  // 0: OpenMP's default; the result is the same for any
  eo.band_joints = s.band_joints;
  return eo;
}

// The checks `suitsim evaluate` makes before it runs: each remedy needs what
// it reads, and a named fit joint must be one that moves.
void checkEvaluation(const std::string& scene_path, eval::EvaluationInputs& inputs, const eval::EvaluationOptions& eo) {
  if (inputs.trials.front().name.empty()) {
    throw std::invalid_argument(scene_path +
                                ": no <experiment>: the evaluation needs trials (identification trials without the "
                                "suit, and each motion with and without the suit); see docs/scene-format.md, Experiments");
  }
  eval::pairTrials(inputs);
  eval::pairDeviceTrials(inputs);
  if (eo.pipeline.heating == eval::PipelineOptions::Heating::Corrected) {
    if (!inputs.layout.has_winding_temperatures) {
      throw std::invalid_argument(scene_path + ": heating='corrected' needs the windings' temperatures: "
                                               "<winding_temperatures> in the robot's <sensors>");
    }
    eval::aprioriMagnetCoefficients(inputs, eval::makeRigidModel(inputs.apriori));
  }
  if (eo.pipeline.gear_twist == eval::PipelineOptions::GearTwist::Compensated &&
      std::none_of(inputs.apriori.joints.begin(), inputs.apriori.joints.end(),
                   [](const RobotJoint& j) { return j.actuation.gear_stiffness > 0.0; })) {
    throw std::invalid_argument(scene_path + ": gear_twist='compensated' needs the gears' stiffness from their "
                                             "datasheets: <apriori gear_stiffness_per_effort> in the robot");
  }
  if (eo.straps == eval::Straps::Corrected && !(inputs.attachment_stiffness > 0.0)) {
    throw std::invalid_argument(scene_path + ": straps='corrected' needs the straps' stiffness from a tensile test "
                                             "of them: <apriori attachment_stiffness> in the robot");
  }
  if (eo.suit_geometry == eval::SuitGeometrySource::Measured && !inputs.layout.has_band_lengths) {
    throw std::invalid_argument(scene_path + ": suit_geometry='measured' needs the bands' lengths: "
                                             "<band_lengths> in the robot's <sensors>");
  }
  for (const std::string& j : eo.band_joints) {
    const int k = inputs.apriori.findJoint(j);
    if (k < 0 || inputs.apriori.joints[static_cast<std::size_t>(k)].type == JointType::kFixed) {
      throw std::invalid_argument("band_joints: '" + j + "' is no joint of the robot that can move");
    }
  }
}

/// An evaluation's result, as the evaluator returned it, with what the
/// report needs to render it. No field holds a truth.
struct EvaluationHandle {
  std::string scene_path;
  SceneOptions scene_options;
  eval::EvaluationInputs inputs;
  eval::EvaluationOptions options;
  eval::EvaluationResult result;
  std::string streams_dir;     ///< as report.json's run settings say it ("" : simulated by this evaluation's caller)
  std::string identification;  ///< identification.json's text
  double simulation_wall_s = 0.0, evaluation_wall_s = 0.0;
};

std::shared_ptr<EvaluationHandle> evaluate(const SceneHandle& scene, const std::string& streams_dir,
                                           const std::string& reported_streams_dir, const EvaluationSettings& settings,
                                           double simulation_wall_s) {
  auto h = std::make_shared<EvaluationHandle>();
  h->scene_path = scene.source.path;
  h->scene_options = scene.source.options;
  h->options = evaluationOptions(settings);
  h->streams_dir = reported_streams_dir;
  h->simulation_wall_s = simulation_wall_s;
  const auto start = std::chrono::steady_clock::now();
  {
    py::gil_scoped_release release;
    h->inputs = eval::loadEvaluationInputs(h->scene_path);
    checkEvaluation(h->scene_path, h->inputs, h->options);
  }
  runInterruptible([&] { h->result = eval::evaluateStreams(h->inputs, streams_dir, h->options); });
  // As `suitsim evaluate` writes identification.json: the robot's fit and
  // each suit's band fits.
  nlohmann::ordered_json id_json =
      report::identificationJson(h->result.identification, h->inputs.scene_name, h->options.pipeline);
  id_json["band_fits"] = report::bandFitsJson(h->result);
  h->identification = dumpJson(id_json);
  h->evaluation_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return h;
}

py::dict suitEstimates(const EvaluationHandle& h) {
  py::dict suits;
  for (const eval::SuitFit& suit : h.result.suits) {
    py::dict methods;
    for (const auto& m : suit.methods) {
      py::dict groups;
      for (std::size_t g = 0; g < suit.group_order.size() && g < m.groups.size(); ++g) {
        const eval::GroupEstimate& e = m.groups[g];
        py::dict gd;
        gd["identifiable"] = e.identifiable;
        gd["stiffness"] = e.identifiable ? py::object(py::float_(e.stiffness)) : py::none();
        gd["reason"] = e.reason;
        groups[py::str(suit.group_order[g])] = gd;
      }
      methods[py::str(eval::methodKey(m.method))] = groups;
    }
    suits[py::str(suit.suit)] = methods;
  }
  return suits;
}

/// The supporting-torque curves of every suit trial against its bare trial
/// (A(3), A(4)): the evaluator's estimates, no model curve (that is scoring).
py::list supportCurves(const EvaluationHandle& h) {
  const eval::RigidModel model = eval::makeRigidModel(h.inputs.apriori);
  py::list out;
  for (const eval::SupportCurves& c : h.result.curves) {
    py::dict d;
    d["motion"] = c.motion;
    d["suit"] = c.suit;
    d["bare_trial"] = c.bare_trial;
    d["suit_trial"] = c.suit_trial;
    d["joints"] = model.joint_name;
    d["time"] = c.time;
    d["angle"] = c.angle;
    d["velocity"] = c.velocity;
    d["rest"] = c.rest;
    py::dict methods;
    for (std::size_t m = 0; m < c.method.size(); ++m) methods[py::str(eval::methodKey(eval::kSupportMethods[m]))] = c.method[m];
    d["estimates"] = methods;
    // The joints the band fit chose for this motion and suit, and the one
    // the motion is about (what the report plots), with the reason.
    for (const eval::SuitFit& suit : h.result.suits) {
      if (suit.suit != c.suit) continue;
      for (const eval::FitJoints& f : suit.fit_joints) {
        if (f.motion != c.motion) continue;
        d["fit_joints"] = f.joints;
        d["figure_joint"] = f.figure_joint;
        d["fit_joints_reason"] = f.reason;
      }
    }
    out.append(d);
  }
  return out;
}

/// report.json and report.md: the evaluation scored against the truth of
/// the scene and of the run's truth files in `truth_dir`.
py::tuple scoreEvaluation(const EvaluationHandle& h, const std::string& truth_dir) {
  report::Truth truth;
  report::Score score;
  report::RunInfo run;
  {
    py::gil_scoped_release release;
    const std::optional<io::Realism> realism = realismOverride(h.scene_options);
    truth = report::loadTruth(h.scene_path, realism ? &*realism : nullptr);
    std::vector<std::string> names, device_trials;
    for (const eval::TrialInfo& t : h.inputs.trials) {
      names.push_back(t.name);
      if (t.device != "none") device_trials.push_back(t.name);
    }
    report::loadBalanceTruth(truth_dir, names, truth);
    report::loadStrapTruth(truth_dir, device_trials, truth);
    score = report::scoreEvaluation(h.result, truth);
  }
  run.scene_path = h.scene_path;
  run.noise = h.scene_options.noise ? (*h.scene_options.noise ? "on" : "off") : "scene";
  run.stribeck = h.scene_options.stribeck && !*h.scene_options.stribeck ? "off" : "scene";
  run.realism = truth.realism;
  run.streams_dir = h.streams_dir;
  run.suit_geometry = eval::suitGeometryName(h.options.suit_geometry);
  run.band_model = eval::bandModelName(h.options.band_model);
  run.straps = eval::strapsName(h.options.straps);
  run.num_trials = h.inputs.trials.size();
  run.simulation_wall_s = h.simulation_wall_s;
  run.wall_s = h.simulation_wall_s + h.evaluation_wall_s;
  const ordered_json id_json = ordered_json::parse(h.identification);
  const ordered_json report_json = report::reportJson(h.result, score, run, id_json, {});
  return py::make_tuple(dumpJson(report_json), report::reportMarkdown(h.result, score, run, {}, ""));
}

std::string identify(const SceneHandle& scene, const std::string& streams_dir, const EvaluationSettings& settings) {
  const eval::EvaluationOptions eo = evaluationOptions(settings);
  eval::EvaluationInputs inputs;
  eval::IdentificationOutcome outcome;
  {
    py::gil_scoped_release release;
    inputs = eval::loadEvaluationInputs(scene.source.path);
  }
  eval::PipelineOptions pipeline = eo.pipeline;
  std::shared_ptr<const eval::LogReading> logs;
  if (!settings.log_map.empty()) {
    py::gil_scoped_release release;
    logs = eval::readLogsFor(settings.log_map, &inputs, &pipeline);
  }
  runInterruptible([&] { outcome = eval::identifyFromStreams(inputs, streams_dir, pipeline); });
  nlohmann::ordered_json json = report::identificationJson(outcome, inputs.scene_name, pipeline);
  if (logs) json["log"] = report::logJson(*logs);
  return dumpJson(json);
}

EvaluationSettings settingsFrom(const py::dict& d) {
  EvaluationSettings s;
  const auto word = [&](const char* key, std::string* out) {
    if (d.contains(key) && !d[key].is_none()) *out = py::cast<std::string>(d[key]);
  };
  word("rest_rows", &s.rest_rows);
  word("armature", &s.armature);
  word("gear", &s.gear);
  word("heating", &s.heating);
  word("sensor_delay", &s.sensor_delay);
  word("gear_twist", &s.gear_twist);
  word("suit_geometry", &s.suit_geometry);
  word("band_model", &s.band_model);
  word("straps", &s.straps);
  word("log", &s.log_map);
  if (d.contains("band_joints") && !d["band_joints"].is_none()) {
    s.band_joints = py::cast<std::vector<std::string>>(d["band_joints"]);
  }
  if (d.contains("threads") && !d["threads"].is_none()) s.threads = py::cast<int>(d["threads"]);
  return s;
}

}  // namespace

}  // namespace suitsim::python

PYBIND11_MODULE(_core, m) {
  using namespace suitsim;
  using namespace suitsim::python;
  m.doc() = "suitsim's compiled core; use the `suitsim` package, which wraps it (docs/python.md).";

  // Bad input is a ValueError carrying the command line's "file:line: ..."
  // message; a run that fails (a divergence) stays a RuntimeError.
  static py::exception<io::SceneError> scene_error(m, "SceneError", PyExc_ValueError);
  static py::exception<eval::StreamError> stream_error(m, "StreamError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const io::SceneError& e) {
      scene_error(e.what());
    } catch (const eval::StreamError& e) {
      stream_error(e.what());
    } catch (const Stopped&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });

  py::class_<SceneHandle, std::shared_ptr<SceneHandle>>(m, "SceneHandle");
  m.def(
      "load_scene",
      [](const std::string& path, const std::string& trial, std::optional<double> dt, std::optional<double> duration,
         std::optional<bool> noise, std::optional<bool> stribeck, std::optional<std::string> realism,
         std::optional<int> threads) {
        SceneOptions o{dt, duration, noise, stribeck, realism, threads};
        return loadScene(path, trial, o);
      },
      py::arg("path"), py::arg("trial"), py::arg("dt"), py::arg("duration"), py::arg("noise"), py::arg("stribeck"),
      py::arg("realism"), py::arg("threads"));
  m.def("scene_info", &sceneInfo, py::arg("scene"));
  m.def("run", &runScene, py::arg("scene"), py::arg("trials"), py::arg("threads"), py::arg("out"));

  py::class_<EvaluationHandle, std::shared_ptr<EvaluationHandle>>(m, "EvaluationHandle")
      .def_readonly("identification_json", &EvaluationHandle::identification)
      .def_property_readonly("suits", &suitEstimates)
      .def_property_readonly("curves", &supportCurves)
      .def_readonly("scene_path", &EvaluationHandle::scene_path);
  m.def(
      "evaluate",
      [](const SceneHandle& scene, const std::string& streams_dir, const std::string& reported_dir,
         const py::dict& settings, double simulation_wall_s) {
        return evaluate(scene, streams_dir, reported_dir, settingsFrom(settings), simulation_wall_s);
      },
      py::arg("scene"), py::arg("streams_dir"), py::arg("reported_streams_dir"), py::arg("settings"),
      py::arg("simulation_wall_s"));
  m.def("score", &scoreEvaluation, py::arg("evaluation"), py::arg("truth_dir"));
  m.def(
      "identify",
      [](const SceneHandle& scene, const std::string& streams_dir, const py::dict& settings) {
        return identify(scene, streams_dir, settingsFrom(settings));
      },
      py::arg("scene"), py::arg("streams_dir"), py::arg("settings"));

  bindTables(m);
  bindSimulation(m);
  bindSweeps(m);
}
