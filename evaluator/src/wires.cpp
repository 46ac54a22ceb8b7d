// Wire model of suit bands on the rigid model, A(21)-(25) (see wires.h).
#include "suitsim/eval/wires.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Geometry>

#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {

using Eigen::Vector3d;

namespace {

[[noreturn]] void argumentError(const char* function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

// A(24): a via point in the world from its frame's pose.
Vector3d viaPointWorld(const RigidData& data, const WireGeometry& wire, std::size_t j) {
  const int f = wire.frame[j];
  return data.frame_p_W[f] + data.frame_R_W[f] * wire.point[j];
}

void checkWire(const char* function, const RigidModel& model, const WireGeometry& wire) {
  if (wire.frame.size() < 2 || wire.frame.size() != wire.point.size()) {
    argumentError(function, "wire '" + wire.name + "' needs >= 2 via points with one frame each (got " +
                                std::to_string(wire.frame.size()) + " frames, " +
                                std::to_string(wire.point.size()) + " points)");
  }
  for (int f : wire.frame) {
    if (f < 0 || f >= model.numFrames()) {
      argumentError(function, "wire '" + wire.name + "' has frame index " + std::to_string(f) +
                                  " out of range");
    }
  }
}

}  // namespace

BandRoute routeOf(const RobotBand& band) {
  BandRoute r;
  r.name = band.name;
  r.group = band.group.empty() ? band.name : band.group;
  r.links = band.links;
  for (const Vec3& p : band.points) r.points.emplace_back(p[0], p[1], p[2]);
  return r;
}

WireGeometry makeWireGeometry(const RigidModel& model, const BandRoute& band) {
  constexpr const char* kFunction = "makeWireGeometry";
  if (band.links.size() != band.points.size()) {
    argumentError(kFunction, "band '" + band.name + "' has " + std::to_string(band.links.size()) +
                                 " links but " + std::to_string(band.points.size()) + " points");
  }
  if (band.links.size() < 2) {
    argumentError(kFunction, "band '" + band.name + "' needs at least 2 via points (got " +
                                 std::to_string(band.links.size()) + ")");
  }
  WireGeometry wire;
  wire.name = band.name;
  for (std::size_t j = 0; j < band.links.size(); ++j) {
    const int f = frameIndex(model, band.links[j]);
    if (f < 0) {
      argumentError(kFunction, "band '" + band.name + "' via point " + std::to_string(j) +
                                   ": unknown link '" + band.links[j] + "'");
    }
    if (!band.points[j].allFinite()) {
      argumentError(kFunction, "band '" + band.name + "' via point " + std::to_string(j) +
                                   " has a non-finite coordinate");
    }
    wire.frame.push_back(f);
    wire.point.push_back(band.points[j]);
  }
  return wire;
}

WireGeometry makeWireGeometry(const RigidModel& model, const RobotBand& band) {
  return makeWireGeometry(model, routeOf(band));
}

std::vector<WireGeometry> makeWireGeometries(const RigidModel& model, const std::vector<BandRoute>& bands) {
  std::vector<WireGeometry> wires;
  wires.reserve(bands.size());
  for (const BandRoute& band : bands) wires.push_back(makeWireGeometry(model, band));
  return wires;
}

std::vector<WireGeometry> makeWireGeometries(const RigidModel& model,
                                             const std::vector<RobotBand>& bands) {
  std::vector<WireGeometry> wires;
  wires.reserve(bands.size());
  for (const RobotBand& band : bands) wires.push_back(makeWireGeometry(model, band));
  return wires;
}

double wireLength(const RigidModel& model, const RigidData& data, const WireGeometry& wire) {
  checkWire("wireLength", model, wire);
  // A(23): the sum of the segment lengths.
  double length = 0.0;
  Vector3d previous = viaPointWorld(data, wire, 0);
  for (std::size_t j = 1; j < wire.frame.size(); ++j) {
    const Vector3d p = viaPointWorld(data, wire, j);
    length += (p - previous).norm();
    previous = p;
  }
  return length;
}

double wireLengthJacobian(const RigidModel& model, const RigidData& data,
                          const WireGeometry& wire, Eigen::Ref<Eigen::RowVectorXd> J) {
  constexpr const char* kFunction = "wireLengthJacobian";
  checkWire(kFunction, model, wire);
  if (J.size() != model.num_joints) {
    argumentError(kFunction, "J has size " + std::to_string(J.size()) + ", expected " +
                                 std::to_string(model.num_joints) + " (num_joints)");
  }
  J.setZero();
  const std::size_t n = wire.frame.size();
  Eigen::Matrix<double, 3, Eigen::Dynamic> point_J(3, model.nv);
  // Unit direction of the segment ending at via point j (zero before the first).
  Vector3d u_in = Vector3d::Zero();
  Vector3d p = viaPointWorld(data, wire, 0);
  double length = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    Vector3d u_out = Vector3d::Zero();
    if (j + 1 < n) {
      const Vector3d next = viaPointWorld(data, wire, j + 1);
      const Vector3d d = next - p;
      const double norm = d.norm();
      length += norm;
      // A zero-length segment has no direction: it adds no rate to first order.
      if (norm > 0.0) u_out = d / norm;
      p = next;
    }
    // A(22): l̇ = Σ_segments u·(ṗ_end − ṗ_start), regrouped per via point:
    // point j gains u_in (end of the segment before) and loses u_out (start
    // of the segment after). g is also the direction a unit tension pulls it.
    const Vector3d g = u_in - u_out;
    if (!g.isZero(0.0)) {
      pointJacobian(model, data, wire.frame[j], wire.point[j], point_J);
      // The base columns of the sum cancel (a rigid base motion keeps l).
      J.noalias() += g.transpose() * point_J.rightCols(model.num_joints);
    }
    u_in = u_out;
  }
  return length;
}

void wireSegments(const RigidModel& model, const RigidData& data, const WireGeometry& wire,
                  Eigen::Ref<Eigen::VectorXd> length, Eigen::Ref<Eigen::VectorXd> turn,
                  Eigen::Ref<Eigen::MatrixXd> jacobian) {
  constexpr const char* kFunction = "wireSegments";
  checkWire(kFunction, model, wire);
  const Eigen::Index ns = static_cast<Eigen::Index>(wire.frame.size()) - 1;
  if (length.size() != ns || turn.size() != ns || jacobian.rows() != ns || jacobian.cols() != model.num_joints) {
    argumentError(kFunction, "wire '" + wire.name + "' has " + std::to_string(ns) +
                                 " segments: length and turn need that size and jacobian that many rows and " +
                                 std::to_string(model.num_joints) + " columns");
  }
  Eigen::Matrix<double, 3, Eigen::Dynamic> start_J(3, model.nv), end_J(3, model.nv);
  Vector3d u_prev = Vector3d::Zero();
  pointJacobian(model, data, wire.frame[0], wire.point[0], start_J);
  for (Eigen::Index j = 0; j < ns; ++j) {
    const std::size_t a = static_cast<std::size_t>(j), b = a + 1;
    const Vector3d d = viaPointWorld(data, wire, b) - viaPointWorld(data, wire, a);
    length[j] = d.norm();
    // A zero-length segment has no direction: no rate to first order, no turn.
    const Vector3d u = length[j] > 0.0 ? Vector3d(d / length[j]) : Vector3d::Zero();
    pointJacobian(model, data, wire.frame[b], wire.point[b], end_J);
    // A(22) per segment: L_j' = u_j . (p_{j+1}' - p_j'); base columns cancel.
    jacobian.row(j).noalias() = u.transpose() * (end_J - start_J).rightCols(model.num_joints);
    // The turn at via point j between the segment before and this one,
    // atan2(|u_a x u_b|, u_a . u_b): exact near 0 and pi.
    turn[j] = j == 0 ? 0.0 : std::atan2(u_prev.cross(u).norm(), u_prev.dot(u));
    u_prev = u;
    start_J.swap(end_J);
  }
}

double wireTension(double length, double stiffness, double natural_length) {
  // A(25): a slack band pulls nothing.
  return length > natural_length ? stiffness * (length - natural_length) : 0.0;
}

Eigen::VectorXd supportingTorque(const RigidModel& model, RigidData& data, const Configuration& q,
                                 const std::vector<WireGeometry>& wires,
                                 const Eigen::VectorXd& stiffness,
                                 const Eigen::VectorXd& natural_length) {
  constexpr const char* kFunction = "supportingTorque";
  const auto num_wires = static_cast<Eigen::Index>(wires.size());
  if (stiffness.size() != num_wires || natural_length.size() != num_wires) {
    argumentError(kFunction, "stiffness and natural_length need one entry per wire (" +
                                 std::to_string(num_wires) + "), got " +
                                 std::to_string(stiffness.size()) + " and " +
                                 std::to_string(natural_length.size()));
  }
  forwardKinematics(model, data, q);
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.num_joints);
  Eigen::RowVectorXd J(model.num_joints);
  for (Eigen::Index i = 0; i < num_wires; ++i) {
    const double l = wireLengthJacobian(model, data, wires[i], J);
    const double f = wireTension(l, stiffness[i], natural_length[i]);
    // A(21) with tension positive: the band pulls the joints toward shortening it.
    if (f != 0.0) tau.noalias() -= f * J.transpose();
  }
  return tau;
}

}  // namespace suitsim::eval
