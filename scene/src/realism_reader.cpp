// Reading <realism>, in a scene or as a realism file's root, and the
// --realism option (a preset's name or a realism file).
#include <cmath>
#include <string>

#include "realism_reader.h"
#include "scene_schema.h"
#include "suitsim/core/text_input.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

// <realism> in a scene or as a realism file's root (passes 1-3 done).
Realism readRealism(const std::string& path, const XMLElement* e) {
  Realism realism;
  const ElementReader r = readerFor(path, e);
  // A preset first; the children then set their sources' magnitudes.
  const std::string preset = r.text("preset", "ideal");
  if (preset == "realistic") {
    realism = realisticPreset();
    realism.compliance_origin = path + ":" + std::to_string(e->GetLineNum()) + " <realism preset=\"realistic\">";
  } else if (preset != "ideal") {
    r.failAttribute("preset", "must be ideal or realistic (got '" + preset + "')");
  }
  const int seed = r.integer("seed", 1);
  if (seed < 0) r.failAttribute("seed", "must be >= 0");
  realism.seed = static_cast<std::uint64_t>(seed);
  if (const XMLElement* v = e->FirstChildElement("via_points")) {
    const ElementReader vr = realismChildReader(path, v);
    realism.via_point_offset = vr.nonNegative("offset", vr.number("offset"));
  }
  if (const XMLElement* g = e->FirstChildElement("gear")) {
    const ElementReader gr = realismChildReader(path, g);
    auto efficiency = [&gr](const char* name) {
      const double v = gr.number(name);
      if (!(v > 0.0 && v <= 1.0)) gr.failAttribute(name, "must lie in (0, 1]");
      return v;
    };
    realism.gear_efficiency = efficiency("efficiency");
    realism.backdrive_efficiency = efficiency("backdrive_efficiency");
    realism.gear_transition_velocity =
        gr.positive("transition_velocity", gr.number("transition_velocity", realism.gear_transition_velocity));
  }
  if (const XMLElement* h = e->FirstChildElement("motor_heating")) {
    const ElementReader hr = realismChildReader(path, h);
    realism.heating_rise_at_effort = hr.positive("rise_at_effort", hr.number("rise_at_effort"));
    // Past 1 / alpha_Cu the copper's loss grows faster than it can shed
    // heat: the winding runs away at its effort limit (motor_heating.cpp).
    if (!(realism.heating_rise_at_effort < 250.0)) {
      hr.failAttribute("rise_at_effort", "must be below 250 K (beyond, copper's rising resistance runs the winding away)");
    }
    realism.heating_time_constant = hr.positive("time_constant", hr.number("time_constant"));
    realism.heating_magnet_coefficient = hr.number("magnet_coefficient");
    if (!(std::abs(realism.heating_magnet_coefficient) < 0.01)) {
      hr.failAttribute("magnet_coefficient", "must lie within +-0.01 1/K (NdFeB magnets: about -0.0012)");
    }
    realism.heating_initial_rise = hr.nonNegative("initial_rise", hr.number("initial_rise", 0.0));
    if (!(1.0 + realism.heating_magnet_coefficient * realism.heating_initial_rise > 0.5)) {
      hr.failAttribute("initial_rise", "would take more than half of k_T at this magnet coefficient");
    }
  }
  if (const XMLElement* c = e->FirstChildElement("sensor_chain")) {
    // Every attribute absent is that part of the chain left out (0): the
    // element alone is a causal logger that reads each device at its stamp.
    const ElementReader cr = realismChildReader(path, c);
    realism.sensor_chain = true;
    realism.chain_imu_cutoff = cr.nonNegative("imu_cutoff", cr.number("imu_cutoff", 0.0));
    realism.chain_force_cutoff = cr.nonNegative("force_cutoff", cr.number("force_cutoff", 0.0));
    realism.chain_current_cutoff = cr.nonNegative("current_cutoff", cr.number("current_cutoff", 0.0));
    realism.chain_jitter = cr.nonNegative("jitter", cr.number("jitter", 0.0));
    realism.chain_gyro_bias_walk = cr.nonNegative("gyro_bias_walk", cr.number("gyro_bias_walk", 0.0));
    realism.chain_accel_bias_walk = cr.nonNegative("accel_bias_walk", cr.number("accel_bias_walk", 0.0));
    realism.chain_force_crosstalk = cr.nonNegative("force_crosstalk", cr.number("force_crosstalk", 0.0));
    realism.chain_force_gain = cr.nonNegative("force_gain", cr.number("force_gain", 0.0));
    if (!(realism.chain_force_gain < 0.2)) {
      cr.failAttribute("force_gain", "must be below 0.2 (a calibrated sensor's gains are right to a per cent or so)");
    }
    if (!(realism.chain_force_crosstalk < 0.2)) {
      cr.failAttribute("force_crosstalk", "must be below 0.2 (a calibrated sensor couples its axes by a few per cent)");
    }
  }
  if (const XMLElement* a = e->FirstChildElement("attachments")) {
    const ElementReader ar = realismChildReader(path, a);
    realism.attachment_stiffness = ar.positive("stiffness", ar.number("stiffness"));
    realism.attachment_spread = ar.nonNegative("spread", ar.number("spread", 0.0));
    if (!(realism.attachment_spread <= 0.5)) {
      ar.failAttribute("spread", "must be at most 0.5 (a relative spread; each strap keeps at least half the stiffness)");
    }
  }
  if (const XMLElement* h = e->FirstChildElement("hysteresis")) {
    const ElementReader hr = realismChildReader(path, h);
    realism.hysteresis_fraction = hr.positive("relaxing_fraction", hr.number("relaxing_fraction"));
    if (!(realism.hysteresis_fraction <= 10.0)) {
      hr.failAttribute("relaxing_fraction", "must be at most 10 (the arm's k_m / k; fabric bands: about 0.1-0.3)");
    }
    realism.hysteresis_relaxation_time = hr.positive("relaxation_time", hr.number("relaxation_time"));
  }
  if (const XMLElement* c = e->FirstChildElement("compliance")) {
    const ElementReader cr = realismChildReader(path, c);
    realism.compliance_stiffness_per_effort =
        cr.positive("stiffness_per_effort", cr.number("stiffness_per_effort"));
    realism.compliance_backlash = cr.nonNegative("backlash", cr.number("backlash", 0.0));
    if (!(realism.compliance_backlash < 0.1)) {
      cr.failAttribute("backlash", "must be below 0.1 rad (a gear's lost motion is arc minutes: 3e-4 rad each)");
    }
    realism.compliance_damping_ratio = cr.nonNegative("damping_ratio", cr.number("damping_ratio", 0.0));
    if (!(realism.compliance_damping_ratio <= 1.0)) {
      cr.failAttribute("damping_ratio", "must be at most 1 (of critical; gear trains: a few to ten per cent)");
    }
    realism.compliance_spread = cr.nonNegative("spread", cr.number("spread", 0.0));
    if (!(realism.compliance_spread <= 0.5)) {
      cr.failAttribute("spread", "must be at most 0.5 (a unit's stiffness against its datasheet's)");
    }
    const std::string encoder = cr.has("encoder") ? cr.text("encoder") : "link";
    if (encoder != "motor" && encoder != "link") cr.failAttribute("encoder", "must be motor or link");
    realism.compliance_encoder_on_motor = encoder == "motor";
    realism.compliance_origin = path + ":" + std::to_string(c->GetLineNum()) + " <compliance>";
  }
  if (const XMLElement* c = e->FirstChildElement("capstan")) {
    const ElementReader cr = realismChildReader(path, c);
    realism.capstan_friction = cr.nonNegative("friction", cr.number("friction"));
    if (!(realism.capstan_friction <= 2.0)) {
      cr.failAttribute("friction", "must be at most 2 (a band's friction coefficient on fabric or skin: about 0.2-0.6)");
    }
  }
  // Which of them stay on: the budget switches them one at a time.
  if (r.has("sources")) {
    const std::vector<std::string> sources = words(r.text("sources"));
    if (sources.empty()) r.failAttribute("sources", "is empty: list sources, or all or none");
    const bool all = sources.size() == 1 && sources[0] == "all", none = sources.size() == 1 && sources[0] == "none";
    if (!all) {
      try {
        realism = keepSources(realism, none ? std::vector<std::string>{} : sources);
      } catch (const std::invalid_argument& ex) {
        r.failAttribute("sources", ex.what());
      }
    }
  }
  return realism;
}

Realism loadRealism(const std::string& path) {
  tinyxml2::XMLDocument doc;
  loadXml(path, doc);
  const XMLElement* root = doc.RootElement();
  if (std::string(root->Name()) != "realism") {
    throw SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <" + root->Name() +
                     "> the root element of a realism file must be <realism>");
  }
  checkRealismNames(path, root);
  Realism realism = readRealism(path, root);
  realism.source = path;
  return realism;
}

Realism realismOption(const std::string& value) {
  if (value == "ideal" || value == "realistic") {
    Realism preset = value == "ideal" ? Realism{} : realisticPreset();
    preset.source = value;
    if (value == "realistic") preset.compliance_origin = "--realism realistic";
    return preset;
  }
  return loadRealism(value);
}

}  // namespace suitsim::io
