#include "app.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "camera.h"
#include "draw_list.h"
#include "gl.h"
#include "plot_data.h"
#include "plots.h"
#include "renderer.h"
#include "scene_draw.h"
#include "screenshot.h"
#include "simulation.h"

namespace suitsim::viewer {

namespace {

using Clock = std::chrono::steady_clock;

// Headless frames advance simulated time as if the display ran at 60 Hz, so
// a picture depends on the frame count, never on how fast the machine is.
constexpr double kHeadlessFrameRate = 60.0;
// Interactive stepping may use this share of a 60 Hz frame; the rest is for
// drawing, so the window stays responsive however heavy the scene.
constexpr double kStepBudget = 0.7 / 60.0;
// How often the scene file's modification time is checked (s).
constexpr double kWatchPeriod = 0.5;
// Multisampling of headless pictures: smooth edges, at twice the cost of a
// frame on a software rasteriser.
constexpr int kHeadlessSamples = 4;
// Where the camera looks from by default: behind the robot's right shoulder
// (a robot faces +x), where the suit's back bands show.
constexpr float kDefaultAzimuth = 215.0f, kDefaultElevation = 14.0f;
constexpr float kControlsWidth = 300.0f, kPlotsWidth = 390.0f;

void glfwErrorCallback(int code, const char* description) {
  std::fprintf(stderr, "suitsim-view: GLFW error %d: %s\n", code, description);
}

// GLFW's library-wide state, released on every way out.
struct GlfwSession {
  bool ok = glfwInit() == GLFW_TRUE;
  ~GlfwSession() {
    if (ok) glfwTerminate();
  }
};

struct WindowDeleter {
  void operator()(GLFWwindow* w) const { glfwDestroyWindow(w); }
};
using WindowPtr = std::unique_ptr<GLFWwindow, WindowDeleter>;

WindowPtr openWindow(const ViewerOptions& options, const std::string& title) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_STENCIL_BITS, 8);
  glfwWindowHint(GLFW_DEPTH_BITS, 24);
  // Headless draws into its own framebuffer: the window only carries the context.
  glfwWindowHint(GLFW_VISIBLE, options.headless() ? GLFW_FALSE : GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, options.headless() ? 0 : 4);
  GLFWwindow* w = glfwCreateWindow(options.width, options.height, title.c_str(), nullptr, nullptr);
  if (!w && !options.headless()) {
    // Some servers have no multisampled visual; plain is better than nothing.
    glfwWindowHint(GLFW_SAMPLES, 0);
    w = glfwCreateWindow(options.width, options.height, title.c_str(), nullptr, nullptr);
  }
  return WindowPtr(w);
}

// ImGui's context and its two backends, shut down in reverse order.
struct ImGuiSession {
  bool glfw_ok = false, gl_ok = false;
  explicit ImGuiSession(GLFWwindow* window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    // No imgui.ini in whatever directory the viewer was started from.
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.Colors[ImGuiCol_WindowBg].w = 0.88f;
    glfw_ok = ImGui_ImplGlfw_InitForOpenGL(window, true);
    gl_ok = ImGui_ImplOpenGL3_Init("#version 330 core");
  }
  ~ImGuiSession() {
    if (gl_ok) ImGui_ImplOpenGL3_Shutdown();
    if (glfw_ok) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
};

class App {
 public:
  App(const ViewerOptions& options, SceneSource source, io::Scene scene)
      : options_(options), source_(std::move(source)), speed_(static_cast<float>(options.speed)) {
    setScene(std::move(scene), /*first=*/true);
  }

  int run(GLFWwindow* window);

 private:
  void setScene(io::Scene scene, bool first);
  void advance(double wall_dt);
  void handleInput();
  void drawUi();
  void drawControls();
  void drawMessages();
  void sampleRate(double sim_dt, double wall_dt);
  void reset();
  void resetCamera();
  void followCentreOfMass();
  Simulation::StepObserver observer() {
    return [this](const Simulation& s) { plots_.sample(s.scene(), s.state(), s.workspace()); };
  }

  const ViewerOptions& options_;
  SceneSource source_;
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<SceneDrawing> drawing_;
  PlotData plots_;
  OrbitCamera camera_;
  Layers layers_;
  DrawStyle style_;
  DrawStyle fitted_;     // the style the scene's scales give: the sliders span 1/100 to 100 times it
  GlyphScales applied_;  // the scales of the scene the style was last fitted to
  DrawList draw_list_;

  bool playing_ = true;
  bool max_speed_ = false;
  bool follow_ = false;  // the camera's target moves with the centre of mass
  Vec3f followed_{};     // the centre of mass the camera last moved with
  float speed_ = 1.0f;
  int step_count_ = 1;
  bool auto_reload_ = true;
  bool screenshot_requested_ = false;
  std::string status_;  // the last action's outcome (a saved screenshot, a reload)

  // The real-time factor, averaged over about half a second.
  double rate_sim_ = 0.0, rate_wall_ = 0.0, realtime_factor_ = 0.0;
  int width_ = 1, height_ = 1;
};

void App::setScene(io::Scene scene, bool first) {
  const bool had_links = drawing_ && drawing_->defaultLayers(sim_->scene()).links;
  sim_ = std::make_unique<Simulation>(std::move(scene), options_.threads);
  drawing_ = std::make_unique<SceneDrawing>(sim_->scene());
  // The plots keep the chosen channels the new scene still has.
  plots_.setScene(sim_->scene());
  const Layers defaults = drawing_->defaultLayers(sim_->scene());
  // A reload of the same kind of scene keeps the user's layers and camera;
  // a different kind (a robot became a cloth) starts fresh.
  if (first || defaults.links != had_links) {
    layers_ = defaults;
    follow_ = !drawing_->pinned();
    camera_.frame(drawing_->centre(), drawing_->radius(), kDefaultAzimuth, kDefaultElevation);
    if (options_.camera_given) {
      camera_.setHome(options_.camera_azimuth, options_.camera_elevation, options_.camera_distance);
    }
  }
  followed_ = centreOfMass(sim_->model(), sim_->state());
  // Arrows and tension colours follow the scene's size, weight and suit. A
  // reload or another trial of the same robot keeps what the user set, so
  // that two suits are compared on one colour scale; a robot of another
  // size or weight, or the first scene with bands, gets its own.
  const GlyphScales& scales = drawing_->scales();
  const DrawStyle fitted = defaultStyle(scales);
  const bool other_size = first || scales.length != applied_.length;
  if (other_size || scales.weight != applied_.weight) style_.force_scale = fitted.force_scale;
  if (other_size || (applied_.tension <= 0.0 && scales.tension > 0.0)) style_.tension_scale = fitted.tension_scale;
  fitted_ = fitted;
  applied_ = scales;
}

void App::reset() {
  sim_->reset();
  plots_.clear();
  followCentreOfMass();
}

void App::resetCamera() {
  camera_.reset();
  // The home pose frames the scene where it started; a followed scene may
  // have travelled since.
  const Vec3f start = centreOfMass(sim_->model(), makeState(sim_->model()));
  followed_ = centreOfMass(sim_->model(), sim_->state());
  if (follow_) camera_.translate(followed_ - start);
}

void App::followCentreOfMass() {
  const Vec3f now = centreOfMass(sim_->model(), sim_->state());
  if (follow_) camera_.translate(now - followed_);
  followed_ = now;
}

void App::sampleRate(double sim_dt, double wall_dt) {
  rate_sim_ += sim_dt;
  rate_wall_ += wall_dt;
  if (rate_wall_ >= 0.5) {
    realtime_factor_ = rate_sim_ / rate_wall_;
    rate_sim_ = rate_wall_ = 0.0;
  }
}

void App::advance(double wall_dt) {
  const double t0 = sim_->state().time;
  if (playing_ && !sim_->diverged()) {
    if (options_.headless()) {
      sim_->advanceTo(t0 + speed_ / kHeadlessFrameRate, -1.0, observer());
    } else if (max_speed_) {
      sim_->advanceTo(std::numeric_limits<double>::infinity(), kStepBudget, observer());
    } else {
      // A long stall (a dragged window) must not turn into a burst of catching up.
      sim_->advanceTo(t0 + std::min(wall_dt, 0.1) * speed_, kStepBudget, observer());
    }
  }
  sampleRate(sim_->state().time - t0, wall_dt);
}

void App::handleInput() {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureMouse) {
    if (io.MouseDown[0]) camera_.orbit(io.MouseDelta.x, io.MouseDelta.y);
    if (io.MouseDown[1] || io.MouseDown[2]) camera_.pan(io.MouseDelta.x, io.MouseDelta.y, height_);
    if (io.MouseWheel != 0.0f) camera_.zoom(io.MouseWheel);
  }
  if (!io.WantCaptureKeyboard) {
    // ImGui 1.86 indexes keys by the backend's codes: GLFW_KEY_*.
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) playing_ = !playing_;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) {
      playing_ = false;
      sim_->stepCount(step_count_, observer());
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) reset();
    if (ImGui::IsKeyPressed(GLFW_KEY_C, false)) resetCamera();
  }
}

void App::drawControls() {
  const io::Scene& scene = sim_->scene();
  const State& state = sim_->state();
  ImGui::Text("%s", scene.name.c_str());
  ImGui::TextDisabled("%s", source_.path().c_str());

  // ---- experiment trials -----------------------------------------------------
  if (!source_.trials().empty()) {
    const std::string current = source_.trial();
    ImGui::SetNextItemWidth(-60.0f);
    if (ImGui::BeginCombo("trial", current.c_str())) {
      for (const io::TrialSpec& t : source_.trials()) {
        const std::string label = t.name + "  (" + t.motion + ", suit " + t.suit + ")";
        if (ImGui::Selectable(label.c_str(), t.name == current) && t.name != current) {
          if (std::optional<io::Scene> s = source_.reload(t.name)) setScene(std::move(*s), false);
        }
      }
      ImGui::EndCombo();
    }
  }

  // ---- time ------------------------------------------------------------------
  ImGui::Separator();
  ImGui::Text("t = %.3f s   (%ld steps of %.3g s)", state.time, sim_->steps(), sim_->dt());
  // Headless frames advance a fixed simulated time, so a real-time factor
  // would only measure the rasteriser.
  if (realtime_factor_ > 0.0 && !options_.headless()) {
    ImGui::Text("%.3gx real time   energy %.4g J", realtime_factor_, computeEnergy(sim_->model(), state).total());
  } else {
    ImGui::Text("energy %.4g J", computeEnergy(sim_->model(), state).total());
  }

  if (ImGui::Button(playing_ ? "Pause" : "Play", ImVec2(64, 0))) playing_ = !playing_;
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    playing_ = false;
    sim_->stepCount(step_count_, observer());
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70.0f);
  ImGui::InputInt("steps", &step_count_, 1, 100);
  step_count_ = std::clamp(step_count_, 1, 1000000);
  ImGui::SameLine();
  if (ImGui::Button("Reset")) reset();

  ImGui::Checkbox("as fast as it runs", &max_speed_);
  ImGui::BeginDisabled(max_speed_);
  ImGui::SetNextItemWidth(-60.0f);
  ImGui::SliderFloat("speed", &speed_, 0.01f, 10.0f, "%.3gx", ImGuiSliderFlags_Logarithmic);
  ImGui::EndDisabled();

  // ---- layers ------------------------------------------------------------------
  ImGui::Separator();
  ImGui::TextUnformatted("Layers");
  ImGui::Checkbox("links", &layers_.links);
  ImGui::SameLine(150);
  ImGui::Checkbox("ground", &layers_.ground);
  ImGui::Checkbox("particles", &layers_.particles);
  ImGui::SameLine(150);
  ImGui::Checkbox("springs", &layers_.springs);
  ImGui::Checkbox("bands", &layers_.bands);
  ImGui::SameLine(150);
  ImGui::Checkbox("via points", &layers_.via_points);
  ImGui::Checkbox("contact forces", &layers_.contact_forces);
  ImGui::SameLine(150);
  ImGui::Checkbox("centre of mass", &layers_.centre_of_mass);
  ImGui::Checkbox("balance (DCM orange, VRP green, CoP cyan)", &layers_.balance);
  ImGui::Checkbox("device straps and their forces", &layers_.straps);

  const GlyphScales& scales = drawing_->scales();
  ImGui::TextDisabled("length scale %.3g m, weight %.3g N", scales.length, scales.weight);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "glyphs are sized by the length scale (the longest side of the scene at t = 0: a standing "
        "robot's height); arrows are drawn relative to the weight");
  }
  if (sim_->model().num_bands > 0) {
    ImGui::SetNextItemWidth(-100.0f);
    ImGui::SliderFloat("red at [N]", &style_.tension_scale, 0.01f * fitted_.tension_scale,
                       100.0f * fitted_.tension_scale, "%.3g", ImGuiSliderFlags_Logarithmic);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("default: the stiffest band stretched by 1/16 of the length scale (%.3g N)",
                        fitted_.tension_scale);
    }
    // The colour scale of band tension, slack (green) to the red tension.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = 10.0f;
    constexpr int kStops = 8;
    for (int i = 0; i < kStops; ++i) {
      const Colour a = tensionColour(style_.tension_scale * i / kStops, style_.tension_scale);
      const Colour b = tensionColour(style_.tension_scale * (i + 1) / kStops, style_.tension_scale);
      const ImU32 ca = ImGui::ColorConvertFloat4ToU32({a.r, a.g, a.b, 1.0f});
      const ImU32 cb = ImGui::ColorConvertFloat4ToU32({b.r, b.g, b.b, 1.0f});
      dl->AddRectFilledMultiColor({p.x + w * i / kStops, p.y}, {p.x + w * (i + 1) / kStops, p.y + h}, ca, cb, cb, ca);
    }
    ImGui::Dummy({w, h});
    ImGui::TextDisabled("0 N (slack)");
    ImGui::SameLine(w - 40.0f);
    ImGui::TextDisabled("%.3g N", style_.tension_scale);
    for (int b = 0; b < sim_->model().num_bands; ++b) {
      const double f = sim_->workspace().band_tension[b];
      const Colour c = tensionColour(f, style_.tension_scale);
      ImGui::ColorButton(("##band" + std::to_string(b)).c_str(), {c.r, c.g, c.b, 1.0f}, ImGuiColorEditFlags_NoTooltip,
                         {10, 10});
      ImGui::SameLine();
      ImGui::Text("%-10s %8.3g N", sim_->model().band_name[b].c_str(), f);
    }
  }
  ImGui::SetNextItemWidth(-100.0f);
  float mm_per_n = 1000.0f * style_.force_scale;
  const float fitted_mm_per_n = 1000.0f * fitted_.force_scale;
  if (ImGui::SliderFloat("arrow [mm/N]", &mm_per_n, 0.01f * fitted_mm_per_n, 100.0f * fitted_mm_per_n, "%.3g",
                         ImGuiSliderFlags_Logarithmic)) {
    style_.force_scale = 1e-3f * mm_per_n;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("default: the whole weight as long as the length scale");

  // ---- camera and files -----------------------------------------------------------
  ImGui::Separator();
  if (ImGui::Button("Reset camera")) resetCamera();
  ImGui::SameLine();
  ImGui::Checkbox("follow", &follow_);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the camera moves with the centre of mass");
  if (!options_.headless() && ImGui::Button("Save picture")) screenshot_requested_ = true;
  if (!options_.headless()) ImGui::SameLine();
  ImGui::Checkbox("reload on save", &auto_reload_);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("read the scene again when its file changes");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped(
      "drag: orbit, right drag: pan, wheel: zoom; keys: space play/pause, right step, r reset, "
      "c camera");
  ImGui::PopStyleColor();
  if (!status_.empty()) ImGui::TextWrapped("%s", status_.c_str());
}

void App::drawMessages() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const bool scene_error = !source_.error().empty();
  const bool advice = !source_.warnings().empty();
  if (!scene_error && !sim_->diverged() && !advice) return;
  // Top centre, between the two panels, where it cannot be missed.
  // (In a narrow window it may cover part of the plots: it matters more.)
  const float w = std::max(360.0f, vp->Size.x - kControlsWidth - kPlotsWidth - 40.0f);
  ImGui::SetNextWindowPos({std::min(kControlsWidth + 20.0f, std::max(0.0f, vp->Size.x - w - 10.0f)), 10.0f});
  ImGui::SetNextWindowSize({w, 0.0f});
  ImGui::SetNextWindowBgAlpha(0.92f);
  ImGui::Begin("problem", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  if (scene_error) {
    ImGui::TextWrapped("The scene file has an error; the last good scene stays up until it is fixed:");
    ImGui::TextWrapped("%s", source_.error().c_str());
  }
  if (sim_->diverged()) {
    ImGui::TextWrapped(
        "The simulation diverged at t = %.6g s (positions or velocities became non-finite). "
        "Reset, or make the time step smaller.",
        sim_->state().time);
  }
  ImGui::PopStyleColor();
  if (advice) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
    for (const std::string& w : source_.warnings()) ImGui::TextWrapped("warning: %s", w.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::End();
}

void App::drawUi() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos({10.0f, 10.0f}, ImGuiCond_FirstUseEver);
  // Fixed width, height fitted to the contents (which change with the scene).
  ImGui::SetNextWindowSizeConstraints({kControlsWidth, 0.0f}, {kControlsWidth, vp->Size.y - 20.0f});
  ImGui::Begin("suitsim", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  drawControls();
  ImGui::End();

  ImGui::SetNextWindowPos({vp->Size.x - kPlotsWidth - 10.0f, 10.0f}, ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize({kPlotsWidth, vp->Size.y - 20.0f}, ImGuiCond_FirstUseEver);
  ImGui::Begin("plots");
  drawPlots(plots_);
  ImGui::End();

  drawMessages();
}

int App::run(GLFWwindow* window) {
  Renderer renderer;
  std::unique_ptr<OffscreenTarget> offscreen;
  if (options_.headless())
    offscreen = std::make_unique<OffscreenTarget>(options_.width, options_.height, kHeadlessSamples);

  if (options_.start_time > 0.0) sim_->advanceTo(options_.start_time, -1.0, observer());

  auto last = Clock::now();
  double since_watch = 0.0;
  for (int frame = 0; !glfwWindowShouldClose(window); ++frame) {
    if (options_.frames >= 0 && frame >= options_.frames) break;
    glfwPollEvents();
    const auto now = Clock::now();
    const double wall_dt = std::chrono::duration<double>(now - last).count();
    last = now;

    since_watch += wall_dt;
    if (auto_reload_ && since_watch >= kWatchPeriod) {
      since_watch = 0.0;
      const std::string previous_error = source_.error();
      if (std::optional<io::Scene> s = source_.poll()) {
        setScene(std::move(*s), false);
        status_ = "reloaded " + source_.path();
        std::fprintf(stderr, "suitsim-view: reloaded %s\n", source_.path().c_str());
      } else if (!source_.error().empty() && source_.error() != previous_error) {
        // Also on the terminal, where an editor's user may be looking.
        std::fprintf(stderr, "error: %s (the last good scene stays up)\n", source_.error().c_str());
      }
    }

    advance(wall_dt);
    followCentreOfMass();

    if (offscreen) {
      width_ = offscreen->width();
      height_ = offscreen->height();
      offscreen->bind();
    } else {
      glfwGetFramebufferSize(window, &width_, &height_);
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
    }

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    handleInput();
    if (options_.show_ui) drawUi();
    ImGui::Render();

    drawing_->build(sim_->scene(), sim_->state(), sim_->workspace(), layers_, style_, &draw_list_);
    GroundPlane ground = drawing_->groundPlane(sim_->model());
    ground.visible = ground.visible && layers_.ground;
    renderer.render(draw_list_, camera_, ground, width_, height_);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    const bool last_frame = options_.frames >= 0 && frame + 1 >= options_.frames;
    if (offscreen && last_frame) {
      std::string error;
      if (!writePng(options_.screenshot, width_, height_, offscreen->readRgb(), &error)) {
        std::fprintf(stderr, "suitsim-view: %s\n", error.c_str());
        return 1;
      }
      std::printf("suitsim-view: wrote %s (%d x %d, t = %.3f s)\n", options_.screenshot.c_str(), width_, height_,
                  sim_->state().time);
    }
    if (screenshot_requested_) {
      screenshot_requested_ = false;
      char name[256];
      std::snprintf(name, sizeof name, "suitsim-view-%s-%.3fs.png", sim_->scene().name.c_str(), sim_->state().time);
      std::string error;
      glReadBuffer(GL_BACK);
      status_ = writePng(name, width_, height_, readPixelsRgb(width_, height_), &error) ? std::string("saved ") + name
                                                                                        : error;
    }
    if (offscreen) {
      // What swapping does for a window: finish the frame before the next
      // one, so a software rasteriser does not queue frames up and the clock
      // (file watching, the real-time factor) sees the real frame time.
      glFinish();
    } else {
      glfwSwapBuffers(window);
    }
  }
  return 0;
}

}  // namespace

int runViewer(const ViewerOptions& options, SceneSource source, io::Scene scene) {
  glfwSetErrorCallback(glfwErrorCallback);
  GlfwSession glfw;
  if (!glfw.ok) {
    std::fprintf(stderr,
                 "suitsim-view: cannot start GLFW (no display? on a machine without one, run under "
                 "xvfb-run -a -s \"-screen 0 1280x800x24\")\n");
    return 1;
  }
  const std::string title = "suitsim-view: " + scene.name;
  WindowPtr window = openWindow(options, title);
  if (!window) {
    std::fprintf(stderr, "suitsim-view: cannot open a window with an OpenGL 3.3 core context\n");
    return 1;
  }
  glfwMakeContextCurrent(window.get());
  glfwSwapInterval(options.headless() ? 0 : 1);
  try {
    ImGuiSession imgui(window.get());
    if (!imgui.glfw_ok || !imgui.gl_ok) {
      std::fprintf(stderr, "suitsim-view: cannot start Dear ImGui's GLFW and OpenGL 3 backends\n");
      return 1;
    }
    App app(options, std::move(source), std::move(scene));
    return app.run(window.get());
  } catch (const std::exception& e) {
    // A shader the driver refuses, an off-screen target it cannot make.
    std::fprintf(stderr, "suitsim-view: %s\n", e.what());
    return 1;
  }
}

}  // namespace suitsim::viewer
