// What the simulator knows and the evaluator must recover: read from the
// scene for scoring only. Nothing under evaluator/ includes this header.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "suitsim/articulated.h"
#include "suitsim/report/cramer_rao.h"
#include "suitsim/scene/scene.h"

namespace suitsim::report {

struct Truth {
  /// The true robot's total mass in the identification trials (kg).
  double total_mass = 0.0;
  /// Per trial name: the bands as simulated (true stiffness, resolved natural length).
  std::map<std::string, std::vector<RobotBand>> bands;
  /// Per trial name: the simulator's balance margin (truth.csv, centroidal.h).
  struct BalanceSeries {
    std::vector<double> time;    ///< (s)
    std::vector<double> margin;  ///< DCM's margin to the support polygon (m); NaN where undefined
  };
  std::map<std::string, BalanceSeries> balance;
  /// Per device name: each hinge's controller settings (exoskeleton.h), by
  /// device hinge name ("DEVICE.SEGMENT").
  std::map<std::string, std::map<std::string, VirtualImpedance>> device_settings;
  /// Per trial name: the straps' moments on every joint (truth.csv's
  /// JOINT.strap_torque columns, by joint name), the device's true supporting torque.
  struct StrapSeries {
    std::vector<double> time;                             ///< (s)
    std::map<std::string, std::vector<double>> torque;    ///< (N m) per joint
  };
  std::map<std::string, StrapSeries> strap_torque;
  /// The error sources the truth was made with (the first trial's; every
  /// trial of a scene has the same).
  io::Realism realism;
  /// The actuator-torque channels' declared noise (the first trial's with a
  /// robot): what the Cramér-Rao bound of the band fits needs (cramer_rao.h).
  TorqueNoise torque_noise;
};

/// Reads the truth of every trial of the scene (throws io::SceneError);
/// `realism` non-null replaces the scene's <realism> (the bands as worn).
Truth loadTruth(const std::string& scene_path, const io::Realism* realism = nullptr);

/// Adds the balance margins of `trials` from STREAMS/<trial>/truth.csv
/// (STREAMS/truth.csv for an unnamed trial). A trial whose truth.csv is
/// missing, or has no balance_margin column (streams of a robot without a
/// ground), gets none; a file that cannot be parsed throws std::runtime_error
/// naming the file and line.
void loadBalanceTruth(const std::string& streams_dir, const std::vector<std::string>& trials, Truth& truth);

/// Adds the straps' true moments of `trials` from STREAMS/<trial>/truth.csv
/// (every JOINT.strap_torque column). A trial whose truth.csv has none (no
/// device worn) gets none; a file that cannot be read or parsed throws
/// std::runtime_error naming the file and line.
void loadStrapTruth(const std::string& streams_dir, const std::vector<std::string>& trials, Truth& truth);

}  // namespace suitsim::report
