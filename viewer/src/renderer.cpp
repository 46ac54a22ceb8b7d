#include "renderer.h"

#include <stdexcept>
#include <string>

namespace suitsim::viewer {

namespace {

// ---- shaders ------------------------------------------------------------------

constexpr const char* kMeshVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
layout(location = 6) in vec4 a_colour;
uniform mat4 u_view_projection;
uniform mat4 u_flatten;  // identity, or the projection onto the ground for shadows
out vec3 v_world;
out vec3 v_normal;
out vec4 v_colour;
void main() {
  mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);
  vec4 world = model * vec4(a_position, 1.0);
  v_world = world.xyz;
  // Shapes are scaled unevenly (a rod is long and thin), so normals need the
  // inverse transpose. Every shape's matrix has orthogonal columns c_i (see
  // DrawList), for which that is the matrix of columns c_i / |c_i|^2: far
  // cheaper than inverse() per vertex on a software rasteriser.
  vec3 c0 = a_model0.xyz, c1 = a_model1.xyz, c2 = a_model2.xyz;
  v_normal = mat3(c0 / dot(c0, c0), c1 / dot(c1, c1), c2 / dot(c2, c2)) * a_normal;
  v_colour = a_colour;
  gl_Position = u_view_projection * (u_flatten * world);
}
)";

constexpr const char* kMeshFragment = R"(#version 330 core
in vec3 v_world;
in vec3 v_normal;
in vec4 v_colour;
uniform vec3 u_eye;
uniform vec3 u_light;  // unit, toward the key light
uniform int u_shadow_pass;
out vec4 out_colour;
void main() {
  if (u_shadow_pass == 1) {
    out_colour = vec4(0.0, 0.0, 0.0, 0.28);
    return;
  }
  vec3 n = normalize(v_normal);
  vec3 v = normalize(u_eye - v_world);
  // Two-sided: the inside of a cut-open shape is still lit sensibly.
  if (dot(n, v) < 0.0) n = -n;
  float key = max(dot(n, u_light), 0.0);
  float fill = 0.35 * max(dot(n, v), 0.0);          // a headlight, so no side is black
  float sky = 0.5 + 0.5 * n.z;                       // hemisphere ambient: brighter facing up
  vec3 h = normalize(u_light + v);
  float specular = 0.25 * pow(max(dot(n, h), 0.0), 40.0);
  vec3 c = v_colour.rgb * (0.22 + 0.18 * sky + 0.6 * key + fill) + vec3(specular);
  out_colour = vec4(c, v_colour.a);
}
)";

constexpr const char* kGroundVertex = R"(#version 330 core
uniform mat4 u_view_projection;
uniform vec3 u_centre;
uniform vec3 u_tangent_u;
uniform vec3 u_tangent_v;
uniform float u_extent;
out vec3 v_world;
void main() {
  // Two triangles spanning the square of half-width u_extent on the plane.
  vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
  vec2 c = corners[gl_VertexID] * u_extent;
  v_world = u_centre + c.x * u_tangent_u + c.y * u_tangent_v;
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
)";

constexpr const char* kGroundFragment = R"(#version 330 core
in vec3 v_world;
uniform vec3 u_centre;
uniform vec3 u_tangent_u;
uniform vec3 u_tangent_v;
uniform float u_extent;
uniform float u_square;
uniform vec3 u_origin;  // the plane's point nearest the world origin: squares stay put when the centre moves
out vec4 out_colour;
void main() {
  vec2 uv = vec2(dot(v_world - u_origin, u_tangent_u), dot(v_world - u_origin, u_tangent_v)) / u_square;
  float checker = mod(floor(uv.x) + floor(uv.y), 2.0);
  // Far away a pixel covers several squares: fade the pattern to its mean
  // there rather than let it shimmer into moire.
  vec2 footprint = fwidth(uv);
  float detail = 1.0 - smoothstep(0.2, 0.8, max(footprint.x, footprint.y));
  vec3 c = vec3(0.62) + (checker - 0.5) * 0.08 * detail;
  // Thin lines every four squares help judge distances.
  vec2 g = abs(fract(uv / 4.0 + 0.5) - 0.5) * 4.0;
  float line = 1.0 - smoothstep(0.0, max(0.04, 1.5 * max(footprint.x, footprint.y)), min(g.x, g.y));
  c = mix(c, vec3(0.48), 0.6 * line * detail);
  float r = length(v_world - u_centre) / u_extent;
  out_colour = vec4(c, 1.0 - smoothstep(0.5, 1.0, r));
}
)";

constexpr const char* kLineVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;
uniform mat4 u_view_projection;
out vec4 v_colour;
void main() {
  v_colour = a_colour;
  gl_Position = u_view_projection * vec4(a_position, 1.0);
}
)";

constexpr const char* kLineFragment = R"(#version 330 core
in vec4 v_colour;
out vec4 out_colour;
void main() { out_colour = v_colour; }
)";

constexpr const char* kBackgroundVertex = R"(#version 330 core
out float v_height;
void main() {
  // One triangle covering the screen.
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
  v_height = 0.5 * p.y + 0.5;
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

constexpr const char* kBackgroundFragment = R"(#version 330 core
in float v_height;
out vec4 out_colour;
void main() { out_colour = vec4(mix(vec3(0.16, 0.17, 0.19), vec3(0.36, 0.38, 0.42), v_height), 1.0); }
)";

GLuint compileShader(GLenum kind, const char* source, const char* name) {
  const GLuint shader = glCreateShader(kind);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("shader '") + name + "' does not compile: " + log);
  }
  return shader;
}

GLuint linkProgram(const char* vertex, const char* fragment, const char* name) {
  const GLuint vs = compileShader(GL_VERTEX_SHADER, vertex, name);
  const GLuint fs = compileShader(GL_FRAGMENT_SHADER, fragment, name);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    glDeleteProgram(program);
    throw std::runtime_error(std::string("shader program '") + name + "' does not link: " + log);
  }
  return program;
}

void setMat4(GLuint program, const char* name, const Mat4& m) {
  glUniformMatrix4fv(glGetUniformLocation(program, name), 1, GL_FALSE, m.m.data());
}
void setVec3(GLuint program, const char* name, Vec3f v) {
  glUniform3f(glGetUniformLocation(program, name), v.x, v.y, v.z);
}

// Projection along the light direction onto the plane n . p = offset: the
// matrix of p -> p - d (n . p - offset) / (n . d), d the light's travel
// direction. Everything above the plane lands on it.
Mat4 flattenOnto(const GroundPlane& g, Vec3f light_travel) {
  const float nd = dot(g.normal, light_travel);
  Mat4 m;
  const float n[3] = {g.normal.x, g.normal.y, g.normal.z};
  const float d[3] = {light_travel.x, light_travel.y, light_travel.z};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m.at(r, c) = (r == c ? 1.0f : 0.0f) - d[r] * n[c] / nd;
    m.at(r, 3) = d[r] * g.offset / nd;
  }
  return m;
}

}  // namespace

Renderer::Renderer() {
  mesh_program_ = linkProgram(kMeshVertex, kMeshFragment, "mesh");
  ground_program_ = linkProgram(kGroundVertex, kGroundFragment, "ground");
  line_program_ = linkProgram(kLineVertex, kLineFragment, "line");
  background_program_ = linkProgram(kBackgroundVertex, kBackgroundFragment, "background");
  glGenVertexArrays(1, &empty_vao_);
  glGenVertexArrays(1, &line_vao_);
  glGenBuffers(1, &line_buffer_);
  glBindVertexArray(line_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, line_buffer_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(LineVertex), reinterpret_cast<void*>(sizeof(Vec3f)));
  glBindVertexArray(0);
  sphere_ = std::make_unique<GpuMesh>(makeSphere(18, 12));
  cylinder_ = std::make_unique<GpuMesh>(makeCylinder(18));
  cone_ = std::make_unique<GpuMesh>(makeCone(18));
  box_ = std::make_unique<GpuMesh>(makeBox());
}

Renderer::~Renderer() {
  sphere_.reset();
  cylinder_.reset();
  cone_.reset();
  box_.reset();
  glDeleteBuffers(1, &line_buffer_);
  glDeleteVertexArrays(1, &line_vao_);
  glDeleteVertexArrays(1, &empty_vao_);
  for (GLuint p : {mesh_program_, ground_program_, line_program_, background_program_}) glDeleteProgram(p);
}

void Renderer::drawMeshes(const DrawList& list) {
  sphere_->draw(list.spheres);
  cylinder_->draw(list.cylinders);
  cone_->draw(list.cones);
  box_->draw(list.boxes);
}

void Renderer::render(const DrawList& list, const OrbitCamera& camera, const GroundPlane& ground, int width,
                      int height) {
  if (width <= 0 || height <= 0) return;
  glViewport(0, 0, width, height);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDepthMask(GL_TRUE);
  glStencilMask(0xFF);
  glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  glClearDepth(1.0);
  glClearStencil(0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);

  const Mat4 view_projection =
      camera.projection(static_cast<float>(width) / static_cast<float>(height)) * camera.view();
  const Vec3f eye = camera.eye();
  // The key light stands high behind the camera's left shoulder, so shadows
  // fall away from the viewer and to the right.
  const Vec3f to_eye = normalized(eye - camera.target());
  const Vec3f right = normalized(cross(Vec3f{0.0f, 0.0f, 1.0f}, to_eye));
  const Vec3f light = normalized(Vec3f{0.0f, 0.0f, 2.2f} + 0.8f * to_eye - 0.6f * right);

  // Background, without touching depth.
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(background_program_);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

  if (ground.visible) {
    glUseProgram(ground_program_);
    setMat4(ground_program_, "u_view_projection", view_projection);
    setVec3(ground_program_, "u_centre", ground.centre);
    setVec3(ground_program_, "u_tangent_u", ground.tangent_u);
    setVec3(ground_program_, "u_tangent_v", ground.tangent_v);
    setVec3(ground_program_, "u_origin", ground.offset * ground.normal);
    glUniform1f(glGetUniformLocation(ground_program_, "u_extent"), ground.extent);
    glUniform1f(glGetUniformLocation(ground_program_, "u_square"), ground.square);
    glBindVertexArray(empty_vao_);
    glDrawArrays(GL_TRIANGLES, 0, 6);
  }

  glUseProgram(mesh_program_);
  setMat4(mesh_program_, "u_view_projection", view_projection);
  setVec3(mesh_program_, "u_eye", eye);
  setVec3(mesh_program_, "u_light", light);

  if (ground.visible && dot(light, ground.normal) > 0.05f) {
    // Shadows: every shape flattened onto the ground, drawn once per pixel
    // (the stencil counts), so overlapping shapes do not darken twice.
    setMat4(mesh_program_, "u_flatten", flattenOnto(ground, -1.0f * light));
    glUniform1i(glGetUniformLocation(mesh_program_, "u_shadow_pass"), 1);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, 0, 0xFF);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
    glDepthMask(GL_FALSE);
    // Pulled toward the camera so the flat shadow wins against the ground.
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-2.0f, -2.0f);
    drawMeshes(list);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDepthMask(GL_TRUE);
    glDisable(GL_STENCIL_TEST);
  }

  setMat4(mesh_program_, "u_flatten", Mat4{});
  glUniform1i(glGetUniformLocation(mesh_program_, "u_shadow_pass"), 0);
  drawMeshes(list);

  if (!list.lines.empty()) {
    glUseProgram(line_program_);
    setMat4(line_program_, "u_view_projection", view_projection);
    glBindVertexArray(line_vao_);
    glBindBuffer(GL_ARRAY_BUFFER, line_buffer_);
    if (list.lines.size() > line_capacity_) {
      line_capacity_ = 2 * list.lines.size();
      glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(line_capacity_ * sizeof(LineVertex)), nullptr,
                   GL_STREAM_DRAW);
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(list.lines.size() * sizeof(LineVertex)),
                    list.lines.data());
    glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(list.lines.size()));
  }
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_DEPTH_TEST);
}

}  // namespace suitsim::viewer
