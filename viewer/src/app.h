// The viewer application: a GLFW window with an OpenGL 3.3 core context,
// the 3-D view, the ImGui controls and plots, and the loop that steps the
// simulation in step with the clock. Headless mode is the same loop drawing
// into an off-screen target for a fixed number of frames, then a PNG.
#pragma once

#include <string>

#include "scene_source.h"

namespace suitsim::viewer {

struct ViewerOptions {
  std::string scene_path;
  std::string trial;        ///< experiment trial to show first (empty: the first)
  int frames = -1;          ///< stop after this many frames (< 0: run until the window closes)
  std::string screenshot;   ///< headless: write the last frame here (PNG)
  double start_time = 0.0;  ///< simulate to this time (s) before the first frame
  double speed = 1.0;       ///< simulated seconds per wall-clock second
  int width = 1280, height = 800;
  bool camera_given = false;  ///< camera_* override the scene's framing
  float camera_azimuth = 0.0f, camera_elevation = 0.0f, camera_distance = 0.0f;  ///< deg, deg, m (0: fit)
  int threads = 1;                                                               ///< OpenMP threads of the force loops
  bool show_ui = true;
  bool headless() const { return !screenshot.empty(); }
};

/// Runs the viewer on a scene that has already loaded cleanly. Returns the
/// process exit code: 0, or 1 when no window or OpenGL 3.3 context could be
/// made, the simulation could not be set up, or the PNG could not be written.
int runViewer(const ViewerOptions& options, SceneSource source, io::Scene scene);

}  // namespace suitsim::viewer
