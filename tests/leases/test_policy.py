"""Lease policies: the levels combine field by field (the most specific level that sets a
field wins), contradictions are refused in words, and every change is kept with who, when, the
fields before and after, and why."""

import pytest

from app.catalogue.models import CatalogueTemplate
from app.extensions import db
from app.leases.editing import UNSET, history, parse_field, set_policy
from app.leases.errors import InvalidPolicy
from app.leases.policy import resolve


@pytest.fixture
def context(app):
    """An app context whose catalogue has the templates these tests name."""
    with app.app_context():
        db.session.add_all(CatalogueTemplate(slug=slug) for slug in ("gpu-job", "database"))
        db.session.commit()
        yield
        db.session.rollback()


def _set(template=None, group=None, reason="test", **texts):
    changes = {key: UNSET if text == "" else parse_field(key, text) for key, text in texts.items()}
    return set_policy(None, template, group, changes, reason)


def test_nothing_configured_means_nothing_expires(context):
    policy = resolve("gpu-job", "physics")
    assert policy.values == {} and not policy.expires


def test_the_most_specific_level_wins_field_by_field(context):
    _set(default="8h", warn="1h,10m", cap="14d", grace="2h")
    _set(group="physics", default="1d", cap="7d")
    _set(template="gpu-job", default="4h", max_initial="2d")
    _set(template="gpu-job", group="physics", default="2h")

    policy = resolve("gpu-job", "physics")
    assert policy.values == {
        "default": 120,
        "max_initial": 2 * 1440,
        "cap": 7 * 1440,
        "warn": [60, 10],
        "grace": 120,
    }
    assert policy.sources["default"] == "template gpu-job in group physics"
    assert policy.sources["max_initial"] == "template gpu-job"
    assert policy.sources["cap"] == "group physics"
    assert policy.sources["grace"] == "site"
    # The template is more specific than the group: its default wins in other groups.
    assert resolve("gpu-job", "chemistry").default == 240
    assert resolve("notebook", "physics").default == 1440
    assert resolve("notebook", None).default == 480


def test_no_expiry_at_a_more_specific_level_stops_expiry(context):
    _set(default="8h")
    _set(template="database", no_expiry="yes")
    assert resolve("notebook", None).expires
    assert not resolve("database", "physics").expires


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (
            {"default": "3d", "cap": "2d"},
            "The default duration (3 days) is longer than the cap (2 days).",
        ),
        ({"default": "8h", "warn": "24h,1h"}, "A warning 1 day before the end comes before"),
        ({"default": "8h", "max_initial": "4h"}, "is longer than the longest initial duration"),
        ({"default": "0m"}, "Default duration cannot be zero."),
        ({"max_extends": "2"}, "no extend step says how long each adds"),
    ],
)
def test_a_policy_that_contradicts_itself_is_refused_in_words(context, texts, message):
    with pytest.raises(InvalidPolicy) as refused:
        _set(**texts)
    assert message in refused.value.message
    assert resolve(None, None).values == {}


def test_a_group_cannot_set_what_contradicts_the_site(context):
    _set(default="8h", warn="1h")
    with pytest.raises(InvalidPolicy, match="A warning 1 hour before the end"):
        _set(group="short", default="30m")


@pytest.mark.parametrize("text", ["8", "h", "8 hours", "-1h", "1.5h", "9999999d", "1w"])
def test_durations_are_written_with_a_unit(context, text):
    with pytest.raises(InvalidPolicy, match="Default duration"):
        parse_field("default", text)


def test_every_change_is_kept_with_who_when_before_after_and_why(context):
    with pytest.raises(InvalidPolicy, match="Say why"):
        _set(default="8h", reason=" ")
    _set(default="8h", reason="GPUs are scarce")
    _set(default="4h", grace="1h", reason="shorter")
    assert _set(default="4h", reason="again") is None  # nothing changed, nothing recorded
    _set(grace="", reason="no grace")

    changes = history()
    assert [(c.old, c.new, c.reason, c.actor_name) for c in changes] == [
        # The command line is nobody in particular: no name kept (worded when shown).
        ({"default": 240, "grace": 60}, {"default": 240}, "no grace", ""),
        ({"default": 480}, {"default": 240, "grace": 60}, "shorter", ""),
        ({}, {"default": 480}, "GPUs are scarce", ""),
    ]
    assert all(c.at is not None for c in changes)
