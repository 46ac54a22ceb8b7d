// How the kernels lay out a Model's springs, contacts and hinges: the spring
// kernel's tiles, blocks and incidence lists (spring_layout.cpp fills them,
// the kernel in springs_kernel.h reads them), whether the contact pass may
// run on several threads, and the hinge solver's elimination order (the
// builder's orderHinges; hinge_tree_solver.h). The builder makes
// it from the physics a caller set and only the engine reads it, so it is
// no part of model.h: the Model holds it behind Model::kernel, as MuJoCo
// keeps its solver's internals out of mjModel's public fields and Box2D
// behind ids. Every array repeats, or orders, what model.h's arrays say;
// none adds physics.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "suitsim/model.h"

namespace suitsim {

/// A fused or edge block of springs (KernelLayout::kSpringFusedBlock of them,
/// see spring_tile_fused_end and spring_tile_edge_end) as the force kernel
/// reads it: its ends once, and its parameters once where its springs share
/// them, in 48 bytes where the per-spring arrays take 256. The per-spring
/// arrays stay the reference; these repeat them exactly (spring_layout.cpp's
/// fillSpringBlocks).
struct SpringBlock {
  std::int32_t a = 0;       ///< `a` end of the block's first spring; spring j's is a + j
  std::int16_t offset = 0;  ///< b - a, the same for the block's springs (|b - a| < spring_tile_particles)
  /// 1: the springs share k and c bit for bit, and spring j's rest length is
  /// the double whose bit pattern is l0's plus l0_ulps[j]; 0: k, c, l0 and
  /// l0_ulps are 0, and the kernel reads the per-spring arrays.
  std::int16_t shared = 0;
  double k = 0.0;   ///< the springs' stiffness (N/m), when shared
  double c = 0.0;   ///< the springs' damping (N s/m), when shared
  double l0 = 0.0;  ///< the first spring's rest length (m), when shared
  std::array<std::int16_t, 8> l0_ulps{};  ///< spring j's rest length, in doubles from l0
};

namespace detail {

struct KernelLayout {
  // ---- springs (Model::spring_a ... in the stored order) ---------------------
  // A particle sums its spring forces in the order of its incidence list,
  // which is fixed here and so the same for any thread count.

  /// Springs in a fused block: kSpringFusedBlock of them, whose `a` ends are
  /// consecutive particles, and so are their `b` ends, all in the tile.
  static constexpr int kSpringFusedBlock = 8;
  /// Particles are taken in tiles of this many (the last may be shorter);
  /// springs are stored by the tile of their lower particle index.
  int spring_tile_particles = 1;
  /// First stored spring whose lower particle lies in each tile, (num_tiles + 1).
  std::vector<std::int32_t> spring_tile_begin;
  /// A tile's stored springs [spring_tile_begin[t], spring_tile_fused_end[t])
  /// are fused blocks, the rest to spring_tile_begin[t + 1] are not, (num_tiles).
  std::vector<std::int32_t> spring_tile_fused_end;
  /// [spring_tile_fused_end[t], spring_tile_edge_end[t]) are the tile's edge
  /// blocks: kSpringFusedBlock springs whose `a` ends are consecutive
  /// particles of the tile and whose `b` ends consecutive particles of later
  /// tiles (a lattice's rows across the tile's edge); the springs from there
  /// to spring_tile_begin[t + 1] are in no block, (num_tiles).
  std::vector<std::int32_t> spring_tile_edge_end;
  /// The fused and edge blocks of every tile, in stored order, (one per
  /// kSpringFusedBlock springs of [spring_tile_begin[t], spring_tile_edge_end[t])): what the
  /// kernel reads of them besides the particles. A cloth's blocks share
  /// their parameters; a network of varied springs has some that do not.
  std::vector<SpringBlock> spring_blocks;
  /// Index in spring_blocks of each tile's first block, (num_tiles + 1).
  std::vector<std::int32_t> spring_tile_first_block;
  /// Each particle's incident springs, in the order its force sums them:
  /// spring_incidence[spring_incidence_begin[i] .. spring_incidence_begin[i + 1]),
  /// (num_particles + 1). First the springs of fused blocks, block by block
  /// in stored order and within a block the `a` end before the `b` end,
  /// then the edge blocks' springs whose `a` end it is, in stored order, up
  /// to spring_incidence_fused_end[i]; then the rest (the edge blocks' `b`
  /// ends among them), ascending.
  std::vector<std::int32_t> spring_incidence_begin;
  /// End of each particle's fused springs in spring_incidence, (num_particles).
  std::vector<std::int32_t> spring_incidence_fused_end;
  /// 2 s for a spring s that the particle is the `a` end of (it takes +T),
  /// 2 s + 1 for the `b` end (it takes -T), (2 num_springs).
  std::vector<std::int32_t> spring_incidence;
  /// The particles whose lists go on past spring_incidence_fused_end (the
  /// kernel's second pass sums those terms), ascending.
  std::vector<std::int32_t> spring_summed_particles;
  /// Index in spring_summed_particles of each tile's first, (num_tiles + 1).
  std::vector<std::int32_t> spring_tile_first_summed;

  // ---- contact -----------------------------------------------------------------
  /// Some contact points share particles (a body's points are affine
  /// combinations of its four): then the contact pass adds their forces on
  /// one thread, in contact order, so no two threads write one particle.
  bool contacts_share_particles = false;

  // ---- hinges ------------------------------------------------------------------
  /// Elimination order of the hinge constraint system T(13)-(19) (children
  /// before parents), and for each hinge the hinges eliminated after it that
  /// share its parent body: the block structure the solver works in.
  std::vector<std::int32_t> hinge_order;                  ///< (num_hinges)
  std::vector<std::vector<std::int32_t>> hinge_coupled;   ///< (num_hinges) lists
};

}  // namespace detail
}  // namespace suitsim
