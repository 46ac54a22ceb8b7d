// The band's own stiffness behind its straps (see band_attachments.h).
#include "suitsim/eval/band_attachments.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace suitsim::eval {

bool parseStraps(const std::string& word, Straps* out) {
  if (word == "ignored") *out = Straps::Ignored;
  else if (word == "corrected") *out = Straps::Corrected;
  else return false;
  return true;
}

const char* strapsName(Straps straps) { return straps == Straps::Corrected ? "corrected" : "ignored"; }

void correctForAttachments(SuitFit& fit, double attachment_stiffness) {
  const double ka = attachment_stiffness;
  if (!(ka > 0.0) || !std::isfinite(ka)) {
    throw std::invalid_argument("correctForAttachments: the straps' stiffness must be positive and finite");
  }
  for (MethodFit& m : fit.methods) {
    for (GroupEstimate& g : m.groups) {
      if (!g.identifiable) continue;
      const double kw = g.stiffness;
      if (!(kw < 0.5 * ka)) {
        // Two straps of k_a in series are k_a / 2: nothing behind them pulls stiffer.
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "the worn stiffness %.4g N/m is not below the straps' series stiffness %.4g N/m (k_a / 2): "
                      "no band behind them gives it",
                      kw, 0.5 * ka);
        g.identifiable = false;
        g.reason = buf;
        g.stiffness = g.relative_std = std::nan("");
        continue;
      }
      const double k = kw * ka / (ka - 2.0 * kw);  // 1 / k = 1 / k_w - 2 / k_a
      g.worn_stiffness = kw;
      g.stiffness = k;
      g.relative_std *= k / kw;
    }
  }
}

}  // namespace suitsim::eval
