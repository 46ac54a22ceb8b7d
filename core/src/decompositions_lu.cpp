// The one compiled copy of the full-pivoting LU that
// suitsim/core/decompositions.h declares `extern` (it says why).
#include "suitsim/core/decompositions.h"

template class Eigen::FullPivLU<Eigen::MatrixXd>;
