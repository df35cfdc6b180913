"""One rule turning a GPU model as a source reports it into the name the portal's quotas and
templates use: ``NVIDIA A100-PCIE-40GB`` → ``A100``, ``Tesla T4`` → ``T4``,
``NVIDIA H100 80GB HBM3`` → ``H100``.

The rule, in order:

1. A name listed in the setting GPU_MODEL_NAMES (compared without regard to case or to
   surrounding spaces) becomes what the setting says.
2. Otherwise the reported name is cut into words at spaces, hyphens and underscores (so
   Kubernetes' ``NVIDIA-A100-SXM4-40GB`` label reads like the driver's ``NVIDIA A100-SXM4-40GB``),
   and the maker's and product-line words (NVIDIA, Tesla, GeForce, Quadro, AMD, Instinct) are
   dropped.
3. The model is the first remaining word with a digit in it, in capitals (``A100``, ``L40S``).
   When that word is only digits (``RTX 3090``), the word before it is kept with it.
4. A name with no such word is kept as reported (trimmed); an empty name is the unknown
   model, ``""``.

What follows the model (memory size, form factor such as PCIE or SXM4, HBM3, MIG slices) is
not part of the name: quotas count GPUs of a model, not of a memory size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_WORDS = re.compile(r"[\s\-_]+")
_MAKERS = {"nvidia", "tesla", "geforce", "quadro", "amd", "instinct"}


def portal_model(reported: str | None, names: Mapping[str, str] | None = None) -> str:
    """The portal's name for the GPU model a source calls ``reported`` (see the module's
    rule); ``names`` is GPU_MODEL_NAMES."""
    text = (reported or "").strip()
    if not text:
        return ""
    for key, value in (names or {}).items():
        if key.strip().casefold() == text.casefold():
            return str(value).strip()
    words = [word for word in _WORDS.split(text) if word and word.casefold() not in _MAKERS]
    for index, word in enumerate(words):
        if any(character.isdigit() for character in word):
            if word.isdigit() and index:
                return f"{words[index - 1].upper()} {word}"
            return word.upper()
    return text


def by_portal_model(
    counts: Mapping[str, int], names: Mapping[str, str] | None = None
) -> dict[str, int]:
    """``counts`` per reported model added up per portal model (two reported names, such as
    ``NVIDIA A100-PCIE-40GB`` and ``NVIDIA A100-SXM4-80GB``, may be one model)."""
    found: dict[str, int] = {}
    for reported, count in counts.items():
        model = portal_model(reported, names)
        found[model] = found.get(model, 0) + int(count)
    return found
