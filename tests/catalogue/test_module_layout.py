"""The catalogue package and the TOSCA library it grew out of read in one sitting: small modules
whose imports form no circle."""

import ast
from pathlib import Path

import pytest

APP = Path(__file__).parents[2] / "app"
PACKAGES = [APP / "catalogue", APP / "tosca"]
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, known: set[str]) -> set[str]:
    """The app.catalogue modules ``path`` imports when it is loaded (not inside functions)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in known else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in known}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_no_two_catalogue_modules_import_each_other_in_a_circle(package):
    paths = {_module_name(p): p for p in package.rglob("*.py")}
    graph = {name: _imports(path, set(paths)) - {name} for name, path in paths.items()}
    # A package's __init__ importing its own modules is how it registers them, not a circle.
    for name, path in paths.items():
        if path.name == "__init__.py":
            graph[name] = {d for d in graph[name] if not d.startswith(name + ".")}
    visiting, done, circles = set(), set(), []

    def visit(name, trail):
        if name in done:
            return
        if name in visiting:
            circles.append(trail[trail.index(name) :] + [name])
            return
        visiting.add(name)
        for dependency in sorted(graph[name]):
            visit(dependency, [*trail, name])
        visiting.discard(name)
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert circles == []


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_catalogue_module_is_small_enough_to_read_in_one_sitting(package):
    long = {
        str(path.relative_to(package)): n
        for path in package.rglob("*.py")
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
