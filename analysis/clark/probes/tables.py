"""The probes' scores as tables (Clark et al. 2019 Table 3): rule probes_train's ``probes_table``
and rule probes' ``with_paper_uas`` and ``selectivity_table``. No torch: rule probes only reads probes_train's scores, and
importing the training code (torch) was most of its start-up (issue 39)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.probes.control_task import SUFFIX


def probes_table(results: list[dict], model: str, sizes: dict, vectors: str, dim: int) -> pd.DataFrame:
    """The scores of the probes (rule probes_train): one row per probe, the data behind them beside
    (train sentences = fit + held-out; the word vectors and their size)."""
    table = pd.DataFrame(results)
    table.insert(0, "model", model)
    table["train_sentences"] = sizes["fit"] + sizes["heldout"]
    table["heldout_sentences"] = sizes["heldout"]
    table["dev_sentences"] = sizes["dev"]
    table["vectors"] = vectors
    table["vector_dim"] = dim
    return table


def with_paper_uas(table: pd.DataFrame, paper_uas: dict) -> pd.DataFrame:
    """The probes table with the paper's UAS beside each probe (NaN where it has none), placed
    before the data columns (rule probes, which draws them: a new reference number retrains nothing)."""
    out = table.copy()
    out.insert(out.columns.get_loc("train_sentences"), "paper_uas", [paper_uas.get(p, np.nan) for p in out.probe])
    return out


def selectivity_table(table: pd.DataFrame, by: tuple = ()) -> pd.DataFrame:
    """Hewitt & Liang's selectivity of every probe of ``table`` (columns probe, uas; a replicate
    table: ``by`` = ("replicate",)) that has a "<probe>, control task" row (within the same ``by``):
    rows (``by``, probe, uas, control_task_uas, selectivity = uas - control_task_uas); no row for
    the others (control_task.py)."""
    keys = [*by, "probe"]
    task = table[table["probe"].str.endswith(SUFFIX)]
    control = task.assign(probe=task["probe"].str.removesuffix(SUFFIX))[[*keys, "uas"]]
    out = table[[*keys, "uas"]].merge(control.rename(columns={"uas": "control_task_uas"}), on=keys, how="inner")
    return out.assign(selectivity=out["uas"] - out["control_task_uas"])
