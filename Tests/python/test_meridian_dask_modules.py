"""meridian-dask's modules import each other without a cycle, and only at the top of a module: a cycle hidden in a
function-level import (as `inputs` and `parquet` once reached each other for `Chunk`) breaks as soon as someone
moves the import up, and makes the order in which modules load matter."""
import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "meridian_dask"


def relative_imports(source: str):
    """(module imported, at module level?) for every `from . import x` and `from .x import …` of a module."""
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [alias.name for alias in node.names]
            for name in names:
                yield name.split(".")[0], id(node) in top


def import_graph(sources: dict[str, str]):
    graph, nested = {}, []
    for module, source in sources.items():
        graph[module] = set()
        for target, at_top in relative_imports(source):
            graph[module].add(target)
            if not at_top:
                nested.append(f"{module} imports {target} inside a function")
    return graph, nested


def cycle(graph: dict[str, set]) -> list[str] | None:
    """A cycle of the graph, as the modules along it, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module):
        state[module] = "open"
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = "done"
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_package_imports_without_a_cycle_and_only_at_the_top():
    sources = {p.stem: p.read_text(encoding="utf-8") for p in PACKAGE.glob("*.py")}
    assert {"chunks", "inputs", "parquet", "results", "tasks", "driver"} <= set(sources)
    graph, nested = import_graph(sources)
    assert not nested, nested
    assert cycle(graph) is None, " -> ".join(cycle(graph))
    # The chunk type lives below both modules that make chunks.
    assert "chunks" in graph["inputs"] and "chunks" in graph["parquet"] and "inputs" not in graph["parquet"]


def test_the_checks_see_a_cycle_and_a_nested_import():
    graph, nested = import_graph({"a": "from .b import x\n", "b": "def f():\n    from . import a\n"})
    assert cycle(graph) == ["a", "b", "a"]
    assert nested == ["b imports a inside a function"]
    assert cycle({"a": {"b"}, "b": set()}) is None
