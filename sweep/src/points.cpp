// Points of a sweep and the scene each one runs.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "suitsim/sweep/points.h"

namespace suitsim::sweep {

std::vector<Point> enumeratePoints(const SweepSpec& spec) {
  std::size_t combinations = 1;
  for (const Parameter& p : spec.parameters) combinations *= p.values.size();
  const std::size_t seeds = spec.seeds.count > 0 ? static_cast<std::size_t>(spec.seeds.count) : 1;
  const std::size_t total = combinations * seeds;
  const int width = std::max<int>(4, static_cast<int>(std::to_string(total - 1).size()));
  std::vector<Point> points(total);
  for (std::size_t i = 0; i < total; ++i) {
    Point& pt = points[i];
    pt.index = static_cast<int>(i);
    const std::string digits = std::to_string(i);
    pt.id = "p" + std::string(static_cast<std::size_t>(width) - std::min<std::size_t>(width, digits.size()), '0') + digits;
    // Mixed radix, the last parameter fastest, then the seed.
    std::size_t rest = i / seeds;
    pt.values.resize(spec.parameters.size());
    for (std::size_t k = spec.parameters.size(); k-- > 0;) {
      const auto& values = spec.parameters[k].values;
      pt.values[k] = values[rest % values.size()];
      rest /= values.size();
    }
    pt.seed = spec.seeds.first + static_cast<std::int64_t>(i % seeds);
  }
  return points;
}

namespace {

std::string scaledValue(const Target& t, const std::string& value, const std::string& parameter) {
  if (!t.scaled) return value;
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size()) {
    throw std::invalid_argument("parameter '" + parameter + "': value '" + value +
                                "' is not a number, so it cannot be scaled for " + t.path.text);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x * t.scale);
  return buf;
}

}  // namespace

std::string pointScene(const SweepSpec& spec, const std::string& base_xml, const Point& point) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(base_xml.c_str(), base_xml.size()) != tinyxml2::XML_SUCCESS || !doc.RootElement()) {
    throw std::invalid_argument(spec.scene + ": cannot be parsed again");
  }
  tinyxml2::XMLElement* root = doc.RootElement();
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
    const Parameter& p = spec.parameters[k];
    for (const Target& t : p.targets) setAttributes(root, t.path, scaledValue(t, point.values[k], p.name));
  }
  if (spec.seeds.count > 0) {
    for (const AttributePath& path : spec.seeds.paths) setAttributes(root, path, std::to_string(point.seed));
  }
  // The point's scene lives in DIR/points/<id>/: file names in it keep
  // meaning what they meant beside the base scene.
  std::filesystem::path base_dir = std::filesystem::absolute(std::filesystem::path(spec.scene)).parent_path();
  if (const char* given = root->Attribute("relative_to")) base_dir /= given;  // absolute replaces
  base_dir = base_dir.lexically_normal();
  root->SetAttribute("relative_to", base_dir.string().c_str());
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return std::string(printer.CStr(), static_cast<std::size_t>(printer.CStrSize() > 0 ? printer.CStrSize() - 1 : 0));
}

}  // namespace suitsim::sweep
