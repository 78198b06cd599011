"""The documentation site builds with warnings as errors, and its API reference lists every public name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import optrules

ROOT = Path(__file__).resolve().parents[1]


def test_the_docs_site_builds_without_a_warning(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "api" / "index.html").read_text(encoding="utf-8")
    assert "to_query" in api and "class=\"doc doc-heading\"" in api  # rendered from the docstrings


def test_the_api_reference_names_every_public_name():
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = {match.rsplit(".", 1)[-1] for match in re.findall(r"^::: ([\w.]+)$", text, re.M)}
    assert sorted(set(optrules.__all__) - documented) == []
