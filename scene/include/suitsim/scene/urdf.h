// Reading URDF robot descriptions into a RobotDescription.
//
// Strict where dynamics is concerned, tolerant elsewhere. URDF is an
// extensible format, so unlike our scene files, unknown elements and
// attributes (<gazebo>, <transmission>, <visual>, <sensor>, ...) are ignored.
// What the dynamics needs is checked: names, numbers, the tree, masses and
// inertia tensors, joint axes and limits. A link's <collision> elements are
// kept (RobotLink::collision): sphere, cylinder and box with their origin and
// dimensions (finite, >= 0), anything else (a mesh) by its name only.
// Errors are SceneError with "path:line: <element> problem (got 'value')".
//
// The result is in tree order: links[0] is the root, and joint j's child is
// link j + 1, so every joint comes after its parent link's own parent joint
// (depth-first, siblings in file order). A forward pass can run in index order.
#pragma once

#include <string>

#include "suitsim/scene/scene.h"  // SceneError
#include "suitsim/robot/robot.h"

namespace suitsim::io {

/// Reads the URDF file at `path`. Throws SceneError naming file and line.
/// floating_base is left true; the scene decides whether the root is welded.
RobotDescription loadUrdf(const std::string& path);

/// Parses URDF text (for tests and embedded descriptions); error messages use
/// `name_for_errors` where a file path would stand.
RobotDescription parseUrdf(const std::string& xml_text, const std::string& name_for_errors);

}  // namespace suitsim::io
