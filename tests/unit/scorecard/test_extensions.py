"""This project's extensions (``extension: true``: a setting the paper did not test) are counted apart
from the paper's claims in every view of a hand-made scorecard: the counts, the summary page, the
Markdown table, the figure and the models-side-by-side matrix."""

import numpy as np
import pandas as pd

from analysis.overview.compare import scorecard_matrix
from analysis.scorecard.claims import scorecard
from analysis.scorecard.counts import firm_note, headline, interval_note
from analysis.scorecard.pages import plot_scorecard, scorecard_html, scorecard_markdown
from analysis.scorecard.run import Run

B = 199  # replicates, every one on the point value's side: a two-sided p of 2 / 200


def claim(cid, table, **kw):
    base = {"id": cid, "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": {"value": {"table": table, "column": "v"}, "op": ">", "threshold": 0.5}, **kw}


def card_of(values: dict[str, float], extensions=()) -> pd.DataFrame:
    """A scorecard of one claim per table ``values`` (table -> its value; holds above 0.5), each with
    replicates at its value; the claims named in ``extensions`` are extensions."""
    tables = {t: pd.DataFrame({"v": [v]}) for t, v in values.items()}
    boots = {t: pd.DataFrame({"replicate": range(B), "v": v, "resampled_units": np.inf}) for t, v in values.items()}
    claims = [claim(f"c.{t}", t, **({"extension": True} if f"c.{t}" in extensions else {})) for t in values]
    return scorecard(claims, Run(tables, boots))


CARD = card_of({"a": 0.8, "b": 0.9, "c": 0.2, "e": 0.2}, extensions=["c.e"])


def test_the_card_says_which_claims_are_extensions():
    assert CARD["extension"].tolist() == [False, False, False, True]
    assert CARD["verdict"].tolist() == ["holds", "holds", "does not hold", "does not hold"]


def test_the_counts_give_the_paper_claims_and_the_extensions_apart():
    assert headline(CARD) == (
        "3 paper claims: 2 holds, 1 does not hold; 1 extension (settings the papers did not test): 1 does not hold"
    )
    # the paper claims' counts are those without the extension: it adds to none of them
    without = card_of({"a": 0.8, "b": 0.9, "c": 0.2})
    assert headline(without) == "3 paper claims: 2 holds, 1 does not hold"
    note = firm_note(CARD)
    assert note.startswith("3 paper claims, 1 extension carry a two-sided p")
    assert "discoveries (columns q_value, bh): 3 paper claims, 1 extension;" in note
    assert "read 'inconclusive (multiplicity)': 0 paper claims, 0 extensions." in note
    assert note.endswith("about your model: " + headline(CARD) + ".")
    assert interval_note(CARD).startswith("A 95% bootstrap interval: 3 paper claims, 1 extension (199 resamples")


def test_the_pages_mark_an_extension_beside_its_id():
    md = scorecard_markdown(CARD, "m")
    assert md.splitlines()[1].endswith("): " + headline(CARD) + ".")
    assert "(`c.e`; extension) |" in md and "(`c.a`) |" in md
    page = scorecard_html(CARD, "m")
    assert "<b>c.e</b> (extension)<br>" in page and "<b>c.a</b><br>" in page
    assert headline(CARD, zeros=True).startswith("3 paper claims: 2 holds, 0 holds, also at random init,")


def test_the_figures_label_an_extension():
    import matplotlib.pyplot as plt

    matrix = CARD.set_index("id")[["verdict"]].rename(columns={"verdict": "m"})
    fig = plot_scorecard(matrix, "t", extension=CARD["id"][CARD["extension"]])
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    plt.close(fig)
    assert labels == ["c.a", "c.b", "c.c", "c.e [extension]"]
    stacked = pd.concat([CARD.assign(model="x"), CARD.assign(model="y")])
    assert scorecard_matrix(stacked).index.tolist() == ["c.a", "c.b", "c.c", "c.e (extension)"]
