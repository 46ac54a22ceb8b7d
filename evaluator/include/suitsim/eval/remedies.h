// `--remedies auto`: every remedy of the evaluator (docs/realism.md) that
// the streams and the a-priori knowledge support, chosen from what the
// evaluator may see (EvaluationInputs and one recorded stream), never from
// the truth: the sensors the scene lists, the datasheet values of the
// a-priori set, and what the logger wrote in the streams' headers.
#pragma once

#include <string>
#include <vector>

#include "suitsim/eval/evaluation.h"
#include "suitsim/eval/inputs.h"
#include "suitsim/eval/streams.h"

namespace suitsim::eval {

/// One remedy as `--remedies auto` decided it.
struct RemedyChoice {
  std::string option;   ///< the single option it sets: "gear", "heating", ...
  std::string setting;  ///< the value chosen ("fit", "corrected", ...), or the default kept
  bool applied = false;
  std::string reason;   ///< why it runs, or why it cannot
};

/// Sets in `options` every remedy that `inputs` and `stream` (one trial's
/// stream as recorded; its header says what the logger declared) support,
/// and returns each remedy's choice, in the order of docs/realism.md:
/// gear (fit: currents measure the load, not with torque sensors), heating
/// (winding temperatures and the magnets' coefficient), sensor_delay (the
/// header declares filters with a delay), gear_twist (the gears' datasheet
/// stiffness and encoders the header says sit on their motors),
/// suit_geometry (band-length sensors), band_model (viscoelastic-capstan:
/// both fits find nothing where their source is off); straps is listed but
/// never chosen (it corrects for straps no stream can show: --straps).
std::vector<RemedyChoice> chooseRemedies(const EvaluationInputs& inputs, const SensorStream& stream,
                                         EvaluationOptions* options);

}  // namespace suitsim::eval
