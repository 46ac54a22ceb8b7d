// The suit as worn from its bands' measured lengths (see suit_geometry.h).
#include "suitsim/eval/suit_geometry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

#include "suitsim/core/stop.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

namespace {

// The residual's standard deviation is estimated from the residual itself;
// below this floor (noiseless streams) it stops shrinking, so that
// rounding errors do not pass for determined directions.
constexpr double kNoiseFloor = 1e-6;  // m
constexpr int kMaxIterations = 50;
constexpr double kStepTolerance = 1e-9;  // m

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("measureSuitGeometry: " + what); }

// Every sample's pose of every frame (world from frame).
struct FramePoses {
  std::vector<std::vector<Matrix3d>> R;  // [sample][frame]
  std::vector<std::vector<Vector3d>> p;
};

FramePoses framePoses(const RigidModel& model, const std::vector<MatrixXd>& joint_angles) {
  FramePoses out;
  RigidData data(model);
  Configuration q(VectorXd::Zero(model.num_joints));
  for (const MatrixXd& angles : joint_angles) {
    for (Eigen::Index t = 0; t < angles.rows(); ++t) {
      q.joints = angles.row(t).transpose();
      forwardKinematics(model, data, q);
      out.R.push_back(data.frame_R_W);
      out.p.push_back(data.frame_p_W);
    }
  }
  return out;
}

// A(23) for the wire with its via points displaced by `offset` (3 per via
// point, link frames), and its gradient with respect to them: moving via
// point j by d changes l by (u_in - u_out)ᵀ R_j d, the unit directions of
// the segments into and out of it (wires.cpp, A(22), regrouped the same way).
double lengthAndGradient(const WireGeometry& wire, const VectorXd& offset, const std::vector<Matrix3d>& R,
                         const std::vector<Vector3d>& p, Eigen::Ref<Eigen::RowVectorXd> gradient) {
  const std::size_t n = wire.frame.size();
  auto world = [&](std::size_t j) {
    const int f = wire.frame[j];
    return Vector3d(p[f] + R[f] * (wire.point[j] + offset.segment<3>(3 * static_cast<Eigen::Index>(j))));
  };
  double length = 0.0;
  Vector3d u_in = Vector3d::Zero();
  Vector3d here = world(0);
  for (std::size_t j = 0; j < n; ++j) {
    Vector3d u_out = Vector3d::Zero();
    if (j + 1 < n) {
      const Vector3d next = world(j + 1);
      const double norm = (next - here).norm();
      length += norm;
      if (norm > 0.0) u_out = (next - here) / norm;  // a zero-length segment has no direction
      here = next;
    }
    gradient.segment<3>(3 * static_cast<Eigen::Index>(j)) = (u_in - u_out).transpose() * R[wire.frame[j]];
    u_in = u_out;
  }
  return length;
}

// Residuals r = measured - l - c and their Jacobian (offsets, then c) at
// `theta`; returns the RMS residual.
double residuals(const WireGeometry& wire, const FramePoses& poses, const VectorXd& measured, const VectorXd& theta,
                 VectorXd& r, MatrixXd& J) {
  const auto N = measured.size();
  const Eigen::Index n_offsets = theta.size() - 1;
  const VectorXd offset = theta.head(n_offsets);
  Eigen::RowVectorXd gradient(n_offsets);
  for (Eigen::Index t = 0; t < N; ++t) {
    const double l = lengthAndGradient(wire, offset, poses.R[t], poses.p[t], gradient);
    r[t] = measured[t] - l - theta[n_offsets];
    J.row(t) << gradient, 1.0;
  }
  return std::sqrt(r.squaredNorm() / static_cast<double>(N));
}

// The displacement directions the lengths determine to better than
// kDeterminedWithin (one standard deviation, from the residual's variance),
// as columns, with the constant eliminated (its Schur complement).
MatrixXd determinedDirections(const MatrixXd& J, double variance) {
  const Eigen::Index n_offsets = J.cols() - 1;
  const MatrixXd info = J.transpose() * J / variance;
  const MatrixXd schur = info.topLeftCorner(n_offsets, n_offsets) -
                         info.topRightCorner(n_offsets, 1) * info.bottomLeftCorner(1, n_offsets) /
                             std::max(info(n_offsets, n_offsets), 1e-300);
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(schur);
  const double threshold = 1.0 / (kDeterminedWithin * kDeterminedWithin);
  std::vector<Eigen::Index> keep;
  for (Eigen::Index k = 0; k < n_offsets; ++k) {
    if (eigen.eigenvalues()[k] > threshold) keep.push_back(k);
  }
  MatrixXd V(n_offsets, static_cast<Eigen::Index>(keep.size()));
  for (std::size_t k = 0; k < keep.size(); ++k) V.col(static_cast<Eigen::Index>(k)) = eigen.eigenvectors().col(keep[k]);
  return V;
}

WornBand fitBand(const WireGeometry& wire, const FramePoses& poses, const VectorXd& measured) {
  const auto N = measured.size();
  const auto n_offsets = static_cast<Eigen::Index>(3 * wire.frame.size());
  VectorXd theta = VectorXd::Zero(n_offsets + 1);  // the offsets, then the constant
  MatrixXd J(N, n_offsets + 1);
  VectorXd r(N);
  WornBand out;
  out.name = wire.name;
  out.samples = static_cast<int>(N);
  double rms = residuals(wire, poses, measured, theta, r, J);
  out.designed_rms = std::sqrt((r.array() - r.mean()).square().mean());
  // Two passes: the directions the lengths determine, judged first with the
  // designed geometry's residual (model error included) and again with the
  // fitted one's (the sensor's noise); within them, Gauss-Newton from
  // where the last pass stopped. The other directions stay as designed.
  int directions = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const double variance = std::max(rms * rms, kNoiseFloor * kNoiseFloor);
    const MatrixXd V = determinedDirections(J, variance);
    directions = static_cast<int>(V.cols());
    // theta = theta_0 + B a, B = [V 0; 0 1]: the kept directions and the constant.
    const VectorXd theta0 = theta;
    MatrixXd B = MatrixXd::Zero(n_offsets + 1, V.cols() + 1);
    B.topLeftCorner(n_offsets, V.cols()) = V;
    B(n_offsets, V.cols()) = 1.0;
    VectorXd a = VectorXd::Zero(B.cols());
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
      throwIfStopped();  // Ctrl-C or SIGTERM (core/stop.h)
      const MatrixXd JB = J * B;
      const VectorXd step = (JB.transpose() * JB).ldlt().solve(JB.transpose() * r);
      a += step;
      theta = theta0 + B * a;
      rms = residuals(wire, poses, measured, theta, r, J);
      ++out.iterations;
      if ((V * step.head(V.cols())).cwiseAbs().maxCoeff() < kStepTolerance) break;
    }
  }
  out.worn_rms = rms;
  out.determined_directions = directions;
  for (std::size_t j = 0; j < wire.frame.size(); ++j) {
    out.offset.push_back(theta.segment<3>(3 * static_cast<Eigen::Index>(j)));
  }
  out.length_offset = theta[n_offsets];
  return out;
}

}  // namespace

bool parseSuitGeometry(const std::string& word, SuitGeometrySource* out) {
  if (word == "designed") *out = SuitGeometrySource::Designed;
  else if (word == "measured") *out = SuitGeometrySource::Measured;
  else return false;
  return true;
}

const char* suitGeometryName(SuitGeometrySource source) {
  return source == SuitGeometrySource::Measured ? "measured" : "designed";
}

SuitGeometry measureSuitGeometry(const RigidModel& model, const std::string& suit,
                                 const std::vector<BandRoute>& designed,
                                 const std::vector<MatrixXd>& joint_angles, const std::vector<MatrixXd>& lengths) {
  if (designed.empty()) fail("suit '" + suit + "' has no band");
  if (joint_angles.size() != lengths.size()) fail("one length table per joint-angle table is needed");
  Eigen::Index total = 0;
  for (std::size_t k = 0; k < joint_angles.size(); ++k) {
    if (joint_angles[k].cols() != model.num_joints) {
      fail("trial " + std::to_string(k) + ": joint angles have " + std::to_string(joint_angles[k].cols()) +
           " columns, the robot " + std::to_string(model.num_joints) + " joints");
    }
    if (lengths[k].cols() != static_cast<Eigen::Index>(designed.size()) || lengths[k].rows() != joint_angles[k].rows()) {
      fail("trial " + std::to_string(k) + ": lengths must be one row per sample and one column per band");
    }
    if (!joint_angles[k].allFinite() || !lengths[k].allFinite()) fail("trial " + std::to_string(k) + ": a non-finite sample");
    total += joint_angles[k].rows();
  }
  if (total == 0) fail("suit '" + suit + "': no samples");
  const FramePoses poses = framePoses(model, joint_angles);
  SuitGeometry out;
  out.suit = suit;
  for (std::size_t b = 0; b < designed.size(); ++b) {
    VectorXd measured(total);
    for (std::size_t k = 0, at = 0; k < lengths.size(); at += static_cast<std::size_t>(lengths[k].rows()), ++k) {
      measured.segment(static_cast<Eigen::Index>(at), lengths[k].rows()) = lengths[k].col(static_cast<Eigen::Index>(b));
    }
    const WireGeometry wire = makeWireGeometry(model, designed[b]);
    WornBand band = fitBand(wire, poses, measured);
    BandRoute worn = designed[b];
    for (std::size_t j = 0; j < worn.points.size(); ++j) worn.points[j] += band.offset[j];
    out.routes.push_back(std::move(worn));
    out.bands.push_back(std::move(band));
  }
  return out;
}

}  // namespace suitsim::eval
