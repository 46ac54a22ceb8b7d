// Spring forces, T(6)-(10), in two passes.
//
// Design note. Pass 1 evaluates every spring on its own and writes its
// force on the `a` end, T u, to a slot of its own: no scatter, so any
// thread or SIMD lane may take any spring. Pass 2 gives each particle its
// springs' forces, +T u at an `a` end and -T u at a `b` end, in the order of
// its incidence list (Model::spring_incidence). One writer per particle and
// an order fixed by the Model, so the sums are the same for any thread count.
//
// The builder stores springs by tile of 1024 particles (of the spring's
// lower index), then index offset b - a, then a (layoutSprings). Two things
// follow. The passes go tile by tile: a tile's springs, then its particles,
// whose springs have their lower end in this tile or an earlier one, so pass
// 2 reads forces pass 1 has just written, from cache. And a lattice's
// springs come in runs whose four ends are consecutive particles, so a
// block of four loads each coordinate with one vector load; blocks that are
// no run (any irregular network) gather with scalar loads. Threads take
// contiguous shares of the tiles; a particle with a spring from an earlier
// share is summed after a barrier, the only one besides the closing one.
//
// Measured on the development machine (AMD Zen 5, one core, the other core
// busy, docs/benchmarks.md), force evaluations alone: 1.4-1.8x the springs
// per second of the scheme it replaced on networks in cache, 1.2-1.4x at
// 1e6 springs. Of that, the vector loads of runs give about 1.2x in cache
// (1.07x at 1e6), and going tile by tile 1.15-1.2x at 1e6 (nothing in
// cache); storing springs by particle instead (most local, no runs) was
// 20 % slower. The replaced scheme sorted springs by an edge colouring (no
// two springs of a colour share a particle) and scattered each colour's
// forces straight into the particles, a barrier per colour: per spring 12
// scalar loads and 6 read-modify-writes at unrelated indices, about 60
// instructions against some 10 of arithmetic, and the colours cut the
// lattice's runs apart. Tried with it and dropped: vgatherdpd (slower than
// scalar loads combined pairwise), AVX-512 with 8 lanes (slower: more index
// registers than there are, and no less traffic), gathering the forces and
// adding in vectors (no faster than scalar adds). Tried with this one and
// dropped: writing -T u beside T u so that pass 2 needs no sign (no faster
// in cache, slower at 1e6 springs: twice the writes). The integrators' kick
// and drift in one pass (integrators.cpp) measured within the noise. What
// limits the kernel now is instructions, not arithmetic or memory: pass 2
// costs about as much as pass 1.
//
// Bit-identity. The SIMD body does exactly the scalar reference's IEEE
// operations in the same order; sqrt and division are correctly rounded in
// both, and x + (-t) is x - t exactly. The build's -ffp-contract=off keeps
// the compiler from fusing a multiply-add in one path and not in the other.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <omp.h>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "forces.h"

namespace suitsim::detail {

namespace {

// What the first pass reads and writes.
struct SpringArrays {
  const std::int32_t* a;
  const std::int32_t* b;
  const double* k;
  const double* c;
  const double* l0;
  double* out;  // T u of spring s at out[4 s .. 4 s + 2], 0 at out[4 s + 3]
  int last;     // index of the last spring (prefetches stay inside the arrays)
};

// One spring: the reference that the SIMD path must reproduce bit for bit.
inline void springForce(const SpringArrays& sp, const PhasePoint& x, int s) {
  const int a = sp.a[s];
  const int b = sp.b[s];
  const double dx = x.px[b] - x.px[a];
  const double dy = x.py[b] - x.py[a];
  const double dz = x.pz[b] - x.pz[a];
  const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
  // T(7)'s singular point (coincident particles): no direction, no force.
  const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
  const double ux = dx * inv_length;
  const double uy = dy * inv_length;
  const double uz = dz * inv_length;
  const double stretch_rate =
      (x.vx[b] - x.vx[a]) * ux + (x.vy[b] - x.vy[a]) * uy + (x.vz[b] - x.vz[a]) * uz;
  const double tension = sp.k[s] * (length - sp.l0[s]) + sp.c[s] * stretch_rate;
  double* t = sp.out + 4 * static_cast<std::size_t>(s);
  t[0] = tension * ux;
  t[1] = tension * uy;
  t[2] = tension * uz;
  t[3] = 0.0;
}

#ifdef __AVX2__

constexpr int kLanes = 4;
// Springs ahead to prefetch the per-spring arrays: helps once they come from
// DRAM, costs nothing measurable in cache.
constexpr int kPrefetchAhead = 128;

// {base[index[0]], ..., base[index[3]]}: four scalar loads combined in pairs,
// cheaper on the target than the gather instruction.
inline __m256d gather4(const double* base, const std::int32_t* index) {
  const __m128d lo = _mm_loadh_pd(_mm_load_sd(base + index[0]), base + index[1]);
  const __m128d hi = _mm_loadh_pd(_mm_load_sd(base + index[2]), base + index[3]);
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
}

// Four particles' values: one vector load when their indices are consecutive.
template <bool kRun>
inline __m256d load4(const double* base, const std::int32_t* index) {
  return kRun ? _mm256_loadu_pd(base + index[0]) : gather4(base, index);
}

// True when index[0..3] are i, i + 1, i + 2, i + 3.
inline bool consecutive(const std::int32_t* index) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(index));
  const __m128i run = _mm_add_epi32(_mm_set1_epi32(index[0]), _mm_setr_epi32(0, 1, 2, 3));
  return _mm_movemask_epi8(_mm_cmpeq_epi32(v, run)) == 0xFFFF;
}

inline void prefetch(const void* address) { _mm_prefetch(static_cast<const char*>(address), _MM_HINT_T0); }

// Springs s .. s+3; the same operations as springForce, lane-wise.
template <bool kRunA, bool kRunB>
inline void springForces4(const SpringArrays& sp, const PhasePoint& x, int s) {
  const std::int32_t* ia = sp.a + s;
  const std::int32_t* ib = sp.b + s;
  const __m256d dx = _mm256_sub_pd(load4<kRunB>(x.px, ib), load4<kRunA>(x.px, ia));
  const __m256d dy = _mm256_sub_pd(load4<kRunB>(x.py, ib), load4<kRunA>(x.py, ia));
  const __m256d dz = _mm256_sub_pd(load4<kRunB>(x.pz, ib), load4<kRunA>(x.pz, ia));
  const __m256d length = _mm256_sqrt_pd(
      _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz)));
  // length > 0 ? 1 / length : 0, as in the scalar path (a NaN length gives 0 too).
  const __m256d positive = _mm256_cmp_pd(length, _mm256_setzero_pd(), _CMP_GT_OQ);
  const __m256d inv_length = _mm256_and_pd(positive, _mm256_div_pd(_mm256_set1_pd(1.0), length));
  const __m256d ux = _mm256_mul_pd(dx, inv_length);
  const __m256d uy = _mm256_mul_pd(dy, inv_length);
  const __m256d uz = _mm256_mul_pd(dz, inv_length);
  const __m256d dvx = _mm256_sub_pd(load4<kRunB>(x.vx, ib), load4<kRunA>(x.vx, ia));
  const __m256d dvy = _mm256_sub_pd(load4<kRunB>(x.vy, ib), load4<kRunA>(x.vy, ia));
  const __m256d dvz = _mm256_sub_pd(load4<kRunB>(x.vz, ib), load4<kRunA>(x.vz, ia));
  const __m256d stretch_rate =
      _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dvx, ux), _mm256_mul_pd(dvy, uy)), _mm256_mul_pd(dvz, uz));
  const __m256d tension =
      _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(sp.k + s), _mm256_sub_pd(length, _mm256_loadu_pd(sp.l0 + s))),
                    _mm256_mul_pd(_mm256_loadu_pd(sp.c + s), stretch_rate));
  const __m256d tx = _mm256_mul_pd(tension, ux);
  const __m256d ty = _mm256_mul_pd(tension, uy);
  const __m256d tz = _mm256_mul_pd(tension, uz);
  // Lanes are springs; the output is one (x, y, z, 0) vector per spring, so
  // the second pass adds a spring's force to a particle in one instruction.
  const __m256d xy_even = _mm256_unpacklo_pd(tx, ty);  // x0 y0 x2 y2
  const __m256d xy_odd = _mm256_unpackhi_pd(tx, ty);   // x1 y1 x3 y3
  const __m256d z_even = _mm256_unpacklo_pd(tz, _mm256_setzero_pd());
  const __m256d z_odd = _mm256_unpackhi_pd(tz, _mm256_setzero_pd());
  double* out = sp.out + 4 * static_cast<std::size_t>(s);
  _mm256_storeu_pd(out, _mm256_permute2f128_pd(xy_even, z_even, 0x20));
  _mm256_storeu_pd(out + 4, _mm256_permute2f128_pd(xy_odd, z_odd, 0x20));
  _mm256_storeu_pd(out + 8, _mm256_permute2f128_pd(xy_even, z_even, 0x31));
  _mm256_storeu_pd(out + 12, _mm256_permute2f128_pd(xy_odd, z_odd, 0x31));
}

inline void springForceBlock(const SpringArrays& sp, const PhasePoint& x, int s, bool prefetch_ahead) {
  if (prefetch_ahead) {
    // One line of each double array covers 8 springs, so every other block.
    const int ahead = std::min(s + kPrefetchAhead, sp.last);
    prefetch(sp.k + ahead);
    prefetch(sp.c + ahead);
    prefetch(sp.l0 + ahead);
    prefetch(sp.a + ahead);
    prefetch(sp.b + ahead);
  }
  const bool run_a = consecutive(sp.a + s);
  const bool run_b = consecutive(sp.b + s);
  if (run_a && run_b) {
    springForces4<true, true>(sp, x, s);
  } else if (run_a) {
    springForces4<true, false>(sp, x, s);
  } else if (run_b) {
    springForces4<false, true>(sp, x, s);
  } else {
    springForces4<false, false>(sp, x, s);
  }
}

// Particle i's force plus its springs', in its incidence order: one vector
// add per spring, lanes x, y, z, the `b` end's term negated by its sign bit
// (x + (-t) is x - t exactly, as in the scalar path).
inline void sumSpringForces(const Model& model, const double* spring_force, Vec3Array& force, int i) {
  alignas(32) static const double kSign[2][4] = {{0.0, 0.0, 0.0, 0.0}, {-0.0, -0.0, -0.0, -0.0}};
  __m256d f = _mm256_setr_pd(force.x[i], force.y[i], force.z[i], 0.0);
  const std::int32_t* incidence = model.spring_incidence.data();
  for (int e = model.spring_incidence_begin[i]; e < model.spring_incidence_begin[i + 1]; ++e) {
    const int code = incidence[e];
    const __m256d t = _mm256_loadu_pd(spring_force + 4 * static_cast<std::size_t>(code >> 1));
    f = _mm256_add_pd(f, _mm256_xor_pd(t, _mm256_load_pd(kSign[code & 1])));
  }
  alignas(32) double out[4];
  _mm256_store_pd(out, f);
  force.x[i] = out[0];
  force.y[i] = out[1];
  force.z[i] = out[2];
}

#else

inline void sumSpringForces(const Model& model, const double* spring_force, Vec3Array& force, int i) {
  double fx = force.x[i], fy = force.y[i], fz = force.z[i];
  for (int e = model.spring_incidence_begin[i]; e < model.spring_incidence_begin[i + 1]; ++e) {
    const int code = model.spring_incidence[e];
    const double* t = spring_force + 4 * static_cast<std::size_t>(code >> 1);
    if (code & 1) {
      fx -= t[0];
      fy -= t[1];
      fz -= t[2];
    } else {
      fx += t[0];
      fy += t[1];
      fz += t[2];
    }
  }
  force.x[i] = fx;
  force.y[i] = fy;
  force.z[i] = fz;
}

#endif  // __AVX2__

// Pass 1 for the stored springs [begin, end), on the calling thread.
inline void springForces(const SpringArrays& sp, const PhasePoint& x, int begin, int end) {
#ifdef __AVX2__
  // Blocks of four from `begin`; the last, partial block goes through the
  // scalar path, which rounds identically.
  int s = begin;
  for (int block = 0; s + kLanes <= end; ++block, s += kLanes) springForceBlock(sp, x, s, (block & 1) == 0);
  for (; s < end; ++s) springForce(sp, x, s);
#else
#pragma omp simd
  for (int s = begin; s < end; ++s) springForce(sp, x, s);
#endif
}

// True when every spring of particle i is stored at `first_spring` or later
// (its incidence list is ascending, so the first entry decides).
inline bool springsFrom(const Model& model, int i, int first_spring) {
  const int e = model.spring_incidence_begin[i];
  return e == model.spring_incidence_begin[i + 1] || (model.spring_incidence[e] >> 1) >= first_spring;
}

}  // namespace

void addSpringForces(const Model& model, const PhasePoint& x, double* spring_force, Vec3Array& force) {
  const SpringArrays sp{model.spring_a.data(),       model.spring_b.data(), model.spring_stiffness.data(),
                        model.spring_damping.data(), model.spring_rest_length.data(), spring_force,
                        model.num_springs - 1};
  // Each thread takes a contiguous share of the tiles and goes through them
  // in order: a tile's springs (pass 1), then its particles (pass 2), whose
  // springs all have their lower end in this tile or an earlier one, so the
  // forces pass 2 reads were just written and are still in cache. A
  // particle with a spring from an earlier thread's share waits for the
  // barrier. The shares depend on the thread count; what a particle sums,
  // and in which order, does not.
  const int np = model.num_particles;
  const int tile = model.spring_tile_particles;
  const int num_tiles = static_cast<int>(model.spring_tile_begin.size()) - 1;
  if (num_tiles < 0) return;  // a Model not made by the builder has no layout (nor springs in it)
  const int threads = omp_get_num_threads();
  const int me = omp_get_thread_num();
  const int first_tile = static_cast<int>(static_cast<long>(num_tiles) * me / threads);
  const int end_tile = static_cast<int>(static_cast<long>(num_tiles) * (me + 1) / threads);
  const int first_spring = model.spring_tile_begin[first_tile];
  for (int t = first_tile; t < end_tile; ++t) {
    springForces(sp, x, model.spring_tile_begin[t], model.spring_tile_begin[t + 1]);
    const int last = std::min(np, (t + 1) * tile);
    for (int i = t * tile; i < last; ++i) {
      if (springsFrom(model, i, first_spring)) sumSpringForces(model, spring_force, force, i);
    }
  }
#pragma omp barrier
  if (me > 0) {
    const int last = std::min(np, end_tile * tile);
    for (int i = first_tile * tile; i < last; ++i) {
      if (!springsFrom(model, i, first_spring)) sumSpringForces(model, spring_force, force, i);
    }
  }
  // The forces are complete before anything reads them.
#pragma omp barrier
}

double springPotentialEnergy(const Model& model, const State& state) {
  double energy = 0.0;
  for (int s = 0; s < model.num_springs; ++s) {
    const Vec3 pa = state.position.get(model.spring_a[s]);
    const Vec3 pb = state.position.get(model.spring_b[s]);
    const double dx = pb[0] - pa[0], dy = pb[1] - pa[1], dz = pb[2] - pa[2];
    const double stretch = std::sqrt(dx * dx + dy * dy + dz * dz) - model.spring_rest_length[s];
    energy += 0.5 * model.spring_stiffness[s] * stretch * stretch;
  }
  return energy;
}

}  // namespace suitsim::detail
