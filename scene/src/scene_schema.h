// The scene format as a table of elements and attributes, and the first
// passes over a file that check it (unknown names, missing ones, counts and
// syntax) before any value is read for its meaning (STYLE.md, Errors).
// Private to the scene library.
#pragma once

#include <string>

#include <tinyxml2.h>

#include "suitsim/scene/xml_reader.h"

namespace suitsim::io {

/// The reader of a scene element, allowing the attributes its rule lists.
ElementReader readerFor(const std::string& path, const tinyxml2::XMLElement* e);

/// Loads a scene file and runs passes 1-3 over it; returns its <scene> root.
const tinyxml2::XMLElement* checkScene(const std::string& path, tinyxml2::XMLDocument& doc);

/// The reader of a child of <realism> (<via_points>, <gear>, ...).
ElementReader realismChildReader(const std::string& path, const tinyxml2::XMLElement* e);

/// Pass 1 over a realism file's <realism> root: unknown elements and attributes.
void checkRealismNames(const std::string& path, const tinyxml2::XMLElement* root);

}  // namespace suitsim::io
