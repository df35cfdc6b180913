"""Untrusted YAML is read with safe_load semantics under size, depth and alias limits."""

import pytest

from app.tosca.yamlsafe import Limits, TemplateError, load_yaml, load_yaml_lines

LIMITS = {"max_bytes": 512 * 1024, "max_depth": 40, "max_aliases": 50}

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def rejects(text, **limits) -> TemplateError:
    with pytest.raises(TemplateError) as caught:
        load_yaml(text, **{**LIMITS, **limits})
    return caught.value


def test_plain_yaml_loads_as_data():
    assert load_yaml("a: 1\nb: [x, {c: true}]\n", **LIMITS) == {"a": 1, "b": ["x", {"c": True}]}


def test_line_index_maps_key_paths_to_lines():
    _data, lines = load_yaml_lines("a:\n  b: 1\n  c:\n    - x\n", **LIMITS)
    assert lines[("a",)] == 1 and lines[("a", "b")] == 2 and lines[("a", "c", 0)] == 4


def test_a_billion_laughs_alias_bomb_is_rejected():
    error = rejects(BILLION_LAUGHS)
    assert "aliases" in error.message and error.line is not None


def test_aliases_that_expand_too_far_are_rejected_even_under_the_alias_count():
    error = rejects(BILLION_LAUGHS, max_aliases=1000)
    assert "expand to too much data" in error.message


def test_a_few_aliases_are_fine():
    data = load_yaml("base: &b {x: 1}\nother: *b\n", **LIMITS)
    assert data["other"] == {"x": 1}


def test_files_over_the_size_limit_are_rejected_before_parsing():
    error = rejects("a: " + "x" * 2000 + "\n", max_bytes=1000)
    assert "too large" in error.message and "1000 bytes" in error.message


def test_deep_nesting_is_rejected_with_its_line():
    text = "a:\n" + "".join("  " * n + f"k{n}:\n" for n in range(1, 60)) + "  " * 60 + "v: 1\n"
    error = rejects(text)
    assert "nested more than 40 levels" in error.message and error.line == 40


def test_deep_flow_nesting_is_rejected():
    assert "nested" in rejects("a: " + "[" * 5000 + "]" * 5000).message


@pytest.mark.parametrize("root", ["- a\n- b\n", "just text\n", "42\n"])
def test_a_root_that_is_not_a_mapping_is_rejected(root):
    error = rejects(root)
    assert "mapping" in error.message and error.line == 1


def test_an_empty_file_is_rejected():
    assert "empty" in rejects("  \n# nothing\n").message


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system ['echo hacked']",
        "!!python/name:os.system",
        "!!python/object:collections.OrderedDict {}",
        "!custom thing",
    ],
)
def test_unsafe_and_unknown_tags_are_rejected_with_their_line(tag):
    error = rejects(f"ok: 1\nbad: {tag}\n")
    assert "only plain YAML data" in error.message and error.line == 2


def test_duplicate_keys_are_rejected_with_the_second_line():
    error = rejects("a: 1\nb:\n  c: 1\n  c: 2\n")
    assert error.message == 'The key "c" appears twice in the same mapping.'
    assert error.line == 4


def test_merge_keys_still_work():
    assert load_yaml("base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n", **LIMITS)["c"] == {"x": 1, "y": 2}


def test_syntax_errors_name_their_line():
    error = rejects("a: 1\nb: [1, 2\nc: 3\n")
    assert error.message.startswith("The file is not valid YAML") and error.line == 3
    assert str(error).startswith("line 3: ")


def test_text_that_is_not_utf8_is_rejected():
    assert "UTF-8" in rejects(b"a: \xff\xfe\n").message


def test_limits_come_from_the_portal_config():
    limits = Limits.from_config(
        {"TEMPLATE_MAX_BYTES": 10, "TEMPLATE_MAX_DEPTH": 3, "TEMPLATE_MAX_ALIASES": 1}
    )
    assert limits == Limits(10, 3, 1)
    with pytest.raises(TemplateError, match="too large"):
        limits.load("a: 123456789\n")
