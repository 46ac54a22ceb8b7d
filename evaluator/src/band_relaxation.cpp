// A viscoelastic wire model for A(26) (see band_relaxation.h).
#include "suitsim/eval/band_relaxation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/QR>

#include "suitsim/core/decompositions.h"
#include "suitsim/core/stop.h"

namespace suitsim::eval {

bool parseBandModel(const std::string& word, BandModel* out) {
  if (word == "elastic") *out = BandModel::Elastic;
  else if (word == "viscoelastic") *out = BandModel::Viscoelastic;
  else if (word == "capstan") *out = BandModel::Capstan;
  else if (word == "viscoelastic-capstan") *out = BandModel::ViscoelasticCapstan;
  else return false;
  return true;
}

const char* bandModelName(BandModel model) {
  switch (model) {
    case BandModel::Viscoelastic: return "viscoelastic";
    case BandModel::Capstan: return "capstan";
    case BandModel::ViscoelasticCapstan: return "viscoelastic-capstan";
    case BandModel::Elastic: break;
  }
  return "elastic";
}

Eigen::VectorXd maxwellArmStretch(const Eigen::VectorXd& time, const Eigen::VectorXd& stretch, double tau) {
  if (time.size() != stretch.size()) throw std::invalid_argument("maxwellArmStretch: one time per stretch sample");
  if (!(tau > 0.0)) throw std::invalid_argument("maxwellArmStretch: the relaxation time must be > 0");
  Eigen::VectorXd a(stretch.size());
  if (stretch.size() == 0) return a;
  a[0] = 0.0;  // starts relaxed
  for (Eigen::Index n = 0; n + 1 < stretch.size(); ++n) {
    const double dt = time[n + 1] - time[n];
    if (!(dt > 0.0)) throw std::invalid_argument("maxwellArmStretch: the sample times must increase");
    // a' = e' - a / tau with e' constant over the interval: exact.
    const double h = dt / tau, decay = std::exp(-h);
    const double rate = (stretch[n + 1] - stretch[n]) / dt;
    a[n + 1] = a[n] * decay + rate * tau * (-std::expm1(-h));
  }
  return a;
}

namespace {

struct Trial {
  double rmse = 0.0;
  std::vector<bool> clamped;     // (R)
  Eigen::VectorXd coefficients;  // [k_0..k_G-1, km_0..km_G-1]
  Eigen::MatrixXd columns;       // (R x 2G)
};

// Least squares of the torque on the elastic and arm columns at tau.
//
// A band cannot push: where k e + k_m a < 0 (shortening faster than the arm
// relaxes) its tension is 0, not negative (A(25), and the engine's clamp).
// So the fit is an active-set iteration: solve, mark each band slack at
// the fit rows where its tension comes out negative, drop it there, solve
// again, until the marks stop changing.
Trial solveAt(const RelaxationRows& rows, const Eigen::VectorXd& torque, double tau, const std::vector<bool>& arm_on) {
  const Eigen::Index nr = static_cast<Eigen::Index>(rows.sample.size());
  const int nb = static_cast<int>(rows.band_group.size());
  const int ng = rows.num_groups;
  std::vector<Eigen::VectorXd> e(static_cast<std::size_t>(nb)), a(static_cast<std::size_t>(nb));
  for (int b = 0; b < nb; ++b) {
    if (rows.band_group[static_cast<std::size_t>(b)] < 0) continue;
    e[static_cast<std::size_t>(b)] = rows.stretch.col(b);
    a[static_cast<std::size_t>(b)] = maxwellArmStretch(rows.time, e[static_cast<std::size_t>(b)], tau);
  }
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> slack =
      Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>::Constant(nr, nb, false);
  Trial t;
  // Besides k and k_m per group, a column per band for a shift d of its
  // natural length, +J k d where the band pulls: the elastic fit's l0 was
  // found without the arm and is biased by the loop it could not explain.
  for (int iteration = 0; iteration < 20; ++iteration) {
    throwIfStopped();  // Ctrl-C or SIGTERM (core/stop.h)
    t.columns = Eigen::MatrixXd::Zero(nr, 2 * ng + nb);
    for (int b = 0; b < nb; ++b) {
      const int g = rows.band_group[static_cast<std::size_t>(b)];
      if (g < 0) continue;
      for (Eigen::Index r = 0; r < nr; ++r) {
        if (slack(r, b)) continue;
        const Eigen::Index s = rows.sample[static_cast<std::size_t>(r)];
        // A(21): the band's tension f acts on the joints as -J^T f.
        t.columns(r, g) -= rows.jacobian(r, b) * e[static_cast<std::size_t>(b)][s];
        if (arm_on[static_cast<std::size_t>(g)]) t.columns(r, ng + g) -= rows.jacobian(r, b) * a[static_cast<std::size_t>(b)][s];
        if (e[static_cast<std::size_t>(b)][s] > 0.0) t.columns(r, 2 * ng + b) = rows.jacobian(r, b);
      }
    }
    // Columns scaled to unit norm: the arm's are much smaller than the
    // elastic ones where tau is short.
    Eigen::VectorXd scale = t.columns.colwise().norm().transpose();
    for (Eigen::Index j = 0; j < scale.size(); ++j) scale[j] = scale[j] > 0.0 ? scale[j] : 1.0;
    const Eigen::MatrixXd scaled = t.columns * scale.cwiseInverse().asDiagonal();
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(scaled);
    t.coefficients = scale.cwiseInverse().asDiagonal() * Eigen::VectorXd(qr.solve(torque));
    for (int g = 0; g < ng; ++g) {
      if (!arm_on[static_cast<std::size_t>(g)]) t.coefficients[ng + g] = 0.0;
    }
    bool changed = false;
    for (int b = 0; b < nb; ++b) {
      const int g = rows.band_group[static_cast<std::size_t>(b)];
      if (g < 0) continue;
      for (Eigen::Index r = 0; r < nr; ++r) {
        const Eigen::Index s = rows.sample[static_cast<std::size_t>(r)];
        const double f = t.coefficients[g] * e[static_cast<std::size_t>(b)][s] +
                         t.coefficients[ng + g] * a[static_cast<std::size_t>(b)][s] -
                         (e[static_cast<std::size_t>(b)][s] > 0.0 ? t.coefficients[2 * ng + b] : 0.0);
        if ((f < 0.0) != slack(r, b)) {
          slack(r, b) = f < 0.0;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  const Eigen::VectorXd r = torque - t.columns * t.coefficients;
  t.rmse = nr > 0 ? std::sqrt(r.squaredNorm() / static_cast<double>(nr)) : 0.0;
  t.clamped.assign(static_cast<std::size_t>(nr), false);
  for (int b = 0; b < nb; ++b) {
    if (rows.band_group[static_cast<std::size_t>(b)] < 0) continue;
    for (Eigen::Index q = 0; q < nr; ++q) {
      if (slack(q, b) && e[static_cast<std::size_t>(b)][rows.sample[static_cast<std::size_t>(q)]] > 0.0) {
        t.clamped[static_cast<std::size_t>(q)] = true;
      }
    }
  }
  return t;
}

}  // namespace

RelaxationFit fitRelaxation(const RelaxationRows& rows, const Eigen::VectorXd& torque, double min_tau,
                            double max_tau) {
  const Eigen::Index nr = static_cast<Eigen::Index>(rows.sample.size());
  if (torque.size() != nr || rows.jacobian.rows() != nr ||
      rows.jacobian.cols() != static_cast<Eigen::Index>(rows.band_group.size()) ||
      rows.stretch.cols() != rows.jacobian.cols() || rows.stretch.rows() != rows.time.size()) {
    throw std::invalid_argument("fitRelaxation: inconsistent sizes");
  }
  if (rows.num_groups <= 0) throw std::invalid_argument("fitRelaxation: no fitted group");
  if (!(min_tau > 0.0 && max_tau > min_tau)) throw std::invalid_argument("fitRelaxation: bad relaxation time range");
  for (std::size_t r = 0; r < rows.sample.size(); ++r) {
    if (rows.sample[r] < 0 || rows.sample[r] >= rows.time.size()) throw std::invalid_argument("fitRelaxation: sample out of range");
  }
  // The grid, 8 points per decade of tau, then golden section on log tau
  // around its best point: the residual is smooth in log tau and, over a
  // motion of a few seconds, has one minimum where the arm explains the loop.
  const double lo = std::log(min_tau), hi = std::log(max_tau);
  const int n_grid = std::max(2, static_cast<int>(std::ceil((hi - lo) / std::log(10.0) * 8.0)) + 1);
  const auto search = [&](const std::vector<bool>& arm_on) {
    const auto cost = [&](double log_tau) { return solveAt(rows, torque, std::exp(log_tau), arm_on).rmse; };
    std::vector<double> grid(static_cast<std::size_t>(n_grid)), at(static_cast<std::size_t>(n_grid));
    int best = 0;
    for (int i = 0; i < n_grid; ++i) {
      grid[static_cast<std::size_t>(i)] = lo + (hi - lo) * i / (n_grid - 1);
      at[static_cast<std::size_t>(i)] = cost(grid[static_cast<std::size_t>(i)]);
      if (at[static_cast<std::size_t>(i)] < at[static_cast<std::size_t>(best)]) best = i;
    }
    double a = grid[static_cast<std::size_t>(std::max(best - 1, 0))];
    double b = grid[static_cast<std::size_t>(std::min(best + 1, n_grid - 1))];
    const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
    double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
    double f1 = cost(x1), f2 = cost(x2);
    for (int it = 0; it < 30 && b - a > 1e-4; ++it) {
      throwIfStopped();
      if (f1 < f2) {
        b = x2;
        x2 = x1;
        f2 = f1;
        x1 = b - phi * (b - a);
        f1 = cost(x1);
      } else {
        a = x1;
        x1 = x2;
        f1 = f2;
        x2 = a + phi * (b - a);
        f2 = cost(x2);
      }
    }
    const double log_tau = f1 < f2 ? x1 : x2;
    return at[static_cast<std::size_t>(best)] < std::min(f1, f2) ? grid[static_cast<std::size_t>(best)] : log_tau;
  };
  const int ng = rows.num_groups;
  std::vector<bool> arm_on(static_cast<std::size_t>(ng), true);
  double log_tau = search(arm_on);
  Trial t = solveAt(rows, torque, std::exp(log_tau), arm_on);
  // A negative arm is no material's (its pull would grow as it relaxes):
  // it is the fit borrowing the arm for some other error. Those groups get
  // none, and tau is searched again for the others.
  bool negative = false;
  for (int g = 0; g < ng; ++g) {
    if (t.coefficients[ng + g] < 0.0) {
      arm_on[static_cast<std::size_t>(g)] = false;
      negative = true;
    }
  }
  const bool any_arm = std::find(arm_on.begin(), arm_on.end(), true) != arm_on.end();
  if (negative && any_arm) {
    log_tau = search(arm_on);
    t = solveAt(rows, torque, std::exp(log_tau), arm_on);
  }
  RelaxationFit out;
  // k alone, for the report's comparison.
  const Eigen::MatrixXd el = t.columns.leftCols(ng);
  const Eigen::VectorXd k_el = el.colPivHouseholderQr().solve(torque);
  out.elastic_rmse = nr > 0 ? std::sqrt((torque - el * k_el).squaredNorm() / static_cast<double>(nr)) : 0.0;
  // tau at an end of the range is no relaxation these motions can show:
  // a very short arm acts as a damper, a very long one as a second spring.
  const double half_step = 0.5 * (hi - lo) / (n_grid - 1);
  out.found = any_arm && log_tau > lo + half_step && log_tau < hi - half_step;
  if (!out.found) {
    out.relaxation_time = std::nan("");
    out.stiffness = k_el;
    out.relaxing_stiffness = Eigen::VectorXd::Zero(ng);
    out.arm_torque = Eigen::VectorXd::Zero(nr);
    out.clamped.assign(static_cast<std::size_t>(nr), false);
    out.rmse = out.elastic_rmse;
    return out;
  }
  out.relaxation_time = std::exp(log_tau);
  out.stiffness = t.coefficients.head(ng);
  out.relaxing_stiffness = t.coefficients.segment(ng, ng);
  out.arm_torque = t.columns.middleCols(ng, ng) * out.relaxing_stiffness;
  out.rmse = t.rmse;
  out.clamped = t.clamped;
  return out;
}

}  // namespace suitsim::eval
