"""python -m tools.docs: every generator in one go. On the checkout (no results folder) every
generated part is up to date and the scorecard's and the measured times are skipped, saying why; a stale block of a copy
of the pages is named and then rewritten; a page without its block is an error naming it."""

import shutil
import subprocess
import sys

from conftest import ROOT


def tools_docs(*args):
    """python -m tools.docs from the repository root, as documented."""
    return subprocess.run(
        [sys.executable, "-m", "tools.docs", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def pages_copy(tmp_path):
    """README.md and docs/ of the checkout, copied under ``tmp_path``."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def test_the_checkout_is_up_to_date(tmp_path):
    run = tools_docs("--check", "--results", str(tmp_path / "no-results"))
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    for name in ("config-reference", "families", "resource-table", "calibration"):
        assert any(line.startswith(f"{name} (") and line.endswith(": up to date") for line in lines), run.stdout
    for name in ("scorecard", "run-times"):
        skipped = [line for line in lines if line.startswith(f"{name} (")]
        assert len(skipped) == 1 and ": skipped: no " in skipped[0] and "needs a finished run" in skipped[0]


def test_a_stale_block_is_named_then_rewritten(tmp_path):
    root = pages_copy(tmp_path)
    families = root / "docs" / "families.md"
    families.write_text(families.read_text().replace("| BERT |", "| BERT (edited) |", 1))
    calibration = root / "docs" / "calibration.md"
    calibration.write_text(calibration.read_text().replace("| as before | 2.7% |", "| as before | 9.9% |", 1))
    assert families.read_text() != (ROOT / "docs" / "families.md").read_text()
    assert calibration.read_text() != (ROOT / "docs" / "calibration.md").read_text()
    args = ["--root", str(root), "--results", str(tmp_path / "no-results")]
    stale = tools_docs("--check", *args)
    assert stale.returncode == 1
    assert "  docs/families.md: families block\n" in stale.stdout
    assert "  docs/calibration.md: calibration block\n" in stale.stdout
    assert "2 generator(s) failed or stale: families, calibration" in stale.stdout
    assert families.read_text() != (ROOT / "docs" / "families.md").read_text()  # --check writes nothing
    written = tools_docs(*args)
    assert written.returncode == 0 and "families (docs/families.md from" in written.stdout
    assert families.read_text() == (ROOT / "docs" / "families.md").read_text()
    assert calibration.read_text() == (ROOT / "docs" / "calibration.md").read_text()
    assert tools_docs("--check", *args).returncode == 0


def test_a_page_without_its_block_is_an_error_naming_it(tmp_path):
    root = pages_copy(tmp_path)
    cluster = root / "docs" / "cluster.md"
    cluster.write_text(cluster.read_text().replace("<!-- resource-table:end -->\n", ""))
    run = tools_docs("--check", "--root", str(root), "--results", str(tmp_path / "no-results"))
    assert run.returncode == 1
    assert (
        "resource-table (docs/cluster.md from analysis/core/resources.py): error: docs/cluster.md: needs one block"
        in (run.stdout)
    )
