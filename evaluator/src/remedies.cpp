#include "suitsim/eval/remedies.h"

#include <algorithm>

#include "logger_delay.h"

namespace suitsim::eval {

std::vector<RemedyChoice> chooseRemedies(const EvaluationInputs& inputs, const SensorStream& stream,
                                         EvaluationOptions* options) {
  std::vector<RemedyChoice> out;
  const SensorLayout& layout = inputs.layout;
  const std::vector<RobotJoint>& joints = inputs.apriori.joints;
  PipelineOptions& pipeline = options->pipeline;

  // The gears' load-proportional loss: the currents measure the load, so
  // the loss is one more column per joint; it fits zero on a lossless gear.
  RemedyChoice gear{"gear", "ideal", false, ""};
  if (layout.has_joint_torques) {
    gear.reason = "the joint torque sensors read after the gears: no loss in their equation";
  } else if (!layout.has_currents) {
    gear.reason = "no motor currents in the streams";
  } else {
    gear = {"gear", "fit", true, "the currents measure the load: the loss is fitted per joint"};
    pipeline.identification.gear = IdentificationOptions::Gear::Fit;
  }
  out.push_back(gear);

  // The windings' heating: each current read at the datasheet's temperature.
  RemedyChoice heating{"heating", "ignored", false, ""};
  const bool alpha = std::any_of(joints.begin(), joints.end(),
                                 [](const RobotJoint& j) { return j.actuation.magnet_coefficient != 0.0; });
  if (!layout.has_winding_temperatures) {
    heating.reason = "no winding temperatures in the streams (<winding_temperatures> sensors)";
  } else if (!alpha) {
    heating.reason = "the a-priori set states no magnet coefficient (<apriori magnet_coefficient>)";
  } else {
    heating = {"heating", "corrected", true, "winding temperatures logged and the magnets' coefficient known"};
    pipeline.heating = PipelineOptions::Heating::Corrected;
  }
  out.push_back(heating);

  // The logger's filters: their delay taken out where the header declares it.
  RemedyChoice delay{"sensor_delay", "ignored", false, ""};
  try {
    const LoggerDelays d = declaredLoggerDelays(stream);
    if (d.imu > 0.0 || d.force > 0.0 || d.current > 0.0) {
      delay = {"sensor_delay", "compensated", true, "the streams' header declares the logger's filters"};
      pipeline.sensor_delay = PipelineOptions::SensorDelay::Compensated;
    } else {
      delay.reason = "the streams' logger declares no filter that delays a channel";
    }
  } catch (const StreamError&) {
    delay.reason = "the streams' header does not describe the logger's filters";
  }
  out.push_back(delay);

  // The gears' twist: encoders on the motors read through the datasheet's
  // stiffness.
  RemedyChoice twist{"gear_twist", "ignored", false, ""};
  const bool stiffness =
      std::any_of(joints.begin(), joints.end(), [](const RobotJoint& j) { return j.actuation.gear_stiffness > 0.0; });
  if (!stiffness) {
    twist.reason = "the a-priori set states no gear stiffness (<apriori gear_stiffness_per_effort>)";
  } else if (stream.meta("encoders_on_motor").empty()) {
    twist.reason = "the streams list no encoder on a motor (header encoders_on_motor)";
  } else {
    twist = {"gear_twist", "compensated", true, "encoders on the motors and the gears' datasheet stiffness known"};
    pipeline.gear_twist = PipelineOptions::GearTwist::Compensated;
  }
  out.push_back(twist);

  // The suit as worn: the via points fitted to the bands' logged lengths.
  RemedyChoice geometry{"suit_geometry", "designed", false, ""};
  if (!layout.has_band_lengths) {
    geometry.reason = "no band-length sensors in the scene (<band_lengths>)";
  } else {
    geometry = {"suit_geometry", "measured", true, "the bands' lengths are logged"};
    options->suit_geometry = SuitGeometrySource::Measured;
  }
  out.push_back(geometry);

  // A(26) with the bands' relaxation and the friction where they turn:
  // both fitted, each finds nothing where its source is off.
  out.push_back({"band_model", "viscoelastic-capstan", true,
                 "the bands' relaxation and the friction where they turn are fitted with the stiffness"});
  options->band_model = BandModel::ViscoelasticCapstan;

  // The straps at the bands' ends. Not chosen for the user: the correction
  // reads every band as behind two straps of the stated stiffness and
  // limits itself nowhere, and no stream shows whether the straps are there.
  // On the shipped protocols with gear losses and hysteresis only (rigid
  // anchors in the truth) it put +4 to +10 % (JVRC-1) and +17 to +70 % (H1)
  // on the estimates. The single option stays.
  RemedyChoice straps{"straps", "ignored", false, ""};
  if (!(inputs.attachment_stiffness > 0.0)) {
    straps.reason = "the a-priori set states no tensile test of the straps (<apriori attachment_stiffness>)";
  } else {
    straps.reason = "not chosen automatically: no stream shows whether the bands sit behind straps; "
                    "--straps corrected if they do";
  }
  out.push_back(straps);
  return out;
}

}  // namespace suitsim::eval
