#pragma once
// Eigen's dense decompositions of dynamic-size matrices, compiled once, in
// core (src/decompositions_*.cpp), instead of in every file that uses one.
//
// Why: Eigen's decompositions are class templates, so each file that
// factorises a matrix compiles the whole algorithm again. BDCSVD alone cost
// 47 of the 59 s of CPU that GCC took for evaluator/src/identification.cpp,
// and four files use it (docs/testing.md, "How the build and the tests are
// kept short"). The `extern template` declarations below tell every file
// that includes this header to call the one compiled copy instead.
//
// Only what such a declaration reaches is here: a decomposition whose work
// is done by non-template members (BDCSVD::compute, the QRs' and
// FullPivLU's computeInPlace), and only on MatrixXd (a fixed-size matrix
// is another type, and cheap to compile). The eigenvalue solvers, LLT
// and LDLT do their work in member templates and free function templates,
// which an explicit instantiation of the class does not compile, so
// declaring them here would save nothing.
//
// Include it wherever one of these types is used; a file that does not
// still compiles and runs the same, only slower to build. The instructions
// are the same either way (the same flags, -ffp-contract=off, compile both),
// so results do not change by one bit.

#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

// Singular value decompositions (decompositions_svd.cpp); BDCSVD hands small
// blocks to JacobiSVD.
extern template class Eigen::BDCSVD<Eigen::MatrixXd>;
extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;

// Orthogonal factorisations (decompositions_qr.cpp).
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;

// The full-pivoting LU (decompositions_lu.cpp).
extern template class Eigen::FullPivLU<Eigen::MatrixXd>;
