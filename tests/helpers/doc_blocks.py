"""The fenced blocks of README.md and docs/*.md, and the user's files a page asks for: shared by
tests/workflow/test_doc_commands.py (every bash command as written) and tests/e2e/test_bring_your_own.py."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import yaml

from conftest import FIXTURES, ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# a fence may be indented (a block inside a list item): its body is read without that indent
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>\S*)\n(?P<body>.*?)^(?P=indent)```", re.DOTALL | re.MULTILINE)
BYO_PAGE = ROOT / "docs" / "data.md"


def fenced_blocks(text: str, lang: str) -> list[tuple[int, str]]:
    """(line of the opening fence, body) of every fenced block of language ``lang``."""
    return [
        (text.count("\n", 0, m.start()) + 1, textwrap.dedent(m["body"]))
        for m in FENCE.finditer(text)
        if m["lang"] == lang
    ]


def page_yaml(page: Path, name: str) -> str:
    """The one ```yaml block of ``page`` that the six lines before it introduce by ``name``."""
    text = page.read_text()
    lines = text.splitlines()
    blocks = [body for line, body in fenced_blocks(text, "yaml") if name in "\n".join(lines[max(0, line - 7) : line])]
    if len(blocks) != 1:
        raise AssertionError(
            f"{page.relative_to(ROOT)}: expected one ```yaml block introduced by {name}, found {len(blocks)}"
        )
    return blocks[0]


def byo_user_files(work: Path) -> dict:
    """The bring-your-own page's ``byo.yaml``, written into ``work`` as the page shows it, and
    fixture files at the relative paths it names: a CoNLL-2012 tree, a UD treebank, and the
    tiny random BERT saved as a local model. Returns the config."""
    from analysis.core.models import TINY, build_tiny_random, load_tokenizer

    text = page_yaml(BYO_PAGE, "byo.yaml")
    cfg = yaml.safe_load(text)
    paths = [cfg["model"], *cfg["local_sources"].values()]
    absolute = [p for p in paths if Path(p).is_absolute()]
    assert not absolute, f"{BYO_PAGE.name}: byo.yaml's paths must be relative to the run directory, not {absolute}"
    (work / "byo.yaml").write_text(text)
    model = work / cfg["model"]
    build_tiny_random().save_pretrained(model)
    load_tokenizer(TINY).save_pretrained(model)
    conll = work / cfg["local_sources"]["my_conll2012"] / "data/english/annotations/bc/cctv/00/cctv_0000.v4_gold_conll"
    conll.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "coref" / "sample_gold_conll", conll)
    treebank = work / cfg["local_sources"]["my_treebank"]
    treebank.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "mirror" / "ud-english-ewt" / "en_ewt-ud-dev.conllu", treebank)
    return cfg
