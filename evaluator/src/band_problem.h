// The band fit, A(26) (band_identification.h has the method), in its
// parts, each a file: the wire samples and the stiffness groups, checked
// and screened (band_samples.cpp), the stiffness solve with the natural
// lengths by variable projection (band_projection.cpp), and the standard
// deviations and the judging of each group (band_identifiability.cpp);
// band_identification.cpp runs them. Private to the evaluator.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/QR>

#include "suitsim/core/decompositions.h"
#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/least_squares.h"

namespace suitsim::eval::band_fit {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// The fitted part of A(26): stiffness of each fitted group (eliminated,
// see the design note) and natural length of each fitted band (searched).
struct Problem {
  const WireSamples* samples = nullptr;
  VectorXd torque;                    // τ_s flattened, entry t m + c, (N m)
  std::vector<int> band;              // sample band of each fitted band, (nf)
  std::vector<int> band_k;            // fitted group of each fitted band, (nf)
  int num_k = 0;                      // fitted groups
  double torque_sq = 0.0;             // Σ ‖τ_s‖²
  VectorXd l0_lower, l0_upper;        // box for each fitted band's l0 (m), (nf)

  int numBands() const { return static_cast<int>(band.size()); }
};

// Everything one evaluation at fixed l0 gives.
struct Projection {
  MatrixXd phi;      // Φ: τ̂ = Φ k, (N m x num_k)
  MatrixXd e;        // ∂r/∂l0 per unit stiffness, (N m x nf)
  VectorXd k;        // least-squares stiffness at this l0, (num_k)
  VectorXd r;        // residual τ_s − Φ k, (N m)
  double cost = 0.0; // ‖r‖²
  MatrixXd A;        // Golub–Pereyra normal matrix of the reduced problem, (nf x nf)
  VectorXd g;        // gradient of ½ cost in l0, (nf)
  // Scratch, kept between evaluations so that they do not reallocate it.
  Eigen::ColPivHouseholderQR<MatrixXd> qr;
  MatrixXd jl;       // ∂r/∂l0 at fixed k, then its part outside range(Φ), (N m x nf)
  VectorXd c;        // E_iᵀ r, (nf)
};

// band_samples.cpp
[[noreturn]] void argumentError(const char* function, const std::string& what);
std::string shape(const MatrixXd& m);
void checkSamples(const char* function, const WireSamples& s);
void checkOptions(const char* function, const BandIdentificationOptions& options);
void assignGroups(const char* function, const WireSamples& samples, const BandIdentificationOptions& options,
                  BandIdentificationResult& res);
void screenRelevance(const WireSamples& samples, const BandIdentificationOptions& options, VectorXd& l_min,
                     VectorXd& l_range, BandIdentificationResult& res);

// band_projection.cpp
void project(const Problem& p, const VectorXd& l0, const VectorXd& width, bool jacobian, Projection& out);
void multiStart(const Problem& p, const WireSamples& samples, const BandIdentificationOptions& options,
                const VectorXd& l_min, const VectorXd& l_range, BandIdentificationResult& res, VectorXd& best_l0);

// band_identifiability.cpp
std::string figure(const char* format, double value);
void judgeGroups(const Problem& p, const WireSamples& samples, const BandIdentificationOptions& options,
                 const std::vector<int>& param_group, const VectorXd& best_l0, const Projection& fit,
                 const VectorXd& std_dev, const UnitCovariance& covariance, int nk, BandIdentificationResult& res);
// The stds sqrt(sigma2 C_jj) from the fit's covariance (least_squares.h),
// which the verdicts' correlations read too: one decomposition per fit.
VectorXd parameterStd(const UnitCovariance& covariance, const Eigen::MatrixXd& G, double sigma2);

}  // namespace suitsim::eval::band_fit
