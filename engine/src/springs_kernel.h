// The spring force kernel (springs.cpp's design note), written once and
// compiled once per instruction set: springs.cpp includes this file inside
// a namespace of its own for each, with SUITSIM_SPRING_ISA set to 4
// (AVX-512, 8 lanes), 3 (AVX2, 4 lanes) or 0 (scalar) and, in the portable
// build, under the matching `#pragma GCC target`. It takes its paths from
// that macro, not from __AVX2__ / __AVX512F__: GCC reads a C++ file's
// tokens before it applies a target pragma, so the pragma never defines
// those. No include guard: it is meant to be included more than once.
//
// Every path does the scalar reference's operations (springTension) in its
// order, so all of them give the same bits.

// What the first pass reads and writes.
struct SpringArrays {
  const std::int32_t* a;
  const std::int32_t* b;
  const double* k;
  const double* c;
  const double* l0;
  const SpringBlock* blocks;  // the fused blocks' ends and shared parameters
  double* out;                // T u of spring s at out[4 s .. 4 s + 2], 0 at out[4 s + 3]
  int last;                   // index of the last spring (prefetches stay inside the arrays)
  int last_block;             // index of the last block, -1 for none
};

// One spring's force on its `a` end, T u: the reference that the SIMD
// paths must reproduce bit for bit.
inline void springTension(const SpringArrays& sp, const PhasePoint& x, int s, double t[3]) {
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
  t[0] = tension * ux;
  t[1] = tension * uy;
  t[2] = tension * uz;
}

inline void springForce(const SpringArrays& sp, const PhasePoint& x, int s) {
  double* t = sp.out + 4 * static_cast<std::size_t>(s);
  springTension(sp, x, s, t);
  t[3] = 0.0;
}

// A fused block (Model::spring_tile_fused_end): every `a` end takes +T u,
// then every `b` end -T u, straight into the particles' forces. The two
// runs may overlap (offsets below the block size); all the `a` ends first
// is the order the Model's incidence lists state.
inline void fusedBlockScalar(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int s) {
  constexpr int kBlock = Model::kSpringFusedBlock;
  double t[kBlock][3];
  for (int j = 0; j < kBlock; ++j) springTension(sp, x, s + j, t[j]);
  const int a = sp.a[s], b = sp.b[s];
  for (int j = 0; j < kBlock; ++j) {
    f.x[a + j] += t[j][0];
    f.y[a + j] += t[j][1];
    f.z[a + j] += t[j][2];
  }
  for (int j = 0; j < kBlock; ++j) {
    f.x[b + j] -= t[j][0];
    f.y[b + j] -= t[j][1];
    f.z[b + j] -= t[j][2];
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

#if SUITSIM_SPRING_ISA >= 4
inline __m512d inverseOrZero(__m512d length) {
  const __mmask8 positive = _mm512_cmp_pd_mask(length, _mm512_setzero_pd(), _CMP_GT_OQ);
  return _mm512_maskz_div_pd(positive, _mm512_set1_pd(1.0), length);
}
inline __m512d squareRoot(__m512d v) { return _mm512_sqrt_pd(v); }
#endif

// One vector of springs' k, c and l0 (a struct per vector type: a
// template argument would drop the vector types' attributes).
struct Parameters4 {
  __m256d k, c, l0;
};

// T u of one vector of springs, lane-wise: the operations of springTension
// in its order (the vector types' operators are the IEEE ones, never fused
// under -ffp-contract=off). at_a and at_b load a particle array at the
// springs' ends.
template <class V, class AtA, class AtB, class P>
inline void tensions(const PhasePoint& x, AtA at_a, AtB at_b, const P& p, V& tx, V& ty, V& tz) {
  const V dx = at_b(x.px) - at_a(x.px);
  const V dy = at_b(x.py) - at_a(x.py);
  const V dz = at_b(x.pz) - at_a(x.pz);
  const V length = squareRoot(dx * dx + dy * dy + dz * dz);
  const V inv_length = inverseOrZero(length);
  const V ux = dx * inv_length;
  const V uy = dy * inv_length;
  const V uz = dz * inv_length;
  const V stretch_rate =
      (at_b(x.vx) - at_a(x.vx)) * ux + (at_b(x.vy) - at_a(x.vy)) * uy + (at_b(x.vz) - at_a(x.vz)) * uz;
  const V tension = p.k * (length - p.l0) + p.c * stretch_rate;
  tx = tension * ux;
  ty = tension * uy;
  tz = tension * uz;
}

// Springs s .. s+3, each end a run (one vector load) or gathered.
template <bool kRunA, bool kRunB>
inline void tensions4(const SpringArrays& sp, const PhasePoint& x, int s, __m256d& tx, __m256d& ty, __m256d& tz) {
  const std::int32_t* ia = sp.a + s;
  const std::int32_t* ib = sp.b + s;
  const auto at_a = [ia](const double* p) { return load4<kRunA>(p, ia); };
  const auto at_b = [ib](const double* p) { return load4<kRunB>(p, ib); };
  const Parameters4 p{_mm256_loadu_pd(sp.k + s), _mm256_loadu_pd(sp.c + s), _mm256_loadu_pd(sp.l0 + s)};
  tensions(x, at_a, at_b, p, tx, ty, tz);
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

// T u of springs s .. s+3 (lanes) into their slots.
inline void storeSlots4(const SpringArrays& sp, int s, __m256d tx, __m256d ty, __m256d tz) {
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

// Springs s .. s+3 into their slots.
template <bool kRunA, bool kRunB>
inline void springForces4(const SpringArrays& sp, const PhasePoint& x, int s) {
  __m256d tx, ty, tz;
  tensions4<kRunA, kRunB>(sp, x, s, tx, ty, tz);
  storeSlots4(sp, s, tx, ty, tz);
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

inline void addTo(double* f, __m256d t) { _mm256_storeu_pd(f, _mm256_add_pd(_mm256_loadu_pd(f), t)); }
inline void subtractFrom(double* f, __m256d t) { _mm256_storeu_pd(f, _mm256_sub_pd(_mm256_loadu_pd(f), t)); }

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

// Springs s .. s+7 of a fused block, whose ends are the runs from a and b.
inline void tensions8(const SpringArrays& sp, const PhasePoint& x, const SpringBlock& block, int s, int a, int b,
                      __m512d& tx, __m512d& ty, __m512d& tz) {
  const auto at_a = [a](const double* p) { return _mm512_loadu_pd(p + a); };
  const auto at_b = [b](const double* p) { return _mm512_loadu_pd(p + b); };
  tensions(x, at_a, at_b, blockParameters8(sp, block, s), tx, ty, tz);
}

// The fused blocks [begin, end) of a tile in 8 lanes, with the adds of
// fusedBlockScalar as vector read-modify-writes. A block whose offset
// d = b - a is below 8 (a lattice's neighbours along a row) would store its
// `a` ends and then load its `b` ends from the same lines, and the next
// block likewise: loads that overlap a store in flight only in part wait
// for it to retire. Such a block instead subtracts -T u of lanes d..7 in
// the register, lane-rotated, and carries lanes 0..d-1 into the next block
// when that block continues the run (else stores them): each particle
// still takes the same operations in the same order.
inline void fusedBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                        int first_block) {
  static_assert(Model::kSpringFusedBlock == 8);
  double* fx = f.x.data();
  double* fy = f.y.data();
  double* fz = f.z.data();
  const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512d carry_x = _mm512_setzero_pd(), carry_y = carry_x, carry_z = carry_x;
  __mmask8 carry_lanes = 0;
  int carry_at = -1;  // first particle the carry belongs to, -1 for none
  const auto flush = [&] {
    if (carry_at < 0) return;
    _mm512_mask_storeu_pd(fx + carry_at, carry_lanes,
                          _mm512_sub_pd(_mm512_maskz_loadu_pd(carry_lanes, fx + carry_at), carry_x));
    _mm512_mask_storeu_pd(fy + carry_at, carry_lanes,
                          _mm512_sub_pd(_mm512_maskz_loadu_pd(carry_lanes, fy + carry_at), carry_y));
    _mm512_mask_storeu_pd(fz + carry_at, carry_lanes,
                          _mm512_sub_pd(_mm512_maskz_loadu_pd(carry_lanes, fz + carry_at), carry_z));
    carry_at = -1;
  };
  for (int s = begin, n = first_block; s < end; s += 8, ++n) {
    prefetchBlock(sp, n);
    const SpringBlock& block = sp.blocks[n];
    const int a = block.a, b = block.a + block.offset;
    __m512d tx, ty, tz;
    tensions8(sp, x, block, s, a, b, tx, ty, tz);
    const int d = b - a;
    if (carry_at >= 0 && (carry_at != a || d <= 0 || d >= 8)) flush();
    if (d > 0 && d < 8) {
      __m512d lo_x = _mm512_loadu_pd(fx + a), lo_y = _mm512_loadu_pd(fy + a), lo_z = _mm512_loadu_pd(fz + a);
      if (carry_at == a) {  // the previous block's `b` ends come first
        lo_x = _mm512_mask_sub_pd(lo_x, carry_lanes, lo_x, carry_x);
        lo_y = _mm512_mask_sub_pd(lo_y, carry_lanes, lo_y, carry_y);
        lo_z = _mm512_mask_sub_pd(lo_z, carry_lanes, lo_z, carry_z);
      }
      lo_x = _mm512_add_pd(lo_x, tx);
      lo_y = _mm512_add_pd(lo_y, ty);
      lo_z = _mm512_add_pd(lo_z, tz);
      // Lane j takes spring j - d's term (mod 8): lanes d..7 here, 0..d-1 carried.
      const __m512i from = _mm512_and_si512(_mm512_sub_epi64(lane, _mm512_set1_epi64(d)), _mm512_set1_epi64(7));
      carry_x = _mm512_permutexvar_pd(from, tx);
      carry_y = _mm512_permutexvar_pd(from, ty);
      carry_z = _mm512_permutexvar_pd(from, tz);
      carry_lanes = static_cast<__mmask8>((1u << d) - 1u);
      const __mmask8 here = static_cast<__mmask8>(~carry_lanes);
      _mm512_storeu_pd(fx + a, _mm512_mask_sub_pd(lo_x, here, lo_x, carry_x));
      _mm512_storeu_pd(fy + a, _mm512_mask_sub_pd(lo_y, here, lo_y, carry_y));
      _mm512_storeu_pd(fz + a, _mm512_mask_sub_pd(lo_z, here, lo_z, carry_z));
      carry_at = a + 8;
    } else {
      _mm512_storeu_pd(fx + a, _mm512_add_pd(_mm512_loadu_pd(fx + a), tx));
      _mm512_storeu_pd(fy + a, _mm512_add_pd(_mm512_loadu_pd(fy + a), ty));
      _mm512_storeu_pd(fz + a, _mm512_add_pd(_mm512_loadu_pd(fz + a), tz));
      _mm512_storeu_pd(fx + b, _mm512_sub_pd(_mm512_loadu_pd(fx + b), tx));
      _mm512_storeu_pd(fy + b, _mm512_sub_pd(_mm512_loadu_pd(fy + b), ty));
      _mm512_storeu_pd(fz + b, _mm512_sub_pd(_mm512_loadu_pd(fz + b), tz));
    }
  }
  flush();
}

// The edge blocks [begin, end) of a tile (Model::spring_tile_edge_end):
// +T u straight into the `a` ends, T u into the slots for the `b` ends,
// which lie in later tiles.
inline void edgeBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                       int first_block) {
  for (int s = begin, n = first_block; s < end; s += 8, ++n) {
    prefetchBlock(sp, n);
    const SpringBlock& block = sp.blocks[n];
    __m512d tx, ty, tz;
    tensions8(sp, x, block, s, block.a, block.a + block.offset, tx, ty, tz);
    double* const f3[3] = {f.x.data() + block.a, f.y.data() + block.a, f.z.data() + block.a};
    const __m512d t[3] = {tx, ty, tz};
    for (int c = 0; c < 3; ++c) _mm512_storeu_pd(f3[c], _mm512_add_pd(_mm512_loadu_pd(f3[c]), t[c]));
    storeSlots4(sp, s, _mm512_castpd512_pd256(tx), _mm512_castpd512_pd256(ty), _mm512_castpd512_pd256(tz));
    storeSlots4(sp, s + 4, _mm512_extractf64x4_pd(tx, 1), _mm512_extractf64x4_pd(ty, 1),
                _mm512_extractf64x4_pd(tz, 1));
  }
}

#else

// T u of springs s + 4 h .. s + 4 h + 3 of the block `block` starting at s.
inline void blockTensions4(const SpringArrays& sp, const PhasePoint& x, const SpringBlock& block, int s, int h,
                           __m256d t[3]) {
  const int first_a = block.a + h * kLanes, first_b = block.a + block.offset + h * kLanes;
  const auto at_a = [first_a](const double* p) { return _mm256_loadu_pd(p + first_a); };
  const auto at_b = [first_b](const double* p) { return _mm256_loadu_pd(p + first_b); };
  tensions(x, at_a, at_b, blockParameters4(sp, block, s, h), t[0], t[1], t[2]);
}

// A fused block as two halves of four lanes: the `a` ends of both, then
// the `b` ends, as in fusedBlockScalar.
inline void fusedBlock(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int s, int n) {
  static_assert(Model::kSpringFusedBlock == 2 * kLanes);
  prefetchBlock(sp, n);
  const SpringBlock& block = sp.blocks[n];
  if (!block.shared) prefetchParameters(sp, s);
  const int a = block.a, b = block.a + block.offset;
  __m256d t[2][3];
  for (int h = 0; h < 2; ++h) blockTensions4(sp, x, block, s, h, t[h]);
  double* const f3[3] = {f.x.data(), f.y.data(), f.z.data()};
  for (int h = 0; h < 2; ++h) {
    for (int c = 0; c < 3; ++c) addTo(f3[c] + a + h * kLanes, t[h][c]);
  }
  for (int h = 0; h < 2; ++h) {
    for (int c = 0; c < 3; ++c) subtractFrom(f3[c] + b + h * kLanes, t[h][c]);
  }
}

inline void fusedBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                        int first_block) {
  for (int s = begin, n = first_block; s < end; s += Model::kSpringFusedBlock, ++n) fusedBlock(sp, x, f, s, n);
}

// The edge blocks as in 8 lanes, in two halves of four.
inline void edgeBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                       int first_block) {
  double* const f3[3] = {f.x.data(), f.y.data(), f.z.data()};
  for (int s = begin, n = first_block; s < end; s += Model::kSpringFusedBlock, ++n) {
    prefetchBlock(sp, n);
    const SpringBlock& block = sp.blocks[n];
    if (!block.shared) prefetchParameters(sp, s);
    for (int h = 0; h < 2; ++h) {
      __m256d t[3];
      blockTensions4(sp, x, block, s, h, t);
      for (int c = 0; c < 3; ++c) addTo(f3[c] + block.a + h * kLanes, t[c]);
      storeSlots4(sp, s + h * kLanes, t[0], t[1], t[2]);
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
// add per spring, lanes x, y, z, the `b` end's term negated by its sign bit
// (x + (-t) is x - t exactly, as in the scalar path).
inline void sumSpringForces(const Model& model, const double* spring_force, Vec3Array& force, int i) {
  alignas(32) static const double kSign[2][4] = {{0.0, 0.0, 0.0, 0.0}, {-0.0, -0.0, -0.0, -0.0}};
  __m256d f = _mm256_setr_pd(force.x[i], force.y[i], force.z[i], 0.0);
  const std::int32_t* incidence = model.spring_incidence.data();
  for (int e = model.spring_incidence_fused_end[i]; e < model.spring_incidence_begin[i + 1]; ++e) {
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

// (The scalar path reads the per-spring arrays, not the block records.)
inline void fusedBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                        int /*first_block*/) {
  for (int s = begin; s < end; s += Model::kSpringFusedBlock) fusedBlockScalar(sp, x, f, s);
}

inline void edgeBlocks(const SpringArrays& sp, const PhasePoint& x, Vec3Array& f, int begin, int end,
                       int /*first_block*/) {
  for (int s = begin; s < end; ++s) {
    springForce(sp, x, s);
    const double* t = sp.out + 4 * static_cast<std::size_t>(s);
    const int a = sp.a[s];
    f.x[a] += t[0];
    f.y[a] += t[1];
    f.z[a] += t[2];
  }
}

inline void sumSpringForces(const Model& model, const double* spring_force, Vec3Array& force, int i) {
  double fx = force.x[i], fy = force.y[i], fz = force.z[i];
  for (int e = model.spring_incidence_fused_end[i]; e < model.spring_incidence_begin[i + 1]; ++e) {
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
// entry decides; i is on Model::spring_summed_particles, so it has one).
inline bool springsFrom(const Model& model, int i, int first_spring) {
  return (model.spring_incidence[model.spring_incidence_fused_end[i]] >> 1) >= first_spring;
}

// The whole force pass (addSpringForces in forces.h), for this ISA.
inline void springKernel(const Model& model, const PhasePoint& x, double* spring_force, Vec3Array& force) {
  const SpringArrays sp{model.spring_a.data(),
                        model.spring_b.data(),
                        model.spring_stiffness.data(),
                        model.spring_damping.data(),
                        model.spring_rest_length.data(),
                        model.spring_blocks.data(),
                        spring_force,
                        model.num_springs - 1,
                        static_cast<int>(model.spring_blocks.size()) - 1};
  // Each thread takes a contiguous share of the tiles and goes through them
  // in order: a tile's springs (pass 1), then those of its particles that
  // have slots to sum (pass 2, Model::spring_summed_particles), whose
  // springs all have their lower end in this tile or an earlier one, so
  // the forces pass 2 reads were just written and are still in cache. A
  // particle with a spring from an earlier thread's share waits for the
  // barrier. The shares depend on the thread count; what a particle sums,
  // and in which order, does not.
  const std::int32_t* summed = model.spring_summed_particles.data();
  const int num_tiles = static_cast<int>(model.spring_tile_begin.size()) - 1;
  if (num_tiles < 0) return;  // a Model not made by the builder has no layout (nor springs in it)
  const int threads = omp_get_num_threads();
  const int me = omp_get_thread_num();
  const int first_tile = static_cast<int>(static_cast<long>(num_tiles) * me / threads);
  const int end_tile = static_cast<int>(static_cast<long>(num_tiles) * (me + 1) / threads);
  const int first_spring = model.spring_tile_begin[first_tile];
  for (int t = first_tile; t < end_tile; ++t) {
    const int fused_end = model.spring_tile_fused_end[t];
    const int edge_end = model.spring_tile_edge_end[t];
    const int first_edge_block =
        model.spring_tile_first_block[t] + (fused_end - model.spring_tile_begin[t]) / Model::kSpringFusedBlock;
    fusedBlocks(sp, x, force, model.spring_tile_begin[t], fused_end, model.spring_tile_first_block[t]);
    edgeBlocks(sp, x, force, fused_end, edge_end, first_edge_block);
    springForces(sp, x, edge_end, model.spring_tile_begin[t + 1]);
    for (int k = model.spring_tile_first_summed[t]; k < model.spring_tile_first_summed[t + 1]; ++k) {
      const int i = summed[k];
      if (springsFrom(model, i, first_spring)) sumSpringForces(model, spring_force, force, i);
    }
  }
#pragma omp barrier
  if (me > 0) {
    for (int k = model.spring_tile_first_summed[first_tile]; k < model.spring_tile_first_summed[end_tile]; ++k) {
      const int i = summed[k];
      if (!springsFrom(model, i, first_spring)) sumSpringForces(model, spring_force, force, i);
    }
  }
  // The forces are complete before anything reads them.
#pragma omp barrier
}
