"""The layering rule of ARCHITECTURE.md, read from every module's imports (ast): a module
imports only from its own layer or lower ones, nothing outside the tools imports them but the
command line, and no two modules import each other, directly or around a loop.  Imports
inside functions count: a deferred import is still an arrow."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Package (longest prefix wins) -> layer; lower layers never import higher ones.
LAYERS = {
    "engine.core": 0,
    "engine.parallel": 0,
    "engine.tactics": 1,
    "policies": 2,
    "engine.search": 3,
    "engine.play": 4,
    "engine.gtp": 5,
    "policies.data": 6,
    "policies.train": 7,
    "engine.lab": 8,
    "gtp_main": 9,
}
TOOLS = "engine.lab"
COMMAND_LINE = {"gtp_main"}


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules():
    files = [ROOT / "gtp_main.py"] + sorted((ROOT / "engine").rglob("*.py")) + sorted(
        (ROOT / "policies").rglob("*.py"))
    return {module_name(f): f for f in files}


def imports(path, name, known):
    """The project modules `path` (module `name`) imports, resolved to names in `known`."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()

    def add(target):
        while target and target not in known:   # `from pkg import name`: name is no module
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return out


def layer_of(name):
    best = max((p for p in LAYERS if name == p or name.startswith(p + ".")), key=len,
               default=None)
    return best, (LAYERS[best] if best else None)


@pytest.fixture(scope="module")
def graph():
    known = modules()
    return {name: imports(path, name, known) for name, path in known.items()}


def test_every_module_has_a_layer(graph):
    assert [m for m in graph if m not in ("engine",) and layer_of(m)[0] is None] == []


def test_no_module_imports_from_a_higher_layer(graph):
    bad = []
    for name, targets in graph.items():
        if name == "engine":
            continue
        _, mine = layer_of(name)
        for t in targets:
            if t != "engine" and layer_of(t)[1] > mine:
                bad.append(f"{name} -> {t}")
    assert bad == []


def test_only_the_command_line_imports_the_tools(graph):
    bad = [f"{name} -> {t}" for name, targets in graph.items() for t in targets
           if t.startswith(TOOLS) and not name.startswith(TOOLS) and name not in COMMAND_LINE]
    assert bad == []


def test_no_import_cycles(graph):
    # Package __init__ files re-export their modules; an arrow into the package is an arrow
    # into what it re-exports, so they take part like any module.
    state, cycles = {}, []

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for t in sorted(graph.get(node, ())):
            if state.get(t) == "open":
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == []


def test_the_checker_sees_a_bad_arrow(tmp_path):
    """The rule bites: an upward import and a cycle planted in a fake tree are reported."""
    known = {"engine.core.a": tmp_path / "a.py", "engine.lab.b": tmp_path / "b.py"}
    known["engine.core.a"].write_text("def f():\n    from engine.lab.b import g\n")
    known["engine.lab.b"].write_text("from engine.core.a import f\n")
    g = {n: imports(p, n, known) for n, p in known.items()}
    assert g == {"engine.core.a": {"engine.lab.b"}, "engine.lab.b": {"engine.core.a"}}
    assert layer_of("engine.lab.b")[1] > layer_of("engine.core.a")[1]
