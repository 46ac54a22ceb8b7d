// The suit as designed and the robot's ground contacts: what a scene declares
// about the device and the feet, read by the engine (which compiles them into
// particles and wires) and by the evaluator (which sees the design, never the
// truth drawn from it).
#pragma once

#include <string>
#include <vector>

#include "suitsim/core/vec3.h"

namespace suitsim {

/// A point of a link that touches the ground (a sole corner): it becomes a
/// contact particle of the link's body.
struct ContactPoint {
  std::string link;
  Vec3 position{0.0, 0.0, 0.0};  ///< in the link frame (m)
};

/// A suit band on the robot, A(21)-(25): via points given as (link, point in
/// the link frame), in order along the wire.
struct RobotBand {
  std::string name;
  std::vector<std::string> links;  ///< link of each via point, (num_via >= 2)
  std::vector<Vec3> points;        ///< via point in its link's frame (m), (num_via)
  double stiffness = 0.0;          ///< k (N/m)
  double natural_length = -1.0;    ///< l0 (m); negative: the length in the initial pose (just taut)
  double damping = 0.0;            ///< c (N s/m) while taut
  /// Stiffness group: bands made alike that share one k (the paper's
  /// {type-A right, type-A left}, A §5.4). Part of the suit as designed, so
  /// the evaluator may read it. Empty: a group of its own, named as the band
  /// (the scene reader fills it in so, when a <band> gives no group). Last,
  /// so that positional initialisers of the fields above stay valid.
  std::string group;
  /// The strap at each end anchor (N/m; 0: rigid): in series with the band,
  /// so the band as worn pulls with wornStiffness(), not k. Attachments on
  /// soft covers or clothing give way; the suit's designer knows k alone.
  double attachment_stiffness = 0.0;
  /// Hysteresis of the band's material, a standard linear solid (docs/
  /// engine.md#band-hysteresis): a Maxwell arm k_m (N/m; 0: none) relaxing
  /// with time constant tau (s) in parallel with k. k stays the stiffness
  /// of a stretch held long; a quick one meets k + k_m.
  double relaxing_stiffness = 0.0;
  double relaxation_time = 0.0;
  /// Capstan friction mu (0: none) between the band and the body where it
  /// turns at an interior via point (docs/engine.md#capstan-friction): the
  /// tensions on the two sides may differ by up to exp(mu theta).
  double capstan_friction = 0.0;
};

/// The band as worn, k and its two end straps k_a in series:
/// 1 / k_w = 1 / k + 2 / k_a (k itself without straps).
inline double wornStiffness(const RobotBand& band) {
  if (!(band.attachment_stiffness > 0.0)) return band.stiffness;
  return 1.0 / (1.0 / band.stiffness + 2.0 / band.attachment_stiffness);
}

/// The band's damping as worn: c (k_s / (k + k_s))^2 with the straps'
/// series stiffness k_s = k_a / 2, the series combination's loss to first
/// order in the rate (c w << k).
inline double wornDamping(const RobotBand& band) {
  if (!(band.attachment_stiffness > 0.0)) return band.damping;
  const double ks = 0.5 * band.attachment_stiffness;
  const double r = ks / (band.stiffness + ks);
  return band.damping * r * r;
}

/// The Maxwell arm as worn. The band (k with the arm k_m, tau) in series
/// with its straps k_s = k_a / 2 is again a standard linear solid: held
/// long it pulls with wornStiffness(); at once with the series combination
/// of k + k_m and k_s; and at a held length its dashpot relaxes with
/// tau (k_s + k + k_m) / (k_s + k). These give the worn arm's k_m and tau.
inline double wornRelaxingStiffness(const RobotBand& band) {
  if (!(band.attachment_stiffness > 0.0) || !(band.relaxing_stiffness > 0.0)) return band.relaxing_stiffness;
  const double ks = 0.5 * band.attachment_stiffness;
  const double k0 = band.stiffness + band.relaxing_stiffness;
  return 1.0 / (1.0 / k0 + 1.0 / ks) - wornStiffness(band);
}
inline double wornRelaxationTime(const RobotBand& band) {
  if (!(band.attachment_stiffness > 0.0) || !(band.relaxing_stiffness > 0.0)) return band.relaxation_time;
  const double ks = 0.5 * band.attachment_stiffness;
  return band.relaxation_time * (ks + band.stiffness + band.relaxing_stiffness) / (ks + band.stiffness);
}

}  // namespace suitsim
