#include "suitsim/eval/device_evaluation.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "suitsim/eval/dynamics.h"
#include "suitsim/eval/kinematics.h"
#include "suitsim/eval/signals.h"

namespace suitsim::eval {

namespace fs = std::filesystem;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

const char* impedanceParameterKey(int k) {
  static const char* keys[kImpedanceParameters] = {"inertia", "viscous", "coulomb", "gravity", "assist"};
  return k >= 0 && k < kImpedanceParameters ? keys[k] : "?";
}

std::vector<std::string> strapJoints(const RigidModel& model, const DeviceDesign& design) {
  std::vector<char> used(model.num_joints, 0);
  for (const std::string& link : design.strap_links) {
    const int f = frameIndex(model, link);
    if (f < 0) throw std::invalid_argument("device '" + design.name + "': strapped link '" + link + "' is no link of the robot");
    // Body b > 0 is moved by joint b - 1; up to the root.
    for (int b = model.frame_body[f]; b > 0; b = model.body_parent[b]) used[b - 1] = 1;
  }
  std::vector<std::string> out;
  for (int j = 0; j < model.num_joints; ++j) {
    if (used[j]) out.push_back(model.joint_name[j]);
  }
  return out;
}

namespace {

// The fit's columns: the five settings, a constant; then y.
constexpr int kColumns = kImpedanceParameters + 1;

// The device hinge's datasheet: motor and friction.
struct Datasheet {
  double motor_constant = 1.0, torque_offset = 0.0, viscous = 0.0, coulomb = 0.0, armature = 0.0;
};

}  // namespace

DeviceEvaluation evaluateDevice(const EvaluationInputs& inputs, const IdentificationOutcome& id,
                                const DeviceDesign& design, const std::vector<TrialPair>& pairs,
                                const fs::path& streams_dir, const PipelineOptions& options) {
  const RigidModel& model = id.model;
  DeviceEvaluation out;
  out.device = design.name;
  out.joints = strapJoints(model, design);
  out.band_hz = options.conditioning.cutoff_hz;

  // 1. The supporting torque, A(3)-(4), as for a suit: the straps' forces are
  // what the device does to the robot, whatever it is made of.
  for (const TrialPair& p : pairs) {
    out.curves.push_back(supportCurves(inputs, id, *p.bare, *p.worn, streams_dir, options));
  }

  // 2. The controller's settings from the device's own logs.
  RobotDescription fixed = design.description;
  fixed.floating_base = false;  // its root held in its worn link's frame; gravity turns with it
  RigidModel device = makeRigidModel(fixed);
  RigidData device_data(device);
  RigidData robot_data(model);
  const int nh = static_cast<int>(design.joints.size());
  std::vector<int> device_joint(nh), robot_joint(nh);
  std::vector<Datasheet> sheet(nh);
  for (int k = 0; k < nh; ++k) {
    device_joint[k] = jointIndex(device, design.joints[k]);
    robot_joint[k] = jointIndex(model, design.aligned_joints[k]);
    const int dj = fixed.findJoint(design.joints[k]);
    if (device_joint[k] < 0 || dj < 0 || robot_joint[k] < 0) {
      throw std::invalid_argument("device '" + design.name + "': hinge '" + design.joints[k] + "' or its robot joint '" +
                                  design.aligned_joints[k] + "' is missing from the models");
    }
    const JointActuation& a = fixed.joints[static_cast<std::size_t>(dj)].actuation;
    sheet[k] = {a.motor_constant, a.torque_offset, a.viscous, a.coulomb, a.armature};
  }
  const int root_frame = frameIndex(model, design.root_link);
  if (root_frame < 0) throw std::invalid_argument("device '" + design.name + "': link '" + design.root_link + "' is no link of the robot");
  std::vector<std::string> channels;
  for (const std::string& j : design.joints) channels.push_back(j + ".encoder");
  for (const std::string& j : design.joints) channels.push_back(j + ".current");

  std::vector<std::vector<std::array<double, kColumns + 1>>> rows(nh);  // per hinge: the fit's rows
  // Clear motion: well past the smoothed sign's width and the rest threshold.
  const double moving = std::max(options.identification.stop_velocity, 10.0 * design.coulomb_velocity);
  const ConditioningOptions& cond = options.conditioning;
  // Where gravity points, as the device's root sees it. With a sole on the
  // ground (the designed contact points of the first foot, three or more),
  // the sole's plane is level: gravity is along its normal, carried to the
  // root through the joint angles. This is exact while the foot is flat,
  // whatever the base accelerates. Without soles: the IMU's specific force
  // turned into base axes and negated, which carries the base's own
  // acceleration too (a few hundredths of g in a squat: G_d that much off).
  const int imu_frame = frameIndex(model, inputs.layout.imu.link);
  if (imu_frame < 0) throw std::invalid_argument("IMU on unknown link '" + inputs.layout.imu.link + "'");
  const Eigen::Matrix3d R_base_imu = model.frame_R[imu_frame] * inputs.layout.imu.R;
  int sole_frame = -1;
  Vector3d gravity_sole = Vector3d::Zero();
  if (!inputs.soles.empty()) {
    std::vector<Vector3d> points;
    for (const ContactPoint& c : inputs.soles) {
      if (c.frame == inputs.soles.front().frame) points.push_back(c.point_F);
    }
    Vector3d mean = Vector3d::Zero();
    for (const Vector3d& p : points) mean += p;
    mean /= static_cast<double>(points.size());
    // Newell's normal: the plane of any polygon, however its points are ordered.
    Vector3d normal = Vector3d::Zero();
    for (std::size_t i = 0; i < points.size(); ++i) normal += (points[i] - mean).cross(points[(i + 1) % points.size()] - mean);
    if (points.size() >= 3 && normal.norm() > 0.0) {
      normal.normalize();
      if (normal.dot(-mean) < 0.0) normal = -normal;  // up: from the sole toward the foot's frame
      sole_frame = inputs.soles.front().frame;
      gravity_sole = -model.gravity.norm() * normal;
    }
  }
  for (const TrialPair& p : pairs) {
    const TrialInfo& trial = *p.worn;
    const SensorStream s =
        readSensorStream(streamPath(streams_dir, trial).string(), model, inputs.layout, inputs.sensor_rate_hz, channels);
    const double rate = s.rate_hz;
    const int N = s.numSamples();
    if (s.current.rows() == 0) throw std::invalid_argument("device '" + design.name + "': the robot logs no currents (the assist's input)");
    // The law's columns sample by sample, from the unfiltered logs, the way
    // the controller forms them: rate by central differences, its
    // acceleration estimate by differencing that rate through the
    // controller's first-order filter (its phase lag is part of the law).
    const double alpha = 1.0 - std::exp(-2.0 * 3.14159265358979323846 * design.acceleration_cutoff_hz / rate);
    std::vector<MatrixXd> columns(nh, MatrixXd::Zero(N, kColumns + 1));
    MatrixXd rate_raw(N, nh), accel(N, nh);
    for (int k = 0; k < nh; ++k) {
      for (int t = 0; t < N; ++t) {
        const int a = std::max(0, t - 1), b = std::min(N - 1, t + 1);
        rate_raw(t, k) = (s.extra(b, k) - s.extra(a, k)) / (s.time[b] - s.time[a]);
      }
      double filtered = 0.0;
      for (int t = 0; t < N; ++t) {
        if (t > 0) filtered += alpha * ((rate_raw(t, k) - rate_raw(t - 1, k)) * rate - filtered);
        accel(t, k) = filtered;
      }
    }
    for (int t = 0; t < N; ++t) {
      forwardKinematics(model, robot_data, Configuration(s.joint_angle.row(t).transpose()));
      const Vector3d g_base = sole_frame >= 0 ? Vector3d(robot_data.frame_R_W[sole_frame] * gravity_sole)
                                              : Vector3d(-(R_base_imu * s.accel.row(t).transpose()));
      device.gravity = robot_data.frame_R_W[root_frame].transpose() * g_base;
      VectorXd dq = VectorXd::Zero(device.num_joints);
      for (int k = 0; k < nh; ++k) dq[device_joint[k]] = s.extra(t, k);
      const Configuration config(dq);
      const VectorXd zero = VectorXd::Zero(device.nv);
      const VectorXd hold = rnea(device, device_data, config, zero, zero);  // = -G_d
      const MatrixXd& M = massMatrix(device, device_data, config);
      for (int k = 0; k < nh; ++k) {
        const Datasheet& d = sheet[k];
        const double qd = rate_raw(t, k), a = accel(t, k);
        const double G = -hold[device_joint[k]];
        const double I = M(device_joint[k], device_joint[k]) + d.armature;
        const double sgn = std::tanh(qd / design.coulomb_velocity);
        const double tau_m = d.motor_constant * s.extra(t, nh + k) + d.torque_offset;
        // The wearer's torque through the identified k_T alone: the motor's
        // torque offset is seldom identified (a constant), so the fit takes
        // a constant of its own (k_a tau_o and any other offset).
        const double wearer = id.full.xi.motor_constant[robot_joint[k]] * s.current(t, robot_joint[k]);
        const double y = tau_m - I * a - d.viscous * qd - d.coulomb * sgn + G;
        columns[k].row(t) << -a, -qd, -sgn, G, wearer, 1.0, y;
      }
    }
    // Every column through the filter the robot's channels take
    // (conditionStream): the law is linear in its settings, so the filtered
    // columns obey it too; then the same trim and decimation.
    const ButterworthLowPass lp = designButterworthLowPass(4, cond.cutoff_hz, rate);
    const MatrixXd rate_filtered = filterZeroPhase(lp, rate_raw);
    const int trim = static_cast<int>(std::ceil(cond.trim_s * rate));
    const int step = std::max(1, cond.decimate);
    for (int k = 0; k < nh; ++k) {
      const MatrixXd f = filterZeroPhase(lp, columns[k]);
      for (int t = trim; t < N - trim; t += step) {
        // Near a reversal the smoothed sign the controller formed from its
        // own rate is not the one the logs give: only clear motion is fitted.
        if (std::abs(rate_filtered(t, k)) <= moving) continue;
        std::array<double, kColumns + 1> row{};
        for (int c = 0; c <= kColumns; ++c) row[c] = f(t, c);
        rows[k].push_back(row);
      }
    }
  }

  for (int k = 0; k < nh; ++k) {
    ImpedanceEstimate e;
    e.joint = design.joints[k];
    e.aligned_joint = design.aligned_joints[k];
    const int n = static_cast<int>(rows[k].size());
    e.samples = n;
    if (n < 10 * kImpedanceParameters) {
      e.reason = "moves in only " + std::to_string(n) + " samples";
      out.impedance.push_back(e);
      continue;
    }
    MatrixXd X(n, kColumns);
    VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < kColumns; ++c) X(i, c) = rows[k][i][c];
      y[i] = rows[k][i][kColumns];
    }
    // Columns scaled to unit norm, so the rank test compares like with like.
    VectorXd scale(kColumns);
    for (int c = 0; c < kColumns; ++c) {
      scale[c] = X.col(c).norm();
      if (scale[c] > 0.0) X.col(c) /= scale[c];
    }
    Eigen::ColPivHouseholderQR<MatrixXd> qr(X);
    qr.setThreshold(1e-8);
    if (qr.rank() < kColumns || (scale.array() == 0.0).any()) {
      e.reason = "the motion does not tell the settings apart (rank " + std::to_string(qr.rank()) + " of " +
                 std::to_string(kColumns) + " with the constant)";
      out.impedance.push_back(e);
      continue;
    }
    const VectorXd theta_scaled = qr.solve(y);
    const VectorXd residual = y - X * theta_scaled;
    // The filtered residuals are not independent: about one sample in
    // rate / (2 cutoff) carries new information, so the variance is that
    // much larger than the white-noise formula says. Systematic mismatch
    // (the controller's own sampling) is not in it.
    const double per_sample = inputs.sensor_rate_hz / std::max(1, options.conditioning.decimate);
    const double correlated = std::max(1.0, per_sample / (2.0 * options.conditioning.cutoff_hz));
    const double sigma2 = correlated * residual.squaredNorm() / std::max(1, n - kColumns);
    const MatrixXd cov_scaled = sigma2 * (X.transpose() * X).inverse();
    e.identifiable = true;
    e.rms_residual = std::sqrt(residual.squaredNorm() / n);
    for (int c = 0; c < kImpedanceParameters; ++c) {
      e.estimate[c] = theta_scaled[c] / scale[c];
      const double sd = std::sqrt(std::max(0.0, cov_scaled(c, c))) / scale[c];
      e.relative_std[c] = e.estimate[c] != 0.0 ? sd / std::abs(e.estimate[c]) : INFINITY;
    }
    out.impedance.push_back(e);
  }
  return out;
}

}  // namespace suitsim::eval
