// `suitsim-view SCENE`: watch a scene live. Argument parsing and the first
// read of the scene only; the window and the loop are in app.cpp.
//
// Exit codes follow `suitsim run`: 0 success, 1 a run-time failure (no
// display, no OpenGL 3.3, a picture that cannot be written), 2 bad input (a
// malformed scene at startup, bad options). The scene is read before any
// window opens, so a bad scene is reported the same with or without a display.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "app.h"
#include "scene_source.h"

namespace {

using suitsim::viewer::ViewerOptions;

constexpr const char* kUsage =
    "usage: suitsim-view SCENE [--trial NAME] [--frames N] [--screenshot OUT.png] [--time S] [--speed X]\n"
    "                    [--size WxH] [--camera AZ,EL,DIST] [--threads N] [--no-ui]\n"
    "\n"
    "  --trial NAME        the experiment trial to show first (default: the first)\n"
    "  --frames N          stop after N frames\n"
    "  --screenshot PNG    headless: render the N frames off-screen, write the last as PNG\n"
    "                      (run under xvfb-run where there is no display)\n"
    "  --time S            simulate to t = S seconds before the first frame\n"
    "  --speed X           simulated seconds per second (default 1; headless: per 60 frames)\n"
    "  --size WxH          window or picture size in pixels (default 1280x800)\n"
    "  --camera AZ,EL,DIST camera azimuth and elevation (degrees) and distance (m, 0: fit)\n"
    "  --threads N         OpenMP threads for the force loops (default 1)\n"
    "  --no-ui             the 3-D view only, without the control and plot windows\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "suitsim-view: %s\n%s", message.c_str(), kUsage);
  return 2;
}

// from_chars takes the whole text or nothing, as in `suitsim run`.
template <typename T>
bool parseNumber(const std::string& text, T* out) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, *out);
  return r.ec == std::errc() && r.ptr == end && !text.empty();
}

bool parseSize(const std::string& text, int* w, int* h) {
  const auto x = text.find('x');
  return x != std::string::npos && parseNumber(text.substr(0, x), w) && parseNumber(text.substr(x + 1), h) &&
         *w >= 64 && *h >= 64 && *w <= 8192 && *h <= 8192;
}

bool parseCamera(const std::string& text, ViewerOptions* o) {
  const auto a = text.find(','), b = text.find(',', a == std::string::npos ? a : a + 1);
  if (a == std::string::npos || b == std::string::npos) return false;
  return parseNumber(text.substr(0, a), &o->camera_azimuth) &&
         parseNumber(text.substr(a + 1, b - a - 1), &o->camera_elevation) &&
         parseNumber(text.substr(b + 1), &o->camera_distance) && std::isfinite(o->camera_azimuth) &&
         std::fabs(o->camera_elevation) < 90.0f && o->camera_distance >= 0.0f;
}

// Returns 0 when the options are good, else the exit code after the message.
int parseOptions(int argc, char** argv, ViewerOptions* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string v;
    auto value = [&]() {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return -1;
    } else if (arg == "--trial") {
      if (!value() || v.empty()) return usageError("--trial needs a trial name");
      o->trial = v;
    } else if (arg == "--frames") {
      if (!value() || !parseNumber(v, &o->frames) || o->frames < 1)
        return usageError("--frames needs a whole number >= 1");
    } else if (arg == "--screenshot") {
      if (!value() || v.empty()) return usageError("--screenshot needs a file name");
      o->screenshot = v;
    } else if (arg == "--time") {
      if (!value() || !parseNumber(v, &o->start_time) || !std::isfinite(o->start_time) || o->start_time < 0.0) {
        return usageError("--time needs a number >= 0 (s)");
      }
    } else if (arg == "--speed") {
      if (!value() || !parseNumber(v, &o->speed) || !(o->speed > 0.0) || o->speed > 1000.0) {
        return usageError("--speed needs a number > 0 (at most 1000)");
      }
    } else if (arg == "--size") {
      if (!value() || !parseSize(v, &o->width, &o->height))
        return usageError("--size needs WxH, 64 to 8192 pixels each");
    } else if (arg == "--camera") {
      if (!value() || !parseCamera(v, o)) {
        return usageError("--camera needs AZ,EL,DIST: degrees, degrees within +-90, metres >= 0");
      }
      o->camera_given = true;
    } else if (arg == "--threads") {
      if (!value() || !parseNumber(v, &o->threads) || o->threads < 1 || o->threads > 1024) {
        return usageError("--threads needs a whole number from 1 to 1024");
      }
    } else if (arg == "--no-ui") {
      o->show_ui = false;
    } else if (!arg.empty() && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (o->scene_path.empty()) {
      o->scene_path = arg;
    } else {
      return usageError("more than one scene given ('" + o->scene_path + "' and '" + arg + "')");
    }
  }
  if (o->scene_path.empty()) return usageError("no scene file given");
  // A picture without a frame count is the first frame's.
  if (o->headless() && o->frames < 0) o->frames = 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ViewerOptions options;
  if (const int code = parseOptions(argc, argv, &options)) return code < 0 ? 0 : code;

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
  return suitsim::viewer::runViewer(options, std::move(source), std::move(scene));
}
