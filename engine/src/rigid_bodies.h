// Hinged bodies move as rigid bodies (hinges.cpp's design note, "Hinged
// bodies are rigid bodies"): each body's mass data at a phase point, in
// Workspace::hinge_body.
#pragma once

#include "solver_workspace.h"
#include "suitsim/step.h"

namespace suitsim::detail {

// ---- per-body data: Workspace::hinge_body --------------------------------
// Mass m (0), 1/m (1) and 1 if every particle is free (2), set once; at
// each phase point the centre of mass c (3-5), I^-1 about c (6-14,
// row-major), the particles' offsets x_k - c (15-26) and I about c (27-35).
constexpr int kBodyData = 36;
constexpr int kMass = 0, kInvMass = 1, kMovable = 2, kCentre = 3, kInvInertia = 6, kOffset = 15, kInertia = 27;

inline const double* bodyData(const Workspace& ws, int b) { return &ws.solver->hinge_body[b * kBodyData]; }
inline bool movable(const Workspace& ws, int b) { return ws.solver->hinge_body[b * kBodyData + kMovable] != 0.0; }

/// Spreads each movable body's accumulated wrench (Workspace::
/// hinge_body_wrench) over its particles as a rigid body takes it, and
/// clears the accumulator.
void flushBodyWrenches(const Model& m, Workspace& ws);

}  // namespace suitsim::detail
