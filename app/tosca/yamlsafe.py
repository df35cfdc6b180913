"""Reading untrusted YAML (templates and their sidecars) under explicit limits.

``load_yaml`` has ``yaml.safe_load`` semantics (plain data only: no Python tags) and adds what
safe_load lacks for text that comes from outside: a size limit, a nesting limit, a limit on
aliases and on what they expand to (the "billion laughs" attack), and errors that name the line
they occurred on.

A key given twice in one mapping is refused where the portal owns the format (sidecars:
``strict_keys``). In a template the later one counts, as it does for the orchestrator's YAML
reader and for PyYAML: published templates repeat input definitions, and refusing them would
keep deployable applications out of the catalogue. Callers that report it pass a list as
``duplicates``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from app.tosca.wording import N_, english, said, translated

# Shared (aliased) subtrees cost nothing in memory when loaded, but anything that walks the data
# afterwards (tosca-parser, JSON encoding) visits every copy; this caps the expanded node count.
MAX_EXPANDED_NODES = 200_000


_SPECIAL_KEY_TAGS = {"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"}


class TemplateError(ValueError):
    """A template or sidecar can't be read; ``message`` is for a person, ``line`` is 1-based.

    ``msgid`` and ``params``, when given, say it again in words translated where it is shown
    (see ``wording``); ``of`` builds both from them.
    """

    def __init__(
        self, message: str, line: int | None = None, msgid: str = "", params: dict | None = None
    ):
        super().__init__(message)
        self.message = message
        self.line = line
        self.msgid, self.params = msgid, params or {}

    @classmethod
    def of(cls, msgid: str, line: int | None = None, **params: Any) -> TemplateError:
        return cls(english(msgid, params), line, msgid, params)

    def said(self) -> dict | str:
        """The message as a value inside another (see ``wording.said``)."""
        return {"msgid": self.msgid, "params": self.params} if self.msgid else self.message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


def _line(mark) -> int | None:
    return mark.line + 1 if mark is not None else None


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that counts nesting depth and aliases while composing, and finds keys given
    twice: refused when ``strict_keys``, else recorded in ``duplicates`` (the later one wins)."""

    def __init__(self, stream, max_depth: int, max_aliases: int, strict_keys: bool = True):
        super().__init__(stream)
        self._max_depth = max_depth
        self._max_aliases = max_aliases
        self._depth = 0
        self._aliases = 0
        self._strict_keys = strict_keys
        self.duplicates: list[Problem] = []

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > self._max_aliases:
                raise TemplateError.of(
                    N_("The file uses more than %(limit)d aliases (*name references)."),
                    _line(self.peek_event().start_mark),
                    limit=self._max_aliases,
                )
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > self._max_depth:
                raise TemplateError.of(
                    N_("The file is nested more than %(limit)d levels deep."),
                    _line(self.peek_event().start_mark),
                    limit=self._max_depth,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, MappingNode):
            seen: dict = {}
            for key_node, _value in node.value:
                if isinstance(key_node, ScalarNode) and key_node.tag not in _SPECIAL_KEY_TAGS:
                    key = self.construct_object(key_node)
                    line = _line(key_node.start_mark)
                    _check_indentation(key, key_node, line)
                    if key in seen:
                        if self._strict_keys:
                            raise TemplateError.of(
                                N_('The key "%(key)s" appears twice in the same mapping.'),
                                line,
                                key=str(key),
                            )
                        self.duplicates.append(
                            Problem.of(
                                N_(
                                    'The key "%(key)s" appears twice in the same mapping (first on '
                                    "line %(first)d); the one on line %(later)d counts."
                                ),
                                line,
                                key=str(key),
                                first=seen[key],
                                later=line,
                            )
                        )
                    seen.setdefault(key, line)
        return super().construct_mapping(node, deep=deep)


def _check_indentation(key: Any, key_node: ScalarNode, line: int | None) -> None:
    """Refuse a key indented with a space YAML does not count as indentation.

    YAML indents with ASCII spaces only: a no-break space (U+00A0, as pasted from a web page
    or a word processor) is read as part of the key, which then silently leaves the mapping it
    appears to be in (an output moves out of ``outputs:``). The orchestrator's reader does the
    same, so the template would not be what it looks like.
    """
    if not isinstance(key, str) or key_node.style is not None or not key[:1].isspace():
        return
    raise TemplateError.of(
        N_(
            "Line %(number)d is indented with %(code)s, a space that YAML does not count as "
            "indentation (such as the no-break space that web pages and word processors paste): "
            'the key "%(key)s" is read outside the mapping it appears to be in. Indent it with '
            "ordinary spaces."
        ),
        line,
        number=line or 0,
        code=f"U+{ord(key[0]):04X}",
        key=key.strip(),
    )


def _expanded_size(root: Node) -> int:
    """Count the nodes a full traversal would visit, with aliased subtrees counted per use."""
    sizes: dict[int, int] = {}
    # Iterative post-order walk: depth is already bounded, but this stays safe regardless.
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children: list[Node] = []
        if isinstance(node, SequenceNode):
            children = list(node.value)
        elif isinstance(node, MappingNode):
            children = [part for pair in node.value for part in pair]
        if done or not children:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
            if sizes[id(node)] > MAX_EXPANDED_NODES:
                raise TemplateError.of(
                    N_("The file's aliases expand to too much data (more than %(limit)d values)."),
                    _line(node.start_mark),
                    limit=MAX_EXPANDED_NODES,
                )
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)]


def _line_index(root: Node) -> dict[tuple, int]:
    """Map each key path (and list position) to the 1-based line where it starts."""
    index: dict[tuple, int] = {}
    stack: list[tuple[Node, tuple]] = [(root, ())]
    visited: set[int] = set()
    while stack:
        node, path = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, ScalarNode):
                    child = (*path, key_node.value)
                    # A key given twice: the later one counts, so its line is the one to show.
                    index[child] = _line(key_node.start_mark)
                    stack.append((value_node, child))
        elif isinstance(node, SequenceNode):
            for position, item in enumerate(node.value):
                child = (*path, position)
                index.setdefault(child, _line(item.start_mark))
                stack.append((item, child))
    return index


def load_yaml_lines(
    text: str | bytes,
    *,
    max_bytes: int,
    max_depth: int,
    max_aliases: int,
    strict_keys: bool = True,
    duplicates: list[Problem] | None = None,
) -> tuple[dict, dict[tuple, int]]:
    """Parse ``text`` like ``load_yaml`` and also return where each key is.

    The second value maps key paths such as ``("topology_template", "inputs", "num_cpus")`` to
    1-based line numbers (of the later key, where one is given twice). Raises ``TemplateError``
    as ``load_yaml`` does; without ``strict_keys`` a key given twice is not an error but is
    added to ``duplicates`` when that list is passed.
    """
    size = len(text.encode("utf-8") if isinstance(text, str) else text)
    if size > max_bytes:
        raise TemplateError.of(
            N_("The file is too large: %(size)d bytes, the limit is %(limit)d bytes."),
            size=size,
            limit=max_bytes,
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise TemplateError.of(N_("The file is not valid UTF-8 text.")) from error

    loader = _LimitedLoader(
        text, max_depth=max_depth, max_aliases=max_aliases, strict_keys=strict_keys
    )
    try:
        root = loader.get_single_node()
        if root is None:
            raise TemplateError.of(N_("The file is empty."), 1)
        if not isinstance(root, MappingNode):
            raise TemplateError.of(
                N_("The file must be a YAML mapping (key: value pairs) at the top level."),
                _line(root.start_mark),
            )
        _expanded_size(root)
        data = loader.construct_document(root)
        if duplicates is not None:
            duplicates.extend(loader.duplicates)
        return data, _line_index(root)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "invalid YAML"
        if isinstance(error, yaml.constructor.ConstructorError) and "tag" in problem:
            problem = said(
                N_("unsupported tag: only plain YAML data is allowed (%(tag)s)"),
                tag=problem.split("tag", 1)[1].strip(),
            )
        raise TemplateError.of(
            N_("The file is not valid YAML: %(problem)s."), _line(mark), problem=problem
        ) from error
    except yaml.YAMLError as error:
        raise TemplateError.of(
            N_("The file is not valid YAML: %(problem)s."), problem=str(error)
        ) from error
    except RecursionError as error:
        raise TemplateError.of(N_("The file is nested too deeply.")) from error
    finally:
        loader.dispose()


def load_yaml(text: str | bytes, *, max_bytes: int, max_depth: int, max_aliases: int) -> dict:
    """Parse untrusted YAML text into plain data; the top level must be a mapping.

    Raises ``TemplateError`` (with the line number where one is known) for text over
    ``max_bytes``, nesting deeper than ``max_depth``, more than ``max_aliases`` aliases or
    aliases that expand to too much data, duplicate keys, Python-specific or unknown tags,
    syntax errors, an empty file and a top level that is not a mapping.
    """
    data, _lines = load_yaml_lines(
        text, max_bytes=max_bytes, max_depth=max_depth, max_aliases=max_aliases
    )
    return data


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a template (or warning about it), for the people who curate it.

    ``line`` is 1-based; ``source`` says which file it refers to: "template" or "sidecar";
    ``code`` names the row of ``leniency.LENIENCIES`` a warning comes from, if any.
    ``message`` is in English (the command line's and the logs' words); ``msgid`` and ``params``
    keep it translatable, so that ``shown`` speaks the language of the admin reading it.
    """

    message: str
    line: int | None = None
    source: str = "template"
    code: str = ""
    msgid: str = ""
    params: dict = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def of(
        cls, msgid: str, line: int | None = None, source: str = "template", code: str = "", **params
    ) -> Problem:
        """A problem in words to translate: ``msgid`` marked with ``N_``, filled by ``params``."""
        return cls(english(msgid, params), line, source, code, msgid, params)

    @classmethod
    def from_error(cls, error: TemplateError, source: str = "template") -> Problem:
        return cls(error.message, error.line, source, "", error.msgid, error.params)

    @property
    def shown(self) -> str:
        """The message in the reader's language. One stored without ``msgid`` (by an older
        portal, or not written for translation) is looked up as it reads: its words are
        translated when it has no values in it, and shown as they are otherwise."""
        return translated(self.msgid, self.params) if self.msgid else translated(self.message, {})

    def said(self) -> dict:
        """This problem's words as a value inside another message (see ``wording.said``)."""
        return {"msgid": self.msgid, "params": self.params} if self.msgid else self.message

    def __str__(self) -> str:
        where = f"{self.source}, line {self.line}: " if self.line else ""
        return where + self.message


@dataclass(frozen=True)
class Limits:
    """The limits ``load_yaml`` applies; defaults match ``config/defaults.py``."""

    max_bytes: int = 512 * 1024
    max_depth: int = 40
    max_aliases: int = 50

    @classmethod
    def from_config(cls, config) -> Limits:
        """Read TEMPLATE_MAX_BYTES/DEPTH/ALIASES from a Flask config (or any mapping)."""
        return cls(
            max_bytes=int(config.get("TEMPLATE_MAX_BYTES", cls.max_bytes)),
            max_depth=int(config.get("TEMPLATE_MAX_DEPTH", cls.max_depth)),
            max_aliases=int(config.get("TEMPLATE_MAX_ALIASES", cls.max_aliases)),
        )

    def load(
        self,
        text: str | bytes,
        *,
        strict_keys: bool = False,
        duplicates: list[Problem] | None = None,
    ) -> tuple[dict, dict[tuple, int]]:
        """``load_yaml_lines`` under these limits. A template by default: a key given twice
        counts once, the later one, as for the orchestrator; sidecars pass ``strict_keys``."""
        return load_yaml_lines(
            text,
            max_bytes=self.max_bytes,
            max_depth=self.max_depth,
            max_aliases=self.max_aliases,
            strict_keys=strict_keys,
            duplicates=duplicates,
        )
