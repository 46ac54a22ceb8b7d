#include "suitsim/eval/identification.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <Eigen/Geometry>
#include <Eigen/SVD>

#include "suitsim/core/statistics.h"
#include "suitsim/core/stop.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/eval/parameter_correlation.h"
#include "suitsim/rigid/regressor.h"
#include "suitsim/eval/signals.h"
#include "huge_pages.h"
#include "motion_samples.h"

namespace suitsim::eval {

namespace {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
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

/// y = rows * phi reshaped to (N x nv).
MatrixXd perSample(const MatrixXd& rows, const VectorXd& phi, int nv) {
  const VectorXd y = rows * phi;
  MatrixXd out(y.size() / nv, nv);
  for (Eigen::Index t = 0; t < out.rows(); ++t) out.row(t) = y.segment(t * nv, nv).transpose();
  return out;
}

// The ξ columns of joint row i at sample t (A(12) with our signs).
struct JointRow {
  double u = 0.0, qd = 0.0, coulomb = 0.0, stat = 0.0, offset = 0.0, qdd = 0.0, back = 0.0;
  bool used = false;  ///< false: the row is left out of the least squares
};

/// Everything the least squares needs from the trials, built once.
struct Problem {
  /// nb: the columns every equation shares, x.head(nb): the nphi base
  /// parameters φ, then J, b, c of each coupled drive (addDriveColumns).
  int nv = 0, nj = 0, nb = 0, nphi = 0;
  std::vector<CoupledDrive> drives;
  int nbase = 6;  // base rows per sample: 6 on a floating base, 0 on a fixed one
  /// Joint rows from link-side torque sensors: Y_j φ − F_j = τ_s + τ_o, the
  /// measured torque moved to the right-hand side and the sensors' offset
  /// τ_o the only ξ column (the drive, friction and rotor sit before the
  /// sensor, so none of their parameters is in the equation).
  bool sensed = false;
  /// (nj) a k_T known exactly (JointActuation::motor_constant_known): its
  /// k_T u is on the right-hand side and its column is empty.
  std::vector<char> known_gain;
  std::vector<MatrixXd> rows;      // per trial (N nv x nb)
  std::vector<MatrixXd> F;         // per trial (N x nv): contact forces minus the held loads' dynamics
  std::vector<const MotionData*> trials;
  std::vector<std::vector<JointRow>> z;  // per trial, (N nj)
  std::vector<char> follower;            // (nj): a <mimic> follower, whose row is folded into its leader's
  int samples = 0;
};

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

/// Samples inside a stretch of sliding one way (|rate| > slip, constant
/// sign) with at least `margin` seconds of it on both sides. The ends of
/// the data count as the ends of a stretch: what came before is not known.
/// The margin is compared with half a sample's tolerance: times read from
/// a log (ms times 1e-3, or k / rate) round differently in the last bit,
/// and an exact comparison kept or dropped the sample at the margin by
/// that rounding (IdentifyRobot.RowsKeptDoNotDependOnTheClocksRounding).
std::vector<char> slidingSamples(const VectorXd& time, const VectorXd& rate, double slip, double margin) {
  const int n = static_cast<int>(rate.size());
  std::vector<char> keep(static_cast<std::size_t>(n), 0);
  if (n > 1) margin -= 0.5 * (time[n - 1] - time[0]) / (n - 1);
  int start = 0;
  while (start < n) {
    const double s0 = rate[start];
    if (std::abs(s0) <= slip) {
      ++start;
      continue;
    }
    int end = start;  // one past the stretch
    while (end < n && std::abs(rate[end]) > slip && (rate[end] > 0.0) == (s0 > 0.0)) ++end;
    for (int t = start; t < end; ++t) {
      if (time[t] - time[start] >= margin && time[end - 1] - time[t] >= margin) keep[t] = 1;
    }
    start = end;
  }
  return keep;
}

/// The ξ columns of every joint row, A(12). With RestRows::SignRule a
/// stopped joint's static friction takes the sign rule A(8)-(9): the sign of
/// what it must hold, k_T u + τ_o − Y_j φ + F_j, evaluated with the
/// reference parameters. With RestRows::Excluded only rows inside a
/// sliding stretch are used (see IdentificationOptions). Returns how many
/// rows changed sides (static sign, backdriven or not) from the last call.
int assignJointRows(Problem& p, const VectorXd& phi_ref, const JointParameters& xi_ref,
                    const IdentificationOptions& o) {
  const double stop_velocity = o.stop_velocity;
  const bool sign_rule = o.rest_rows == IdentificationOptions::RestRows::SignRule;
  const std::vector<std::vector<JointRow>> last = std::move(p.z);
  p.z.clear();
  for (std::size_t k = 0; k < p.trials.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const MatrixXd tau_ref = perSample(p.rows[k], phi_ref, p.nv);
    std::vector<JointRow> z(static_cast<std::size_t>(d.numSamples()) * p.nj);
    for (int i = 0; i < p.nj; ++i) {
      if (p.follower[static_cast<std::size_t>(i)]) continue;  // no motor: folded into its leader's row
      if (p.sensed) {
        // Torque sensors: no friction in the equation, so a joint at rest
        // says as much as a moving one; every row is used, τ_o its column.
        for (int t = 0; t < d.numSamples(); ++t) {
          JointRow& r = z[static_cast<std::size_t>(t) * p.nj + i];
          r.used = true;
          r.offset = -1.0;
        }
        continue;
      }
      std::vector<char> keep = sign_rule ? std::vector<char>(static_cast<std::size_t>(d.numSamples()), 1)
                                         : slidingSamples(d.time, d.qd.col(i), o.slip_velocity, o.motion_margin_s);
      // A coupled motor's Coulomb column flips with the motor's direction:
      // the joint's row is used only while each motor it turns with slides
      // as well (its rate in joint units, over its largest gear entry).
      for (const CoupledDrive& c : p.drives) {
        if (sign_rule || c.row[i] == 0.0) continue;
        const VectorXd rate = d.qd * c.row / c.row.cwiseAbs().maxCoeff();
        const std::vector<char> motor = slidingSamples(d.time, rate, o.slip_velocity, o.motion_margin_s);
        for (std::size_t t = 0; t < keep.size(); ++t) keep[t] = keep[t] && motor[t];
      }
      for (int t = 0; t < d.numSamples(); ++t) {
        if (!keep[t]) continue;
        const double qd = d.qd(t, i), u = d.current(t, i);
        JointRow& r = z[static_cast<std::size_t>(t) * p.nj + i];
        r.used = true;
        r.u = p.known_gain[static_cast<std::size_t>(i)] ? 0.0 : -u;  // a known k_T u is on the right-hand side
        r.qd = qd;
        r.offset = -1.0;
        r.qdd = o.fitArmature() ? d.qdd(t, i) : 0.0;  // the rotor's I_a θ̈
        if (o.fitGear()) r.back = -backdrivenLoad(xi_ref, i, u, qd);
        if (!sign_rule || std::abs(qd) > stop_velocity) {
          r.coulomb = qd > 0.0 ? 1.0 : -1.0;  // sliding (the only rows Excluded keeps)
        } else {
          // p.F holds a known k_T's k_T u already.
          const double drive = p.known_gain[static_cast<std::size_t>(i)] ? 0.0 : xi_ref.motor_constant[i] * u;
          const double held = drive + xi_ref.offset[i] - tau_ref(t, p.nbase + i) + p.F[k](t, p.nbase + i) -
                              (o.fitArmature() ? xi_ref.armature[i] * d.qdd(t, i) : 0.0) +
                              xi_ref.backdrive_excess[i] * backdrivenLoad(xi_ref, i, u, qd);
          r.stat = held > 0.0 ? 1.0 : (held < 0.0 ? -1.0 : 0.0);
        }
      }
    }
    p.z.push_back(std::move(z));
  }
  int changed = 0;
  for (std::size_t k = 0; k < last.size(); ++k) {
    for (std::size_t r = 0; r < last[k].size(); ++r) {
      const JointRow &a = last[k][r], &b = p.z[k][r];
      changed += (a.stat != b.stat || (a.back != 0.0) != (b.back != 0.0)) ? 1 : 0;
    }
  }
  return changed;
}

// Column of joint i's parameter k (0..kXiBlocks-1) in x = [φ; ξ].
int xiColumn(const Problem& p, int k, int i) { return p.nb + k * p.nj + i; }

double zValue(const JointRow& r, int k) {
  switch (k) {
    case 0: return r.u;
    case 1: return r.qd;
    case 2: return r.coulomb;
    case 3: return r.stat;
    case 4: return r.offset;
    case 5: return r.qdd;
    default: return r.back;
  }
}

/// The weighted rows of A(13)-(14), √w_e [Y φ + Z ξ − F]_e per used row,
/// reduced by orthogonal transformations to [M c] (least_squares.h): columns
/// x = [φ; ξ] then the right-hand side. Never forms AᵀWA.
struct ReducedRows {
  MatrixXd Mc;      // (r x P + 1)
  double rows = 0;  // rows in the least squares: a joint row left out is no observation
};

/// Rows of one equation e over all trials and samples, reduced block by
/// block. A base equation touches φ only: its triangle is (nb+1)². A joint
/// equation touches φ and its own joint's kXi ξ columns, nothing else, so
/// it is reduced with those first: the top kXi rows of its triangle
/// are final rows of M (no other equation has entries in those columns) and
/// the rest, zero in them, is an (nb+1)² triangle in φ like a base
/// equation's, merged with the others afterwards. This keeps the work near
/// 2 r nb² flops instead of 2 r (nb + 6 nj)².
struct EquationReduction {
  double rows = 0;      // rows used
  MatrixXd joint_rows;  // (kXi x kXi + nb + 1): [ξ_i | φ | F] rows (joint equations only)
  MatrixXd phi_triangle;  // (nb+1 x nb+1): [φ | F]
};

constexpr int kBlockRows = 1024;  // rows per re-factorisation: a few MB of scratch whatever the data length

EquationReduction reduceEquation(const Problem& p, int e, double weight) {
  const bool joint = e >= p.nbase;
  const int lead = joint ? kXi : 0, cols = lead + p.nb + 1;
  const double s = std::sqrt(weight);
  EquationReduction out;
  TriangularAccumulator acc(cols);
  MatrixXd block(kBlockRows, cols);
  Eigen::Index filled = 0;
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const int n = p.trials[k]->numSamples();
    for (int t = 0; t < n; ++t) {
      const JointRow* z = joint ? &p.z[k][static_cast<std::size_t>(t) * p.nj + (e - p.nbase)] : nullptr;
      if (z && !z->used) continue;  // a joint row left out of the least squares
      auto row = block.row(filled);
      for (int a = 0; a < lead; ++a) row[a] = s * zValue(*z, a);
      row.segment(lead, p.nb) = s * p.rows[k].row(static_cast<Eigen::Index>(t) * p.nv + e);
      row[cols - 1] = s * p.F[k](t, e);
      out.rows += 1.0;
      if (++filled == kBlockRows) {
        acc.addRows(block);
        filled = 0;
      }
    }
  }
  acc.addRows(block.topRows(filled));
  const MatrixXd& T = acc.triangle();
  if (joint) out.joint_rows = T.topRows(kXi);
  out.phi_triangle = T.bottomRightCorner(p.nb + 1, p.nb + 1);
  return out;
}

/// Reduces every used row with weights `weight` per equation (nv); joints:
/// the joint rows and ξ too. Equations are reduced in parallel on `threads`
/// and merged in a fixed order: the result does not depend on the count.
ReducedRows reduceRows(const Problem& p, const VectorXd& weight, bool joints, int threads) {
  const int P = p.nb + (joints ? kXi * p.nj : 0);
  const int ne = joints ? p.nv : 6;
  std::vector<EquationReduction> parts(static_cast<std::size_t>(ne));  // base rows first, then joint rows
  {
    const EigenSingleThreaded sequential;
#pragma omp parallel for num_threads(threadCount(threads)) schedule(dynamic, 1)
    for (int e = 0; e < ne; ++e) parts[static_cast<std::size_t>(e)] = reduceEquation(p, e, weight[e]);
  }
  std::vector<MatrixXd> triangles;
  for (EquationReduction& part : parts) triangles.push_back(std::move(part.phi_triangle));
  const MatrixXd phi = mergeTriangles(std::move(triangles), p.nb + 1, threadCount(threads));
  ReducedRows out;
  const int joint_rows = joints ? kXi * p.nj : 0;
  out.Mc = MatrixXd::Zero(joint_rows + p.nb + 1, P + 1);
  for (int i = 0; joints && i < p.nj; ++i) {
    const MatrixXd& jr = parts[static_cast<std::size_t>(p.nbase + i)].joint_rows;
    for (int a = 0; a < kXi; ++a) out.Mc.middleRows(kXi * i, kXi).col(xiColumn(p, a, i)) = jr.col(a);
    out.Mc.middleRows(kXi * i, kXi).leftCols(p.nb) = jr.middleCols(kXi, p.nb);
    out.Mc.middleRows(kXi * i, kXi).col(P) = jr.col(kXi + p.nb);
  }
  out.Mc.bottomRows(p.nb + 1).leftCols(p.nb) = phi.leftCols(p.nb);
  out.Mc.bottomRows(p.nb + 1).col(P) = phi.col(p.nb);
  for (const EquationReduction& part : parts) out.rows += part.rows;
  return out;
}

/// Residual of equation e at sample t of trial k, given y = Y φ of that
/// trial (perSample); false for a joint row left out of the least squares.
bool rowResidual(const Problem& p, std::size_t k, const MatrixXd& y, const VectorXd& x, int t, int e, double* res) {
  *res = y(t, e) - p.F[k](t, e);
  if (e < p.nbase) return true;
  const int i = e - p.nbase;
  const JointRow& z = p.z[k][static_cast<std::size_t>(t) * p.nj + i];
  if (!z.used) return false;
  for (int a = 0; a < kXi; ++a) *res += zValue(z, a) * x[xiColumn(p, a, i)];
  return true;
}

/// Sum of squared residuals per equation (nv) at x.
VectorXd residualPower(const Problem& p, const VectorXd& x, bool joints, VectorXd* count) {
  VectorXd power = VectorXd::Zero(p.nv);
  *count = VectorXd::Zero(p.nv);
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const MatrixXd y = perSample(p.rows[k], x.head(p.nb), p.nv);
    for (int t = 0; t < d.numSamples(); ++t) {
      for (int e = 0; e < (joints ? p.nv : 6); ++e) {
        double res = 0.0;
        if (!rowResidual(p, k, y, x, t, e, &res)) continue;
        power[e] += res * res;
        (*count)[e] += 1.0;
      }
    }
  }
  return power;
}

/// Per joint, the `static_quantile` quantile of |k_T u + τ_o − Y_j φ + F_j|,
/// the torque the friction holds, over the samples where the joint is at
/// rest (|θ̇| ≤ stop_velocity); NaN for a joint never at rest.
VectorXd restHoldQuantile(const Problem& p, const VectorXd& x, const IdentificationOptions& o) {
  std::vector<std::vector<double>> held(static_cast<std::size_t>(p.nj));
  const JointParameters xi = JointParameters::fromStacked(x.tail(kXi * p.nj));
  for (std::size_t k = 0; k < p.trials.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const MatrixXd y = perSample(p.rows[k], x.head(p.nb), p.nv);
    for (int t = 0; t < d.numSamples(); ++t) {
      for (int i = 0; i < p.nj; ++i) {
        if (std::abs(d.qd(t, i)) > o.stop_velocity || p.follower[static_cast<std::size_t>(i)]) continue;
        // p.F holds a known k_T's k_T u already.
        const double drive = p.known_gain[static_cast<std::size_t>(i)] ? 0.0 : x[xiColumn(p, 0, i)] * d.current(t, i);
        const double h = drive + x[xiColumn(p, 4, i)] - y(t, p.nbase + i) + p.F[k](t, p.nbase + i) +
                         xi.backdrive_excess[i] * backdrivenLoad(xi, i, d.current(t, i), d.qd(t, i)) -
                         (o.fitArmature() ? x[xiColumn(p, 5, i)] * d.qdd(t, i) : 0.0);
        held[static_cast<std::size_t>(i)].push_back(std::abs(h));
      }
    }
  }
  VectorXd out(p.nj);
  for (int i = 0; i < p.nj; ++i) {
    std::vector<double>& h = held[static_cast<std::size_t>(i)];
    if (h.empty()) {
      out[i] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const double q = std::clamp(o.static_quantile, 0.0, 1.0);
    const std::size_t at = std::min(h.size() - 1, static_cast<std::size_t>(q * static_cast<double>(h.size() - 1) + 0.5));
    std::nth_element(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(at), h.end());
    out[i] = h[at];
  }
  return out;
}

/// The autocorrelation time (core/statistics.h, in samples) of the weighted
/// residuals at x: each equation's own, from pairs within one trial and
/// one unbroken stretch of used rows (a joint at rest leaves its rows out),
/// lags up to half the longest stretch, averaged with each equation's share
/// of the weighted residual power. The band fit uses the same rule
/// (band_identification.cpp).
double residualCorrelationTime(const Problem& p, const VectorXd& x, bool joints, const VectorXd& weight) {
  const int ne = joints ? p.nv : 6;
  // Per trial and equation: the residual and the stretch each sample is in
  // (-1 where the row is not used).
  struct Series {
    std::vector<double> r;
    std::vector<int> stretch;
  };
  std::vector<std::vector<Series>> series(static_cast<std::size_t>(ne));
  int longest = 0;
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const int n = d.numSamples();
    const MatrixXd y = perSample(p.rows[k], x.head(p.nb), p.nv);
    for (int e = 0; e < ne; ++e) {
      if (weight[e] == 0.0) continue;
      Series s;
      s.r.assign(static_cast<std::size_t>(n), 0.0);
      s.stretch.assign(static_cast<std::size_t>(n), -1);
      int id = 0, run = 0;
      for (int t = 0; t < n; ++t) {
        const auto i = static_cast<std::size_t>(t);
        if (rowResidual(p, k, y, x, t, e, &s.r[i])) {
          s.stretch[i] = id;
          longest = std::max(longest, ++run);
        } else if (run > 0) {
          ++id;
          run = 0;
        }
      }
      series[static_cast<std::size_t>(e)].push_back(std::move(s));
    }
  }
  // An equation's autocovariance sums its trials' pairs.
  const auto autocovariance = [&](int e, int lag) {
    double c = 0.0;
    for (const Series& s : series[static_cast<std::size_t>(e)]) {
      const int n = static_cast<int>(s.r.size());
      for (int t = 0; t + lag < n; ++t) {
        const auto i = static_cast<std::size_t>(t), j = static_cast<std::size_t>(t + lag);
        if (s.stretch[i] >= 0 && s.stretch[i] == s.stretch[j]) c += s.r[i] * s.r[j];
      }
    }
    return weight[e] * c;
  };
  return meanAutocorrelationTime(ne, autocovariance, longest / 2);
}

struct Solution {
  VectorXd x, relative_std;
  MatrixXd correlation;  // of the data's covariance (parameter_correlation.h), (P x P)
  double correlation_samples = 1.0;
  double condition_number = 0.0;
  int unexcited = 0;
  VectorXd row_rms;
};

/// A(13)-(20): two passes (unit weights, then inverse residual variances).
Solution solveRegularised(const Problem& p, bool joints, const VectorXd& x_ref, const IdentificationOptions& o) {
  const int P = p.nb + (joints ? kXi * p.nj : 0);
  VectorXd weight = VectorXd::Ones(p.nv);
  Solution s;
  for (int pass = 0; pass < 2; ++pass) {
    // Each step below is a large factorisation or a pass over every row: a
    // stop request is seen between them.
    throwIfStopped();
    const ReducedRows red = reduceRows(p, weight, joints, o.threads);
    throwIfStopped();
    const MatrixXd M = red.Mc.leftCols(P);
    const VectorXd c = red.Mc.col(P);
    // A(16)-(20): regularisation weights normalised by the data's own scale;
    // λ_max of the φ block of AᵀWA is σ_max² of M's φ columns.
    VectorXd wreg(P);
    const double sigma_phi = Eigen::BDCSVD<MatrixXd>(M.leftCols(p.nb)).singularValues().maxCoeff();
    wreg.head(p.nb).setConstant(o.w_phi * sigma_phi * sigma_phi);
    if (joints) {
      double lambda_T = 0.0, lambda_d = 0.0, lambda_a = 0.0, lambda_g = 0.0;
      for (std::size_t k = 0; k < p.z.size(); ++k) {
        VectorXd sum_u = VectorXd::Zero(p.nj), sum_d = VectorXd::Zero(p.nj), sum_a = VectorXd::Zero(p.nj),
                 sum_g = VectorXd::Zero(p.nj);
        for (std::size_t r = 0; r < p.z[k].size(); ++r) {
          const int i = static_cast<int>(r % p.nj);
          sum_u[i] += weight[p.nbase + i] * p.z[k][r].u * p.z[k][r].u;
          sum_d[i] += weight[p.nbase + i] * p.z[k][r].qd * p.z[k][r].qd;
          sum_a[i] += weight[p.nbase + i] * p.z[k][r].qdd * p.z[k][r].qdd;
          sum_g[i] += weight[p.nbase + i] * p.z[k][r].back * p.z[k][r].back;
        }
        lambda_T += sum_u.maxCoeff();
        lambda_d += sum_d.maxCoeff();
        lambda_a += sum_a.maxCoeff();
        lambda_g += sum_g.maxCoeff();
      }
      const double wj_max = weight.tail(p.nj).maxCoeff();
      wreg.segment(p.nb, p.nj).setConstant(o.w_T * lambda_T);
      wreg.segment(p.nb + p.nj, p.nj).setConstant(o.w_d * lambda_d);
      wreg.segment(p.nb + 2 * p.nj, p.nj).setConstant(o.w_c * p.samples * wj_max);
      wreg.segment(p.nb + 3 * p.nj, p.nj).setConstant(o.w_s * p.samples * wj_max);
      wreg.segment(p.nb + 4 * p.nj, p.nj).setConstant(o.w_o * p.samples * wj_max);
      // Not fitted (Armature::Known, Ignored): the column is zero and the
      // regularisation holds the value where the a-priori set has it.
      wreg.segment(p.nb + 5 * p.nj, p.nj).setConstant(o.fitArmature() ? o.w_a * lambda_a : 1.0);
      wreg.segment(p.nb + 6 * p.nj, p.nj).setConstant(o.fitGear() ? o.w_g * lambda_g : 1.0);
      // Columns no row carries: the drive's with torque sensors (all but
      // τ_o), a known k_T. Held where x_ref has them, like the blocks above.
      for (int i = 0; i < p.nj; ++i) {
        for (int block = 0; block < kXi; ++block) {
          const bool empty = p.sensed ? block != 4 : (block == 0 && p.known_gain[static_cast<std::size_t>(i)]);
          if (empty) wreg[xiColumn(p, block, i)] = 1.0;
        }
      }
    }
    // A(15) as stacked rows under the data, solved by orthogonal factorisation.
    throwIfStopped();
    s.x = solveRegularisedLeastSquares(M, c, wreg, x_ref);
    throwIfStopped();
    VectorXd count;
    const VectorXd power = residualPower(p, s.x, joints, &count);
    throwIfStopped();
    if (pass == 0) {
      // Inverse residual variance of each equation, floored so that an
      // equation the model fits exactly cannot take all the weight.
      for (int e = 0; e < (joints ? p.nv : 6); ++e) {
        // An equation with no rows in use (a joint that never slides) has no
        // variance to invert; weight 0 keeps it out of the normalisation.
        const double var = power[e] / std::max(count[e], 1.0);
        weight[e] = count[e] > 0.0 ? 1.0 / std::max(var, 1e-12) : 0.0;
      }
      continue;
    }
    s.condition_number = scaledConditionNumber(M, &s.unexcited);
    s.row_rms = VectorXd::Zero(p.nv);
    double weighted = 0.0;
    for (int e = 0; e < (joints ? p.nv : 6); ++e) {
      s.row_rms[e] = std::sqrt(power[e] / std::max(count[e], 1.0));
      weighted += weight[e] * power[e];
    }
    // Degrees of freedom: the rows actually fitted. Counting the joint rows
    // left out (RestRows::Excluded keeps about a quarter on the JVRC-1
    // protocol) divided the used rows' residuals by 4x too many and made
    // every std 2x too small; on exact trials with correlated noise the
    // spread over draws was 1.19x the reported std, 1.01x with this count.
    const double dof = std::max(red.rows - P, 1.0);
    // The residuals are not independent from sample to sample (the filter
    // makes neighbours alike): each counts for about 1 / tau of a sample,
    // so the variance of the estimate is tau times the textbook one.
    s.correlation_samples = residualCorrelationTime(p, s.x, joints, weight);
    throwIfStopped();
    const double sigma2 = s.correlation_samples * weighted / dof;
    // The data's own covariance σ² (AᵀWA)⁻¹ from M, without A(15): its pull
    // toward the a-priori values is no measurement. Counted as information it
    // made parameters the data barely touch (a leg's inertia about hip roll
    // with both feet planted) look determined to 0.5 % while the a-priori
    // values held them 2-13 % off.
    const VectorXd variance = unitVariance(M) * sigma2;
    if (joints) s.correlation = reducedCorrelation(M);
    s.relative_std.resize(P);
    for (int c = 0; c < P; ++c) {
      // Relative to the estimate; infinite for an estimate of exactly zero.
      const double sd = std::sqrt(variance[c]);
      s.relative_std[c] = s.x[c] != 0.0 ? sd / std::abs(s.x[c]) : std::numeric_limits<double>::infinity();
    }
  }
  return s;
}

}  // namespace

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
  // Names from the model: base parameters by index, drives by motor, joint
  // parameters by joint. Columns held at a value (torque sensors, a known
  // k_T, tau_s^max estimated apart) have a NaN std and no correlation.
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
