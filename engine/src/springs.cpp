// Spring forces, T(6)-(10).
//
// Design note. Every spring's force is T u on its `a` end and -T u on its
// `b` end. Each particle sums its springs' terms in the order of its
// incidence list (KernelLayout::spring_incidence), which the Model fixes, so the
// sums are the same for any thread count. Two ways in:
//
// Fused blocks. Wherever a network is a lattice, its springs come in runs:
// eight springs whose `a` ends are consecutive particles, and so are their
// `b` ends. The builder takes such runs lying wholly in one tile out as
// blocks at the front of the tile (layoutSprings). A block loads each
// coordinate of its ends with one vector load, evaluates the eight springs
// in the lanes, and adds +T u and -T u straight into the particles' forces
// with vector read-modify-writes: no slots, no second pass. The particles'
// lists start with these terms, block by block, `a` ends before `b` ends.
// A block whose offset b - a is below 8 (neighbours along a row) overlaps
// its own `a` ends and the next block's: it keeps those terms in registers
// and carries them on (fusedBlocks). A block reads a record of 48 bytes
// (KernelLayout::spring_blocks, SpringBlock): its `a` end and offset, and where
// its eight springs share k and c, those once and the rest lengths as
// 16-bit steps from the first in the bits of a double (rebuilt exactly by
// an integer add); else the per-spring arrays, 256 bytes.
//
// Edge blocks. A lattice's runs from a tile into later tiles follow the
// tile's fused blocks: they add +T u straight into their `a` ends (the
// tile's) and write T u to slots for their `b` ends (edgeBlocks).
//
// Everything else (irregular networks, runs cut short) goes in two
// passes. Pass 1 evaluates each spring on its own and writes T u to a slot
// of its own; pass 2 adds a particle's slots, in the rest of its list,
// ascending, for the particles that have any (KernelLayout::spring_summed_particles:
// 12 % of a large cloth's; visiting every particle instead was 18 % slower
// at 1e4 springs, where nothing else differs, docs/benchmarks.md). Blocks of four gather their ends' coordinates with scalar
// loads, or load runs as vectors.
//
// The builder stores springs by tile of 8192 particles (of the spring's
// lower index), then offset b - a, then a. The kernel goes tile by tile:
// a tile's fused blocks, which touch only the tile's particles, its edge
// blocks, which write only the tile's particles and slots, its other
// springs, then its particles' pass 2, which reads slots just written.
// Threads take contiguous shares of the tiles; a particle with a slot from
// an earlier share is summed after a barrier, the only one besides the
// closing one.
//
// Measured (docs/benchmarks.md; AMD Zen 5, one core, the other core busy,
// force evaluations alone, before and after alternating in one run): the
// fused blocks give 1.45-1.9x the springs per second at 1e3 springs,
// 2.0-2.7x at 1e4, 1.6-2.5x at 1e5 and 1.05-1.3x at 1e6 of the two-pass
// scheme alone, whose pass 2 cost about as much as pass 1. Of that: the carry
// for offsets below 8 is worth 4-15 % in cache (plain read-modify-writes
// of both ends load lines a store in flight covers in part), nothing at
// 1e6; 8 lanes against two halves of 4 about 14 % at 1e4, nothing
// measurable at 1e3 and 1e5, 10-12 % slower at 1e6 (kept for the sizes in
// cache); tiles of 4096 rather than 1024 particles 17 % at 1e5 and 12 % at
// 1e6 (fewer runs cross a tile edge; 2048 was slower), and 8192 rather
// than 4096 another 8 % at 1e6 one thread (377 -> 408 M/s, medians of 7
// alternating) and 6 % two threads, the same at 1e5 on one and on two
// threads (whose three tiles split 1 and 2, but the threads' other
// passes split by particle), while 16384 lost 8 % at 1e6 and 40 % at 1e5
// on two threads. At 1e6
// the kernel waits on the spring parameters coming from DRAM, not on
// bandwidth (prefetching 512 springs ahead rather than 128 changed
// nothing). Tried and dropped: 1/length by _mm512_rcp14_pd and the length
// as q * _mm512_rsqrt14_pd(q), each refined by two Newton steps (free of
// sqrt and division, but 2-3 % slower in cache, 10 % faster at 1e6 in one
// run: the square root and division are about a fifth of the kernel at the
// 2.4e9 springs/s a core retires them, and the refinement adds a dozen
// operations; it would also have cost the bit identity below). From the
// schemes before: an edge colouring with a scatter per colour (60
// instructions a spring, a barrier per colour), vgatherdpd (slower than
// pairwise scalar loads), writing -T u beside T u (twice the writes),
// springs stored by particle (20 % slower), the integrators' kick and
// drift in one pass (within the noise).
//
// Measured for issue 17, goal 3 (docs/benchmarks.md, the other core busy,
// best of 5, M springs/s of one force evaluation, one thread): the
// portable build, which ran the scalar path, 124-145 before and 354-442
// after choosing the kernel per CPU; at 1e6 springs, the per-spring
// arrays 214, the block records 302-328, with edge blocks 286-348 (ahead in
// two rounds of three), native 254 -> 377 (two threads 438 -> 713). The
// bytes a spring moves at 1e6 fell from about 58 (32 of spring data, the
// two-pass springs' slots, the particles' share) to about 30, which puts
// the bandwidth bound (1.06e9 springs/s a core) above the compute bound
// (0.70e9, the 32 multiplies and adds without fusing): the kernel is at
// 51-77 % of the compute bound at every size, one core. Not done:
// prefetching the `b` ends' particles (a tile's stay in L2 across its
// offsets), rest lengths in 8-bit steps (a cloth's differ by up to a
// thousand doubles).
//
// Instruction sets. The kernel (springs_kernel.h) is written once with
// intrinsics and compiled per instruction set: in the portable build
// (SUITSIM_NATIVE off, the x86-64 baseline) three times, for AVX-512
// (x86-64-v4: 8 lanes), AVX2 (x86-64-v3: 4 lanes) and the baseline
// (scalar), each under its `#pragma GCC target`, and the first call takes
// the one for this CPU, as GCC's clones of the hinge code do
// (isa_clones.h); in a native build (or with SUITSIM_NO_CLONES) once, the
// path the compiler's target allows.
//
// Bit-identity. The SIMD paths do exactly the scalar reference's IEEE
// operations in the same order (the vector types' operators are those
// operations); sqrt and division are correctly rounded in both, and
// x + (-t) is x - t exactly. The build's -ffp-contract=off keeps the
// compiler from fusing a multiply-add in one path and not in the other.
//
// Arithmetic. Each kernel exists twice (Model::spring_arithmetic): with
// separate multiplies and adds, as above, and with the fused multiply-adds
// springs_kernel.h lists (springTerm), written as std::fma and
// _mm*_fmadd_pd / _fnmadd_pd in the same places in every path, so that the
// fused kernels of all widths give the same bits as each other (a fused
// multiply-add is one correctly rounded operation in a lane as in scalar
// code), though not as the separate ones. The fused law takes 23
// arithmetic instructions a spring where the separate one takes 32: the
// force's last multiply goes into its sum (fma(m, d, f) with m = T / l),
// and the squared length and the stretch rate are dot products of fused
// steps.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include <omp.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "forces.h"
#include "isa_clones.h"
#include "kernel_layout.h"

namespace suitsim::detail {

namespace {

#if SUITSIM_ISA_DISPATCH

// The portable build: the kernel for AVX-512 (x86-64-v4), for AVX2
// (x86-64-v3) and for the baseline, each with separate and with fused
// arithmetic, the ones for this CPU chosen at the first call by the test
// GCC's clones make (isa_clones.h).
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
namespace v4 {
#define SUITSIM_SPRING_ISA 4
#include "springs_arithmetics.h"
#undef SUITSIM_SPRING_ISA
}  // namespace v4
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
namespace v3 {
#define SUITSIM_SPRING_ISA 3
#include "springs_arithmetics.h"
#undef SUITSIM_SPRING_ISA
}  // namespace v3
#pragma GCC pop_options

namespace baseline {
#define SUITSIM_SPRING_ISA 0
#include "springs_arithmetics.h"
#undef SUITSIM_SPRING_ISA
}  // namespace baseline

using SpringKernel = void (*)(const Model&, const PhasePoint&, double*, Vec3Array&);

struct SpringKernels {
  SpringKernel separate, fused;
};

// Every x86-64-v3 CPU has FMA. Without it (the baseline) the fused kernel
// is the scalar one, whose std::fma the C library computes exactly
// rounded, in hardware where the CPU has FMA and in software (far slower)
// where not: the same bits either way.
SpringKernels springKernelsForThisCpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return {v4::separate::springKernel, v4::fused::springKernel};
  if (__builtin_cpu_supports("x86-64-v3")) return {v3::separate::springKernel, v3::fused::springKernel};
  return {baseline::separate::springKernel, baseline::fused::springKernel};
}

#else

// A native build (or SUITSIM_NO_CLONES, or another compiler): the kernels
// the compiler's target allows (the fused one's vector paths need FMA).
#if defined(__AVX512F__) && defined(__FMA__)
#define SUITSIM_ONLY_SPRING_ISA 4
#elif defined(__AVX2__) && defined(__FMA__)
#define SUITSIM_ONLY_SPRING_ISA 3
#else
#define SUITSIM_ONLY_SPRING_ISA 0
#endif
namespace only {
#define SUITSIM_SPRING_ISA SUITSIM_ONLY_SPRING_ISA
#include "springs_arithmetics.h"
#undef SUITSIM_SPRING_ISA
}  // namespace only

#endif  // SUITSIM_ISA_DISPATCH

}  // namespace

void addSpringForces(const Model& model, const PhasePoint& x, double* spring_force, Vec3Array& force) {
  const bool fused = model.spring_arithmetic == SpringArithmetic::kFused;
#if SUITSIM_ISA_DISPATCH
  // Chosen once (a thread-safe static); every thread of the team calls it.
  static const SpringKernels kernels = springKernelsForThisCpu();
  (fused ? kernels.fused : kernels.separate)(model, x, spring_force, force);
#else
  if (fused) {
    only::fused::springKernel(model, x, spring_force, force);
  } else {
    only::separate::springKernel(model, x, spring_force, force);
  }
#endif
}

bool addSpringForcesWithIsa(int isa, const Model& model, const PhasePoint& x, double* spring_force,
                            Vec3Array& force) {
  const bool fused = model.spring_arithmetic == SpringArithmetic::kFused;
#if SUITSIM_ISA_DISPATCH
  __builtin_cpu_init();
  if (isa == 4 && __builtin_cpu_supports("x86-64-v4")) {
    (fused ? v4::fused::springKernel : v4::separate::springKernel)(model, x, spring_force, force);
  } else if (isa == 3 && __builtin_cpu_supports("x86-64-v3")) {
    (fused ? v3::fused::springKernel : v3::separate::springKernel)(model, x, spring_force, force);
  } else if (isa == 0) {
    (fused ? baseline::fused::springKernel : baseline::separate::springKernel)(model, x, spring_force, force);
  } else {
    return false;
  }
  return true;
#else
  if (isa != SUITSIM_ONLY_SPRING_ISA) return false;
  (fused ? only::fused::springKernel : only::separate::springKernel)(model, x, spring_force, force);
  return true;
#endif
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
