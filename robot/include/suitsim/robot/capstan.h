// Capstan friction of a band along its via points: the stick-slip rule of
// the band's material (docs/engine.md#capstan-friction). The engine's bands
// use it at the end of every step (bands.cpp); the evaluator's capstan wire
// model replays it over a motion's samples (evaluator/src/band_capstan.h), so both
// hold the same law: a segment of a uniform band holding material s of
// natural length l0 pulls with T = k l0 (L - s) / s, and at an interior via
// point turning through theta the two tensions keep T_a / T_b within
// exp(+-mu theta) while the material sticks.
//
// Units: m, N, N/m. Plain arrays so the step loop allocates nothing.
#pragma once

#include <algorithm>
#include <limits>

namespace suitsim {

/// Tension (N) of a segment of length L (m) holding material s (m) of a band
/// with k l0 = kl0 (N) and common part C (N; the band's damper and Maxwell
/// arm, which add alike to every taut segment): a segment of a uniform band
/// is stiffer than the whole by l0 / s; slack (L <= s) it pulls nothing.
inline double capstanSegmentTension(double kl0, double length, double material, double common) {
  if (!(length > material)) return 0.0;
  if (!(material > 0.0)) return std::numeric_limits<double>::infinity();  // no material: unbounded
  return std::max(0.0, kl0 * (length - material) / material + common);
}

/// The material of a band of natural length l0 shared among its S segments
/// of lengths `length` (S) in proportion to them: every segment equally
/// strained, one tension (a band of zero length shares evenly). Writes
/// `material` (S).
void shareBandMaterial(double natural_length, const double* length, double* material, int num_segments);

/// Slides material into the tauter segment (length L_hi, material *s_hi)
/// from the slacker one (L_lo, *s_lo) across a via point of capstan ratio
/// r = exp(mu theta) >= 1 until T_hi <= r T_lo holds with the least material
/// moved, the pair's sum kept. Leaves both unchanged if no share of the
/// pair satisfies it.
void slideBandMaterial(double kl0, double common, double r, double length_hi, double* s_hi, double length_lo,
                       double* s_lo);

/// One band's stick and slip for the geometry it is at: segment j has length
/// `length[j]` and material `material[j]` (j < S); interior via point i (1
/// <= i < S, between segments i - 1 and i) has capstan ratio `ratio[i]`
/// (ratio[0] is not read). Sweeps the interior via points Gauss-Seidel,
/// alternating direction, until a sweep slips nowhere (at most 32 sweeps;
/// what is left carries over to the next call), then puts the rounding of
/// sum s_j = natural_length back into the longest share. Returns whether any
/// material moved.
bool slipBandMaterial(double kl0, double common, double natural_length, const double* length, const double* ratio,
                      double* material, int num_segments);

}  // namespace suitsim
