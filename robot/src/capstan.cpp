// Capstan friction's stick-slip rule (see suitsim/capstan.h and the capstan
// note in bands.cpp).
#include "suitsim/robot/capstan.h"

#include <cmath>

namespace suitsim {

namespace {

// Bisection's cap: some 60 halvings of [s, m] reach adjacent doubles.
constexpr int kCapstanBisections = 200;
// Gauss-Seidel sweeps per step along a band (see the capstan note).
constexpr int kCapstanSweeps = 32;

}  // namespace

void shareBandMaterial(double natural_length, const double* length, double* material, int num_segments) {
  double total = 0.0;
  for (int j = 0; j < num_segments; ++j) total += length[j];
  for (int j = 0; j < num_segments; ++j) {
    // Equal strain in every segment; a band of zero length shares evenly.
    material[j] = total > 0.0 ? natural_length * (length[j] / total) : natural_length / num_segments;
  }
}

void slideBandMaterial(double kl0, double common, double r, double length_hi, double* s_hi, double length_lo,
                   double* s_lo) {
  const double total = *s_hi + *s_lo;
  const auto holds = [&](double x) {
    return capstanSegmentTension(kl0, length_hi, x, common) <= r * capstanSegmentTension(kl0, length_lo, total - x, common);
  };
  double lo = *s_hi, hi = total;  // holds(lo) is false: the cone is left
  if (!holds(hi)) return;
  // Both segments taut and their clamps idle at the answer (the usual
  // case): T_hi(x) = r T_lo(total - x) is a quadratic in x, times
  // x (total - x): D x^2 + B x - kl0 L_hi total = 0, D = (1 - r)(C - kl0),
  // B = kl0 (L_hi + r L_lo) - D total. Its root in the bracket, stepped up
  // by a few ulps until the cone holds, is the answer; otherwise bisect.
  const double d = (1.0 - r) * (common - kl0), bq = kl0 * (length_hi + r * length_lo) - d * total;
  const double cq = -kl0 * length_hi * total, disc = bq * bq - 4.0 * d * cq;
  if (disc >= 0.0 && bq > 0.0) {
    const double q = -0.5 * (bq + std::sqrt(disc));  // no cancellation: bq > 0
    double x = cq / q;  // the root near the linear one (d -> 0: kl0 L_hi total / bq)
    const auto taut = [&](double s, double length) {
      return length > s && s > 0.0 && kl0 * (length - s) / s + common > 0.0;
    };
    for (int i = 0; i < 8 && x > lo && x < hi && !holds(x); ++i) x = std::nextafter(x, hi);
    if (x > lo && x < hi && holds(x) && taut(x, length_hi) && taut(total - x, length_lo)) {
      *s_hi = x;
      *s_lo = total - x;
      return;
    }
    // Rounding in the tensions (a small strain's L - s loses digits) can
    // put the cone a few hundred ulps above the root: bracket it there by
    // growing steps and bisect that bracket instead of [s_hi, total].
    if (x > lo && x < hi && taut(x, length_hi) && taut(total - x, length_lo)) {
      double step = 16.0 * (std::nextafter(x, hi) - x);
      for (int i = 0; i < 12; ++i, step *= 16.0) {
        const double b = x + step;
        if (!(b < hi)) break;
        if (holds(b)) {
          hi = b;
          break;
        }
        lo = b;
      }
    }
  }
  // The pair holds more material than its length: both end slack, the
  // tauter segment exactly at its length (the least share that holds, as
  // the bisection below would find it, T_hi = 0 <= r T_lo).
  if (total >= length_hi + length_lo && length_hi > lo && length_hi < hi && holds(length_hi)) {
    *s_hi = length_hi;
    *s_lo = total - length_hi;
    return;
  }
  for (int i = 0; i < kCapstanBisections; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi)) break;  // adjacent doubles: hi is the least share that holds
    (holds(mid) ? hi : lo) = mid;
  }
  // Only where the slacker segment has no length (two via points passing
  // through each other) could it be emptied: hold the material then, as
  // a segment with none would pull without bound.
  if (!(total - hi > 0.0)) return;
  *s_hi = hi;
  *s_lo = total - hi;
}


bool slipBandMaterial(double kl0, double common, double natural_length, const double* length, const double* ratio,
                      double* s, int num_segments) {
  const auto slipAt = [&](int i) {  // interior via point i: segments i - 1 and i
    const int a = i - 1, c = i;
    const double ta = capstanSegmentTension(kl0, length[a], s[a], common);
    const double tc = capstanSegmentTension(kl0, length[c], s[c], common);
    if (ta > ratio[i] * tc) {
      slideBandMaterial(kl0, common, ratio[i], length[a], &s[a], length[c], &s[c]);
      return true;
    }
    if (tc > ratio[i] * ta) {
      slideBandMaterial(kl0, common, ratio[i], length[c], &s[c], length[a], &s[a]);
      return true;
    }
    return false;  // stick
  };
  bool moved = false;
  for (int sweep = 0; sweep < kCapstanSweeps; ++sweep) {
    bool slipped = false;
    if (sweep % 2 == 0) {
      for (int i = 1; i < num_segments; ++i) slipped |= slipAt(i);
    } else {
      for (int i = num_segments - 1; i > 0; --i) slipped |= slipAt(i);
    }
    moved |= slipped;
    if (!slipped) break;
  }
  if (!moved) return false;
  // Each slide keeps its pair's sum up to rounding; put the rounding of the
  // whole band back into its longest share, so that sum s_j = l0 does not
  // wander over millions of slips.
  double sum = 0.0;
  int longest = 0;
  for (int j = 0; j < num_segments; ++j) {
    sum += s[j];
    if (s[j] > s[longest]) longest = j;
  }
  s[longest] += natural_length - sum;
  return true;
}

}  // namespace suitsim
