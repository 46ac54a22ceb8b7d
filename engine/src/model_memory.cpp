// The spring counts of lattices and the memory a model needs (builder.h).
#include "suitsim/builder.h"

#include "kernel_layout.h"

#include <algorithm>
#include <cmath>

namespace suitsim {

double clothSpringCount(const ClothSpec& spec) {
  const double nu = spec.nu, nv = spec.nv;
  if (nu < 2.0 || nv < 2.0) return 0.0;
  // addCloth: structural and shear springs always, bending ones (two apart) when their stiffness is > 0.
  const double structural = (nu - 1.0) * nv + nu * (nv - 1.0);
  const double shear = 2.0 * (nu - 1.0) * (nv - 1.0);
  const double bending = spec.bend_stiffness > 0.0 ? (nu - 2.0) * nv + nu * (nv - 2.0) : 0.0;
  return structural + shear + bending;
}

double blockSpringCount(const BlockSpec& spec) {
  // addBlock: one spring for each of the 13 forward neighbour offsets whose neighbour lies inside the block.
  double count = 0.0;
  for (int dk = -1; dk <= 1; ++dk) {
    for (int dj = -1; dj <= 1; ++dj) {
      for (int di = -1; di <= 1; ++di) {
        if ((dk * 3 + dj) * 3 + di <= 0) continue;
        count += std::max(0.0, static_cast<double>(spec.nx) - std::abs(di)) *
                 std::max(0.0, static_cast<double>(spec.ny) - std::abs(dj)) *
                 std::max(0.0, static_cast<double>(spec.nz) - std::abs(dk));
      }
    }
  }
  return count;
}

namespace {

// A vector filled by push_back from empty ends at the next power of two
// (libstdc++ doubles its capacity), and all of that is allocated.
double grownCapacity(double n) { return n <= 1.0 ? n : std::exp2(std::ceil(std::log2(n))); }

// What one small allocation takes from glibc's malloc: a size word, rounded
// up to 16 bytes, 32 at least. Per-particle map nodes are millions of these.
double heapChunk(double bytes) { return std::max(32.0, std::ceil((bytes + 8.0) / 16.0) * 16.0); }

// A name longer than std::string's in-place buffer (15 characters in
// libstdc++) takes a heap block besides the string itself.
double nameHeap(double length) { return length <= 15.0 ? 0.0 : heapChunk(length + 1.0); }

}  // namespace

double modelPeakBytes(const ModelSize& size) {
  const double p = size.particles, s = size.springs, c = size.contacts;
  const double d = sizeof(double), i32 = sizeof(std::int32_t), vec3 = 3.0 * sizeof(double);
  const double name = sizeof(std::string) + nameHeap(size.name_length);

  // The Model's per-particle arrays (model.h): mass, inverse mass, fixed
  // flag, name, initial position and velocity, constant force, the
  // incidence list's begin and fused end.
  const double model_particle = 2.0 * d + sizeof(std::uint8_t) + name + 2.0 * vec3 + 3.0 * d + 2.0 * i32;
  // Per spring: its ends, k, c, l0, its input index, two incidence entries,
  // and its share of a fused or edge block (push_back: grown capacity).
  const double model_spring = 2.0 * i32 + 3.0 * d + i32 + 2.0 * i32;
  const double model_blocks = grownCapacity(s / detail::KernelLayout::kSpringFusedBlock) * sizeof(SpringBlock);
  // Contacts are pushed back one a particle (contact_particle, contact_weight).
  const double model_contacts =
      grownCapacity(c) * (sizeof(std::array<std::int32_t, 4>) + sizeof(std::array<double, 4>));
  const double model = p * model_particle + s * model_spring + model_blocks + model_contacts;

  // Building (ModelBuilder::build and layoutSprings): the builder's own
  // lists (push_back), build()'s unordered_map of names (a node holding the
  // next pointer, the name, the index and the cached hash, and a bucket
  // array that doubles too), and layoutSprings' sort order and its
  // per-particle cursor, all alive with the Model being filled.
  const double builder_lists = grownCapacity(p) * sizeof(ParticleSpec) + p * nameHeap(size.name_length) +
                               grownCapacity(s) * sizeof(SpringSpec);
  using NameNode = std::pair<const std::string, int>;
  const double name_check = p * (heapChunk(sizeof(void*) + sizeof(NameNode) + sizeof(std::size_t)) +
                                 nameHeap(size.name_length)) +
                            grownCapacity(p) * sizeof(void*);
  const double layout_temporaries = s * i32 + p * i32;
  const double building = builder_lists + name_check + model + layout_temporaries;

  // Running: a State (position, velocity, applied force, and the
  // acceleration cache's copies of them and the acceleration; the contacts'
  // anchors and flags, twice), a Workspace (the force, the integrator's
  // stage and sum arrays, four doubles of force terms a spring).
  const double state = p * (3.0 * vec3 + 4.0 * vec3) + c * 2.0 * (2.0 * d + 2.0 * sizeof(std::uint8_t));
  const double workspace = p * (vec3 + 5.0 * vec3) + s * 4.0 * d;
  const double running = model + state + workspace;
  return std::max(building, running);
}

}  // namespace suitsim
