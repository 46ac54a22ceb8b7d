// How GoogleTest prints the engine's enums: by their scene names. Without
// these, a parameterized test's name and its "GetParam() =" note show the
// enum's raw byte ("1-byte object <01>"); ctest's names (gtest_discover_tests
// puts the printed value in place of the index) then say nothing.
#pragma once

#include <ostream>

#include "suitsim/model.h"

namespace suitsim {

// Found by argument-dependent lookup, so it lives in the enums' namespace.
inline void PrintTo(SpringArithmetic arithmetic, std::ostream* os) { *os << springArithmeticName(arithmetic); }
inline void PrintTo(Integrator integrator, std::ostream* os) { *os << integratorName(integrator); }

}  // namespace suitsim
