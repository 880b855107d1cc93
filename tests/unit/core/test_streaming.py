"""Every reader of stored maps streams: 10x the segments in a shard costs at most 1.2x the
peak resident memory (VmHWM, measured in a fresh subprocess per reader and shard size)."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from analysis.core.storage import write_shard
from conftest import ROOT

L, H, N = 2, 4, 128  # 256 KiB of float16 maps per segment
SEGMENTS = 45  # 1x: ~12 MB of maps; 10x: ~118 MB (more than a reader's own footprint)


def synthetic_shard(stem, n_segments: int, seed: int = 0):
    """A shard of ``n_segments`` random maps ([CLS] w1 ... [SEP]), one word per piece, with
    gold dependency heads so that the dependency reader can score it."""
    rng = np.random.default_rng(seed)
    words = N - 2
    examples = [
        {
            "id": f"s{i}",
            "n": N,
            "tokens": ["[CLS]"] + [f"w{k}" for k in range(words)] + ["[SEP]"],
            "input_ids": [101] + [1000 + k for k in range(words)] + [102],
            "kinds": "C" + "O" * words + "S",
            "word_ids": [-1, *range(words), -1],
            "seq_ids": [-1] + [0] * words + [-1],
            "meta": {"heads": [0] + list(range(1, words)), "rels": ["root"] + ["nsubj"] * (words - 1)},
        }
        for i in range(n_segments)
    ]
    maps = ((i, rng.dirichlet(np.ones(N), size=(L, H, N)).astype(np.float16)) for i in range(n_segments))
    write_shard(stem, {"model": "synthetic", "n_layers": L, "n_heads": H, "counts": {}}, examples, maps)
    return stem.with_suffix(".npy")


READERS = {
    "surface": """
        from analysis.shared.attention_stats import accumulate, entropy_stats, relative_position_stats, special_tokens_stats
        for stats in (entropy_stats, relative_position_stats, special_tokens_stats):
            accumulate(Shards([path]), stats)
    """,
    "surface_sums": """
        from analysis.clark.surface.sums import shard_sums
        from analysis.core.storage import Shard
        shard_sums(Shard(path), 0, None, 0.0, "auto", 40)  # sec. 3 sums, head distances, example
    """,
    "finetune_change": """
        from analysis.kovaleva.finetune.change import mean_cosines
        mean_cosines(Shards([path]), Shards([path]))
    """,
    "dep_heads": """
        from analysis.clark.syntax.scorer import score_examples
        score_examples(Shards([path]), 2, 4, max_offset=3, how="mean", reverse="row")
    """,
    "iteration": """
        for ex in Shards([path]):
            ex.attn
    """,
}


def peak_rss_kib(reader: str, path) -> int:
    code = "import sys\nfrom analysis.core.storage import Shards\npath = sys.argv[1]\n"
    code += textwrap.dedent(READERS[reader])
    # VmHWM: this process's own peak (ru_maxrss would carry over the forking parent's peak)
    code += "\nprint(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    root = tmp_path_factory.mktemp("streaming")
    for k in (1, 10):
        (root / f"{k}x").mkdir()
    return {k: synthetic_shard(root / f"{k}x" / "shard-0", k * SEGMENTS) for k in (1, 10)}


def test_synthetic_shards_are_what_they_claim(shards):
    header = json.loads(shards[10].with_suffix(".json").read_text())
    assert len(header["examples"]) == 10 * SEGMENTS
    assert shards[10].stat().st_size > 100 * 2**20  # the 10x maps outweigh any reader's footprint


@pytest.mark.parametrize("reader", sorted(READERS))
def test_ten_times_the_segments_cost_at_most_1_2x_the_peak_memory(shards, reader):
    one, ten = peak_rss_kib(reader, shards[1]), peak_rss_kib(reader, shards[10])
    assert ten <= 1.2 * one, f"{reader}: peak RSS {one / 1024:.0f} MB on 1x, {ten / 1024:.0f} MB on 10x segments"
