"""Line differences between two revisions of a template, ready for a page to render.

The page escapes every line (Jinja autoescaping); this module only classifies them, so that a
template or message holding markup is shown as text, never interpreted.
"""

import difflib
from dataclasses import dataclass

from app.tosca.wording import N_

CONTEXT_LINES = 3


@dataclass(frozen=True)
class DiffLine:
    """One line of a unified diff; ``kind`` is the CSS class: add, del, hunk, file or context."""

    kind: str
    text: str


@dataclass(frozen=True)
class FileDiff:
    """The unified diff of one file (template or sidecar) between two revisions; ``title`` is
    English, translated where it is shown."""

    title: str
    lines: list[DiffLine]
    added: int
    removed: int

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def _kind(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return "context"


def diff_texts(title: str, old: str, new: str, old_label: str, new_label: str) -> FileDiff:
    """The unified diff from ``old`` to ``new``, classified line by line."""
    raw = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=old_label,
        tofile=new_label,
        n=CONTEXT_LINES,
        lineterm="",
    )
    lines = [DiffLine(_kind(line), line) for line in raw]
    return FileDiff(
        title=title,
        lines=lines,
        added=sum(1 for line in lines if line.kind == "add"),
        removed=sum(1 for line in lines if line.kind == "del"),
    )


def diff_revisions(old, new) -> list[FileDiff]:
    """Template and sidecar diffs from revision ``old`` to revision ``new`` (TemplateRevision)."""
    slug = new.template.slug
    old_name, new_name = f"revision {old.number}", f"revision {new.number}"
    return [
        diff_texts(
            N_("Template"),
            old.tosca_text,
            new.tosca_text,
            f"{slug}.yaml ({old_name})",
            f"{slug}.yaml ({new_name})",
        ),
        diff_texts(
            N_("Portal metadata"),
            old.sidecar_text or "",
            new.sidecar_text or "",
            f"{slug}.portal.yaml ({old_name})",
            f"{slug}.portal.yaml ({new_name})",
        ),
    ]
