// `suitsim-view SCENE`: watch a scene live. Argument parsing and the first
// read of the scene only; the window and the loop are in app.cpp.
//
// Exit codes follow `suitsim run`: 0 success, 1 a run-time failure (no
// display, no OpenGL 3.3, a picture that cannot be written), 2 bad input (a
// malformed scene at startup, bad options). The scene is read before any
// window opens, so a bad scene is reported the same with or without a display.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <utility>

#include "app.h"
#include "command_line.h"
#include "scene_source.h"

namespace {

using suitsim::cli::parseWholeText;
using suitsim::viewer::ViewerOptions;

bool parseSize(const std::string& text, int* w, int* h) {
  const auto x = text.find('x');
  return x != std::string::npos && parseWholeText(text.substr(0, x), w) &&
         parseWholeText(text.substr(x + 1), h) && *w >= 64 && *h >= 64 && *w <= 8192 && *h <= 8192;
}

bool parseCamera(const std::string& text, ViewerOptions* o) {
  const auto a = text.find(','), b = text.find(',', a == std::string::npos ? a : a + 1);
  if (a == std::string::npos || b == std::string::npos) return false;
  return parseWholeText(text.substr(0, a), &o->camera_azimuth) &&
         parseWholeText(text.substr(a + 1, b - a - 1), &o->camera_elevation) &&
         parseWholeText(text.substr(b + 1), &o->camera_distance) && std::isfinite(o->camera_azimuth) &&
         std::fabs(o->camera_elevation) < 90.0f && o->camera_distance >= 0.0f;
}

// The options, on the command line shared with `suitsim` (cli/options).
void addOptions(CLI::App& app, ViewerOptions* o) {
  using namespace suitsim::cli;
  addSceneArgument(app, &o->scene_path);
  addTrialOption(app, &o->trial, "the experiment trial to show first (default: the first)");
  addWholeNumberOption(app, "--frames", "N", &o->frames, 1, std::numeric_limits<int>::max(),
                       "stop after N frames");
  addTextOption(app, "--screenshot", "OUT.png", &o->screenshot,
                "headless: render the N frames off-screen, write the last as PNG (xvfb-run: no display needed)");
  addNumberOption(app, "--time", "S", &o->start_time, {0.0, true}, "simulate to t = S seconds before the first frame");
  addNumberOption(app, "--speed", "X", &o->speed, {0.0, false, 1000.0},
                  "simulated seconds per second (default 1; headless: per 60 frames)");
  addParsedOption(
      app, "--size", "WxH", [o](const std::string& v) { return parseSize(v, &o->width, &o->height); },
      "WxH, 64 to 8192 pixels each", "window or picture size in pixels (default 1280x800)");
  addParsedOption(
      app, "--camera", "AZ,EL,DIST",
      [o](const std::string& v) { return o->camera_given = parseCamera(v, o); },
      "AZ,EL,DIST: degrees, degrees within +-90, metres >= 0",
      "camera azimuth and elevation (degrees) and distance (m, 0: fit)");
  addThreadsOption(app, &o->threads, "OpenMP threads for the force loops (default 1)");
  app.add_flag("--no-ui", [o](std::int64_t) { o->show_ui = false; },
               "the 3-D view only, without the control and plot windows");
}

}  // namespace

int main(int argc, char** argv) {
  ViewerOptions options;
  CLI::App app("suitsim-view: watch a scene live, with plots (docs/viewer.md)", "suitsim-view");
  suitsim::cli::configureApp(app, "exit codes: 0 success, 1 run-time failure (no display, no OpenGL 3.3, a picture "
                                  "that cannot be written), 2 bad input (scene or options)");
  addOptions(app, &options);
  if (const auto code = suitsim::cli::parseCommandLine(app, argc, argv)) return *code;
  // A picture without a frame count is the first frame's.
  if (options.headless() && options.frames < 0) options.frames = 1;

  suitsim::viewer::SceneSource source(options.scene_path);
  suitsim::io::Scene scene;
  try {
    scene = source.loadInitial(options.trial);
  } catch (const suitsim::io::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s: %s\n", options.scene_path.c_str(), e.what());
    return 2;
  }
  if (!options.trial.empty() && source.trial() != options.trial) {
    std::fprintf(stderr, "error: %s: no trial named '%s'\n", options.scene_path.c_str(), options.trial.c_str());
    return 2;
  }
  for (const std::string& w : source.warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return suitsim::viewer::runViewer(options, std::move(source), std::move(scene));
}
