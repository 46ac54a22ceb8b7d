// Greedy choice (selection.h).
#include "suitsim/design/selection.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "suitsim/design/excitation.h"
#include "suitsim/eval/least_squares.h"

namespace suitsim::design {

double conditionScore(const Eigen::MatrixXd& triangle) {
  const ExcitationMeasures m = measureExcitation(triangle);
  // The condition number leaves unexcited columns out, so a set that never
  // moves a joint would look better for it: every column left out counts
  // first. A set whose excited columns are still dependent (infinite
  // condition number) ranks after every finite one, by its D-optimality.
  double within = std::min(m.condition_number, 1e13);
  if (!std::isfinite(m.condition_number)) within = 1e14 - std::max(-1e13, std::min(1e13, m.log_det));
  return m.unexcited_columns * kUnexcitedPenalty + within;
}

Selection greedySelect(const Eigen::MatrixXd& start, const std::vector<Eigen::MatrixXd>& pool, int count,
                       const SelectionScore& score, int threads) {
  Selection out;
  out.triangle = start;
  std::vector<bool> taken(pool.size(), false);
  const int n = static_cast<int>(pool.size());
  const eval::EigenSingleThreaded sequential;  // the pool is spread over the threads instead
  for (int round = 0; round < count; ++round) {
    std::vector<double> value(pool.size(), std::numeric_limits<double>::quiet_NaN());
#pragma omp parallel for schedule(dynamic) num_threads(threads > 0 ? threads : omp_get_max_threads())
    for (int c = 0; c < n; ++c) {
      if (taken[static_cast<std::size_t>(c)] || pool[static_cast<std::size_t>(c)].size() == 0) continue;
      value[static_cast<std::size_t>(c)] = score(stackTriangles(out.triangle, pool[static_cast<std::size_t>(c)]));
    }
    int best = -1;
    for (int c = 0; c < n; ++c) {
      const double v = value[static_cast<std::size_t>(c)];
      if (v != v) continue;  // NaN: not a candidate
      if (best < 0 || v < value[static_cast<std::size_t>(best)]) best = c;
    }
    if (best < 0) break;
    taken[static_cast<std::size_t>(best)] = true;
    out.chosen.push_back(best);
    out.score.push_back(value[static_cast<std::size_t>(best)]);
    out.triangle = stackTriangles(out.triangle, pool[static_cast<std::size_t>(best)]);
  }
  return out;
}

Selection randomSelect(const Eigen::MatrixXd& start, const std::vector<Eigen::MatrixXd>& pool, int count,
                       RandomStream& stream) {
  Selection out;
  out.triangle = start;
  std::vector<int> open;
  for (std::size_t c = 0; c < pool.size(); ++c) {
    if (pool[c].size() > 0) open.push_back(static_cast<int>(c));
  }
  for (int round = 0; round < count && !open.empty(); ++round) {
    // One uniform draw per choice: index floor(u n), n the entries left.
    const std::size_t k = std::min(open.size() - 1, static_cast<std::size_t>(stream.uniform() * static_cast<double>(open.size())));
    const int c = open[k];
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(k));
    out.chosen.push_back(c);
    out.triangle = stackTriangles(out.triangle, pool[static_cast<std::size_t>(c)]);
    out.score.push_back(conditionScore(out.triangle));
  }
  return out;
}

}  // namespace suitsim::design
