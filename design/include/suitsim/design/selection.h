// Greedy choice of motions from a library (Kang et al. 2023, (11)-(12)):
// add, one at a time, the candidate whose rows, stacked on what is already
// chosen (or measured), give the best score: the condition number of the
// stacked regressor with unit-norm columns, or, in the curriculum, the
// predicted reliability of the parameters (reliability.h).
#pragma once

#include <functional>
#include <vector>

#include <Eigen/Core>

#include "suitsim/core/random.h"

namespace suitsim::design {

/// Lower is better; takes the triangle of a stacked motion set.
using SelectionScore = std::function<double(const Eigen::MatrixXd& triangle)>;

/// The condition number (excitation.h), plus kUnexcitedPenalty for every
/// column left out of it as unexcited (zero or repeated): a set that excites
/// more columns always scores better. Where the excited columns are still
/// dependent (infinite condition number) the score is 1e14 − log det: after
/// every finite condition number, the better determinant first.
double conditionScore(const Eigen::MatrixXd& triangle);
inline constexpr double kUnexcitedPenalty = 1e15;

struct Selection {
  std::vector<int> chosen;        ///< indices into the pool, in the order chosen
  std::vector<double> score;      ///< the score after each choice
  Eigen::MatrixXd triangle;       ///< start stacked with every chosen one
};

/// Chooses `count` of `pool` (triangles, P x P; an empty one is never
/// chosen) greedily on top of `start` (P x P; zero for nothing yet). Ties
/// (and a pool where nothing improves an infinite score) go to the lowest
/// index. `threads`: OpenMP threads over the pool (0: the default); the
/// choice does not depend on it.
Selection greedySelect(const Eigen::MatrixXd& start, const std::vector<Eigen::MatrixXd>& pool, int count,
                       const SelectionScore& score, int threads = 0);

/// Kang et al.'s baseline (section 5.1): `count` entries of `pool` (non-empty
/// triangles) drawn uniformly without replacement from `stream`, stacked on
/// `start`; fewer when the pool has fewer. `score` records each set's
/// conditionScore, for the report.
Selection randomSelect(const Eigen::MatrixXd& start, const std::vector<Eigen::MatrixXd>& pool, int count,
                       RandomStream& stream);

}  // namespace suitsim::design
