"""Installing the portal compiles its message catalogues and, for a wheel, carries the files it
runs from (everything else is in setup.cfg).

The compiled ``.mo`` files are not kept in git; a wheel, an editable install and a plain
``pip install .`` each build them from the ``.po`` sources with the code the running portal uses
(``app/catalogues.py``, read here on its own: the portal's dependencies are not installed yet).
A wheel (and so a plain ``pip install .``) also carries the templates, static files, config,
migrations, translations and starter catalogue inside the package, in ``app/bundled``, where
``app.config`` looks when they are not beside it.
"""

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("templates", "static", "config", "migrations", "translations", "tosca-catalog")


def _catalogues():
    spec = importlib.util.spec_from_file_location(
        "_portal_catalogues", ROOT / "app" / "catalogues.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithCatalogues(build_py):
    """build_py that first compiles each translations/*/LC_MESSAGES/messages.po that is newer
    than its .mo."""

    def run(self):
        for written in _catalogues().compile_stale(ROOT / "translations"):
            self.announce(f"compiled {written.relative_to(ROOT)}", level=2)
        super().run()
        # An editable install runs from the checkout, which has these files already.
        if not getattr(self, "editable_mode", False):
            self._bundle(Path(self.build_lib) / "app" / "bundled")

    def _bundle(self, target: Path) -> None:
        skipped = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pot")
        for name in BUNDLED:
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(ROOT / name, target / name, ignore=skipped)


setup(cmdclass={"build_py": BuildWithCatalogues})
