// Compiling a read scene (SceneDescription) into the engine's Model: the
// world's particle elements in file order, the true robot with its suit and
// device, the servo, sensors and motion put on the model's hinges and
// bodies, then the records. Everything the reader could check on the
// description was checked there; what is left is what only the particles
// show (a moving link without mass, a lattice beyond the machine's memory,
// a device that does not fit its robot), each at its element's line.
#include <algorithm>
#include <map>

#include "experiment_reader.h"
#include "robot_scene.h"
#include "scene_schema.h"
#include "suitsim/builder.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/xml_reader.h"
#include "world_elements.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

Scene compileScene(const SceneDescription& description) {
  const std::string& path = description.path;
  if (!description.document || !description.document->RootElement()) {
    throw SceneError(path + ": the scene description holds no parsed file to compile (read it with readScene)");
  }
  const XMLElement* root = description.document->RootElement();
  const std::string root_location = path + ":" + std::to_string(root->GetLineNum()) + ": <scene>";
  Scene scene;
  scene.path = path;
  scene.name = description.name;
  scene.trial = description.trial;
  scene.simulation = description.simulation;
  scene.evaluation = description.evaluation;
  scene.realism = description.realism;
  scene.ground_line = description.ground_line;

  ModelBuilder builder;
  if (description.gravity) builder.setGravity(*description.gravity);
  if (description.ground.enabled) builder.setGround(description.ground);
  Names names;
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "spring" || tag == "cloth" || tag == "block" || tag == "robot") {
      scene.spring_sources.push_back({tag, e->GetLineNum(), builder.numSprings()});
    }
    if (tag == "particle") {
      readParticle(readerFor(path, e), builder, names);
    } else if (tag == "spring") {
      readSpring(readerFor(path, e), builder, names);
    } else if (tag == "cloth") {
      readCloth(readerFor(path, e), builder, names);
    } else if (tag == "block") {
      readBlock(readerFor(path, e), builder, names);
    } else if (tag == "robot" && description.robot) {
      scene.robot = compileRobot(path, e, *description.robot, builder);
      // Robot bodies can be recorded like cloths and blocks (their com).
      const RobotSetup& robot = *scene.robot;
      // Every link, merged ones too, names the body it belongs to.
      const int first_body = robot.compiled.link_body[robot.truth.root_link];
      for (std::size_t l = 0; l < robot.truth.links.size(); ++l) {
        const int b = robot.compiled.link_body[l] - first_body;
        std::vector<int>& members = names.bodies[robot.truth.links[l].name];
        for (int k = 0; k < robot.compiled.body_num_particles[b]; ++k) {
          members.push_back(robot.compiled.body_first_particle[b] + k);
        }
      }
    }
  }
  try {
    scene.model = builder.build();
  } catch (const ModelError& e) {
    throw SceneError(root_location + " " + e.what());
  }
  if (scene.robot) finishSensors(scene.model, *scene.robot);
  // The trial names the recording: its noise is its own (sensors.h).
  if (scene.robot && scene.robot->sensors) scene.robot->sensors->recording = description.trial.name;
  scene.model.spring_arithmetic = scene.simulation.arithmetic;
  // --stribeck off: the joints keep their Coulomb and viscous friction and
  // lose the drop at low speed (the same switch the evaluator's model has).
  if (description.stribeck_off) {
    std::fill(scene.model.hinge_stribeck_velocity.begin(), scene.model.hinge_stribeck_velocity.end(), 0.0);
  }
  for (const XMLElement* e = root->FirstChildElement("record"); e; e = e->NextSiblingElement("record")) {
    // A band of a suit this trial does not wear has nothing to record.
    const ElementReader rr = readerFor(path, e);
    if (rr.has("band") && scene.model.findBand(rr.text("band")) < 0 && bandOfSomeSuit(root, rr.text("band"))) continue;
    scene.channels.push_back(readRecord(rr, scene.model, names));
  }
  return scene;
}

}  // namespace suitsim::io
