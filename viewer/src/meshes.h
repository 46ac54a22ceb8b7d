// Unit shapes the renderer instances: every link, band segment, particle
// and force arrow is one of these under a per-instance affine transform and
// colour, so a whole layer is one draw call.
#pragma once

#include <cstdint>
#include <vector>

#include "gl.h"
#include "math3d.h"

namespace suitsim::viewer {

/// Interleaved position and normal (px py pz nx ny nz per vertex) and triangles.
struct MeshData {
  std::vector<float> vertices;
  std::vector<std::uint32_t> indices;
};

MeshData makeSphere(int slices, int stacks);  ///< radius 1 about the origin
MeshData makeCylinder(int slices);            ///< radius 1, z from 0 to 1, capped
MeshData makeCone(int slices);                ///< base radius 1 at z = 0, apex at z = 1, capped
MeshData makeBox();                           ///< the cube [-1, 1]^3, flat faces

/// One instance: where the unit shape goes (model matrix) and its colour.
struct Instance {
  Mat4 model;
  Colour colour;
};
static_assert(sizeof(Instance) == 20 * sizeof(float), "Instance is read by the GPU as 20 floats");

/// A MeshData on the GPU with its own stream buffer of instances.
class GpuMesh {
 public:
  explicit GpuMesh(const MeshData& data);
  ~GpuMesh();
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;

  /// Uploads the instances and draws them with the bound program.
  void draw(const std::vector<Instance>& instances);

 private:
  GLuint vao_ = 0, vertex_buffer_ = 0, index_buffer_ = 0, instance_buffer_ = 0;
  GLsizei num_indices_ = 0;
  std::size_t instance_capacity_ = 0;
};

}  // namespace suitsim::viewer
