// One supporting-torque method's band fit of a suit (method_fit.h).
#include "method_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "band_capstan.h"
#include "suitsim/eval/parameter_correlation.h"
#include "suitsim/eval/band_relaxation.h"

namespace suitsim::eval {

namespace {

// Rows of one motion's fit: for each fit joint, the samples where it moves,
// stacked into one column (the joint's supporting torque against the bands'
// moment arms about it). Stacking keeps each row's torque and Jacobian on
// the same joint, so joints that move at different times all contribute.
struct FitRows {
  WireSamples samples;
  Eigen::MatrixXd tau;               // (rows x 1)
  std::vector<Eigen::Index> sample;  // each row's sample of the motion
  std::vector<int> joint;            // each row's joint (model index)
};

FitRows fitRows(const RigidModel& model, const std::vector<WireGeometry>& wires, const SupportCurves& c,
                const std::vector<std::string>& joints, std::size_t method) {
  FitRows out;
  std::vector<WireSamples> parts;
  std::vector<double> tau;
  for (const std::string& name : joints) {
    const int j = jointIndex(model, name);
    std::vector<Eigen::Index> rows;
    for (Eigen::Index t = 0; t < c.velocity.rows(); ++t) {
      if (std::abs(c.velocity(t, j)) > kMovingSpeed) rows.push_back(t);
    }
    if (rows.empty()) continue;
    Eigen::MatrixXd q(static_cast<Eigen::Index>(rows.size()), c.angle.cols());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      q.row(static_cast<Eigen::Index>(r)) = c.angle.row(rows[r]);
      tau.push_back(c.method[method](rows[r], j));
      out.sample.push_back(rows[r]);
      out.joint.push_back(j);
    }
    parts.push_back(sampleWires(model, wires, q, {name}));
  }
  if (parts.empty()) throw std::invalid_argument("motion '" + c.motion + "': no fit joint moves");
  WireSamples& s = out.samples;
  s.band = parts.front().band;
  std::string joined;
  for (const std::string& j : joints) joined += (joined.empty() ? "" : "+") + j;
  s.joint = {joined};
  const Eigen::Index n = static_cast<Eigen::Index>(tau.size());
  s.length.resize(n, s.numBands());
  s.jacobian.assign(static_cast<std::size_t>(s.numBands()), Eigen::MatrixXd(n, 1));
  Eigen::Index r = 0;
  for (const WireSamples& p : parts) {
    s.length.middleRows(r, p.numSamples()) = p.length;
    for (int b = 0; b < s.numBands(); ++b) s.jacobian[b].middleRows(r, p.numSamples()) = p.jacobian[b];
    r += p.numSamples();
  }
  out.tau = Eigen::Map<const Eigen::VectorXd>(tau.data(), n);
  return out;
}


// Takes group g (index in bopt) from fit `pm` of motion k, whose groups
// are a subset of bopt's, matched by name.
int groupIn(const BandIdentificationResult& pm, const std::string& name) {
  const auto it = std::find(pm.group.begin(), pm.group.end(), name);
  return it == pm.group.end() ? -1 : static_cast<int>(it - pm.group.begin());
}

double relevanceIn(const BandIdentificationResult& pm, int pg) {
  double relevance = 0.0;
  for (std::size_t b = 0; b < pm.band.size(); ++b) {
    if (pm.band_group[b] == pg) relevance = std::max(relevance, pm.relevance[b]);
  }
  return relevance;
}

// A(26) motion by motion, on the motion's fit joints, from the samples
// where each moves: while a joint is at rest its static friction can
// take any value up to tau_s^max, so neither A(3) nor A(4) knows the
// actuator torque there (the sign rule A(8)-(9) guesses +-tau_s^max),
// and a wrong torque at the stance pose, where the bands are just taut,
// trades k against l0. Bands whose geometric effect on those joints is
// under the relevance threshold (fitSuit's kRelevance) of the strongest band's are left out of that
// motion's fit (type B in the bend, as A section 5.4 does): fitted
// there, their weak effect trades with the strong bands' k. Each group's
// stiffness comes from the motion where it is most relevant.
//
// A group fitted in a motion that is not its best still trades with the
// groups that are: in the shipped H1 suit type A also pulls on the
// torso yaw in the twist, and fitting both there put a third of type
// A's pull into type B's k (+42 %). And a band left out of a motion
// still pulls (in the shipped JVRC-1 suit type B gives the waist pitch
// about a tenth of the bend's supporting torque; leaving it in the
// curve put that share into type A's k: +1.1 % on the exact model
// curve). So each group is fitted a second time on its best motion
// alone, with every other group's torque, A(21) at that group's
// estimate from its own best motion, taken off the curve first.
struct MethodFitter {
  // The setup, by the names the passes use.
  const RigidModel& model;
  const std::vector<WireGeometry>& wires;
  const std::vector<const SupportCurves*>& curves;
  const BandIdentificationOptions& bopt;
  BandModel band_model;
  const std::vector<Eigen::MatrixXd>& motion_lengths;
  SupportMethod method;
  std::vector<FitRows> rows;
  std::vector<std::string> label;  // "motion:joint" of each motion's fit
  std::vector<std::string> band_names;
  std::size_t ng = 0;
  std::vector<int> group_of_band;
  // The combined estimate: per group its stiffness, std, source motion
  // and reason; per band its natural length and taut samples.
  struct Combined {
    std::vector<double> k, rstd;
    std::vector<int> source;  // motion index, -1: none
    std::vector<std::string> why_not;
    std::vector<double> l0;
    std::vector<int> taut;
  } c;
  // Each group's motion where it matters most among those that do not
  // identify it (for the capstan model, which may).
  std::vector<int> tried;
  std::vector<BandIdentificationResult> first;  // pass 1, per motion
  std::vector<double> fit_rmse;                 // per motion, of the fit that last ran on it
  std::vector<double> km, relaxation, friction;  // per group: Maxwell arm, its time, capstan friction
  std::vector<CapstanRows> capstan_rows;
  // Per group, what its deciding fit says of its k's uncertainty: from the
  // fit its estimate came from (taken), and from the one its reason names.
  struct Uncertainty {
    std::vector<ParameterCorrelation> correlations;
    UnitInformation information;
  };
  std::vector<Uncertainty> taken_uncertainty, why_uncertainty;

  MethodFitter(const SuitFitSetup& s, SupportMethod m)
      : model(s.model), wires(s.wires), curves(s.curves), bopt(s.options), band_model(s.band_model),
        motion_lengths(s.motion_lengths), method(m) {
    const std::size_t mi = static_cast<std::size_t>(m);
    for (std::size_t k = 0; k < curves.size(); ++k) {
      rows.push_back(fitRows(model, wires, *curves[k], s.fit_joints[k].joints, mi));
      label.push_back(curves[k]->motion + ":" + rows.back().samples.joint.front());
    }
    band_names = rows.front().samples.band;
    ng = bopt.groups.size();
    for (const std::string& band : band_names) {
      int g = -1;
      for (std::size_t k = 0; k < ng; ++k) {
        const auto& members = bopt.groups[k].bands;
        if (std::find(members.begin(), members.end(), band) != members.end()) g = static_cast<int>(k);
      }
      group_of_band.push_back(g);
    }
    c = Combined{std::vector<double>(ng, std::nan("")), std::vector<double>(ng, std::nan("")), std::vector<int>(ng, -1),
                 std::vector<std::string>(ng), std::vector<double>(band_names.size(), std::nan("")),
                 std::vector<int>(band_names.size(), 0)};
    tried.assign(ng, -1);
    fit_rmse.assign(rows.size(), 0.0);
    km.assign(ng, std::nan(""));
    relaxation.assign(ng, std::nan(""));
    friction.assign(ng, std::nan(""));
    taken_uncertainty.assign(ng, {});
    why_uncertainty.assign(ng, {});
  }

  // The correlations of k (its column `column` of Jacobian G, columns
  // `names`) and the fit's unit-noise information, for a fit on motion k's
  // rows `subset` (empty: every row, in order).
  Uncertainty uncertainty(std::size_t k, const Eigen::MatrixXd& G, const std::vector<std::string>& names, int column,
                          const std::vector<Eigen::Index>& subset = {}) const {
    if (column < 0 || G.cols() == 0) return {};
    std::vector<std::string> joints;
    std::vector<int> row_joint;
    for (Eigen::Index r = 0; r < G.rows(); ++r) {
      const int j = rows[k].joint[static_cast<std::size_t>(subset.empty() ? r : subset[static_cast<std::size_t>(r)])];
      const std::string& name = model.joint_name[static_cast<std::size_t>(j)];
      const auto it = std::find(joints.begin(), joints.end(), name);
      row_joint.push_back(static_cast<int>(it - joints.begin()));
      if (it == joints.end()) joints.push_back(name);
    }
    const Eigen::VectorXd& time = curves[k]->time;
    const double interval = time.size() > 1 ? (time[time.size() - 1] - time[0]) / static_cast<double>(time.size() - 1) : 0.0;
    Uncertainty u{strongestCorrelations(parameterCorrelation(G), column, names),
                  unitInformation(G, row_joint, joints, names, column, interval)};
    // Each force sensor's least gain over each joint's rows (the bound's
    // share of the foot sensors' noise, report/cramer_rao.h).
    const SupportCurves& c = *curves[k];
    UnitInformation& info = u.information;
    info.force_sensor = c.force_sensor;
    const std::size_t ns = c.force_sensor.size();
    info.force_gain.assign(info.joint.size(), std::vector<double>(ns, std::numeric_limits<double>::infinity()));
    info.moment_gain = info.force_gain;
    for (Eigen::Index r = 0; r < G.rows(); ++r) {
      const std::size_t row = static_cast<std::size_t>(subset.empty() ? r : subset[static_cast<std::size_t>(r)]);
      const Eigen::Index sample = rows[k].sample[row];
      const int j = rows[k].joint[row];
      const auto at = std::find(info.joint.begin(), info.joint.end(), model.joint_name[static_cast<std::size_t>(j)]);
      if (at == info.joint.end()) continue;
      const auto ji = static_cast<std::size_t>(at - info.joint.begin());
      for (std::size_t f = 0; f < ns; ++f) {
        info.force_gain[ji][f] = std::min(info.force_gain[ji][f], c.force_gain[f](sample, j));
        info.moment_gain[ji][f] = std::min(info.moment_gain[ji][f], c.moment_gain[f](sample, j));
      }
    }
    return u;
  }

  // The same for group `pg` of a band fit `pm`.
  Uncertainty uncertainty(std::size_t k, const BandIdentificationResult& pm, int pg,
                          const std::vector<Eigen::Index>& subset = {}) const {
    const int column = pg >= 0 && static_cast<std::size_t>(pg) < pm.group_parameter.size() ? pm.group_parameter[static_cast<std::size_t>(pg)] : -1;
    return uncertainty(k, pm.jacobian, pm.parameter, column, subset);
  }

  void take(std::size_t g, std::size_t k, const BandIdentificationResult& pm, int pg,
            const std::vector<Eigen::Index>& subset = {}) {
  taken_uncertainty[g] = uncertainty(k, pm, pg, subset);
  c.source[g] = static_cast<int>(k);
  c.k[g] = pm.stiffness[pg];
  c.rstd[g] = pm.relative_std[pg];
  for (std::size_t b = 0; b < pm.band.size(); ++b) {
    if (pm.band_group[b] != pg) continue;
    c.l0[b] = pm.natural_length[b];
    c.taut[b] = pm.taut_samples[b];
  }
  }

  // Pass 1: every group in every motion; each group's best motion is the
  // one where it is most relevant among those that identify it.
  void firstPass() {
    for (std::size_t k = 0; k < rows.size(); ++k) first.push_back(identifyBands(rows[k].samples, rows[k].tau, bopt));
    for (std::size_t g = 0; g < ng; ++g) {
      double best = -1.0, best_failed = -1.0;
      for (std::size_t k = 0; k < first.size(); ++k) {
        const BandIdentificationResult& pm = first[k];
        const double relevance = relevanceIn(pm, static_cast<int>(g));
        if (!std::isfinite(pm.stiffness[g]) || !pm.group_identifiable[g]) {
          // The fit where the group matters most says best why it is not identifiable.
          if (relevance > best_failed) {
            best_failed = relevance;
            tried[g] = static_cast<int>(k);
            c.why_not[g] = label[k] + ": " + pm.group_reason[g];
            why_uncertainty[g] = uncertainty(k, pm, static_cast<int>(g));
          }
          continue;
        }
        if (relevance <= best) continue;
        best = relevance;
        take(g, k, pm, static_cast<int>(g));
      }
    }
  }

  // Motion k's curve with the torque of the groups fitted elsewhere, A(21)
  // at their estimates, taken off.
  Eigen::MatrixXd othersTakenOff(std::size_t k) const {
      const int nb = static_cast<int>(band_names.size());
      Eigen::VectorXd k_other = Eigen::VectorXd::Zero(nb), l0_other = Eigen::VectorXd::Zero(nb);
      for (int b = 0; b < nb; ++b) {
        const int g = group_of_band[static_cast<std::size_t>(b)];
        if (g < 0 || c.source[g] == static_cast<int>(k) || !std::isfinite(c.k[g]) || !std::isfinite(c.l0[b])) continue;
        k_other[b] = c.k[g];
        l0_other[b] = c.l0[b];
      }
      return rows[k].tau - predictSupportingTorque(rows[k].samples, k_other, l0_other);
  }

  // Pass 2: each motion fits the groups it is best for, the others' torque
  // taken off at their estimates.
  void secondPass() {
    for (std::size_t k = 0; k < rows.size(); ++k) {
      BandIdentificationOptions o = bopt;
      o.groups.clear();
      for (std::size_t g = 0; g < ng; ++g) {
        if (c.source[g] == static_cast<int>(k)) o.groups.push_back(bopt.groups[g]);
      }
      fit_rmse[k] = first[k].rmse;
      if (o.groups.empty()) continue;
      const Eigen::MatrixXd tau = othersTakenOff(k);
      const BandIdentificationResult pm = identifyBands(rows[k].samples, tau, o);
      fit_rmse[k] = pm.rmse;
      for (std::size_t g = 0; g < ng; ++g) {
        if (c.source[g] != static_cast<int>(k)) continue;
        const int pg = groupIn(pm, bopt.groups[g].name);
        if (pg >= 0 && std::isfinite(pm.stiffness[pg]) && pm.group_identifiable[pg]) {
          take(g, k, pm, pg);
        } else {
          c.why_not[g] = label[k] + " (others' torque taken off): " + (pg >= 0 ? pm.group_reason[pg] : "not fitted");
          why_uncertainty[g] = uncertainty(k, pm, pg);
          c.k[g] = std::nan("");
        }
      }
    }
  }

  // The viscoelastic wire model (band_relaxation.h): per motion, the
  // Maxwell arms of the groups it is the source of, fitted at the
  // elastic natural lengths; then k and l0 again on the curve with the
  // arms' torque off, and once more at the new natural lengths.
  void viscoelastic() {
    for (std::size_t k = 0; hasMaxwellArms(band_model) && k < rows.size(); ++k) {
      BandIdentificationOptions o = bopt;
      o.groups.clear();
      std::vector<std::size_t> mine;
      for (std::size_t g = 0; g < ng; ++g) {
        if (c.source[g] != static_cast<int>(k)) continue;
        o.groups.push_back(bopt.groups[g]);
        mine.push_back(g);
      }
      if (mine.empty()) continue;
      const int nb = static_cast<int>(band_names.size());
      const Eigen::VectorXd target = othersTakenOff(k).col(0);
      for (int pass = 0; pass < 4; ++pass) {
        RelaxationRows rr;
        rr.time = curves[k]->time;
        rr.sample = rows[k].sample;
        rr.num_groups = static_cast<int>(mine.size());
        rr.stretch = Eigen::MatrixXd::Zero(rr.time.size(), nb);
        rr.jacobian = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rr.sample.size()), nb);
        rr.band_group.assign(static_cast<std::size_t>(nb), -1);
        bool any = false;
        for (int b = 0; b < nb; ++b) {
          const auto it = std::find(mine.begin(), mine.end(), static_cast<std::size_t>(group_of_band[static_cast<std::size_t>(b)]));
          if (group_of_band[static_cast<std::size_t>(b)] < 0 || it == mine.end() || !std::isfinite(c.l0[b])) continue;
          rr.band_group[static_cast<std::size_t>(b)] = static_cast<int>(it - mine.begin());
          rr.stretch.col(b) = (motion_lengths[k].col(b).array() - c.l0[b]).max(0.0).matrix();
          rr.jacobian.col(b) = rows[k].samples.jacobian[static_cast<std::size_t>(b)].col(0);
          any = true;
        }
        if (!any) break;
        const RelaxationFit rf = fitRelaxation(rr, target);
        // The elastic refit on the rows where every band pulls as A(25)
        // can say, with the arms' torque taken off.
        std::vector<Eigen::Index> keep;
        for (std::size_t r = 0; r < rf.clamped.size(); ++r) {
          if (!rf.clamped[r]) keep.push_back(static_cast<Eigen::Index>(r));
        }
        const Eigen::Index nk = static_cast<Eigen::Index>(keep.size());
        // No relaxation in these motions (or too few rows left to refit on):
        // the elastic estimates stand, with no arm (a later round keeps the
        // last round's).
        if (!rf.found || nk < 4 * static_cast<Eigen::Index>(mine.size() + 2 * static_cast<std::size_t>(nb))) {
          for (std::size_t g : mine) {
            if (pass > 0) continue;
            km[g] = 0.0;
            relaxation[g] = std::nan("");
          }
          break;
        }
        WireSamples kept = rows[k].samples;
        kept.length.resize(nk, nb);
        Eigen::MatrixXd tau(nk, 1);
        for (int b = 0; b < nb; ++b) kept.jacobian[static_cast<std::size_t>(b)].resize(nk, 1);
        for (Eigen::Index r = 0; r < nk; ++r) {
          kept.length.row(r) = rows[k].samples.length.row(keep[static_cast<std::size_t>(r)]);
          for (int b = 0; b < nb; ++b) {
            kept.jacobian[static_cast<std::size_t>(b)](r, 0) =
                rows[k].samples.jacobian[static_cast<std::size_t>(b)](keep[static_cast<std::size_t>(r)], 0);
          }
          tau(r, 0) = target[keep[static_cast<std::size_t>(r)]] - rf.arm_torque[keep[static_cast<std::size_t>(r)]];
        }
        const BandIdentificationResult pm = identifyBands(kept, tau, o);
        fit_rmse[k] = pm.rmse;
        for (std::size_t i = 0; i < mine.size(); ++i) {
          const std::size_t g = mine[i];
          const int pg = groupIn(pm, bopt.groups[g].name);
          if (pg >= 0 && std::isfinite(pm.stiffness[pg]) && pm.group_identifiable[pg]) {
            take(g, k, pm, pg, keep);
            km[g] = rf.relaxing_stiffness[static_cast<Eigen::Index>(i)];
            relaxation[g] = rf.relaxation_time;
          } else {
            c.why_not[g] = label[k] + " (viscoelastic, the arms' torque taken off): " +
                           (pg >= 0 ? pm.group_reason[pg] : "not fitted");
            why_uncertainty[g] = uncertainty(k, pm, pg, keep);
            c.k[g] = std::nan("");
            km[g] = relaxation[g] = std::nan("");
          }
        }
      }
    }
  }

  // Group g's arm per unit stiffness over motion k's samples (empty: none).
  Eigen::VectorXd armOf(std::size_t g, std::size_t k, std::size_t b) const {
      if (!hasMaxwellArms(band_model) || !(km[g] > 0.0) || !std::isfinite(relaxation[g]) || !(c.k[g] > 0.0)) {
        return Eigen::VectorXd();
      }
      return maxwellArmTension(capstan_rows[k].time, capstan_rows[k].length[b], c.l0[b], km[g] / c.k[g], relaxation[g]);
  }

  // Motion k's curve with the torque of the groups fitted elsewhere taken
  // off, each by the capstan model at its own friction (0, A(25), for a
  // group the elastic fit gave): the other groups rub too, and their
  // one-tension torque would leave their friction's share in the curve.
  Eigen::VectorXd capstanOthersTakenOff(std::size_t k) const {
      const CapstanRows& cr = capstan_rows[k];
      Eigen::VectorXd tau = rows[k].tau.col(0);
      for (std::size_t b = 0; b < band_names.size(); ++b) {
        const int g = group_of_band[b];
        if (g < 0 || c.source[g] == static_cast<int>(k) || !std::isfinite(c.k[g]) || !std::isfinite(c.l0[b])) continue;
        const Eigen::MatrixXd t = capstanTensionPerStiffness(cr.length[b], cr.turn[b], c.l0[b],
                                                             std::isfinite(friction[g]) ? friction[g] : 0.0,
                                                             armOf(static_cast<std::size_t>(g), k, b));
        for (Eigen::Index r = 0; r < tau.size(); ++r) {
          // A(21) per segment, as the capstan fit's own columns.
          tau[r] += c.k[g] * t.row(cr.sample[static_cast<std::size_t>(r)]).dot(cr.jacobian[b].row(r));
        }
      }
      return tau;
  }

  // The capstan wire model (band_capstan.h): per motion, its groups'
  // stiffness, its bands' natural lengths and one friction coefficient,
  // the material's stick and slip replayed over the whole motion from the
  // elastic fit's natural lengths. With the arms too (viscoelastic-capstan)
  // they start from the viscoelastic fit's above and are refined with the
  // friction: the one-tension fit lent them some of the friction's work.
  void capstan() {
    if (hasCapstanFriction(band_model)) {
      for (std::size_t k = 0; k < rows.size(); ++k) {
        capstan_rows.push_back(sampleCapstanRows(model, wires, curves[k]->angle, rows[k].sample, rows[k].joint));
        capstan_rows.back().time = curves[k]->time;
      }
    }
    // Twice over the motions: the second round takes the others off with
    // the friction and natural lengths the first found for them.
    for (std::size_t step = 0; hasCapstanFriction(band_model) && step < 2 * rows.size(); ++step) {
      const std::size_t k = step % rows.size();
      // The groups this motion identifies, and those no motion identifies
      // elastically that matter most here: the one tension's error may be
      // what made them unidentifiable. Their start is this motion's
      // least-squares natural lengths.
      std::vector<std::size_t> mine;
      for (std::size_t g = 0; g < ng; ++g) {
        if (c.source[g] == static_cast<int>(k) && std::isfinite(c.k[g])) {
          mine.push_back(g);
        } else if (c.source[g] < 0 && tried[g] == static_cast<int>(k)) {
          for (std::size_t b = 0; b < band_names.size(); ++b) {
            if (group_of_band[b] == static_cast<int>(g)) c.l0[b] = first[k].natural_length[static_cast<Eigen::Index>(b)];
          }
          mine.push_back(g);
        }
      }
      if (mine.empty()) continue;
      CapstanRows cr = capstan_rows[k];
      cr.num_groups = static_cast<int>(mine.size());
      Eigen::VectorXd start = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(band_names.size()), std::nan(""));
      for (std::size_t b = 0; b < band_names.size(); ++b) {
        const auto it = std::find(mine.begin(), mine.end(), static_cast<std::size_t>(group_of_band[b]));
        // A start the elastic fit could not give (no finite, positive
        // natural length: the group was not identifiable) is no start.
        if (group_of_band[b] < 0 || it == mine.end() || !(c.l0[b] > 0.0 && std::isfinite(c.l0[b]))) continue;
        cr.band_group[b] = static_cast<int>(it - mine.begin());
        start[static_cast<Eigen::Index>(b)] = c.l0[b];
      }
      if (std::all_of(cr.band_group.begin(), cr.band_group.end(), [](int g) { return g < 0; })) continue;
      // The arms' start: the motion's one tau and each group's k_m / k as
      // the viscoelastic fit found them (0 where it found none, and no
      // start at all where it found none in this motion or could not fit
      // the group: fitCapstan's scan in tau then starts them).
      const bool with_arms = hasMaxwellArms(band_model);
      CapstanArmStart arm_start;
      arm_start.ratio = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(mine.size()));
      for (std::size_t i = 0; with_arms && i < mine.size(); ++i) {
        const std::size_t g = mine[i];
        if (!(km[g] > 0.0) || !std::isfinite(relaxation[g]) || !(c.k[g] > 0.0)) continue;
        arm_start.ratio[static_cast<Eigen::Index>(i)] = km[g] / c.k[g];
        arm_start.relaxation_time = relaxation[g];
      }
      const CapstanFit cf = fitCapstan(cr, capstanOthersTakenOff(k), start, kDefaultMaxCapstanFriction, with_arms ? &arm_start : nullptr);
      fit_rmse[k] = cf.rmse;
      // The capstan fit's columns (band_capstan.h): k per group, l0 per
      // fitted band, then mu, each group's rho and log tau where free.
      std::vector<std::string> names;
      for (std::size_t g : mine) names.push_back("k:" + bopt.groups[g].name);
      for (int b : cf.parameter_band) names.push_back("l0:" + band_names[static_cast<std::size_t>(b)]);
      if (cf.friction_column) names.push_back("capstan_friction");
      for (std::size_t g : mine) {
        if (cf.arm_columns) names.push_back("arm_ratio:" + bopt.groups[g].name);
      }
      if (cf.arm_columns) names.push_back("arm_log_relaxation_time");
      for (std::size_t i = 0; i < mine.size(); ++i) {
        const std::size_t g = mine[i];
        const double kg = cf.stiffness[static_cast<Eigen::Index>(i)], rstd = cf.relative_std[static_cast<Eigen::Index>(i)];
        const Uncertainty u = uncertainty(k, cf.jacobian, names, static_cast<int>(i));
        if (kg > 0.0 && std::isfinite(rstd) && rstd <= bopt.max_relative_std) {
          taken_uncertainty[g] = u;
          c.source[g] = static_cast<int>(k);
          c.k[g] = kg;
          c.rstd[g] = rstd;
          friction[g] = cf.friction;
          if (with_arms) {
            km[g] = cf.relaxing_stiffness[static_cast<Eigen::Index>(i)];
            relaxation[g] = cf.relaxation_time;
          }
          for (std::size_t b = 0; b < band_names.size(); ++b) {
            if (group_of_band[b] != static_cast<int>(g) || !std::isfinite(cf.natural_length[static_cast<Eigen::Index>(b)])) continue;
            c.l0[b] = cf.natural_length[static_cast<Eigen::Index>(b)];
            c.taut[b] = static_cast<int>((cr.length[b].rowwise().sum().array() > c.l0[b]).count());
          }
        } else {
          char buf[160];
          std::snprintf(buf, sizeof buf, "stiffness %.3g N/m, relative std %.3g %% (limit %.3g %%), friction %.3g",
                        kg, 100.0 * rstd, 100.0 * bopt.max_relative_std, cf.friction);
          c.why_not[g] = label[k] + " (capstan): " + buf;
          why_uncertainty[g] = u;
          c.k[g] = std::nan("");
        }
      }
    }
  }

  MethodFit result() const {
    MethodFit fit;
    fit.method = method;
    for (double e : fit_rmse) fit.fit_rmse = std::max(fit.fit_rmse, e);
    for (std::size_t g = 0; g < ng; ++g) {
      GroupEstimate e;
      e.name = bopt.groups[g].name;
      e.bands = bopt.groups[g].bands;
      e.identifiable = c.source[g] >= 0 && std::isfinite(c.k[g]);
      e.stiffness = e.identifiable ? c.k[g] : std::nan("");
      e.relative_std = e.identifiable ? c.rstd[g] : std::nan("");
      e.from = c.source[g] >= 0 ? label[static_cast<std::size_t>(c.source[g])] : "";
      if (e.identifiable) {
        e.relaxing_stiffness = km[g];
        e.relaxation_time = relaxation[g];
        e.capstan_friction = friction[g];
      }
      if (!e.identifiable) e.reason = c.why_not[g].empty() ? "no motion's fit determines it" : c.why_not[g];
      const Uncertainty& u = e.identifiable ? taken_uncertainty[g] : why_uncertainty[g];
      e.correlations = u.correlations;
      e.information = u.information;
      fit.groups.push_back(e);
    }
    for (std::size_t b = 0; b < band_names.size(); ++b) {
      const int g = group_of_band[b];
      BandEstimate be;
      be.name = band_names[b];
      be.group = g >= 0 ? bopt.groups[static_cast<std::size_t>(g)].name : "";
      const bool known = g >= 0 && fit.groups[static_cast<std::size_t>(g)].identifiable;
      be.natural_length = known ? c.l0[b] : std::nan("");
      be.taut_samples = known ? c.taut[b] : 0;
      fit.bands.push_back(be);
    }
    return fit;
  }
};

}  // namespace

MethodFit fitMethod(const SuitFitSetup& setup, SupportMethod m) {
  MethodFitter f(setup, m);
  f.firstPass();
  f.secondPass();
  if (hasMaxwellArms(setup.band_model)) f.viscoelastic();
  if (hasCapstanFriction(setup.band_model)) f.capstan();
  return f.result();
}

}  // namespace suitsim::eval
