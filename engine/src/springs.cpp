// Spring forces, T(6)-(10), scattered colour by colour.
//
// Design note. The Model stores springs sorted by colour, and no two springs
// of one colour share a particle: within a colour every spring can be
// evaluated independently and its two forces added without conflicts, by any
// thread or SIMD lane. The barrier at the end of each colour's `omp for`
// orders the colours, so every particle receives its spring forces in colour
// order whatever the thread count.
//
// With AVX2 the kernel takes four springs of a colour at a time. What limits
// it is not arithmetic but moving data: per spring, 12 loads from particle
// arrays at unrelated indices and 6 read-modify-writes of forces, about 60
// instructions against some 10 of arithmetic. Measured on the development
// machine (AMD Zen 5, one core) it evaluates 1.3-1.4x the springs per second
// of the scalar loop. What was tried and dropped there: vgatherdpd (slower
// than scalar loads combined pairwise), AVX-512 with 8 lanes (slower: more
// index registers than there are, and no less traffic), gathering the forces
// and adding in vectors (no faster than the scalar adds below).
//
// Bit-identity. The SIMD body does exactly the scalar reference's IEEE
// operations in the same order; sqrt and division are correctly rounded in
// both. The build's -ffp-contract=off keeps the compiler from fusing a
// multiply-add in one path and not in the other. Which springs take which
// path depends on where a thread's share of a colour ends, so the two must
// agree to the last bit for results not to depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstdint>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "forces.h"

namespace suitsim::detail {

namespace {

// The arrays one force evaluation reads and writes.
struct SpringArrays {
  const std::int32_t* a;
  const std::int32_t* b;
  const double* k;
  const double* c;
  const double* l0;
  double* fx;
  double* fy;
  double* fz;
  int last;  // index of the last spring (prefetches stay inside the arrays)
};

// One spring: the reference that the SIMD path must reproduce bit for bit.
inline void addSpringForce(const SpringArrays& sp, const PhasePoint& x, int s) {
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
  const double tx = tension * ux;
  const double ty = tension * uy;
  const double tz = tension * uz;
  sp.fx[a] += tx;
  sp.fy[a] += ty;
  sp.fz[a] += tz;
  sp.fx[b] -= tx;
  sp.fy[b] -= ty;
  sp.fz[b] -= tz;
}

#ifdef __AVX2__

constexpr int kLanes = 4;
// Springs ahead to prefetch the per-spring arrays: helps once they come from
// DRAM (a 1e6-spring cloth gains about 15 %), costs nothing measurable in cache.
constexpr int kPrefetchAhead = 128;

// {base[index[0]], ..., base[index[3]]}: four scalar loads combined in pairs,
// cheaper on the target than the gather instruction.
inline __m256d gather4(const double* base, const std::int32_t* index) {
  const __m128d lo = _mm_loadh_pd(_mm_load_sd(base + index[0]), base + index[1]);
  const __m128d hi = _mm_loadh_pd(_mm_load_sd(base + index[2]), base + index[3]);
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
}

inline void prefetch(const void* address) { _mm_prefetch(static_cast<const char*>(address), _MM_HINT_T0); }

// Springs s .. s+3 of one colour; the same operations as addSpringForce, lane-wise.
inline void addSpringForces4(const SpringArrays& sp, const PhasePoint& x, int s, bool prefetch_ahead) {
  if (prefetch_ahead) {
    // One line of each double array covers 8 springs, so every other block.
    const int ahead = std::min(s + kPrefetchAhead, sp.last);
    prefetch(sp.k + ahead);
    prefetch(sp.c + ahead);
    prefetch(sp.l0 + ahead);
    prefetch(sp.a + ahead);
    prefetch(sp.b + ahead);
  }
  const std::int32_t* ia = sp.a + s;
  const std::int32_t* ib = sp.b + s;
  const __m256d dx = _mm256_sub_pd(gather4(x.px, ib), gather4(x.px, ia));
  const __m256d dy = _mm256_sub_pd(gather4(x.py, ib), gather4(x.py, ia));
  const __m256d dz = _mm256_sub_pd(gather4(x.pz, ib), gather4(x.pz, ia));
  const __m256d length = _mm256_sqrt_pd(
      _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz)));
  // length > 0 ? 1 / length : 0, as in the scalar path (a NaN length gives 0 too).
  const __m256d positive = _mm256_cmp_pd(length, _mm256_setzero_pd(), _CMP_GT_OQ);
  const __m256d inv_length = _mm256_and_pd(positive, _mm256_div_pd(_mm256_set1_pd(1.0), length));
  const __m256d ux = _mm256_mul_pd(dx, inv_length);
  const __m256d uy = _mm256_mul_pd(dy, inv_length);
  const __m256d uz = _mm256_mul_pd(dz, inv_length);
  const __m256d dvx = _mm256_sub_pd(gather4(x.vx, ib), gather4(x.vx, ia));
  const __m256d dvy = _mm256_sub_pd(gather4(x.vy, ib), gather4(x.vy, ia));
  const __m256d dvz = _mm256_sub_pd(gather4(x.vz, ib), gather4(x.vz, ia));
  const __m256d stretch_rate =
      _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dvx, ux), _mm256_mul_pd(dvy, uy)), _mm256_mul_pd(dvz, uz));
  const __m256d tension =
      _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(sp.k + s), _mm256_sub_pd(length, _mm256_loadu_pd(sp.l0 + s))),
                    _mm256_mul_pd(_mm256_loadu_pd(sp.c + s), stretch_rate));
  alignas(32) double tx[kLanes];
  alignas(32) double ty[kLanes];
  alignas(32) double tz[kLanes];
  _mm256_store_pd(tx, _mm256_mul_pd(tension, ux));
  _mm256_store_pd(ty, _mm256_mul_pd(tension, uy));
  _mm256_store_pd(tz, _mm256_mul_pd(tension, uz));
  // Scalar scatter: the lanes' particles are all distinct (one colour), and
  // the scatter instruction is no faster than these adds.
  for (int lane = 0; lane < kLanes; ++lane) {
    const int a = ia[lane];
    const int b = ib[lane];
    sp.fx[a] += tx[lane];
    sp.fy[a] += ty[lane];
    sp.fz[a] += tz[lane];
    sp.fx[b] -= tx[lane];
    sp.fy[b] -= ty[lane];
    sp.fz[b] -= tz[lane];
  }
}

#endif  // __AVX2__

}  // namespace

void addSpringForces(const Model& model, const PhasePoint& x, Vec3Array& force) {
  const SpringArrays sp{model.spring_a.data(),         model.spring_b.data(),  model.spring_stiffness.data(),
                        model.spring_damping.data(),   model.spring_rest_length.data(),
                        force.x.data(),                force.y.data(),         force.z.data(),
                        model.num_springs - 1};
  const int num_colours = model.numSpringColours();
  for (int colour = 0; colour < num_colours; ++colour) {
    const int begin = model.spring_colour_begin[colour];
    const int end = model.spring_colour_begin[colour + 1];
#ifdef __AVX2__
    // Blocks of four springs; a colour's last, partial block goes through the
    // scalar path, which rounds identically.
    const int num_blocks = (end - begin + kLanes - 1) / kLanes;
#pragma omp for schedule(static)
    for (int block = 0; block < num_blocks; ++block) {
      const int s = begin + block * kLanes;
      if (s + kLanes <= end) {
        addSpringForces4(sp, x, s, (block & 1) == 0);
      } else {
        for (int t = s; t < end; ++t) addSpringForce(sp, x, t);
      }
    }
#else
    // Within a colour no particle appears twice, so the scatter has no write
    // conflicts: safe for threads and for SIMD lanes alike.
#pragma omp for simd schedule(static)
    for (int s = begin; s < end; ++s) addSpringForce(sp, x, s);
#endif
  }
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
