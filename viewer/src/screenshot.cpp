#include "screenshot.h"

#include <stb_image_write.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace suitsim::viewer {

OffscreenTarget::OffscreenTarget(int width, int height, int samples) : width_(width), height_(height) {
  GLint max_samples = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples = std::min(samples, static_cast<int>(max_samples));

  glGenFramebuffers(1, &msaa_fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, msaa_fbo_);
  glGenRenderbuffers(1, &msaa_colour_);
  glBindRenderbuffer(GL_RENDERBUFFER, msaa_colour_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, msaa_colour_);
  // Depth for the scene, stencil for drawing each shadow pixel once.
  glGenRenderbuffers(1, &msaa_depth_);
  glBindRenderbuffer(GL_RENDERBUFFER, msaa_depth_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH24_STENCIL8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, msaa_depth_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw std::runtime_error("the off-screen framebuffer is incomplete (" + std::to_string(width) + " x " +
                             std::to_string(height) + ", " + std::to_string(samples) + " samples)");
  }

  glGenFramebuffers(1, &resolve_fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, resolve_fbo_);
  glGenRenderbuffers(1, &resolve_colour_);
  glBindRenderbuffer(GL_RENDERBUFFER, resolve_colour_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, resolve_colour_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw std::runtime_error("the off-screen resolve framebuffer is incomplete");
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

OffscreenTarget::~OffscreenTarget() {
  glDeleteFramebuffers(1, &resolve_fbo_);
  glDeleteRenderbuffers(1, &resolve_colour_);
  glDeleteFramebuffers(1, &msaa_fbo_);
  glDeleteRenderbuffers(1, &msaa_colour_);
  glDeleteRenderbuffers(1, &msaa_depth_);
}

void OffscreenTarget::bind() const { glBindFramebuffer(GL_FRAMEBUFFER, msaa_fbo_); }

std::vector<unsigned char> OffscreenTarget::readRgb() const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, msaa_fbo_);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_fbo_);
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve_fbo_);
  std::vector<unsigned char> pixels = readPixelsRgb(width_, height_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return pixels;
}

std::vector<unsigned char> readPixelsRgb(int width, int height) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * 3);
  // Rows of 3-byte pixels are not 4-byte aligned in general.
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  return pixels;
}

bool writePng(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb_bottom_up,
              std::string* error) {
  // Flipped here rather than with stbi_flip_vertically_on_write, which is a
  // global switch.
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  std::vector<unsigned char> top_down(rgb_bottom_up.size());
  for (int y = 0; y < height; ++y) {
    std::memcpy(top_down.data() + static_cast<std::size_t>(y) * row,
                rgb_bottom_up.data() + static_cast<std::size_t>(height - 1 - y) * row, row);
  }
  if (!stbi_write_png(path.c_str(), width, height, 3, top_down.data(), static_cast<int>(row))) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace suitsim::viewer
