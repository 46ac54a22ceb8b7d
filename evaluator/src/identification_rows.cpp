// The least-squares problem of the robot's identification stacked from
// the trials: each sample's base-parameter regressor rows, A(11), with the
// contact forces A(10), the held loads and the <mimic> couplings on the
// right-hand side, and the coupled drives' columns.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "suitsim/core/stop.h"
#include "suitsim/rigid/regressor.h"
#include "huge_pages.h"
#include "identification_problem.h"
#include "motion_samples.h"

namespace suitsim::eval::robot_fit {

namespace {

using namespace samples;  // motion_samples.h

/// Base-parameter regressor rows of every sample: (N kept x num_base),
/// sample major, the first `kept` equations of each sample (all nv, or the
/// six base rows for B(4)). Samples are independent, so threads write
/// disjoint rows and the result does not depend on their number.
MatrixXd regressorRows(const RigidModel& model, const BaseParameters& base, const MotionData& d, int threads,
                       int kept) {
  const RigidModel m0 = withoutGravity(model);
  const int n = d.numSamples(), nb = base.numBase();
  MatrixXd rows(static_cast<Eigen::Index>(n) * kept, nb);
  detail::adviseHugePages(rows.data(), static_cast<std::size_t>(rows.size()));  // before the first write
#pragma omp parallel num_threads(threadCount(threads))
  {
    RigidData data(m0);
    MatrixXd Y;
    VectorXd v, a;
#pragma omp for schedule(static)
    for (int t = 0; t < n; ++t) {
      sampleVelocityAcceleration(m0, d, t, v, a);
      regressor(m0, data, sampleConfiguration(d, t), v, a, Y);
      // Y_1: the independent columns (base_parameters.h), copied in place.
      for (int i = 0; i < nb; ++i) {
        rows.block(static_cast<Eigen::Index>(t) * kept, i, kept, 1) =
            Y.block(0, base.independent[static_cast<std::size_t>(i)], kept, 1);
      }
    }
  }
  throwIfStopped();  // a trial's samples take a while; no exception may leave the parallel region
  return rows;
}

/// URDF <mimic>: a follower q_f = m q_l + c has no motor; the coupling
/// carries its torque. By virtual work (dq_f = m dq_l) the coupled robot's
/// equation for the leader is the leader's row plus m times the follower's,
/// which the coupling torque drops out of: rows and F are folded so. The
/// follower's own row is then left out (assignJointRows), so no motor or
/// friction parameter is fitted for it (A(15) holds them at the a-priori
/// values); its friction, if any, goes unmodelled into the leader's.
void foldMimicRows(const RigidModel& model, MatrixXd& rows, MatrixXd& F) {
  const int nv = model.nv, n = static_cast<int>(F.rows());
  for (int i = 0; i < model.num_joints; ++i) {
    const int l = model.joint_mimic_leader[i];
    if (l < 0) continue;
    const double m = model.joint_mimic_multiplier[i];
    const int ri = model.base_dofs + i, rl = model.base_dofs + l;  // 6 + on a floating base
    for (int t = 0; t < n; ++t) {
      rows.row(static_cast<Eigen::Index>(t) * nv + rl) += m * rows.row(static_cast<Eigen::Index>(t) * nv + ri);
      F(t, rl) += m * F(t, ri);
    }
  }
}

}  // namespace

/// y = rows * phi reshaped to (N x nv).
MatrixXd perSample(const MatrixXd& rows, const VectorXd& phi, int nv) {
  const VectorXd y = rows * phi;
  MatrixXd out(y.size() / nv, nv);
  for (Eigen::Index t = 0; t < out.rows(); ++t) out.row(t) = y.segment(t * nv, nv).transpose();
  return out;
}

Problem buildProblem(const RigidModel& model, const BaseParameters& base, const std::vector<MotionData>& trials,
                     bool joints, int threads) {
  Problem p;
  // B(4) uses the six base rows only: only they are kept (a sixth of the
  // memory of all nv).
  p.nv = joints ? model.nv : 6;
  p.nj = model.num_joints;
  p.nb = base.numBase();
  p.nphi = p.nb;
  p.nbase = model.base_dofs;
  // Torque sensors, when every trial has them, are the joint rows' drive
  // torque (MotionData::joint_torque); else the currents, A(6).
  p.sensed = joints && !trials.empty() &&
             std::all_of(trials.begin(), trials.end(), [](const MotionData& d) { return d.joint_torque.rows() > 0; });
  for (const MotionData& d : trials) {
    throwIfStopped();  // Ctrl-C or SIGTERM: each trial's rows take a while (core/stop.h)
    if (joints && !p.sensed && d.current.rows() != d.numSamples()) {
      throw std::invalid_argument("trial '" + d.name + "' has neither motor currents nor joint torques: full "
                                  "identification needs one of them");
    }
    p.trials.push_back(&d);
    p.rows.push_back(regressorRows(model, base, d, threads, p.nv));
    p.samples += d.numSamples();
    // A known held load is moved to the right-hand side: φ stays the robot's own.
    p.F.push_back(d.F);
    if (!d.held.empty()) {
      p.F.back().leftCols(p.nv) -= perSample(p.rows.back(), base.fromStandard(heldParameters(model, d.held)), p.nv);
    }
    // Y_j φ − F_j = τ_s + τ_o: the measured torque joins the right-hand side.
    if (p.sensed) p.F.back().rightCols(p.nj) += d.joint_torque;
    if (joints) foldMimicRows(model, p.rows.back(), p.F.back());  // joint rows only
  }
  p.known_gain.assign(static_cast<std::size_t>(p.nj), 0);
  p.follower.assign(static_cast<std::size_t>(p.nj), 0);
  for (int i = 0; i < p.nj; ++i) p.follower[static_cast<std::size_t>(i)] = model.joint_mimic_leader[i] >= 0 ? 1 : 0;
  return p;
}

/// Appends J, b and c of each coupled drive as shared columns of the joint
/// rows (CoupledDrive::columns), after the base parameters.
void addDriveColumns(Problem& p, const std::vector<CoupledDrive>& drives) {
  p.drives = drives;
  if (drives.empty()) return;
  const int nd = static_cast<int>(drives.size());
  for (const CoupledDrive& c : drives) {
    if (c.row.size() != p.nj) throw std::invalid_argument("coupled drive '" + c.name + "': its row is not one entry per joint");
  }
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const MotionData& d = *p.trials[k];
    MatrixXd& rows = p.rows[k];
    rows.conservativeResize(Eigen::NoChange, p.nphi + 3 * nd);
    rows.rightCols(3 * nd).setZero();
    for (int t = 0; t < d.numSamples(); ++t) {
      const VectorXd qd = d.qd.row(t).transpose(), qdd = d.qdd.row(t).transpose();
      for (int c = 0; c < nd; ++c) {
        for (int i = 0; i < p.nj; ++i) {
          rows.block<1, 3>(static_cast<Eigen::Index>(t) * p.nv + p.nbase + i, p.nphi + 3 * c) =
              drives[static_cast<std::size_t>(c)].columns(i, qd, qdd).transpose();
        }
      }
    }
  }
  p.nb = p.nphi + 3 * nd;
}

}  // namespace suitsim::eval::robot_fit
