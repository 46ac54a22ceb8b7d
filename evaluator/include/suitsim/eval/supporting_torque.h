// The suit's supporting torque, sample by sample, from the streams of one
// motion run without and with the suit (A §5.3): approach A, A(3), and
// approach B, A(4), each with the identified and with the a-priori model.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/robot_identification.h"

namespace suitsim::eval {

/// A motion run without and with a suit or a device: what approach A, A(3), needs.
struct TrialPair {
  const TrialInfo* bare = nullptr;
  const TrialInfo* worn = nullptr;
};

/// One supporting-torque estimate method.
enum class SupportMethod { kApproachA, kApproachB, kAprioriB, kAprioriA };
const char* methodKey(SupportMethod m);  ///< "approach_a", "approach_b", "apriori", "apriori_approach_a"
constexpr SupportMethod kSupportMethods[] = {SupportMethod::kApproachA, SupportMethod::kApproachB,
                                             SupportMethod::kAprioriB, SupportMethod::kAprioriA};

/// Supporting torques of one motion with one suit, sample by sample.
struct SupportCurves {
  std::string motion, suit;
  std::string bare_trial, suit_trial;   ///< the trial names
  Eigen::VectorXd time;                 ///< (N) s
  Eigen::MatrixXd angle;                ///< (N x num_joints) filtered measured angles of the suit trial
  Eigen::MatrixXd velocity;             ///< (N x num_joints) their rates (rad/s)
  /// (N x num_joints) true where the joint rests (|rate| <= the stop
  /// velocity) in either trial: static friction holds any torque up to
  /// tau_s^max there, A(7)-(8), so the actuator torque and with it every
  /// estimate is unknown.
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> rest;
  std::vector<Eigen::MatrixXd> method;  ///< per SupportMethod (N x num_joints), N m
  /// The suit trial's force sensors and how their noise reaches each joint
  /// row (MotionData::force_gain, moment_gain), (N x num_joints) each.
  std::vector<std::string> force_sensor;
  std::vector<Eigen::MatrixXd> force_gain, moment_gain;
};

/// Estimates the supporting torque of `suit_trial` against `bare_trial` (the
/// same motion without the suit), with the models of `id`.
SupportCurves supportCurves(const EvaluationInputs& inputs, const IdentificationOutcome& id,
                            const TrialInfo& bare_trial, const TrialInfo& suit_trial,
                            const std::filesystem::path& streams_dir, const PipelineOptions& options);

}  // namespace suitsim::eval
