#include "plots.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace suitsim::viewer {

void drawPlots(PlotData& data) {
  float window = static_cast<float>(data.windowSeconds());
  ImGui::SetNextItemWidth(120.0f);
  if (ImGui::SliderFloat("window [s]", &window, 1.0f, 30.0f, "%.0f")) data.setWindow(window, data.rateHz());
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1.0f);
  // The channel menu: every channel of the scene under its kind's heading;
  // clicking one adds or removes its plot.
  if (ImGui::BeginCombo("##channels", "add or remove channels", ImGuiComboFlags_HeightLargest)) {
    int previous_kind = -1;
    for (int i = 0; i < static_cast<int>(data.channels().size()); ++i) {
      const PlotChannel& c = data.channels()[i];
      if (static_cast<int>(c.kind) != previous_kind) {
        previous_kind = static_cast<int>(c.kind);
        ImGui::TextDisabled("%s", channelKindName(c.kind));
      }
      ImGui::PushID(i);
      if (ImGui::Selectable(c.name.c_str(), data.isSelected(i), ImGuiSelectableFlags_DontClosePopups)) data.toggle(i);
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  if (data.selected().empty()) {
    ImGui::TextDisabled("no channels chosen");
    return;
  }

  int remove = -1;
  for (std::size_t k = 0; k < data.selected().size(); ++k) {
    const PlotChannel& c = data.channels()[data.selected()[k]];
    const PlotHistory& h = data.histories()[k];
    ImGui::PushID(static_cast<int>(k));
    // The ring buffer is passed as it is: ImGui starts drawing at the
    // oldest value (values_offset) and wraps.
    const int offset = h.count == static_cast<int>(h.values.size()) ? h.head : 0;
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int i = 0; i < h.count; ++i) lo = std::min(lo, h.values[i]), hi = std::max(hi, h.values[i]);
    if (h.count == 0) lo = hi = 0.0f;
    // Name and latest value on the title line (a plot's own overlay would
    // be clipped while the curve is still short); the range on the frame.
    ImGui::TextUnformatted(c.name.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%.4g", h.latest);
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - 14.0f);
    if (ImGui::SmallButton("x")) remove = data.selected()[k];
    // A flat line gets a little range so it sits in the middle, not on an edge.
    const float pad = hi > lo ? 0.08f * (hi - lo) : 0.5f * std::max(1e-3f, std::fabs(hi));
    // The time axis is the whole window from the start: until the window has
    // filled, the curve takes its share of the width from the left, on a
    // frame drawn at full width.
    const float width = ImGui::GetContentRegionAvail().x, height = 60.0f;
    const ImVec2 corner = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(corner, {corner.x + width, corner.y + height},
                                              ImGui::GetColorU32(ImGuiCol_FrameBg), ImGui::GetStyle().FrameRounding);
    const float share = static_cast<float>(h.count) / static_cast<float>(std::max<std::size_t>(h.values.size(), 1));
    ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
    // (ImGui 1.86 collapses a negative "fill the width" size for plots, hence the explicit width.)
    ImGui::PlotLines("##plot", h.values.data(), h.count, offset, nullptr, lo - pad, hi + pad,
                     ImVec2(std::max(8.0f, share * width), height));
    ImGui::PopStyleColor();
    // The vertical range, as axis labels in the frame's right corners.
    char label[32];
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 grey = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    std::snprintf(label, sizeof label, "%.3g", hi);
    dl->AddText({corner.x + width - ImGui::CalcTextSize(label).x - 4.0f, corner.y + 2.0f}, grey, label);
    std::snprintf(label, sizeof label, "%.3g", lo);
    dl->AddText(
        {corner.x + width - ImGui::CalcTextSize(label).x - 4.0f, corner.y + height - ImGui::GetTextLineHeight() - 2.0f},
        grey, label);
    ImGui::PopID();
  }
  if (remove >= 0) data.toggle(remove);
  ImGui::TextDisabled("last %.0f s of simulated time, %.0f samples/s", data.windowSeconds(), data.rateHz());
}

}  // namespace suitsim::viewer
