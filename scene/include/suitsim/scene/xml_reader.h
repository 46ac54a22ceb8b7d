// Strict attribute access for scene-like XML files: scenes, and the sweep and
// budget files that the sweep library reads the same way.
//
// Every element is read through an ElementReader that first rejects any
// attribute it was not told about (so a misspelt attribute is an error, never
// a silent default), then parses values strictly: the whole text must be a
// finite number. Errors read "path:line: <element> ...".
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <tinyxml2.h>

#include "suitsim/core/vec3.h"

namespace suitsim::io {

class ElementReader {
 public:
  ElementReader(const std::string& path, const tinyxml2::XMLElement* element,
                std::initializer_list<const char*> allowed_attributes);
  /// The same, for readers that keep their attribute lists in a table.
  ElementReader(const std::string& path, const tinyxml2::XMLElement* element,
                const std::vector<const char*>& allowed_attributes);

  bool has(const char* name) const;
  std::string text(const char* name) const;                              ///< required
  std::string text(const char* name, const std::string& fallback) const;  ///< optional
  double number(const char* name) const;
  double number(const char* name, double fallback) const;
  int integer(const char* name) const;
  int integer(const char* name, int fallback) const;
  bool boolean(const char* name, bool fallback) const;
  Vec3 vec3(const char* name) const;
  Vec3 vec3(const char* name, const Vec3& fallback) const;
  std::vector<int> integers(const char* name, std::size_t count) const;  ///< exactly `count` integers

  // Physical checks on a value already read; they name the attribute.
  double positive(const char* name, double value) const;
  double nonNegative(const char* name, double value) const;

  [[noreturn]] void fail(const std::string& problem) const;
  [[noreturn]] void failAttribute(const char* name, const std::string& problem) const;

  int line() const { return element_->GetLineNum(); }
  const char* tag() const { return element_->Name(); }
  const std::string& path() const { return path_; }

 private:
  const char* raw(const char* name) const;
  void rejectUnknownAttributes(const char* const* allowed_begin, const char* const* allowed_end) const;
  std::string path_;
  const tinyxml2::XMLElement* element_;
};

/// The whitespace-separated words of `s`.
std::vector<std::string> words(const std::string& s);

/// Parses a double from the whole of `s`; false on junk or non-finite values.
bool parseNumber(const std::string& s, double* out);

/// Loads an XML document, or throws SceneError with the parser's line. A
/// missing file, a directory, an empty file and a second top-level element
/// are errors too.
void loadXml(const std::string& path, tinyxml2::XMLDocument& doc);

/// Throws SceneError, at its line, for what tinyxml2 accepts although XML
/// forbids it (and strict parsers refuse the file): "--" inside a comment,
/// and an element or attribute name whose prefix no xmlns:PREFIX declares
/// in scope (or that is no qualified name: "a:b:c", ":a").
/// loadXml calls it; readers of XML held in memory call it themselves.
void checkStrictXml(const std::string& path, const tinyxml2::XMLDocument& doc);

/// Throws SceneError at the first line of `text` longer than kMaxLineLength
/// (core/text_input.h): no file of ours has one, and docs/commands.md
/// promises the refusal for every text format. loadXml calls it.
void checkLineLengths(const std::string& path, const std::string& text);

/// Throws for any child element whose name is not in `allowed` (an empty list
/// means the element takes no children), and for any non-blank text.
void rejectUnknownChildren(const std::string& path, const tinyxml2::XMLElement* parent,
                           std::initializer_list<const char*> allowed);
void rejectUnknownChildren(const std::string& path, const tinyxml2::XMLElement* parent,
                           const std::vector<const char*>& allowed);

/// A reader for an element whose attributes the caller has already checked
/// against its rule (no attribute is rejected here).
ElementReader checkedReader(const std::string& path, const tinyxml2::XMLElement* element);

}  // namespace suitsim::io
