// The points of a sweep: every combination of the parameters' values (the
// first parameter varies slowest), each run with every seed (fastest).
// A point's index is its place in that order; it alone decides the point's
// scene, so results never depend on who ran it or when.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tinyxml2.h>

#include "suitsim/sweep/spec.h"

namespace suitsim::sweep {

struct Point {
  int index = 0;
  std::string id;                  ///< "p0007": its folder under DIR/points
  std::vector<std::string> values; ///< per parameter
  std::int64_t seed = 0;           ///< meaningful when the spec has seeds
};

/// Every point, in index order.
std::vector<Point> enumeratePoints(const SweepSpec& spec);

/// The number of elements `path` names under `root` (the scene element).
int countMatches(const tinyxml2::XMLElement* root, const AttributePath& path);

/// Writes `value` into the attribute `path` names on every element it names.
void setAttributes(tinyxml2::XMLElement* root, const AttributePath& path, const std::string& value);

/// The base scene with the point's values (and seed) written in, as XML
/// text. Relative file names in it still resolve against the base scene's
/// folder: the root gets relative_to="<that folder>" (docs/scene-format.md).
/// Throws std::invalid_argument when a scaled target's value is not a number.
std::string pointScene(const SweepSpec& spec, const std::string& base_xml, const Point& point);

}  // namespace suitsim::sweep
