import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tokenizer():
    from analysis.core.models import TINY, load_tokenizer

    return load_tokenizer(TINY)


@pytest.fixture(scope="session")
def tiny_model():
    from analysis.core.models import TINY, load_model

    return load_model(TINY, device="cpu")


WORKFLOW = ["Snakefile", "rules", "workflow", "config", "report", "analysis", "envs", "profiles"]


def copy_into(dest: Path, items, src_dir: Path = ROOT) -> Path:
    """Copy files / folders ``items`` of ``src_dir`` into ``dest`` (e.g. the workflow alone: no
    ../shared beside it, nothing made yet)."""
    for item in items:
        src, dst = src_dir / item, dest / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    return dest


def mirror_dir() -> Path | None:
    """The offline mirror of the sources (ATTN_MIRROR, else ../shared/data beside the repo)."""
    for cand in [os.environ.get("ATTN_MIRROR"), ROOT.parent / "shared" / "data"]:
        if cand and Path(cand).is_dir():
            return Path(cand).resolve()
    return None


def random_maps(L, H, n, seed=0):
    """Row-stochastic maps (L, H, n, n)."""
    return np.random.default_rng(seed).dirichlet(np.ones(n), size=(L, H, n)).astype(np.float32)
