// Seeded streams draw the same numbers with every standard library: the
// first draws of a named stream are pinned to literals (a change to the
// hash, the seeding or a transform fails here, not as a shifted figure in
// a report), and the transforms are checked against their definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "suitsim/core/random.h"

namespace suitsim {
namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(Random, NamedStreamsFirstDrawsArePinned) {
  // The hash's start value, and one step of FNV-1a from it.
  EXPECT_EQ(nameHash64(""), 1469598103934665603ull);
  EXPECT_EQ(nameHash64("a"), (1469598103934665603ull ^ 0x61ull) * 1099511628211ull);
  EXPECT_EQ(nameHash64("a"), 4953267810257967366ull);
  EXPECT_EQ(streamSeed(42, "noise.test"), 7516807615538014421ull);
  RandomStream r(streamSeed(42, "noise.test"));
  const double u0 = r.uniform();
  const double n0 = r.normal();
  const double n1 = r.normal();
  const double n2 = r.normal();
  EXPECT_TRUE(sameBits(u0, 0.47992493972062716)) << u0;
  EXPECT_TRUE(sameBits(n0, -0.22774802604210717)) << n0;
  EXPECT_TRUE(sameBits(n1, -1.8672017964062946)) << n1;
  EXPECT_TRUE(sameBits(n2, -0.021967724788069739)) << n2;
}

TEST(Random, TheEnginesAreTheStandardsSpecifiedOnes) {
  // [rand.predef]: the 10000th value of a default-constructed engine.
  std::mt19937_64 e64;
  e64.discard(9999);
  EXPECT_EQ(e64(), 9981545732273789042ull);
  std::mt19937 e32;
  e32.discard(9999);
  EXPECT_EQ(e32(), 4123659995u);
}

TEST(Random, UniformIsTheDrawOver2To64KeptBelowOne) {
  std::mt19937_64 engine(5), copy(5);
  for (int k = 0; k < 1000; ++k) {
    const double expected = static_cast<double>(copy()) / 18446744073709551616.0;
    const double u = canonical(engine);
    EXPECT_TRUE(sameBits(u, expected < 1.0 ? expected : std::nextafter(1.0, 0.0)));
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
  std::mt19937 engine32(5), copy32(5);
  for (int k = 0; k < 1000; ++k) {
    const double low = copy32(), high = copy32();
    const double expected = (low + high * 4294967296.0) / 18446744073709551616.0;
    EXPECT_TRUE(sameBits(canonical(engine32), expected < 1.0 ? expected : std::nextafter(1.0, 0.0)));
  }
}

TEST(Random, NormalIsThePolarMethodWithItsSecondValueKept) {
  std::mt19937_64 copy(11);
  RandomStream r(11);
  for (int pair = 0; pair < 200; ++pair) {
    double u, v, s;
    do {
      u = 2.0 * canonical(copy) - 1.0;
      v = 2.0 * canonical(copy) - 1.0;
      s = u * u + v * v;
    } while (s > 1.0 || s == 0.0);
    const double m = std::sqrt(-2.0 * std::log(s) / s);
    EXPECT_TRUE(sameBits(r.normal(), v * m));
    EXPECT_TRUE(sameBits(r.normal(), u * m));
  }
  // Moments of many draws: mean 0, variance 1 (5 sigma bounds).
  RandomStream big(3);
  const int n = 200000;
  double sum = 0.0, sum2 = 0.0;
  for (int k = 0; k < n; ++k) {
    const double x = big.normal(2.0, 0.5);
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 2.0, 5.0 * 0.5 / std::sqrt(n));
  EXPECT_NEAR(var, 0.25, 5.0 * 0.25 * std::sqrt(2.0 / n));
}

TEST(Random, SeedSequencesAndNamesGiveUnrelatedStreams) {
  EXPECT_NE(streamSeed(1, "a"), streamSeed(1, "b"));
  EXPECT_NE(streamSeed(1, "a"), streamSeed(2, "a"));
  RandomStream a({std::uint64_t{1}, std::uint64_t{2}}), b({std::uint64_t{1}, std::uint64_t{3}});
  EXPECT_NE(a.next(), b.next());
}

}  // namespace
}  // namespace suitsim
