// Attribute paths: a small subset of XPath, enough to name any attribute of
// a scene ("robot/suit[@name='normal']/band[@group='A']@stiffness").
#include <cctype>

#include "suitsim/sweep/points.h"
#include "suitsim/sweep/spec.h"

namespace suitsim::sweep {

namespace {

bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

// Reads a name at text[*i]; empty when there is none.
std::string readName(const std::string& text, std::size_t* i) {
  const std::size_t begin = *i;
  while (*i < text.size() && nameChar(text[*i])) ++*i;
  return text.substr(begin, *i - begin);
}

bool matches(const tinyxml2::XMLElement* e, const PathStep& step) {
  if (step.element != e->Name()) return false;
  for (const auto& [key, value] : step.conditions) {
    const char* v = e->Attribute(key.c_str());
    if (!v || value != v) return false;
  }
  return true;
}

template <typename Element, typename Visit>
void visit(Element* parent, const AttributePath& path, std::size_t depth, const Visit& f) {
  for (Element* e = parent->FirstChildElement(); e; e = e->NextSiblingElement()) {
    if (!matches(e, path.steps[depth])) continue;
    if (depth + 1 == path.steps.size()) {
      f(e);
    } else {
      visit(e, path, depth + 1, f);
    }
  }
}

}  // namespace

bool parseAttributePath(const std::string& text, AttributePath* path, std::string* error) {
  *path = AttributePath{};
  path->text = text;
  std::size_t i = 0;
  const auto fail = [&](const std::string& what) {
    *error = what + " at character " + std::to_string(i + 1) + " of '" + text + "'";
    return false;
  };
  while (true) {
    PathStep step;
    step.element = readName(text, &i);
    if (step.element.empty()) return fail("expected an element name");
    while (i < text.size() && text[i] == '[') {
      ++i;
      if (i >= text.size() || text[i] != '@') return fail("expected '@' after '['");
      ++i;
      const std::string key = readName(text, &i);
      if (key.empty()) return fail("expected an attribute name");
      if (i >= text.size() || text[i] != '=') return fail("expected '='");
      ++i;
      if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) return fail("expected a quoted value");
      const char quote = text[i++];
      const std::size_t end = text.find(quote, i);
      if (end == std::string::npos) return fail("unterminated quoted value");
      step.conditions.emplace_back(key, text.substr(i, end - i));
      i = end + 1;
      if (i >= text.size() || text[i] != ']') return fail("expected ']'");
      ++i;
    }
    path->steps.push_back(step);
    if (i >= text.size()) return fail("expected '@attribute' at the end");
    if (text[i] == '/') {
      ++i;
      continue;
    }
    if (text[i] != '@') return fail("expected '/' or '@'");
    ++i;
    path->attribute = readName(text, &i);
    if (path->attribute.empty()) return fail("expected an attribute name");
    if (i != text.size()) return fail("unexpected text after the attribute");
    return true;
  }
}

int countMatches(const tinyxml2::XMLElement* root, const AttributePath& path) {
  int n = 0;
  visit(root, path, 0, [&](const tinyxml2::XMLElement*) { ++n; });
  return n;
}

void setAttributes(tinyxml2::XMLElement* root, const AttributePath& path, const std::string& value) {
  visit(root, path, 0, [&](tinyxml2::XMLElement* e) { e->SetAttribute(path.attribute.c_str(), value.c_str()); });
}

}  // namespace suitsim::sweep
