// The springs' storage order and blocks for the force kernel (spring_layout.h).
#include "spring_layout.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <tuple>

namespace suitsim {

namespace {

// Spring storage order, chosen for the force kernel (springs.cpp): by tile
// of the lower particle index (kSpringTile particles: a tile's particles
// and its springs' forces stay in cache while the kernel evaluates the
// springs and then sums them into the particles), then by the
// index offset b - a, then by a. Springs of one offset with consecutive a
// then sit next to each other, and wherever a network has such runs (any
// lattice does, whatever its shape) the kernel loads a block's particles
// as one vector. Runs of KernelLayout::kSpringFusedBlock whose ends all lie in the
// tile are taken out as fused blocks, in order, to the front of the tile:
// the kernel adds their forces straight into the particles. Runs whose `a`
// ends lie in the tile and whose `b` ends all lie in later tiles (a
// lattice's rows across the tile's edge) follow as edge blocks: the kernel
// adds their forces straight into the `a` ends and leaves the `b` ends'
// to the second pass. Each particle sums its fused blocks' springs first,
// in the kernel's order, then its edge blocks' `a` ends, then the rest in
// ascending stored order.
constexpr int kSpringTile = 8192;

// The fused and edge blocks as the kernel reads them (KernelLayout::spring_blocks): the
// ends once a block, and k, c and l0 once where the block's springs share
// k and c bit for bit and their rest lengths lie within 32767 doubles of
// the first's (the kernel rebuilds each exactly from its bit pattern).
void fillSpringBlocks(Model& m) {
  detail::KernelLayout& layout = *m.kernel;
  constexpr int kBlock = detail::KernelLayout::kSpringFusedBlock;
  static_assert(kSpringTile <= 32767, "a block's offset b - a is stored in 16 bits");
  const auto bits = [](double v) { return std::bit_cast<std::int64_t>(v); };
  const int num_tiles = static_cast<int>(layout.spring_tile_edge_end.size());
  layout.spring_blocks.clear();
  layout.spring_tile_first_block.assign(num_tiles + 1, 0);
  for (int t = 0; t < num_tiles; ++t) {
    layout.spring_tile_first_block[t] = static_cast<std::int32_t>(layout.spring_blocks.size());
    for (int s = layout.spring_tile_begin[t]; s < layout.spring_tile_edge_end[t]; s += kBlock) {
      SpringBlock block;
      block.a = m.spring_a[s];
      block.offset = static_cast<std::int16_t>(m.spring_b[s] - m.spring_a[s]);
      bool shared = true;
      for (int j = 0; j < kBlock && shared; ++j) {
        const std::int64_t ulps = bits(m.spring_rest_length[s + j]) - bits(m.spring_rest_length[s]);
        shared = bits(m.spring_stiffness[s + j]) == bits(m.spring_stiffness[s]) &&
                 bits(m.spring_damping[s + j]) == bits(m.spring_damping[s]) && ulps >= -32767 && ulps <= 32767;
        block.l0_ulps[j] = static_cast<std::int16_t>(shared ? ulps : 0);
      }
      if (shared) {
        block.shared = 1;
        block.k = m.spring_stiffness[s];
        block.c = m.spring_damping[s];
        block.l0 = m.spring_rest_length[s];
      } else {
        block.l0_ulps.fill(0);
      }
      layout.spring_blocks.push_back(block);
    }
  }
  layout.spring_tile_first_block[num_tiles] = static_cast<std::int32_t>(layout.spring_blocks.size());
}

}  // namespace

void layoutSprings(const std::vector<SpringSpec>& springs, int num_particles, Model& m) {
  detail::KernelLayout& layout = *m.kernel;
  constexpr int kBlock = detail::KernelLayout::kSpringFusedBlock;
  const int ns = static_cast<int>(springs.size());
  std::vector<std::int32_t> sorted(ns);
  std::iota(sorted.begin(), sorted.end(), 0);
  auto key = [&springs](int s) {
    const SpringSpec& spec = springs[s];
    return std::make_tuple(std::min(spec.a, spec.b) / kSpringTile, spec.b - spec.a, spec.a, s);
  };
  std::sort(sorted.begin(), sorted.end(), [&key](int l, int r) { return key(l) < key(r); });
  const int num_tiles = (num_particles + kSpringTile - 1) / kSpringTile;
  layout.spring_tile_particles = kSpringTile;
  layout.spring_tile_begin.assign(num_tiles + 1, 0);
  for (const SpringSpec& spec : springs) ++layout.spring_tile_begin[std::min(spec.a, spec.b) / kSpringTile + 1];
  for (int t = 0; t < num_tiles; ++t) layout.spring_tile_begin[t + 1] += layout.spring_tile_begin[t];
  // Each tile: its fused blocks, taken greedily in sorted order, then its
  // edge blocks (runs whose `b` ends lie in later tiles), then the rest.
  std::vector<std::int32_t> order;
  order.reserve(ns);
  std::vector<std::int32_t> edge, rest;
  layout.spring_tile_fused_end.assign(num_tiles, 0);
  layout.spring_tile_edge_end.assign(num_tiles, 0);
  for (int t = 0; t < num_tiles; ++t) {
    const int lo = t * kSpringTile, hi = std::min(num_particles, lo + kSpringTile);
    const int end = layout.spring_tile_begin[t + 1];
    // A run of kBlock from s whose `a` ends lie in the tile and whose `b`
    // ends lie in it too (to_later false) or all in later tiles (true).
    auto runAt = [&](int s, bool to_later) {
      if (s + kBlock > end) return false;
      const SpringSpec& first = springs[sorted[s]];
      for (int j = 0; j < kBlock; ++j) {
        const SpringSpec& spec = springs[sorted[s + j]];
        if (spec.a != first.a + j || spec.b != first.b + j) return false;
        if (spec.a < lo || spec.a >= hi || spec.b < (to_later ? hi : lo) || (!to_later && spec.b >= hi)) return false;
      }
      return true;
    };
    edge.clear();
    rest.clear();
    for (int s = layout.spring_tile_begin[t]; s < end;) {
      if (runAt(s, false)) {
        order.insert(order.end(), sorted.begin() + s, sorted.begin() + s + kBlock);
        s += kBlock;
      } else if (runAt(s, true)) {
        edge.insert(edge.end(), sorted.begin() + s, sorted.begin() + s + kBlock);
        s += kBlock;
      } else {
        rest.push_back(sorted[s++]);
      }
    }
    layout.spring_tile_fused_end[t] = static_cast<std::int32_t>(order.size());
    order.insert(order.end(), edge.begin(), edge.end());
    layout.spring_tile_edge_end[t] = static_cast<std::int32_t>(order.size());
    order.insert(order.end(), rest.begin(), rest.end());
  }
  m.num_springs = ns;
  m.spring_a.resize(ns);
  m.spring_b.resize(ns);
  m.spring_stiffness.resize(ns);
  m.spring_damping.resize(ns);
  m.spring_rest_length.resize(ns);
  for (int d = 0; d < ns; ++d) {
    const SpringSpec& spec = springs[order[d]];
    m.spring_a[d] = spec.a;
    m.spring_b[d] = spec.b;
    m.spring_stiffness[d] = spec.stiffness;
    m.spring_damping[d] = spec.damping;
    m.spring_rest_length[d] = spec.rest_length;
  }
  m.spring_input_index = std::move(order);
  fillSpringBlocks(m);
  // Incidence lists by counting sort: the fused blocks first, in stored
  // order, a block's `a` ends before its `b` ends (the kernel adds them so),
  // then the edge blocks' `a` ends (added next, in the same tile), then
  // the other springs and the edge blocks' `b` ends in stored order, which
  // leaves that part ascending.
  layout.spring_incidence_begin.assign(num_particles + 1, 0);
  for (int s = 0; s < ns; ++s) {
    ++layout.spring_incidence_begin[m.spring_a[s] + 1];
    ++layout.spring_incidence_begin[m.spring_b[s] + 1];
  }
  for (int i = 0; i < num_particles; ++i) layout.spring_incidence_begin[i + 1] += layout.spring_incidence_begin[i];
  std::vector<std::int32_t> next(layout.spring_incidence_begin.begin(), layout.spring_incidence_begin.end() - 1);
  layout.spring_incidence.resize(2 * static_cast<std::size_t>(ns));
  for (int t = 0; t < num_tiles; ++t) {
    for (int s = layout.spring_tile_begin[t]; s < layout.spring_tile_fused_end[t]; s += kBlock) {
      for (int j = 0; j < kBlock; ++j) layout.spring_incidence[next[m.spring_a[s + j]]++] = 2 * (s + j);
      for (int j = 0; j < kBlock; ++j) layout.spring_incidence[next[m.spring_b[s + j]]++] = 2 * (s + j) + 1;
    }
    for (int s = layout.spring_tile_fused_end[t]; s < layout.spring_tile_edge_end[t]; ++s) {
      layout.spring_incidence[next[m.spring_a[s]]++] = 2 * s;
    }
  }
  layout.spring_incidence_fused_end = next;
  for (int t = 0; t < num_tiles; ++t) {
    for (int s = layout.spring_tile_fused_end[t]; s < layout.spring_tile_begin[t + 1]; ++s) {
      if (s >= layout.spring_tile_edge_end[t]) layout.spring_incidence[next[m.spring_a[s]]++] = 2 * s;
      layout.spring_incidence[next[m.spring_b[s]]++] = 2 * s + 1;
    }
  }
  // The second pass's particles by tile: a lattice's are a few rows at
  // each tile's start and its edges, so the pass skips the rest.
  layout.spring_summed_particles.clear();
  layout.spring_tile_first_summed.assign(num_tiles + 1, 0);
  for (int i = 0; i < num_particles; ++i) {
    if (layout.spring_incidence_fused_end[i] == layout.spring_incidence_begin[i + 1]) continue;
    layout.spring_summed_particles.push_back(i);
    ++layout.spring_tile_first_summed[i / kSpringTile + 1];
  }
  for (int t = 0; t < num_tiles; ++t) layout.spring_tile_first_summed[t + 1] += layout.spring_tile_first_summed[t];
}

}  // namespace suitsim
