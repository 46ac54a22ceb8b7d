// The suit's bands, A(21)-(25): the bands in <robot> (always worn) and in
// each <suit> (worn by the trials that name it). Every band is checked,
// worn or not; the trial's are kept.
#include "robot_reading.h"

#include <cctype>
#include <cstdio>

#include "suitsim/core/text_input.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

void readBands(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  const RobotDescription& robot = in.setup.truth;
  const TrialSpec& trial = in.trial;
  const auto children = [&](const char* tag) { return in.children(tag); };
  // Suit bands, A(21)-(25): counts first, then link names, then physics.
  // Bands directly in <robot> are always worn; those in a <suit> only in the
  // trials that wear it. Every band is checked, worn or not.
  auto readBand = [&](const XMLElement* c, const std::vector<RobotBand>& earlier) {
    const ElementReader cr = checkedReader(scene_path, c);
    // Band and group names become column names and report keys.
    auto checkLabel = [&](const char* attribute, const std::string& value) {
      if (value.empty()) {
        cr.failAttribute(attribute, std::string("must not be empty") +
                                        (std::string(attribute) == "group" ? " (leave it out for a group of its own)" : ""));
      }
      for (const unsigned char ch : value) {
        if (std::isspace(ch) || std::iscntrl(ch) || ch == ',' || ch == '"' || ch == '\'') {
          cr.failAttribute(attribute, "must not contain spaces, commas or quotes (it becomes a column name)");
        }
      }
    };
    RobotBand band;
    band.name = cr.text("name");
    checkLabel("name", band.name);
    for (const RobotBand& other : earlier) {
      if (other.name == band.name) cr.failAttribute("name", "repeats an earlier band name");
    }
    // Stiffness group: declared, never guessed from the name. Without one
    // the band is a group of its own, named as the band; a group name may
    // therefore be a band's name only if that band is in it.
    band.group = cr.text("group", band.name);
    checkLabel("group", band.group);
    for (const RobotBand& other : earlier) {
      if (band.group != band.name && other.name == band.group && other.group != band.group) {
        cr.failAttribute("group", "is the name of band '" + other.name + "', which is in group '" + other.group +
                                      "' (a band without a group is a group of its own)");
      }
      if (other.group == band.name && band.group != band.name) {
        cr.failAttribute("name", "names group '" + other.group + "' of band '" + other.name +
                                     "' but the band is in group '" + band.group + "'");
      }
    }
    band.links = words(cr.text("links"));
    band.points = pointList(cr, "points");
    if (band.links.size() < 2) cr.failAttribute("links", "must name at least two via points (a wire needs two ends)");
    if (band.points.size() != band.links.size()) {
      cr.failAttribute("points", "must give one point per link in 'links' (" + std::to_string(band.links.size()) +
                                     " links, " + std::to_string(band.points.size()) + " points)");
    }
    for (const std::string& link : band.links) {
      if (robot.findLink(link) < 0) cr.failAttribute("links", "names no link of the robot ('" + link + "')");
    }
    band.stiffness = cr.nonNegative("stiffness", cr.number("stiffness"));
    // A group is one stiffness, A(26): the truth must agree or scoring the
    // group's estimate has no answer.
    for (const RobotBand& other : earlier) {
      if (other.group == band.group && other.stiffness != band.stiffness) {
        char k[32];
        std::snprintf(k, sizeof k, "%.17g", other.stiffness);
        cr.failAttribute("stiffness", "differs from band '" + other.name + "' of the same group '" + band.group +
                                          "' (" + k + " N/m); a group shares one stiffness");
      }
    }
    band.damping = cr.nonNegative("damping", cr.number("damping", 0.0));
    const std::string l0 = cr.text("natural_length", "auto");
    if (l0 != "auto") {
      if (!parseNumber(l0, &band.natural_length)) {
        cr.failAttribute("natural_length", "must be auto or a finite length in metres");
      }
      cr.nonNegative("natural_length", band.natural_length);
    }
    return band;
  };
  for (const XMLElement* c : children("band")) setup.bands.push_back(readBand(c, setup.bands));
  const std::vector<RobotBand> always_worn = setup.bands;
  for (const XMLElement* suit : children("suit")) {
    std::vector<RobotBand> worn = always_worn;
    for (const XMLElement* c = suit->FirstChildElement("band"); c; c = c->NextSiblingElement("band")) {
      worn.push_back(readBand(c, worn));
    }
    const char* name = suit->Attribute("name");
    if (name && trial.suit == name) setup.bands = worn;
  }
}

}  // namespace suitsim::io
