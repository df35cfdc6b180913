"""Every TOSCA constraint is enforced on the server, with a message and browser hints."""

import pytest

from app.tosca.constraints import (
    Constraint,
    ConstraintError,
    browser_hints,
    parse_constraints,
    violations,
)


def constraint(raw, type_name="integer") -> Constraint:
    return Constraint.parse(raw, type_name)


@pytest.mark.parametrize(
    ("raw", "type_name", "good", "bad", "message"),
    [
        ({"equal": 4}, "integer", 4, 5, "must be 4"),
        ({"greater_than": 1}, "integer", 2, 1, "must be greater than 1"),
        ({"greater_or_equal": 1}, "integer", 1, 0, "must be at least 1"),
        ({"less_than": 10}, "integer", 9, 10, "must be less than 10"),
        ({"less_or_equal": 10}, "float", 10.0, 10.5, "must be at most 10"),
        ({"in_range": [1, 64]}, "integer", 64, 65, "must be between 1 and 64"),
        ({"in_range": [1, "UNBOUNDED"]}, "integer", 10**9, 0, "must be at least 1"),
        ({"valid_values": [1, 2, 4]}, "integer", 2, 3, "must be one of: 1, 2, 4"),
        ({"valid_values": ["a", "b"]}, "string", "b", "c", "must be one of: a, b"),
        ({"length": 3}, "string", "abc", "ab", "must be exactly 3 characters long"),
        ({"min_length": 2}, "string", "ab", "a", "must be at least 2 characters long"),
        ({"max_length": 2}, "string", "ab", "abc", "must be at most 2 characters long"),
        ({"min_length": 1}, "list", ["x"], [], "must have at least 1 entry"),
        ({"max_length": 1}, "map", {"a": 1}, {"a": 1, "b": 2}, "must have at most 1 entry"),
        (
            {"pattern": "[a-z]+"},
            "string",
            "abc",
            "abc1",
            "is not in the form this field expects; see the description under it",
        ),
        (
            {"greater_or_equal": "1 GB"},
            "scalar-unit.size",
            "1000 MB",
            "999 MB",
            "must be at least 1 GB",
        ),
        (
            {"in_range": ["1 GiB", "2 GiB"]},
            "scalar-unit.size",
            "1073741824 B",
            "1 GB",
            "must be between 1 GiB and 2 GiB",
        ),
        ({"less_than": "1 h"}, "scalar-unit.time", "59 m", "3600 s", "must be less than 1 h"),
        ({"equal": "1 GHz"}, "scalar-unit.frequency", "1000 MHz", "1 MHz", "must be 1 GHz"),
        ({"greater_or_equal": "1.2"}, "version", "1.10", "1.1.9", "must be at least 1.2"),
        (
            {"less_than": "2025-01-01"},
            "timestamp",
            "2024-12-31T23:00:00Z",
            "2025-01-01T00:00:01Z",
            "must be less than 2025-01-01",
        ),
    ],
)
def test_each_constraint_accepts_valid_and_rejects_invalid_values(
    raw, type_name, good, bad, message
):
    rule = constraint(raw, type_name)
    assert rule.is_satisfied(good)
    assert not rule.is_satisfied(bad)
    assert violations([rule], bad) == [message]
    assert violations([rule], good) == []


def test_pattern_must_match_the_whole_value():
    rule = constraint({"pattern": "[0-9]{3}"}, "string")
    assert rule.is_satisfied("123") and not rule.is_satisfied("1234")


def test_string_valid_values_compare_unquoted_yaml_values_as_text():
    assert constraint({"valid_values": [True, False]}, "string").is_satisfied("false")


def test_values_of_the_wrong_type_do_not_satisfy_comparisons():
    assert not constraint({"greater_than": 1}).is_satisfied("many")
    assert not constraint({"min_length": 1}, "string").is_satisfied(5)


@pytest.mark.parametrize(
    ("raws", "type_name", "hints"),
    [
        ([{"in_range": [1, 64]}], "integer", {"min": 1, "max": 64}),
        ([{"greater_than": 0}, {"less_than": 10}], "integer", {"min": 1, "max": 9}),
        ([{"greater_or_equal": 0.5}, {"less_or_equal": 2.5}], "float", {"min": 0.5, "max": 2.5}),
        ([{"greater_or_equal": 1}, {"in_range": [4, 8]}], "integer", {"min": 4, "max": 8}),
        ([{"min_length": 8}, {"max_length": 64}], "string", {"minlength": 8, "maxlength": 64}),
        ([{"length": 4}], "string", {"minlength": 4, "maxlength": 4}),
        ([{"pattern": "[a-z]+"}], "string", {"pattern": "[a-z]+"}),
        ([{"pattern": "(?i)[a-z]+"}], "string", {}),
        ([{"valid_values": [1, 2]}], "integer", {}),
        ([{"greater_or_equal": "1 GB"}], "scalar-unit.size", {}),
    ],
)
def test_constraints_give_browser_hints_where_they_map(raws, type_name, hints):
    assert browser_hints(parse_constraints(raws, type_name)) == hints


@pytest.mark.parametrize(
    ("raw", "type_name", "message"),
    [
        ({"between": [1, 2]}, "integer", 'unknown constraint "between"'),
        ({"in_range": [1]}, "integer", "in_range needs a list of two values"),
        ({"valid_values": []}, "integer", "valid_values needs a non-empty list"),
        ({"min_length": -1}, "string", "min_length needs a whole number"),
        ({"pattern": "("}, "string", "is not a valid expression"),
        ({"greater_than": "lots"}, "scalar-unit.size", "is not a valid scalar-unit.size"),
        ({"equal": 1, "less_than": 2}, "integer", "a single operator"),
    ],
)
def test_malformed_constraints_are_reported(raw, type_name, message):
    with pytest.raises(ConstraintError, match=message):
        Constraint.parse(raw, type_name)


def test_constraints_are_a_list_or_the_mapping_form_the_orchestrator_accepts():
    assert parse_constraints(None, "string") == []
    (constraint,) = parse_constraints({"in_range": [1, 4]}, "integer")
    assert constraint.is_satisfied(2) and not constraint.is_satisfied(5)
    with pytest.raises(ConstraintError):
        parse_constraints("equal 1", "integer")
