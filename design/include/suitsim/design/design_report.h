// The report of `suitsim design-motions`: design.json for programs,
// design.md for people (docs/design-motions.md, Reading the report).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "suitsim/design/curriculum.h"

namespace suitsim::design {

/// `target`: the relative std the counts are of; `files`: each chosen
/// motion's CSV (as written, relative to the output folder), chosen order.
nlohmann::ordered_json designReportJson(const DesignResult& result, double target, const std::vector<std::string>& files);
std::string designReportMarkdown(const DesignResult& result, double target, const std::vector<std::string>& files);

}  // namespace suitsim::design
