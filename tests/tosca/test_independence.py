"""The TOSCA library knows nothing of the features that use it: no blueprint, no database."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "app" / "tosca"
FEATURES = ("app.catalogue", "app.deployments", "app.quotas", "app.auth", "app.launch")


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at load time or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_tosca_module_imports_a_feature_or_the_database():
    offending = {
        str(path.relative_to(PACKAGE)): sorted(
            name
            for name in _imported(path)
            if any(name == f or name.startswith(f + ".") for f in FEATURES)
            or name == "app.extensions.db"
        )
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    assert {module: names for module, names in offending.items() if names} == {}


def test_the_tosca_library_registers_no_blueprint():
    assert not [p for p in PACKAGE.rglob("*.py") if "Blueprint" in p.read_text()]
