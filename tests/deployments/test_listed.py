"""My deployments reads its rows as plain tuples of the columns it shows
(app.deployments.listed), decoding their JSON itself: each row holds what the deployment's
record holds, on either database."""

import json

import pytest

from app.auth.models import User
from app.deployments import listed, queries
from app.deployments.presenters import is_web_address
from app.extensions import db

GB = 10**9


@pytest.mark.parametrize(
    "text",
    ['{"cores": 2, "memory": 8000000000}', "{}", "null", '[1, 2.5, "x", true]', ' {"a": 1}', "{} "],
)
def test_a_json_text_decodes_as_json_loads_decodes_it(text):
    assert listed._decoded(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", "nope", "{} x", "{"])
def test_a_text_that_is_not_json_fails_as_json_loads_fails(text):
    with pytest.raises(json.JSONDecodeError) as found:
        listed._decoded(text)
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    assert str(found.value) == str(expected.value)


def test_a_listed_row_holds_what_the_deployment_holds(app, make_deployment, people):
    owner = people.create("row-owner")
    charge = {"cores": 2, "memory": 8 * GB, "disk": 50 * GB, "gpus": 1}
    made = [
        make_deployment(owner, charge=charge, outputs={"node_ip": "10.0.0.1"}),
        make_deployment(owner, charge=charge, outputs={"url": "https://a.example/"}),
        make_deployment(
            owner, charge={}, outputs={}, status="failed", status_reason="No <quota>", site="S"
        ),
    ]
    with app.app_context():
        viewer = db.session.get(User, owner)
        filters = queries.Filters()
        rows = queries.list_page(viewer, filters, 10, plain=True).deployments
        entities = queries.list_page(viewer, filters, 10).deployments
        assert [row.id for row in rows] == [entity.id for entity in entities] == made[::-1]
        for row, entity in zip(rows, entities, strict=True):
            for name in listed.SHOWN_COLUMNS:
                assert getattr(row, name) == getattr(entity, name), name
            assert row.in_progress == entity.in_progress
            assert row.shown_template_name == entity.shown_template_name
            assert row.is_job is False


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://a.example/x", True),
        ("HTTP://a.example", True),
        ("\x01http://a.example", True),
        ("10.0.0.1", False),
        ("cloudadm@10.0.0.1", False),
        ("http:a.example", False),
        ("ftp://a.example", False),
        ("https://", False),
        ("https://a b", False),
        (None, False),
    ],
)
def test_only_an_http_address_with_a_host_is_a_web_address(value, expected):
    assert is_web_address(value) is expected
