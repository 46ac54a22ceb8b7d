// The spring force kernel (springs.cpp's design note), written once and
// compiled once per instruction set: springs.cpp includes this file inside
// a namespace of its own for each, with SUITSIM_SPRING_ISA set to 4
// (AVX-512, 8 lanes), 3 (AVX2, 4 lanes) or 0 (scalar) and, in the portable
// build, under the matching `#pragma GCC target`. It takes its paths from
// that macro, not from __AVX2__ / __AVX512F__: GCC reads a C++ file's
// tokens before it applies a target pragma, so the pragma never defines
// those. No include guard: it is meant to be included more than once.
//
// Every path does the scalar reference's operations (springTerm) in its
// order, so all of them give the same bits.
//
// SUITSIM_SPRING_FUSED picks the arithmetic (Model::spring_arithmetic):
// 0, every multiply and add rounded on its own (the engine's reference
// since the start); 1, the fused multiply-adds written out below, each
// rounded once, in a fixed order per spring that no path changes, so the
// fused kernels agree with each other and with the scalar one bit for bit,
// but not with the separate ones.
#if SUITSIM_SPRING_FUSED
constexpr bool kFused = true;
#else
constexpr bool kFused = false;
#endif

// What the first pass reads and writes.
struct SpringArrays {
  const std::int32_t* a;
  const std::int32_t* b;
  const double* k;
  const double* c;
  const double* l0;
  const SpringBlock* blocks;  // the fused blocks' ends and shared parameters
  double* out;                // spring s's term (w, m) at out[4 s .. 4 s + 3] (springTerm)
  int last;                   // index of the last spring (prefetches stay inside the arrays)
  int last_block;             // index of the last block, -1 for none
};

// One spring's term: what its ends' forces take, as w[0..2] and m. The
// reference that the SIMD paths must reproduce bit for bit.
//
// Separate arithmetic: w = T u, the force on the `a` end, and m = 0; a
// particle adds w (its `a` end) or subtracts it (`b` end).
//
// Fused arithmetic: w = d = p_b - p_a and m = T / l (T u = (T / l) d,
// T(7)), and a particle's force takes fma(+-m, w, f): the force's last
// multiply is fused into its sum. In order, with each fma(a, b, c) = a b + c
// rounded once:
//   l     = sqrt(fma(dz, dz, fma(dy, dy, dx dx)))
//   r     = fma(dvz, dz, fma(dvy, dy, dvx dx))       (l times T(8)'s stretch rate)
//   T     = fma(k, l - l0, c (r (1 / l)))             T(6)
//   m     = T (1 / l)
// 17 multiplies, adds and fused multiply-adds a spring (5 of them fused),
// besides the square root and the division, where the separate law takes
// 26; each end then takes 3 fused multiply-adds where the separate law adds
// or subtracts 3: 23 arithmetic instructions a spring against 32.
inline void springTerm(const SpringArrays& sp, const PhasePoint& x, int s, double w[3], double* m) {
  const int a = sp.a[s];
  const int b = sp.b[s];
  const double dx = x.px[b] - x.px[a];
  const double dy = x.py[b] - x.py[a];
  const double dz = x.pz[b] - x.pz[a];
  if constexpr (kFused) {
    const double length = std::sqrt(std::fma(dz, dz, std::fma(dy, dy, dx * dx)));
    // T(7)'s singular point (coincident particles): no direction, no force.
    const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
    const double dvx = x.vx[b] - x.vx[a];
    const double dvy = x.vy[b] - x.vy[a];
    const double dvz = x.vz[b] - x.vz[a];
    const double rate_times_length = std::fma(dvz, dz, std::fma(dvy, dy, dvx * dx));
    const double tension = std::fma(sp.k[s], length - sp.l0[s], sp.c[s] * (rate_times_length * inv_length));
    w[0] = dx;
    w[1] = dy;
    w[2] = dz;
    *m = tension * inv_length;
  } else {
    const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
    // T(7)'s singular point (coincident particles): no direction, no force.
    const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
    const double ux = dx * inv_length;
    const double uy = dy * inv_length;
    const double uz = dz * inv_length;
    const double stretch_rate =
        (x.vx[b] - x.vx[a]) * ux + (x.vy[b] - x.vy[a]) * uy + (x.vz[b] - x.vz[a]) * uz;
    const double tension = sp.k[s] * (length - sp.l0[s]) + sp.c[s] * stretch_rate;
    w[0] = tension * ux;
    w[1] = tension * uy;
    w[2] = tension * uz;
    *m = 0.0;
  }
}

// f plus an `a` end's term, f minus a `b` end's (springTerm).
inline double plusTerm(double f, double m, double w) { return kFused ? std::fma(m, w, f) : f + w; }
inline double minusTerm(double f, double m, double w) { return kFused ? std::fma(-m, w, f) : f - w; }

inline void springForce(const SpringArrays& sp, const PhasePoint& x, int s) {
  double* t = sp.out + 4 * static_cast<std::size_t>(s);
  springTerm(sp, x, s, t, t + 3);
}

// A fused block (KernelLayout::spring_tile_fused_end): every `a` end takes its
// term, then every `b` end, straight into the particles' forces. The two
// runs may overlap (offsets below the block size); all the `a` ends first
// is the order the Model's incidence lists state.
inline void fusedBlockScalar(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int s) {
  constexpr int kBlock = detail::KernelLayout::kSpringFusedBlock;
  double t[kBlock][3], m[kBlock];
  for (int j = 0; j < kBlock; ++j) springTerm(sp, x, s + j, t[j], &m[j]);
  const int a = sp.a[s], b = sp.b[s];
  for (int j = 0; j < kBlock; ++j) {
    f.x[a + j] = plusTerm(f.x[a + j], m[j], t[j][0]);
    f.y[a + j] = plusTerm(f.y[a + j], m[j], t[j][1]);
    f.z[a + j] = plusTerm(f.z[a + j], m[j], t[j][2]);
  }
  for (int j = 0; j < kBlock; ++j) {
    f.x[b + j] = minusTerm(f.x[b + j], m[j], t[j][0]);
    f.y[b + j] = minusTerm(f.y[b + j], m[j], t[j][1]);
    f.z[b + j] = minusTerm(f.z[b + j], m[j], t[j][2]);
  }
}

#if SUITSIM_SPRING_ISA >= 3

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

// length > 0 ? 1 / length : 0 lane-wise, as in the scalar path (a NaN length gives 0 too).
inline __m256d inverseOrZero(__m256d length) {
  const __m256d positive = _mm256_cmp_pd(length, _mm256_setzero_pd(), _CMP_GT_OQ);
  return _mm256_and_pd(positive, _mm256_div_pd(_mm256_set1_pd(1.0), length));
}
inline __m256d squareRoot(__m256d v) { return _mm256_sqrt_pd(v); }
// a b + c rounded once (x86-64-v3 has FMA).
inline __m256d fmadd(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); }

#if SUITSIM_SPRING_ISA >= 4
inline __m512d inverseOrZero(__m512d length) {
  const __mmask8 positive = _mm512_cmp_pd_mask(length, _mm512_setzero_pd(), _CMP_GT_OQ);
  return _mm512_maskz_div_pd(positive, _mm512_set1_pd(1.0), length);
}
inline __m512d squareRoot(__m512d v) { return _mm512_sqrt_pd(v); }
inline __m512d fmadd(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
#endif

// One vector of springs' k, c and l0 (a struct per vector type: a
// template argument would drop the vector types' attributes).
struct Parameters4 {
  __m256d k, c, l0;
};

// The terms (w, m) of one vector of springs, lane-wise: the operations of
// springTerm in its order (the vector types' operators are the IEEE ones,
// never fused under -ffp-contract=off; fmadd is the one rounding of a b + c).
// at_a and at_b load a particle array at the springs' ends.
template <class V, class AtA, class AtB, class P>
inline void terms(const PhasePoint& x, AtA at_a, AtB at_b, const P& p, V& wx, V& wy, V& wz, V& m) {
  const V dx = at_b(x.px) - at_a(x.px);
  const V dy = at_b(x.py) - at_a(x.py);
  const V dz = at_b(x.pz) - at_a(x.pz);
  if constexpr (kFused) {
    const V length = squareRoot(fmadd(dz, dz, fmadd(dy, dy, dx * dx)));
    const V inv_length = inverseOrZero(length);
    const V dvx = at_b(x.vx) - at_a(x.vx);
    const V dvy = at_b(x.vy) - at_a(x.vy);
    const V dvz = at_b(x.vz) - at_a(x.vz);
    const V rate_times_length = fmadd(dvz, dz, fmadd(dvy, dy, dvx * dx));
    const V tension = fmadd(p.k, length - p.l0, p.c * (rate_times_length * inv_length));
    wx = dx;
    wy = dy;
    wz = dz;
    m = tension * inv_length;
  } else {
    const V length = squareRoot(dx * dx + dy * dy + dz * dz);
    const V inv_length = inverseOrZero(length);
    const V ux = dx * inv_length;
    const V uy = dy * inv_length;
    const V uz = dz * inv_length;
    const V stretch_rate =
        (at_b(x.vx) - at_a(x.vx)) * ux + (at_b(x.vy) - at_a(x.vy)) * uy + (at_b(x.vz) - at_a(x.vz)) * uz;
    const V tension = p.k * (length - p.l0) + p.c * stretch_rate;
    wx = tension * ux;
    wy = tension * uy;
    wz = tension * uz;
    m = V{};
  }
}

// Springs s .. s+3, each end a run (one vector load) or gathered.
template <bool kRunA, bool kRunB>
inline void terms4(const SpringArrays& sp, const PhasePoint& x, int s, __m256d t[4]) {
  const std::int32_t* ia = sp.a + s;
  const std::int32_t* ib = sp.b + s;
  const auto at_a = [ia](const double* p) { return load4<kRunA>(p, ia); };
  const auto at_b = [ib](const double* p) { return load4<kRunB>(p, ib); };
  const Parameters4 p{_mm256_loadu_pd(sp.k + s), _mm256_loadu_pd(sp.c + s), _mm256_loadu_pd(sp.l0 + s)};
  terms(x, at_a, at_b, p, t[0], t[1], t[2], t[3]);
}

// Springs s + 4 h .. s + 4 h + 3 of the fused block `block` starting at s:
// k and c broadcast and l0 rebuilt from its bit pattern where the block
// holds them (SpringBlock), else the per-spring arrays.
inline Parameters4 blockParameters4(const SpringArrays& sp, const SpringBlock& block, int s, int h) {
  const int first = s + kLanes * h;
  if (!block.shared) {
    return {_mm256_loadu_pd(sp.k + first), _mm256_loadu_pd(sp.c + first), _mm256_loadu_pd(sp.l0 + first)};
  }
  const __m256i ulps =
      _mm256_cvtepi16_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(block.l0_ulps.data() + kLanes * h)));
  const __m256i l0 = _mm256_add_epi64(_mm256_set1_epi64x(std::bit_cast<long long>(block.l0)), ulps);
  return {_mm256_set1_pd(block.k), _mm256_set1_pd(block.c), _mm256_castsi256_pd(l0)};
}

// The terms of springs s .. s+3 (lanes) into their slots.
inline void storeSlots4(const SpringArrays& sp, int s, __m256d tx, __m256d ty, __m256d tz, __m256d m) {
  // Lanes are springs; the output is one (x, y, z, m) vector per spring, so
  // the second pass adds a spring's term to a particle in one instruction.
  const __m256d xy_even = _mm256_unpacklo_pd(tx, ty);  // x0 y0 x2 y2
  const __m256d xy_odd = _mm256_unpackhi_pd(tx, ty);   // x1 y1 x3 y3
  const __m256d z_even = _mm256_unpacklo_pd(tz, m);
  const __m256d z_odd = _mm256_unpackhi_pd(tz, m);
  double* out = sp.out + 4 * static_cast<std::size_t>(s);
  _mm256_storeu_pd(out, _mm256_permute2f128_pd(xy_even, z_even, 0x20));
  _mm256_storeu_pd(out + 4, _mm256_permute2f128_pd(xy_odd, z_odd, 0x20));
  _mm256_storeu_pd(out + 8, _mm256_permute2f128_pd(xy_even, z_even, 0x31));
  _mm256_storeu_pd(out + 12, _mm256_permute2f128_pd(xy_odd, z_odd, 0x31));
}

// Springs s .. s+3 into their slots.
template <bool kRunA, bool kRunB>
inline void springForces4(const SpringArrays& sp, const PhasePoint& x, int s) {
  __m256d t[4];
  terms4<kRunA, kRunB>(sp, x, s, t);
  storeSlots4(sp, s, t[0], t[1], t[2], t[3]);
}

inline void prefetchParameters(const SpringArrays& sp, int s) {
  const int ahead = std::min(s + kPrefetchAhead, sp.last);
  prefetch(sp.k + ahead);
  prefetch(sp.c + ahead);
  prefetch(sp.l0 + ahead);
  prefetch(sp.a + ahead);
  prefetch(sp.b + ahead);
}

// The block records a few blocks ahead (48 bytes each).
constexpr int kBlocksAhead = 16;

inline void prefetchBlock(const SpringArrays& sp, int n) { prefetch(sp.blocks + std::min(n + kBlocksAhead, sp.last_block)); }

// f plus an `a` end's term (w, m), f minus a `b` end's, lane-wise (plusTerm).
inline __m256d plusTerm(__m256d f, __m256d m, __m256d w) { return kFused ? fmadd(m, w, f) : _mm256_add_pd(f, w); }
inline __m256d minusTerm(__m256d f, __m256d m, __m256d w) {
  return kFused ? _mm256_fnmadd_pd(m, w, f) : _mm256_sub_pd(f, w);  // fnmadd: -(m w) + f, fma(-m, w, f)
}
inline void addTo(double* f, __m256d m, __m256d w) { _mm256_storeu_pd(f, plusTerm(_mm256_loadu_pd(f), m, w)); }
inline void subtractFrom(double* f, __m256d m, __m256d w) {
  _mm256_storeu_pd(f, minusTerm(_mm256_loadu_pd(f), m, w));
}

#if SUITSIM_SPRING_ISA >= 4

struct Parameters8 {
  __m512d k, c, l0;
};

// The eight springs' parameters of the fused block `block` starting at s,
// as blockParameters4.
inline Parameters8 blockParameters8(const SpringArrays& sp, const SpringBlock& block, int s) {
  if (!block.shared) {
    prefetchParameters(sp, s);
    return {_mm512_loadu_pd(sp.k + s), _mm512_loadu_pd(sp.c + s), _mm512_loadu_pd(sp.l0 + s)};
  }
  const __m512i ulps = _mm512_cvtepi16_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block.l0_ulps.data())));
  const __m512i l0 = _mm512_add_epi64(_mm512_set1_epi64(std::bit_cast<long long>(block.l0)), ulps);
  return {_mm512_set1_pd(block.k), _mm512_set1_pd(block.c), _mm512_castsi512_pd(l0)};
}

// Springs s .. s+7 of a fused block, whose ends are the runs from a and b:
// their terms t[0..2] (w) and t[3] (m).
inline void terms8(const SpringArrays& sp, const PhasePoint& x, const SpringBlock& block, int s, int a, int b,
                   __m512d t[4]) {
  const auto at_a = [a](const double* p) { return _mm512_loadu_pd(p + a); };
  const auto at_b = [b](const double* p) { return _mm512_loadu_pd(p + b); };
  terms(x, at_a, at_b, blockParameters8(sp, block, s), t[0], t[1], t[2], t[3]);
}

// f plus an `a` end's term (w, m), f minus a `b` end's, lane-wise
// (plusTerm); minusTermIn only in the lanes of `lanes`, f elsewhere.
inline __m512d plusTerm(__m512d f, __m512d m, __m512d w) { return kFused ? fmadd(m, w, f) : _mm512_add_pd(f, w); }
inline __m512d minusTerm(__m512d f, __m512d m, __m512d w) {
  return kFused ? _mm512_fnmadd_pd(m, w, f) : _mm512_sub_pd(f, w);  // fnmadd: -(m w) + f, fma(-m, w, f)
}
inline __m512d minusTermIn(__mmask8 lanes, __m512d f, __m512d m, __m512d w) {
  return kFused ? _mm512_mask3_fnmadd_pd(m, w, f, lanes) : _mm512_mask_sub_pd(f, lanes, f, w);
}

// The fused blocks [begin, end) of a tile in 8 lanes, with the sums of
// fusedBlockScalar as vector read-modify-writes. A block whose offset
// d = b - a is below 8 (a lattice's neighbours along a row) would store its
// `a` ends and then load its `b` ends from the same lines, and the next
// block likewise: loads that overlap a store in flight only in part wait
// for it to retire. Such a block instead takes the `b` ends' terms of
// lanes d..7 in the register, lane-rotated, and carries lanes 0..d-1 into
// the next block when that block continues the run (else stores them):
// each particle still takes the same operations in the same order.
inline void fusedBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                        int first_block) {
  static_assert(detail::KernelLayout::kSpringFusedBlock == 8);
  double* const f3[3] = {f.x.data(), f.y.data(), f.z.data()};
  // Terms carried: w in 0..2, m in 3 (separate arithmetic: m is 0 and unused).
  constexpr int kCarried = kFused ? 4 : 3;
  const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512d carry[4] = {_mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd()};
  __mmask8 carry_lanes = 0;
  int carry_at = -1;  // first particle the carry belongs to, -1 for none
  const auto flush = [&] {
    if (carry_at < 0) return;
    for (int c = 0; c < 3; ++c) {
      double* at = f3[c] + carry_at;
      _mm512_mask_storeu_pd(at, carry_lanes, minusTerm(_mm512_maskz_loadu_pd(carry_lanes, at), carry[3], carry[c]));
    }
    carry_at = -1;
  };
  for (int s = begin, n = first_block; s < end; s += 8, ++n) {
    prefetchBlock(sp, n);
    const SpringBlock& block = sp.blocks[n];
    const int a = block.a, b = block.a + block.offset;
    __m512d t[4];
    terms8(sp, x, block, s, a, b, t);
    const int d = b - a;
    if (carry_at >= 0 && (carry_at != a || d <= 0 || d >= 8)) flush();
    if (d > 0 && d < 8) {
      __m512d lo[3];
      for (int c = 0; c < 3; ++c) {
        lo[c] = _mm512_loadu_pd(f3[c] + a);
        // The previous block's `b` ends come first.
        if (carry_at == a) lo[c] = minusTermIn(carry_lanes, lo[c], carry[3], carry[c]);
        lo[c] = plusTerm(lo[c], t[3], t[c]);
      }
      // Lane j takes spring j - d's term (mod 8): lanes d..7 here, 0..d-1 carried.
      const __m512i from = _mm512_and_si512(_mm512_sub_epi64(lane, _mm512_set1_epi64(d)), _mm512_set1_epi64(7));
      for (int c = 0; c < kCarried; ++c) carry[c] = _mm512_permutexvar_pd(from, t[c]);
      carry_lanes = static_cast<__mmask8>((1u << d) - 1u);
      const __mmask8 here = static_cast<__mmask8>(~carry_lanes);
      for (int c = 0; c < 3; ++c) _mm512_storeu_pd(f3[c] + a, minusTermIn(here, lo[c], carry[3], carry[c]));
      carry_at = a + 8;
    } else {
      for (int c = 0; c < 3; ++c) {
        _mm512_storeu_pd(f3[c] + a, plusTerm(_mm512_loadu_pd(f3[c] + a), t[3], t[c]));
        _mm512_storeu_pd(f3[c] + b, minusTerm(_mm512_loadu_pd(f3[c] + b), t[3], t[c]));
      }
    }
  }
  flush();
}

// The edge blocks [begin, end) of a tile (KernelLayout::spring_tile_edge_end):
// their terms straight into the `a` ends (the tile's), and into the slots
// for the `b` ends, which lie in later tiles.
inline void edgeBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                       int first_block) {
  for (int s = begin, n = first_block; s < end; s += 8, ++n) {
    prefetchBlock(sp, n);
    const SpringBlock& block = sp.blocks[n];
    __m512d t[4];
    terms8(sp, x, block, s, block.a, block.a + block.offset, t);
    double* const f3[3] = {f.x.data() + block.a, f.y.data() + block.a, f.z.data() + block.a};
    for (int c = 0; c < 3; ++c) _mm512_storeu_pd(f3[c], plusTerm(_mm512_loadu_pd(f3[c]), t[3], t[c]));
    storeSlots4(sp, s, _mm512_castpd512_pd256(t[0]), _mm512_castpd512_pd256(t[1]), _mm512_castpd512_pd256(t[2]),
                _mm512_castpd512_pd256(t[3]));
    storeSlots4(sp, s + 4, _mm512_extractf64x4_pd(t[0], 1), _mm512_extractf64x4_pd(t[1], 1),
                _mm512_extractf64x4_pd(t[2], 1), _mm512_extractf64x4_pd(t[3], 1));
  }
}

#else

// The terms of springs s + 4 h .. s + 4 h + 3 of the block `block` starting at s.
inline void blockTerms4(const SpringArrays& sp, const PhasePoint& x, const SpringBlock& block, int s, int h,
                        __m256d t[4]) {
  const int first_a = block.a + h * kLanes, first_b = block.a + block.offset + h * kLanes;
  const auto at_a = [first_a](const double* p) { return _mm256_loadu_pd(p + first_a); };
  const auto at_b = [first_b](const double* p) { return _mm256_loadu_pd(p + first_b); };
  terms(x, at_a, at_b, blockParameters4(sp, block, s, h), t[0], t[1], t[2], t[3]);
}

// A fused block as two halves of four lanes: the `a` ends of both, then
// the `b` ends, as in fusedBlockScalar.
inline void fusedBlock(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int s, int n) {
  static_assert(detail::KernelLayout::kSpringFusedBlock == 2 * kLanes);
  prefetchBlock(sp, n);
  const SpringBlock& block = sp.blocks[n];
  if (!block.shared) prefetchParameters(sp, s);
  const int a = block.a, b = block.a + block.offset;
  __m256d t[2][4];
  for (int h = 0; h < 2; ++h) blockTerms4(sp, x, block, s, h, t[h]);
  double* const f3[3] = {f.x.data(), f.y.data(), f.z.data()};
  for (int h = 0; h < 2; ++h) {
    for (int c = 0; c < 3; ++c) addTo(f3[c] + a + h * kLanes, t[h][3], t[h][c]);
  }
  for (int h = 0; h < 2; ++h) {
    for (int c = 0; c < 3; ++c) subtractFrom(f3[c] + b + h * kLanes, t[h][3], t[h][c]);
  }
}

inline void fusedBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                        int first_block) {
  for (int s = begin, n = first_block; s < end; s += detail::KernelLayout::kSpringFusedBlock, ++n) fusedBlock(sp, x, f, s, n);
}

// The edge blocks as in 8 lanes, in two halves of four.
inline void edgeBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                       int first_block) {
  double* const f3[3] = {f.x.data(), f.y.data(), f.z.data()};
  for (int s = begin, n = first_block; s < end; s += detail::KernelLayout::kSpringFusedBlock, ++n) {
    prefetchBlock(sp, n);
    const SpringBlock& block = sp.blocks[n];
    if (!block.shared) prefetchParameters(sp, s);
    for (int h = 0; h < 2; ++h) {
      __m256d t[4];
      blockTerms4(sp, x, block, s, h, t);
      for (int c = 0; c < 3; ++c) addTo(f3[c] + block.a + h * kLanes, t[3], t[c]);
      storeSlots4(sp, s + h * kLanes, t[0], t[1], t[2], t[3]);
    }
  }
}

#endif  // SUITSIM_SPRING_ISA >= 4

inline void springForceBlock(const SpringArrays& sp, const PhasePoint& x, int s, bool prefetch_ahead) {
  // One line of each double array covers 8 springs, so every other block.
  if (prefetch_ahead) prefetchParameters(sp, s);
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
// add (or fused multiply-add) per spring, lanes x, y, z, the `b` end's term
// negated by its sign bit (x + (-t) is x - t exactly, and fma(-m, w, x)
// is fnmadd, as in the scalar path).
inline void sumSpringForces(const Model& model, const double* spring_force, Vec3Array& force, int i) {
  const detail::KernelLayout& layout = *model.kernel;
  alignas(32) static const double kSign[2][4] = {{0.0, 0.0, 0.0, 0.0}, {-0.0, -0.0, -0.0, -0.0}};
  __m256d f = _mm256_setr_pd(force.x[i], force.y[i], force.z[i], 0.0);
  const std::int32_t* incidence = layout.spring_incidence.data();
  for (int e = layout.spring_incidence_fused_end[i]; e < layout.spring_incidence_begin[i + 1]; ++e) {
    const int code = incidence[e];
    const __m256d t = _mm256_loadu_pd(spring_force + 4 * static_cast<std::size_t>(code >> 1));
    const __m256d sign = _mm256_load_pd(kSign[code & 1]);
    if constexpr (kFused) {
      // (w, m): m in every lane, signed; lane 3 gets m m and is dropped.
      f = fmadd(_mm256_xor_pd(_mm256_permute4x64_pd(t, 0xFF), sign), t, f);
    } else {
      f = _mm256_add_pd(f, _mm256_xor_pd(t, sign));
    }
  }
  alignas(32) double out[4];
  _mm256_store_pd(out, f);
  force.x[i] = out[0];
  force.y[i] = out[1];
  force.z[i] = out[2];
}

#else

// (The scalar path reads the per-spring arrays, not the block records.)
inline void fusedBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                        int /*first_block*/) {
  for (int s = begin; s < end; s += detail::KernelLayout::kSpringFusedBlock) fusedBlockScalar(sp, x, f, s);
}

inline void edgeBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                       int /*first_block*/) {
  for (int s = begin; s < end; ++s) {
    springForce(sp, x, s);
    const double* t = sp.out + 4 * static_cast<std::size_t>(s);
    const int a = sp.a[s];
    f.x[a] = plusTerm(f.x[a], t[3], t[0]);
    f.y[a] = plusTerm(f.y[a], t[3], t[1]);
    f.z[a] = plusTerm(f.z[a], t[3], t[2]);
  }
}

inline void sumSpringForces(const Model& model, const double* spring_force, Vec3Array& force, int i) {
  const detail::KernelLayout& layout = *model.kernel;
  double fx = force.x[i], fy = force.y[i], fz = force.z[i];
  for (int e = layout.spring_incidence_fused_end[i]; e < layout.spring_incidence_begin[i + 1]; ++e) {
    const int code = layout.spring_incidence[e];
    const double* t = spring_force + 4 * static_cast<std::size_t>(code >> 1);
    if (code & 1) {
      fx = minusTerm(fx, t[3], t[0]);
      fy = minusTerm(fy, t[3], t[1]);
      fz = minusTerm(fz, t[3], t[2]);
    } else {
      fx = plusTerm(fx, t[3], t[0]);
      fy = plusTerm(fy, t[3], t[1]);
      fz = plusTerm(fz, t[3], t[2]);
    }
  }
  force.x[i] = fx;
  force.y[i] = fy;
  force.z[i] = fz;
}

#endif  // SUITSIM_SPRING_ISA >= 3

// Pass 1 for the stored springs [begin, end), on the calling thread.
inline void springForces(const SpringArrays& sp, const PhasePoint& x, int begin, int end) {
#if SUITSIM_SPRING_ISA >= 3
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

// True when every spring that particle i sums in pass 2 is stored at
// `first_spring` or later (that part of its list is ascending, so its first
// entry decides; i is on KernelLayout::spring_summed_particles, so it has one).
inline bool springsFrom(const Model& model, int i, int first_spring) {
  const detail::KernelLayout& layout = *model.kernel;
  return (layout.spring_incidence[layout.spring_incidence_fused_end[i]] >> 1) >= first_spring;
}

// The whole force pass (addSpringForces in forces.h), for this ISA and arithmetic.
inline void springKernel(const Model& model, const PhasePoint& x, double* spring_force, Vec3Array& force) {
  const detail::KernelLayout& layout = *model.kernel;
  const SpringArrays sp{model.spring_a.data(),
                        model.spring_b.data(),
                        model.spring_stiffness.data(),
                        model.spring_damping.data(),
                        model.spring_rest_length.data(),
                        layout.spring_blocks.data(),
                        spring_force,
                        model.num_springs - 1,
                        static_cast<int>(layout.spring_blocks.size()) - 1};
  // Each thread takes a contiguous share of the tiles and goes through them
  // in order: a tile's springs (pass 1), then those of its particles that
  // have slots to sum (pass 2, KernelLayout::spring_summed_particles), whose
  // springs all have their lower end in this tile or an earlier one, so
  // the forces pass 2 reads were just written and are still in cache. A
  // particle with a spring from an earlier thread's share waits for the
  // barrier. The shares depend on the thread count; what a particle sums,
  // and in which order, does not.
  const std::int32_t* summed = layout.spring_summed_particles.data();
  const int num_tiles = static_cast<int>(layout.spring_tile_begin.size()) - 1;
  if (num_tiles < 0) return;  // a Model not made by the builder has no layout (nor springs in it)
  const int threads = omp_get_num_threads();
  const int me = omp_get_thread_num();
  const int first_tile = static_cast<int>(static_cast<long>(num_tiles) * me / threads);
  const int end_tile = static_cast<int>(static_cast<long>(num_tiles) * (me + 1) / threads);
  const int first_spring = layout.spring_tile_begin[first_tile];
  for (int t = first_tile; t < end_tile; ++t) {
    const int fused_end = layout.spring_tile_fused_end[t];
    const int edge_end = layout.spring_tile_edge_end[t];
    const int first_edge_block =
        layout.spring_tile_first_block[t] + (fused_end - layout.spring_tile_begin[t]) / layout.kSpringFusedBlock;
    fusedBlocks(sp, x, force, layout.spring_tile_begin[t], fused_end, layout.spring_tile_first_block[t]);
    edgeBlocks(sp, x, force, fused_end, edge_end, first_edge_block);
    springForces(sp, x, edge_end, layout.spring_tile_begin[t + 1]);
    for (int k = layout.spring_tile_first_summed[t]; k < layout.spring_tile_first_summed[t + 1]; ++k) {
      const int i = summed[k];
      if (springsFrom(model, i, first_spring)) sumSpringForces(model, spring_force, force, i);
    }
  }
#pragma omp barrier
  if (me > 0) {
    for (int k = layout.spring_tile_first_summed[first_tile]; k < layout.spring_tile_first_summed[end_tile]; ++k) {
      const int i = summed[k];
      if (!springsFrom(model, i, first_spring)) sumSpringForces(model, spring_force, force, i);
    }
  }
  // The forces are complete before anything reads them.
#pragma omp barrier
}
