"""A type library file nested hundreds of levels deep is refused as unreadable, in words, rather
than exhausting Python's stack when it is copied for a template's check."""

import pytest

from app.tosca.type_imports import parsed_file
from app.tosca.typelibs import Resolved, TypeLibrary
from app.tosca.yamlsafe import Limits, TemplateError


def resolved(text: str) -> Resolved:
    library = TypeLibrary(name="deep", files={"types.yaml": text})
    return Resolved(url="https://example.org/types.yaml", library=library, path="types.yaml")


def nested(depth: int) -> str:
    return "node_types: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"


@pytest.mark.parametrize("depth", [600, 990, Limits.max_depth + 1])
def test_a_type_file_nested_too_deep_is_refused_in_words(depth):
    with pytest.raises(TemplateError) as refused:
        parsed_file(resolved(nested(depth)))

    assert refused.value.message == (
        f"its lists and mappings nest more than {Limits.max_depth} levels deep."
    )


def test_a_type_file_as_deep_as_allowed_is_read():
    assert parsed_file(resolved(nested(Limits.max_depth)))["node_types"] is not None
