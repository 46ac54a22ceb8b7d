#include "suitsim/report/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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
      for (const eval::BandRoute& r : suit.routes) {
        if (r.group == g) {
          s.group_stiffness.push_back(trueBand(bands, r.name).stiffness);
          break;
        }
      }
    }
    for (const eval::BandRoute& r : suit.routes) s.natural_length.push_back(trueBand(bands, r.name).natural_length);
    for (const eval::MethodFit& m : suit.methods) {
      std::vector<double> err;
      for (std::size_t g = 0; g < m.groups.size(); ++g) {
        const double k = m.groups[g].stiffness;
        err.push_back(std::isfinite(k) ? (k - s.group_stiffness[g]) / s.group_stiffness[g] : std::nan(""));
      }
      s.relative_error.push_back(err);
    }
    score.suits.push_back(std::move(s));
  }
  for (const eval::SupportCurves& c : result.curves) {
    const std::vector<RobotBand>& bands = bandsOf(c.suit_trial);
    const std::vector<eval::WireGeometry> wires = eval::makeWireGeometries(model, bands);
    Eigen::VectorXd k(bands.size()), l0(bands.size());
    for (std::size_t b = 0; b < bands.size(); ++b) {
      k[b] = bands[b].stiffness;
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
  return score;
}

}  // namespace suitsim::report
