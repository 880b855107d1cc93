"""The attention sink, whichever special token it is (the sink-agnostic versions of Clark et al.'s
[SEP] claims, sec. 3, Fig. 2 bottom and Fig. 3).

Clark et al. find BERT's middle layers putting over half their attention on [SEP], and read [SEP]
as a no-op sink. A model may sink its attention on another special token ([CLS] in
all-MiniLM-L6-v2): the claims about the sink (it attends almost only to itself; attention to it
matters little to the loss) are then asked of that token. The sink is the special token ([CLS] or
[SEP]) that draws the most attention in its strongest layer (layer means of the special-token
shares, Fig. 2 top); a tie goes to [SEP], the paper's. It is chosen once on the model's table and
kept on every resample, so the resamples measure the sink's statistics, not the choice.
"""

from __future__ import annotations

import pandas as pd

SINKS = ("sep", "cls")  # candidates, the paper's first (a tie goes to it)


def choose_sink(special_layers: pd.DataFrame) -> str:
    """``sep`` or ``cls``: the special token with the largest layer-mean attention share in its
    strongest layer (``special_layers``: the layer table of rule special_tokens, columns cls, sep)."""
    strongest = {kind: float(special_layers[kind].max()) for kind in SINKS}
    return max(SINKS, key=lambda kind: strongest[kind])  # max keeps the first of tied candidates


def sink_table(special_layers: pd.DataFrame, sep_layers: pd.DataFrame, sink: str) -> pd.DataFrame:
    """Per layer (and replicate, where the tables have one): the ``sink`` token, the attention every
    token gives it (``to_sink``), and the attention to it from itself (``sink_from_sink``) and from the
    other tokens (``sink_from_other``); ``sep_layers``: the layer table of rule sep_attention."""
    keys = [k for k in ("replicate", "layer") if k in special_layers.columns]
    out = special_layers[[*keys, sink]].rename(columns={sink: "to_sink"})
    own = sep_layers[[*keys, f"{sink}_from_{sink}", f"{sink}_from_other"]].rename(
        columns={f"{sink}_from_{sink}": "sink_from_sink", f"{sink}_from_other": "sink_from_other"}
    )
    table = out.merge(own, on=keys, how="inner", validate="one_to_one")
    if len(table) != len(out):
        raise ValueError("the special-token and [SEP]/[CLS] attention tables do not have the same layers")
    table.insert(len(keys), "sink", sink)
    return table
