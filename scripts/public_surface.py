#!/usr/bin/env python3
"""Counts each library's public surface: its public headers and what they declare.

A library is a folder of the tree that holds an `include/` folder (`engine`,
`evaluator/io`, ...); its public headers are the `.h`/`.hpp` files under
that `include/`. What a header declares is counted by this rule, the one
docs/architecture.md ("Public surface") states:

  counted, at namespace scope (the file's top level and every namespace in
  it, `detail` included, since a caller's compiler sees it all the same):
    - each function declared or defined (each overload once);
    - each type defined: struct, class, union and enum definitions, and
      `using X = ...` / `typedef` aliases;
    - each variable or constant, one per declared name;
  counted inside a struct, class or union, where the access is public
  (a struct's default; a class's after `public:`):
    - each data member, static or not, one per declared name;
    - each nested type, and then its own public members by the same rule;
  not counted: member functions and constructors, enumerators, forward
  declarations (`struct X;`: the definition is counted where it is),
  `using namespace`, using-declarations, friends, static_asserts, function
  bodies and whatever is private or protected.

Comments, string and character literals and preprocessor lines are
removed first; the rest is read as a stream of statements at brace level.
The count is a property of the text only: the same tree gives the same
numbers on any machine.

Usage:
    python3 scripts/public_surface.py [--root DIR] [--rev REV] [--list] [--json]
--rev reads the tree of a git revision (git show) instead of the working
files; --list prints every counted declaration as `header: kind name`.
Exit 0; 2 when --rev names no revision.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HEADER_EXTENSIONS = (".h", ".hpp")
SKIPPED_TOP = {"build", ".git", "third_party", "external"}


# ---- reading the tree -------------------------------------------------------

def headers_in_worktree(root):
    """(library, path relative to root) of every public header, sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_TOP and not d.startswith("build"))
            continue
        dirnames.sort()
        for name in filenames:
            rel = os.path.join(rel_dir, name).replace(os.sep, "/")
            lib = library_of(rel)
            if lib is not None and name.endswith(HEADER_EXTENSIONS):
                found.append((lib, rel))
    return sorted(found)


def library_of(rel):
    """The library a path's public header belongs to: the folder before its
    first `include/` component; None when the path is no public header or
    lies in a front end's or the tests' tree."""
    parts = rel.split("/")
    if "include" not in parts[1:]:
        return None
    i = parts.index("include", 1)
    if parts[0] in ("tests", "bench", "fuzz", "examples", "cli", "viewer", "python"):
        return None
    return "/".join(parts[:i])


def headers_at_revision(root, rev):
    names = git(root, ["ls-tree", "-r", "--name-only", rev]).splitlines()
    found = []
    for rel in names:
        lib = library_of(rel)
        if lib is not None and rel.endswith(HEADER_EXTENSIONS) and rel.split("/", 1)[0] not in SKIPPED_TOP:
            found.append((lib, rel))
    return sorted(found)


def git(root, args):
    result = subprocess.run(["git", "-C", root] + args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write("public_surface.py: git %s: %s" % (" ".join(args), result.stderr))
        sys.exit(2)
    return result.stdout


# ---- the counting rule ------------------------------------------------------

_LITERAL_OR_COMMENT = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
    re.DOTALL)


def strip_source(text):
    """The text without comments, literals (kept as empty "" so a statement
    keeps its shape) and preprocessor lines (with their continuations)."""
    def keep_newlines(match):
        token = match.group(0)
        if token.startswith("//") or token.startswith("/*"):
            return " " + "\n" * token.count("\n")
        return '""' if token[0] in 'R"' else "''"
    text = _LITERAL_OR_COMMENT.sub(keep_newlines, text)
    lines, out, continued = text.split("\n"), [], False
    for line in lines:
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.rstrip().endswith("\\")
        out.append("" if directive else line)
    return "\n".join(out)


_ACCESS_LABEL = re.compile(r"^\s*(public|private|protected)\s*:(?!:)")
_TEMPLATE_PREFIX = re.compile(r"^\s*template\s*<")
_TYPE_HEAD = re.compile(r"^(?:struct|class|union)\b(?:\s+alignas\s*\([^)]*\))?\s+(\w+)")
_ENUM_HEAD = re.compile(r"^enum\b(?:\s+(?:class|struct))?\s+(\w+)")
_NAMESPACE_HEAD = re.compile(r'^(?:inline\s+)?namespace\b|^extern\s*""')
_WORD = re.compile(r"[A-Za-z_]\w*")


def drop_template_prefix(statement):
    """The statement after any leading `template <...>` clauses."""
    s = statement.strip()
    while _TEMPLATE_PREFIX.match(s):
        depth, i = 0, s.index("<")
        while i < len(s):
            if s[i] == "<":
                depth += 1
            elif s[i] == ">":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        s = s[i + 1:].strip()
    s = re.sub(r"^(?:\[\[[^\]]*\]\]\s*)+", "", s)
    return s


def top_level_split(statement):
    """Splits a declaration at commas outside (), [], {} and <>; the part of
    each piece before a top-level `=`."""
    pieces, depth, current = [], 0, []
    for ch in statement:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            pieces.append("".join(current))
            current = []
        else:
            current.append(ch)
    pieces.append("".join(current))
    return pieces


def first_top_level_paren(statement):
    """Index of the first `(` outside <> and before a top-level `=`, or -1."""
    angle = 0
    for i, ch in enumerate(statement):
        if ch == "<":
            angle += 1
        elif ch == ">":
            angle = max(0, angle - 1)
        elif ch == "=" and angle == 0:
            return -1
        elif ch == "(" and angle == 0:
            return i
    return -1


def declared_name(piece):
    """The last identifier of a declarator before its `=`, `{` or `[`."""
    head = re.split(r"[={\[]", piece, maxsplit=1)[0]
    words = _WORD.findall(head)
    return words[-1] if words else "?"


class Counter:
    """Walks one stripped header and collects (kind, qualified name)."""

    def __init__(self, text):
        self.text = text
        self.pos = 0
        self.found = []

    def run(self):
        self.scope(counted=True, in_class=False, access_public=True, prefix="")
        return self.found

    def skip_braces(self):
        """From just after a `{`, to just after its `}`."""
        depth = 1
        while self.pos < len(self.text) and depth:
            ch = self.text[self.pos]
            depth += ch == "{"
            depth -= ch == "}"
            self.pos += 1

    def scope(self, counted, in_class, access_public, prefix):
        """Reads statements up to the closing `}` of this scope (or the end)."""
        buf = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            if in_class:
                label = _ACCESS_LABEL.match("".join(buf))
                if label:
                    access_public = label.group(1) == "public"
                    buf = list("".join(buf)[label.end():])
            if ch == "}":
                return
            if ch == "{" and buf.count("(") > buf.count(")"):
                self.skip_braces()  # a braced default argument, inside the parameter list
                buf.extend("{}")
            elif ch == ";":
                self.statement("".join(buf), counted and access_public, in_class, prefix)
                buf = []
            elif ch == "{":
                buf = self.block("".join(buf), counted and access_public, in_class, prefix)
            else:
                buf.append(ch)

    def block(self, head, counted, in_class, prefix):
        """A `{` after `head`: a namespace, a type, or braces that belong to a
        statement (a function body, an initializer). Returns what of the
        statement is still to be read."""
        s = drop_template_prefix(" ".join(head.split()))
        if not in_class and _NAMESPACE_HEAD.match(s):
            named = re.match(r"^(?:inline\s+)?namespace\s+([\w:]+)", s)
            name = named.group(1) if named else ""
            self.scope(counted, False, True, prefix + name + "::" if name else prefix)
            return []
        type_head = _TYPE_HEAD.match(s)
        if type_head and "(" not in s.split(":", 1)[0].replace("alignas", "", 1).split(")", 1)[-1]:
            name = type_head.group(1)
            if counted:
                self.found.append(("type", prefix + name))
            default_public = not s.startswith("class")
            self.scope(counted, True, default_public, prefix + name + "::")
            return []  # `};` follows: an empty statement
        enum_head = _ENUM_HEAD.match(s)
        if enum_head:
            if counted:
                self.found.append(("type", prefix + enum_head.group(1)))
            self.skip_braces()
            return []
        # Braces inside a statement. After a parameter list (and its
        # qualifiers) they are a function's body, which ends the statement.
        self.skip_braces()
        if first_top_level_paren(s) >= 0:
            self.statement(head, counted, in_class, prefix, has_body=True)
            return []
        return list(head + "{}")

    def statement(self, raw, counted, in_class, prefix, has_body=False):
        s = drop_template_prefix(" ".join(raw.split()))
        if not s or not counted:
            return
        first = s.split(" ", 1)[0]
        if first in ("friend", "static_assert", "using") and not re.match(r"^using\s+\w+\s*=", s):
            return
        if first == "using" or first == "typedef":
            name = s.split("=", 1)[0].split()[-1] if first == "using" else declared_name(s.replace("typedef", "", 1))
            self.found.append(("type", prefix + name))
            return
        if re.match(r"^(?:struct|class|union|enum(?:\s+(?:class|struct))?)\s+\w+\s*(?::\s*[\w:]+\s*)?$", s):
            return  # a forward declaration
        if re.search(r"\boperator\b", s):
            if not in_class:
                self.found.append(("function", prefix + "operator" + s.split("operator", 1)[1].split("(", 1)[0].strip()))
            return
        paren = first_top_level_paren(s)
        if has_body or paren >= 0:
            if not in_class:
                name = _WORD.findall(s[:paren]) if paren >= 0 else ["?"]
                self.found.append(("function", prefix + (name[-1] if name else "?")))
            return
        kind = "member" if in_class else "variable"
        for piece in top_level_split(s):
            if piece.strip():
                self.found.append((kind, prefix + declared_name(piece)))


def count_header(text):
    return Counter(strip_source(text)).run()


# ---- report -----------------------------------------------------------------

def surface(root, rev=None):
    """{library: {"headers": n, "declarations": n, "items": [...]}}."""
    headers = headers_at_revision(root, rev) if rev else headers_in_worktree(root)
    result = {}
    for lib, rel in headers:
        if rev:
            text = git(root, ["show", "%s:%s" % (rev, rel)])
        else:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
        entry = result.setdefault(lib, {"headers": 0, "declarations": 0, "items": []})
        entry["headers"] += 1
        for kind, name in count_header(text):
            entry["declarations"] += 1
            entry["items"].append("%s: %s %s" % (rel, kind, name))
    return dict(sorted(result.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--rev", help="count a git revision's tree instead of the working files")
    parser.add_argument("--list", action="store_true", help="print every counted declaration")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args()
    counts = surface(args.root, args.rev)
    if args.json:
        out = {lib: {"headers": e["headers"], "declarations": e["declarations"]} for lib, e in counts.items()}
        print(json.dumps(out, indent=1, sort_keys=True))
        return 0
    if args.list:
        for entry in counts.values():
            for item in entry["items"]:
                print(item)
        return 0
    print("%-14s %8s %13s" % ("library", "headers", "declarations"))
    for lib, e in counts.items():
        print("%-14s %8d %13d" % (lib, e["headers"], e["declarations"]))
    print("%-14s %8d %13d" % ("total", sum(e["headers"] for e in counts.values()),
                               sum(e["declarations"] for e in counts.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
