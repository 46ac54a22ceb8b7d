// A robot's own logs read through a channel map (log_map.h) into the
// evaluator's SensorStream, one per trial, in the rigid model's joint
// order: what `suitsim identify --log` and `suitsim evaluate --log` hand the
// unchanged identification (PipelineOptions::read_stream). Every log is
// read and checked before anything is identified, so bad input stops the
// command before it writes a file. docs/logs.md is the reference.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "suitsim/eval/inputs.h"
#include "suitsim/eval/log_map.h"
#include "suitsim/eval/robot_identification.h"

namespace suitsim::eval {

/// What reading one trial's segment did.
struct LogTrialReading {
  std::string trial;
  std::string file;             ///< the data file as opened
  std::string group;            ///< HDF5: its group
  int first_row = 0;            ///< the segment's first row in the file (0-based)
  int rows = 0;                 ///< rows of the segment
  double rate_hz = 0.0;         ///< stated or measured
  int dropped = 0;              ///< bad samples dropped (BadSample::Drop)
  int filled = 0;               ///< of which filled by interpolation (the rest cut at the ends)
  std::map<std::string, int> dropped_by_rule;  ///< why: "joint limits", "stated range", "speed", "jump"
};

struct LogReading {
  LogMap map;
  std::map<std::string, SensorStream> streams;  ///< by trial name
  /// The map's <channel>s of each trial, by trial then channel name.
  std::map<std::string, std::map<std::string, Eigen::VectorXd>> channels;
  std::vector<LogTrialReading> trials;  ///< the map's order
  /// The motors of the map's couplings that turn with more than one joint,
  /// rows in the model's joint order: the identification fits each one's
  /// rotor inertia and friction (identification.h, CoupledDrive).
  std::vector<CoupledDrive> coupled_drives;
  /// Each step from the log to the identification's samples, in words, in
  /// order (units, couplings, checks, drops, filter, derivatives,
  /// decimation, trim): what identification.json states.
  std::vector<std::string> steps;
};

/// Reads every trial the map lists for the robot and sensors of `inputs`.
/// Throws io::SceneError "MAP:LINE: ..." for what the map names that the
/// scene lacks (a joint the robot has not, a force sensor of no <sensors>,
/// a trial of no <trial>, a purpose or suit other than the scene's) or
/// leaves out (a joint's angle, a current the layout has, the IMU, a force
/// sensor); StreamError "FILE:LINE: ..." (CSV) or "FILE: dataset 'D' row
/// R" (HDF5) naming the column for a bad cell, a missing column, time that
/// goes back, a sample spacing off the rate, fewer than 20 samples, a
/// reading beyond ±kMaxSensorReading; and, unless the map's <checks> drop
/// them, a sample beyond a joint's limits (SensorLayout::joint_limits plus
/// LogMap::limit_margin), a sensor's stated range, a logged speed or a jump
/// between samples faster than the joint's velocity limit allows.
LogReading readLogs(const LogMap& map, const EvaluationInputs& inputs);

/// The scene's inputs for an evaluation of the logs: only the trials the
/// map lists, in the scene's order, at the logs' rate.
EvaluationInputs inputsForLogs(const EvaluationInputs& scene, const LogReading& logs);

/// Points `options` at the logs: read_stream hands out each trial's stream
/// (and the map's <channel>s asked for by name, StreamError for one the map
/// lacks), the map's <preprocess> sets the conditioning (cutoff, filter
/// order, decimation, trimmed ends) and its coupled motors join the
/// identification (IdentificationOptions::coupled_drives).
void useLogs(std::shared_ptr<const LogReading> logs, PipelineOptions* options);

/// readLogMap, readLogs, inputsForLogs and useLogs in one: reads the map
/// and every log it names for the scene's inputs, keeps only the map's
/// trials in `inputs` (at the logs' rate) and points `pipeline` at the
/// logs. Throws io::SceneError (the map) or StreamError (a log): bad input.
/// What `--log MAP` of `suitsim identify` and `evaluate` and the Python
/// API's `log=` do.
std::shared_ptr<const LogReading> readLogsFor(const std::string& map_path, EvaluationInputs* inputs,
                                              PipelineOptions* pipeline);

/// Writes the streams of a run (`streams_dir`/<trial>/sensors.csv, as
/// `suitsim run` writes them) into one HDF5 file `h5_path` (a group per
/// trial, a 1-D dataset per channel, named as the CSV's columns without
/// their units) and a channel map `map_path` that reads it back to the
/// same SensorStreams (bit for bit: the file holds the doubles the CSV
/// reads as). The map names the HDF5 file `h5_name` (empty: h5_path's
/// file name), relative to its own folder. Throws StreamError for a stream
/// it cannot read or a file it cannot write.
void writeHdf5Log(const EvaluationInputs& inputs, const std::string& streams_dir, const std::string& h5_path,
                  const std::string& map_path, const std::string& h5_name = "");

}  // namespace suitsim::eval
