// `suitsim info FILE [--json]`: what a scene or a URDF builds, checked before
// a long run. Reads the file, compiles it into a Model and prints counts,
// masses, links, joints, recorded channels and a stable-step estimate, and
// for a standing robot its balance: centre of mass, support polygon and ZMP
// margin in the initial pose, and the smallest ZMP margin over each motion.
//
// Everything is gathered into one ordered JSON object first and the text
// report is printed from that object, so `--json` and the text can never
// disagree. Nothing is written to any file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/core/text_input.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/stance.h"
#include "suitsim/sensors.h"
#include "suitsim/scene/urdf.h"
#include "suitsim/recorder.h"
#include "suitsim/robot/robot.h"
#include "suitsim/servo_stability.h"
#include "suitsim/step.h"

namespace suitsim::cli {

namespace {

using Json = nlohmann::ordered_json;

struct InfoOptions {
  std::string path;
  bool json = false;
};

// ---- which reader ----------------------------------------------------------------

// The root element decides, not the extension (URDFs are often .xml). The
// CLI does not include tinyxml2 (only the scene library does), so this skims the
// prolog by hand: BOM, blanks, <?...?>, <!--...-->, <!DOCTYPE ...>. Only a
// <robot> root goes to the URDF reader; anything else, including a file that
// cannot be read or skimmed, goes to the scene reader, which then reports it
// exactly as `suitsim run` would.
bool hasUrdfRoot(const std::string& path) {
  // Opening a FIFO blocks until a writer comes: anything but a regular file
  // goes to the scene reader, which refuses it.
  if (!regularFileProblem(path).empty()) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  // A prolog longer than this is not one we need to recognise.
  std::string text(1 << 20, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  auto skipPast = [&](const char* end) {
    const std::size_t k = text.find(end, i);
    i = k == std::string::npos ? text.size() : k + std::char_traits<char>::length(end);
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (text.compare(i, 2, "<?") == 0) {
      skipPast("?>");
    } else if (text.compare(i, 4, "<!--") == 0) {
      skipPast("-->");
    } else if (text.compare(i, 2, "<!") == 0) {
      // <!DOCTYPE name [ internal subset ]>: the subset may hold '>'.
      const std::size_t close = text.find('>', i);
      const std::size_t open = text.find('[', i);
      if (open != std::string::npos && open < close) {
        i = open;
        skipPast("]");
      }
      skipPast(">");
    } else if (c == '<') {
      const std::size_t end = text.find_first_of(" \t\r\n/>", i + 1);
      return text.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1) == "robot";
    } else {
      return false;
    }
  }
  return false;
}

// ---- gathering ---------------------------------------------------------------------


// The ZMP over a motion is sampled this often (s): minimum-jerk segments
// last seconds, so their extremes are found to well under a millimetre.
constexpr double kZmpSampleStep = 0.01;

// JSON has no infinity (nlohmann would write null anyway); say so on purpose.
Json finiteOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

// Counts and masses of the compiled particle model, common to both kinds.
void addModelCounts(const Model& model, Json& j) {
  j["num_bodies"] = model.num_bodies;
  j["num_particles"] = model.num_particles;
  j["num_springs"] = model.num_springs;
  j["num_hinges"] = model.num_hinges;
  j["num_contacts"] = model.numContacts();
  j["total_mass_kg"] = model.totalMass();
}

// Links with the body each merged into (links joined by fixed joints share
// one body, named after one of them), and every joint of the description:
// fixed (and frozen) ones too, with hinge null, so nothing is hidden;
// num_joints counts only those that move.
void addRobotTree(const RobotDescription& robot, const CompiledRobot& compiled, const Model& model,
                  bool with_actuation, Json& j) {
  j["num_links"] = robot.links.size();
  j["num_joints"] = robot.movableJoints().size();
  j["num_fixed_joints"] = robot.joints.size() - robot.movableJoints().size();
  Json links = Json::array();
  for (std::size_t l = 0; l < robot.links.size(); ++l) {
    const int b = compiled.link_body[l];
    links.push_back({{"name", robot.links[l].name},
                     {"mass_kg", robot.links[l].inertial.mass},
                     {"body", b >= 0 && b < model.num_bodies ? Json(model.body_name[b]) : Json(nullptr)}});
  }
  Json joints = Json::array();
  for (std::size_t k = 0; k < robot.joints.size(); ++k) {
    const RobotJoint& joint = robot.joints[k];
    const int h = k < compiled.joint_hinge.size() ? compiled.joint_hinge[k] : -1;
    Json e = {{"name", joint.name},
              {"type", jointTypeName(joint.type)},
              {"axis", {joint.axis[0], joint.axis[1], joint.axis[2]}},
              {"lower", finiteOrNull(joint.lower)},
              {"upper", finiteOrNull(joint.upper)},
              {"hinge", h >= 0 ? Json(h) : Json(nullptr)}};
    if (with_actuation && h >= 0) {
      // A(6)-(7): the true actuator and friction parameters of the scene.
      const JointActuation& a = joint.actuation;
      e["motor_constant_nm_per_a"] = a.motor_constant;
      e["torque_offset_nm"] = a.torque_offset;
      e["viscous_nms_per_rad"] = a.viscous;
      e["coulomb_nm"] = a.coulomb;
      e["static_max_nm"] = a.static_max;
      e["stribeck_velocity_rad_s"] = a.stribeck_velocity;
      e["armature_kg_m2"] = a.armature;
    }
    joints.push_back(std::move(e));
  }
  j["links"] = std::move(links);
  j["joints"] = std::move(joints);
}

// ---- <mimic> joints ---------------------------------------------------------------
// Every URDF <mimic> joint and what became of it: "coupled" (the engine
// holds it at multiplier x leader + offset), "frozen" (the scene froze it;
// the coupling is dropped) or "frozen with its leader" (the scene froze the
// leader, so the follower was welded where the coupling puts it).
Json mimicJoints(const RobotDescription& robot) {
  Json out = Json::array();
  for (std::size_t k = 0; k < robot.joints.size(); ++k) {
    const RobotJoint& joint = robot.joints[k];
    if (joint.mimic.joint.empty()) continue;
    const int leader = robot.findJoint(joint.mimic.joint);
    const bool leader_fixed = leader >= 0 && robot.joints[leader].type == JointType::kFixed;
    const char* status = joint.type != JointType::kFixed ? "coupled"
                         : leader_fixed                  ? "frozen with its leader"
                                                         : "frozen";
    out.push_back({{"name", joint.name},
                   {"leader", joint.mimic.joint},
                   {"multiplier", joint.mimic.multiplier},
                   {"offset_rad", joint.mimic.offset},
                   {"status", status}});
  }
  return out;
}

// A bare URDF, built exactly as a scene would build it, with nothing a scene
// adds: floating base, default compile options, zero pose, no contacts.
Json urdfInfo(const std::string& path) {
  RobotDescription robot = io::loadUrdf(path);
  robot.floating_base = true;
  ModelBuilder builder;
  RobotPose pose;
  pose.joint_angles.assign(robot.joints.size(), 0.0);
  const RobotCompileOptions options;
  const CompiledRobot compiled = addRobot(builder, robot, pose, {}, options);
  const Model model = builder.build();

  Json j;
  j["file"] = path;
  j["kind"] = "urdf";
  j["robot"] = {{"name", robot.name}, {"base", "floating"}, {"link_frequency_rad_s", options.link_frequency}};
  addRobotTree(robot, compiled, model, false, j);
  j["mimic_joints"] = mimicJoints(robot);
  addModelCounts(model, j);
  j["omega_max_rad_s"] = maxNaturalFrequency(model);
  return j;
}

Json point(const Eigen::Vector2d& p) { return Json::array({p.x(), p.y()}); }

// Balance on the rigid model the experimenter knows (a-priori set plus the
// held objects, io/stance.h): the initial pose's CoM, support polygon and
// static ZMP margin, and per motion the smallest ZMP margin with the feet
// flat. Null with a reason where it does not apply.
Json balanceInfo(const io::Scene& scene) {
  const io::RobotSetup& robot = *scene.robot;
  Json j;
  if (!robot.truth.floating_base) return Json{{"reason", "fixed base"}};
  io::Stance stance;
  try {
    stance = io::makeStance(robot);
  } catch (const std::invalid_argument& e) {
    return Json{{"reason", std::string("no rigid model: ") + e.what()}};
  }
  const io::StanceBalance b = io::initialBalance(stance);
  j["model"] = "a priori + held objects";
  j["ground_axes"] = {{"normal", {stance.ground.normal.x(), stance.ground.normal.y(), stance.ground.normal.z()}},
                      {"u", {stance.ground.u.x(), stance.ground.u.y(), stance.ground.u.z()}},
                      {"v", {stance.ground.v.x(), stance.ground.v.y(), stance.ground.v.z()}}};
  j["com_m"] = {b.com.x(), b.com.y(), b.com.z()};
  j["com_ground_m"] = point(b.com_ground);
  Json polygon = Json::array();
  for (const Eigen::Vector2d& v : b.polygon.vertices) polygon.push_back(point(v));
  j["support_polygon_m"] = std::move(polygon);
  j["zmp_margin_m"] = finiteOrNull(b.margin);
  // One entry per motion: the first trial that runs it (or the scene itself).
  Json motions = Json::array();
  std::vector<io::TrialSpec> trials = io::listTrials(scene.path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  std::vector<std::string> seen;
  for (const io::TrialSpec& t : trials) {
    if (std::find(seen.begin(), seen.end(), t.motion) != seen.end()) continue;
    seen.push_back(t.motion);
    // Another trial's motion needs its description only (no particles).
    const std::optional<io::SceneDescription> other =
        t.name.empty() ? std::nullopt : std::optional<io::SceneDescription>(io::readScene(scene.path, t.name));
    const io::SceneRobot& r = other ? *other->robot : *scene.robot;
    Json m = {{"motion", t.motion.empty() ? Json(nullptr) : Json(t.motion)}};
    if (r.joint_motion.hinges().empty() || b.polygon.empty()) {
      m["min_zmp_margin_m"] = nullptr;
    } else {
      try {
        const eval::ZmpSummary z = io::motionBalance(r, io::makeStance(r), kZmpSampleStep);
        m["min_zmp_margin_m"] = z.min_margin;
        m["time_s"] = z.time;
        m["zmp_m"] = point(z.zmp);
        m["num_samples"] = z.num_samples;
      } catch (const std::runtime_error& e) {
        // The robot leaves the ground in the motion (no normal force): no ZMP.
        m["min_zmp_margin_m"] = nullptr;
        m["reason"] = e.what();
      }
    }
    motions.push_back(std::move(m));
  }
  j["motions"] = std::move(motions);
  return j;
}

// The servo's stability check (servo_stability.h), the one `suitsim run`
// makes before it starts: per servoed joint the least inertia it drives and
// the 1-DOF sample-and-hold loop's ratios and bounds. "diverges" (the loop
// reverses the joint every period) is what `run` refuses (exit 2), "lags"
// (the held kp torque pumps energy in) what it warns about.
// The servo and joint friction on the whole tree (servo_stability.h's
// JointSpaceCheck), as `suitsim run` checks it.
Json jointSpaceInfo(const io::Scene& scene) {
  const io::SimulationSettings& sim = scene.simulation;
  const bool servo = scene.robot && scene.robot->has_servo;
  const JointSpaceCheck check =
      checkJointSpace(scene.model, servo ? scene.robot->gains : std::vector<ServoGains>{},
                      servo ? scene.robot->servo_rate : 0.0, sim.dt, sim.integrator);
  Json joints = Json::array();
  for (std::size_t k = 0; k < check.hinges.size(); ++k) {
    joints.push_back({{"name", scene.model.hinge_name[check.hinges[k]]}, {"share", check.share[k]}});
  }
  return {{"period_s", check.period},
          {"growth_per_period", check.growth},
          {"grows", check.grows()},
          {"joints", joints},
          {"message", check.grows() ? Json(describeJointSpaceCheck(scene.model, check)) : Json(nullptr)}};
}

Json servoStabilityInfo(const io::Scene& scene) {
  if (!scene.robot || !scene.robot->has_servo) return nullptr;
  const io::RobotSetup& r = *scene.robot;
  const io::SimulationSettings& sim = scene.simulation;
  const ServoStability check = checkServoStability(scene.model, r.gains, r.servo_rate, sim.dt, sim.integrator);
  Json joints = Json::array();
  int num_diverging = 0, num_lagging = 0;
  for (const ServoJointCheck& c : check.joints) {
    const char* status = c.loop.reverses ? "diverges" : c.loop.lags ? "lags" : "stable";
    num_diverging += c.loop.reverses ? 1 : 0;
    num_lagging += c.loop.lags ? 1 : 0;
    joints.push_back({{"name", scene.model.hinge_name[c.hinge]},
                      {"hinge", c.hinge},
                      {"inertia_kg_m2", c.inertia},
                      {"kp", c.kp},
                      {"kd", c.kd},
                      {"kd_ratio", c.loop.kd_ratio},
                      {"kd_bound", finiteOrNull(c.loop.kd_bound)},
                      {"kp_ratio", c.loop.kp_ratio},
                      {"kp_bound", finiteOrNull(c.loop.kp_bound)},
                      {"bound_fraction", c.bound_fraction},
                      {"growth_per_period", c.loop.growth},
                      {"status", status},
                      {"gain", c.gain.empty() ? Json(nullptr) : Json(c.gain)},
                      {"message", c.loop.stable() ? Json(nullptr) : Json(describeServoCheck(scene.model, check, c))}});
  }
  Json j;
  j["period_s"] = check.period;
  j["steps_per_period"] = check.steps_per_period;
  j["num_joints"] = check.joints.size();
  j["num_diverging"] = num_diverging;
  j["num_lagging"] = num_lagging;
  j["run_refuses"] = num_diverging > 0;
  j["worst"] = check.worst >= 0 ? Json(scene.model.hinge_name[check.joints[check.worst].hinge]) : Json(nullptr);
  j["joints"] = std::move(joints);
  return j;
}

Json sceneInfo(const io::Scene& scene) {
  const Model& model = scene.model;
  const io::SimulationSettings& sim = scene.simulation;
  Json j;
  j["file"] = scene.path;
  j["kind"] = "scene";
  j["scene"] = scene.name;
  j["integrator"] = integratorName(sim.integrator);
  j["dt_s"] = sim.dt;
  j["duration_s"] = sim.duration;
  j["output_rate_hz"] = sim.output_rate;
  j["threads"] = sim.threads;
  addModelCounts(model, j);
  if (scene.robot) {
    const io::RobotSetup& r = *scene.robot;
    addRobotTree(r.truth, r.compiled, model, true, j);
    j["mimic_joints"] = mimicJoints(r.truth);
    const Motion& motion = r.motion;
    j["robot"] = {{"name", r.truth.name},
                  {"base", r.truth.floating_base ? "floating" : "fixed"},
                  {"true_total_mass_kg", r.truth.totalMass()},
                  {"apriori_total_mass_kg", r.apriori.totalMass()},
                  {"servo", r.has_servo},
                  {"servo_rate_hz", r.has_servo ? Json(r.servo_rate) : Json(nullptr)},
                  {"motion", !motion.hinges().empty()},
                  {"motion_duration_s", motion.hinges().empty() ? Json(nullptr) : Json(motion.duration())},
                  {"motion_num_joints", motion.hinges().size()}};
    // The suit: truth only (the a-priori set has no bands).
    Json bands = Json::array();
    for (std::size_t k = 0; k < r.bands.size(); ++k) {
      const RobotBand& b = r.bands[k];
      bands.push_back({{"name", b.name},
                       {"stiffness_n_per_m", b.stiffness},
                       {"natural_length_m", b.natural_length},
                       {"num_via_points", b.links.size()}});
    }
    j["robot"]["bands"] = bands;
    Json sensors = nullptr;
    if (r.sensors) {
      const SensorSpec& spec = *r.sensors;
      Json imus = Json::array(), force = Json::array();
      for (const ImuSpec& imu : spec.imus) imus.push_back(imu.name);
      for (const ForceSensorSpec& f : spec.force_sensors) force.push_back(f.name);
      sensors = {{"rate_hz", spec.rate},
                 {"seed", spec.seed},
                 {"noise", spec.noise},
                 {"encoders", spec.encoders.hinges.size()},
                 {"imus", imus},
                 {"force_sensors", force},
                 {"currents", spec.currents.hinges.size()},
                 {"winding_temperatures", spec.winding_temperatures.hinges.size()},
                 {"band_lengths", spec.band_lengths.names}};
    }
    j["robot"]["sensors"] = sensors;
    j["robot"]["balance"] = balanceInfo(scene);
  } else {
    j["num_links"] = 0;
    j["num_joints"] = 0;
    j["num_fixed_joints"] = 0;
    j["links"] = Json::array();
    j["joints"] = Json::array();
    j["robot"] = nullptr;
  }
  const Recorder recorder(model, scene.channels);
  j["channels"] = recorder.columns();
  // The same bound `suitsim run` warns with (T: Gershgorin over springs and
  // ground contact); explicit integrators need omega * dt well below 2.
  const double omega = maxNaturalFrequency(model);
  j["omega_max_rad_s"] = omega;
  j["omega_max_dt"] = omega * sim.dt;
  j["servo_stability"] = servoStabilityInfo(scene);
  j["joint_space"] = jointSpaceInfo(scene);
  // The experiment's trials (the scene itself is the one trial otherwise);
  // the rest of the description is of the first trial.
  Json trials = Json::array();
  const std::vector<io::TrialSpec> specs = io::listTrials(scene.path);
  for (const io::TrialSpec& t : specs) {
    trials.push_back({{"name", t.name}, {"motion", t.motion}, {"suit", t.suit}, {"device", t.device}, {"purpose", t.purpose}});
  }
  if (trials.empty()) trials.push_back({{"name", scene.name}});
  j["trials"] = std::move(trials);
  // Each powered device, as built in the first trial that wears it (or the
  // scene itself): its parts, straps, controller settings, and the stable
  // step with it on (its straps add springs).
  Json devices = Json::array();
  std::vector<std::string> seen;
  auto describe = [&](const io::Scene& worn) {
    if (!worn.robot || !worn.robot->exoskeleton) return;
    const ExoskeletonSpec& d = *worn.robot->exoskeleton;
    if (std::find(seen.begin(), seen.end(), d.name) != seen.end()) return;
    seen.push_back(d.name);
    const RobotDescription& robot = worn.robot->truth;
    Json segments = Json::array();
    double mass = 0.0;
    for (std::size_t k = 0; k < d.segments.size(); ++k) {
      const ExoSegment& g = d.segments[k];
      mass += g.inertial.mass;
      Json js = {{"name", g.name}, {"link", robot.links[g.link].name}, {"mass_kg", g.inertial.mass}};
      if (g.joint >= 0) {
        js["joint"] = robot.joints[g.joint].name;
        js["virtual_inertia"] = g.impedance.inertia;
        js["virtual_viscous"] = g.impedance.viscous;
        js["virtual_coulomb"] = g.impedance.coulomb;
        js["virtual_gravity"] = g.impedance.gravity;
        js["assist"] = g.impedance.assist;
      }
      segments.push_back(js);
    }
    const double omega_worn = maxNaturalFrequency(worn.model);
    devices.push_back({{"name", d.name},
                       {"trial", worn.trial.name},
                       {"mass_kg", mass},
                       {"rate_hz", d.rate_hz},
                       {"straps", d.straps.size()},
                       {"segments", segments},
                       {"omega_max_rad_s", omega_worn},
                       {"omega_max_dt", omega_worn * worn.simulation.dt}});
  };
  describe(scene);
  for (const io::TrialSpec& t : specs) {
    if (t.device != "none" && std::find(seen.begin(), seen.end(), t.device) == seen.end()) {
      describe(io::loadScene(scene.path, t.name));
    }
  }
  j["devices"] = std::move(devices);
  return j;
}

// ---- text ------------------------------------------------------------------------------

std::string str(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string num(double v, const char* format = "%.6g") {
  if (v == 0.0) v = 0.0;  // URDFs write limits like "-0"; print them as 0
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A worn device's parts and settings (docs/devices.md), when the scene has one.
void printDevices(const Json& j) {
  if (!j.contains("devices")) return;
  for (const Json& d : j["devices"]) {
    std::printf("device %s (worn in %s): %s kg, controller %s Hz, %zu straps; stable step with it: dt * omega_max = %s\n",
                str(d["name"]).c_str(), d["trial"].get<std::string>().empty() ? "the scene" : str(d["trial"]).c_str(),
                num(d["mass_kg"].get<double>(), "%.4g").c_str(), num(d["rate_hz"].get<double>(), "%.4g").c_str(),
                d["straps"].get<std::size_t>(), num(d["omega_max_dt"].get<double>(), "%.3g").c_str());
    for (const Json& g : d["segments"]) {
      if (!g.contains("joint")) {
        std::printf("  %-12s on %-14s %s kg (root)\n", str(g["name"]).c_str(), str(g["link"]).c_str(),
                    num(g["mass_kg"].get<double>(), "%.4g").c_str());
        continue;
      }
      std::printf("  %-12s on %-14s %s kg, hinge on %s; virtual inertia %s kg m^2, viscous %s, Coulomb %s, "
                  "gravity share %s, assist %s\n",
                  str(g["name"]).c_str(), str(g["link"]).c_str(), num(g["mass_kg"].get<double>(), "%.4g").c_str(),
                  str(g["joint"]).c_str(), num(g["virtual_inertia"].get<double>(), "%.4g").c_str(),
                  num(g["virtual_viscous"].get<double>(), "%.4g").c_str(),
                  num(g["virtual_coulomb"].get<double>(), "%.4g").c_str(),
                  num(g["virtual_gravity"].get<double>(), "%.4g").c_str(), num(g["assist"].get<double>(), "%.4g").c_str());
    }
  }
}

std::string limits(const Json& joint) {
  const Json& lo = joint["lower"];
  const Json& hi = joint["upper"];
  if (lo.is_null() && hi.is_null()) return "none";
  // Appended piece by piece: "literal" + std::string&& trips GCC 12's false
  // -Wrestrict warning.
  std::string text = "[";
  text.append(lo.is_null() ? std::string("-inf") : num(lo.get<double>(), "%.4g"));
  text.append(", ");
  text.append(hi.is_null() ? std::string("inf") : num(hi.get<double>(), "%.4g"));
  text.append("]");
  return text;
}

std::string axis(const Json& joint) {
  const Json& a = joint["axis"];
  return num(a[0].get<double>(), "%.3g") + " " + num(a[1].get<double>(), "%.3g") + " " +
         num(a[2].get<double>(), "%.3g");
}

int nameWidth(const Json& items, int at_least) {
  std::size_t w = static_cast<std::size_t>(at_least);
  for (const Json& e : items) w = std::max(w, e["name"].get<std::string>().size());
  return static_cast<int>(w);
}

void printLinks(const Json& j) {
  const Json& links = j["links"];
  const int w = nameWidth(links, 4);
  std::printf("links: %zu\n", links.size());
  std::printf("  %-*s  %10s  %s\n", w, "name", "mass [kg]", "body");
  for (const Json& l : links) {
    std::printf("  %-*s  %10s  %s\n", w, l["name"].get<std::string>().c_str(),
                num(l["mass_kg"].get<double>()).c_str(), str(l["body"]).c_str());
  }
}

void printModelCounts(const Json& j) {
  std::printf("model: %d particles, %d springs, %d contacts, %d bodies, %d hinges\n", j["num_particles"].get<int>(),
              j["num_springs"].get<int>(), j["num_contacts"].get<int>(), j["num_bodies"].get<int>(),
              j["num_hinges"].get<int>());
  std::printf("total mass: %s kg\n", num(j["total_mass_kg"].get<double>()).c_str());
}

// The <mimic> joints mimicJoints gathered (nothing when there are none).
void printMimicJoints(const Json& j) {
  if (!j.contains("mimic_joints") || j["mimic_joints"].empty()) return;
  const Json& mimic = j["mimic_joints"];
  const int w = nameWidth(mimic, 4);
  std::printf("mimic joints: %zu (URDF <mimic>: joint = multiplier x leader + offset)\n", mimic.size());
  for (const Json& m : mimic) {
    std::printf("  %-*s  = %s x %s %+.4g rad: %s\n", w, str(m["name"]).c_str(),
                num(m["multiplier"].get<double>(), "%.4g").c_str(), str(m["leader"]).c_str(),
                m["offset_rad"].get<double>(), str(m["status"]).c_str());
  }
}

void printUrdf(const Json& j) {
  const Json& robot = j["robot"];
  std::printf("robot: %s (%s)\n", str(robot["name"]).c_str(), str(j["file"]).c_str());
  std::printf("  compiled with a floating base, default options (link_frequency %s rad/s), zero pose, no contacts\n",
              num(robot["link_frequency_rad_s"].get<double>()).c_str());
  printLinks(j);
  const Json& joints = j["joints"];
  const int w = nameWidth(joints, 4);
  std::printf("joints: %d movable, %d fixed\n", j["num_joints"].get<int>(), j["num_fixed_joints"].get<int>());
  std::printf("  %-*s  %-10s  %-14s  %s\n", w, "name", "type", "axis", "limits [rad]");
  for (const Json& e : joints) {
    const bool fixed = e["hinge"].is_null();
    std::printf("  %-*s  %-10s  %-14s  %s\n", w, e["name"].get<std::string>().c_str(),
                e["type"].get<std::string>().c_str(), fixed ? "-" : axis(e).c_str(),
                fixed ? "(fixed: merged)" : limits(e).c_str());
  }
  printMimicJoints(j);
  printModelCounts(j);
  const double omega = j["omega_max_rad_s"].get<double>();
  std::printf("omega_max: %s rad/s (omega_max * dt = 1 at dt = %s s)\n", num(omega, "%.4g").c_str(),
              num(omega > 0.0 ? 1.0 / omega : 0.0, "%.3g").c_str());
}

std::string metres(const Json& p) {
  std::string text;
  for (const Json& x : p) {
    if (!text.empty()) text.append(" ");
    const double v = x.get<double>();
    text.append(num(std::abs(v) < 5e-5 ? 0.0 : v, "%.4f"));  // no "-0.0000"
  }
  return text;
}

void printBalance(const Json& b) {
  if (b.contains("reason")) {
    std::printf("  balance: not computed (%s)\n", str(b["reason"]).c_str());
    return;
  }
  std::printf("  balance (model: %s; feet flat; ground coordinates u v in m):\n", str(b["model"]).c_str());
  std::printf("    centre of mass: %s m (world), over the ground at %s\n", metres(b["com_m"]).c_str(),
              metres(b["com_ground_m"]).c_str());
  const Json& polygon = b["support_polygon_m"];
  if (polygon.empty()) {
    std::printf("    support polygon: none (no contact point on the ground)\n");
    return;
  }
  std::string vertices;
  for (const Json& v : polygon) {
    if (!vertices.empty()) vertices.append("; ");
    vertices.append(metres(v));
  }
  std::printf("    support polygon: %zu vertices: %s\n", polygon.size(), vertices.c_str());
  std::printf("    ZMP margin, initial pose (static: the CoM's projection): %s m\n",
              num(b["zmp_margin_m"].get<double>(), "%.4f").c_str());
  for (const Json& m : b["motions"]) {
    std::string name = "motion";
    if (!m["motion"].is_null()) name.append(" ").append(str(m["motion"]));
    if (m["min_zmp_margin_m"].is_null()) {
      std::printf("    %s: no ZMP (%s)\n", name.c_str(), m.contains("reason") ? str(m["reason"]).c_str() : "no motion");
      continue;
    }
    const double margin = m["min_zmp_margin_m"].get<double>();
    std::printf("    %s: smallest ZMP margin %s m at t = %s s (ZMP at %s)%s\n", name.c_str(),
                num(margin, "%.4f").c_str(), num(m["time_s"].get<double>(), "%.2f").c_str(),
                metres(m["zmp_m"]).c_str(), margin < 0.0 ? " OUTSIDE the polygon" : "");
  }
}

// The servo check servoStabilityInfo gathered (nothing without a servo).
void printServoStability(const Json& s) {
  if (s.is_null()) return;
  const Json& joints = s["joints"];
  const int steps = s["steps_per_period"].get<int>();
  std::printf("servo stability: PD torque held T = %s s (%d step%s), each joint alone on its least inertia I_eff\n",
              num(s["period_s"].get<double>(), "%.4g").c_str(), steps, steps == 1 ? "" : "s");
  const int diverging = s["num_diverging"].get<int>(), lagging = s["num_lagging"].get<int>();
  if (diverging + lagging == 0) {
    std::printf("  %zu servoed joints, all stable\n", joints.size());
  } else {
    std::printf("  %zu servoed joints: %d DIVERGE (suitsim run refuses), %d lag and may diverge (run warns)\n",
                joints.size(), diverging, lagging);
  }
  for (const Json& c : joints) {
    if (c["status"] != "stable") std::printf("  %s: %s\n", str(c["status"]).c_str(), str(c["message"]).c_str());
  }
  if (s["worst"].is_null()) return;
  for (const Json& c : joints) {
    if (c["name"] != s["worst"] || c["status"] != "stable") continue;
    const auto ratio = [&](const char* value, const char* bound) {
      return num(c[value].get<double>(), "%.3g") + " (bound " +
             (c[bound].is_null() ? std::string("none") : num(c[bound].get<double>(), "%.3g")) + ")";
    };
    std::printf("  nearest its bound: %s, I_eff %s kg m^2: kd T / I_eff = %s, kp T^2 / I_eff = %s\n",
                str(c["name"]).c_str(), num(c["inertia_kg_m2"].get<double>(), "%.3g").c_str(),
                ratio("kd_ratio", "kd_bound").c_str(), ratio("kp_ratio", "kp_bound").c_str());
  }
}

void printScene(const Json& j) {
  std::printf("scene: %s (%s)\n", str(j["scene"]).c_str(), str(j["file"]).c_str());
  const int threads = j["threads"].get<int>();
  std::printf("  integrator %s, dt %s s, duration %s s, output rate %s Hz, threads %s\n",
              str(j["integrator"]).c_str(), num(j["dt_s"].get<double>()).c_str(),
              num(j["duration_s"].get<double>()).c_str(), num(j["output_rate_hz"].get<double>()).c_str(),
              threads > 0 ? std::to_string(threads).c_str() : "one per core");
  printModelCounts(j);

  const Json& robot = j["robot"];
  if (!robot.is_null()) {
    std::printf("robot: %s (%s base)\n", str(robot["name"]).c_str(), str(robot["base"]).c_str());
    std::printf("  total mass: true %s kg, a priori %s kg\n", num(robot["true_total_mass_kg"].get<double>()).c_str(),
                num(robot["apriori_total_mass_kg"].get<double>()).c_str());
    if (robot["servo"].get<bool>()) {
      std::printf("  servo: yes, %s Hz\n", num(robot["servo_rate_hz"].get<double>()).c_str());
    } else {
      std::printf("  servo: no\n");
    }
    if (robot["motion"].get<bool>()) {
      std::printf("  motion: %s s over %d joints\n", num(robot["motion_duration_s"].get<double>()).c_str(),
                  robot["motion_num_joints"].get<int>());
    } else {
      std::printf("  motion: none%s\n", robot["servo"].get<bool>() ? " (the servo holds the initial pose)" : "");
    }
    for (const Json& b : robot["bands"]) {
      std::printf("  band %s: k %s N/m, natural length %s m, %d via points\n", str(b["name"]).c_str(),
                  num(b["stiffness_n_per_m"].get<double>()).c_str(), num(b["natural_length_m"].get<double>()).c_str(),
                  b["num_via_points"].get<int>());
    }
    if (!robot["sensors"].is_null()) {
      const Json& sn = robot["sensors"];
      std::printf("  sensors: %s Hz, noise %s, %d encoders, %d IMU, %d force sensors, %d currents, %d winding "
                  "temperatures, %d band lengths (one per band worn)\n",
                  num(sn["rate_hz"].get<double>()).c_str(), sn["noise"].get<bool>() ? "on" : "off",
                  sn["encoders"].get<int>(), static_cast<int>(sn["imus"].size()),
                  static_cast<int>(sn["force_sensors"].size()), sn["currents"].get<int>(),
                  sn["winding_temperatures"].get<int>(), static_cast<int>(sn["band_lengths"].size()));
    }
    printBalance(robot["balance"]);
    printLinks(j);
    const Json& joints = j["joints"];
    const int w = nameWidth(joints, 4);
    std::printf("joints: %d movable (listed), %d fixed or frozen\n", j["num_joints"].get<int>(),
                j["num_fixed_joints"].get<int>());
    std::printf("  %-*s  %-14s  %-18s  %8s  %8s  %8s  %8s\n", w, "name", "axis", "limits [rad]", "k_T", "viscous",
                "coulomb", "static");
    for (const Json& e : joints) {
      if (e["hinge"].is_null()) continue;
      std::printf("  %-*s  %-14s  %-18s  %8s  %8s  %8s  %8s\n", w, e["name"].get<std::string>().c_str(),
                  axis(e).c_str(), limits(e).c_str(), num(e["motor_constant_nm_per_a"].get<double>(), "%.4g").c_str(),
                  num(e["viscous_nms_per_rad"].get<double>(), "%.4g").c_str(),
                  num(e["coulomb_nm"].get<double>(), "%.4g").c_str(),
                  num(e["static_max_nm"].get<double>(), "%.4g").c_str());
    }
    printMimicJoints(j);
  }

  const Json& channels = j["channels"];
  std::printf("channels: %zu (after time[s])\n", channels.size());
  for (const Json& c : channels) std::printf("  %s\n", str(c).c_str());
  const double omega_dt = j["omega_max_dt"].get<double>();
  std::printf("stable step: omega_max %s rad/s, dt * omega_max = %s%s\n",
              num(j["omega_max_rad_s"].get<double>(), "%.4g").c_str(), num(omega_dt, "%.3g").c_str(),
              omega_dt > 1.0 ? " (large: explicit integrators need well below 2)" : " (ok)");
  printServoStability(j["servo_stability"]);
  const Json& tree = j["joint_space"];
  if (tree["grows"].get<bool>()) {
    // `run` warns of it unless a joint fails alone (its own message says more).
    const Json& servo = j["servo_stability"];
    const bool alone = !servo.is_null() && servo["num_diverging"].get<int>() + servo["num_lagging"].get<int>() > 0;
    std::printf("whole robot (servo and joint friction, joints coupled): GROWS%s: %s\n",
                alone ? " (a joint alone already fails: see above)" : " (run warns)", str(tree["message"]).c_str());
  } else {
    std::printf("whole robot (servo and joint friction, joints coupled): no growing mode (largest x%s per period)\n",
                num(tree["growth_per_period"].get<double>(), "%.6g").c_str());
  }
  printDevices(j);
  const Json& trials = j["trials"];
  if (trials.size() == 1 && !trials[0].contains("motion")) {
    std::printf("trials: 1 (the scene itself)\n");
  } else {
    std::printf("trials: %zu (described above: the first)\n", trials.size());
    for (const Json& t : trials) {
      std::printf("  %-16s motion %-12s suit %-10s device %-8s %s\n", str(t["name"]).c_str(), str(t["motion"]).c_str(),
                  str(t["suit"]).c_str(), str(t["device"]).c_str(), str(t["purpose"]).c_str());
    }
  }
}

int infoChecked(const InfoOptions& opt) {
  Json info;
  try {
    if (hasUrdfRoot(opt.path)) {
      info = urdfInfo(opt.path);
    } else {
      info = sceneInfo(io::loadScene(opt.path));
    }
  } catch (const io::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const ModelError& e) {
    // A URDF the reader accepts but the particle engine cannot build
    // (a prismatic joint, a moving body without mass): still bad input. The
    // message names the URDF element when the description knows its line.
    const std::string what = e.what();
    if (what.rfind(opt.path + ":", 0) == 0) {
      std::fprintf(stderr, "error: %s\n", what.c_str());
    } else {
      std::fprintf(stderr, "error: %s: %s\n", opt.path.c_str(), what.c_str());
    }
    return 2;
  }

  if (opt.json) {
    // Names come from the files and need not be valid UTF-8; the default
    // handler would throw from dump().
    std::printf("%s\n", info.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
  } else if (info["kind"] == "urdf") {
    printUrdf(info);
  } else {
    printScene(info);
  }
  return 0;
}

}  // namespace

Command addInfoCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<InfoOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "info", "describe what a scene or a URDF builds (counts, masses, joints, channels); writes no file");
  addSceneArgument(*app, &opt->path, "FILE", "the scene or URDF file");
  app->add_flag("--json", opt->json, "the same description as one JSON object on stdout");
  return {app, [opt] { return infoChecked(*opt); }};
}

}  // namespace suitsim::cli
