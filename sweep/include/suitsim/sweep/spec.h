// A sweep file: one base scene, the scene attributes to vary and how, and
// the noise seeds per point (docs/sweeps.md). Reading it checks every path
// against the base scene; running it is sweep.h's job.
//
//   <sweep name="stiffness" scene="../jvrc1_protocol.xml">
//     <parameter name="k_A" from="50" to="800" count="16">
//       <set attribute="robot/suit[@name='normal']/band[@group='A']@stiffness"/>
//       <set attribute="robot/suit[@name='modified']/band[@group='A']@stiffness" scale="2"/>
//     </parameter>
//     <seeds attribute="robot/sensors@seed" count="5" first="1"/>
//     <evaluator name="gear_fit" gear="fit"/>
//   </sweep>
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace suitsim::sweep {

/// One step of an attribute path: an element name and the attribute values
/// it must have ("band[@group='A']" is {"band", {{"group", "A"}}}).
struct PathStep {
  std::string element;
  std::vector<std::pair<std::string, std::string>> conditions;
};

/// "robot/suit[@name='normal']/band[@group='A']@stiffness": element steps
/// from the scene's root element, then the attribute they all get.
struct AttributePath {
  std::string text;
  std::vector<PathStep> steps;
  std::string attribute;
};

/// Parses `text`; false with `error` set when it is not a path.
bool parseAttributePath(const std::string& text, AttributePath* path, std::string* error);

/// Where a parameter's value goes: every attribute `path` names, times
/// `scale` when scaled (numeric values only).
struct Target {
  AttributePath path;
  double scale = 1.0;
  bool scaled = false;
  int line = 0;
};

/// A varied scene attribute. Its values are the exact strings written into
/// the scene (a grid's numbers are formatted once, with 10 significant
/// digits, so the table shows what ran).
struct Parameter {
  std::string name;             ///< column name in the results table
  std::vector<std::string> values;
  std::vector<Target> targets;
  bool numeric = false;         ///< every value is a number (plots use it as an axis)
  int line = 0;
};

/// The noise seeds each point runs with: `count` seeds first, first + 1, ...
/// written into every attribute of `paths` (count 0: no seed attribute, one
/// run per point).
struct Seeds {
  std::vector<AttributePath> paths;
  int count = 0;
  std::int64_t first = 1;
  int line = 0;
};

/// One more evaluation of every point's streams, with other evaluator
/// settings (a remedy: `--gear fit`, `--heating corrected`, `--armature ...`,
/// `--suit-geometry measured`, `--sensor-delay compensated`); its columns are the
/// default evaluation's with "NAME/" in front of the suit. With `when`
/// ("PARAMETER=V1 V2 ...") an element applies only at the points where that
/// parameter takes one of those values; several elements may then share a
/// name, one setting per value (the budget's per-row remedies), and a point
/// that none of them matches leaves the name's columns empty.
struct Evaluator {
  std::string name;
  std::string when_parameter;            ///< empty: every point
  std::vector<std::string> when_values;  ///< the parameter's values it applies at
  std::string gear = "ideal";    ///< eval::parseGear's words
  std::string armature = "fit";  ///< eval::parseArmature's words
  std::string heating = "ignored";  ///< eval::parseHeating's words
  std::string suit_geometry = "designed";  ///< eval::parseSuitGeometry's words
  std::string sensor_delay = "ignored";    ///< eval::parseSensorDelay's words
  std::string gear_twist = "ignored";      ///< eval::parseGearTwist's words
  std::string band_model = "elastic";      ///< eval::parseBandModel's words
  std::string straps = "ignored";          ///< eval::parseStraps's words
  int line = 0;
};

struct SweepSpec {
  std::string path;        ///< the sweep file
  std::string name;
  std::string scene;       ///< the base scene, resolved against the sweep file's folder
  int scene_line = 0;      ///< line of the scene attribute (the root element)
  std::vector<Parameter> parameters;
  Seeds seeds;
  std::vector<Evaluator> evaluators;  ///< besides the default evaluation
};

/// The evaluators' names in order of first appearance: the columns' prefixes.
std::vector<std::string> evaluatorNames(const SweepSpec& spec);

/// What `ev` changes from the default evaluation, as its attributes
/// ("gear=fit straps=corrected"; "default" when nothing): the table's
/// NAME/settings column.
std::string evaluatorSettings(const Evaluator& ev);

/// The element of evaluator `name` that applies at a point with these
/// parameter values (one per parameter); nullptr when none does.
const Evaluator* evaluatorAt(const SweepSpec& spec, const std::string& name,
                             const std::vector<std::string>& values);

/// Reads and checks a sweep file: its syntax (io::SceneError "path:line:
/// problem", as for scenes), that the base scene is readable XML, and that
/// every attribute path names at least one element of it. Whether the
/// values make a valid scene is checked by checkPoints (sweep.h).
SweepSpec readSweep(const std::string& path);

}  // namespace suitsim::sweep
