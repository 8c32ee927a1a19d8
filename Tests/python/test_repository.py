"""The repository is the whole project: nothing that builds, tests or benchmarks it reads a path outside it, the
reference data it carries names its source and licence, and no source spells a platform-specific call in a way that
only compiles on glibc (the manifest also declares macOS)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "Fixtures"
CHECKED = ["Sources", "Tests", "scripts", "bench", "python", ".ci", "Package.swift"]
# The one documented exception: the basemap generator reads its source outside the repository and is not part of
# the build or the tests (its output is committed under Sources/MeridianViewer/Site/data/).
ALLOWED = {ROOT / "scripts" / "make-basemap.py", pathlib.Path(__file__).resolve()}  # this file names the patterns
TEXT_SUFFIXES = {".swift", ".py", ".sh", ".c", ".h", ".js", ".html", ".css", ".md", ".txt", ".json", ".toml",
                 ".modulemap", ".yaml", ".cfg", ""}

# Ways a file can reach outside the repository: the shared folder by name, absolute paths of this workplace, and
# climbing above the repository root from a path computed relative to the source file.
SHARED = "shared"  # spelled apart so that a grep for the folder's path finds only the basemap generator
OUTSIDE = [
    (re.compile(r"\.\./" + SHARED + r"|" + SHARED + r"/(reference|seeds|hooks)\b"), "the shared folder beside the repository"),
    (re.compile(r"(?<![\w.])/work/"), "an absolute path of this machine"),
    (re.compile(r"\bROOT\.parent\b|parents\[[3-9]\]"), "a path above the repository root (Python)"),
    (re.compile(r"(packageRoot|repositoryRoot|root|package)\.deletingLastPathComponent\(\)"),
     "a path above the repository root (Swift)"),
    (re.compile(r"\$\(dirname \"\$0\"\)/\.\./\.\."), "a path above the repository root (shell)"),
]


def checked_files():
    for name in CHECKED:
        base = ROOT / name
        paths = [base] if base.is_file() else base.rglob("*")
        for path in paths:
            if not path.is_file() or FIXTURES in path.parents or path in ALLOWED:
                continue
            if ".venv" in path.parts or ".build" in path.parts or "__pycache__" in path.parts:
                continue
            if path.suffix not in TEXT_SUFFIXES:
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue


def test_nothing_reads_outside_the_repository():
    files = list(checked_files())
    assert len(files) > 150, f"only {len(files)} files checked: the walk is broken"
    found = []
    for path, text in files:
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, what in OUTSIDE:
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()[:120]}")
    assert not found, "paths outside the repository:\n" + "\n".join(found)


def test_the_detector_sees_each_kind_of_escape():
    samples = [f'let x = root.appendingPathComponent("../{SHARED}/reference/kml")',
               f'open("/work/{SHARED}/x")', "OUT = ROOT.parent / 'x'",
               'let r = packageRoot.deletingLastPathComponent()']
    for sample in samples:
        assert any(p.search(sample) for p, _ in OUTSIDE), sample
    assert not any(p.search('FIXTURES = ROOT / "Tests" / "Fixtures"') for p, _ in OUTSIDE)


def test_the_basemap_generator_says_where_it_reads():
    text = (ROOT / "scripts" / "make-basemap.py").read_text(encoding="utf-8")
    assert "outside the repository" in text and "not part of the tests" in text


def test_every_fixture_source_has_provenance_and_a_licence():
    sources = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    assert {p.name for p in sources} >= {"basemap", "geodesic", "geos_xml", "kml", "proj_gie", "stateplane"}
    assert (FIXTURES / "README.md").is_file()
    for source in sources:
        assert (source / "README.md").is_file(), f"{source.name} has no README (provenance)"
        licences = [p for p in source.rglob("*") if re.match(r"(LICEN[CS]E|COPYING)", p.name, re.I)]
        readme = (source / "README.md").read_text(encoding="utf-8")
        assert licences or re.search(r"public domain|licen[cs]e", readme, re.I), f"{source.name}: no licence"


def test_no_glibc_qualified_calls_outside_a_glibc_block():
    """`Glibc.read(…)` does not compile on macOS or Musl: platform calls are spelled unqualified, and a module is
    named only inside `#if canImport(Glibc)`."""
    offenders = []
    swift_files = [p for name in ("Sources", "Tests", "bench") for p in (ROOT / name).rglob("*.swift")]
    assert len(swift_files) > 100
    for path in swift_files:
        depth_glibc = []  # stack of "is this #if a canImport(Glibc) block"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("#if"):
                depth_glibc.append("canImport(Glibc)" in stripped)
            elif stripped.startswith("#elseif") or stripped.startswith("#else"):
                if depth_glibc:
                    depth_glibc[-1] = "canImport(Glibc)" in stripped
            elif stripped.startswith("#endif"):
                if depth_glibc:
                    depth_glibc.pop()
            elif re.search(r"\bGlibc\.", line) and not stripped.startswith("//") and not any(depth_glibc):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {stripped}")
            elif stripped == "import Glibc" and not any(depth_glibc):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: unconditional import Glibc")
    assert not offenders, "glibc-only spellings:\n" + "\n".join(offenders)


def test_each_system_library_names_a_homebrew_provider():
    manifest = (ROOT / "Package.swift").read_text(encoding="utf-8")
    libraries = re.findall(r"\.systemLibrary\((.*?)\),\n", manifest, re.S)
    assert len(libraries) == 4  # CGEOS, CPROJ, CZip, CMicroHTTPD
    for declaration in libraries:
        assert ".apt([" in declaration and ".brew([" in declaration, declaration
    # GDAL is a C target that loads libgdal at run time (test_gdal_loading.py), not a systemLibrary: its packages are
    # named beside it in the manifest and in the error of CGDAL.h when its headers are missing.
    header = (ROOT / "Sources" / "CGDAL" / "include" / "CGDAL.h").read_text(encoding="utf-8")
    assert "apt: libgdal-dev, brew: gdal" in manifest
    assert "apt-get install libgdal-dev" in header and "brew install gdal" in header


# --- Short functions in the command line: no function, initialiser or closure-free body in Sources/MeridianCLI, or
# in the feature I/O it reads and writes through (Sources/MeridianIO), longer than MAX_FUNCTION_LINES, counted from
# its `func`/`init` line to its closing brace.
MAX_FUNCTION_LINES = 60


def swift_code_only(source):
    """The source with comments and string literals (plain, multi-line, raw; interpolations included) blanked,
    newlines kept, so that braces in them do not count and line numbers stay."""
    out, i, n = [], 0, len(source)
    blank = lambda text: re.sub(r"[^\n]", " ", text)  # noqa: E731
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        else:
            opening = re.match(r'(#*)("""|")', source[i:])
            if not opening or (not opening.group(1) and source[i] != '"'):
                out.append(source[i])
                i += 1
                continue
            hashes, quote = opening.group(1), opening.group(2)
            j = i + len(opening.group(0))
            while j < n:
                if source.startswith("\\" + hashes + "(", j):  # an interpolation: to its closing parenthesis
                    j, depth = j + len(hashes) + 2, 1
                    while j < n and depth:
                        depth += {"(": 1, ")": -1}.get(source[j], 0)
                        j += 1
                    continue
                if not hashes and source[j] == "\\":
                    j += 2
                    continue
                if source.startswith(quote + hashes, j):
                    j += len(quote + hashes)
                    break
                j += 1
        out.append(blank(source[i:j]))
        i = j
    return "".join(out)


def function_lengths(source):
    """(name, first line, lines) of every function, initialiser and deinitialiser with a body."""
    code = swift_code_only(source)
    found = []
    for m in re.finditer(r"\b(func\s+[\w<>]+|init\??|deinit)\b", code):
        brace = code.find("{", m.end())
        signature = code[m.end():brace]
        # A requirement without a body (a protocol's) runs into the next declaration before any brace.
        if brace < 0 or re.search(r"\b(func|var|let|case|struct|enum|class|protocol|extension)\b|\n\s*\n", signature):
            continue
        depth, k = 0, brace
        while k < len(code):
            depth += {"{": 1, "}": -1}.get(code[k], 0)
            if depth == 0:
                break
            k += 1
        first = code.count("\n", 0, m.start()) + 1
        found.append((m.group(1), first, code.count("\n", m.start(), k) + 1))
    return found


def test_no_command_line_function_is_longer_than_60_lines():
    files = sorted(path for module in ("MeridianCLI", "MeridianIO")
                   for path in (ROOT / "Sources" / module).rglob("*.swift"))
    assert len(files) > 20
    lengths = [(path, *f) for path in files for f in function_lengths(path.read_text(encoding="utf-8"))]
    assert len(lengths) > 150, f"only {len(lengths)} functions found: the scan is broken"
    long = [f"{p.relative_to(ROOT)}:{line}: {name} is {count} lines" for p, name, line, count in lengths
            if count > MAX_FUNCTION_LINES]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps):\n" + "\n".join(long)


def test_the_function_scan_counts_bodies_not_strings():
    body = "\n".join(f"    let x{i} = \"}}\" // {{" for i in range(59))
    source = (f"protocol P {{\n    func required() throws\n    var v: Int {{ get }}\n}}\n"
              f"struct S {{\n    func long(_ a: Int) -> String {{\n{body}\n        return \"\"\"\n    {{\n    \"\"\"\n"
              f"    }}\n    init() {{ let s = \"\\(f({{ 1 }}))\"; _ = #\"{{\"# }}\n}}\n")
    lengths = {name: count for name, _, count in function_lengths(source)}
    assert lengths == {"func long": 64, "init": 1}, lengths


# A key-path literal passed where a function is expected (`points.map(\.x)`): Swift 6.0 compiles it into a call of
# the runtime's swift_getAtKeyPath per element, 700-1,100 instructions each (182 M of the 1.52 G instructions of
# P1e's 100,000-point union, callgrind); a closure (`points.map { $0.x }`) is inlined.
KEY_PATH_AS_FUNCTION = re.compile(r"\b(map|compactMap|flatMap|filter|allSatisfy|contains|first|min|max|sorted|reduce)\((\\\.\w[\w.]*)\)")


def test_no_key_path_literal_is_passed_as_a_function_in_sources():
    offenders = []
    swift_files = list((ROOT / "Sources").rglob("*.swift"))
    assert len(swift_files) > 100
    for path in swift_files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip().startswith("//") and KEY_PATH_AS_FUNCTION.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "key-path literals passed as functions (write a closure):\n" + "\n".join(offenders)


def test_the_key_path_scan_sees_the_spellings_it_forbids():
    for line in ["let xs = points.map(\\.x)", "gs.flatMap(\\.coordinates)", "rings.allSatisfy(\\.isFinite)",
                 "results.compactMap(\\.geometry)", "runs.map(\\.1.parts)"]:
        assert KEY_PATH_AS_FUNCTION.search(line), line
    for line in ["let xs = points.map { $0.x }", "let path = \\Point.x", "array.sorted(by: <)"]:
        assert not KEY_PATH_AS_FUNCTION.search(line), line


# The table formats are declared once (FeatureDataFormat's declarations), and every help text and message that
# lists them builds its list from the declarations, so a new format is named everywhere without another edit. A list
# of two or more format names or extensions written by hand in a string of Sources/ would leave a new format out.
FORMAT_LIST = re.compile(r"(GeoPackage|shapefile|Shapefile|FlatGeobuf|\.gpkg|\.shp|\.fgb)\b[^\"\n]{0,30}?, "
                         r"(a )?(zip of shapefiles|shapefile|Shapefile|FlatGeobuf|\.shp|\.fgb|PostGIS)")


def test_no_source_lists_the_table_formats_by_hand():
    offenders = []
    swift_files = list((ROOT / "Sources").rglob("*.swift"))
    assert len(swift_files) > 100
    for path in swift_files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip().startswith("//") and '"' in line and FORMAT_LIST.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "format lists written by hand (build them from the declarations):\n" + "\n".join(offenders)


def test_the_format_list_scan_sees_a_list_written_by_hand():
    for line in ['help: "or a GeoPackage, shapefile, FlatGeobuf or PostGIS table"',
                 'throw .usage("--layer chooses a layer of a GeoPackage, a zip of shapefiles or a PostGIS database")',
                 '"(use .geojson, .wkt, .gpkg, .shp, .fgb or PG:…)"']:
        assert FORMAT_LIST.search(line), line
    for line in ['"a GeoPackage"', 'inputName: "a shapefile\'s .shp (or a zip of shapefiles)"', '"the .shp file"']:
        assert not FORMAT_LIST.search(line), line


# No issue tracker ships with the repository, so a comment or document that cites "issue 25" points nowhere: it
# says what and why instead. Checked over the project's own text (the fixtures' upstream files cite their own
# projects' trackers, and are left as they were copied; the fixtures' READMEs are Meridian's and are checked).
TRACKER_REFERENCE = re.compile(r"\b[Ii]ssues? ?#?\d+")


def project_text_files():
    """The files `checked_files` walks, and the fuzz targets, examples, documentation, top-level Markdown files and
    the fixtures' READMEs."""
    yield from checked_files()
    extra = [p for name in ("fuzz", "examples", "docs") for p in (ROOT / name).rglob("*")]
    extra += list(ROOT.glob("*.md")) + list(FIXTURES.rglob("README.md"))
    for path in extra:
        if path.is_file() and path.suffix in TEXT_SUFFIXES and ".build" not in path.parts and path not in ALLOWED:
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # a fuzz corpus's input
                continue


def tracker_references(files):
    return [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}"
            for path, text in files for number, line in enumerate(text.splitlines(), 1)
            if TRACKER_REFERENCE.search(line)]


def test_no_text_cites_an_issue_number():
    files = list(project_text_files())
    assert len(files) > 300, f"only {len(files)} files checked: the walk is broken"
    found = tracker_references(files)
    assert not found, "issue numbers cited (no tracker ships with the repository; say what and why):\n" + "\n".join(found)


def test_the_issue_number_scan_sees_the_spellings_it_forbids():
    word = "issue"  # spelled apart, so that this file does not cite one
    for line in [f"// the reader ({word} 25)", f"/// {word.title()} 16: a union", f"# {word}s 24 and 26",
                 f"see {word} #12", f"({word}29)"]:
        assert TRACKER_REFERENCE.search(line), line
    for line in ["tissue 5", f"an {word} with 5 inputs", f"{word}: 5", "Issued 3 times"]:
        assert not TRACKER_REFERENCE.search(line), line
