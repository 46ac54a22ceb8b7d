// `suitsim identify --scene SCENE --streams DIR --out OUT`: identify the
// robot from the sensor streams of an experiment (see identify.h).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "commands.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/eval/streams.h"
#include "suitsim/io/scene.h"
#include "suitsim/report/report.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;

int usageError(const std::string& message) {
  std::fprintf(stderr, "suitsim identify: %s\n", message.c_str());
  std::fprintf(stderr, "usage: suitsim identify --scene SCENE --streams DIR --out OUT [--rest-rows exclude|sign-rule] [--quiet]\n");
  return 2;
}

int identifyChecked(int argc, char** argv) {
  std::string scene, streams, out;
  bool quiet = false;
  eval::PipelineOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return !v->empty();
    };
    if (arg == "--scene") {
      if (!value(&scene)) return usageError("--scene needs a scene file");
    } else if (arg == "--streams") {
      if (!value(&streams)) return usageError("--streams needs a directory");
    } else if (arg == "--out") {
      if (!value(&out)) return usageError("--out needs a directory");
    } else if (arg == "--rest-rows") {
      std::string v;
      if (!value(&v) || !eval::parseRestRows(v, &options.identification.rest_rows)) {
        return usageError("--rest-rows takes exclude or sign-rule");
      }
    } else if (arg == "--quiet") {
      quiet = true;
    } else {
      return usageError("unknown argument '" + arg + "'");
    }
  }
  if (scene.empty()) return usageError("--scene SCENE is required");
  if (streams.empty()) return usageError("--streams DIR is required");
  if (out.empty()) return usageError("--out OUT is required");

  eval::IdentificationOutcome outcome;
  nlohmann::ordered_json json;
  try {
    const eval::EvaluationInputs inputs = eval::loadEvaluationInputs(scene);
    outcome = eval::identifyFromStreams(inputs, streams, options);
    json = report::identificationJson(outcome, inputs.scene_name, options);
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
  fs::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create output directory '%s': %s\n", out.c_str(), ec.message().c_str());
    return 1;
  }
  const fs::path final_path = fs::path(out) / "identification.json";
  const fs::path tmp = fs::path(out) / ".identification.json.partial";
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
  if (!quiet) std::printf("%swrote %s\n", report::identificationSummary(outcome).c_str(), final_path.c_str());
  return 0;
}

}  // namespace

int identifyCommand(int argc, char** argv) {
  try {
    return identifyChecked(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace suitsim::cli
