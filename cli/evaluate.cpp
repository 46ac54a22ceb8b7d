#include "evaluate.h"

#include <algorithm>
#include <stdexcept>

#include "suitsim/eval/wires.h"

namespace suitsim::cli {

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

SupportCurves supportCurves(const EvaluatorView& view, const IdentifyOutcome& id, const TrialView& bare_trial,
                            const TrialView& suit_trial, const std::vector<RobotBand>& truth_bands,
                            const fs::path& streams_dir, const IdentifyOptions& options) {
  const eval::RigidModel& model = id.model;
  const eval::MotionData bare = loadMotion(view, model, bare_trial, streams_dir, options);
  const eval::MotionData worn = loadMotion(view, model, suit_trial, streams_dir, options);
  // A(3) subtracts sample by sample: the two trials run the same reference
  // from t = 0 at the same rate, so sample k is the same instant in both.
  const Eigen::Index n = std::min(bare.time.size(), worn.time.size());
  if (n < 10) throw std::invalid_argument("trials '" + bare.name + "' and '" + worn.name + "' barely overlap");
  const int nj = model.num_joints;
  const double stop = options.identification.stop_velocity;

  struct ModelSet {
    const Eigen::VectorXd& phi;
    const eval::JointParameters& xi;
  };
  const ModelSet identified{id.full.phi, id.full.xi}, apriori{id.full.phi_apriori, id.full.xi_apriori};
  auto actuator = [&](const ModelSet& m, const eval::MotionData& d, Eigen::MatrixXd* dynamics) {
    const Eigen::MatrixXd tau = eval::inverseDynamics(model, id.base, m.phi, d);
    // τ_dyn of A(4): what the joints need for the motion beyond what the
    // ground gives them, A(5) lower rows: Y_j φ − F_j.
    *dynamics = tau.rightCols(nj) - d.F.rightCols(nj);
    return eval::actuatorTorque(model, m.xi, d, tau, stop);
  };

  SupportCurves c;
  c.motion = suit_trial.spec.motion;
  c.suit = suit_trial.spec.suit;
  c.time = worn.time.head(n);
  c.angle = worn.q.topRows(n);
  c.velocity = worn.qd.topRows(n);
  for (const ModelSet* m : {&identified, &apriori}) {
    Eigen::MatrixXd dyn_bare, dyn_worn;
    const Eigen::MatrixXd act_bare = actuator(*m, bare, &dyn_bare);
    const Eigen::MatrixXd act_worn = actuator(*m, worn, &dyn_worn);
    const Eigen::MatrixXd a = act_bare.topRows(n) - act_worn.topRows(n);   // A(3)
    const Eigen::MatrixXd b = dyn_worn.topRows(n) - act_worn.topRows(n);   // A(4)
    if (m == &identified) {
      c.method.push_back(a);
      c.method.push_back(b);
    } else {
      c.method.push_back(b);  // the paper's row (d): approach B on the a-priori model
      c.method.push_back(a);
    }
  }
  // The model curve ("SSL simulation" in A Fig. 12): A(21) with the true
  // stiffness and natural lengths on the measured angles.
  const std::vector<eval::WireGeometry> wires = eval::makeWireGeometries(model, truth_bands);
  Eigen::VectorXd k(truth_bands.size()), l0(truth_bands.size());
  for (std::size_t b = 0; b < truth_bands.size(); ++b) {
    k[b] = truth_bands[b].stiffness;
    l0[b] = truth_bands[b].natural_length;
  }
  eval::RigidData data(model);
  c.model.resize(n, nj);
  for (Eigen::Index t = 0; t < n; ++t) {
    eval::Configuration q;
    q.joints = c.angle.row(t).transpose();
    c.model.row(t) = eval::supportingTorque(model, data, q, wires, k, l0).transpose();
  }
  return c;
}

}  // namespace suitsim::cli
