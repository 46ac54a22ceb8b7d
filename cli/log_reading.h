// `--log MAP` of `suitsim identify` and `suitsim evaluate`: a robot's own
// logs through a channel map (eval/log_streams.h, docs/logs.md).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "suitsim/eval/inputs.h"
#include "suitsim/eval/log_streams.h"
#include "suitsim/eval/robot_identification.h"

namespace suitsim::cli {

/// Reads the map and every log it names for the scene's inputs, keeps only
/// the map's trials in `inputs` (at the logs' rate) and points `pipeline`
/// at the logs. Throws io::SceneError (the map) or eval::StreamError (a
/// log): bad input, exit 2.
std::shared_ptr<const eval::LogReading> readLogMapFor(const std::string& map_path, eval::EvaluationInputs* inputs,
                                                      eval::PipelineOptions* pipeline);

/// identification.json's "log": the map, each trial's file, segment, rate
/// and dropped samples, and every step from the log to the samples.
nlohmann::ordered_json logJson(const eval::LogReading& logs);

}  // namespace suitsim::cli
