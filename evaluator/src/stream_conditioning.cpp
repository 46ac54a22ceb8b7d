// Signal conditioning for the identification (A §3.2, docs/method.md
// "Signal conditioning"): a trial's sensor stream into MotionData, the
// joints' angles, rates and accelerations, the base's rates and
// acceleration from the IMU, the currents and forces, all low-passed with
// zero phase; the joint angles read behind compliant gears.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <Eigen/Geometry>

#include "suitsim/core/stop.h"
#include "suitsim/eval/identification.h"
#include "suitsim/eval/signals.h"
#include "suitsim/rigid/kinematics.h"
#include "motion_samples.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
using namespace samples;  // motion_samples.h

namespace {

// The currents as conditionStream reads them: each read at the datasheet's
// temperature when the heating correction is on, then low-passed (empty
// without currents).
MatrixXd conditionedCurrents(const SensorStream& s, const ConditioningOptions& o) {
  MatrixXd raw_current = s.current;
  if (o.magnet_coefficient.size() > 0 && raw_current.rows() > 0) {
    if (s.winding_temperature.rows() != raw_current.rows() || o.magnet_coefficient.size() != raw_current.cols()) {
      throw std::invalid_argument(s.path + ": the heating correction needs every joint's winding temperature "
                                  "(<joint>.winding_temperature channels: <winding_temperatures> in the scene's "
                                  "<sensors>)");
    }
    // k_T (1 + alpha dT) u = k_T u', u' the current at the datasheet's
    // temperature: the identification and the supporting torque then read
    // one k_T per joint, as A(6) has it.
    for (Eigen::Index t = 0; t < raw_current.rows(); ++t) {
      for (Eigen::Index j = 0; j < raw_current.cols(); ++j) {
        raw_current(t, j) *= 1.0 + o.magnet_coefficient[j] * (s.winding_temperature(t, j) - o.datasheet_temperature);
      }
    }
  }
  if (raw_current.rows() == 0) return MatrixXd();
  return filterZeroPhase(designButterworthLowPass(o.filter_order, o.cutoff_hz, s.rate_hz), raw_current);
}

// The raw joint angles with each motor-side encoder's gear twist taken out
// (see jointAnglesBehindGears in identification.h); `cur` the conditioned
// currents.
MatrixXd jointAnglesBehindGears(const SensorStream& s, const ConditioningOptions& o, const MatrixXd& cur) {
  // An encoder on the motor reads the joint plus the gear's twist: the
  // torque through the gear is the motor's less what turns the rotor,
  // k_T u + tau_o - I_a q'', and it twists the gear by that over k. Taken
  // out of the raw angles, it is filtered and differentiated with them (the
  // twist is already smooth: its torque is the filtered currents').
  MatrixXd angles = s.joint_angle;
  if (o.gear_stiffness.size() > 0) {
    if (cur.rows() != angles.rows() || o.gear_stiffness.size() != angles.cols()) {
      throw std::invalid_argument(s.path + ": compensating the gears' twist needs every joint's motor current");
    }
    const FilteredSignals read = filterAndDifferentiate(s.joint_angle, s.rate_hz, o.cutoff_hz, o.filter_order);
    for (Eigen::Index t = 0; t < angles.rows(); ++t) {
      for (Eigen::Index j = 0; j < angles.cols(); ++j) {
        if (!(o.gear_stiffness[j] > 0.0)) continue;
        const double torque = o.motor_constant[j] * cur(t, j) + o.torque_offset[j] - o.armature[j] * read.xdd(t, j);
        angles(t, j) -= torque / o.gear_stiffness[j];
      }
    }
  }
  return angles;
}

}  // namespace

MatrixXd jointAnglesBehindGears(const SensorStream& s, const ConditioningOptions& o) {
  if (o.gear_stiffness.size() == 0) return s.joint_angle;
  if (!(o.cutoff_hz > 0.0 && o.cutoff_hz < 0.5 * s.rate_hz)) {
    throw std::invalid_argument("filter cutoff must lie below half the sensor rate");
  }
  return jointAnglesBehindGears(s, o, conditionedCurrents(s, o));
}

MotionData conditionStream(const RigidModel& model, const SensorLayout& layout, const SensorStream& s,
                           const ConditioningOptions& o) {
  // A floating base is seen through its IMU (A §3.2); a fixed base sits
  // still on its rig and needs none.
  const bool floating = model.floating_base;
  const int fi = floating ? frameIndex(model, layout.imu.link) : 0;
  if (fi < 0) throw std::invalid_argument("IMU on unknown link '" + layout.imu.link + "'");
  if (model.frame_body[fi] != 0) {
    throw std::invalid_argument("the IMU's link '" + layout.imu.link +
                                "' is not part of the base link: the identification works in the IMU's frame (A §3.2)");
  }
  if (floating && s.gyro.rows() != s.numSamples()) {
    throw std::invalid_argument(s.path + ": a floating base is identified in its IMU's frame: the stream has no IMU");
  }
  const double rate = s.rate_hz;
  if (!(o.cutoff_hz > 0.0 && o.cutoff_hz < 0.5 * rate)) {
    throw std::invalid_argument("filter cutoff must lie below half the sensor rate");
  }
  const ButterworthLowPass lp = designButterworthLowPass(o.filter_order, o.cutoff_hz, rate);
  const FilteredSignals w =
      floating ? filterAndDifferentiate(s.gyro, rate, o.cutoff_hz, o.filter_order) : FilteredSignals{};
  const MatrixXd acc = floating ? filterZeroPhase(lp, s.accel) : MatrixXd();
  const MatrixXd cur = conditionedCurrents(s, o);
  // Link-side joint torques pass the same zero-phase filter as the other
  // channels, so that they stay aligned with the encoders' θ̈.
  const MatrixXd torque = s.joint_torque.rows() > 0 ? filterZeroPhase(lp, s.joint_torque) : MatrixXd();
  const MatrixXd angles = jointAnglesBehindGears(s, o, cur);
  const FilteredSignals q = filterAndDifferentiate(angles, rate, o.cutoff_hz, o.filter_order);
  std::vector<MatrixXd> wrench;
  for (const MatrixXd& f : s.wrench) wrench.push_back(filterZeroPhase(lp, f));

  // IMU frame in the base body frame.
  const Matrix3d R_bi = model.frame_R[fi] * layout.imu.R;
  const Vector3d p_bi = floating ? Vector3d(model.frame_R[fi] * layout.imu.p + model.frame_p[fi]) : Vector3d::Zero();
  std::vector<int> sensor_frame;
  for (const SensorMount& m : layout.force_sensors) {
    const int f = frameIndex(model, m.link);
    if (f < 0) throw std::invalid_argument("force sensor '" + m.name + "' on unknown link '" + m.link + "'");
    sensor_frame.push_back(f);
  }

  const int trim = static_cast<int>(std::ceil(o.trim_s * rate));
  const int step = std::max(1, o.decimate);
  std::vector<int> keep;
  for (int t = trim; t < s.numSamples() - trim; t += step) keep.push_back(t);
  if (keep.size() < 10) throw std::invalid_argument("stream '" + s.path + "' is too short to identify from");

  MotionData d;
  d.name = s.meta("trial", s.path);
  const int n = static_cast<int>(keep.size()), nj = model.num_joints;
  d.time.resize(n);
  d.q.resize(n, nj);
  d.qd.resize(n, nj);
  d.qdd.resize(n, nj);
  d.omega.resize(n, 3);
  d.omegad.resize(n, 3);
  d.base_acc.resize(n, 3);
  if (cur.rows() > 0) d.current.resize(n, nj);
  if (torque.rows() > 0) d.joint_torque.resize(n, nj);
  d.F = MatrixXd::Zero(n, model.nv);
  for (const SensorMount& m : layout.force_sensors) {
    d.force_sensor.push_back(m.name);
    d.force_gain.push_back(MatrixXd::Zero(n, model.nv));
    d.moment_gain.push_back(MatrixXd::Zero(n, model.nv));
  }
  RigidData data(model);
  MatrixXd Jp(3, model.nv), J(6, model.nv);
  for (int k = 0; k < n; ++k) {
    const int t = keep[k];
    d.time[k] = s.time[t];
    d.q.row(k) = q.x.row(t);
    d.qd.row(k) = q.xd.row(t);
    d.qdd.row(k) = q.xdd.row(t);
    if (floating) {
      const Vector3d om = R_bi * row3(w.x, t), omd = R_bi * row3(w.xd, t);
      d.omega.row(k) = om.transpose();
      d.omegad.row(k) = omd.transpose();
      // The accelerometer reads the sensor point; move it to the base origin.
      const Vector3d a_imu = R_bi * row3(acc, t);
      d.base_acc.row(k) = (a_imu - omd.cross(p_bi) - om.cross(om.cross(p_bi))).transpose();
    } else {
      d.omega.row(k).setZero();
      d.omegad.row(k).setZero();
      d.base_acc.row(k).setZero();
    }
    if (cur.rows() > 0) d.current.row(k) = cur.row(t);
    if (torque.rows() > 0) d.joint_torque.row(k) = torque.row(t);
    // A(10): each sensor's wrench through its Jacobian, in the base frame.
    Configuration config;
    config.joints = d.q.row(k).transpose();
    forwardKinematics(model, data, config);
    for (std::size_t f = 0; f < sensor_frame.size(); ++f) {
      const SensorMount& m = layout.force_sensors[f];
      const int fr = sensor_frame[f];
      const Matrix3d R_s = data.frame_R_W[fr] * m.R;
      const Vector3d force = R_s * wrench[f].row(t).head<3>().transpose();
      const Vector3d moment = R_s * wrench[f].row(t).tail<3>().transpose();
      pointJacobian(model, data, fr, m.p, Jp);
      frameJacobian(model, data, fr, J);
      d.F.row(k) += (Jp.transpose() * force + J.bottomRows<3>().transpose() * moment).transpose();
      d.force_gain[f].row(k) = Jp.colwise().squaredNorm();
      d.moment_gain[f].row(k) = J.bottomRows<3>().colwise().squaredNorm();
    }
  }
  return d;
}

}  // namespace suitsim::eval
