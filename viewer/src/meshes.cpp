#include "meshes.h"

#include <cmath>
#include <cstddef>

namespace suitsim::viewer {

namespace {

constexpr float kPi = 3.14159265358979f;

void vertex(MeshData& m, Vec3f p, Vec3f n) { m.vertices.insert(m.vertices.end(), {p.x, p.y, p.z, n.x, n.y, n.z}); }

std::uint32_t numVertices(const MeshData& m) { return static_cast<std::uint32_t>(m.vertices.size() / 6); }

// A flat disc at height z facing `normal_z` (+1 or -1), as a triangle fan.
void disc(MeshData& m, int slices, float z, float normal_z) {
  const std::uint32_t centre = numVertices(m);
  vertex(m, {0.0f, 0.0f, z}, {0.0f, 0.0f, normal_z});
  for (int i = 0; i <= slices; ++i) {
    const float a = 2.0f * kPi * static_cast<float>(i) / static_cast<float>(slices);
    vertex(m, {std::cos(a), std::sin(a), z}, {0.0f, 0.0f, normal_z});
  }
  for (int i = 0; i < slices; ++i) {
    // Counter-clockwise seen from the side the normal points to.
    if (normal_z > 0.0f) {
      m.indices.insert(m.indices.end(), {centre, centre + 1 + i, centre + 2 + i});
    } else {
      m.indices.insert(m.indices.end(), {centre, centre + 2 + i, centre + 1 + i});
    }
  }
}

}  // namespace

MeshData makeSphere(int slices, int stacks) {
  MeshData m;
  for (int j = 0; j <= stacks; ++j) {
    const float theta = kPi * static_cast<float>(j) / static_cast<float>(stacks);
    for (int i = 0; i <= slices; ++i) {
      const float phi = 2.0f * kPi * static_cast<float>(i) / static_cast<float>(slices);
      const Vec3f p{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
      vertex(m, p, p);
    }
  }
  const std::uint32_t row = static_cast<std::uint32_t>(slices + 1);
  for (std::uint32_t j = 0; j < static_cast<std::uint32_t>(stacks); ++j) {
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(slices); ++i) {
      const std::uint32_t a = j * row + i, b = a + row;
      m.indices.insert(m.indices.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  }
  return m;
}

MeshData makeCylinder(int slices) {
  MeshData m;
  for (int i = 0; i <= slices; ++i) {
    const float a = 2.0f * kPi * static_cast<float>(i) / static_cast<float>(slices);
    const Vec3f n{std::cos(a), std::sin(a), 0.0f};
    vertex(m, {n.x, n.y, 0.0f}, n);
    vertex(m, {n.x, n.y, 1.0f}, n);
  }
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(slices); ++i) {
    const std::uint32_t a = 2 * i;
    m.indices.insert(m.indices.end(), {a, a + 2, a + 1, a + 1, a + 2, a + 3});
  }
  disc(m, slices, 0.0f, -1.0f);
  disc(m, slices, 1.0f, 1.0f);
  return m;
}

MeshData makeCone(int slices) {
  MeshData m;
  // The side normal of a cone of base radius 1 and height 1 leans up by 45
  // degrees; each side triangle gets its own apex vertex so shading is smooth.
  const float s = 1.0f / std::sqrt(2.0f);
  for (int i = 0; i < slices; ++i) {
    const float a0 = 2.0f * kPi * static_cast<float>(i) / static_cast<float>(slices);
    const float a1 = 2.0f * kPi * static_cast<float>(i + 1) / static_cast<float>(slices);
    const float am = 0.5f * (a0 + a1);
    const std::uint32_t base = numVertices(m);
    vertex(m, {std::cos(a0), std::sin(a0), 0.0f}, {s * std::cos(a0), s * std::sin(a0), s});
    vertex(m, {std::cos(a1), std::sin(a1), 0.0f}, {s * std::cos(a1), s * std::sin(a1), s});
    vertex(m, {0.0f, 0.0f, 1.0f}, {s * std::cos(am), s * std::sin(am), s});
    m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
  }
  disc(m, slices, 0.0f, -1.0f);
  return m;
}

MeshData makeBox() {
  MeshData m;
  // Four corners per face so that each face has its own flat normal.
  const Vec3f normals[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (const Vec3f& n : normals) {
    const Vec3f u = anyPerpendicular(n);
    const Vec3f v = cross(n, u);
    const std::uint32_t base = numVertices(m);
    vertex(m, n - u - v, n);
    vertex(m, n + u - v, n);
    vertex(m, n + u + v, n);
    vertex(m, n - u + v, n);
    m.indices.insert(m.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return m;
}

GpuMesh::GpuMesh(const MeshData& data) : num_indices_(static_cast<GLsizei>(data.indices.size())) {
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glGenBuffers(1, &vertex_buffer_);
  glBindBuffer(GL_ARRAY_BUFFER, vertex_buffer_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.vertices.size() * sizeof(float)), data.vertices.data(),
               GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
  glGenBuffers(1, &index_buffer_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, index_buffer_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.indices.size() * sizeof(std::uint32_t)),
               data.indices.data(), GL_STATIC_DRAW);
  // Per-instance attributes: four model-matrix columns (locations 2-5) and
  // the colour (6), advancing once per instance.
  glGenBuffers(1, &instance_buffer_);
  glBindBuffer(GL_ARRAY_BUFFER, instance_buffer_);
  for (int c = 0; c < 5; ++c) {
    glEnableVertexAttribArray(2 + c);
    glVertexAttribPointer(2 + c, 4, GL_FLOAT, GL_FALSE, sizeof(Instance),
                          reinterpret_cast<void*>(static_cast<std::size_t>(4 * c) * sizeof(float)));
    glVertexAttribDivisor(2 + c, 1);
  }
  glBindVertexArray(0);
}

GpuMesh::~GpuMesh() {
  glDeleteBuffers(1, &instance_buffer_);
  glDeleteBuffers(1, &index_buffer_);
  glDeleteBuffers(1, &vertex_buffer_);
  glDeleteVertexArrays(1, &vao_);
}

void GpuMesh::draw(const std::vector<Instance>& instances) {
  if (instances.empty()) return;
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, instance_buffer_);
  const std::size_t bytes = instances.size() * sizeof(Instance);
  // Grow the buffer only when needed; otherwise overwrite in place.
  if (instances.size() > instance_capacity_) {
    instance_capacity_ = instances.size() * 2;
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(instance_capacity_ * sizeof(Instance)), nullptr,
                 GL_STREAM_DRAW);
  }
  glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), instances.data());
  glDrawElementsInstanced(GL_TRIANGLES, num_indices_, GL_UNSIGNED_INT, nullptr, static_cast<GLsizei>(instances.size()));
  glBindVertexArray(0);
}

}  // namespace suitsim::viewer
