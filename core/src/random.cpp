#include "suitsim/core/random.h"

namespace suitsim {

std::uint64_t nameHash64(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;  // see random.h: not FNV's basis
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;  // FNV 64-bit prime
  }
  return h;
}

std::uint64_t splitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t streamSeed(std::uint64_t seed, std::string_view stream) {
  // SplitMix64's finaliser on the mix: nearby seeds and names give
  // unrelated generator states.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (nameHash64(stream) | 1ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {
// The largest double below 1: a draw that rounds up to 1 is kept in [0, 1).
constexpr double kBelowOne = 0x1.fffffffffffffp-1;
}  // namespace

double canonical(std::mt19937_64& engine) {
  // double(x) rounds the 64-bit draw to 53 bits (to nearest, ties to even);
  // 2^-64 scales exactly.
  const double u = static_cast<double>(engine()) * 0x1p-64;
  return u < 1.0 ? u : kBelowOne;
}

double canonical(std::mt19937& engine) {
  // Two 32-bit draws make one 64-bit number, the first the low word; the
  // sum rounds once, to 53 bits.
  const double low = static_cast<double>(engine());
  const double high = static_cast<double>(engine());
  const double u = (low + high * 0x1p32) * 0x1p-64;
  return u < 1.0 ? u : kBelowOne;
}

}  // namespace suitsim
