// Reading a <realism> element (realism_reader.cpp). Private to the scene library.
#pragma once

#include <string>

#include <tinyxml2.h>

#include "suitsim/scene/scene.h"

namespace suitsim::io {

/// <realism> in a scene or as a realism file's root (passes 1-3 done).
Realism readRealism(const std::string& path, const tinyxml2::XMLElement* e);

}  // namespace suitsim::io
