// The one compiled copy of the singular value decompositions that
// suitsim/core/decompositions.h declares `extern` (it says why).
#include "suitsim/core/decompositions.h"

template class Eigen::BDCSVD<Eigen::MatrixXd>;
template class Eigen::JacobiSVD<Eigen::MatrixXd>;
