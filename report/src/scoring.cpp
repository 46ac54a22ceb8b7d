#include "suitsim/report/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "suitsim/eval/signals.h"
#include "suitsim/eval/wires.h"

namespace suitsim::report {

namespace {

double rms(const Eigen::VectorXd& x) { return x.size() ? std::sqrt(x.squaredNorm() / static_cast<double>(x.size())) : 0.0; }

const RobotBand& trueBand(const std::vector<RobotBand>& bands, const std::string& name) {
  for (const RobotBand& b : bands) {
    if (b.name == name) return b;
  }
  throw std::invalid_argument("scoring: the truth has no band '" + name + "'");
}

DeviceScore scoreDevice(const eval::RigidModel& model, const eval::DeviceEvaluation& d, const Truth& truth) {
  DeviceScore ds;
  ds.device = d.device;
  std::vector<int> joints;
  for (const std::string& j : d.joints) joints.push_back(eval::jointIndex(model, j));
  const std::size_t nm = std::size(eval::kSupportMethods);
  std::vector<double> sq(nm, 0.0), sq_moving(nm, 0.0);
  ds.joints = d.joints;
  ds.joint_truth_sq.assign(joints.size(), 0.0);
  ds.joint_moving_truth_sq.assign(joints.size(), 0.0);
  ds.joint_samples.assign(joints.size(), 0);
  ds.joint_moving_samples.assign(joints.size(), 0);
  ds.joint_moving_error_sq.assign(joints.size(), std::vector<double>(nm, 0.0));
  ds.joint_moving_band_truth_sq.assign(joints.size(), 0.0);
  ds.joint_moving_band_error_sq.assign(joints.size(), std::vector<double>(nm, 0.0));
  std::vector<double> sq_band(nm, 0.0);
  double truth_sq_band = 0.0;
  double truth_sq = 0.0, truth_sq_moving = 0.0, count = 0.0;
  for (const eval::SupportCurves& c : d.curves) {
    const auto it = truth.strap_torque.find(c.suit_trial);
    if (it == truth.strap_torque.end()) {
      throw std::invalid_argument("scoring: the truth has no strap torques for trial '" + c.suit_trial + "'");
    }
    const Truth::StrapSeries& series = it->second;
    const Eigen::Index n = c.time.size();
    Eigen::MatrixXd t = Eigen::MatrixXd::Zero(n, model.num_joints), band = t;
    // The truth in the evaluator's band: its low-pass at the truth's rate.
    const std::size_t ns = series.time.size();
    const double rate = ns > 1 ? (static_cast<double>(ns) - 1.0) / (series.time.back() - series.time.front()) : 0.0;
    const bool filter = d.band_hz > 0.0 && ns > 20 && d.band_hz < 0.5 * rate;
    const eval::ButterworthLowPass lp = filter ? eval::designButterworthLowPass(4, d.band_hz, rate) : eval::ButterworthLowPass{};
    for (int j : joints) {
      const auto col = series.torque.find(model.joint_name[j]);
      if (col == series.torque.end()) {
        throw std::invalid_argument("scoring: trial '" + c.suit_trial + "' has no strap torque of joint '" +
                                    model.joint_name[j] + "'");
      }
      const Eigen::VectorXd raw = Eigen::Map<const Eigen::VectorXd>(col->second.data(), static_cast<Eigen::Index>(ns));
      const Eigen::VectorXd low = filter ? Eigen::VectorXd(eval::filterZeroPhase(lp, raw)) : raw;
      for (Eigen::Index k = 0; k < n; ++k) {
        // The curve's samples are the sensors' stamps, the truth's times.
        const auto hi = std::lower_bound(series.time.begin(), series.time.end(), c.time[k] - 1e-9);
        if (hi == series.time.end() || std::abs(*hi - c.time[k]) > 1e-6) {
          throw std::invalid_argument("scoring: trial '" + c.suit_trial + "' has no true strap torque at t = " +
                                      std::to_string(c.time[k]) + " s");
        }
        t(k, j) = col->second[static_cast<std::size_t>(hi - series.time.begin())];
        band(k, j) = low[hi - series.time.begin()];
      }
    }
    // "Moving": the joint does not rest in either trial (at rest static
    // friction holds any torque, A(7)-(8): no method can see it).
    for (Eigen::Index k = 0; k < n; ++k) {
      for (std::size_t i = 0; i < joints.size(); ++i) {
        const int j = joints[i];
        const bool rests = c.rest(k, j);
        count += 1.0;
        truth_sq += t(k, j) * t(k, j);
        ds.joint_truth_sq[i] += t(k, j) * t(k, j);
        ds.joint_samples[i] += 1;
        if (!rests) {
          truth_sq_moving += t(k, j) * t(k, j);
          ds.joint_moving_truth_sq[i] += t(k, j) * t(k, j);
          ds.joint_moving_samples[i] += 1;
          truth_sq_band += band(k, j) * band(k, j);
          ds.joint_moving_band_truth_sq[i] += band(k, j) * band(k, j);
          for (std::size_t m = 0; m < nm; ++m) {
            const double e = c.method[m](k, j) - band(k, j);
            sq_band[m] += e * e;
            ds.joint_moving_band_error_sq[i][m] += e * e;
          }
        }
        for (std::size_t m = 0; m < nm; ++m) {
          const double e = c.method[m](k, j) - t(k, j);
          sq[m] += e * e;
          if (!rests) {
            sq_moving[m] += e * e;
            ds.joint_moving_error_sq[i][m] += e * e;
          }
        }
      }
    }
    ds.truth.push_back(std::move(t));
  }
  ds.truth_rms = count > 0.0 ? std::sqrt(truth_sq / count) : 0.0;
  for (std::size_t m = 0; m < nm; ++m) {
    ds.relative_rmse.push_back(truth_sq > 0.0 ? std::sqrt(sq[m] / truth_sq) : std::nan(""));
    ds.relative_rmse_moving.push_back(truth_sq_moving > 0.0 ? std::sqrt(sq_moving[m] / truth_sq_moving) : std::nan(""));
    ds.relative_rmse_moving_in_band.push_back(truth_sq_band > 0.0 ? std::sqrt(sq_band[m] / truth_sq_band) : std::nan(""));
  }
  const auto settings = truth.device_settings.find(d.device);
  for (const eval::ImpedanceEstimate& e : d.impedance) {
    std::array<double, eval::kImpedanceParameters> t{}, rel{}, abs{};
    rel.fill(std::nan(""));
    abs.fill(std::nan(""));
    if (settings == truth.device_settings.end() || !settings->second.count(e.joint)) {
      throw std::invalid_argument("scoring: the truth has no settings of device hinge '" + e.joint + "'");
    }
    const VirtualImpedance& v = settings->second.at(e.joint);
    t = {v.inertia, v.viscous, v.coulomb, v.gravity, v.assist};
    if (e.identifiable) {
      for (int k = 0; k < eval::kImpedanceParameters; ++k) {
        abs[k] = e.estimate[k] - t[k];
        if (t[k] != 0.0) rel[k] = abs[k] / t[k];
      }
    }
    ds.impedance_truth.push_back(t);
    ds.impedance_relative_error.push_back(rel);
    ds.impedance_absolute_error.push_back(abs);
  }
  return ds;
}

}  // namespace

Score scoreEvaluation(const eval::EvaluationResult& result, const Truth& truth) {
  Score score;
  score.total_mass = truth.total_mass;
  const eval::RigidModel& model = result.identification.model;
  auto bandsOf = [&](const std::string& trial) -> const std::vector<RobotBand>& {
    const auto it = truth.bands.find(trial);
    if (it == truth.bands.end()) throw std::invalid_argument("scoring: the truth has no trial '" + trial + "'");
    return it->second;
  };
  for (const eval::SuitFit& suit : result.suits) {
    // The suit's truth from any of its trials (every trial wears the same suit).
    const eval::SupportCurves* any = nullptr;
    for (const eval::SupportCurves& c : result.curves) {
      if (c.suit == suit.suit) any = &c;
    }
    const std::vector<RobotBand>& bands = bandsOf(any->suit_trial);
    SuitScore s;
    s.suit = suit.suit;
    for (const std::string& g : suit.group_order) {
      // Bands of a group share k by design; the first band's is the group's.
      // Worn, their straps differ (<attachments spread>): the group's mean.
      double worn = 0.0;
      int members = 0;
      for (const eval::BandRoute& r : suit.routes) {
        if (r.group != g) continue;
        if (members == 0) s.group_stiffness.push_back(trueBand(bands, r.name).stiffness);
        worn += wornStiffness(trueBand(bands, r.name));
        ++members;
      }
      s.group_worn_stiffness.push_back(worn / members);
    }
    for (const eval::BandRoute& r : suit.routes) s.natural_length.push_back(trueBand(bands, r.name).natural_length);
    for (const eval::MethodFit& m : suit.methods) {
      std::vector<double> err;
      for (std::size_t g = 0; g < m.groups.size(); ++g) {
        const double k = m.groups[g].stiffness;
        err.push_back(std::isfinite(k) ? (k - s.group_stiffness[g]) / s.group_stiffness[g] : std::nan(""));
      }
      s.relative_error.push_back(err);
      std::vector<double> crb;
      for (const eval::GroupEstimate& e : m.groups) {
        crb.push_back(cramerRaoStd(e.information, truth.torque_noise, m.method,
                                   result.identification.full.torque_sensors));
      }
      s.crb_std.push_back(crb);
    }
    score.suits.push_back(std::move(s));
  }
  for (const eval::SupportCurves& c : result.curves) {
    const std::vector<RobotBand>& bands = bandsOf(c.suit_trial);
    const std::vector<eval::WireGeometry> wires = eval::makeWireGeometries(model, bands);
    Eigen::VectorXd k(bands.size()), l0(bands.size());
    for (std::size_t b = 0; b < bands.size(); ++b) {
      k[b] = wornStiffness(bands[b]);  // what the joints feel: the straps in series
      l0[b] = bands[b].natural_length;
    }
    CurveScore cs;
    eval::RigidData data(model);
    const Eigen::Index n = c.time.size();
    cs.model.resize(n, model.num_joints);
    for (Eigen::Index t = 0; t < n; ++t) {
      eval::Configuration q;
      q.joints = c.angle.row(t).transpose();
      cs.model.row(t) = eval::supportingTorque(model, data, q, wires, k, l0).transpose();
    }
    for (const eval::SuitFit& suit : result.suits) {
      for (const eval::FitJoints& f : suit.fit_joints) {
        if (suit.suit == c.suit && f.motion == c.motion) cs.joint = f.figure_joint;
      }
    }
    const int j = eval::jointIndex(model, cs.joint);
    std::vector<Eigen::Index> moving;
    for (Eigen::Index t = 0; t < n; ++t) {
      if (!c.rest(t, j)) moving.push_back(t);
    }
    Eigen::VectorXd model_moving(static_cast<Eigen::Index>(moving.size()));
    for (std::size_t r = 0; r < moving.size(); ++r) model_moving[static_cast<Eigen::Index>(r)] = cs.model(moving[r], j);
    for (const Eigen::MatrixXd& m : c.method) {
      cs.rmse.push_back(rms(m.col(j) - cs.model.col(j)));
      Eigen::VectorXd d(static_cast<Eigen::Index>(moving.size()));
      for (std::size_t r = 0; r < moving.size(); ++r) d[static_cast<Eigen::Index>(r)] = m(moving[r], j) - cs.model(moving[r], j);
      cs.moving_rmse.push_back(rms(d));
    }
    cs.model_rms = rms(cs.model.col(j));
    score.curves.push_back(std::move(cs));
  }
  for (const eval::BalanceEstimate& b : result.balance) {
    BalanceScore bs;
    bs.trial = b.trial;
    const auto it = truth.balance.find(b.trial);
    if (it != truth.balance.end() && !it->second.time.empty()) {
      // The truth at the estimate's times (the sensors' stamps are the
      // truth's sample times; linear interpolation covers any other rate).
      const Truth::BalanceSeries& t = it->second;
      double sum = 0.0, sq = 0.0, lowest = std::numeric_limits<double>::infinity();
      int defined = 0;
      for (Eigen::Index k = 0; k < b.time.size(); ++k) {
        if (b.time[k] < b.window_start || b.time[k] > b.window_end) continue;
        const auto hi = std::lower_bound(t.time.begin(), t.time.end(), b.time[k] - 1e-9);
        if (hi == t.time.end()) break;
        const std::size_t j = static_cast<std::size_t>(hi - t.time.begin());
        double truth_margin = t.margin[j];
        if (j > 0 && t.time[j] > b.time[k]) {
          const double w = (b.time[k] - t.time[j - 1]) / (t.time[j] - t.time[j - 1]);
          truth_margin = (1.0 - w) * t.margin[j - 1] + w * t.margin[j];
        }
        if (!std::isfinite(truth_margin)) continue;
        sum += truth_margin;
        lowest = std::min(lowest, truth_margin);
        ++defined;
        const double estimate = b.points[static_cast<std::size_t>(k)].margin;
        if (!std::isfinite(estimate)) continue;
        sq += (estimate - truth_margin) * (estimate - truth_margin);
        ++bs.compared;
      }
      bs.has_truth = defined > 0;
      bs.true_min_margin = lowest;
      bs.true_mean_margin = defined > 0 ? sum / defined : 0.0;
      bs.margin_rmse = bs.compared > 0 ? std::sqrt(sq / bs.compared) : std::nan("");
    }
    score.balance.push_back(bs);
  }
  for (const eval::DeviceEvaluation& d : result.devices) score.devices.push_back(scoreDevice(model, d, truth));
  return score;
}

}  // namespace suitsim::report
