"""The smoke config's sources read from the full offline mirror (../shared/data or ATTN_MIRROR) where
there is one: every source fetched and checksum-verified (rule fetch_source) and every corpus
prepared (rule prepare_inputs) by Snakemake, as a user's run starts. What follows reads the
prepared inputs, whatever their origin: the whole smoke DAG runs on the fixture mirror
(tests/e2e/test_workflow_smoke.py), the whole default DAG on this mirror in README's step 1. The GLUE
files are read whole in the fast tier (tests/unit/core/test_glue.py)."""

import json
import subprocess

import pytest

from conftest import SNAKEMAKE, dag_summary, failed_run, smoke_workdir, summary_rows

pytestmark = pytest.mark.slow
READERS = {"fetch_source", "prepare_inputs"}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    setup = smoke_workdir(tmp_path_factory.mktemp("real_mirror"), "shared mirror")
    if setup is None:
        pytest.skip("no full offline mirror (set ATTN_MIRROR or put shared/data beside the repo)")
    work, env, configfiles = setup
    targets = [path for path, rule in summary_rows(dag_summary(work, env, configfiles)) if rule in READERS]
    cmd = [SNAKEMAKE, "--cores", "2", "--configfile", *configfiles, "--", *targets]
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        pytest.fail(failed_run(run, work))
    return work, targets


def test_every_source_is_verified_and_every_corpus_prepared(prepared):
    work, targets = prepared
    sums = [t for t in targets if t.endswith("SHA256SUMS")]
    counts = [t for t in targets if t.endswith(".counts.json")]
    assert len(sums) >= 7 and len(counts) >= 7, targets  # wiki, 4 treebanks, OntoGUM, GAP (+ GLUE's sums)
    for path in targets:
        assert (work / path).is_file() and (work / path).stat().st_size > 0, path
    for path in counts:
        assert json.loads((work / path).read_text()), path  # what was read, kept, cut or skipped
        lines = (work / path.replace(".counts.json", ".jsonl")).read_text().splitlines()
        assert lines and all(json.loads(line) for line in lines), path
