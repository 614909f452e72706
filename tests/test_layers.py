"""The layers of the package, read from its import statements (the design in README.md,
"Layout"): no two modules import each other, games import nothing from search or the harness,
the core floor imports nothing above it, and reading results needs neither numba nor Hydra."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[1] / "nmcs"


def import_graph() -> dict[str, set[str]]:
    """Module -> the nmcs modules it imports, at the top or inside a function."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nmcs"):
                assert node.module is not None
                # `from package import submodule` imports the submodule (and runs the package's
                # __init__, which a package's own modules need anyway): an edge to the submodule.
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
                graph[name] |= subs
                if node.module in modules and len(subs) < len(node.names):
                    graph[name].add(node.module)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names} & modules.keys()
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_two_modules_import_each_other():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_games_import_nothing_from_search_or_the_harness():
    graph = import_graph()
    upward = {
        (module, target)
        for module, targets in graph.items()
        if module.startswith("nmcs.games")
        for target in targets
        if target.startswith(("nmcs.search", "nmcs.harness", "nmcs.theory"))
    }
    assert upward == set()


def test_the_core_imports_only_itself():
    graph = import_graph()
    for module, targets in graph.items():
        if module.startswith("nmcs.core"):
            assert all(t.startswith("nmcs.core") for t in targets), (module, targets)


def test_reading_results_needs_neither_numba_nor_hydra():
    code = (
        "import sys; import nmcs.harness.results, nmcs.core.scales, nmcs.core.errors; "
        "print(sorted(m for m in ('numba', 'hydra') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_mypy_passes_on_the_package():
    """Every module of the package and of the analysis is type-checked (pyproject.toml:
    [tool.mypy]); only the jitted kernels' errors are off."""
    mypy = Path(sys.executable).with_name("mypy")
    if not mypy.exists():
        import pytest

        pytest.skip("mypy is not installed (pip install -e .[dev])")
    done = subprocess.run([str(mypy)], cwd=PACKAGE.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]


MAX_FUNCTION_LINES = 100


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:line name (n lines)`` of every function or method under ``root`` longer than
    ``limit`` lines (its decorators left out, its nested functions counted in)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > limit:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({n})")
    return found


# The package and the analysis that rebuilds the report from its results.
CHECKED_FOR_LENGTH = [PACKAGE, PACKAGE.parent / "analysis"]


@pytest.mark.parametrize("root", CHECKED_FOR_LENGTH, ids=lambda root: root.name)
def test_no_function_is_over_100_lines(root):
    assert long_functions(root) == []


def test_the_length_check_finds_a_long_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (package / "m.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n")
    assert long_functions(package) == [f"pkg/m.py:5 long ({MAX_FUNCTION_LINES + 1})"]
