// `suitsim identify --scene SCENE --streams DIR --out OUT`: identify the
// robot from the sensor streams of an experiment (see identify.h); with
// --log MAP instead of --streams, from a robot's own logs read through a
// channel map (eval/log_streams.h, docs/logs.md).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/log_streams.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/eval/streams.h"
#include "suitsim/scene/scene.h"
#include "suitsim/report/report.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;

struct IdentifyOptions {
  std::string scene, streams, log, out;
  bool quiet = false;
  eval::PipelineOptions pipeline;
};

int identifyChecked(const IdentifyOptions& opt, const CLI::App& app) {
  if (opt.streams.empty() && opt.log.empty()) return usageError(app, "one of --streams DIR and --log MAP is required");
  eval::IdentificationOutcome outcome;
  nlohmann::ordered_json json;
  try {
    eval::EvaluationInputs inputs = eval::loadEvaluationInputs(opt.scene);
    eval::PipelineOptions pipeline = opt.pipeline;
    std::shared_ptr<const eval::LogReading> logs;
    if (!opt.log.empty()) logs = eval::readLogsFor(opt.log, &inputs, &pipeline);
    outcome = eval::identifyFromStreams(inputs, opt.streams, pipeline);
    json = report::identificationJson(outcome, inputs.scene_name, pipeline);
    if (logs) json["log"] = report::logJson(*logs);
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

  std::error_code ec;
  fs::create_directories(opt.out, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create output directory '%s': %s\n", opt.out.c_str(), ec.message().c_str());
    return 1;
  }
  const fs::path final_path = fs::path(opt.out) / "identification.json";
  const fs::path tmp = fs::path(opt.out) / ".identification.json.partial";
  {
    std::ofstream f(tmp);
    f << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    f.close();
    if (!f) {
      fs::remove(tmp, ec);
      std::fprintf(stderr, "error: writing '%s' failed\n", tmp.c_str());
      return 1;
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    std::fprintf(stderr, "error: cannot write '%s'\n", final_path.c_str());
    return 1;
  }
  if (!opt.quiet) std::printf("%swrote %s\n", report::identificationSummary(outcome).c_str(), final_path.c_str());
  return 0;
}

}  // namespace

CLI::Option* addRestRowsOption(CLI::App& app, eval::IdentificationOptions::RestRows* rows) {
  return addParsedOption(
      app, "--rest-rows", "exclude|sign-rule", [rows](const std::string& v) { return eval::parseRestRows(v, rows); },
      "exclude or sign-rule", "how the identification treats resting joints (docs/method.md, Resting joints)");
}

CLI::Option* addArmatureOption(CLI::App& app, eval::IdentificationOptions::Armature* armature) {
  return addParsedOption(
      app, "--armature", "fit|known|ignored",
      [armature](const std::string& v) { return eval::parseArmature(v, armature); }, "fit, known or ignored",
      "the motors' rotors: fit their armature (default), take the a-priori values as known, or ignore them "
      "(docs/method.md)");
}

CLI::Option* addGearOption(CLI::App& app, eval::IdentificationOptions::Gear* gear) {
  return addParsedOption(
      app, "--gear", "ideal|fit", [gear](const std::string& v) { return eval::parseGear(v, gear); }, "ideal or fit",
      "the gears' load-proportional loss: ideal gears (default) or fit one backdriving term per joint "
      "(docs/method.md)");
}

CLI::Option* addHeatingOption(CLI::App& app, eval::PipelineOptions::Heating* heating) {
  return addParsedOption(
      app, "--heating", "ignored|corrected",
      [heating](const std::string& v) { return eval::parseHeating(v, heating); }, "ignored or corrected",
      "the windings' heating: ignored (default: one k_T per joint) or corrected (each current read through its "
      "logged winding temperature and the a-priori magnet coefficient; docs/realism.md)");
}

CLI::Option* addSensorDelayOption(CLI::App& app, eval::PipelineOptions::SensorDelay* delay) {
  return addParsedOption(
      app, "--sensor-delay", "ignored|compensated",
      [delay](const std::string& v) { return eval::parseSensorDelay(v, delay); }, "ignored or compensated",
      "the logger's filter delays: ignored (default: every channel read as stamped) or compensated (each filtered "
      "channel read its declared filter's delay later, aligned with the encoders; docs/realism.md)");
}

CLI::Option* addGearTwistOption(CLI::App& app, eval::PipelineOptions::GearTwist* twist) {
  return addParsedOption(
      app, "--gear-twist", "ignored|compensated",
      [twist](const std::string& v) { return eval::parseGearTwist(v, twist); }, "ignored or compensated",
      "the gears' twist: ignored (default: the encoders read the joints) or compensated (each encoder read as the "
      "joint angle behind its gear, less (k_T u + tau_o - I_a q'') / k with the a-priori gear stiffness k; "
      "docs/realism.md)");
}

Command addIdentifyCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<IdentifyOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "identify", "identify the robot from an experiment's sensor streams; writes OUT/identification.json");
  addTextOption(*app, "--scene", "SCENE", &opt->scene, "the scene of the experiment")->required();
  CLI::Option* streams =
      addTextOption(*app, "--streams", "DIR", &opt->streams, "the trials' streams (DIR/<trial>/sensors.csv)");
  CLI::Option* log = addTextOption(*app, "--log", "MAP", &opt->log,
                                   "a robot's own logs (CSV or HDF5), read through the channel map MAP (docs/logs.md)");
  streams->excludes(log);
  log->excludes(streams);

  addTextOption(*app, "--out", "OUT", &opt->out, "where to write identification.json (created if needed)")->required();
  addRestRowsOption(*app, &opt->pipeline.identification.rest_rows);
  addArmatureOption(*app, &opt->pipeline.identification.armature);
  addGearOption(*app, &opt->pipeline.identification.gear);
  addHeatingOption(*app, &opt->pipeline.heating);
  addSensorDelayOption(*app, &opt->pipeline.sensor_delay);
  addGearTwistOption(*app, &opt->pipeline.gear_twist);
  // The result does not depend on it (identification_test SameBitsForAnyThreadCount).
  addThreadsOption(*app, &opt->pipeline.identification.threads,
                   "threads for the identification (default: one per core); the result is the same for any");
  addQuietFlag(*app, &opt->quiet, "nothing on stdout");
  return {app, [opt, app] { return identifyChecked(*opt, *app); }};
}

}  // namespace suitsim::cli
