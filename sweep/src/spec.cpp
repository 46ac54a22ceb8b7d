// Reading sweep files (docs/sweeps.md). The element checks are the scene
// reader's (io-internal xml_reader.h), so a sweep file's errors read exactly
// like a scene's: "path:line: <element> problem".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "suitsim/eval/robot_identification.h"
#include "suitsim/eval/band_attachments.h"
#include "suitsim/eval/band_relaxation.h"
#include "suitsim/eval/suit_geometry.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sweep/points.h"
#include "suitsim/sweep/spec.h"
#include "suitsim/core/random.h"
#include "suitsim/scene/xml_reader.h"
#include "suitsim/core/number_text.h"

namespace suitsim::sweep {

namespace {

using io::ElementReader;
using tinyxml2::XMLElement;

// Uniform in [0, 1) from the top 53 bits of a SplitMix64 draw (core/random.h):
// the same numbers on every platform (std::uniform_real_distribution is not
// specified).
struct SplitMix64 {
  std::uint64_t state;
  double uniform() { return static_cast<double>(splitMix64(state) >> 11) * 0x1.0p-53; }
};

AttributePath readPath(const ElementReader& r, const char* attribute, const XMLElement* scene_root) {
  AttributePath path;
  std::string error;
  if (!parseAttributePath(r.text(attribute), &path, &error)) r.failAttribute(attribute, error);
  if (countMatches(scene_root, path) == 0) {
    r.failAttribute(attribute, "'" + path.text + "' names no element of the base scene");
  }
  return path;
}

std::vector<std::string> parameterValues(const ElementReader& r) {
  const bool list = r.has("values"), grid = r.has("count") && !r.has("random"), random = r.has("random");
  if (list + grid + random != 1) {
    r.fail("needs exactly one of values=\"...\", a grid (from, to, count) or random draws (random, from, to, count, seed)");
  }
  std::vector<std::string> values;
  if (list) {
    values = io::words(r.text("values"));
    if (values.empty()) r.failAttribute("values", "is empty: a parameter needs at least one value");
    std::set<std::string> seen;
    for (const std::string& v : values) {
      if (!seen.insert(v).second) r.failAttribute("values", "lists '" + v + "' twice");
    }
    for (const char* a : {"from", "to", "spacing", "seed"}) {
      if (r.has(a)) r.failAttribute(a, "does not go with values=\"...\"");
    }
    return values;
  }
  const double from = r.number("from"), to = r.number("to");
  const int count = r.integer("count");
  if (count < 1) r.failAttribute("count", "must be at least 1 (got " + std::to_string(count) + ")");
  if (count > 100000) r.failAttribute("count", "is more than 100000 values");
  if (grid) {
    if (r.has("seed")) r.failAttribute("seed", "belongs to random draws (random=\"uniform\")");
    const std::string spacing = r.text("spacing", "linear");
    if (spacing != "linear" && spacing != "log") r.failAttribute("spacing", "must be linear or log (got '" + spacing + "')");
    if (spacing == "log" && !(from > 0.0 && to > 0.0)) r.fail("log spacing needs from and to above 0");
    if (count == 1 && from != to) r.failAttribute("count", "is 1, but from and to differ");
    for (int i = 0; i < count; ++i) {
      const double s = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
      const double x = spacing == "log" ? from * std::pow(to / from, s) : from + (to - from) * s;
      values.push_back(significantText(i + 1 == count ? to : x, 10));
    }
  } else {
    if (r.has("spacing")) r.failAttribute("spacing", "belongs to grids; random draws take random=\"uniform|loguniform\"");
    const std::string kind = r.text("random");
    if (kind != "uniform" && kind != "loguniform") r.failAttribute("random", "must be uniform or loguniform (got '" + kind + "')");
    if (kind == "loguniform" && !(from > 0.0 && to > 0.0)) r.fail("loguniform needs from and to above 0");
    if (!(to > from)) r.fail("random draws need to > from");
    const int seed = r.integer("seed");
    if (seed < 0) r.failAttribute("seed", "must be >= 0");
    SplitMix64 rng{static_cast<std::uint64_t>(seed)};
    for (int i = 0; i < count; ++i) {
      const double u = rng.uniform();
      values.push_back(significantText(kind == "uniform" ? from + (to - from) * u : from * std::pow(to / from, u), 10));
    }
  }
  return values;
}

/// A <parameter>: its values and the attributes it sets, checked against
/// the base scene; `names` collects the names so far (no two alike).
Parameter readParameter(const std::string& path, const XMLElement* e, const XMLElement* scene_root,
                        std::set<std::string>& names) {
  const ElementReader r(path, e, {"name", "attribute", "values", "from", "to", "count", "spacing", "random", "seed"});
  io::rejectUnknownChildren(path, e, {"set"});
  Parameter p;
  p.name = r.text("name");
  p.line = r.line();
  if (p.name == "point" || p.name == "id" || p.name == "seed" || p.name == "status") {
    r.failAttribute("name", "'" + p.name + "' is a column of its own in the results table");
  }
  if (!names.insert(p.name).second) r.failAttribute("name", "'" + p.name + "' names another parameter too");
  p.values = parameterValues(r);
  p.numeric = true;
  for (const std::string& v : p.values) {
    double x;
    if (!io::parseNumber(v, &x)) p.numeric = false;
  }
  if (r.has("attribute")) {
    Target t;
    t.path = readPath(r, "attribute", scene_root);
    t.line = r.line();
    p.targets.push_back(t);
  }
  for (const XMLElement* s = e->FirstChildElement("set"); s; s = s->NextSiblingElement("set")) {
    const ElementReader sr(path, s, {"attribute", "scale"});
    io::rejectUnknownChildren(path, s, {});
    Target t;
    t.path = readPath(sr, "attribute", scene_root);
    t.line = sr.line();
    if (sr.has("scale")) {
      t.scale = sr.number("scale");
      t.scaled = true;
      if (!p.numeric) sr.failAttribute("scale", "needs numeric values, but parameter '" + p.name + "' has words");
    }
    p.targets.push_back(t);
  }
  if (p.targets.empty()) r.fail("sets nothing: give attribute=\"...\" or <set attribute=\"...\"/> children");
  return p;
}

/// <seeds> (once): the attributes that take each point's seed, and how many.
Seeds readSeeds(const std::string& path, const XMLElement* s, const XMLElement* scene_root) {
  Seeds seeds;
  if (s->NextSiblingElement("seeds")) {
    throw io::SceneError(path + ":" + std::to_string(s->NextSiblingElement("seeds")->GetLineNum()) +
                         ": <seeds> may appear once");
  }
  const ElementReader r(path, s, {"attribute", "count", "first"});
  io::rejectUnknownChildren(path, s, {});
  // Several seeds may take the point's seed (the sensors' noise and the
  // realism's draws, say): a list of paths.
  std::vector<std::string> paths = io::words(r.text("attribute"));
  if (paths.empty()) r.failAttribute("attribute", "is empty");
  for (const std::string& text : paths) {
    AttributePath target;
    std::string error;
    if (!parseAttributePath(text, &target, &error)) r.failAttribute("attribute", error);
    if (countMatches(scene_root, target) == 0) {
      r.failAttribute("attribute", "'" + target.text + "' names no element of the base scene");
    }
    seeds.paths.push_back(target);
  }
  seeds.count = r.integer("count");
  seeds.first = r.integer("first", 1);
  seeds.line = r.line();
  if (seeds.count < 1) r.failAttribute("count", "must be at least 1");
  if (seeds.first < 0) r.failAttribute("first", "must be >= 0");
  return seeds;
}

/// An <evaluator>: its settings, and where it applies (`when`), checked
/// against the parameters and the evaluators read before it.
Evaluator readEvaluator(const std::string& path, const XMLElement* e, const SweepSpec& spec) {
  const ElementReader r(path, e, {"name", "when", "gear", "armature", "heating", "suit_geometry", "sensor_delay",
                                    "band_model", "gear_twist", "straps"});
  io::rejectUnknownChildren(path, e, {});
  Evaluator ev;
  ev.name = r.text("name");
  ev.line = r.line();
  if (ev.name.empty() || ev.name.find_first_of("/,\" \t") != std::string::npos) {
    r.failAttribute("name", "must be a word without '/', ',' or quotes: it heads columns of the table");
  }
  if (r.has("when")) {
    // "PARAMETER=V1 V2 ...": the points where it applies.
    const std::string when = r.text("when");
    const std::size_t eq = when.find('=');
    ev.when_parameter = eq == std::string::npos ? "" : when.substr(0, eq);
    if (eq != std::string::npos) ev.when_values = io::words(when.substr(eq + 1));
    const Parameter* p = nullptr;
    for (const Parameter& q : spec.parameters) {
      if (q.name == ev.when_parameter) p = &q;
    }
    if (!p || ev.when_values.empty()) {
      r.failAttribute("when", "must be PARAMETER=VALUE ... naming a <parameter> and some of its values (got '" +
                                  when + "')");
    }
    std::set<std::string> seen;
    for (const std::string& v : ev.when_values) {
      if (std::find(p->values.begin(), p->values.end(), v) == p->values.end()) {
        r.failAttribute("when", "'" + v + "' is not a value of parameter '" + p->name + "'");
      }
      if (!seen.insert(v).second) r.failAttribute("when", "lists '" + v + "' twice");
    }
  }
  // Elements sharing a name share its columns: each must say where it
  // applies, on the same parameter, and no point may have two.
  for (const Evaluator& other : spec.evaluators) {
    if (other.name != ev.name) continue;
    if (other.when_parameter.empty() || ev.when_parameter.empty()) {
      r.failAttribute("name", "'" + ev.name + "' names another evaluator too (line " + std::to_string(other.line) +
                                  "); elements sharing a name each need when=\"PARAMETER=VALUE ...\"");
    }
    if (other.when_parameter != ev.when_parameter) {
      r.failAttribute("when", "chooses by '" + ev.when_parameter + "', but the '" + ev.name + "' of line " +
                                  std::to_string(other.line) + " by '" + other.when_parameter +
                                  "': one name chooses by one parameter");
    }
    for (const std::string& v : ev.when_values) {
      if (std::find(other.when_values.begin(), other.when_values.end(), v) != other.when_values.end()) {
        r.failAttribute("when", "'" + v + "' has an '" + ev.name + "' already (line " + std::to_string(other.line) +
                                    ")");
      }
    }
  }
  ev.gear = r.text("gear", ev.gear);
  ev.armature = r.text("armature", ev.armature);
  ev.heating = r.text("heating", ev.heating);
  ev.suit_geometry = r.text("suit_geometry", ev.suit_geometry);
  eval::SuitGeometrySource geometry;
  if (!eval::parseSuitGeometry(ev.suit_geometry, &geometry)) {
    r.failAttribute("suit_geometry", "must be designed or measured (got '" + ev.suit_geometry + "')");
  }
  ev.sensor_delay = r.text("sensor_delay", ev.sensor_delay);
  eval::PipelineOptions::SensorDelay delay;
  if (!eval::parseSensorDelay(ev.sensor_delay, &delay)) {
    r.failAttribute("sensor_delay", "must be ignored or compensated (got '" + ev.sensor_delay + "')");
  }
  ev.gear_twist = r.text("gear_twist", ev.gear_twist);
  eval::PipelineOptions::GearTwist twist;
  if (!eval::parseGearTwist(ev.gear_twist, &twist)) {
    r.failAttribute("gear_twist", "must be ignored or compensated (got '" + ev.gear_twist + "')");
  }
  ev.straps = r.text("straps", ev.straps);
  eval::Straps straps;
  if (!eval::parseStraps(ev.straps, &straps)) {
    r.failAttribute("straps", "must be ignored or corrected (got '" + ev.straps + "')");
  }
  ev.band_model = r.text("band_model", ev.band_model);
  eval::BandModel band_model;
  if (!eval::parseBandModel(ev.band_model, &band_model)) {
    r.failAttribute("band_model", "must be elastic, viscoelastic, capstan or viscoelastic-capstan (got '" + ev.band_model + "')");
  }
  eval::PipelineOptions::Heating heating;
  if (!eval::parseHeating(ev.heating, &heating)) {
    r.failAttribute("heating", "must be ignored or corrected (got '" + ev.heating + "')");
  }
  eval::IdentificationOptions::Gear gear;
  eval::IdentificationOptions::Armature armature;
  if (!eval::parseGear(ev.gear, &gear)) r.failAttribute("gear", "must be ideal or fit (got '" + ev.gear + "')");
  if (!eval::parseArmature(ev.armature, &armature)) {
    r.failAttribute("armature", "must be fit, known or ignored (got '" + ev.armature + "')");
  }
  return ev;
}

}  // namespace

SweepSpec readSweep(const std::string& path) {
  tinyxml2::XMLDocument doc;
  io::loadXml(path, doc);
  const XMLElement* root = doc.RootElement();
  if (std::string(root->Name()) != "sweep") {
    throw io::SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <" + root->Name() +
                         "> the root element must be <sweep>");
  }
  const ElementReader rr(path, root, {"name", "scene"});
  io::rejectUnknownChildren(path, root, {"parameter", "seeds", "evaluator"});
  SweepSpec spec;
  spec.path = path;
  spec.name = rr.text("name");
  spec.scene_line = rr.line();
  const std::filesystem::path scene_file(rr.text("scene"));
  spec.scene = (scene_file.is_absolute() ? scene_file : std::filesystem::path(path).parent_path() / scene_file)
                   .lexically_normal()
                   .string();

  // The base scene must be XML with a <scene> root for the paths to be
  // checked; its own rules are checked when the points are (sweep.h).
  tinyxml2::XMLDocument scene_doc;
  try {
    io::loadXml(spec.scene, scene_doc);
  } catch (const io::SceneError& e) {
    rr.failAttribute("scene", std::string("cannot be read: ") + e.what());
  }
  const XMLElement* scene_root = scene_doc.RootElement();

  std::set<std::string> names;
  for (const XMLElement* e = root->FirstChildElement("parameter"); e; e = e->NextSiblingElement("parameter")) {
    spec.parameters.push_back(readParameter(path, e, scene_root, names));
  }
  if (const XMLElement* s = root->FirstChildElement("seeds")) spec.seeds = readSeeds(path, s, scene_root);
  for (const XMLElement* e = root->FirstChildElement("evaluator"); e; e = e->NextSiblingElement("evaluator")) {
    spec.evaluators.push_back(readEvaluator(path, e, spec));
  }
  double total = spec.seeds.count > 0 ? spec.seeds.count : 1;
  for (const Parameter& p : spec.parameters) total *= static_cast<double>(p.values.size());
  if (total > 1e6) {
    char count[32];
    std::snprintf(count, sizeof count, "%.0f", total);
    throw io::SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <sweep> has " + count +
                         " points (parameters' values times seeds); more than 1000000 is not one sweep");
  }
  if (spec.parameters.empty() && spec.seeds.count == 0) {
    throw io::SceneError(path + ":" + std::to_string(root->GetLineNum()) +
                         ": <sweep> varies nothing: add a <parameter> or <seeds>");
  }
  return spec;
}

std::vector<std::string> evaluatorNames(const SweepSpec& spec) {
  std::vector<std::string> names;
  for (const Evaluator& e : spec.evaluators) {
    if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
  }
  return names;
}

std::string evaluatorSettings(const Evaluator& ev) {
  const Evaluator d;
  std::string out;
  const auto add = [&out](const char* key, const std::string& value, const std::string& fallback) {
    if (value == fallback) return;
    if (!out.empty()) out += ' ';
    out.append(key).append("=").append(value);
  };
  add("gear", ev.gear, d.gear);
  add("armature", ev.armature, d.armature);
  add("heating", ev.heating, d.heating);
  add("suit_geometry", ev.suit_geometry, d.suit_geometry);
  add("sensor_delay", ev.sensor_delay, d.sensor_delay);
  add("gear_twist", ev.gear_twist, d.gear_twist);
  add("band_model", ev.band_model, d.band_model);
  add("straps", ev.straps, d.straps);
  return out.empty() ? "default" : out;
}

const Evaluator* evaluatorAt(const SweepSpec& spec, const std::string& name, const std::vector<std::string>& values) {
  for (const Evaluator& e : spec.evaluators) {
    if (e.name != name) continue;
    if (e.when_parameter.empty()) return &e;
    for (std::size_t p = 0; p < spec.parameters.size() && p < values.size(); ++p) {
      if (spec.parameters[p].name != e.when_parameter) continue;
      if (std::find(e.when_values.begin(), e.when_values.end(), values[p]) != e.when_values.end()) return &e;
    }
  }
  return nullptr;
}

}  // namespace suitsim::sweep
