// A viscoelastic wire model for A(26): bands as standard linear solids.
//
// A(25) takes a band's tension as k (l - l0) whatever its history. Fabric
// and rubber bands relax instead: held stretched their pull falls, and over
// a cycle they pull harder going out than coming back. Fitted with A(25)
// alone, that loop's stiffer outward half raises k (by about the arm's
// storage share at the motion's frequency) and widens the residual.
//
// The model here is the standard linear solid the engine's truth can carry
// (docs/engine.md#band-hysteresis): with e = max(0, l - l0),
//     f = k e + k_m a,   a = e - q,   q' = (e - q) / tau,
// the arm's stretch a being e high-passed with time constant tau. For a
// given tau the supporting torque is linear in k and k_m, so per stiffness
// group two columns, -sum_i J_i e_i and -sum_i J_i a_i, are fitted by least
// squares; tau is searched on a logarithmic grid and refined by golden
// section on log tau. The natural lengths are those of the elastic fit
// (suit_fit.cpp then refits k and l0 with the arm's torque taken off).
//
// The arm's stretch is integrated over the samples exactly for a stretch
// linear between them, starting relaxed (a = 0 at the first sample: the
// suit has been worn in the starting pose for a while).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

namespace suitsim::eval {

/// How A(26) models a band's tension: A(25) (elastic), a standard linear
/// solid (viscoelastic; see above), A(25) per segment with capstan
/// friction where the band turns (capstan; band_capstan.h), or both: the
/// standard linear solid's arm acting alike on every segment of a band that
/// rubs where it turns (viscoelastic-capstan; band_capstan.h).
enum class BandModel { Elastic, Viscoelastic, Capstan, ViscoelasticCapstan };
/// "elastic", "viscoelastic", "capstan" or "viscoelastic-capstan"; false otherwise.
bool parseBandModel(const std::string& word, BandModel* out);
const char* bandModelName(BandModel model);
/// Whether the model has the Maxwell arms (viscoelastic, viscoelastic-capstan).
inline bool hasMaxwellArms(BandModel model) {
  return model == BandModel::Viscoelastic || model == BandModel::ViscoelasticCapstan;
}
/// Whether the model has capstan friction (capstan, viscoelastic-capstan).
inline bool hasCapstanFriction(BandModel model) {
  return model == BandModel::Capstan || model == BandModel::ViscoelasticCapstan;
}

/// a = e - q at every sample of `stretch` (N), sampled at `time` (N,
/// increasing), for the relaxation time `tau` (s, > 0).
Eigen::VectorXd maxwellArmStretch(const Eigen::VectorXd& time, const Eigen::VectorXd& stretch, double tau);

/// One motion's fit rows, as the viscoelastic fit needs them.
struct RelaxationRows {
  Eigen::VectorXd time;                 ///< the motion's sample times (s), (N)
  Eigen::MatrixXd stretch;              ///< e_b at every sample at the fit's natural lengths (m), (N x B)
  std::vector<Eigen::Index> sample;     ///< each fit row's sample, (R)
  Eigen::MatrixXd jacobian;             ///< each fit row's ∂l_b/∂θ about its joint (m/rad), (R x B)
  std::vector<int> band_group;          ///< each band's group column 0..G-1, -1: not fitted, (B)
  int num_groups = 0;                   ///< G
};

struct RelaxationFit {
  /// Some group's arm relaxes within the range: tau lies inside it and k_m
  /// > 0. Otherwise no arm (k_m 0, tau NaN, no torque): the motions show
  /// no relaxation (a negative arm, or tau at an end of the range, where an
  /// arm acts as a damper or a second spring, is the fit borrowing it for
  /// another error).
  bool found = false;
  double relaxation_time = 0.0;         ///< tau (s); NaN when !found
  Eigen::VectorXd stiffness;            ///< k per group (N/m), (G)
  Eigen::VectorXd relaxing_stiffness;   ///< k_m per group (N/m; 0: none), (G)
  Eigen::VectorXd arm_torque;           ///< the arms' torque at each fit row (N m), (R)
  /// Rows where some band is stretched (e > 0) but pulls nothing: it
  /// shortens faster than its arm relaxes, k e + k_m a < 0. A(25) cannot
  /// represent them; the elastic refit leaves them out, (R).
  std::vector<bool> clamped;
  double rmse = 0.0;                    ///< RMS residual over the rows (N m)
  double elastic_rmse = 0.0;            ///< the same with the arms left out (k alone)
};

/// Fits k and k_m per group and one tau to the rows' supporting torque
/// `torque` (R), tau in [min_tau, max_tau] (s). Throws std::invalid_argument
/// for inconsistent sizes or no fitted group.
RelaxationFit fitRelaxation(const RelaxationRows& rows, const Eigen::VectorXd& torque, double min_tau = 0.05,
                            double max_tau = 30.0);

}  // namespace suitsim::eval
