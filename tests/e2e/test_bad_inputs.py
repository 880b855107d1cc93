"""Every bad input ends in a clear message or an explicit count, and leaves nothing half-written.

One row per bad input: the input, and what the user must see. A message names the file and line
(or the config key, or the model and what to do); a count is read from the outputs. Each row runs
what the rule's script runs (a reader then the writer of the prepared inputs, the extraction of
a shard, fetching a source, loading a model) in a fresh working directory, and the directories
resources/ and results/ are checked afterwards: no `.part` file, and no output of a step that
failed. The last rows run Snakemake itself (an unknown config key; a malformed treebank brought in
as a local source).
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
import sys
import urllib.error
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from conftest import WORKFLOW, copy_into

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))

# a well-formed three-word sentence in each treebank format; rows break one thing in it
CONLLX = "1\tThe\t_\tDT\tDT\t_\t2\tdet\t_\t_\n2\tdog\t_\tNN\tNN\t_\t3\tnsubj\t_\t_\n3\tbarks\t_\tVBZ\tVBZ\t_\t0\troot\t_\t_\n"
CONLLU = "# sent_id = s1\n" + CONLLX.replace("\tDT\tDT\t", "\tDET\tDT\t")
DP = "The\tDT\t2\ndog\tNN\t3\nbarks\tVBZ\t0\n"
CONLL2012 = (
    "#begin document (d); part 000\n"
    "d  0  0  John  NNP  *  -  -  -  s  *  *  (1)\n"
    "d  0  1  left  VBD  *  -  -  -  s  *  *  -\n"
    "d  0  2  and  CC  *  -  -  -  s  *  *  -\n"
    "d  0  3  he  PRP  *  -  -  -  s  *  *  (1)\n"
    "d  0  4  smiled  VBD  *  -  -  -  s  *  *  -\n"
    "\n#end document\n"
)
RTE = "index\tsentence1\tsentence2\tlabel\n0\tA man sleeps .\tA man rests .\tentailment\n"
LONG_SENTENCE = "".join(f"{i}\tword\t_\tNN\tNN\t_\t{0 if i == 1 else 1}\tdep\t_\t_\n" for i in range(1, 41))


def swap(text: str, line: int, old: str, new: str) -> str:
    """``text`` with ``old`` replaced by ``new`` on (1-based) line ``line``."""
    lines = text.splitlines(keepends=True)
    assert old in lines[line - 1], (line, old)
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    return "".join(lines)


@dataclass
class Case:
    name: str  # the bad input
    run: str  # what runs it: reader | extract | fetch | local | model | snakemake
    files: dict = field(default_factory=dict)  # file name (under the source folder) -> text or bytes
    options: dict = field(default_factory=dict)  # what the step is given (reader and options, policy...)
    message: str | None = None  # the error must match this (regex; {dir} = the source folder)
    counts: dict | None = None  # or the outputs must hold these counts


def conllx(**kw):
    return {"reader": "conllx", "files": "*.conll10", **kw}


CASES = [
    # ---- CoNLL-X (GUM-SD, a user's PTB converted to Stanford dependencies)
    Case("CoNLL-X: 9 columns", "reader", {"d.conll10": swap(CONLLX, 2, "\t_\t_\n", "\t_\n")}, conllx(),
         r"{dir}/d\.conll10:2: 9 tab-separated columns, CoNLL-X needs 10"),
    Case("CoNLL-X: head not an integer", "reader", {"d.conll10": swap(CONLLX, 2, "\t3\t", "\tx\t")}, conllx(),
         r"{dir}/d\.conll10:2: head 'x' is not an integer"),
    Case("CoNLL-X: head out of range", "reader", {"d.conll10": swap(CONLLX, 2, "\t3\t", "\t7\t")}, conllx(),
         r"{dir}/d\.conll10:2: head 7 out of range 0\.\.3"),
    Case("CoNLL-X: cycle", "reader", {"d.conll10": swap(CONLLX, 2, "\t3\t", "\t1\t")}, conllx(),
         r"{dir}/d\.conll10:[12]: cycle in the dependency tree"),
    Case("CoNLL-X: no root", "reader", {"d.conll10": swap(CONLLX, 3, "\t0\t", "\t1\t")}, conllx(),
         r"{dir}/d\.conll10:1: sentence has no root"),
    # ---- CoNLL-U (UD treebanks)
    Case("CoNLL-U: 11 columns", "reader", {"t.conllu": swap(CONLLU, 3, "\t_\t_\n", "\t_\t_\t_\n")},
         {"reader": "conllu"}, r"{dir}/t\.conllu:3: 11 tab-separated columns, CoNLL-U needs 10"),
    Case("CoNLL-U: head not an integer", "reader", {"t.conllu": swap(CONLLU, 3, "\t3\t", "\tx\t")},
         {"reader": "conllu"}, r"{dir}/t\.conllu:3: head 'x' is not an integer"),
    Case("CoNLL-U: head out of range", "reader", {"t.conllu": swap(CONLLU, 3, "\t3\t", "\t9\t")},
         {"reader": "conllu"}, r"{dir}/t\.conllu:3: head 9 out of range 0\.\.3"),
    Case("CoNLL-U: cycle", "reader", {"t.conllu": swap(CONLLU, 3, "\t3\t", "\t1\t")},
         {"reader": "conllu"}, r"{dir}/t\.conllu:[23]: cycle in the dependency tree"),
    Case("CoNLL-U: no root", "reader", {"t.conllu": swap(CONLLU, 4, "\t0\t", "\t2\t")},
         {"reader": "conllu"}, r"{dir}/t\.conllu:2: sentence has no root"),
    # ---- NLTK's .dp (the WSJ sample): 'word TAG head'
    Case(".dp: 2 columns", "reader", {"w.dp": swap(DP, 2, "\t3\n", "\n")}, {"reader": "dp"},
         r"{dir}/w\.dp:2: 2 columns, a \.dp line is 'word TAG head'"),
    Case(".dp: head not an integer", "reader", {"w.dp": swap(DP, 2, "\t3", "\tx")}, {"reader": "dp"},
         r"{dir}/w\.dp:2: head 'x' is not an integer"),
    Case(".dp: head out of range", "reader", {"w.dp": swap(DP, 2, "\t3", "\t5")}, {"reader": "dp"},
         r"{dir}/w\.dp:2: head 5 out of range 0\.\.3"),
    Case(".dp: cycle", "reader", {"w.dp": swap(DP, 2, "\t3", "\t1")}, {"reader": "dp"},
         r"{dir}/w\.dp:[12]: cycle in the dependency tree"),
    Case(".dp: no root", "reader", {"w.dp": swap(DP, 3, "\t0", "\t1")}, {"reader": "dp"},
         r"{dir}/w\.dp:1: sentence has no root"),
    # ---- bytes and emptiness
    Case("non-UTF-8 byte in a treebank", "reader", {"d.conll10": swap(CONLLX, 2, "dog", "d\xf6g").encode("latin-1")},
         conllx(), r"{dir}/d\.conll10:2: not UTF-8 text \(byte 0xf6 at column 4\)"),
    Case("non-UTF-8 byte in a CoNLL-2012 file", "reader",
         {"a_gold_conll": swap(CONLL2012, 4, "and", "\xe9t").encode("latin-1")}, {"reader": "conll2012"},
         r"{dir}/a_gold_conll:4: not UTF-8 text \(byte 0xe9"),
    Case("non-UTF-8 byte in a GLUE file", "reader", {"RTE/dev.tsv": swap(RTE, 2, "sleeps", "sl\xe9eps").encode("latin-1")},
         {"reader": "glue", "task": "RTE"}, r"{dir}/RTE/dev\.tsv:2: not UTF-8 text"),
    Case("empty treebank file", "reader", {"d.conll10": CONLLX, "e.conll10": ""}, conllx(),
         r"{dir}/e\.conll10: empty file \(no sentence\)"),
    Case("empty CoNLL-2012 file", "reader", {"a_gold_conll": CONLL2012, "b_gold_conll": "\n"}, {"reader": "conll2012"},
         r"{dir}/b_gold_conll: no document"),
    Case("empty document (CoNLL-2012)", "reader",
         {"a_gold_conll": CONLL2012 + "#begin document (e); part 000\n#end document\n"}, {"reader": "conll2012"},
         counts={"documents_empty": 1, "documents_used": 1}),
    # ---- too long for max_len (16 word pieces; the sentence has 40 words): each policy
    Case("sentence > max_len, policy split", "extract", {"d.conll10": LONG_SENTENCE}, {"policy": "split"},
         counts={"too_long": 1, "split_into": 3, "examples": 3}),
    Case("sentence > max_len, policy truncate", "extract", {"d.conll10": LONG_SENTENCE}, {"policy": "truncate"},
         counts={"too_long": 1, "truncated": 1, "examples": 1}),
    Case("sentence > max_len, policy error", "extract", {"d.conll10": LONG_SENTENCE}, {"policy": "error"},
         r"example d:0: 42 word pieces > max_len 16"),
    # ---- coreference and GLUE
    Case("unbalanced coreference bracket", "reader", {"a_gold_conll": swap(CONLL2012, 5, "(1)", "(1")},
         {"reader": "conll2012"}, r"{dir}/a_gold_conll:5: .*(unclosed|unbalanced|never closed)"),
    Case("GLUE row with missing fields", "reader", {"RTE/dev.tsv": RTE + "1\tOnly one sentence\n"},
         {"reader": "glue", "task": "RTE"}, r"{dir}/RTE/dev\.tsv:3: 2 tab-separated columns, RTE needs 4"),
    # ---- models and sources, with no network
    Case("unknown model id, no network", "model", options={"model": "no-such-org/no-such-bert"},
         message=r"model 'no-such-org/no-such-bert': cannot be loaded.*set `model:` to that directory"),
    Case("local model directory mistyped", "model", options={"model": "./models/my-bret"},
         message=r"model './models/my-bret': no such directory"),
    Case("missing mirror folder, no network", "fetch", {"a.txt": "hello\n"}, {"mirror_folder": "not-here"},
         r"source 'demo', file a\.txt: the mirror folder .*/mirror/not-here does not exist, and downloading "
         r"https://example\.org/a\.txt failed \(.*Name or service not known.*ATTN_MIRROR or `mirror:`"),
    Case("checksum mismatch (mirror)", "fetch", {"a.txt": "tampered\n"}, {"mirror_folder": "src"},
         r"a\.txt from .*: sha256 mismatch: expected 5891b5b5\w{56}, got 92e78d0b\w{56}"),
    Case("checksum mismatch (local source changed since first use)", "local", {"a.conllu": CONLLU},
         {"change": {"a.conllu": CONLLU.replace("dog", "cat")}},
         r"{dir}/a\.conllu: changed: sha256 recorded \w{64}, now \w{64}.*rm resources/raw/mine/SHA256SUMS"),
    Case("file added to a local source", "local", {"a.conllu": CONLLU}, {"change": {"b.conllu": CONLLU}},
         r"b\.conllu: new file .*not in the record"),
    # ---- models the workflow cannot analyse: refused in the dry run, from their config.json alone, by
    # the sentence alone (no traceback of the Snakefile under it)
    Case("decoder model (a GPT-2 directory)", "snakemake", {"gpt2/config.json": '{"model_type": "gpt2", "n_layer": 2}'},
         {"overlay": {"model": "{dir}/gpt2"}, "alone": True},
         r"model '{dir}/gpt2' is a decoder \(causal LM\): model type 'gpt2' has no masked-LM form in transformers"),
    Case("encoder-decoder model (a T5 directory)", "snakemake",
         {"t5/config.json": '{"model_type": "t5", "is_encoder_decoder": true}'},
         {"overlay": {"model": "{dir}/t5"}, "alone": True},
         r"model '{dir}/t5' is an encoder-decoder \(t5\)"),
    # ---- the workflow itself
    Case("unknown config key", "snakemake", options={"args": ["--config", "max_len_polcy=error"]},
         message=r"max_len_polcy"),
    Case("unknown corpus option", "snakemake",
         options={"overlay": {"corpora": {"gum_sd_dev": {"max_sentence": 3}}}}, message=r"max_sentence"),
    Case("malformed treebank as a local source (whole workflow)", "snakemake",
         {"t.conllu": swap(CONLLU, 3, "\t3\t", "\tx\t")},
         {"overlay": {"local_sources": {"mine": "{dir}"}, "corpora": {"mine": {"reader": "conllu", "source": "mine"}}},
          "targets": ["resources/inputs/tiny-random-bert/mine.jsonl"]},
         r"resources/raw/mine/t\.conllu:3: head 'x' is not an integer"),  # the checked copy of {dir}/t.conllu
]  # fmt: skip


def write_files(folder: Path, files: dict) -> Path:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return folder


def run_reader(case, src, work, tokenizer):
    """What rule prepare_inputs runs: the reader, then the records and counts written."""
    from analysis.core.corpora import prepare
    from analysis.core.inputs import write_jsonl
    from analysis.shared.rule_io import write_json

    opts = dict(case.options)
    records, counts = prepare(opts.pop("reader"), src, tokenizer, max_len=64, **opts)
    (work / "resources/inputs/m").mkdir(parents=True)
    write_jsonl(work / "resources/inputs/m/c.jsonl", records)
    write_json(counts, work / "resources/inputs/m/c.counts.json")
    return counts


def run_extract(case, src, work, tokenizer, tiny_model):
    """What rule extract_attention runs on the prepared treebank, max_len 16."""
    from analysis.core.corpora import prepare
    from analysis.core.extraction import extract_shard
    from analysis.core.extraction_settings import ShardSettings

    records, _ = prepare("conllx", src, tokenizer, files="*.conll10")
    out = work / "resources/attention/m/c/shard-0"
    out.parent.mkdir(parents=True)
    header = extract_shard(tiny_model, tokenizer, records, str(out), ShardSettings(16, policy=case.options["policy"]))
    return header["counts"]


def run_fetch(case, src, work, monkeypatch):
    """What rule fetch_source runs, with no network: every download fails as on a machine without DNS."""
    from analysis.core.sources import fetch_source

    def no_network(*args, **kwargs):
        raise urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))

    monkeypatch.setattr("urllib.request.urlopen", no_network)
    write_files(work / "mirror" / "src", case.files)
    spec = {"url": "https://example.org/a.txt", "sha256": hashlib.sha256(b"hello\n").hexdigest()}
    source = {"mirror_folder": case.options["mirror_folder"], "files": {"a.txt": spec}}
    fetch_source(source, work / "resources/raw/demo", str(work / "mirror"), name="demo")


def run_local(case, src, work):
    """First use of a local source (rule fetch_source), then a change, then rule verify_local_source."""
    from analysis.core.sources import fetch_source, verify_local_source

    raw = work / "resources/raw/mine"
    record = fetch_source({"path": str(src)}, raw, None, name="mine")
    assert record.read_text().count("\n") == len(case.files)
    write_files(src, case.options["change"])
    os.chdir(work)  # the message names the record relative to the working directory
    verify_local_source(str(src), "resources/raw/mine/SHA256SUMS", raw / "SHA256SUMS.verified", "mine")


def run_model(case, monkeypatch):
    """Loading the model as every rule does, with the Hugging Face hub offline."""
    from analysis.core.model_names import check_model_spec
    from analysis.core.models import load_tokenizer

    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    load_tokenizer(check_model_spec(case.options["model"]))


def run_snakemake(case, src, work):
    """Snakemake on a copy of the workflow (a dry run unless the row names targets)."""
    copy_into(work, WORKFLOW)
    overlay = yaml.safe_load(yaml.safe_dump(case.options.get("overlay", {})).replace("{dir}", str(src)))
    (work / "overlay.yaml").write_text(yaml.safe_dump({"model": "tiny-random-bert", **overlay}))
    targets = case.options.get("targets")
    cmd = [SNAKEMAKE, *(["--cores", "1"] if targets else ["-n"]), *(targets or []), *case.options.get("args", [])]
    cmd += ["--configfile", "overlay.yaml"]
    env = {**os.environ, "ATTN_MIRROR": "/nonexistent-mirror", "PYTHONPATH": str(work)}
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300)
    logs = "".join(p.read_text() for p in sorted((work / "logs").rglob("*.log"))) if (work / "logs").exists() else ""
    if run.returncode:
        raise RuntimeError(run.stdout + run.stderr + logs)


def half_written(work: Path) -> list[str]:
    """Files under resources/ and results/ that a failed step may have left: `.part` files, and
    any prepared input, shard or table (a row that fails must write none of them)."""
    found = []
    for top in ("resources", "results"):
        for p in (work / top).rglob("*") if (work / top).exists() else []:
            if p.is_file() and not p.name.startswith("SHA256SUMS"):
                found.append(str(p.relative_to(work)))
    return found


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case, tmp_path, tokenizer, tiny_model, monkeypatch):
    src = write_files(tmp_path / "src", case.files)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    steps = {
        "reader": lambda: run_reader(case, src, work, tokenizer),
        "extract": lambda: run_extract(case, src, work, tokenizer, tiny_model),
        "fetch": lambda: run_fetch(case, src, work, monkeypatch),
        "local": lambda: run_local(case, src, work),
        "model": lambda: run_model(case, monkeypatch),
        "snakemake": lambda: run_snakemake(case, src, work),
    }
    if case.message is not None:
        with pytest.raises(Exception) as err:
            steps[case.run]()
        assert re.search(case.message.replace("{dir}", re.escape(str(src))), str(err.value), re.S), str(err.value)
        if case.options.get("alone"):  # Snakemake's traceback of the Snakefile: 'in file "...", line', '  File "'
            assert not re.search(r'Traceback|^\s+File "|in file "', str(err.value), re.M), str(err.value)
        left = [p for p in half_written(work) if not p.startswith("resources/raw/mine/")]  # the record's copies
        assert left == [], f"{case.name}: left behind {left}"
    else:
        counts = steps[case.run]()
        assert {k: counts.get(k) for k in case.counts} == case.counts
        assert not [p for p in half_written(work) if p.endswith(".part")]
