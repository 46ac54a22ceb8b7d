// The bands' attachments as a remedy: reading the band's own stiffness
// behind the straps that hold it (docs/realism.md#the-bands-attachments-attachments-stiffness).
//
// A band is anchored at each end by a strap that gives under tension
// (sewn to a cover, pressed into tissue and clothing). In series with both,
// the band pulls as worn with 1 / k_w = 1 / k + 2 / k_a, and from the joints
// alone k_w is what A(26) identifies. With the straps' stiffness k_a from a
// tensile test of the straps (`<apriori attachment_stiffness>`), the band's
// own stiffness is
//     k = 1 / (1 / k_w - 2 / k_a) = k_w k_a / (k_a - 2 k_w),
// and its relative std is the worn one's times dk/dk_w k_w / k = k / k_w.
// The natural length is the band's: a strap at rest holds no length.
#pragma once

#include <string>

#include "suitsim/eval/suit_fit.h"

namespace suitsim::eval {

/// How the evaluation treats the straps: the worn stiffness as the band's
/// (ignored, the paper's) or corrected for the straps' measured stiffness.
enum class Straps { Ignored, Corrected };
/// "ignored" or "corrected"; false otherwise.
bool parseStraps(const std::string& word, Straps* out);
const char* strapsName(Straps straps);

/// Reads every identifiable group of `fit` as worn through two straps of
/// stiffness `attachment_stiffness` (N/m each, > 0): its stiffness becomes
/// the band's own, its worn estimate goes to GroupEstimate::worn_stiffness,
/// and its relative std is scaled by k / k_w. A group whose worn stiffness
/// is not below the straps' series stiffness k_a / 2 cannot be a band behind
/// them: it becomes not identifiable, with that reason. Throws
/// std::invalid_argument for a stiffness that is not positive and finite.
void correctForAttachments(SuitFit& fit, double attachment_stiffness);

}  // namespace suitsim::eval
