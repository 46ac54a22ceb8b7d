// The ξ columns of the robot's joint rows, A(12): which rows the least
// squares uses (sliding stretches, or every row with the static friction's
// sign rule A(8)-(9)), and each used row's entries.
#include <cmath>
#include <utility>
#include <vector>

#include "identification_problem.h"
#include "motion_samples.h"

namespace suitsim::eval::robot_fit {

namespace {

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

}  // namespace

using namespace samples;  // motion_samples.h

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

}  // namespace suitsim::eval::robot_fit
