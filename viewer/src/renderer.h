// Draws a DrawList with OpenGL 3.3 core shaders: a gradient background, the
// ground plane (a checkerboard that fades with distance), flat shadows of
// every shape on the ground, lit instanced shapes, and lines. The same code
// draws into the window and into the off-screen target of headless mode.
#pragma once

#include <memory>

#include "camera.h"
#include "draw_list.h"
#include "gl.h"
#include "meshes.h"

namespace suitsim::viewer {

class Renderer {
 public:
  /// Needs a current OpenGL 3.3 core context. Throws std::runtime_error with
  /// the compiler's log if a shader does not build.
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Renders into the bound framebuffer's (0, 0, width, height).
  void render(const DrawList& list, const OrbitCamera& camera, const GroundPlane& ground, int width, int height);

 private:
  void drawMeshes(const DrawList& list);

  GLuint mesh_program_ = 0, ground_program_ = 0, line_program_ = 0, background_program_ = 0;
  GLuint empty_vao_ = 0;  // core profile needs a VAO bound even without attributes
  GLuint line_vao_ = 0, line_buffer_ = 0;
  std::size_t line_capacity_ = 0;
  std::unique_ptr<GpuMesh> sphere_, cylinder_, cone_, box_;
};

}  // namespace suitsim::viewer
