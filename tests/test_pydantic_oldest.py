"""The models against the oldest pydantic the pin allows, as the rest of the suite holds them to the newest.

``pip install`` resolves the newest pydantic below the pin's upper bound, which the whole suite then runs with.
This session installs the pin's lower bound beside it (``pip install --target``, first on ``PYTHONPATH``) and runs
the tests that build, decode, encode, copy and dump models with it, in a process of their own: a decoder that leans
on something a later pydantic added fails here, before a user on that pydantic finds it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
# the tests whose subjects are the models: built by hand, decoded (typed and plain), encoded, compared, dumped
MODEL_TESTS = ("test_typed_construction.py", "test_roundtrip.py", "test_api.py", "test_streams.py",
               "test_offsets_roundtrip.py", "test_golden_corpus.py")


def oldest_pydantic() -> str:
    """The lower bound of the project's pydantic requirement (``pydantic>=2.11,<3`` gives ``2.11.0``)."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        requirements = tomllib.load(f)["project"]["dependencies"]
    pin = next(r for r in requirements if re.match(r"pydantic\b", r))
    low = re.search(r">=\s*([\d.]+)", pin)
    assert low is not None, f"the pydantic requirement {pin!r} has no lower bound"
    parts = low[1].split(".")
    return ".".join(parts + ["0"] * (3 - len(parts)))


@pytest.mark.network
def test_the_models_pass_their_tests_on_the_oldest_pydantic_the_pin_allows(tmp_path):
    version = oldest_pydantic()
    target = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              "--no-warn-conflicts", "--target", str(target), f"pydantic=={version}"],
                             capture_output=True, text=True)
    if install.returncode != 0:
        if os.environ.get("KAFKA_META_REQUIRE_LAB") == "1":  # CI (.ci/run), which has the package index
            pytest.fail(f"pip could not install pydantic {version}: {install.stderr[-1000:]}")
        pytest.skip(f"pip could not install pydantic {version} (no package index here?): {install.stderr[-300:]}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    found = subprocess.run([sys.executable, "-c", "import pydantic; print(pydantic.VERSION)"], env=env,
                           capture_output=True, text=True, check=True)
    assert found.stdout.strip() == version, "the installed pydantic is not the one first on the path"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                          *(f"tests/{name}" for name in MODEL_TESTS)],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, f"with pydantic {version}:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
    assert re.search(r"\d+ passed", run.stdout), run.stdout[-2000:]
