"""The house's floors: a feature package imports only packages on lower floors, and every
module of ``app/`` reads in one sitting.

The floors, top to bottom (README, "Layout"):

    api, cli_client                 the JSON face of the same operations; the rcp client
    launch, groups                  the launch decision and its pages; the Group page of a
                                    group's managers (beside launch)
    lines, main, metrics            the line's books (entries, order, fair share, moves); the
                                    other faces: may meet several features
    quotas, leases, notifications,  how much and how long people may use; what people are told
    capacity, sync                  of their deployments; what the sites have free; the worker
                                    that keeps the record in step with the backends
    deployments                     what was launched; reads the catalogue's templates
    catalogue                       what can be launched
    tosca, backends                 the TOSCA library; where deployments are made (backends/base.py
                                    and one package per backend: paas/ with its emulator, im/)
    auth                            who people are
    core modules                    extensions, clock, errors, config, caches, locks, ...

Imports are read with ``ast`` from every module, including imports inside functions (a lazy
import is still an arrow). ``app/__init__.py`` assembles the floors and stands outside them.
"""

import ast
import re
from pathlib import Path

import pytest

APP = Path(__file__).parents[1] / "app"
TEMPLATES = APP.parent / "templates"
MAX_LINES = 400

FLOORS = {
    "api": 8,
    "cli_client": 8,
    "launch": 7,
    # The Group page: reads the line, the quotas and the deployments of a group.
    "groups": 7,
    "lines": 6,
    "main": 6,
    "metrics": 6,
    "quotas": 5,
    "notifications": 5,
    "leases": 5,
    "capacity": 5,
    # The worker that keeps the deployments' record in step with the backends.
    "sync": 5,
    "deployments": 4,
    "catalogue": 3,
    "tosca": 2,
    "backends": 2,
    "auth": 1,
}
# The core: modules (and small packages) every floor may use; they import no feature.
CORE = 0


def floor_of(package: str, root: Path = APP) -> int:
    if package in FLOORS:
        return FLOORS[package]
    if (root / f"{package}.py").exists():
        return CORE
    raise AssertionError(
        f"app/{package}/ stands on no floor: add it to FLOORS here and to the README's Layout."
    )


def _package_of(path: Path, root: Path) -> str | None:
    """The top-level name under app/ that ``path`` belongs to (None for app/__init__.py)."""
    parts = path.relative_to(root).parts
    if parts == ("__init__.py",):
        return None
    return parts[0].removesuffix(".py")


def _module_parts(path: Path, root: Path) -> list[str]:
    parts = ["app", *path.relative_to(root).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_packages(path: Path, root: Path = APP) -> list[tuple[str, int]]:
    """The app packages ``path`` imports (top-level names under app/), with line numbers."""
    found = []
    here = _module_parts(path, root)
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            names = [module]
            if module == "app":  # from app import catalogue
                names = [f"app.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if len(parts) >= 2 and parts[0] == "app":
                found.append((parts[1], node.lineno))
    return found


def upward_imports(root: Path = APP) -> list[str]:
    """Every import of ``root`` that goes up a floor or sideways between features."""
    wrong = []
    for path in sorted(root.rglob("*.py")):
        package = _package_of(path, root)
        if package is None:
            continue
        here = floor_of(package, root)
        for target, line in imported_packages(path, root):
            if target == package:
                continue
            there = floor_of(target, root)
            if there > here or (there == here and here != CORE):
                wrong.append(
                    f"{path.relative_to(root.parent)}:{line} imports app.{target} "
                    f"(floor {there}) from {package} (floor {here})"
                )
    return wrong


def test_features_import_only_downwards():
    assert upward_imports() == []


def test_no_module_of_the_app_is_too_long_to_read_in_one_sitting():
    long = {
        str(path.relative_to(APP)): n
        for path in APP.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from app.launch import workflow\n", True),
        ("def late():\n    from app.quotas.operations import reserve\n", True),
        ("from ..quotas import holding\n", True),
        ("import app.deployments.models\n", True),
        ("import app.auth.models\n", False),
        ("from app.clock import utcnow\n", False),
    ],
)
def test_an_upward_import_from_the_catalogue_is_found_wherever_it_is_written(
    tmp_path, source, found
):
    """The check itself: a planted import in a copy of the catalogue floor is reported."""
    root = tmp_path / "app"
    (root / "catalogue").mkdir(parents=True)
    (root / "catalogue" / "__init__.py").write_text("")
    (root / "catalogue" / "planted.py").write_text(source)
    (root / "clock.py").write_text("")
    reported = upward_imports(root)
    assert bool(reported) is found, reported


# Each backend's own words (its states, the fields of its requests and answers, its errors):
# they stay in its package under app/backends/.
BACKEND_WORDS = (
    # The PaaS Orchestrator's.
    "CREATE_IN_PROGRESS",
    "CREATE_COMPLETE",
    "CREATE_FAILED",
    "UPDATE_IN_PROGRESS",
    "UPDATE_COMPLETE",
    "DELETE_IN_PROGRESS",
    "DELETE_COMPLETE",
    "userGroup",
    "keepLastAttempt",
    "timeoutMins",
    "providerTimeoutMins",
    "maxProvidersRetry",
    "cloudProviderName",
    "statusReason",
    "createdBy",
    "OrchestratorClient",
    "OrchestratorError",
    "OrchestratorUnavailable",
    "DeploymentNotFound",
    # What the orchestrator alone tells of a deployment: kept in the backend's own data.
    "callback_secret",
    "orchestrator_owner",
    # The Infrastructure Manager's.
    "InfrastructureManager",
    "contmsg",
    "unconfigured",
    "vm_states",
)
# The orchestrator's task as an attribute or keyword of the portal's records ("task" alone is
# an ordinary word).
BACKEND_SPELLINGS = (r"\.task\b", r"\btask\s*=(?!=)", r"\[[\"']task[\"']\]")
_WORD = re.compile(r"\b(" + "|".join(BACKEND_WORDS) + r")\b|(" + "|".join(BACKEND_SPELLINGS) + ")")
# The portal's published status words (its API's, fixed when they were the orchestrator's) are
# spelled where they are translated and where the API's own client reads them.
PUBLISHED = {Path("published.py"), Path("cli_client/main.py")}
# Only the backends' shared interface and registry are for the rest of the house.
_SHARED = {"app.backends", "app.backends.base", "app.backends.registry"}


def backend_words_outside(root: Path = APP, templates: Path = TEMPLATES) -> list[str]:
    """Every line outside app/backends/ that names a backend's own words or imports a backend's
    package (app/__init__.py, which assembles the house, may register a backend's commands)."""
    found = []
    files = [path for path in root.rglob("*.py") if path.relative_to(root) not in PUBLISHED]
    files += sorted(templates.rglob("*.html")) if templates.exists() else []
    for path in sorted(files):
        if root in path.parents and path.relative_to(root).parts[0] == "backends":
            continue
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            match = _WORD.search(line)
            if match:
                found.append(f"{path}:{number} names {match.group(1) or match.group(2)}")
        if path.suffix != ".py" or path == root / "__init__.py":
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("app.backends") and name not in _SHARED:
                    found.append(f"{path}:{node.lineno} imports {name}")
    return found


def test_no_module_outside_the_backends_knows_a_backends_own_words():
    assert backend_words_outside() == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('KEEP = "keepLastAttempt"\n', True),
        ("if status == 'CREATE_COMPLETE':\n    pass\n", True),
        ("from app.backends.paas.errors import Conflict\n", True),
        ("from app.backends.base import Busy\n", False),
        ('WORD = "ready"\n', False),
        ("secret = row.callback_secret\n", True),
        ("Deployment(orchestrator_owner=None)\n", True),
        ("deployment.task = state.details.get('group')\n", True),
        ("row = Deployment(task='NONE')\n", True),
        ("kept = data['task']\n", True),
        ("if task == 'x':\n    pass\n", False),
        ('WORDS = _("The configuration task failed.")\n', False),
    ],
)
def test_a_backends_word_planted_in_a_feature_is_found(tmp_path, source, found):
    """The check itself: a planted word or import in a copy of a feature is reported."""
    root = tmp_path / "app"
    (root / "deployments").mkdir(parents=True)
    (root / "deployments" / "planted.py").write_text(source)
    (root / "backends").mkdir()
    (root / "backends" / "own.py").write_text('WORD = "keepLastAttempt"\n')
    reported = backend_words_outside(root, tmp_path / "templates")
    assert bool(reported) is found, reported


_BRANCH_ON_BACKEND = re.compile(r"""backend\s*(==|!=|\bin\b|\bnot in\b)\s*[\[("']""")


def backend_branches(templates: Path = TEMPLATES) -> list[str]:
    """Every template line choosing what to show by a backend's name: words come from the
    backend's own table (``deployment.backend_words``), abilities from its capabilities."""
    return [
        f"{path}:{number}"
        for path in sorted(templates.rglob("*.html"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if _BRANCH_ON_BACKEND.search(line)
    ]


def test_no_template_chooses_its_words_by_a_backends_name():
    assert backend_branches() == []


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("""{% if deployment.backend == "paas" %}""", True),
        ("""{{ _("a") if row.backend != 'im' else _("b") }}""", True),
        ("""{% if deployment.backend in ("paas", "im") %}""", True),
        ("""{{ deployment.backend_words.heard_from }}""", False),
        ("""<dd data-runs-on="{{ deployment.backend }}">""", False),
    ],
)
def test_a_template_branching_on_a_backends_name_is_found(tmp_path, line, found):
    (tmp_path / "planted.html").write_text(line + "\n")
    assert bool(backend_branches(tmp_path)) is found


# Each backend's settings and its name are its own: outside app/backends/ nobody reads an
# ORCHESTRATOR_* or IM_* setting or names a backend, but the configuration defaults, which
# declare the published settings (and DEFAULT_BACKEND).
BACKEND_SETTING = re.compile(r"(ORCHESTRATOR|IM)_[A-Z0-9_]+")
CONFIG = APP.parent / "config"
# The module of config/ that declares the published settings and their defaults.
DECLARES_SETTINGS = "defaults.py"


def backend_names(root: Path = APP) -> set[str]:
    """The backends' names: one package each under app/backends/ (its registry's keys)."""
    return {
        path.parent.name
        for path in (root / "backends").glob("*/__init__.py")
        if path.parent.name != "__pycache__"
    }


def backend_settings_and_names_outside(root: Path = APP, config: Path = CONFIG) -> list[str]:
    """Every string outside app/backends/ that is a backend's setting (read from the
    configuration) or a backend's name, but in the module that declares the settings."""
    names = backend_names(root)
    files = sorted(root.rglob("*.py")) + (sorted(config.glob("*.py")) if config.exists() else [])
    found = []
    for path in files:
        if path.parent == config and path.name == DECLARES_SETTINGS:
            continue
        if root in path.parents and path.relative_to(root).parts[0] == "backends":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if BACKEND_SETTING.fullmatch(node.value):
                found.append(f"{path}:{node.lineno} reads {node.value}")
            elif node.value in names:
                found.append(f"{path}:{node.lineno} names the backend {node.value!r}")
    return found


def test_no_module_outside_the_backends_reads_their_settings_or_names_them():
    assert backend_names() >= {"paas", "im"}
    assert backend_settings_and_names_outside() == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('timeout = current_app.config["ORCHESTRATOR_TIMEOUT"]\n', True),
        ('url = config.get("IM_URL")\n', True),
        ('if deployment.backend == "im":\n    pass\n', True),
        ('DEFAULT = "paas"\n', True),
        ('"""Read as ORCHESTRATOR_TIMEOUT says, from the im."""\n', False),
        ("ORCHESTRATOR_LATENCY = Histogram()\n", False),
        ('seconds = config["NOTIFICATIONS_CLAIM_SECONDS"]\n', False),
        ('backend = registry.kind(name).words.label\nWORD = "image"\n', False),
    ],
)
def test_a_backends_setting_or_name_planted_in_a_feature_is_found(tmp_path, source, found):
    """The check itself: a planted read or name in a copy of a feature is reported; the
    backends' own package and the defaults that declare the settings are not."""
    root, config = tmp_path / "app", tmp_path / "config"
    (root / "deployments").mkdir(parents=True)
    (root / "deployments" / "planted.py").write_text(source)
    for name in ("paas", "im"):
        (root / "backends" / name).mkdir(parents=True)
        (root / "backends" / name / "__init__.py").write_text(f'NAME = "{name}"\n')
    config.mkdir()
    (config / "defaults.py").write_text('DEFAULT_BACKEND = "paas"\nIM_URL = ""\n')
    reported = backend_settings_and_names_outside(root, config)
    assert bool(reported) is found, reported
