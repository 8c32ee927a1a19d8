"""Every ArcGIS-named entry point the documentation's mapping table promises (Sources/Meridian/Meridian.docc/
ArcGISNameMapping.md) exists in Meridian's public API, and the rows marked "same" are the same: ArcGIS's base name
and argument labels, in order (Meridian may only add labels, with defaults). One test per row, so that the run lists
them. The public API is read from the symbol graphs `swift package dump-symbol-graph --minimum-access-level public`
wrote for scripts/docs.sh (scripts/test.sh runs it before this harness; the `docs_site` fixture runs it when its
output is missing or older than Sources/), so a renamed or removed symbol fails here with the row that names it."""
import json
import pathlib
import re

import pytest

from viewer_support import ROOT

TABLE = ROOT / "Sources" / "Meridian" / "Meridian.docc" / "ArcGISNameMapping.md"
GRAPHS = ROOT / ".build" / "docs-work" / "graphs"
MODULES = {"Meridian", "MeridianCore", "MeridianEngine", "MeridianKML", "MeridianFeatureData", "MeridianIO",
           "MeridianViewer", "MeridianCLI"}


def rows():
    """(section, ArcGIS names, Meridian symbol links, note) for every row of every table in the article."""
    section, out = None, []
    for line in TABLE.read_text().splitlines():
        if line.startswith("### "):
            section = line[4:].strip()
        if not line.startswith("| ") or line.startswith("| ---") or line.startswith("| ArcGIS |"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 3, f"a table row needs three cells: {line}"
        arcgis, meridian, note = cells
        # ArcGIS's names: the backticked names before any parenthesised remark (e.g. "(Runtime: …)").
        names = re.findall(r"`([^`]+)`", re.sub(r"\(Runtime:.*?\)|\(Maps SDK:.*?\)", "", arcgis))
        links = re.findall(r"``([^`]+)``", meridian)
        assert names and links, f"a row needs ArcGIS names and Meridian symbol links: {line}"
        out.append((section, names, links, note))
    return out


ROWS = rows()


def strip_disambiguation(component: str) -> str:
    """`project(_:into:)-(GeometryConvertible,_)` → `project(_:into:)`; `red-type.property` → `red`."""
    if "(" in component:
        return component[: component.index(")") + 1]
    return component.split("-")[0]


def symbol_paths():
    """{(graph module, extended module or None): {path components}} of every public symbol (the graphs the
    `docs_site` fixture makes sure are current)."""
    graphs = sorted(GRAPHS.glob("*/*.symbols.json"))
    assert graphs, f"no symbol graphs under {GRAPHS}"
    out = {}
    for path in graphs:
        module, _, extended = path.name.removesuffix(".symbols.json").partition("@")
        data = json.loads(path.read_text())
        out.setdefault((module, extended or None), set()).update(
            tuple(s["pathComponents"]) for s in data["symbols"] if s.get("accessLevel", "public") in ("public", "open"))
    return out


@pytest.fixture(scope="module")
def api(docs_site):
    return symbol_paths()


def resolve(link: str):
    """(graph key, path components) of a DocC symbol link such as ``/MeridianEngine/MeridianCore/SpatialReference/init(wkid:)``."""
    assert link.startswith("/"), f"table links are absolute (/Module/…): {link}"
    parts = link.strip("/").split("/")
    module, rest = parts[0], parts[1:]
    extended = None
    if rest and rest[0] in MODULES:  # a member this module adds to another module's type
        extended, rest = rest[0], rest[1:]
    return (module, extended), tuple(strip_disambiguation(c) for c in rest)


def labels(signature: str):
    """Base name and argument labels of `Owner.name(a:_:)` (owner dropped), or the name and None for a property or
    type: `GeometryEngine.project(_:into:)` → ("project", ["_", "into"]); `placemark.style` → ("style", None)."""
    m = re.fullmatch(r"(?:[\w.]*\.)?(\w+)(?:\((.*)\))?", signature)
    assert m, f"not a name: {signature}"
    if m[2] is None:
        return m[1], None if "(" not in signature else []
    return m[1], [label for label in m[2].split(":") if label]


def is_subsequence(short, long):
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def same_name(arcgis: str, path: tuple) -> bool:
    """Whether a Meridian path has ArcGIS's name: the same base name (a type's initializer for `Type(…)`) and
    ArcGIS's argument labels in order, possibly with more."""
    name, arcgis_labels = labels(arcgis)
    last_name, last_labels = labels(path[-1])
    if last_name == "init":  # ArcGIS `Type(labels)` ↔ Meridian `Type/init(labels)`
        last_name, name = path[-2], name.removeprefix("AGS")
    if name != last_name:
        return False
    if arcgis_labels is None or last_labels is None:
        return arcgis_labels is None and last_labels is None
    return is_subsequence(arcgis_labels, last_labels)


@pytest.mark.parametrize("section,names,links,note", ROWS, ids=[" ".join(r[1]) for r in ROWS])
def test_promised_entry_point_exists_with_arcgis_name(api, section, names, links, note):
    for link in links:
        key, path = resolve(link)
        assert path in api.get(key, set()), f"{link} ({section}: ArcGIS {', '.join(names)}) is not in the public API"
    if note.startswith("same"):
        # One ArcGIS name per link (`isFilled`, `isOutlined` ↔ two links), or one name for the row's link.
        pairs = zip(names, links) if len(names) == len(links) else [(names[0], links[0])]
        for arcgis, link in pairs:
            _, path = resolve(link)
            assert same_name(arcgis, path), f"marked 'same' but {link} does not carry ArcGIS's {arcgis}"
    else:
        assert len(note) > 3, f"a row that is not 'same' explains how it differs: {names}"


def test_the_tables_cover_both_samples_entry_points():
    promised = {n for _, names, _, _ in ROWS for n in names}
    # What the two ported samples call (examples/): every one is in the table.
    for name in ["GeometryEngine.buffer(around:distances:shouldUnion:)", "GeometryEngine.project(_:into:)",
                 "SpatialReference(wkid:)", "KMLDataset(url:)", "KMLDataset(rootNode:)", "KMLIcon(url:)",
                 "KMLIconStyle(icon:scale:)", "KMLPolygonStyle(fillColor:)", "KMLContainer.addChildNode(_:)",
                 "KMLGeometry(geometry:altitudeMode:)", "KMLPlacemark(geometry:)", "KMLLineStyle(color:width:)",
                 "GeometryEngine.geodeticArea(of:unit:curveType:)"]:
        assert name in promised, name
    # The KML and geodetic tables have no departures left (issue 12): every row is "same".
    for section, names, _, note in ROWS:
        if section in ("KML", "Geodetic operations"):
            assert note.startswith("same"), (section, names, note)


def test_the_checks_themselves():
    assert strip_disambiguation("buffer(around:distances:)-([GeometryConvertible],[Double])") == "buffer(around:distances:)"
    assert strip_disambiguation("red-type.property") == "red"
    assert same_name("KMLPolygonStyle(fillColor:)", ("KMLPolygonStyle", "init(fillColor:isFilled:isOutlined:)"))
    assert not same_name("KMLPolygonStyle(fillColor:)", ("KMLPolygonStyle", "init(color:isFilled:isOutlined:)"))
    assert not same_name("KMLDataset(url:)", ("KMLDataset", "init(contentsOf:limits:)"))
    assert not same_name("KMLContainer.addChildNode(_:)", ("KMLDocument", "addChild(_:)"))
    assert same_name("AGSKMLDocument()", ("KMLDocument", "init(name:styles:features:)"))
    assert same_name("placemark.style", ("KMLPlacemark", "style"))
    assert not same_name("placemark.style", ("KMLPlacemark", "styleUrl"))
