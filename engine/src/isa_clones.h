// Runtime dispatch of the step's hot functions to the CPU's vector width.
//
// The default build targets the x86-64 baseline (SSE2), so that one binary
// runs on every node of a cluster (SUITSIM_NATIVE is off). The hinge solve
// and the rigid-body pass work on 8-double rows (hinge_math.h's Row), one
// AVX-512 register, two AVX2 ones, four SSE2 ones: on a baseline build they
// ran about 1.5 times slower than on a native one (docs/benchmarks.md).
// SUITSIM_HOT asks GCC for clones of a function for x86-64-v4 (AVX-512) and
// x86-64-v3 (AVX2), chosen once at load time by the CPU (an ifunc), beside
// the baseline one. The functions they inline (geometry, the block kernels)
// are compiled into each clone.
//
// Results do not depend on the clone: the build's -ffp-contract=off keeps
// every multiply and add apart (no fused multiply-add where the baseline
// has none), and a vector lane's +, -, *, / and sqrt round as the scalar
// ones do; the compiler may not reorder a sum without -ffast-math. So a
// run is bit for bit the same on any CPU (tests/engine/determinism_test.cpp
// compares a run with the baseline's).
#pragma once

//
// SUITSIM_ISA_DISPATCH is 1 where the build makes such clones. Code
// written with intrinsics cannot be cloned so (its vector path is chosen by
// the preprocessor): the spring kernel (springs_kernel.h) is compiled once
// per instruction set under `#pragma GCC target` instead and chosen by
// __builtin_cpu_supports, the same test (springs.cpp). SUITSIM_NO_CLONES
// (the baseline build of tests/engine) turns both off.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__AVX2__) && \
    !defined(SUITSIM_NO_CLONES)
#define SUITSIM_ISA_DISPATCH 1
#define SUITSIM_HOT __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SUITSIM_ISA_DISPATCH 0
#define SUITSIM_HOT
#endif

// A cloned function with everything it calls inlined into each clone (GCC's
// flatten): its helpers then run with the clone's vector width too.
#define SUITSIM_HOT_FLAT SUITSIM_HOT __attribute__((flatten))
