#include "log_reading.h"

#include "suitsim/eval/log_map.h"

namespace suitsim::cli {

std::shared_ptr<const eval::LogReading> readLogMapFor(const std::string& map_path, eval::EvaluationInputs* inputs,
                                                      eval::PipelineOptions* pipeline) {
  const eval::LogMap map = eval::readLogMap(map_path);
  auto logs = std::make_shared<const eval::LogReading>(eval::readLogs(map, *inputs));
  *inputs = eval::inputsForLogs(*inputs, *logs);
  eval::useLogs(logs, pipeline);
  return logs;
}

nlohmann::ordered_json logJson(const eval::LogReading& logs) {
  nlohmann::ordered_json j;
  j["map"] = logs.map.path;
  j["format"] = logs.map.format == eval::LogMap::Format::Csv ? "csv" : "hdf5";
  j["on_bad_sample"] = logs.map.on_bad_sample == eval::BadSample::Drop ? "drop" : "refuse";
  nlohmann::ordered_json trials = nlohmann::ordered_json::array();
  for (const eval::LogTrialReading& t : logs.trials) {
    nlohmann::ordered_json e = {{"trial", t.trial}, {"file", t.file}};
    if (!t.group.empty()) e["group"] = t.group;
    e["first_row"] = t.first_row;
    e["rows"] = t.rows;
    e["rate_hz"] = t.rate_hz;
    e["dropped"] = t.dropped;
    e["filled"] = t.filled;
    e["dropped_by_rule"] = t.dropped_by_rule;
    trials.push_back(e);
  }
  j["trials"] = trials;
  j["steps"] = logs.steps;
  return j;
}

}  // namespace suitsim::cli
