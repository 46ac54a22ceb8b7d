// The spring kernel (springs_kernel.h) in both arithmetics
// (Model::spring_arithmetic): namespaces `separate` and `fused`, for the
// instruction set SUITSIM_SPRING_ISA that the includer has set
// (springs.cpp). No include guard: included once per instruction set.
namespace separate {
#define SUITSIM_SPRING_FUSED 0
#include "springs_kernel.h"
#undef SUITSIM_SPRING_FUSED
}  // namespace separate

namespace fused {
#define SUITSIM_SPRING_FUSED 1
#include "springs_kernel.h"
#undef SUITSIM_SPRING_FUSED
}  // namespace fused
