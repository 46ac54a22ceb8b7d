// Reading a scene file: passes 1-3 (scene_schema.cpp), then <simulation>
// with the caller's overrides, the world (world_elements.cpp), the robot
// (robot_scene.h), the experiment (experiment_reader.cpp) and <realism>
// (realism_reader.cpp), into a SceneDescription; no particle is built
// (the compile, scene_compile.cpp, builds them).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "experiment_reader.h"
#include "realism_reader.h"
#include "robot_scene.h"
#include "scene_schema.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/xml_reader.h"
#include "world_elements.h"
#include "suitsim/core/number_text.h"

namespace suitsim::io {

namespace {

using tinyxml2::XMLElement;

// The overrides replace the scene's values before any check, so an error
// names the <simulation> line and says which value was the option's.
void readSimulation(const ElementReader& r, const SceneOverrides& overrides, SimulationSettings& sim) {
  const std::string integrator = r.text("integrator");
  if (!parseIntegrator(integrator, &sim.integrator)) {
    r.failAttribute("integrator", "must be semi_implicit_euler, velocity_verlet, rk4 or position_verlet");
  }
  sim.dt = r.positive("dt", r.number("dt"));
  sim.duration = r.positive("duration", r.number("duration"));
  sim.output_rate = r.positive("output_rate", r.number("output_rate", 100.0));
  if (!parseSpringArithmetic(r.text("arithmetic", "separate"), &sim.arithmetic)) {
    r.failAttribute("arithmetic", "must be separate or fused");
  }
  sim.threads = r.integer("threads", 0);
  sim.line = r.line();
  // The same bound as the --threads option: OpenMP cannot start more teams
  // than that on any machine we know of, and a huge team crashes inside it.
  if (sim.threads < 0 || sim.threads > 1024) {
    r.failAttribute("threads", "must be a whole number from 0 to 1024 (0 means one per core)");
  }
  // The scene's own rate against its own step; under a longer --dt the
  // stream is written at every step and its header says at what rate.
  if (sim.output_rate * sim.dt > 1.0 + 1e-12) {
    r.failAttribute("output_rate", "must not exceed 1/dt (one sample per step at most)");
  }
  if (overrides.dt > 0.0) sim.dt = overrides.dt;
  if (overrides.duration > 0.0) sim.duration = overrides.duration;
  if (overrides.threads > 0) sim.threads = overrides.threads;
  const auto from = [](bool overridden, const char* option) {
    return overridden ? std::string(" (") + option + "'s)" : std::string();
  };
  const std::string dt_from = from(overrides.dt > 0.0, "--dt");
  const std::string duration_from = from(overrides.duration > 0.0, "--duration");
  if (sim.dt > sim.duration) {
    r.fail("the time step is longer than the duration (dt = " + significantText(sim.dt, 9) + " s" + dt_from +
           ", duration = " + significantText(sim.duration, 9) + " s" + duration_from + ")");
  }
  if (!(sim.duration / sim.dt <= kMaxSteps)) {
    char message[200];
    std::snprintf(message, sizeof message, "duration / dt = %.3g steps; at most %.0e are allowed",
                  sim.duration / sim.dt, kMaxSteps);
    r.fail(message + dt_from + duration_from);
  }
}

}  // namespace

Scene loadScene(const std::string& path, const std::string& trial_name, const Realism* realism) {
  SceneOverrides overrides;
  if (realism) overrides.realism = *realism;
  return loadScene(path, trial_name, overrides);
}

Scene loadScene(const std::string& path, const std::string& trial_name, const SceneOverrides& overrides) {
  return compileScene(readScene(path, trial_name, overrides));
}

SceneDescription readScene(const std::string& path, const std::string& trial_name, const SceneOverrides& overrides) {
  auto doc = std::make_shared<tinyxml2::XMLDocument>();
  const XMLElement* root = checkScene(path, *doc);
  const ElementReader root_reader(path, root, {"name", "relative_to"});
  const std::vector<TrialSpec> trials = readTrials(path, root);
  TrialSpec trial;
  if (!trials.empty()) {
    trial = trials.front();
    if (!trial_name.empty()) {
      const auto it = std::find_if(trials.begin(), trials.end(), [&](const TrialSpec& t) { return t.name == trial_name; });
      if (it == trials.end()) throw SceneError(path + ": no trial named '" + trial_name + "' in the experiment");
      trial = *it;
    }
  } else if (!trial_name.empty()) {
    throw SceneError(path + ": has no <experiment>, so no trial '" + trial_name + "'");
  }

  // Pass 4: read in file order, checking references and physics; the
  // elements that are particles wait for the compile (scene_compile.cpp).
  SceneDescription scene;
  scene.path = path;
  scene.trial = trial;
  scene.name = root_reader.text("name", std::filesystem::path(path).stem().string());
  // The name is written into the stream's comment header: one line only.
  if (std::any_of(scene.name.begin(), scene.name.end(), [](unsigned char c) { return std::iscntrl(c); })) {
    root_reader.failAttribute("name", "must not contain line breaks or control characters");
  }

  readSimulation(readerFor(path, root->FirstChildElement("simulation")), overrides, scene.simulation);
  if (const XMLElement* e = root->FirstChildElement("world")) {
    scene.gravity = readerFor(path, e).vec3("gravity", {0.0, 0.0, -9.81});
  }
  if (const XMLElement* e = root->FirstChildElement("ground")) {
    scene.ground = readGround(readerFor(path, e));
    scene.ground_line = e->GetLineNum();
  }
  if (overrides.realism) {
    scene.realism = *overrides.realism;
  } else if (const XMLElement* e = root->FirstChildElement("realism")) {
    scene.realism = readRealism(path, e);
  }
  if (const XMLElement* e = root->FirstChildElement("robot")) {
    scene.robot = readRobot(path, e, scene.ground, scene.trial, scene.simulation, overrides, scene.realism);
  }
  scene.stribeck_off = overrides.no_stribeck;
  scene.evaluation = readEvaluationSpec(path, root);
  if (scene.robot) {
    checkEvaluationJoints(path, scene.robot->truth, scene.evaluation.validation_joints, scene.evaluation.line,
                          "evaluation", "validation_joints");
    checkEvaluationJoints(path, scene.robot->truth, scene.trial.fit_joints, scene.trial.fit_joints_line, "motion",
                          "fit_joints");
  }
  scene.document = std::move(doc);
  return scene;
}

}  // namespace suitsim::io
