#include "suitsim/scene/xml_reader.h"


#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "suitsim/core/number_text.h"
#include "suitsim/core/text_input.h"
#include "suitsim/scene/scene.h"

namespace suitsim::io {

namespace {

std::string location(const std::string& path, const tinyxml2::XMLElement* e) {
  std::ostringstream out;
  out << path << ":" << e->GetLineNum() << ": <" << e->Name() << ">";
  return out.str();
}

}  // namespace

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> parts;
  std::string part;
  while (in >> part) parts.push_back(part);
  return parts;
}

bool parseNumber(const std::string& s, double* out) {
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(end[-1]))) --end;
  if (begin < end && *begin == '+') ++begin;  // from_chars refuses a leading '+'
  double value = 0.0;
  const auto result = fromChars(begin, end, value);
  if (result.ec != std::errc() || result.ptr != end || begin == end) return false;
  if (!std::isfinite(value)) return false;
  *out = value;
  return true;
}

namespace {

// tinyxml2 names the element it was in only inside ErrorStr(), as
// "... XMLElement name=particle"; the message is better with it.
std::string errorElement(const tinyxml2::XMLDocument& doc) {
  const std::string detail = doc.ErrorStr() ? doc.ErrorStr() : "";
  const std::string key = "XMLElement name=";
  const std::size_t at = detail.find(key);
  if (at == std::string::npos) return "";
  std::string name = detail.substr(at + key.size());
  const std::size_t end = name.find_first_of(" \t\r\n");
  if (end != std::string::npos) name.resize(end);
  return name;
}

// The parser's error codes say where it gave up, not what the author did
// wrong; these say the usual cause.
std::string describeXmlError(tinyxml2::XMLError err) {
  switch (err) {
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
      return "not closed, or closed by a tag with another name";
    case tinyxml2::XML_ERROR_PARSING_ELEMENT: return "a badly formed tag";
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE:
      return "a malformed or repeated attribute (values need quotes; each attribute may appear once)";
    case tinyxml2::XML_ERROR_PARSING_TEXT: return "malformed text (a stray '<' or '&', or text outside any element)";
    case tinyxml2::XML_ERROR_PARSING_CDATA: return "an unterminated CDATA section";
    case tinyxml2::XML_ERROR_PARSING_COMMENT: return "an unterminated comment";
    case tinyxml2::XML_ERROR_PARSING_DECLARATION: return "a malformed <?...?> declaration";
    case tinyxml2::XML_ERROR_PARSING_UNKNOWN: return "a malformed <!...> section";
    case tinyxml2::XML_ERROR_PARSING: return "an element not closed before the end of the file";
    default: return "unreadable XML";
  }
}

// Comments hold no data, so tinyxml2 keeps them unchecked; but XML forbids
// "--" inside one (and a "-" just before the closing "-->"), and strict
// parsers (expat, libxml2, editors' validators) refuse the whole file. A
// file only suitsim could read would surprise whoever edits it with those
// tools, so it is refused here, at the line of the "--".
void checkCommentsOf(const std::string& path, const tinyxml2::XMLNode* parent) {
  for (const tinyxml2::XMLNode* n = parent->FirstChild(); n; n = n->NextSibling()) {
    if (const tinyxml2::XMLComment* c = n->ToComment()) {
      const std::string text = c->Value() ? c->Value() : "";
      std::size_t at = text.find("--");
      if (at == std::string::npos && !text.empty() && text.back() == '-') at = text.size() - 1;
      if (at == std::string::npos) continue;
      const int line = std::max(1, c->GetLineNum()) + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
      std::string shown = text.substr(at, text.find_first_of("\r\n", at) - at).substr(0, 40);
      throw SceneError(path + ":" + std::to_string(line) +
                       ": malformed XML: '--' inside a comment, which XML forbids (strict parsers refuse the file; "
                       "write it otherwise) (got '" + shown + "')");
    }
    checkCommentsOf(path, n);
  }
}

// Namespaces in XML: a name's prefix ("xacro" in <xacro:macro> or
// xacro:name="...") must be declared by an xmlns:xacro attribute on that
// element or an ancestor. tinyxml2 takes names as plain text, so an
// undeclared prefix passed, while namespace-aware parsers (expat under
// Python's ElementTree, libxml2) refuse the whole file ("unbound prefix").
// `xml` is bound by the standard and `xmlns` only declares; a name with an
// empty prefix or local part, or a second colon, is no qualified name.
std::string qualifiedNameProblem(const char* name, const std::vector<std::string>& declared, bool attribute) {
  const std::string n = name ? name : "";
  const std::size_t colon = n.find(':');
  if (colon == std::string::npos) return "";
  if (colon == 0 || colon + 1 == n.size() || n.find(':', colon + 1) != std::string::npos) {
    return "is not a qualified name (a prefix, one ':' and a local name)";
  }
  const std::string prefix = n.substr(0, colon);
  if (prefix == "xml") return "";
  if (prefix == "xmlns") return attribute ? "" : "uses the prefix 'xmlns', which only declares prefixes";
  if (std::find(declared.begin(), declared.end(), prefix) != declared.end()) return "";
  return "uses the prefix '" + prefix + "', which no xmlns:" + prefix + " declares on it or around it";
}

void checkNamespacesOf(const std::string& path, const tinyxml2::XMLElement* e, std::vector<std::string>& declared) {
  const std::size_t outer = declared.size();
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    const std::string name = a->Name();
    if (name.rfind("xmlns:", 0) != 0) continue;
    // "Namespaces in XML 1.0" forbids undeclaring a prefix with an empty name.
    if (a->Value() == nullptr || *a->Value() == '\0') {
      throw SceneError(path + ":" + std::to_string(a->GetLineNum()) + ": malformed XML: <" + e->Name() +
                       "> attribute '" + name + "' binds a prefix to an empty namespace name, which XML forbids");
    }
    declared.push_back(name.substr(6));
  }
  const auto fail = [&](int line, const std::string& what, const std::string& problem) {
    throw SceneError(path + ":" + std::to_string(line) + ": malformed XML: " + what + " " + problem +
                     " (strict XML parsers refuse the file; declare the prefix or remove it)");
  };
  std::string problem = qualifiedNameProblem(e->Name(), declared, false);
  if (!problem.empty()) fail(e->GetLineNum(), "element <" + std::string(e->Name()) + ">", problem);
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    problem = qualifiedNameProblem(a->Name(), declared, true);
    if (!problem.empty()) {
      fail(a->GetLineNum(), "<" + std::string(e->Name()) + "> attribute '" + a->Name() + "'", problem);
    }
  }
  for (const tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    checkNamespacesOf(path, c, declared);
  }
  declared.resize(outer);
}

}  // namespace

void checkStrictXml(const std::string& path, const tinyxml2::XMLDocument& doc) {
  checkCommentsOf(path, &doc);
  std::vector<std::string> declared;
  for (const tinyxml2::XMLElement* e = doc.FirstChildElement(); e; e = e->NextSiblingElement()) {
    checkNamespacesOf(path, e, declared);
  }
}

void checkLineLengths(const std::string& path, const std::string& text) {
  int line = 1;
  for (std::size_t start = 0;; ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::size_t length = end - start;
    if (length > 0 && text[end - 1] == '\r') --length;
    if (length > kMaxLineLength) {
      throw SceneError(path + ":" + std::to_string(line) + ": a line longer than " + std::to_string(kMaxLineLength) +
                       " characters (no scene or URDF needs one)");
    }
    if (end == text.size()) break;
    start = end + 1;
  }
}

void loadXml(const std::string& path, tinyxml2::XMLDocument& doc) {
  // tinyxml2 happily fopen()s a directory and reports a confusing error, so
  // the common file problems are told apart first.
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw SceneError(path + ": cannot open file (" + regularFileProblem(path) + ")");
  if (std::filesystem::is_directory(status)) throw SceneError(path + ": is a directory, not a scene file");
  // A FIFO or a device would block or never end.
  if (!std::filesystem::is_regular_file(status)) {
    throw SceneError(path + ": is not a regular file (a FIFO, device or socket)");
  }

  // Read here rather than by tinyxml2's LoadFile, so the lines can be
  // checked before parsing.
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open file (" + std::strerror(errno) + ")");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw SceneError(path + ": cannot read file (" + std::strerror(errno) + ")");
  checkLineLengths(path, text);

  const tinyxml2::XMLError err = doc.Parse(text.data(), text.size());
  if (err == tinyxml2::XML_ERROR_EMPTY_DOCUMENT) {
    throw SceneError(path + ":1: malformed XML: the file is empty (expected a <scene> element)");
  }
  if (err != tinyxml2::XML_SUCCESS) {
    std::ostringstream out;
    const std::string element = errorElement(doc);
    out << path << ":" << std::max(1, doc.ErrorLineNum()) << ": ";
    if (!element.empty()) out << "<" << element << "> ";
    out << "malformed XML: " << describeXmlError(err) << " ("
        << doc.ErrorName() << ")";
    throw SceneError(out.str());
  }
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (root == nullptr) throw SceneError(path + ":1: malformed XML: the file has no element (expected <scene>)");
  checkStrictXml(path, doc);
  // Text outside the root element is no part of any of our formats (a stray
  // line pasted above <robot> or after </scene>): refuse it, never skip it.
  for (const tinyxml2::XMLNode* n = doc.FirstChild(); n; n = n->NextSibling()) {
    const tinyxml2::XMLText* t = n->ToText();
    if (!t) continue;
    const std::string text = t->Value() ? t->Value() : "";
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) continue;
    std::string shown = text.substr(first, text.find_first_of("\r\n", first) - first).substr(0, 40);
    while (!shown.empty() && std::isspace(static_cast<unsigned char>(shown.back()))) shown.pop_back();
    throw SceneError(path + ":" + std::to_string(std::max(1, t->GetLineNum())) + ": text outside the <" +
                     root->Name() + "> element (got '" + shown + "')");
  }
  // XML allows one root; tinyxml2 reads a second one and we would ignore it.
  if (const tinyxml2::XMLElement* extra = root->NextSiblingElement()) {
    throw SceneError(location(path, extra) + " a second top-level element (everything belongs inside <" +
                     root->Name() + ">, closed at the end of the file)");
  }
}

void rejectUnknownChildren(const std::string& path, const tinyxml2::XMLElement* parent,
                           std::initializer_list<const char*> allowed) {
  rejectUnknownChildren(path, parent, std::vector<const char*>(allowed));
}

void rejectUnknownChildren(const std::string& path, const tinyxml2::XMLElement* parent,
                           const std::vector<const char*>& allowed) {
  for (const tinyxml2::XMLNode* n = parent->FirstChild(); n; n = n->NextSibling()) {
    if (const tinyxml2::XMLText* t = n->ToText()) {
      // Text is never part of the format: a value typed between the tags
      // instead of into an attribute must not vanish silently.
      std::string text = t->Value() ? t->Value() : "";
      if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); })) continue;
      const auto first = text.find_first_not_of(" \t\r\n");
      text = text.substr(first);
      if (text.size() > 40) text = text.substr(0, 40) + "...";
      std::ostringstream out;
      out << path << ":" << n->GetLineNum() << ": <" << parent->Name()
          << "> unexpected text (values go in attributes) (got '" << text << "')";
      throw SceneError(out.str());
    }
    const tinyxml2::XMLElement* c = n->ToElement();
    if (!c) continue;  // comments and declarations
    bool known = false;
    for (const char* a : allowed) known = known || std::strcmp(a, c->Name()) == 0;
    if (!known) {
      std::ostringstream out;
      out << location(path, c) << " unknown element inside <" << parent->Name() << ">";
      if (allowed.size() == 0) {
        out << " (<" << parent->Name() << "> takes no child elements)";
      } else {
        out << " (allowed:";
        for (const char* a : allowed) out << " <" << a << ">";
        out << ")";
      }
      throw SceneError(out.str());
    }
  }
}

ElementReader::ElementReader(const std::string& path, const tinyxml2::XMLElement* element,
                             std::initializer_list<const char*> allowed)
    : path_(path), element_(element) {
  rejectUnknownAttributes(allowed.begin(), allowed.end());
}

ElementReader::ElementReader(const std::string& path, const tinyxml2::XMLElement* element,
                             const std::vector<const char*>& allowed)
    : path_(path), element_(element) {
  rejectUnknownAttributes(allowed.data(), allowed.data() + allowed.size());
}

void ElementReader::rejectUnknownAttributes(const char* const* allowed_begin, const char* const* allowed_end) const {
  for (const tinyxml2::XMLAttribute* a = element_->FirstAttribute(); a; a = a->Next()) {
    bool known = false;
    for (auto name = allowed_begin; name != allowed_end; ++name) known = known || std::strcmp(*name, a->Name()) == 0;
    if (!known) {
      std::ostringstream out;
      out << "unknown attribute '" << a->Name() << "' (allowed:";
      for (auto name = allowed_begin; name != allowed_end; ++name) out << " " << *name;
      if (allowed_begin == allowed_end) out << " none";
      out << ")";
      fail(out.str());
    }
  }
}

void ElementReader::fail(const std::string& problem) const {
  throw SceneError(location(path_, element_) + " " + problem);
}

void ElementReader::failAttribute(const char* name, const std::string& problem) const {
  std::string message = "attribute '" + std::string(name) + "' " + problem;
  if (const char* value = raw(name)) message += " (got '" + std::string(value) + "')";
  fail(message);
}

const char* ElementReader::raw(const char* name) const { return element_->Attribute(name); }

bool ElementReader::has(const char* name) const { return raw(name) != nullptr; }

std::string ElementReader::text(const char* name) const {
  const char* value = raw(name);
  if (!value) fail("missing required attribute '" + std::string(name) + "'");
  return value;
}

std::string ElementReader::text(const char* name, const std::string& fallback) const {
  const char* value = raw(name);
  return value ? std::string(value) : fallback;
}

double ElementReader::number(const char* name) const {
  const std::string s = text(name);
  double value = 0.0;
  if (!parseNumber(s, &value)) failAttribute(name, "must be a finite number");
  return value;
}

double ElementReader::number(const char* name, double fallback) const {
  return has(name) ? number(name) : fallback;
}

int ElementReader::integer(const char* name) const {
  const std::string s = text(name);
  int value = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), value);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) {
    failAttribute(name, "must be an integer");
  }
  return value;
}

int ElementReader::integer(const char* name, int fallback) const {
  return has(name) ? integer(name) : fallback;
}

bool ElementReader::boolean(const char* name, bool fallback) const {
  if (!has(name)) return fallback;
  const std::string s = text(name);
  if (s == "true" || s == "1") return true;
  if (s == "false" || s == "0") return false;
  failAttribute(name, "must be true, false, 1 or 0");
}

Vec3 ElementReader::vec3(const char* name) const {
  const std::vector<std::string> parts = words(text(name));
  if (parts.size() != 3) failAttribute(name, "must be three numbers");
  Vec3 v{};
  for (int k = 0; k < 3; ++k) {
    if (!parseNumber(parts[k], &v[k])) failAttribute(name, "must be three finite numbers");
  }
  return v;
}

Vec3 ElementReader::vec3(const char* name, const Vec3& fallback) const {
  return has(name) ? vec3(name) : fallback;
}

std::vector<int> ElementReader::integers(const char* name, std::size_t count) const {
  const std::vector<std::string> parts = words(text(name));
  if (parts.size() != count) failAttribute(name, "must be " + std::to_string(count) + " integers");
  std::vector<int> values(count);
  for (std::size_t k = 0; k < count; ++k) {
    const auto r = std::from_chars(parts[k].data(), parts[k].data() + parts[k].size(), values[k]);
    if (r.ec != std::errc() || r.ptr != parts[k].data() + parts[k].size()) {
      failAttribute(name, "must be " + std::to_string(count) + " integers");
    }
  }
  return values;
}

double ElementReader::positive(const char* name, double value) const {
  if (!(value > 0.0)) failAttribute(name, "must be > 0");
  return value;
}

double ElementReader::nonNegative(const char* name, double value) const {
  if (!(value >= 0.0)) failAttribute(name, "must be >= 0");
  return value;
}

ElementReader checkedReader(const std::string& path, const tinyxml2::XMLElement* element) {
  std::vector<const char*> present;
  for (const tinyxml2::XMLAttribute* a = element->FirstAttribute(); a; a = a->Next()) present.push_back(a->Name());
  return ElementReader(path, element, present);
}

}  // namespace suitsim::io
