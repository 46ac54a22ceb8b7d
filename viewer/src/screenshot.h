// Pictures of the view: an off-screen render target for headless mode
// (multisampled, resolved before reading) and PNG writing with stb.
#pragma once

#include <string>
#include <vector>

#include "gl.h"

namespace suitsim::viewer {

/// A framebuffer object of its own size, so headless pictures do not depend
/// on a window being mapped or unobscured.
class OffscreenTarget {
 public:
  /// Throws std::runtime_error when the driver refuses the framebuffer.
  OffscreenTarget(int width, int height, int samples);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  /// Makes it the target of drawing.
  void bind() const;
  /// Resolves the samples and reads the pixels: RGB, rows bottom-up.
  std::vector<unsigned char> readRgb() const;
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  int width_, height_;
  GLuint msaa_fbo_ = 0, msaa_colour_ = 0, msaa_depth_ = 0;
  GLuint resolve_fbo_ = 0, resolve_colour_ = 0;
};

/// RGB pixels of the bound read framebuffer's (0, 0, width, height), rows bottom-up.
std::vector<unsigned char> readPixelsRgb(int width, int height);

/// Writes rows given bottom-up (OpenGL's order) as a top-down PNG. Returns
/// false with a message on failure.
bool writePng(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb_bottom_up,
              std::string* error);

}  // namespace suitsim::viewer
