#include "suitsim/eval/identification.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "suitsim/core/stop.h"
#include "suitsim/eval/parameter_correlation.h"
#include "suitsim/rigid/regressor.h"
#include "identification_problem.h"
#include "motion_samples.h"

namespace suitsim::eval {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using namespace samples;    // motion_samples.h
using namespace robot_fit;  // identification_problem.h

double totalMass(const RigidModel& model, const BaseParameters& base, const Eigen::VectorXd& phi) {
  const RigidModel m0 = withoutGravity(model);
  RigidData data(m0);
  VectorXd v = VectorXd::Zero(m0.nv), a = VectorXd::Zero(m0.nv);
  if (!m0.floating_base) throw std::invalid_argument("total mass needs a floating base");
  a[2] = 1.0;
  MatrixXd Y;
  regressor(m0, data, neutralConfiguration(m0), v, a, Y);
  return (base.reduce(Y).row(2) * phi)(0);
}

namespace {

// The most correlated pairs of the fit's columns, named from the model:
// base parameters by index, drives by motor, joint parameters by joint.
// Columns held at a value (torque sensors, a known k_T, tau_s^max estimated
// apart) have a NaN std and no correlation.
void strongestPairs(const RigidModel& model, const Problem& p, const Solution& s, RobotIdentification& out) {
  std::vector<std::string> name(static_cast<std::size_t>(s.x.size()));
  std::vector<int> columns;
  for (int k = 0; k < p.nphi; ++k) name[static_cast<std::size_t>(k)] = "base_parameter[" + std::to_string(k) + "]";
  for (std::size_t c = 0; c < p.drives.size(); ++c) {
    const std::size_t at = static_cast<std::size_t>(p.nphi) + 3 * c;
    name[at] = "drive:" + p.drives[c].name + ".rotor_inertia";
    name[at + 1] = "drive:" + p.drives[c].name + ".viscous";
    name[at + 2] = "drive:" + p.drives[c].name + ".coulomb";
  }
  static const char* const kBlock[kXi] = {"motor_constant", "viscous", "coulomb", "static_max", "offset", "armature",
                                          "backdrive_excess"};
  for (int block = 0; block < kXi; ++block) {
    for (int i = 0; i < p.nj; ++i) {
      name[static_cast<std::size_t>(xiColumn(p, block, i))] = std::string(kBlock[block]) + ":" + model.joint_name[static_cast<std::size_t>(i)];
    }
  }
  for (Eigen::Index c = 0; c < s.x.size(); ++c) {
    if (std::isfinite(s.relative_std[c])) columns.push_back(static_cast<int>(c));
  }
  if (s.correlation.rows() == s.x.size()) {
    for (const CorrelatedPair& pair :
         correlatedPairs(s.correlation, columns, kStrongCorrelation, kMostCorrelatedPairs, &out.correlated_pair_count)) {
      out.correlated_pairs.push_back({name[static_cast<std::size_t>(pair.a)], name[static_cast<std::size_t>(pair.b)], pair.r});
    }
  }
}

}  // namespace

RobotIdentification identifyRobot(const RigidModel& model, const BaseParameters& base,
                                  const JointParameters& xi_apriori, const std::vector<MotionData>& trials,
                                  const IdentificationOptions& options) {
  if (trials.empty()) throw std::invalid_argument("identification needs at least one trial");
  RobotIdentification out;
  out.phi_apriori = base.fromStandard(standardParameters(model));
  out.xi_apriori = xi_apriori;
  if (options.armature == IdentificationOptions::Armature::Ignored) out.xi_apriori.armature.setZero();
  Problem p = buildProblem(model, base, trials, true, options.threads);
  if (!p.sensed) addDriveColumns(p, options.coupled_drives);  // a torque sensor reads after the drives
  // Torque sensors read after the drive: their a-priori offset is zero (the
  // motors' τ_o is not in their equation).
  if (p.sensed) out.xi_apriori.offset.setZero();
  for (int i : options.known_gains) {
    if (i < 0 || i >= p.nj) throw std::invalid_argument("identification: a known gain's joint index is out of range");
    if (p.sensed) continue;
    // A known k_T moves its k_T u to the right-hand side, as a known load
    // does: with joint rows only it fixes the scale (docs/method.md).
    p.known_gain[static_cast<std::size_t>(i)] = 1;
    for (std::size_t k = 0; k < p.trials.size(); ++k) {
      p.F[k].col(p.nbase + i) += out.xi_apriori.motor_constant[i] * p.trials[k]->current.col(i);
    }
  }
  if (!options.fitArmature() && !p.sensed) {
    // The rotors taken as the a-priori set gives them: I_a θ̈ is known and
    // moves to the right-hand side, k_T u + τ_o − I_a θ̈ = Y_j φ + τ_f − F_j.
    for (std::size_t k = 0; k < p.trials.size(); ++k) {
      for (int i = 0; i < p.nj; ++i) p.F[k].col(p.nbase + i) -= out.xi_apriori.armature[i] * p.trials[k]->qdd.col(i);
    }
  }
  VectorXd drive_apriori(p.nb - p.nphi);
  for (std::size_t c = 0; c < p.drives.size(); ++c) {
    drive_apriori.segment<3>(3 * static_cast<Eigen::Index>(c)) << p.drives[c].rotor_inertia, p.drives[c].viscous,
        p.drives[c].coulomb;
  }
  VectorXd x_ref(p.nb + kXi * p.nj);
  x_ref << out.phi_apriori, drive_apriori, out.xi_apriori.stacked();
  // A(8)-(9) takes the static friction's sign from the a-priori model; a
  // model far off (missing payloads) gets many signs wrong. Each further
  // round takes the signs from the previous round's estimate; the
  // regularisation stays toward the a-priori values.
  const bool sign_rule = options.rest_rows == IdentificationOptions::RestRows::SignRule;
  assignJointRows(p, x_ref.head(p.nb), out.xi_apriori, options);
  Solution s = solveRegularised(p, true, x_ref, options);
  for (int round = 1; sign_rule && round < options.sign_rounds; ++round) {
    assignJointRows(p, s.x.head(p.nb), JointParameters::fromStacked(s.x.tail(kXi * p.nj)), options);
    s = solveRegularised(p, true, x_ref, options);
  }
  // The gear's column takes "backdriven" from the sign of k_T u + τ_o and
  // its load u + τ_o / k_T from the reference, at first the a-priori
  // values: gear_rounds more rounds take them from the last estimate,
  // stopping early once no row changes side and no parameter moved by more
  // than gear_tolerance of its standard deviation (relative std times
  // value). On exact data that settles to the rounding; on noisy data it
  // does not: a light joint's load sits near zero, its rows change sides
  // with every estimate, and its Δk_b moves by a few σ from round to round.
  // On JVRC-1 with 20-30 % gear losses (docs/realism.md), rounds 1 to 8
  // moved approach A's stiffness by 0.1 % and approach B's type-B band
  // between +1.4 and +4 %; without the round (signs from the a-priori
  // model) that band was +9.5 % off. One round is the default.
  for (int round = 0; options.fitGear() && round < options.gear_rounds; ++round) {
    const int changed =
        assignJointRows(p, s.x.head(p.nb), JointParameters::fromStacked(s.x.tail(kXi * p.nj)), options);
    const VectorXd last = s.x;
    s = solveRegularised(p, true, x_ref, options);
    out.gear_rounds = round + 1;
    double moved = 0.0;  // largest |Δx| / σ
    for (Eigen::Index c = 0; c < s.x.size(); ++c) {
      const double sigma = s.relative_std[c] * std::abs(s.x[c]);
      if (std::isfinite(sigma) && sigma > 0.0) moved = std::max(moved, std::abs(s.x[c] - last[c]) / sigma);
    }
    if (changed == 0 && moved <= options.gear_tolerance) break;
  }
  if (p.sensed) {
    // Torque sensors: every ξ block but the sensors' offset is the
    // a-priori value exactly, not the regularisation's rounding.
    for (int block = 0; block < kXi; ++block) {
      if (block == 4) continue;
      for (int i = 0; i < p.nj; ++i) {
        s.x[xiColumn(p, block, i)] = x_ref[xiColumn(p, block, i)];
        s.relative_std[xiColumn(p, block, i)] = std::numeric_limits<double>::quiet_NaN();
      }
      s.unexcited -= p.nj;  // zero columns, held by the regularisation
    }
  }
  for (int i = 0; i < p.nj; ++i) {
    if (!p.known_gain[static_cast<std::size_t>(i)]) continue;
    s.x[xiColumn(p, 0, i)] = x_ref[xiColumn(p, 0, i)];
    s.relative_std[xiColumn(p, 0, i)] = std::numeric_limits<double>::quiet_NaN();
    --s.unexcited;
  }
  if (!sign_rule && !p.sensed) {
    // τ_s^max is not a least-squares column here (no row carries it, so the
    // regularisation merely held it at the a-priori value): it is the
    // breakaway torque, the upper quantile of what the friction held at rest.
    const VectorXd held = restHoldQuantile(p, s.x, options);
    for (int i = 0; i < p.nj; ++i) {
      const int c = xiColumn(p, 3, i);
      s.x[c] = std::isfinite(held[i]) ? held[i] : x_ref[c];
      s.relative_std[c] = std::numeric_limits<double>::quiet_NaN();
    }
    s.unexcited -= p.nj;  // the τ_s^max columns, estimated apart
  }
  // Blocks not fitted (the armature unless Fit, Δk_b unless Gear::Fit) are
  // the a-priori values exactly, not to the regularisation's rounding.
  for (int block : {5, 6}) {
    if (p.sensed || (block == 5 ? options.fitArmature() : options.fitGear())) continue;
    for (int i = 0; i < p.nj; ++i) {
      s.x[xiColumn(p, block, i)] = x_ref[xiColumn(p, block, i)];
      s.relative_std[xiColumn(p, block, i)] = std::numeric_limits<double>::quiet_NaN();
    }
    s.unexcited -= p.nj;  // zero columns, held by the regularisation
  }
  out.phi = s.x.head(p.nphi);
  out.xi = JointParameters::fromStacked(s.x.tail(kXi * p.nj));
  out.phi_relative_std = s.relative_std.head(p.nphi);
  out.xi_relative_std = JointParameters::fromStacked(s.relative_std.tail(kXi * p.nj));
  out.xi_apriori.drives = p.drives;
  for (std::size_t c = 0; c < p.drives.size(); ++c) {
    const Eigen::Index at = p.nphi + 3 * static_cast<Eigen::Index>(c);
    CoupledDrive value = p.drives[c], spread = p.drives[c];
    value.rotor_inertia = s.x[at];
    value.viscous = s.x[at + 1];
    value.coulomb = s.x[at + 2];
    spread.rotor_inertia = s.relative_std[at];
    spread.viscous = s.relative_std[at + 1];
    spread.coulomb = s.relative_std[at + 2];
    out.xi.drives.push_back(value);
    out.xi_relative_std.drives.push_back(spread);
  }
  out.correlation_samples = s.correlation_samples;
  out.condition_number = s.condition_number;
  out.unexcited_columns = s.unexcited;
  // A fixed base's mass rests on the rig: no equation holds it (NaN).
  out.total_mass = model.floating_base ? totalMass(model, base, out.phi) : std::numeric_limits<double>::quiet_NaN();
  out.total_mass_apriori =
      model.floating_base ? totalMass(model, base, out.phi_apriori) : std::numeric_limits<double>::quiet_NaN();
  out.num_samples = p.samples;
  out.torque_sensors = p.sensed;
  out.row_rms = s.row_rms;
  strongestPairs(model, p, s, out);
  return out;
}

BaseLinkIdentification identifyBaseLinkOnly(const RigidModel& model, const BaseParameters& base,
                                            const std::vector<MotionData>& trials,
                                            const IdentificationOptions& options) {
  if (trials.empty()) throw std::invalid_argument("identification needs at least one trial");
  const VectorXd phi_ref = base.fromStandard(standardParameters(model));
  const Problem p = buildProblem(model, base, trials, false, options.threads);
  const Solution s = solveRegularised(p, false, phi_ref, options);
  BaseLinkIdentification out;
  out.phi = s.x;
  out.phi_relative_std = s.relative_std;
  out.correlation_samples = s.correlation_samples;
  out.condition_number = s.condition_number;
  out.total_mass = totalMass(model, base, out.phi);
  return out;
}

}  // namespace suitsim::eval
