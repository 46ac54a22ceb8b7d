#include "suitsim/eval/supporting_torque.h"

#include <algorithm>
#include <stdexcept>

#include "suitsim/eval/wires.h"

namespace suitsim::eval {

namespace fs = std::filesystem;

const char* methodKey(SupportMethod m) {
  switch (m) {
    case SupportMethod::kApproachA: return "approach_a";
    case SupportMethod::kApproachB: return "approach_b";
    case SupportMethod::kAprioriB: return "apriori";
    case SupportMethod::kAprioriA: return "apriori_approach_a";
  }
  return "?";
}

SupportCurves supportCurves(const EvaluationInputs& inputs, const IdentificationOutcome& id,
                            const TrialInfo& bare_trial, const TrialInfo& suit_trial, const fs::path& streams_dir,
                            const PipelineOptions& options) {
  const RigidModel& model = id.model;
  const MotionData bare = loadMotion(inputs, model, bare_trial, streams_dir, options);
  const MotionData worn = loadMotion(inputs, model, suit_trial, streams_dir, options);
  // A(3) subtracts sample by sample: the two trials run the same reference
  // from t = 0 at the same rate, so sample k is the same instant in both.
  const Eigen::Index n = std::min(bare.time.size(), worn.time.size());
  if (n < 10) throw std::invalid_argument("trials '" + bare.name + "' and '" + worn.name + "' barely overlap");
  const int nj = model.num_joints;
  const double stop = options.identification.stop_velocity;

  struct ModelSet {
    const Eigen::VectorXd& phi;
    const JointParameters& xi;
  };
  const ModelSet identified{id.full.phi, id.full.xi}, apriori{id.full.phi_apriori, id.full.xi_apriori};
  // Y φ of both models from one regressor per sample of each trial.
  const std::vector<Eigen::VectorXd> phis{identified.phi, apriori.phi};
  const std::vector<Eigen::MatrixXd> tau_bare = inverseDynamics(model, id.base, phis, bare, options.identification.threads);
  const std::vector<Eigen::MatrixXd> tau_worn = inverseDynamics(model, id.base, phis, worn, options.identification.threads);
  auto actuator = [&](const ModelSet& m, const MotionData& d, Eigen::MatrixXd* dynamics) {
    const std::size_t k = &m == &identified ? 0 : 1;
    const Eigen::MatrixXd& tau = &d == &bare ? tau_bare[k] : tau_worn[k];
    // τ_dyn of A(4): what the joints need for the motion beyond what the
    // ground gives them, A(5) lower rows: Y_j φ − F_j.
    *dynamics = tau.rightCols(nj) - d.F.rightCols(nj);
    return actuatorTorque(model, m.xi, d, tau, stop);
  };
  // The ground's share of each joint row, F_j = Σ_k J_kᵀ F_k (A(10)), from
  // the measured foot wrenches. A(3) assumes the ground pushes the same way
  // with and without the suit; on a joint between the base and a foot the
  // suit shifts load between the feet, so approach A takes the measured
  // difference into account: with Y_j φ the same in both trials,
  //   τ_s = (τ_act + F_j)_without − (τ_act + F_j)_with.
  // Off the legs F_j is zero and this is A(3) as printed.
  const Eigen::MatrixXd contact_change = bare.F.rightCols(nj).topRows(n) - worn.F.rightCols(nj).topRows(n);

  SupportCurves c;
  c.motion = suit_trial.motion;
  c.suit = suit_trial.suit;
  c.bare_trial = bare_trial.name;
  c.suit_trial = suit_trial.name;
  c.time = worn.time.head(n);
  c.angle = worn.q.topRows(n);
  c.velocity = worn.qd.topRows(n);
  c.rest = (worn.qd.topRows(n).array().abs() <= stop) || (bare.qd.topRows(n).array().abs() <= stop);
  // The two trials run one motion, so the suit trial's gains stand for both
  // (the Cramér-Rao bound, report/cramer_rao.h, counts the trials).
  c.force_sensor = worn.force_sensor;
  for (std::size_t f = 0; f < worn.force_sensor.size(); ++f) {
    c.force_gain.push_back(worn.force_gain[f].rightCols(nj).topRows(n));
    c.moment_gain.push_back(worn.moment_gain[f].rightCols(nj).topRows(n));
  }
  for (const ModelSet* m : {&identified, &apriori}) {
    Eigen::MatrixXd dyn_bare, dyn_worn;
    const Eigen::MatrixXd act_bare = actuator(*m, bare, &dyn_bare);
    const Eigen::MatrixXd act_worn = actuator(*m, worn, &dyn_worn);
    const Eigen::MatrixXd a = act_bare.topRows(n) - act_worn.topRows(n) + contact_change;  // A(3)
    const Eigen::MatrixXd b = dyn_worn.topRows(n) - act_worn.topRows(n);                   // A(4)
    if (m == &identified) {
      c.method.push_back(a);
      c.method.push_back(b);
    } else {
      c.method.push_back(b);  // the paper's row (d): approach B on the a-priori model
      c.method.push_back(a);
    }
  }
  return c;
}

}  // namespace suitsim::eval
