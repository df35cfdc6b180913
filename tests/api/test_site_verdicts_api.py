"""The API's dry run says, per site, whether the request fits there (verdict, binding
constraint in words, the numbers' source and age); a launch may name its site, and a site that
cannot be used is refused in words with nothing launched."""

from app.deployments.models import Deployment
from app.extensions import db
from tests.launch.site_support import add_site, two_sites


def _dry(caller, **body):
    return caller.post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "test-notebook", "parameters": {"num_cpus": 4, "jupyter_password": "x"}}
        | body,
    )


def _launch(caller, **body):
    return caller.post(
        "/api/v1/deployments",
        json={
            "template": "test-notebook",
            "name": "api-1",
            "parameters": {"num_cpus": 2, "jupyter_password": "x"},
        }
        | body,
    )


def _count(app) -> int:
    with app.app_context():
        return db.session.scalar(db.select(db.func.count(Deployment.id)))


def test_the_dry_run_lists_each_sites_verdict(callers, app):
    two_sites(app)
    ada = callers("ada")
    answer = _dry(ada)
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert [(s["site"], s["verdict"]) for s in body["sites"]] == [
        ("RECAS-BARI", "fits"),
        ("CLOUD-CNAF", "does-not-fit"),
    ]
    bari, cnaf = body["sites"]
    assert bari["binding"] is None and bari["source"] == "cluster-stats"
    assert 170 <= bari["age_seconds"] <= 200
    assert cnaf["binding"] == "needs 4 cores, none free at CLOUD-CNAF"
    assert body["placement"]["verdict"] == "fits" and body["placement"]["choosable"] is True
    assert _count(app) == 0


def test_the_dry_run_words_are_in_the_callers_language(callers, app):
    two_sites(app)
    answer = _dry(callers("ada"))
    italian = callers("bea").post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "test-notebook", "parameters": {"num_cpus": 4, "jupyter_password": "x"}},
        headers={"Accept-Language": "it"},
    )
    assert answer.status_code == 200
    cnaf = italian.get_json()["sites"][1]
    assert cnaf["binding"] == "richiede 4 core, disponibilità a CLOUD-CNAF: nessuna"
    assert cnaf["verdict"] == "does-not-fit"  # machines read the same codes in every language


def test_stale_numbers_say_may_not_fit_and_the_quota_alone_refuses(callers, app):
    add_site(app, "OLD", minutes_old=600, cores=0)
    ada = callers("ada")
    [old] = _dry(ada).get_json()["sites"]
    assert old["verdict"] == "may-not-fit"
    assert old["binding"].startswith("the numbers of OLD are old")
    assert ada.launch(parameters={"num_cpus": 4, "jupyter_password": "x"}).status_code == 201


def test_without_any_site_the_dry_run_has_no_sites(callers):
    body = _dry(callers("ada")).get_json()
    assert body["sites"] == [] and body["placement"] is None


def test_a_launch_with_a_site_stores_it_with_the_request(callers, app):
    two_sites(app)
    ada = callers("ada")
    dry = _dry(ada, site="RECAS-BARI").get_json()
    assert dry["placement"]["site"] == "RECAS-BARI"
    assert dry["placement"]["headline"] == "Fits your quota, and RECAS-BARI has room for it."
    answer = _launch(ada, site="RECAS-BARI")
    assert answer.status_code == 201, answer.get_json()
    with app.app_context():
        deployment = db.session.scalar(db.select(Deployment))
        assert deployment.request_options["site"] == "RECAS-BARI"
        assert deployment.request_options["placement"] == "sla-recas-bari"


def test_an_unknown_site_is_refused_in_words(callers, app):
    two_sites(app)
    ada = callers("ada")
    for answer in (_dry(ada, site="NOWHERE"), _launch(ada, site="NOWHERE")):
        assert answer.status_code == 422
        problem = answer.get_json()
        assert problem["type"].endswith("/problems/launch-refused")
        assert problem["detail"] == "There is no site named “NOWHERE”; nothing was launched."
        assert problem["errors"]["site"] == [problem["detail"]]
    assert _count(app) == 0


def test_a_site_of_another_backend_is_refused_in_words(callers, app):
    add_site(app, "IM-SITE", backend="im", placement="cloud-one")
    answer = _launch(callers("ada"), site="IM-SITE")
    assert answer.status_code == 422
    assert "is not reached by the service that runs this application" in answer.get_json()["detail"]
    assert _count(app) == 0


def test_a_site_of_two_lines_is_a_bad_request(callers):
    answer = _launch(callers("ada"), site="A\nB")
    assert answer.status_code == 400


def test_the_openapi_document_describes_the_sites_of_the_dry_run(callers):
    document = callers("ada").get("/api/v1/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    assert set(schemas["SiteVerdict"]["properties"]) >= {
        "site",
        "verdict",
        "binding",
        "age_seconds",
        "source",
    }
    assert schemas["SiteVerdict"]["properties"]["verdict"]["enum"] == [
        "fits",
        "may-not-fit",
        "does-not-fit",
    ]
    assert "site" in schemas["LaunchRequest"]["properties"]
    launch = document["paths"]["/deployments"]["post"]
    assert "sites" in launch["description"] and "DryRun" in launch["description"]
