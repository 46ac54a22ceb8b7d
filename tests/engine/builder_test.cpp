// ModelBuilder: validation, generated bodies, the spring layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <set>
#include <vector>

#include "kernel_layout.h"
#include "run_helpers.h"
#include "suitsim/builder.h"

namespace suitsim {
namespace {

TEST(Builder, SpringLayoutKeepsEverySpringAndListsEachOnceAtBothEnds) {
  ModelBuilder b;
  // Two tiles: the cloth's rows across the first tile's edge make edge blocks.
  b.addCloth({.name = "c", .nu = 100, .nv = 90, .spacing = 0.1, .mass = 1.0, .stiffness = 10.0, .bend_stiffness = 1.0});
  b.addBlock({.name = "k", .origin = {5, 0, 0}, .nx = 4, .ny = 3, .nz = 2, .spacing = 0.1, .mass = 1.0, .stiffness = 10.0});
  // A spring added high-to-low: its ends keep the order they were given.
  const int reversed = b.addSpring({.a = 5, .b = 2, .stiffness = 1.0});
  const int added = b.numSprings();
  const Model m = b.build();
  ASSERT_EQ(m.num_springs, added);
  std::set<int> inputs(m.spring_input_index.begin(), m.spring_input_index.end());
  EXPECT_EQ(static_cast<int>(inputs.size()), added);
  for (int s = 0; s < m.num_springs; ++s) EXPECT_EQ(m.springIndexFromInput(m.spring_input_index[s]), s);
  const int r = m.springIndexFromInput(reversed);
  EXPECT_EQ(m.spring_a[r], 5);
  EXPECT_EQ(m.spring_b[r], 2);
  // Springs come by tile of their lower particle, which the kernel relies
  // on, and each tile's fused blocks are runs at both ends within the
  // tile, its edge blocks runs from the tile to later tiles.
  const int tile = m.kernel->spring_tile_particles;
  const int num_tiles = (m.num_particles + tile - 1) / tile;
  ASSERT_EQ(static_cast<int>(m.kernel->spring_tile_begin.size()), num_tiles + 1);
  ASSERT_EQ(static_cast<int>(m.kernel->spring_tile_fused_end.size()), num_tiles);
  ASSERT_EQ(static_cast<int>(m.kernel->spring_tile_edge_end.size()), num_tiles);
  ASSERT_EQ(m.kernel->spring_tile_begin.back(), added);
  std::vector<char> fused(added, 0);  // 1 in a fused block, 2 in an edge block
  int edge_springs = 0;
  for (int t = 0; t < num_tiles; ++t) {
    for (int s = m.kernel->spring_tile_begin[t]; s < m.kernel->spring_tile_begin[t + 1]; ++s) {
      EXPECT_EQ(std::min(m.spring_a[s], m.spring_b[s]) / tile, t) << "spring " << s;
    }
    // Runs of kSpringFusedBlock in [begin, end), their `b` ends in the tile
    // (kind 1, fused blocks) or in later tiles (kind 2, edge blocks).
    const auto runs = [&](int begin, int end, char kind) {
      ASSERT_EQ((end - begin) % detail::KernelLayout::kSpringFusedBlock, 0);
      ASSERT_LE(end, m.kernel->spring_tile_begin[t + 1]);
      for (int s = begin; s < end; ++s) {
        const int first = s - (s - begin) % detail::KernelLayout::kSpringFusedBlock;
        EXPECT_EQ(m.spring_a[s], m.spring_a[first] + (s - first));
        EXPECT_EQ(m.spring_b[s], m.spring_b[first] + (s - first));
        EXPECT_EQ(m.spring_a[s] / tile, t);
        EXPECT_EQ(m.spring_b[s] / tile > t, kind == 2);
        fused[s] = kind;
        edge_springs += kind == 2;
      }
    };
    runs(m.kernel->spring_tile_begin[t], m.kernel->spring_tile_fused_end[t], 1);
    runs(m.kernel->spring_tile_fused_end[t], m.kernel->spring_tile_edge_end[t], 2);
  }
  EXPECT_GT(edge_springs, 0);
  // The kernel's block records repeat the fused and edge blocks' ends and, where
  // the block's springs share them, their parameters, bit for bit.
  ASSERT_EQ(static_cast<int>(m.kernel->spring_tile_first_block.size()), num_tiles + 1);
  ASSERT_EQ(m.kernel->spring_tile_first_block.back(), static_cast<int>(m.kernel->spring_blocks.size()));
  const auto bits = [](double v) { return std::bit_cast<std::int64_t>(v); };
  int shared_blocks = 0;
  for (int t = 0; t < num_tiles; ++t) {
    int n = m.kernel->spring_tile_first_block[t];
    for (int s = m.kernel->spring_tile_begin[t]; s < m.kernel->spring_tile_edge_end[t]; s += detail::KernelLayout::kSpringFusedBlock, ++n) {
      ASSERT_LT(n, m.kernel->spring_tile_first_block[t + 1]);
      const SpringBlock& block = m.kernel->spring_blocks[n];
      shared_blocks += block.shared;
      for (int j = 0; j < detail::KernelLayout::kSpringFusedBlock; ++j) {
        EXPECT_EQ(block.a + j, m.spring_a[s + j]);
        EXPECT_EQ(block.a + block.offset + j, m.spring_b[s + j]);
        if (!block.shared) continue;
        EXPECT_EQ(bits(block.k), bits(m.spring_stiffness[s + j]));
        EXPECT_EQ(bits(block.c), bits(m.spring_damping[s + j]));
        EXPECT_EQ(bits(block.l0) + block.l0_ulps[j], bits(m.spring_rest_length[s + j]));
      }
    }
    EXPECT_EQ(n, m.kernel->spring_tile_first_block[t + 1]);
  }
  EXPECT_GT(shared_blocks, 0);
  // Every spring appears exactly once in the list of each of its ends, as
  // that end: first the fused ones, then the rest ascending (the order
  // forces are summed in).
  ASSERT_EQ(static_cast<int>(m.kernel->spring_incidence_begin.size()), m.num_particles + 1);
  ASSERT_EQ(static_cast<int>(m.kernel->spring_incidence_fused_end.size()), m.num_particles);
  ASSERT_EQ(m.kernel->spring_incidence_begin.back(), 2 * added);
  std::vector<int> seen(2 * added, 0);
  for (int i = 0; i < m.num_particles; ++i) {
    const int fused_end = m.kernel->spring_incidence_fused_end[i];
    ASSERT_GE(fused_end, m.kernel->spring_incidence_begin[i]);
    ASSERT_LE(fused_end, m.kernel->spring_incidence_begin[i + 1]);
    for (int e = m.kernel->spring_incidence_begin[i]; e < m.kernel->spring_incidence_begin[i + 1]; ++e) {
      const int code = m.kernel->spring_incidence[e];
      const int s = code / 2;
      EXPECT_EQ(code % 2 == 0 ? m.spring_a[s] : m.spring_b[s], i);
      const bool direct = fused[s] == 1 || (fused[s] == 2 && code % 2 == 0);
      EXPECT_EQ(direct, e < fused_end) << "particle " << i << ", spring " << s;
      if (e > fused_end) {
        EXPECT_LT(m.kernel->spring_incidence[e - 1], code);
      }
      ++seen[code];
    }
  }
  for (int count : seen) EXPECT_EQ(count, 1);
  // The second pass visits exactly the particles whose lists go on past
  // their fused part, by tile, ascending.
  std::vector<int> summed;
  for (int i = 0; i < m.num_particles; ++i) {
    if (m.kernel->spring_incidence_fused_end[i] < m.kernel->spring_incidence_begin[i + 1]) summed.push_back(i);
  }
  EXPECT_EQ(std::vector<int>(m.kernel->spring_summed_particles.begin(), m.kernel->spring_summed_particles.end()), summed);
  EXPECT_LT(summed.size(), static_cast<std::size_t>(m.num_particles));
  ASSERT_EQ(static_cast<int>(m.kernel->spring_tile_first_summed.size()), num_tiles + 1);
  EXPECT_EQ(m.kernel->spring_tile_first_summed.back(), static_cast<int>(summed.size()));
  for (int t = 0; t < num_tiles; ++t) {
    for (int k = m.kernel->spring_tile_first_summed[t]; k < m.kernel->spring_tile_first_summed[t + 1]; ++k) {
      EXPECT_EQ(m.kernel->spring_summed_particles[k] / tile, t) << "entry " << k;
    }
  }
}

TEST(Builder, ClothAndBlockSpringCounts) {
  ModelBuilder b;
  const int nu = 7, nv = 5;
  b.addCloth({.name = "c", .nu = nu, .nv = nv, .spacing = 0.1, .mass = 1.0, .stiffness = 10.0, .bend_stiffness = 1.0});
  const int structural = 2 * nu * nv - nu - nv;
  const int shear = 2 * (nu - 1) * (nv - 1);
  const int bending = nv * (nu - 2) + nu * (nv - 2);
  EXPECT_EQ(b.numSprings(), structural + shear + bending);
  ModelBuilder k;
  k.addBlock({.name = "k", .nx = 3, .ny = 3, .nz = 3, .spacing = 0.1, .mass = 2.7, .stiffness = 10.0});
  // Pairs of lattice points at most one step apart per axis: (27 * 27 - 27 - sum of non-neighbours) / 2;
  // counted directly: 3 axes x 18 edges, 6 faces-diagonal families... use the closed form
  // sum over offsets d of prod_axis (3 - |d_axis|), halved over +-d.
  int expected = 0;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz)
        if (dx || dy || dz) expected += (3 - std::abs(dx)) * (3 - std::abs(dy)) * (3 - std::abs(dz));
  EXPECT_EQ(k.numSprings(), expected / 2);
  const Model m = k.build();
  EXPECT_NEAR(m.totalMass(), 2.7, 1e-12);
}

TEST(Builder, RestLengthDefaultsToInitialDistance) {
  ModelBuilder b;
  b.addParticle({.name = "a", .position = {0, 0, 0}});
  b.addParticle({.name = "b", .position = {3, 4, 0}});
  b.addSpring({0, 1, 10.0, 0.0, -1.0});
  EXPECT_DOUBLE_EQ(b.build().spring_rest_length[0], 5.0);
}

TEST(Builder, RejectsNonPhysicalInput) {
  ModelBuilder b;
  b.addParticle({.name = "a"});
  EXPECT_THROW(b.addParticle({.name = "z", .mass = 0.0}), ModelError);
  EXPECT_THROW(b.addParticle({.name = "z", .mass = -1.0}), ModelError);
  EXPECT_THROW(b.addParticle({.name = ""}), ModelError);
  EXPECT_THROW(b.addSpring({0, 0, 10.0, 0.0, 1.0}), ModelError);  // particle to itself
  EXPECT_THROW(b.addSpring({0, 5, 10.0, 0.0, 1.0}), ModelError);  // out of range
  b.addParticle({.name = "b", .position = {1, 0, 0}});
  EXPECT_THROW(b.addSpring({0, 1, 0.0, 0.0, 1.0}), ModelError);   // stiffness 0
  EXPECT_THROW(b.addSpring({0, 1, 10.0, -1.0, 1.0}), ModelError);  // negative damping
  b.addParticle({.name = "a", .position = {2, 0, 0}});
  EXPECT_THROW(b.build(), ModelError);  // duplicate name
  EXPECT_THROW(b.setGround(testing::groundModel(100.0, 0.0, 0.3, 0.5)), ModelError);  // mu_kinetic > mu_static
}

TEST(Builder, FixedParticlesAreNotContactsAndHaveNoInverseMass) {
  ModelBuilder b;
  GroundModel g;
  g.enabled = true;
  g.stiffness = 100.0;
  b.setGround(g);
  b.addParticle({.name = "free"});
  b.addParticle({.name = "pinned", .fixed = true});
  b.addParticle({.name = "ghost", .contact = false});
  const Model m = b.build();
  ASSERT_EQ(m.numContacts(), 1);
  EXPECT_EQ(m.contact_particle[0][0], 0);
  EXPECT_EQ(m.contact_weight[0][0], 1.0);
  EXPECT_EQ(m.particle_inv_mass[1], 0.0);
  EXPECT_EQ(m.findParticle("ghost"), 2);
  EXPECT_EQ(m.findParticle("nobody"), -1);
}

}  // namespace
}  // namespace suitsim
