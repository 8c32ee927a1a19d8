"""Every public (or open) symbol in Sources/ carries a `///` doc comment directly above it.

What counts as a public symbol: a declaration (type, func, init, var/let, enum case, subscript, typealias,
associatedtype, operator) written with `public` or `open`, plus the members that are public without saying so:
the cases of a public enum, the requirements of a public protocol and the members of a `public extension`
that carry no access modifier of their own.

"Directly above" means the line before the declaration is the last line of a `///` comment (or of a `/** */`
block); attribute lines such as `@inlinable` or `@discardableResult` may stand between. A blank line or a plain
`//` comment in between does not count.

Exempt (their meaning is the protocol's, and DocC inherits the protocol's documentation): implementations of
the standard-library and Foundation protocol requirements named in PROTOCOL_WITNESSES below, for example
`description` (CustomStringConvertible), `==` (Equatable), `hash(into:)` (Hashable), `encode(to:)` / `init(from:)`
(Codable), `errorDescription` (LocalizedError). `public import`, `@_exported import` and extensions themselves
are not symbols and need no comment.

Where a public func, init or subscript takes numeric parameters (Double, Float, Int and their sized kin), each
of them is named in the comment (`- Parameter name:` or `- name:` in a `- Parameters:` list), so the reader
learns its unit and range; that is what `test_numeric_parameters_are_documented` checks.
"""
from __future__ import annotations

import pathlib
import re
import textwrap
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = ROOT / "Sources"

# Protocol requirements whose implementations may go without their own comment (see the module docstring).
PROTOCOL_WITNESSES = {
    # CustomStringConvertible, CustomDebugStringConvertible, LocalizedError
    ("var", "description"), ("var", "debugDescription"), ("var", "errorDescription"),
    ("var", "failureReason"), ("var", "recoverySuggestion"),
    # Equatable, Comparable, Hashable
    ("func", "=="), ("func", "<"), ("func", "hash(into:)"),
    # Encodable, Decodable
    ("func", "encode(to:)"), ("init", "init(from:)"),
    # Sequence / IteratorProtocol
    ("func", "makeIterator()"), ("func", "next()"),
    # ExpressibleBy…Literal
    ("init", "init(arrayLiteral:)"), ("init", "init(stringLiteral:)"), ("init", "init(integerLiteral:)"),
    ("init", "init(floatLiteral:)"), ("init", "init(dictionaryLiteral:)"), ("init", "init(nilLiteral:)"),
    ("init", "init(booleanLiteral:)"),
}

MODIFIERS = {
    "public", "open", "private", "fileprivate", "internal", "package", "static", "class", "final", "override",
    "mutating", "nonmutating", "nonisolated", "convenience", "required", "dynamic", "lazy", "weak", "unowned",
    "indirect", "prefix", "postfix", "infix", "optional", "distributed", "isolated", "consuming", "borrowing",
}
ACCESS = {"public", "open", "private", "fileprivate", "internal", "package"}
TYPE_KEYWORDS = {"struct", "class", "enum", "protocol", "actor", "extension"}
DECL_KEYWORDS = TYPE_KEYWORDS | {
    "func", "init", "deinit", "var", "let", "case", "subscript", "typealias", "associatedtype", "operator",
    "macro", "import",
}
NUMERIC_TYPES = re.compile(
    r"^(Double|Float|CGFloat|Float32|Float64|Int|Int8|Int16|Int32|Int64|UInt|UInt8|UInt16|UInt32|UInt64)\??$")


def mask(source: str) -> str:
    """The source with comments and string-literal contents replaced by spaces (newlines kept), so that braces,
    keywords and `///` only count where they are code. Doc comments are kept as they are (they are read by line
    from the original text anyway)."""
    out = list(source)
    i, n = 0, len(source)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    def skip_string(i: int) -> int:
        """i is at the opening quote(s), possibly after `#`s; returns the index after the closing delimiter."""
        hashes = 0
        while source[i] == "#":
            hashes += 1
            i += 1
        multi = source.startswith('"""', i)
        quote = '"""' if multi else '"'
        i += len(quote)
        closing = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        while i < n:
            if source.startswith(escape, i):
                j = i + len(escape)
                if j < n and source[j] == "(":
                    i = skip_code(j + 1, ")")
                else:
                    i = j + 1
                continue
            if source.startswith(closing, i):
                return i + len(closing)
            i += 1
        return n

    def skip_code(i: int, closer: str) -> int:
        """Code inside a string interpolation, up to its matching `)`; returns the index after it."""
        depth = 0
        while i < n:
            c = source[i]
            if c == '"' or (c == "#" and re.match(r'#+"', source[i:i + 8])):
                i = skip_string(i)
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    return i + 1
                depth -= 1
            i += 1
        return n

    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif source.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', source[i:i + 8])):
            j = skip_string(i)
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


@dataclass
class Scope:
    kind: str  # struct/class/enum/protocol/actor/extension, or "code" for any other brace
    public: bool


@dataclass
class Declaration:
    path: pathlib.Path
    line: int  # 1-based line of the declaration keyword
    keyword: str
    name: str
    text: str  # the declaration's masked text up to its body or end
    doc: list[str] = field(default_factory=list)  # the doc comment's lines, without `///`


ATTRIBUTE = re.compile(r"@[A-Za-z_][\w.]*(\((?:[^()]|\([^()]*\))*\))?\s*")


def split_head(line: str) -> tuple[list[str], str, str] | None:
    """(modifiers, keyword, rest) when a masked line starts a declaration, else None."""
    s = line.strip()
    while True:
        m = ATTRIBUTE.match(s)
        if not m:
            break
        s = s[m.end():]
    mods: list[str] = []
    while True:
        m = re.match(r"([a-z]+)(\s*\(\s*set\s*\))?\s+", s)
        if not m:
            break
        word = m.group(1)
        following = re.match(r"[a-z]+", s[m.end():])
        if word == "class" and not (following and following.group(0) in DECL_KEYWORDS | MODIFIERS):
            break  # `class Foo`: the type keyword, not the `class func` modifier
        if word in MODIFIERS:
            mods.append(word + ("(set)" if m.group(2) else ""))
            s = s[m.end():]
            continue
        break
    m = re.match(r"([a-z]+)\b", s)
    if not m or m.group(1) not in DECL_KEYWORDS:
        return None
    keyword = m.group(1)
    # `open` used as a name (`func open(`) never reaches here: it would follow `func`.
    return mods, keyword, s[m.end():]


def declaration_name(keyword: str, rest: str) -> str:
    rest = rest.strip()
    if keyword in ("init", "subscript"):
        m = re.match(r"[?!]?\s*(<[^>]*>)?\s*\(", rest)
        labels = parameter_labels(rest[m.end() - 1:]) if m else []
        if keyword == "subscript":  # a subscript's lone parameter name is internal only
            labels = [label for label, _, _ in parameters_with_explicit_labels(rest[m.end() - 1:])] if m else []
        return f"{keyword}({''.join(label + ':' for label in labels)})"
    if keyword == "func":
        m = re.match(r"(`?[\w]+`?|[^\s(<]+)\s*(<[^>]*>)?\s*\(", rest)
        if not m:
            return rest.split()[0] if rest else ""
        name = m.group(1).strip("`")
        if not re.match(r"\w", name):
            return name  # an operator
        return f"{name}({''.join(label + ':' for label in parameter_labels(rest[m.end() - 1:]))})"
    m = re.match(r"`?(\w+)`?", rest)
    return m.group(1) if m else rest


def parameter_clause(text: str) -> str:
    """The text between the first `(` of text and its matching `)`."""
    start = text.find("(")
    if start < 0:
        return ""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:k]
    return text[start + 1:]


def parameters(text: str) -> list[tuple[str, str, str]]:
    """(external label, internal name, type) of each parameter in the first parameter clause of text."""
    clause = parameter_clause(text)
    parts, depth, angles, cur = [], 0, 0, ""
    for k, c in enumerate(clause):
        before = clause[k - 1] if k else ""
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and (before.isalnum() or before == "_"):  # a generic argument list, not `8 << 20`
            angles += 1
        elif c == ">" and angles and before != "-":
            angles -= 1
        if c == "," and depth == 0 and angles == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur)
    result = []
    for part in parts:
        if ":" not in part:
            continue
        names, _, type_ = part.partition(":")
        words = names.split()
        if not words:
            continue
        external = words[0]
        internal = words[1] if len(words) > 1 else words[0]
        type_ = type_.split("=")[0].strip()
        type_ = re.sub(r"^(inout|borrowing|consuming|sending)\s+", "", type_)
        type_ = re.sub(r"^(@\w+\s+)+", "", type_)
        result.append((external, internal, type_))
    return result


def parameters_with_explicit_labels(text: str) -> list[tuple[str, str, str]]:
    """Subscript parameters: without a separate argument label, the label is `_`."""
    clause = parameter_clause(text)
    result = []
    for (external, internal, type_), part in zip(parameters(text), clause.split(",")):
        result.append((external if len(part.split(":")[0].split()) > 1 else "_", internal, type_))
    return result


def parameter_labels(text: str) -> list[str]:
    return [external for external, _, _ in parameters(text)]


def declarations(path: pathlib.Path, source: str | None = None) -> list[Declaration]:
    """Every declaration in a file that is public, with its doc comment (empty when it has none)."""
    original = path.read_text(encoding="utf-8") if source is None else source
    lines = original.split("\n")
    masked = mask(original).split("\n")
    scopes: list[Scope] = []
    pending: Scope | None = None
    found: list[Declaration] = []
    for index, code in enumerate(masked):
        head = split_head(code)
        enclosing = scopes[-1] if scopes else Scope("file", False)
        if head and enclosing.kind != "code":
            mods, keyword, rest = head
            access = [m for m in mods if m.split("(")[0] in ACCESS and not m.endswith("(set)")]
            if access:
                is_public = access[0] in ("public", "open")
            elif keyword == "case":
                is_public = enclosing.kind == "enum" and enclosing.public
            else:
                is_public = enclosing.kind in ("protocol", "extension") and enclosing.public
            if keyword in TYPE_KEYWORDS:
                pending = Scope(keyword, is_public)
            if is_public and keyword not in ("extension", "import"):
                # The declaration's text runs to its `{` or to the line that closes its parameter list.
                text, k = code, index
                while k + 1 < len(masked) and text.count("(") > text.count(")"):
                    k += 1
                    text += "\n" + masked[k]
                full = split_head(text)
                found.append(Declaration(path, index + 1, keyword, declaration_name(keyword, full[2] if full else rest),
                                         text.split("{")[0], doc_comment(lines, index)))
        for c in code:
            if c == "{":
                scopes.append(pending or Scope("code", False))
                pending = None
            elif c == "}":
                if scopes:
                    scopes.pop()
    return found


def doc_comment(lines: list[str], index: int) -> list[str]:
    """The `///` (or `/** */`) comment directly above lines[index], skipping attribute-only lines."""
    k = index - 1
    while k >= 0 and re.fullmatch(r"\s*(@[A-Za-z_][\w.]*(\((?:[^()]|\([^()]*\))*\))?\s*)+", lines[k]):
        k -= 1
    doc: list[str] = []
    if k >= 0 and lines[k].strip().endswith("*/"):
        end = k
        while k >= 0 and "/*" not in lines[k]:
            k -= 1
        if k >= 0 and lines[k].strip().startswith("/**"):
            return [line.strip().lstrip("/*").rstrip("*/") for line in lines[k:end + 1]]
        return []
    while k >= 0 and lines[k].strip().startswith("///"):
        doc.insert(0, lines[k].strip()[3:])
        k -= 1
    return doc


def public_declarations() -> list[Declaration]:
    found = []
    for path in sorted(SOURCES.rglob("*.swift")):
        found.extend(declarations(path))
    return found


def is_exempt(decl: Declaration) -> bool:
    key = "var" if decl.keyword in ("var", "let") else decl.keyword
    return (key, decl.name) in PROTOCOL_WITNESSES


def undocumented_numeric_parameters(decl: Declaration) -> list[str]:
    if decl.keyword not in ("func", "init", "subscript") or not decl.doc:
        return []
    doc = "\n".join(decl.doc)
    missing = []
    for external, internal, type_ in parameters(decl.text):
        if not NUMERIC_TYPES.match(type_):
            continue
        names = {internal} | ({external} if external != "_" else set())
        if not any(re.search(rf"-\s+(Parameter\s+)?{re.escape(name)}\s*:", doc) for name in names):
            missing.append(internal)
    return missing


def where(decl: Declaration) -> str:
    return f"{decl.path.relative_to(ROOT) if decl.path.is_relative_to(ROOT) else decl.path}:{decl.line} " \
           f"{decl.keyword} {decl.name}"


# --- the checks on Sources/ ---------------------------------------------------------------------------------

def test_sources_are_scanned():
    found = public_declarations()
    # A scanner that silently finds nothing would pass everything: Meridian has hundreds of public symbols.
    assert len(found) > 500, f"only {len(found)} public declarations found"


def test_every_public_symbol_has_a_doc_comment():
    missing = [where(d) for d in public_declarations() if not d.doc and not is_exempt(d)]
    assert not missing, f"{len(missing)} public symbols without a /// doc comment:\n" + "\n".join(missing)


def test_numeric_parameters_are_documented():
    missing = [f"{where(d)}: {', '.join(p)}" for d in public_declarations()
               if (p := undocumented_numeric_parameters(d))]
    assert not missing, "numeric parameters whose unit/range the doc comment does not give:\n" + "\n".join(missing)


# --- the scanner itself, on snippets: it must be able to fail ----------------------------------------------

def scan(tmp_path: pathlib.Path, code: str) -> list[Declaration]:
    path = tmp_path / "Snippet.swift"
    path.write_text(textwrap.dedent(code))
    return declarations(path)


def undocumented(tmp_path: pathlib.Path, code: str) -> list[str]:
    return [d.name if d.keyword in ("init", "subscript") else f"{d.keyword} {d.name}"
            for d in scan(tmp_path, code) if not d.doc and not is_exempt(d)]


def test_scanner_flags_undocumented_symbols(tmp_path):
    code = """
        /// Documented.
        public struct Box: Equatable, CustomStringConvertible {
            public var width: Double
            /// Documented.
            @inlinable public func area() -> Double { width * width }
            @discardableResult
            public mutating func grow(by amount: Double) -> Double { width += amount; return width }
            public static let unit = Box(width: 1)
            public private(set) var count = 0
            public init(width: Double) { self.width = width }
            public subscript(index: Int) -> Double { width }
            public typealias Width = Double
            public var description: String { "box" }
            public static func == (a: Box, b: Box) -> Bool { true }
            var internalThing = 0
            private func hidden() {}
            func body() {
                let local = "public func notADeclaration() {"
                switch local { case "x": break; default: break }
            }
        }

        // A plain comment is not a doc comment.
        public enum Shape {
            /// Documented.
            case square
            case circle(radius: Double)
            indirect case group([Shape])
        }

        /// Documented.
        public protocol Measurable {
            var size: Double { get }
            /// Documented.
            func measure() -> Double
        }

        public extension Box {
            func doubled() -> Box { Box(width: width * 2) }
            internal func notPublic() {}
        }

        enum InternalShape { case a }

        open class Base {
            open func override() {}
            func open(_ name: String) {}
        }

        /// Documented.

        public func separatedByABlankLine() {}
        """
    assert undocumented(tmp_path, code) == [
        "var width", "func grow(by:)", "let unit", "var count", "init(width:)", "subscript(_:)",
        "typealias Width", "enum Shape", "case circle", "case group", "var size", "func doubled()", "class Base",
        "func override()", "func separatedByABlankLine()",
    ]


def test_scanner_ignores_strings_and_comments(tmp_path):
    code = '''
        /// Documented.
        public enum Text {
            /// Documented.
            public static let page = """
                public func insideAMultilineString() {
                }
                """
            /// Documented.
            public static let raw = #"public var insideARawString = "{""#
            /// Documented with an interpolation holding a string: \\(x).
            public static let interpolated = "\\("{" + "}")"
            /* public func insideABlockComment() { */
            public static let afterTheComment = 1
        }
        '''
    assert undocumented(tmp_path, code) == ["let afterTheComment"]


def test_scanner_accepts_block_doc_comments_and_attributes_between(tmp_path):
    code = """
        /**
         Documented in a block.
         */
        public struct A {}
        /// Documented.
        @available(*, deprecated, message: "use B")
        @inlinable
        public func b() {}
        """
    assert undocumented(tmp_path, code) == []


def test_scanner_flags_numeric_parameters_without_unit(tmp_path):
    code = """
        /// Moves a point.
        /// - Parameters:
        ///   - dx: East offset in meters, any finite value.
        ///   - name: A label.
        public func move(dx: Double, dy: Double, name: String) {}
        /// Scales.
        /// - Parameter factor: Ratio, > 0.
        public func scale(_ factor: Double, steps: Int = 8) {}
        /// Undocumented parameters are the first test's business, not this one's.
        public init(radius: Double) {}
        /// Parameters over several lines.
        /// - Parameters:
        ///   - a: Meters.
        public func spread(
            a: Double,
            b: Int = 8 << 20, c: Array<Int>, d: (Int) -> Void,
            e: Double = max(1, 2)
        ) {}
        """
    assert {d.name: undocumented_numeric_parameters(d) for d in scan(tmp_path, code)} == {
        "move(dx:dy:name:)": ["dy"], "scale(_:steps:)": ["steps"], "init(radius:)": ["radius"],
        "spread(a:b:c:d:e:)": ["b", "e"],
    }
