// The Cramér-Rao bound (CRB) of each band group's stiffness under the
// sensors' declared noise: the smallest standard deviation any unbiased
// estimator of k can have from the trials' torque readings, whatever remedy
// it applies. Scoring only: it reads the truth's noise models, which the
// evaluator never sees.
//
//   std_CRB(k) = sqrt([(Gᵀ R⁻¹ G)⁻¹]_kk)
//
// G = ∂τ̂/∂θ over the parameters θ of the fit the estimate came from, at
// the estimate (A(21)-(26), with the capstan fit's friction and arms where
// that model ran), from the evaluator's unit-noise information by joint
// (eval::UnitInformation). R is the covariance of the supporting torque's
// noise as the sensors make it (docs/sensors.md), per raw sample of the
// joint's actuator-torque channel:
//
//   currents              σ_j = k_T,j η_f,j σ_u  (the truth's motor constant
//                                through the gear while it drives)
//   joint torque sensors  σ_j² = σ_T² + q²/12    (white noise and the
//                                quantisation step q as a uniform error)
//
// plus, on the rows that carry the ground's share F_j of A(10) (the joints
// between the base and a foot), each foot sensor's
//
//   force_gain σ_F² + moment_gain σ_M²   (σ² = noise² + step²/12 per axis)
//
// with the gains the evaluator reports (eval::UnitInformation: the least
// over the joint's rows of the squared Jacobian entries, so the bound stays
// one: every row carries at least that much), times 2 for approach A,
// A(3) (two independent trials subtracted: the variances add; approach A's
// contact term is the two trials' difference of F_j), times 1 for approach
// B, A(4), whose τ_dyn holds one trial's F_j. Each fit row stands for
// d = row_interval × rate raw samples (the evaluator low-passes below its
// band and decimates; the band torque varies slowly over d samples), so
// joint j's information is d T_jᵀ T_j / (a σ_j²). The raw samples' noise is
// white, so the bound is the white-noise one of all of them: the filter
// the evaluator applies makes neighbouring rows correlated, but a filter
// adds no information, and least squares on the filtered, decimated rows
// under white raw noise reaches about this bound.
//
// Left out, which keeps it a lower bound (more noise cannot lower the
// achievable variance): the encoders' noise on the regressor and in τ_dyn,
// the IMU's noise in approach B's dynamics, the force sensors' noise beyond
// each joint's least gain, and every error source of the realism (they are
// bias or slow drift, not the sensors' white noise).
#pragma once

#include <map>
#include <string>
#include <utility>

#include "suitsim/eval/parameter_correlation.h"
#include "suitsim/eval/supporting_torque.h"
#include "suitsim/scene/scene.h"

namespace suitsim::report {

/// The actuator-torque channels' white noise, per joint and per raw sample,
/// as the truth's sensors declare it.
struct TorqueNoise {
  double rate = 0.0;                           ///< samples per second (Hz); 0: no sensors
  std::map<std::string, double> current;       ///< through the currents, σ_j (N m)
  std::map<std::string, double> torque_sensor; ///< link-side torque sensors, σ_j (N m)
  /// Per force sensor (by name): each force axis' σ (N) and each moment
  /// axis' σ (N m), quantisation included.
  std::map<std::string, std::pair<double, double>> force_sensor;
};

/// From a scene's truth robot and declared sensors (every σ 0 for
/// noise="off"; an empty TorqueNoise without a robot or sensors).
TorqueNoise torqueNoise(const io::SceneDescription& scene);

/// The CRB std of the stiffness in `info` (N/m) for supporting-torque method
/// `method`, reading the torque sensors' channel when `torque_sensors` (the
/// identification read them) and the currents' otherwise. NaN when `info`
/// is empty, a joint of it has no channel, a force sensor of it is not
/// among the scene's, or there is no sensor rate; 0
/// for noise-free channels; +inf when the stiffness is not separable.
double cramerRaoStd(const eval::UnitInformation& info, const TorqueNoise& noise, eval::SupportMethod method,
                    bool torque_sensors);

}  // namespace suitsim::report
