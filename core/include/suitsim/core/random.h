// Seeded random streams whose draws are specified here, not by the standard
// library, so that a scene gives the same truth and the same sensor noise
// with libstdc++ and libc++, on every node of a cluster.
//
// What the C++ standard pins down is used as it is: std::mt19937 and
// std::mt19937_64 produce specified sequences, and std::seed_seq's mixing is
// specified. What it leaves to the implementation is not used: std::hash
// (a name's seed is nameHash64 here) and the distributions (uniform and
// normal draws are the transforms below). The transforms are the ones
// libstdc++ applies, written out, so a GCC build draws what it drew before
// this file existed:
//   uniform in [0, 1): one 64-bit draw x as double(x) 2^-64 (two 32-bit
//     draws x1 + 2^32 x2 for the 32-bit engine), kept below 1;
//   normal: Marsaglia's polar method on u, v = 2 uniform - 1, rejecting
//     r^2 = u^2 + v^2 outside (0, 1]; the pair is (u m, v m) with
//     m = sqrt(-2 ln r^2 / r^2), v m returned first and u m kept for the
//     next draw. sqrt is exactly rounded; ln is the C library's.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string_view>

namespace suitsim {

/// A name's 64-bit hash, the same everywhere: FNV-1a's step (h ^= byte,
/// h *= 1099511628211) from the start value 1469598103934665603. That start
/// is FNV's published offset basis, 14695981039346656037, missing its last
/// digit, as the sensor streams first had it; it is kept so that every
/// seed, and so every figure measured since, stays as it was.
std::uint64_t nameHash64(std::string_view bytes);

/// One step of SplitMix64 (Steele, Lea and Flood 2014): advances `state` and
/// returns a well-mixed 64-bit value.
std::uint64_t splitMix64(std::uint64_t& state);

/// A generator seed for one named stream: the scene seed and the stream's
/// name mixed (nameHash64 of the name, then SplitMix64's finaliser), so streams
/// are independent of each other's order and of the standard library.
std::uint64_t streamSeed(std::uint64_t seed, std::string_view stream);

/// Uniform in [0, 1) from a Mersenne twister, as specified above.
double canonical(std::mt19937_64& engine);
double canonical(std::mt19937& engine);

/// A standard normal pair by the polar method: returns one value and stores
/// the other in *second.
template <class Engine>
double standardNormalPair(Engine& engine, double* second) {
  double u, v, r2;
  do {
    u = 2.0 * canonical(engine) - 1.0;
    v = 2.0 * canonical(engine) - 1.0;
    r2 = u * u + v * v;
  } while (r2 > 1.0 || r2 == 0.0);
  const double m = std::sqrt(-2.0 * std::log(r2) / r2);
  *second = u * m;
  return v * m;
}

/// A standard normal draw that keeps nothing: the pair's second value is
/// dropped (for a generator whose draws must not depend on earlier ones).
template <class Engine>
double freshStandardNormal(Engine& engine) {
  double unused;
  return standardNormalPair(engine, &unused);
}

/// A seeded stream of uniform and normal draws over a Mersenne twister.
template <class Engine>
class BasicRandomStream {
 public:
  explicit BasicRandomStream(typename Engine::result_type seed) : engine_(seed) {}
  /// Seeded by std::seed_seq (specified by the standard) over `words`.
  template <class Word>
  explicit BasicRandomStream(std::initializer_list<Word> words) {
    std::seed_seq seq(words);
    engine_.seed(seq);
  }

  /// The engine's next raw value.
  typename Engine::result_type next() { return engine_(); }
  /// Uniform in [0, 1).
  double uniform() { return canonical(engine_); }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return uniform() * (hi - lo) + lo; }
  /// N(0, 1); draws come in pairs, the second kept for the next call.
  double normal() {
    if (has_saved_) {
      has_saved_ = false;
      return saved_;
    }
    has_saved_ = true;
    return standardNormalPair(engine_, &saved_);
  }
  /// N(mean, stddev^2).
  double normal(double mean, double stddev) { return normal() * stddev + mean; }

 private:
  Engine engine_;
  double saved_ = 0.0;
  bool has_saved_ = false;
};

/// The stream every seeded draw of suitsim uses.
using RandomStream = BasicRandomStream<std::mt19937_64>;

}  // namespace suitsim
