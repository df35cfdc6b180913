"""How fast the catalogue imports, loads and renders, and how much memory a worker holds.

Figures printed:
- import + validation time of the starter catalogue, of the public INDIGO templates
  (tests/data/tosca-compat), and of a synthetic catalogue of 500 templates (variations of the
  starter ones);
- the time to re-validate every public template after a type library changed;
- the time a fresh worker process takes to load the 500-template catalogue, and the memory it
  then holds (resident set growth);
- median server time of the catalogue page and of the launch page of the largest template.
"""

import json
import logging
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPAT = ROOT / "tests" / "data" / "tosca-compat"
CONFIG = {
    "SECRET_KEY": "bench-" + "x" * 40,
    "TESTING": False,
    "CATALOGUE_RELOAD_SECONDS": 3600,
    "ORCHESTRATOR_URL": "demo",
}


def make_app(db_file: Path):
    from app import create_app
    from app.extensions import db

    app = create_app(
        {**CONFIG, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db_file}"},
        instance_path=str(db_file.parent / "instance"),
    )
    with app.app_context():
        db.create_all()
    # One log line per saved revision would bury the figures.
    logging.getLogger("app.catalogue").setLevel(logging.WARNING)
    return app


def synthetic_folder(target: Path, count: int) -> Path:
    """``count`` templates: the starter ones again and again under new slugs and names."""
    starter = sorted(p for p in (ROOT / "tosca-catalog").glob("*.yaml") if ".portal." not in p.name)
    target.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        source = starter[i % len(starter)]
        slug = f"{source.stem}-{i:03d}"
        shutil.copy(source, target / f"{slug}.yaml")
        sidecar = source.with_name(source.stem + ".portal.yaml")
        if sidecar.exists():
            text = sidecar.read_text().replace("\nname: ", f"\nname: #{i:03d} ", 1)
            (target / f"{slug}.portal.yaml").write_text(text)
    return target


def compat_folder() -> Path | None:
    """The public templates as they are: the import walks their sub-folders itself."""
    return COMPAT if COMPAT.exists() else None


def time_import(app, folder: Path) -> tuple[float, int, int]:
    from app.catalogue.operations import import_folder

    with app.app_context():
        start = time.perf_counter()
        results = import_folder(folder, author="bench")
        elapsed = time.perf_counter() - start
    templates = [result for result in results if result.outcome != "skipped"]
    published = sum(result.outcome == "imported" for result in templates)
    return elapsed, len(templates), published


def time_revalidation(app) -> tuple[float, int]:
    """Re-validate every template against the libraries, as after a library change."""
    from app.catalogue.operations import revalidate_all

    with app.app_context():
        start = time.perf_counter()
        changes = revalidate_all("bench")
        return time.perf_counter() - start, len(changes)


def worker_load(db_file: Path) -> dict:
    """Load the catalogue in a fresh process, as a new gunicorn worker would."""
    code = f"""
import json, time, sys
sys.path.insert(0, {str(ROOT)!r})
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) * 1024
from bench.catalogue import make_app
from pathlib import Path
app = make_app(Path({str(db_file)!r}))
before = rss()
with app.test_request_context():
    from app.catalogue.loader import catalogue
    start = time.perf_counter()
    entries = catalogue().entries()
    elapsed = time.perf_counter() - start
figures = {{"seconds": elapsed, "entries": len(entries), "rss_before": before, "rss_after": rss()}}
print(json.dumps(figures))
"""
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(output.stdout.strip().splitlines()[-1])


def median_render_ms(client, url: str, rounds: int) -> float:
    client.get(url)  # warm caches: form classes, templates
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times)


def largest_template(app) -> str:
    from app.catalogue.loader import catalogue

    with app.test_request_context():
        entries = catalogue().entries()
    return max(entries, key=lambda e: len(e.parsed.inputs)).slug


def render_figures(app, rounds: int) -> dict:
    from app.auth.cli import create_local_user
    from app.auth.operations import grant_role

    with app.app_context():
        user = create_local_user(f"bench-{time.time_ns()}", "bench password 1", "Bench")
        grant_role(user, "admin", "bench")  # admins see every template
        username = user.username
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
    client.post(
        "/login",
        data={
            "csrf_token": token,
            "username": username,
            "password": "bench password 1",
            "method": "local",
        },
    )
    slug = largest_template(app)
    return {
        "catalogue_ms": median_render_ms(client, "/catalogue/", rounds),
        "launch_ms": median_render_ms(client, f"/catalogue/{slug}/", rounds),
        "largest": slug,
    }


def main(quick: bool = False) -> None:
    count = 50 if quick else 500
    rounds = 20 if quick else 100
    with tempfile.TemporaryDirectory(prefix="portal-bench-") as tmp:
        tmp = Path(tmp)
        starter_app = make_app(tmp / "starter.sqlite")
        seconds, total, published = time_import(starter_app, ROOT / "tosca-catalog")
        print(
            f"starter catalogue: imported and validated {total} templates in {seconds:.2f} s "
            f"({published} published, {seconds / total * 1000:.0f} ms each)"
        )
        figures = render_figures(starter_app, rounds)
        print(
            f"starter catalogue: catalogue page median {figures['catalogue_ms']:.1f} ms, "
            f"launch page of {figures['largest']} median {figures['launch_ms']:.1f} ms"
        )

        compat = compat_folder()
        if compat:
            compat_app = make_app(tmp / "compat.sqlite")
            seconds, total, published = time_import(compat_app, compat)
            print(
                f"public INDIGO templates: imported and validated {total} in {seconds:.2f} s "
                f"({published} valid and published, {seconds / total * 1000:.0f} ms each)"
            )
            seconds, revisions = time_revalidation(compat_app)
            print(
                f"public INDIGO templates: re-validating all {revisions} revisions after a "
                f"library change takes {seconds:.2f} s"
            )
        else:
            print("public INDIGO templates: tests/data/tosca-compat not found, skipped")

        big_app = make_app(tmp / "big.sqlite")
        seconds, total, published = time_import(big_app, synthetic_folder(tmp / "big", count))
        print(
            f"synthetic catalogue: imported and validated {total} templates in {seconds:.1f} s "
            f"({seconds / total * 1000:.0f} ms each)"
        )
        load = worker_load(tmp / "big.sqlite")
        grown = (load["rss_after"] - load["rss_before"]) / 2**20
        print(
            f"synthetic catalogue: a fresh worker loads {load['entries']} templates in "
            f"{load['seconds']:.3f} s; its memory grows by {grown:.1f} MiB "
            f"(resident {load['rss_after'] / 2**20:.0f} MiB in all)"
        )
        figures = render_figures(big_app, rounds)
        print(
            f"synthetic catalogue: catalogue page median {figures['catalogue_ms']:.1f} ms, "
            f"launch page of {figures['largest']} median {figures['launch_ms']:.1f} ms"
        )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
