// The wearer's balance from one trial's sensor stream (balance_estimate.h).
#include "suitsim/eval/balance_estimate.h"

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "suitsim/rigid/kinematics.h"
#include "suitsim/eval/signals.h"

namespace suitsim::eval {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The centre of pressure of the total wrench (F, moment M about the stance
// frame's origin): r on the ground with (M - r × F) along the normal, i.e.
// u·(M - r × F) = v·(M - r × F) = 0 and n·r = offset. NaN where the feet
// carry nothing (F·up <= 0).
Eigen::Vector3d centreOfPressure(const Eigen::Vector3d& M, const Eigen::Vector3d& F, const Eigen::Vector3d& up,
                                 const GroundPlane& ground, double offset) {
  if (!(F.dot(up) > 0.0)) return Eigen::Vector3d::Constant(kNaN);
  Eigen::Matrix3d A;
  Eigen::Vector3d b;
  // r × F = -[F]x r, so u·(M - r × F) = u·M + u^T [F]x r.
  Eigen::Matrix3d Fx;
  Fx << 0, -F.z(), F.y(), F.z(), 0, -F.x(), -F.y(), F.x(), 0;
  A.row(0) = ground.u.transpose() * Fx;
  A.row(1) = ground.v.transpose() * Fx;
  A.row(2) = ground.normal.transpose();
  b << -ground.u.dot(M), -ground.v.dot(M), offset;
  return A.colPivHouseholderQr().solve(b);
}

// Each sample's DCM margin against the polygon of the soles of the feet
// that carry more than `support_fraction` of the weight; the mean and the
// least over the window [window_start, window_end].
void supportMargins(const SensorStream& stream, const std::vector<std::vector<Eigen::Vector3d>>& force_S,
                    const std::vector<std::vector<Eigen::Vector3d>>& sole_S,
                    const std::vector<std::vector<int>>& sensor_soles, const GroundPlane& ground, double g,
                    const BalanceEstimateOptions& options, BalanceEstimate& out) {
  const int n = stream.numSamples();
  const int num_sensors = static_cast<int>(sensor_soles.size());
  std::vector<Eigen::Vector2d> corners;
  SupportPolygon polygon;
  double sum = 0.0;
  int count = 0;
  out.min_margin = kNaN;
  out.window_start = stream.time(0) + options.trim_s;
  out.window_end = stream.time(n - 1) - options.trim_s;
  for (int k = 0; k < n; ++k) {
    corners.clear();
    for (int i = 0; i < num_sensors; ++i) {
      if (!(force_S[k][i].dot(out.up) > options.support_fraction * out.mass * g)) continue;
      for (int c : sensor_soles[i]) corners.push_back(groundCoordinates(ground, sole_S[k][c]));
    }
    DcmPoints& p = out.points[k];
    if (corners.empty() || !p.dcm.allFinite()) {
      p.margin = kNaN;
      continue;
    }
    convexHull(corners, polygon);
    p.margin = polygonMargin(polygon, p.dcm_ground);
    if (stream.time(k) < out.window_start || stream.time(k) > out.window_end) continue;
    sum += p.margin;
    ++count;
    if (std::isnan(out.min_margin) || p.margin < out.min_margin) out.min_margin = p.margin;
  }
  out.mean_margin = count > 0 ? sum / count : kNaN;
}
}  // namespace

BalanceEstimate estimateBalance(const RigidModel& model, const SensorLayout& layout, const SensorStream& stream,
                                const std::vector<ContactPoint>& soles, const std::vector<HeldLoad>& held,
                                const BalanceEstimateOptions& options) {
  if (layout.force_sensors.empty()) throw std::invalid_argument("balance: the robot has no force sensor");
  if (!(stream.rate_hz > 2.0 * options.cutoff_hz)) {
    throw std::invalid_argument("balance: the stream's rate is too low for the " + std::to_string(options.cutoff_hz) +
                                " Hz filter");
  }
  const int n = stream.numSamples();
  const int num_sensors = static_cast<int>(layout.force_sensors.size());
  const auto frameOf = [&](const std::string& link) {
    const int f = frameIndex(model, link);
    if (f < 0) throw std::invalid_argument("balance: sensor link '" + link + "' is no link of the robot");
    return f;
  };
  const int stance = frameOf(layout.force_sensors[0].link);
  std::vector<int> held_frame;
  double held_mass = 0.0;
  for (const HeldLoad& h : held) {
    held_frame.push_back(frameOf(h.link));
    held_mass += h.mass;
  }
  const double model_mass = model.totalMass();
  const int imu = frameOf(layout.imu.link);
  std::vector<int> sensor_frame(num_sensors);
  std::vector<std::vector<int>> sensor_soles(num_sensors);  // sole points on each sensor's body
  bool any_sole = false;
  for (int i = 0; i < num_sensors; ++i) {
    sensor_frame[i] = frameOf(layout.force_sensors[i].link);
    for (std::size_t c = 0; c < soles.size(); ++c) {
      if (model.frame_body[soles[c].frame] == model.frame_body[sensor_frame[i]]) {
        sensor_soles[i].push_back(static_cast<int>(c));
        any_sole = true;
      }
    }
  }
  if (!any_sole) throw std::invalid_argument("balance: no contact point lies on a force sensor's link");

  // Zero-phase low-pass on what is differentiated or averaged per sample.
  const ButterworthLowPass filter = designButterworthLowPass(4, options.cutoff_hz, stream.rate_hz);
  const Eigen::MatrixXd angles = filterZeroPhase(filter, stream.joint_angle);
  std::vector<Eigen::MatrixXd> wrench(num_sensors);
  for (int i = 0; i < num_sensors; ++i) wrench[i] = filterZeroPhase(filter, stream.wrench[i]);

  BalanceEstimate out;
  out.trial = stream.meta("trial");
  out.stance_link = layout.force_sensors[0].link;
  out.time = stream.time;
  out.com.resize(n, 3);
  out.cop.resize(n, 3);
  RigidData data(model);
  Configuration q = neutralConfiguration(model);
  // Per sample, in the stance frame S: the sole points, each sensor's force
  // and moment about S's origin, and the IMU's specific force.
  std::vector<std::vector<Eigen::Vector3d>> sole_S(n, std::vector<Eigen::Vector3d>(soles.size()));
  std::vector<std::vector<Eigen::Vector3d>> force_S(n, std::vector<Eigen::Vector3d>(num_sensors));
  Eigen::MatrixXd moment_S(n, 3);
  Eigen::Vector3d accel_sum = Eigen::Vector3d::Zero();
  for (int k = 0; k < n; ++k) {
    q.joints = angles.row(k).transpose();  // base at the identity: world = base frame
    forwardKinematics(model, data, q);
    const Eigen::Matrix3d R_SB = data.frame_R_W[stance].transpose();
    const Eigen::Vector3d p_BS = data.frame_p_W[stance];
    const auto toS = [&](const Eigen::Vector3d& p_B) { return Eigen::Vector3d(R_SB * (p_B - p_BS)); };
    Eigen::Vector3d moment_B = model_mass * centerOfMass(model, data, q);
    for (std::size_t h = 0; h < held.size(); ++h) {
      const int f = held_frame[h];
      moment_B += held[h].mass * (data.frame_p_W[f] + data.frame_R_W[f] * held[h].com);
    }
    out.com.row(k) = toS(moment_B / (model_mass + held_mass)).transpose();
    for (std::size_t c = 0; c < soles.size(); ++c) {
      const int f = soles[c].frame;
      sole_S[k][c] = toS(data.frame_p_W[f] + data.frame_R_W[f] * soles[c].point_F);
    }
    Eigen::Vector3d moment = Eigen::Vector3d::Zero();
    for (int i = 0; i < num_sensors; ++i) {
      const SensorMount& m = layout.force_sensors[i];
      const int f = sensor_frame[i];
      const Eigen::Matrix3d R = R_SB * data.frame_R_W[f] * m.R;  // stance from sensor
      const Eigen::Vector3d origin = toS(data.frame_p_W[f] + data.frame_R_W[f] * m.p);
      force_S[k][i] = R * wrench[i].row(k).head<3>().transpose();
      moment += R * wrench[i].row(k).tail<3>().transpose() + origin.cross(force_S[k][i]);
    }
    moment_S.row(k) = moment.transpose();
    accel_sum += R_SB * data.frame_R_W[imu] * layout.imu.R * stream.accel.row(k).transpose();
  }

  // Up and g from the mean specific force (it reads -gravity on average).
  const Eigen::Vector3d mean_accel = accel_sum / n;
  const double g = mean_accel.norm();
  if (!(g > 0.0)) throw StreamError(stream.path + ":0: the accelerometer reads no gravity: no up to stand on");
  out.up = mean_accel / g;
  const Eigen::Vector3d gravity = -g * out.up;
  double support_sum = 0.0;
  std::vector<Eigen::Vector3d> total_force(n, Eigen::Vector3d::Zero());
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < num_sensors; ++i) total_force[k] += force_S[k][i];
    support_sum += total_force[k].dot(out.up);
  }
  out.mass = support_sum / n / g;
  if (!(out.mass > 0.0)) {
    throw StreamError(stream.path + ":0: the force sensors carry no weight on average: the robot does not stand");
  }
  double offset = std::numeric_limits<double>::infinity();
  for (const Eigen::Vector3d& p : sole_S[0]) offset = std::min(offset, out.up.dot(p));
  const GroundPlane ground = makeGroundPlane(out.up, offset);

  // ċ by differentiation of the kinematic CoM; c̈ from the force sensors.
  const Eigen::MatrixXd com_rate = differentiate(out.com, stream.rate_hz);
  std::vector<CentroidalSample> samples(n);
  for (int k = 0; k < n; ++k) {
    CentroidalSample& s = samples[k];
    s.time = stream.time(k);
    s.com = out.com.row(k).transpose();
    s.com_velocity = com_rate.row(k).transpose();
    s.contact_force = total_force[k];
    s.com_acceleration = total_force[k] / out.mass + gravity;
    out.cop.row(k) = centreOfPressure(moment_S.row(k).transpose(), total_force[k], out.up, ground, offset).transpose();
  }
  out.points = dcmPoints(samples, out.mass, gravity, ground, SupportPolygon{});

  // Margins against the polygon of the feet that carry weight.
  supportMargins(stream, force_S, sole_S, sensor_soles, ground, g, options, out);
  return out;
}

}  // namespace suitsim::eval
