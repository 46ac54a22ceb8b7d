// The live plots window: pick channels from a menu grouped by kind and
// watch each over the sliding window, drawn with ImGui's own PlotLines.
#pragma once

#include "plot_data.h"

namespace suitsim::viewer {

/// Draws the plots' contents into the current ImGui window.
void drawPlots(PlotData& data);

}  // namespace suitsim::viewer
