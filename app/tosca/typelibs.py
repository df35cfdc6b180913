"""Type libraries: named, versioned sets of TOSCA type files and the import URLs they answer for.

Templates import their type definitions by URL. A library holds local copies of such files and
URL patterns such as ``https://git.example.org/infra/tosca-types/raw/{ref}/{path}``: ``{path}``
captures a file path inside the library, ``{ref}`` any branch, tag or commit. A pattern with a
literal ref (``.../raw/v2.1/{path}``) answers for that ref only and wins over a ``{ref}`` one.
Nothing is ever downloaded: a URL no library answers for stays unresolved, and is reported.

This module is plain data and lookups; ``libraries.py`` stores libraries in the database, and
``from_folder`` reads the shipped copies described by ``tosca-catalog/types/versions.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import yaml
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

# Refs that name one state of the files for good: a tag such as v4.0.1, or a commit.
_FIXED_REF = re.compile(r"v?\d+(\.\d+)*([.-][\w.-]+)?|[0-9a-f]{7,40}")

PATTERN_HELP = _l(
    "A URL starting with https:// or http:// that contains {path} (the file inside the "
    "library) and, optionally, {ref} (any branch, tag or commit)."
)


class LibraryError(ValueError):
    """A library definition can't be used; the message says what to fix."""


def compile_pattern(pattern: str) -> re.Pattern:
    """The regular expression of a URL pattern.

    Raises ``LibraryError`` when the pattern is not an http(s) URL holding ``{path}`` once.
    """
    text = (pattern or "").strip()
    if urlsplit(text).scheme not in ("http", "https") or text.count("{path}") != 1:
        raise LibraryError(
            _(
                "“%(pattern)s” is not a usable URL pattern. A URL starting with https:// or "
                "http:// that contains {path} (the file inside the library) and, optionally, "
                "{ref} (any branch, tag or commit).",
                pattern=pattern,
            )
        )
    if text.count("{ref}") > 1:
        raise LibraryError(_("“%(pattern)s” holds {ref} more than once.", pattern=pattern))
    regex = re.escape(text).replace(r"\{ref\}", r"(?P<ref>[^/]+)")
    return re.compile(regex.replace(r"\{path\}", r"(?P<path>[^?#]+)"))


# GitHub serves a branch or tag under refs/heads/<branch> or refs/tags/<tag> as under its bare
# name: the same file, so the same library answers for both.
_GITHUB_FULL_REF = re.compile(
    r"^(https?://raw\.githubusercontent\.com/[^/]+/[^/]+/)refs/(?:heads|tags)/"
)


def equivalent(url: str) -> str:
    """``url`` as the library patterns spell it (a GitHub raw URL by its short ref)."""
    return _GITHUB_FULL_REF.sub(r"\1", url.strip(), count=1)


@dataclass(frozen=True)
class TypeLibrary:
    """One library: its files (path -> YAML text) and the URL patterns it answers for."""

    name: str
    version: str = ""
    patterns: tuple[str, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)

    def match(self, url: str) -> str | None:
        """The file path ``url`` names in this library, or ``None``; literal refs rank first."""
        for pattern in sorted(self.patterns, key=lambda p: "{ref}" in p):
            found = compile_pattern(pattern).fullmatch(equivalent(url))
            if found and ".." not in found["path"].split("/"):
                return found["path"]
        return None

    def literal_ref(self, url: str) -> str | None:
        """The ref a literal-ref pattern answering for ``url`` names (the URL segment before
        the file path, such as ``master`` or ``v4.0.1``), or ``None``."""
        for pattern in self.patterns:
            if "{ref}" not in pattern and compile_pattern(pattern).fullmatch(equivalent(url)):
                return pattern.split("{path}", 1)[0].rstrip("/").rsplit("/", 1)[-1] or None
        return None

    def specificity(self, url: str) -> int:
        """2 when a literal-ref pattern answers for ``url``, 1 for a ``{ref}`` one, else 0."""
        for pattern in self.patterns:
            if compile_pattern(pattern).fullmatch(equivalent(url)):
                return 1 if "{ref}" in pattern else 2
        return 0


@dataclass(frozen=True)
class Resolved:
    """Where an import URL leads: a file of a library."""

    url: str
    library: TypeLibrary
    path: str

    @property
    def text(self) -> str:
        return self.library.files[self.path]


class LibrarySet:
    """The libraries the portal validates against, in order of preference."""

    def __init__(self, libraries: Iterable[TypeLibrary] = ()):
        self.libraries = list(libraries)

    def __bool__(self) -> bool:
        return bool(self.libraries)

    def names(self) -> list[str]:
        return [library.name for library in self.libraries]

    def get(self, name: str) -> TypeLibrary | None:
        return next((lib for lib in self.libraries if lib.name == name), None)

    def resolve(self, url: str, prefer: TypeLibrary | None = None) -> Resolved | None:
        """The library file ``url`` stands for, or ``None`` when no library holds it.

        Only libraries whose URL patterns answer for ``url`` are considered, as the
        orchestrator fetches the very URL an import names: another library holding a file of
        the same name (another branch, another fork) never stands in for it. A literal-ref
        pattern beats a ``{ref}`` one; among equals, ``prefer`` (a pinned library) wins, then
        the order of the set.
        """
        candidates = []
        for position, library in enumerate(self.libraries):
            path = library.match(url)
            if path is not None and path in library.files:
                rank = (-library.specificity(url), library is not prefer, position)
                candidates.append((rank, library, path))
        if not candidates:
            return None
        _rank, library, path = min(candidates, key=lambda c: c[0])
        return Resolved(url, library, path)


def is_branch(ref: str | None) -> bool:
    """Whether ``ref`` reads as a branch (which moves on), not a tag or a commit."""
    return bool(ref) and not _FIXED_REF.fullmatch(ref)


def nested_imports(document: dict) -> list[str]:
    """The import URLs (or relative paths) a type file names, in order."""
    raw = document.get("imports") if isinstance(document, dict) else None
    found = []
    for item in raw if isinstance(raw, list) else [raw] if raw else []:
        entry = item
        if isinstance(item, dict) and len(item) == 1 and "file" not in item:
            (entry,) = item.values()
        if isinstance(entry, dict):
            entry = entry.get("file")
        if isinstance(entry, str):
            found.append(entry)
    return found


def absolute(reference: str, base_url: str) -> str:
    """An import as an absolute URL: relative paths count from the importing file's URL."""
    if urlsplit(reference).scheme:
        return reference
    return urljoin(base_url, reference)


def from_folder(types_dir: str | Path) -> LibrarySet:
    """The shipped libraries described by ``versions.yaml`` in ``types_dir``.

    Each version folder becomes a library answering for the refs that ``versions.yaml`` maps
    to it; the newest also answers for any other ref. Raises ``LibraryError`` when the folder
    or its ``versions.yaml`` can't be used.
    """
    directory = Path(types_dir)
    try:
        data = yaml.safe_load((directory / "versions.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise LibraryError(f"Can't read {directory / 'versions.yaml'}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("versions"), dict):
        raise LibraryError("versions.yaml needs a 'versions' mapping, newest first.")
    names = [str(name) for name in data["versions"]]
    patterns: dict[str, list[str]] = {name: [] for name in names}
    for entry in data.get("imports") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise LibraryError("Each versions.yaml import needs a 'url'.")
        url = entry["url"].replace("{file}", "{path}")
        for ref, version in (entry.get("refs") or {}).items():
            if version not in patterns:
                raise LibraryError(f"versions.yaml maps {ref} to an unknown version {version}.")
            patterns[version].append(url.replace("{ref}", str(ref)))
        if names:
            patterns[names[0]].append(url)
    libraries = []
    for name in names:
        info = data["versions"][name] if isinstance(data["versions"][name], dict) else {}
        libraries.append(
            TypeLibrary(
                name=name,
                version=str(info.get("source") or ""),
                patterns=tuple(patterns[name]),
                files=read_files(directory / name),
            )
        )
    return LibrarySet(libraries)


def read_files(folder: Path) -> dict[str, str]:
    """Every YAML file under ``folder`` by its relative path; unreadable files are left out."""
    files = {}
    for path in sorted(folder.rglob("*.y*ml")):
        if path.suffix in (".yaml", ".yml") and path.is_file():
            try:
                files[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
    return files
