// Spring-network throughput: how many spring evaluations per second step()
// sustains, from networks that sit in L1/L2 to ones whose spring arrays only
// fit in main memory, for each integrator and 1 or 2 threads. A STREAM-triad
// loop gives the memory-bandwidth yardstick for the large networks.
//
// Every benchmark builds its model before timing, warms up (page faults,
// caches, the OpenMP thread pool, Verlet's cached acceleration) and then times
// a fixed number of steps, chosen so that every run does about the same number
// of spring evaluations: a fixed count makes Google Benchmark call each body
// once, so each model is built once, and the suite stays short at any size.
//
//   step/<springs>/<integrator>/threads:<t>   suitsim::step
//   forces/<springs>/<arithmetic>/threads:<t> computeAcceleration alone (one
//                                             force evaluation, no integrator),
//                                             the springs in separate or fused
//                                             arithmetic (Model::spring_arithmetic)
//   plain/<springs>/threads:<t>               the same accelerations from a plain
//                                             loop (plain_springs.h)
//   triad/threads:<t>                         a[i] = b[i] + s * c[i]
//   peak/sqrt_div, peak/fma, peak/mul_add     the arithmetic yardsticks, one core
//                                             (CPUs with AVX-512)

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define SUITSIM_BENCH_PEAKS 1
#else
#define SUITSIM_BENCH_PEAKS 0
#endif

#include "plain_springs.h"
#include "suitsim/builder.h"
#include "suitsim/model.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace {

using suitsim::Integrator;

// About 1e3 springs (L1), 1e4 (L2), 1e5 (L3) and 1e6 (spring arrays of 32 MB,
// beyond the 32 MB L3 together with the particles).
constexpr int kSpringTargets[] = {1000, 10000, 100000, 1000000};
constexpr Integrator kIntegrators[] = {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet,
                                       Integrator::kRk4};
constexpr int kThreadCounts[] = {1, 2};

// Spring evaluations per timed run: about 0.1 to 1 s on this machine's cores.
constexpr double kSpringEvalsPerRun = 1e8;

// Springs in an n x n cloth: structural 2n(n-1), shear 2(n-1)^2, bending 2n(n-2).
long clothSprings(long n) { return 2 * n * (n - 1) + 2 * (n - 1) * (n - 1) + 2 * n * (n - 2); }

// The cloth side whose spring count is closest to `target`.
int clothSideFor(long target) {
  int best = 2;
  for (int n = 3; clothSprings(n - 1) <= target; ++n) {
    if (std::labs(clothSprings(n) - target) < std::labs(clothSprings(best) - target)) best = n;
  }
  return best;
}

// A square cloth pinned at its top corners, sagging under gravity, no ground:
// the step is springs plus per-particle integration, nothing else.
suitsim::Model makeCloth(long target_springs) {
  const int side = clothSideFor(target_springs);
  suitsim::ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  suitsim::ClothSpec cloth;
  cloth.name = "cloth";
  cloth.u = {1.0, 0.0, 0.0};
  cloth.v = {0.0, 0.0, 1.0};
  cloth.nu = side;
  cloth.nv = side;
  cloth.spacing = 0.01;
  cloth.mass = 1e-3 * side * side;  // 1 g per particle whatever the size
  cloth.stiffness = 100.0;
  cloth.bend_stiffness = 10.0;
  cloth.damping = 0.01;
  cloth.pin = suitsim::ClothSpec::Pin::kTopCorners;
  cloth.contact = false;
  builder.addCloth(cloth);
  return builder.build();
}

// Force evaluations per step: RK4 has four stages; Verlet reuses the closing
// evaluation of the previous step, so it needs one, like Euler.
int forceEvaluationsPerStep(Integrator integrator) { return integrator == Integrator::kRk4 ? 4 : 1; }

// Steps per timed run, so that every run does about kSpringEvalsPerRun evaluations.
benchmark::IterationCount stepsFor(long springs, int evals_per_step) {
  const double steps = kSpringEvalsPerRun / (static_cast<double>(springs) * evals_per_step);
  return std::max<benchmark::IterationCount>(10, static_cast<benchmark::IterationCount>(steps));
}

std::string sizeLabel(long target) { return "1e" + std::to_string(static_cast<int>(std::lround(std::log10(target)))); }

void setSpringCounters(benchmark::State& bench, const suitsim::Model& model, int evals_per_step) {
  const double steps = static_cast<double>(bench.iterations());
  bench.counters["springs"] = model.num_springs;
  bench.counters["particles"] = model.num_particles;
  bench.counters["springs_per_s"] =
      benchmark::Counter(steps * evals_per_step * model.num_springs, benchmark::Counter::kIsRate);
  bench.counters["particle_steps_per_s"] =
      benchmark::Counter(steps * model.num_particles, benchmark::Counter::kIsRate);
}

void benchStep(benchmark::State& bench, long target_springs, Integrator integrator, int threads) {
  const suitsim::Model model = makeCloth(target_springs);
  suitsim::State state = suitsim::makeState(model);
  suitsim::Workspace ws(model, threads);
  // Stable for every integrator here: omega dt = 1 is below Euler's limit of 2.
  const double dt = 1.0 / suitsim::maxNaturalFrequency(model);
  const int evals = forceEvaluationsPerStep(integrator);
  const benchmark::IterationCount warm_up = std::max<benchmark::IterationCount>(3, bench.max_iterations / 10);
  for (benchmark::IterationCount i = 0; i < warm_up; ++i) suitsim::step(model, state, ws, integrator, dt);

  for (auto _ : bench) {
    suitsim::step(model, state, ws, integrator, dt);
    benchmark::ClobberMemory();
  }
  if (!suitsim::stateIsFinite(state)) bench.SkipWithError("state diverged");
  setSpringCounters(bench, model, evals);
}

void benchForces(benchmark::State& bench, long target_springs, suitsim::SpringArithmetic arithmetic, int threads) {
  suitsim::Model model = makeCloth(target_springs);
  model.spring_arithmetic = arithmetic;
  const suitsim::State state = suitsim::makeState(model);
  suitsim::Workspace ws(model, threads);
  suitsim::Vec3Array acceleration;
  acceleration.assign(model.num_particles, 0.0);
  const suitsim::PhasePoint x{state.position.x.data(), state.position.y.data(), state.position.z.data(),
                              state.velocity.x.data(), state.velocity.y.data(), state.velocity.z.data()};
  for (int i = 0; i < 3; ++i) suitsim::computeAcceleration(model, state, x, ws, acceleration);

  for (auto _ : bench) {
    suitsim::computeAcceleration(model, state, x, ws, acceleration);
    benchmark::ClobberMemory();
  }
  setSpringCounters(bench, model, 1);
}

// The plain loop on the same cloth, the same accelerations (to rounding).
void benchPlain(benchmark::State& bench, long target_springs, int threads) {
  const suitsim::Model model = makeCloth(target_springs);
  const suitsim::State state = suitsim::makeState(model);
  suitsim::bench::PlainScratch scratch(model, threads);
  suitsim::Vec3Array acceleration;
  acceleration.assign(model.num_particles, 0.0);
  for (int i = 0; i < 3; ++i) suitsim::bench::plainAcceleration(model, state, scratch, acceleration);

  for (auto _ : bench) {
    suitsim::bench::plainAcceleration(model, state, scratch, acceleration);
    benchmark::ClobberMemory();
  }
  setSpringCounters(bench, model, 1);
}

// STREAM triad over three arrays of 128 MiB each, 12x the L3, so that every
// pass comes from DRAM. Bytes counted the STREAM way: two reads and one write
// per element (the write-allocate read of `a` is not counted).
void benchTriad(benchmark::State& bench, int threads) {
  constexpr std::int64_t n = std::int64_t{1} << 24;
  std::vector<double> a(n), b(n), c(n);
  const double s = 3.0;
  // First touch with the timed loop's schedule, so pages sit where they are used.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  double* pa = a.data();
  const double* pb = b.data();
  const double* pc = c.data();
  for (auto _ : bench) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) pa[i] = pb[i] + s * pc[i];
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(pa[n / 2]);
  bench.counters["bytes_per_s"] = benchmark::Counter(
      static_cast<double>(bench.iterations()) * n * 3 * sizeof(double), benchmark::Counter::kIsRate);
}

#if SUITSIM_BENCH_PEAKS
// The arithmetic yardsticks, one core: how many 8-lane square roots and
// divisions (one of each per spring), fused multiply-adds (what the fused
// kernel's bound counts), or separate multiplies and adds (the separate
// kernel's: it fuses none, to stay bit for bit with its scalar reference)
// a core retires per second, each from 12 independent chains so that
// throughput, not latency, limits them. Compiled for x86-64-v4 in any
// build and registered only where the CPU has it.
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
constexpr int kChains = 12;
constexpr std::int64_t kPeakRounds = 1 << 22;

// Runs `op` on each chain kPeakRounds times per iteration; returns the
// 8-lane operations done.
template <class Op>
double runChains(benchmark::State& bench, Op op) {
  __m512d v[kChains];
  for (int i = 0; i < kChains; ++i) v[i] = _mm512_set1_pd(1.5 + 1e-3 * i);
  for (auto _ : bench) {
    for (std::int64_t k = 0; k < kPeakRounds; ++k) {
      for (int i = 0; i < kChains; ++i) {
        v[i] = op(v[i], i);
        asm volatile("" : "+v"(v[i]));  // kept in a register, never folded
      }
    }
  }
  benchmark::DoNotOptimize(_mm512_cvtsd_f64(v[0]));
  return static_cast<double>(bench.iterations()) * kPeakRounds * kChains;
}

void benchSqrtDiv(benchmark::State& bench) {
  const __m512d one = _mm512_set1_pd(1.0), c = _mm512_set1_pd(2.25);
  const double ops =
      runChains(bench, [&](__m512d v, int) { return _mm512_div_pd(c, _mm512_sqrt_pd(_mm512_add_pd(v, one))); });
  // One square root and one division per lane: a spring's worth.
  bench.counters["springs_per_s"] = benchmark::Counter(ops * 8, benchmark::Counter::kIsRate);
}

void benchFma(benchmark::State& bench) {
  const __m512d m = _mm512_set1_pd(0.999999), a = _mm512_set1_pd(1e-7);
  const double ops = runChains(bench, [&](__m512d v, int) { return _mm512_fmadd_pd(v, m, a); });
  bench.counters["flops_per_s"] = benchmark::Counter(ops * 8 * 2, benchmark::Counter::kIsRate);
}

void benchMulAdd(benchmark::State& bench) {
  const __m512d m = _mm512_set1_pd(0.999999), a = _mm512_set1_pd(1e-7);
  const double ops =
      runChains(bench, [&](__m512d v, int i) { return i % 2 ? _mm512_mul_pd(v, m) : _mm512_add_pd(v, a); });
  bench.counters["flops_per_s"] = benchmark::Counter(ops * 8, benchmark::Counter::kIsRate);
}
#pragma GCC pop_options
#endif

void registerAll() {
  for (long target : kSpringTargets) {
    for (Integrator integrator : kIntegrators) {
      for (int threads : kThreadCounts) {
        const std::string name = "step/" + sizeLabel(target) + "/" + suitsim::integratorName(integrator) +
                                 "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), benchStep, target, integrator, threads)
            ->Iterations(stepsFor(target, forceEvaluationsPerStep(integrator)))
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
    }
  }
  for (long target : kSpringTargets) {
    for (suitsim::SpringArithmetic arithmetic : {suitsim::SpringArithmetic::kSeparate, suitsim::SpringArithmetic::kFused}) {
      for (int threads : kThreadCounts) {
        const std::string name = "forces/" + sizeLabel(target) + "/" + suitsim::springArithmeticName(arithmetic) +
                                 "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), benchForces, target, arithmetic, threads)
            ->Iterations(stepsFor(target, 1))
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
    }
    for (int threads : kThreadCounts) {
      const std::string name = "plain/" + sizeLabel(target) + "/threads:" + std::to_string(threads);
      benchmark::RegisterBenchmark(name.c_str(), benchPlain, target, threads)
          ->Iterations(stepsFor(target, 1))
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
  for (int threads : kThreadCounts) {
    const std::string name = "triad/threads:" + std::to_string(threads);
    benchmark::RegisterBenchmark(name.c_str(), benchTriad, threads)
        ->Iterations(20)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
#if SUITSIM_BENCH_PEAKS
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("x86-64-v4")) return;
  benchmark::RegisterBenchmark("peak/sqrt_div", benchSqrtDiv)->Iterations(10)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("peak/fma", benchFma)->Iterations(10)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("peak/mul_add", benchMulAdd)->Iterations(10)->Unit(benchmark::kMillisecond);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  registerAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
