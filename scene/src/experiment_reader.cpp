#include "experiment_reader.h"

#include <algorithm>
#include <cctype>

#include "scene_schema.h"
#include "suitsim/core/text_input.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

namespace {

// Names used as file-name parts and CSV labels: letters, digits, '_', '-', '.'.
// Names separated by white space or commas ("A B", "A,B").
std::vector<std::string> splitNames(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + " ") {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

bool isPlainName(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '_' || c == '-' || c == '.';
         });
}

// The named children `tag` of the robot, checked for unique, plain names.
// Without an experiment a robot may have one unnamed <motion>.
std::vector<std::string> namedChildren(const std::string& path, const XMLElement* robot, const char* tag,
                                       bool named) {
  std::vector<std::string> names;
  const XMLElement* first = nullptr;
  for (const XMLElement* c = robot ? robot->FirstChildElement(tag) : nullptr; c; c = c->NextSiblingElement(tag)) {
    const ElementReader r(path, c, {"name", "file", "stiffness", "fit_joints"});
    if (!named) {
      if (first) {
        throw SceneError(path + ":" + std::to_string(c->GetLineNum()) + ": <" + tag +
                         "> may appear only once outside an experiment (first at line " +
                         std::to_string(first->GetLineNum()) + "); name each and list trials in <experiment>");
      }
      first = c;
      continue;
    }
    if (!r.has("name")) r.fail("needs a name inside an experiment (trials refer to it)");
    const std::string name = r.text("name");
    if (!isPlainName(name)) r.failAttribute("name", "must be letters, digits, '_', '-' or '.'");
    if (std::find(names.begin(), names.end(), name) != names.end()) r.failAttribute("name", "repeats an earlier name");
    names.push_back(name);
  }
  return names;
}

}  // namespace

std::vector<TrialSpec> readTrials(const std::string& path, const XMLElement* root) {
  const XMLElement* experiment = root->FirstChildElement("experiment");
  const XMLElement* robot = root->FirstChildElement("robot");
  // Suits are always named (a trial or the viewer picks one).
  const std::vector<std::string> suits = namedChildren(path, robot, "suit", true);
  std::vector<std::string> devices;  // <exoskeleton> names (its reader checks them)
  for (const XMLElement* c = robot ? robot->FirstChildElement("exoskeleton") : nullptr; c;
       c = c->NextSiblingElement("exoskeleton")) {
    if (const char* name = c->Attribute("name")) devices.push_back(name);
  }
  const std::vector<std::string> motions = namedChildren(path, robot, "motion", experiment != nullptr);
  std::vector<TrialSpec> trials;
  if (!experiment) return trials;
  const std::string where = path + ":" + std::to_string(experiment->GetLineNum()) + ": <experiment>";
  if (!robot) throw SceneError(where + " needs a <robot> to run its trials on");
  for (const XMLElement* t = experiment->FirstChildElement("trial"); t; t = t->NextSiblingElement("trial")) {
    const ElementReader r(path, t, {"name", "motion", "suit", "purpose", "device"});
    TrialSpec trial;
    trial.line = t->GetLineNum();
    trial.name = r.text("name");
    if (!isPlainName(trial.name)) r.failAttribute("name", "must be letters, digits, '_', '-' or '.' (it names files)");
    // OUT/<trial>/ must be a directory of its own inside OUT.
    if (trial.name == "." || trial.name == "..") {
      r.failAttribute("name", "must not be '.' or '..' (it names the trial's output directory)");
    }
    for (const TrialSpec& other : trials) {
      if (other.name == trial.name) r.failAttribute("name", "repeats trial '" + other.name + "'");
    }
    trial.motion = r.text("motion");
    if (std::find(motions.begin(), motions.end(), trial.motion) == motions.end()) {
      r.failAttribute("motion", "names no <motion> of the robot");
    }
    // The joints the band fit uses for this motion, if the scene names them.
    for (const XMLElement* m = robot->FirstChildElement("motion"); m; m = m->NextSiblingElement("motion")) {
      const char* name = m->Attribute("name");
      if (!name || trial.motion != name) continue;
      const ElementReader mr(path, m, {"name", "file", "fit_joints"});
      if (mr.has("fit_joints")) {
        trial.fit_joints = splitNames(mr.text("fit_joints"));
        trial.fit_joints_line = m->GetLineNum();
        if (trial.fit_joints.empty()) mr.failAttribute("fit_joints", "names no joint");
      }
    }
    trial.suit = r.text("suit", "none");
    if (trial.suit != "none" && std::find(suits.begin(), suits.end(), trial.suit) == suits.end()) {
      r.failAttribute("suit", "names no <suit> of the robot (or none)");
    }
    trial.purpose = r.text("purpose", "evaluation");
    if (trial.purpose != "evaluation" && trial.purpose != "identification") {
      r.failAttribute("purpose", "must be evaluation or identification");
    }
    if (trial.purpose == "identification" && trial.suit != "none") {
      r.failAttribute("suit", "must be none for an identification trial (the robot is identified without the suit)");
    }
    trial.device = r.text("device", "none");
    if (trial.device != "none" && std::find(devices.begin(), devices.end(), trial.device) == devices.end()) {
      r.failAttribute("device", "names no <exoskeleton> of the robot (or none)");
    }
    if (trial.purpose == "identification" && trial.device != "none") {
      r.failAttribute("device", "must be none for an identification trial (the robot is identified without a device)");
    }
    if (trial.device != "none" && trial.suit != "none") {
      r.failAttribute("device", "is worn with suit '" + trial.suit +
                                    "': a trial wears a suit or a device, so that each is evaluated on its own");
    }
    trials.push_back(trial);
  }
  if (trials.empty()) throw SceneError(where + " lists no <trial>");
  return trials;
}

EvaluationSpec readEvaluationSpec(const std::string& path, const XMLElement* root) {
  EvaluationSpec spec;
  const XMLElement* experiment = root->FirstChildElement("experiment");
  const XMLElement* e = experiment ? experiment->FirstChildElement("evaluation") : nullptr;
  if (!e) return spec;
  const ElementReader r(path, e, {"validation_joints"});
  spec.line = e->GetLineNum();
  if (r.has("validation_joints")) {
    spec.validation_joints = splitNames(r.text("validation_joints"));
    if (spec.validation_joints.empty()) r.failAttribute("validation_joints", "names no joint");
  }
  return spec;
}

// Every joint the evaluation settings name must be a movable joint of the
// robot: a missing name is an error, never a fallback.
void checkEvaluationJoints(const std::string& path, const RobotDescription& robot, const std::vector<std::string>& joints,
                           int line, const char* element, const char* attribute) {
  for (const std::string& j : joints) {
    const int k = robot.findJoint(j);
    if (k < 0 || robot.joints[static_cast<std::size_t>(k)].type == JointType::kFixed) {
      throw SceneError(path + ":" + std::to_string(line) + ": <" + element + "> attribute '" + attribute +
                       "' names no movable joint of the robot (got '" + j + "')");
    }
  }
}

bool bandOfSomeSuit(const XMLElement* root, const std::string& band) {
  const XMLElement* robot = root->FirstChildElement("robot");
  for (const XMLElement* suit = robot ? robot->FirstChildElement("suit") : nullptr; suit;
       suit = suit->NextSiblingElement("suit")) {
    for (const XMLElement* b = suit->FirstChildElement("band"); b; b = b->NextSiblingElement("band")) {
      if (const char* name = b->Attribute("name"); name && band == name) return true;
    }
  }
  return false;
}

std::vector<TrialSpec> listTrials(const std::string& path) {
  tinyxml2::XMLDocument doc;
  return readTrials(path, checkScene(path, doc));
}

}  // namespace suitsim::io
