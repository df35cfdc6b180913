"""The house's seams: every place where one feature plugs into another is an extension point
declared in app/extension_points.py, reached through its object and never through a string key
of ``app.extensions``; database listeners are registered by ``create_app`` alone."""

import ast
from pathlib import Path

import pytest

from tests.test_layout import APP, _module_parts

# --- Extension points (app/extension_points.py) ------------------------------------------------

# The keys Flask extensions give themselves on ``app.extensions`` (the portal reads Babel's).
FLASK_EXTENSIONS = frozenset(
    {
        "authlib.integrations.flask_client",
        "babel",
        "bootstrap",
        "csrf",
        "mailman",
        "migrate",
        "sqlalchemy",
    }
)
_READS = {"get", "setdefault", "pop"}


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """The module's names bound to a string at its top level (``KEY = "a.b"``)."""
    return {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _is_extensions(node: ast.AST) -> bool:
    """``app.extensions``, ``current_app.extensions``, or a local called ``extensions``."""
    return (isinstance(node, ast.Attribute) and node.attr == "extensions") or (
        isinstance(node, ast.Name) and node.id == "extensions"
    )


def _extension_keys(tree: ast.Module):
    """Every key read or written on ``app.extensions`` in ``tree``, with its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_extensions(node.value):
            yield node.slice, node.lineno
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _READS
            and _is_extensions(node.func.value)
            and node.args
        ):
            yield node.args[0], node.lineno
        elif (
            isinstance(node, ast.Compare)
            and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            and any(_is_extensions(right) for right in node.comparators)
        ):
            yield node.left, node.lineno


def string_keyed_extensions(root: Path = APP) -> list[str]:
    """Every use of ``app.extensions`` in ``root`` whose key is a string: spelled there, or a
    name bound to a string (in the module, or imported from another module of the app). A
    point is an ``ExtensionPoint`` of app/extension_points.py, a module's own state a
    ``StateKey``; only Flask extensions' own keys are strings. Also every ``ExtensionPoint``
    made outside app/extension_points.py."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in root.rglob("*.py")}
    constants = {
        ".".join(_module_parts(path, root)): _string_constants(tree) for path, tree in trees.items()
    }
    found = []
    for path, tree in sorted(trees.items()):
        where = path.relative_to(root.parent)
        known = dict(constants[".".join(_module_parts(path, root))])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module in constants:
                for alias in node.names:
                    if alias.name in constants[node.module]:
                        known[alias.asname or alias.name] = constants[node.module][alias.name]
        for key, line in _extension_keys(tree):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                text = key.value
            elif isinstance(key, ast.Name) and key.id in known:
                text = known[key.id]
            elif isinstance(key, ast.JoinedStr):
                text = ast.unparse(key)
            else:
                continue
            if text not in FLASK_EXTENSIONS:
                found.append((f"{where}:{line}", str(where), text))
        if where != Path("app/extension_points.py"):
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and "ExtensionPoint" in (
                    getattr(node.func, "id", None),
                    getattr(node.func, "attr", None),
                ):
                    found.append((f"{where}:{node.lineno}", str(where), "ExtensionPoint"))
    return found


def test_no_extension_of_the_app_is_reached_by_a_string_key():
    assert [place for place, _path, _key in string_keyed_extensions()] == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('current_app.extensions["deployments.panels"] = []\n', True),
        ('slot = current_app.extensions.get("catalogue.cost_preview")\n', True),
        ("app.extensions.setdefault(f'{name}.menus', [])\n", True),
        ('KEY = "account.sections"\ndef f(app):\n    return app.extensions.get(KEY)\n', True),
        ("from app.errors import JSON_ANSWER\napp.extensions[JSON_ANSWER] = None\n", True),
        ('extensions = current_app.extensions\nkept = extensions.pop("cache", None)\n', True),
        ('if "navigation.menus" in app.extensions:\n    pass\n', True),
        ("POINT = ExtensionPoint('x.y', 'str', 'doc')\n", True),
        ('domain = app.extensions["babel"].default_domain\n', False),
        ("app.extensions[_KEY] = {}\n", False),
        ("from app.extension_points import EVENT_WORDS\nEVENT_WORDS.add(app, words)\n", False),
        ('_KEY = StateKey("caches")\nx = current_app.extensions.setdefault(_KEY, {})\n', False),
    ],
)
def test_a_string_key_planted_in_a_feature_is_found(tmp_path, source, found):
    """The check itself: a planted string key (or a point declared elsewhere) is reported."""
    root = tmp_path / "app"
    (root / "deployments").mkdir(parents=True)
    (root / "deployments" / "planted.py").write_text(source)
    (root / "errors.py").write_text('JSON_ANSWER = "errors.json_answer"\n')
    reported = string_keyed_extensions(root)
    assert bool(reported) is found, reported


def test_every_extension_point_is_declared_once_with_a_signature_and_a_docstring():
    from app import extension_points
    from app.extension_points import ExtensionPoint

    points = [
        value for value in vars(extension_points).values() if isinstance(value, ExtensionPoint)
    ]
    assert points
    names = [point.name for point in points]
    assert sorted(names) == sorted(set(names))
    for point in points:
        assert point.signature.strip(), point
        assert point.__doc__ and point.__doc__ != ExtensionPoint.__doc__, point
        # When it fires, and what a plug must not do.
        assert "Fires" in point.__doc__ and "must" in point.__doc__, point


def test_database_listeners_are_registered_by_create_app_alone():
    """No listener registers itself when its module is imported (that order would be whatever
    the imports happen to be): every one is in ``create_app``'s ``_register_listeners``."""
    found = []
    for path in sorted(APP.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Attribute) or node.attr not in ("listen", "listens_for"):
                continue
            if path.relative_to(APP) in (Path("extensions.py"), Path("transactions.py")):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("event", "sqlalchemy_event"):
                found.append(f"{path.relative_to(APP.parent)}:{node.lineno}")
    assert found == []
