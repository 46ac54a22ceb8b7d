// The motion library of excitation design (Kang et al. 2023, Algorithm 1
// lines 1-9): candidate identification motions for a scene's robot, either
// generated (random keyframes within the joint limits, joined by the
// minimum-jerk segments of a scene's <keyframe> motions, no faster than a
// share of each joint's speed limit, both feet planted) or read from motion
// CSV files, as a user brings motion-capture retargets.
//
// Generation. Every servoed joint off the legs takes a random target at each
// keyframe: a uniform draw within `amplitude` of the way from the initial
// angle to each limit (less `limit_padding` of the range); the candidate's
// amplitude is itself drawn in [amplitude_min, amplitude_max], so the library
// runs from gentle to bold. The legs are moved only through the root: a
// random lowering (up to `height_drop` of the leg length) and tilt (up to
// `tilt` rad about each axis), solved by inverse kinematics with every foot
// held at its pose and the centre of mass kept `com_margin` inside the
// support polygon; a keyframe the legs cannot reach keeps the legs where
// they were. A keyframe whose static ZMP (the centre of mass's projection,
// from `balance_phi` when given: the identified model) is less than
// `com_margin` inside the polygon is drawn again at a smaller amplitude, up
// to `tries` times, then skipped. Each segment lasts a random time in
// [segment_min_s, segment_max_s], stretched so no joint's peak speed
// (1.875 Δq / T for a minimum-jerk segment) exceeds `speed_fraction` of its
// limit, then slowed (by 1.3, up to `slowdowns` times) until its ZMP, on
// the same model, keeps `com_margin`; a segment that does not is not taken.
// The last keyframe brings the robot back to its initial pose over at least
// segment_max_s.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "suitsim/design/design_robot.h"
#include "suitsim/scene/motion_csv.h"
#include "suitsim/servo.h"

namespace suitsim::design {

/// One candidate motion, in the rigid model's joints.
struct CandidateMotion {
  std::string name;
  std::string source;          ///< "generated", a CSV file it was read from, or "scene"
  Motion reference;            ///< what the servo follows; its "hinges" are the joints' q indices
  std::vector<double> time;    ///< keyframe (or CSV sample) times (s); empty for a scene's motion
  std::vector<double> angles;  ///< row-major (time.size() x joints().size()) (rad)
  bool minimum_jerk = true;    ///< keyframes joined by minimum-jerk segments; false: CSV samples (C1 cubic)
  const std::vector<int>& joints() const { return reference.hinges(); }
  double duration() const { return reference.duration(); }
};

struct GeneratorOptions {
  double start_s = 0.8;        ///< first keyframe (the initial pose): the robot settles first (s)
  double end_s = 11.4;         ///< last keyframe at most (s): the trial's duration less a rest
  double segment_min_s = 0.5;  ///< segment duration drawn in [min, max] (s)
  double segment_max_s = 1.5;
  double speed_fraction = 0.6;  ///< peak joint speed at most this share of its limit
  double amplitude_min = 0.15;  ///< share of the way from the initial angle to each limit
  double amplitude_max = 0.6;
  int tries = 8;                ///< draws of a keyframe before it is skipped
  int slowdowns = 4;            ///< times a segment is slowed by 1.3 to keep the ZMP margin
  double balance_dt = 0.02;     ///< the segments' ZMP sampled this often (s)
  double limit_padding = 0.05;  ///< share of each joint's range kept clear of the limits
  double height_drop = 0.08;    ///< root lowered by at most this share of the leg length
  double tilt = 0.12;           ///< root roll, pitch and yaw at most (rad), times the amplitude
  double com_margin = 0.0;      ///< centre of mass kept this far inside the support polygon at keyframes (m)
  /// Base parameters the keyframes' static ZMP is computed with (empty: the a-priori model's centre of mass).
  Eigen::VectorXd balance_phi;
  /// A joint without a limit (continuous) swings at most this far (rad).
  double unlimited_range = 1.0;
};

/// `count` candidates, candidate k drawn from (seed, k): the same library
/// for any thread count (OpenMP `threads`, 0: the default).
std::vector<CandidateMotion> generateCandidates(const DesignRobot& robot, const GeneratorOptions& options, int count,
                                                std::uint64_t seed, int threads = 0);

/// A candidate from a motion CSV (io::readMotionCsv): its columns must name
/// joints the design moves. Throws io::SceneError "path:1: ..." otherwise.
CandidateMotion candidateFromTable(const DesignRobot& robot, const io::MotionTable& table, const std::string& path);

/// A motion of the scene (io::SceneRobot::joint_motion, on description
/// joints) as a candidate, for measuring the scene's own identification motions.
CandidateMotion candidateFromSetup(const DesignRobot& robot, const io::SceneRobot& setup, const std::string& name);

/// Why the candidate breaks a joint limit or a speed limit (`speed_fraction`
/// of it), sampled every `dt` (s); empty when it keeps them.
std::string limitViolation(const DesignRobot& robot, const CandidateMotion& candidate, double speed_fraction,
                           double dt = 0.005);

}  // namespace suitsim::design
