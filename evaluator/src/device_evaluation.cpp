#include "suitsim/eval/device_evaluation.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "suitsim/core/decompositions.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/kinematics.h"
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

// The second derivatives of the natural cubic spline through y at the
// uniform spacing h, by Thomas's algorithm on its tridiagonal system
// (Eigen's unsupported Splines module fits by a dense solve: cubic in a
// trial's thousands of samples).
VectorXd splineCurvature(const VectorXd& y, double h) {
  const Eigen::Index n = y.size();
  VectorXd m = VectorXd::Zero(n);
  if (n < 3) return m;
  // M_{i-1} + 4 M_i + M_{i+1} = 6 (y_{i+1} - 2 y_i + y_{i-1}) / h^2, M_0 = M_{n-1} = 0.
  VectorXd c(n), d(n);
  for (Eigen::Index i = 1; i + 1 < n; ++i) {
    const double rhs = 6.0 * (y[i + 1] - 2.0 * y[i] + y[i - 1]) / (h * h);
    const double pivot = 4.0 - (i > 1 ? c[i - 1] : 0.0);
    c[i] = 1.0 / pivot;
    d[i] = (rhs - (i > 1 ? d[i - 1] : 0.0)) / pivot;
  }
  for (Eigen::Index i = n - 2; i >= 1; --i) m[i] = d[i] - c[i] * (i + 2 < n ? m[i + 1] : 0.0);
  return m;
}

// What the controller read (exoskeleton.h) at every log stamp: its rate,
// and its acceleration estimate, the rate differenced over its period
// through its first-order filter, each held from its last tick before the
// stamp. The controller runs faster than the log (1 kHz against 200 Hz),
// so both are formed at its own ticks from the encoder log interpolated by
// a natural cubic spline, the rate as the spline's slope: the cuffs ring on
// their straps at 10-13 Hz, well inside the log's band, and differencing
// the log at its own rate delayed the acceleration estimate by 2 ms more
// than the controller's, enough to put the hips' viscosity 15-30 % off on
// noise-free streams.
void controllerRates(const VectorXd& time, const VectorXd& angle, const DeviceDesign& design,
                     Eigen::Ref<VectorXd> rate, Eigen::Ref<VectorXd> accel) {
  const Eigen::Index n = time.size();
  if (n < 2) {
    rate.setZero();
    accel.setZero();
    return;
  }
  const double h = (time[n - 1] - time[0]) / static_cast<double>(n - 1);
  const VectorXd m = splineCurvature(angle, h);
  const auto slope = [&](double x) {
    const Eigen::Index i = std::clamp<Eigen::Index>(static_cast<Eigen::Index>(std::floor((x - time[0]) / h)), 0, n - 2);
    const double a = time[i + 1] - x, b = x - time[i];
    return -m[i] * a * a / (2.0 * h) + m[i + 1] * b * b / (2.0 * h) + (angle[i + 1] - angle[i]) / h -
           (m[i + 1] - m[i]) * h / 6.0;
  };
  const double period = 1.0 / design.control_rate_hz;
  const double alpha = 1.0 - std::exp(-2.0 * 3.14159265358979323846 * design.acceleration_cutoff_hz / design.control_rate_hz);
  // Ticks at whole periods of the trial's clock, as the controller's.
  long tick = static_cast<long>(std::ceil(time[0] / period - 1e-9));
  double held_rate = slope(time[0]), held_accel = 0.0, previous = held_rate;
  bool started = false;
  for (Eigen::Index t = 0; t < n; ++t) {
    for (; static_cast<double>(tick) * period <= time[t] + 1e-9; ++tick) {
      const double qd = slope(static_cast<double>(tick) * period);
      if (started) held_accel += alpha * ((qd - previous) / period - held_accel);
      previous = qd;
      held_rate = qd;
      started = true;
    }
    rate[t] = held_rate;
    accel[t] = held_accel;
  }
}

// The fit's columns: the five settings, a constant; then y.
constexpr int kColumns = kImpedanceParameters + 1;

// The device hinge's datasheet: motor and friction.
struct Datasheet {
  double motor_constant = 1.0, torque_offset = 0.0, viscous = 0.0, coulomb = 0.0, armature = 0.0;
};

// The device as its own fixed-base tree (its root held in its worn link's
// frame; gravity turns with it), each hinge's index there and its robot
// joint's, its datasheet, and the channels its fit reads.
struct DeviceTree {
  RigidModel model;
  std::vector<int> device_joint, robot_joint;
  std::vector<Datasheet> sheet;
  std::vector<std::string> channels;
};

DeviceTree deviceTree(const RigidModel& robot, const DeviceDesign& design) {
  RobotDescription fixed = design.description;
  fixed.floating_base = false;
  DeviceTree d{makeRigidModel(fixed), {}, {}, {}, {}};
  const int nh = static_cast<int>(design.joints.size());
  d.device_joint.resize(nh);
  d.robot_joint.resize(nh);
  d.sheet.resize(nh);
  for (int k = 0; k < nh; ++k) {
    d.device_joint[k] = jointIndex(d.model, design.joints[k]);
    d.robot_joint[k] = jointIndex(robot, design.aligned_joints[k]);
    const int dj = fixed.findJoint(design.joints[k]);
    if (d.device_joint[k] < 0 || dj < 0 || d.robot_joint[k] < 0) {
      throw std::invalid_argument("device '" + design.name + "': hinge '" + design.joints[k] + "' or its robot joint '" +
                                  design.aligned_joints[k] + "' is missing from the models");
    }
    const JointActuation& a = fixed.joints[static_cast<std::size_t>(dj)].actuation;
    d.sheet[k] = {a.motor_constant, a.torque_offset, a.viscous, a.coulomb, a.armature};
  }
  if (!(design.control_rate_hz > 0.0)) {
    throw std::invalid_argument("device '" + design.name + "': its controller's rate is not stated (control_rate_hz)");
  }
  if (frameIndex(robot, design.root_link) < 0) throw std::invalid_argument("device '" + design.name + "': link '" + design.root_link + "' is no link of the robot");
  for (const std::string& j : design.joints) d.channels.push_back(j + ".encoder");
  for (const std::string& j : design.joints) d.channels.push_back(j + ".current");
  // Where gravity points, as the device's root sees it: the attitude its
  // controller read, logged with its encoders (DEVICE.ROOT.gravity). Not the
  // robot's link it is worn on carried through the robot's joint angles: the
  // root gives on its straps under the hinges' reaction torques (JVRC-1's
  // belt a few milliradians, G_d's gradient times that: more than the
  // viscosity's share of the law at slow hip speeds).
  std::string root;
  for (const RobotLink& l : design.description.links) {
    if (l.parent_joint < 0) root = l.name;
  }
  for (const char* axis : {"x", "y", "z"}) d.channels.push_back(root + ".gravity." + axis);
  return d;
}

using FitRow = std::array<double, kColumns + 1>;

// One worn trial's rows of the law's fit per hinge, appended to `rows`.
void impedanceRows(const SensorStream& s, DeviceTree& d, const IdentificationOutcome& id, const DeviceDesign& design,
                   const PipelineOptions& options, std::vector<std::vector<FitRow>>& rows) {
  RigidModel& device = d.model;
  RigidData device_data(device);
  const int nh = static_cast<int>(design.joints.size());
  // Clear motion: well past the smoothed sign's width and the rest threshold.
  const double moving = std::max(options.identification.stop_velocity, 10.0 * design.coulomb_velocity);
  const ConditioningOptions& cond = options.conditioning;
  const double rate = s.rate_hz;
  const int N = s.numSamples();
  if (s.current.rows() == 0) throw std::invalid_argument("device '" + design.name + "': the robot logs no currents (the assist's input)");
  // The law's columns sample by sample, from the unfiltered logs, the way
  // the controller forms them (controllerRates): its rate and its
  // acceleration estimate at its own ticks, held to each stamp.
  std::vector<MatrixXd> columns(nh, MatrixXd::Zero(N, kColumns + 1));
  MatrixXd rate_raw(N, nh), accel(N, nh);
  for (int k = 0; k < nh; ++k) {
    const VectorXd angle = s.extra.col(k);
    controllerRates(s.time, angle, design, rate_raw.col(k), accel.col(k));
  }
  for (int t = 0; t < N; ++t) {
    device.gravity = Vector3d(s.extra(t, 2 * nh), s.extra(t, 2 * nh + 1), s.extra(t, 2 * nh + 2));
    VectorXd dq = VectorXd::Zero(device.num_joints);
    for (int k = 0; k < nh; ++k) dq[d.device_joint[k]] = s.extra(t, k);
    const Configuration config(dq);
    const VectorXd zero = VectorXd::Zero(device.nv);
    const VectorXd hold = rnea(device, device_data, config, zero, zero);  // = -G_d
    const MatrixXd& M = massMatrix(device, device_data, config);
    for (int k = 0; k < nh; ++k) {
      const Datasheet& sheet = d.sheet[k];
      const double qd = rate_raw(t, k), a = accel(t, k);
      const double G = -hold[d.device_joint[k]];
      const double I = M(d.device_joint[k], d.device_joint[k]) + sheet.armature;
      const double sgn = std::tanh(qd / design.coulomb_velocity);
      const double tau_m = sheet.motor_constant * s.extra(t, nh + k) + sheet.torque_offset;
      // The wearer's torque through the identified k_T alone: the motor's
      // torque offset is seldom identified (a constant), so the fit takes
      // a constant of its own (k_a tau_o and any other offset).
      const double wearer = id.full.xi.motor_constant[d.robot_joint[k]] * s.current(t, d.robot_joint[k]);
      const double y = tau_m - I * a - sheet.viscous * qd - sheet.coulomb * sgn + G;
      columns[k].row(t) << -a, -qd, -sgn, G, wearer, 1.0, y;
    }
  }
  // Every column through the filter the robot's channels take
  // (conditionStream): the law is linear in its settings, so the filtered
  // columns obey it too; then the same trim and decimation.
  const ButterworthLowPass lp = designButterworthLowPass(cond.filter_order, cond.cutoff_hz, rate);
  const MatrixXd rate_filtered = filterZeroPhase(lp, rate_raw);
  const int trim = static_cast<int>(std::ceil(cond.trim_s * rate));
  const int step = std::max(1, cond.decimate);
  for (int k = 0; k < nh; ++k) {
    const MatrixXd f = filterZeroPhase(lp, columns[k]);
    for (int t = trim; t < N - trim; t += step) {
      // Near a reversal the smoothed sign the controller formed from its
      // own rate is not the one the logs give: only clear motion is fitted.
      if (std::abs(rate_filtered(t, k)) <= moving) continue;
      FitRow row{};
      for (int c = 0; c <= kColumns; ++c) row[c] = f(t, c);
      rows[k].push_back(row);
    }
  }
}

// The controller's settings of one hinge by least squares on its rows, with
// their standard deviations.
ImpedanceEstimate fitImpedance(const std::vector<FitRow>& rows, const EvaluationInputs& inputs,
                               const PipelineOptions& options) {
  ImpedanceEstimate e;
  const int n = static_cast<int>(rows.size());
  e.samples = n;
  if (n < 10 * kImpedanceParameters) {
    e.reason = "moves in only " + std::to_string(n) + " samples";
    return e;
  }
  MatrixXd X(n, kColumns);
  VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < kColumns; ++c) X(i, c) = rows[i][c];
    y[i] = rows[i][kColumns];
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
    return e;
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
  return e;
}

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
  DeviceTree device = deviceTree(model, design);
  std::vector<std::vector<FitRow>> rows(design.joints.size());  // per hinge: the fit's rows
  for (const TrialPair& p : pairs) {
    const SensorStream s = readTrialStream(inputs, model, *p.worn, streams_dir, options, device.channels);
    impedanceRows(s, device, id, design, options, rows);
  }
  for (std::size_t k = 0; k < design.joints.size(); ++k) {
    ImpedanceEstimate e = fitImpedance(rows[k], inputs, options);
    e.joint = design.joints[k];
    e.aligned_joint = design.aligned_joints[k];
    out.impedance.push_back(e);
  }
  return out;
}

}  // namespace suitsim::eval
