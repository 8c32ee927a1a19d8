"""The repository is the whole project: nothing that builds, tests or benchmarks it reads a path outside it, the
reference data it carries names its source and licence, and no source spells a platform-specific call in a way that
only compiles on glibc (the manifest also declares macOS)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "Fixtures"
CHECKED = ["Sources", "Tests", "scripts", "bench", ".ci", "Package.swift"]
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
    assert len(libraries) == 5  # CGEOS, CPROJ, CZip, CGDAL, CMicroHTTPD
    for declaration in libraries:
        assert ".apt([" in declaration and ".brew([" in declaration, declaration
