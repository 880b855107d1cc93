"""The attention sink, whichever special token it is: chosen by hand-made layer tables."""

import pandas as pd
import pytest

from analysis.clark.surface.sink import choose_sink, sink_table


def layers(cls, sep):
    return pd.DataFrame({"layer": [1, 2], "cls": cls, "sep": sep, "punct": [0.1, 0.1]})


def test_the_sink_is_the_special_token_of_the_strongest_layer():
    # MiniLM-like: [CLS] takes 0.26 in its strongest layer, [SEP] 0.03
    assert choose_sink(layers([0.19, 0.26], [0.02, 0.03])) == "cls"
    # BERT-like: [SEP] over half in a middle layer, though [CLS] leads elsewhere
    assert choose_sink(layers([0.3, 0.05], [0.1, 0.55])) == "sep"
    assert choose_sink(layers([0.2, 0.1], [0.1, 0.2])) == "sep"  # a tie: the paper's [SEP]


def test_sink_table_reads_the_sinks_own_columns():
    special = layers([0.19, 0.26], [0.02, 0.03])
    sep = pd.DataFrame(
        {
            "layer": [1, 2],
            "sep_from_sep": [0.5, 0.6],
            "sep_from_other": [0.01, 0.02],
            "cls_from_cls": [0.9, 0.95],
            "cls_from_other": [0.2, 0.25],
        }
    )
    got = sink_table(special, sep, "cls")
    assert got.to_dict("list") == {
        "layer": [1, 2],
        "sink": ["cls", "cls"],
        "to_sink": [0.19, 0.26],
        "sink_from_sink": [0.9, 0.95],
        "sink_from_other": [0.2, 0.25],
    }
    # replicate tables: the same sink on every replicate, matched by replicate and layer
    boot_special = pd.concat([special.assign(replicate=r) for r in (0, 1)])
    boot_sep = pd.concat([sep.assign(replicate=r, sep_from_sep=sep.sep_from_sep + r) for r in (0, 1)])
    boot = sink_table(boot_special, boot_sep, "sep")
    assert boot.columns.tolist() == ["replicate", "layer", "sink", "to_sink", "sink_from_sink", "sink_from_other"]
    assert boot.sink_from_sink.tolist() == [0.5, 0.6, 1.5, 1.6]
    with pytest.raises(ValueError, match="same layers"):
        sink_table(special, sep[sep.layer == 1], "cls")
