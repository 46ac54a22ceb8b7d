// A powered device's evaluation (exoskeleton.h; seed 001, first part): what
// its straps give the robot's joints, by approaches A and B from the robot's
// streams exactly as for a suit (A(3)-(4): the device's effect is the
// difference its forces make), and its controller's settings identified
// from the device's own logs.
//
// The controller's law (exoskeleton.h) is linear in its settings:
//
//   tau_m - I_d a - b_d q' - c_d tanh(q'/v_c) + G_d = -I_v a - b_v q' - c_v tanh(q'/v_c) + g_v G_d + k_a s
//
// with tau_m = k_T u + tau_o the device motor's torque read through its
// logged current and its datasheet, I_d and G_d the device's own inertia
// about the hinge and its weight's moment (from its design and its pose),
// b_d, c_d its datasheet friction, and s the wearer's torque the assist
// reads (the robot's motor torque at the aligned joint: its logged current
// through the identified k_T and tau_o). One least-squares fit per device
// hinge over the samples where it moves (at rest the sign is unknown)
// gives the five settings and their relative standard deviations.
//
// The device's pose: its joints' encoders, and the attitude its controller
// read (the gravity vector in its root segment's frame, logged with the
// encoders as DEVICE.ROOT.gravity). Taking the root's attitude from the
// robot's link it is worn on (through the robot's joint angles and a flat
// sole) misses the root's give on its straps under the hinges' reactions:
// on JVRC-1 that put the hips' viscosity 26 % off.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "suitsim/eval/inputs.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/eval/supporting_torque.h"

namespace suitsim::eval {

/// The settings of exoskeleton.h's law, in this order.
constexpr int kImpedanceParameters = 5;
/// "inertia" (I_v, kg m^2), "viscous" (b_v, N m s/rad), "coulomb" (c_v, N m),
/// "gravity" (g_v, share), "assist" (k_a, share).
const char* impedanceParameterKey(int k);

/// One device hinge's controller settings as identified.
struct ImpedanceEstimate {
  std::string joint;          ///< device hinge
  std::string aligned_joint;  ///< the robot joint it lines up with
  bool identifiable = false;
  std::string reason;         ///< why not, when not identifiable
  int samples = 0;            ///< moving samples fitted
  std::array<double, kImpedanceParameters> estimate{};      ///< I_v, b_v, c_v, g_v, k_a
  std::array<double, kImpedanceParameters> relative_std{};  ///< std / |estimate|
  double rms_residual = 0.0;  ///< of the fit (N m)
};

struct DeviceEvaluation {
  std::string device;
  /// Robot joints the straps act on: every joint on the path from the
  /// robot's root to a strapped link (derived from the design).
  std::vector<std::string> joints;
  std::vector<SupportCurves> curves;         ///< one per trial pair, approaches A and B
  std::vector<ImpedanceEstimate> impedance;  ///< per device hinge, DeviceDesign::joints order
  /// The evaluator's band: the cut-off of the zero-phase low-pass every
  /// channel took (ConditioningOptions::cutoff_hz). Nothing faster reaches
  /// the curves; scoring reports the truth's part in this band too.
  double band_hz = 0.0;
};

/// The robot joints (model order) between the robot's root and the links
/// the device's straps hold.
std::vector<std::string> strapJoints(const RigidModel& model, const DeviceDesign& design);

/// The device's evaluation from the streams of `pairs` (each a motion
/// without and with the device). Throws StreamError for bad streams (a
/// device channel missing) and std::invalid_argument for a design that does
/// not fit the robot.
DeviceEvaluation evaluateDevice(const EvaluationInputs& inputs, const IdentificationOutcome& id,
                                const DeviceDesign& design, const std::vector<TrialPair>& pairs,
                                const std::filesystem::path& streams_dir, const PipelineOptions& options);

}  // namespace suitsim::eval
