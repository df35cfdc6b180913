"""Validating TOSCA templates with tosca-parser, against local copies of their imported types.

Templates import their type definitions by URL; ``tosca-catalog/types/versions.yaml`` maps those
URLs to local copies, one folder per types version (see that file). Only the copy given to
tosca-parser has its imports rewritten; the stored template keeps its URLs. tosca-parser never
reaches the network: imports that no pattern maps are reported and left out, and while it runs
its loader is replaced by one that refuses anything but local files.

tosca-parser checks structure and types but not input values against their constraints, not
unknown parameters and not missing required inputs: ``constraints`` and ``forms`` do those.
"""

from __future__ import annotations

import copy
import logging
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from app.catalogue.yamlsafe import Problem

_LOCK = threading.Lock()  # tosca-parser collects errors in class attributes: one run at a time
_QUIET = threading.Event()
_TYPE_FILES: dict[tuple, dict] = {}  # parsed local type files, guarded by _LOCK

# Messages where tosca-parser is stricter than the orchestrator and the published INDIGO
# templates: reported as warnings so those templates stay launchable.
_LENIENT = (
    (
        re.compile(r'Relationship "[^"]+" in template "[^"]+" has a wrong number of occurrences'),
        " (tosca-parser counts requirements inherited from the type; many published INDIGO "
        "templates leave them out and deploy)",
    ),
    (re.compile(r'"-?\d+" is not a float\.'), " (a whole number where a float is expected)"),
)


class TypesConfigError(ValueError):
    """``versions.yaml`` is missing or malformed; the message says what to fix."""


@dataclass(frozen=True)
class ImportTarget:
    """Where an import URL points: a ``file`` in the types folders, and its ref's version."""

    url: str
    file: str
    ref: str
    version: str | None


@dataclass
class TypeVersions:
    """The local type definition versions (newest first) and the URL patterns mapping to them."""

    directory: Path
    names: list[str]
    patterns: list[tuple[re.Pattern, dict[str, str]]] = field(default_factory=list)

    @classmethod
    def load(cls, types_dir: str | Path) -> TypeVersions:
        """Read ``versions.yaml`` in ``types_dir``.

        Raises ``TypesConfigError`` when it is missing or malformed.
        """
        directory = Path(types_dir).resolve()
        try:
            data = yaml.safe_load((directory / "versions.yaml").read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise TypesConfigError(f"Can't read {directory / 'versions.yaml'}: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("versions"), dict):
            raise TypesConfigError("versions.yaml needs a 'versions' mapping, newest first.")
        names = [str(name) for name in data["versions"]]
        patterns = []
        for entry in data.get("imports") or []:
            try:
                url, refs = entry["url"], entry.get("refs") or {}
            except (TypeError, KeyError):
                raise TypesConfigError("Each versions.yaml import needs a 'url'.") from None
            unknown = set(refs.values()) - set(names)
            if unknown:
                raise TypesConfigError(f"versions.yaml maps refs to unknown versions: {unknown}")
            regex = re.escape(url).replace(r"\{ref\}", r"(?P<ref>[^/]+)")
            regex = regex.replace(r"\{file\}", r"(?P<file>[^?#]+)")
            patterns.append((re.compile(regex), {str(k): v for k, v in refs.items()}))
        return cls(directory, names, patterns)

    def resolve(self, url: str) -> ImportTarget | None:
        """The target of an import URL, or ``None`` when no pattern maps it."""
        for pattern, refs in self.patterns:
            match = pattern.fullmatch(url.strip())
            if match and ".." not in match["file"].split("/"):
                ref = match["ref"] if "ref" in pattern.groupindex else ""
                return ImportTarget(url, match["file"], ref, refs.get(ref))
        return None

    def local_file(self, version: str, target: ImportTarget) -> Path | None:
        path = self.directory / version / target.file
        return path if path.is_file() else None


@dataclass
class Validation:
    """The outcome of validating one template: the types version used, errors and warnings."""

    version: str | None
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def _import_url(entry, repositories: dict) -> str | None:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict) and isinstance(entry.get("file"), str):
        repository = entry.get("repository")
        if repository is None:
            return entry["file"]
        repo = repositories.get(repository)
        base = repo.get("url") if isinstance(repo, dict) else repo
        if isinstance(base, str):
            return base.strip().rstrip("/") + "/" + entry["file"]
    return None


def _imports(tpl: dict) -> list[tuple[int, str, str | None]]:
    """The template's imports as (position, import name, URL or None when unreadable)."""
    raw = tpl.get("imports") or []
    repositories = tpl.get("repositories") if isinstance(tpl.get("repositories"), dict) else {}
    found = []
    for position, item in enumerate(raw if isinstance(raw, list) else [raw]):
        if isinstance(item, dict) and len(item) == 1 and "file" not in item:
            ((name, entry),) = item.items()
        else:
            name, entry = f"import_{position}", item
        found.append((position, str(name), _import_url(entry, repositories)))
    return found


def find_line(message: str, lines: dict[tuple, int], text: str | None = None) -> int | None:
    """Guess the template line a tosca-parser message is about, from the names it quotes."""
    tokens = set(re.findall(r'"([^"]+)"', message))
    best: tuple | None = None
    for path, line in lines.items():
        if str(path[-1]) not in tokens:
            continue
        score = len(tokens & {str(part) for part in path})
        rank = (-score, len(path), line)
        if best is None or rank < best[0]:
            best = (rank, line)
    if best:
        return best[1]
    if text:
        # The message quotes a value rather than a key: its first whole-word occurrence.
        for token in sorted(tokens, key=len, reverse=True):
            if len(token) < 3 or token.isdigit():
                continue
            word = re.compile(rf"(?<![\w.]){re.escape(token)}(?![\w.])", re.IGNORECASE)
            for number, content in enumerate(text.splitlines(), start=1):
                if word.search(content.split("#", 1)[0]):
                    return number
    return None


def _quiet_toscaparser() -> None:
    # tosca-parser logs every problem it also raises; the portal reports them itself.
    if not _QUIET.is_set():
        for name in ("tosca", "toscaparser"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        _QUIET.set()


def _local_only_loader(path, a_file=True):
    from toscaparser.common.exception import ExceptionCollector, URLException
    from toscaparser.utils.yamlparser import load_yaml

    if not a_file:
        ExceptionCollector.appendException(
            URLException(what=f'Refused to download "{path}": only local type copies are used.')
        )
        return None
    # Reading a types file takes most of a validation's time; each run gets its own copy
    # because tosca-parser may change what it is given.
    stat = Path(path).stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _TYPE_FILES:
        if len(_TYPE_FILES) >= 16:
            _TYPE_FILES.clear()  # files replaced on disk leave stale entries behind
        _TYPE_FILES[key] = load_yaml(path, a_file=True)
    return copy.deepcopy(_TYPE_FILES[key])


def _run_toscaparser(tpl: dict) -> list[str]:
    """Run tosca-parser on an already rewritten template; return its error messages."""
    import toscaparser.imports
    from toscaparser.common.exception import ExceptionCollector, ValidationError
    from toscaparser.tosca_template import ToscaTemplate

    _quiet_toscaparser()
    with _LOCK:
        original = toscaparser.imports.YAML_LOADER
        toscaparser.imports.YAML_LOADER = _local_only_loader
        try:
            ToscaTemplate(yaml_dict_tpl=tpl, a_file=False)
            return []
        except ValidationError:
            return [str(error) for error in ExceptionCollector.getExceptions()]
        except Exception as error:  # noqa: BLE001 - a parser crash is a report, not a 500
            collected = [str(e) for e in ExceptionCollector.getExceptions()]
            return collected or [f"tosca-parser could not read the template ({error!r})."]
        finally:
            ExceptionCollector.stop()
            ExceptionCollector.clear()
            toscaparser.imports.YAML_LOADER = original


def _validate_with(
    tpl: dict, lines: dict, text: str | None, versions: TypeVersions, version: str
) -> Validation:
    result = Validation(version)
    rewritten = copy.deepcopy(tpl)
    local_imports = []
    for _position, name, url in _imports(tpl):
        target = versions.resolve(url) if url else None
        path = versions.local_file(version, target) if target else None
        if path is None:
            continue  # reported once by validate_template
        local_imports.append({name: str(path)})
    if local_imports:
        rewritten["imports"] = local_imports
    else:
        rewritten.pop("imports", None)
    for message in _run_toscaparser(rewritten):
        line = find_line(message, lines, text)
        for pattern, reason in _LENIENT:
            if pattern.search(message):
                result.warnings.append(Problem(message + reason, line))
                break
        else:
            result.errors.append(Problem(message, line))
    return result


def validate_template(
    tpl: dict,
    lines: dict[tuple, int],
    *,
    types_dir: str | Path,
    pinned: str | None = None,
    text: str | None = None,
) -> Validation:
    """Validate a loaded template against local type copies; never touches the network.

    ``lines`` comes from ``yamlsafe.load_yaml_lines``; ``text`` (the template text) helps find
    lines for messages that quote values. ``pinned`` is the sidecar's ``types_version``. When the
    chosen version fails and another passes, the passing one is used with a warning (or, for a
    pinned version, the errors stay and a hint names the version that passes).
    Raises ``TypesConfigError`` only when ``types_dir`` is unusable.
    """
    versions = TypeVersions.load(types_dir)
    problems: list[Problem] = []
    warnings: list[Problem] = []
    suggested: list[str] = []
    for position, name, url in _imports(tpl):
        line = lines.get(("imports", position))
        target = versions.resolve(url) if url else None
        if target is None:
            problems.append(Problem(
                f'Import "{name}" ({url or "unreadable"}) has no local copy: add it to '
                "tosca-catalog/types/ and versions.yaml. It was not downloaded.", line,
            ))  # fmt: skip
        elif target.version is None:
            warnings.append(Problem(
                f'Import "{name}" names "{target.ref}", which versions.yaml does not map to a '
                "types version; checked against the pinned or newest version.", line,
            ))  # fmt: skip
        else:
            suggested.append(target.version)

    if pinned is not None and pinned not in versions.names:
        problems.append(Problem(
            f'types_version "{pinned}" is not one of: {", ".join(versions.names)}.',
            None, "sidecar",
        ))  # fmt: skip
        pinned = None
    chosen = pinned or (suggested[0] if suggested else versions.names[0])
    result = _validate_with(tpl, lines, text, versions, chosen)
    if result.errors:
        for other in versions.names:
            if other == chosen:
                continue
            alternative = _validate_with(tpl, lines, text, versions, other)
            if alternative.errors:
                continue
            if pinned:
                result.errors.append(Problem(
                    f'It validates against types version "{other}" instead; pin that version '
                    "in the sidecar if it is the intended one.", None, "sidecar",
                ))  # fmt: skip
            else:
                alternative.warnings.insert(0, Problem(
                    f'Validates only against types version "{other}", not "{chosen}" which '
                    f'its imports suggest; checked against "{other}". Pin types_version: '
                    f"{other} in the sidecar to make this explicit.",
                ))  # fmt: skip
                result = alternative
            break
    result.errors[:0] = problems
    result.warnings[:0] = warnings
    return result
