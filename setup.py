"""Installing the portal compiles its message catalogues (everything else is in setup.cfg).

The compiled ``.mo`` files are not kept in git; a wheel, an editable install and a plain
``pip install .`` each build them from the ``.po`` sources with the code the running portal uses
(``app/catalogues.py``, read here on its own: the portal's dependencies are not installed yet).
"""

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


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


setup(cmdclass={"build_py": BuildWithCatalogues})
