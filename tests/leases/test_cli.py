"""``flask leases show`` and ``flask leases set``: the same rules and history as the pages."""

import pytest

from app.extensions import db
from app.leases.editing import history


@pytest.fixture
def cli(app):
    """The command line, with the templates its tests name in the catalogue."""
    from app.catalogue.models import CatalogueTemplate

    with app.app_context():
        db.session.add_all(
            CatalogueTemplate(slug=slug) for slug in ("gpu-job", "db", "gpu", "cpu", "t")
        )
        db.session.commit()
    return app.test_cli_runner()


def test_a_policy_for_a_template_the_catalogue_does_not_have_is_refused_in_words(app, cli):
    result = cli.invoke(
        args=["leases", "set", "--template", "gpu-jbo", "--default", "8h", "--reason", "typo"]
    )

    assert result.exit_code != 0
    assert "The catalogue has no template named “gpu-jbo”" in result.output
    with app.app_context():
        assert history() == []


def test_set_then_show_names_each_field_and_the_level_that_sets_it(app, cli):
    result = cli.invoke(
        args=[
            "leases",
            "set",
            "--site",
            "--default",
            "2d",
            "--warn",
            "24h,1h",
            "--max-initial",
            "3d",
            "--cap",
            "14d",
            "--reason",
            "GPU time comes back",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "Policy of site: default 2d" in result.output
    result = cli.invoke(
        args=[
            "leases",
            "set",
            "--template",
            "gpu-job",
            "--group",
            "physics",
            "--default",
            "2d",
            "--extend-step",
            "1d",
            "--max-extends",
            "3",
            "--extend-window",
            "2d",
            "--grace",
            "2h",
            "--failed-cleanup",
            "3d",
            "--reason",
            "thesis season",
        ]
    )
    assert result.exit_code == 0, result.output

    shown = cli.invoke(args=["leases", "show", "--template", "gpu-job", "--group", "physics"])

    assert shown.exit_code == 0
    lines = shown.output.splitlines()
    assert lines[0] == "In force for template gpu-job in group physics:"
    assert any(
        line.split()[:2] == ["default", "2d"] and "(template gpu-job in group physics)" in line
        for line in lines
    )
    assert any(line.split()[:2] == ["warn", "1d,1h"] and "(site)" in line for line in lines)
    assert "  expires: yes" in lines
    everything = cli.invoke(args=["leases", "show"])
    assert "template gpu-job in group physics: default 2d" in everything.output
    with app.app_context():
        assert [c.reason for c in history()] == ["thesis season", "GPU time comes back"]


def test_no_expiry_and_unset(app, cli):
    cli.invoke(args=["leases", "set", "--site", "--default", "8h", "--reason", "r"])
    result = cli.invoke(
        args=["leases", "set", "--template", "db", "--no-expiry", "--reason", "a service"]
    )
    assert result.exit_code == 0, result.output
    assert "expires: no" in cli.invoke(args=["leases", "show", "--template", "db"]).output
    cli.invoke(args=["leases", "set", "--template", "db", "--unset", "no-expiry", "--reason", "r"])
    assert "expires: yes" in cli.invoke(args=["leases", "show", "--template", "db"]).output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--site", "--default", "3d", "--cap", "2d"], "longer than the cap"),
        (["--site", "--default", "8 hours"], "write a duration as a number and a unit"),
        (["--site", "--group", "g", "--default", "8h"], "Give exactly one of"),
        (["--template", "t", "--unset", "colour"], "there is no field 'colour'"),
        (["--site"], "Name at least one field"),
    ],
)
def test_bad_input_is_refused_in_words_and_nothing_is_stored(app, cli, args, message):
    result = cli.invoke(args=["leases", "set", *args, "--reason", "r"])
    assert result.exit_code != 0
    assert message in result.output
    with app.app_context():
        assert history() == []
        db.session.rollback()


def test_a_reason_is_required(cli):
    result = cli.invoke(args=["leases", "set", "--site", "--default", "8h"])
    assert result.exit_code != 0 and "--reason" in result.output


def test_if_unset_leaves_a_level_someone_set_alone(app, cli):
    cli.invoke(args=["leases", "set", "--template", "gpu", "--default", "4h", "--reason", "ops"])
    result = cli.invoke(
        args=[
            "leases",
            "set",
            "--template",
            "gpu",
            "--if-unset",
            "--default",
            "8h",
            "--reason",
            "demo",
        ]
    )
    assert result.exit_code == 0 and "already set; left as it is" in result.output
    assert "default         4h" in cli.invoke(args=["leases", "show", "--template", "gpu"]).output
    fresh = cli.invoke(
        args=[
            "leases",
            "set",
            "--template",
            "cpu",
            "--if-unset",
            "--default",
            "8h",
            "--reason",
            "demo",
        ]
    )
    assert "Policy of template cpu: default 8h." in fresh.output
