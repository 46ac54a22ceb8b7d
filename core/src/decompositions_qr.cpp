// The one compiled copy of the orthogonal factorisations that
// suitsim/core/decompositions.h declares `extern` (it says why).
#include "suitsim/core/decompositions.h"

template class Eigen::HouseholderQR<Eigen::MatrixXd>;
template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;
