"""The scorecard as a figure, an HTML page (report) and a Markdown fragment (README)."""

from __future__ import annotations

import html

import pandas as pd

from analysis.scorecard.counts import firm_note, headline, interval_note, seeds_note
from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, MULTIPLICITY, NO_CONTROL, SEED
from analysis.shared.plots import new_figure

VERDICT_COLOURS = {
    "holds": "#1a9850",
    ALSO_RANDOM: "#a6d96a",
    NO_CONTROL: "#d9ef8b",
    INCONCLUSIVE: "#fee08b",
    MULTIPLICITY: "#ffffbf",
    SEED: "#fdf5c9",
    "does not hold": "#d73027",
    "not applicable": "#9e9e9e",
    "not run": "#ffffff",
}
VERDICT_MARKS = {
    "holds": "yes",
    ALSO_RANDOM: "yes, rand.",
    NO_CONTROL: "yes, no ctrl.",
    INCONCLUSIVE: "?",
    MULTIPLICITY: "?, mult.",
    SEED: "?, seed",
    "does not hold": "no",
    "not applicable": "n/a",
    "not run": "-",
}
# a cell of the control's column for a claim the control is not judged on (it reads no attention maps)
NOT_JUDGED = ""
CELL_COLOURS = {**VERDICT_COLOURS, NOT_JUDGED: "#f4f4f4"}
CELL_MARKS = {**VERDICT_MARKS, NOT_JUDGED: ""}


CONTROL_NOTE = (
    "Claims that read attention maps are judged on a random-init copy of the model too (same config and "
    "tokenizer, seeded random weights) and compared with it on the same resamples: a claim that the model "
    "learnt something holds only when the model is firmly further on the claim's side than the copy "
    "(column control_difference, model minus control), else it reads 'holds, also at random init' and is "
    "not counted as support; a claim that something is absent stands where the model has firmly more of the "
    "structure than the copy (it learnt some, too little), and reads 'holds, also at random init' where it "
    "has no more than a random network."
)


def seeds_text(seeds) -> str:
    """`` (k seeds)`` after the interval of a claim on a training (nothing for the others)."""
    n = int(seeds) if pd.notna(seeds) else 0
    return f" ({n} seed{'s' if n > 1 else ''})" if n else ""


def basis_text(r) -> str:
    """What a verdict rests on, after its interval: `` (point only)`` where it has no replicates,
    `` (14 clusters)`` where its replicates drew few clusters (the interval is widened for them),
    `` (holds on 1 of 2 levels)`` for a per-level claim (:func:`analysis.scorecard.multiplicity.levels_held`)."""
    levels = getattr(r, "levels", "")
    levels = f" (holds on {levels} levels)" if isinstance(levels, str) and levels else ""
    if getattr(r, "basis", "") == "point only":
        return " (point only)" + levels
    clusters = pd.to_numeric(pd.Series([getattr(r, "clusters", None)]), errors="coerce").iloc[0]
    return (f" ({int(clusters)} clusters)" if pd.notna(clusters) else "") + levels


def has_control(table: pd.DataFrame) -> bool:
    """Whether any claim of the scorecard was judged on the random-init control."""
    return bool(table["control_verdict"].fillna("").astype(str).ne("").any())


EXTENSION_MARK = "extension"  # beside the id of a claim that is this project's extension, in every view


def extension_mark(r, sep: str = "") -> str:
    """`` (extension)`` (``sep``: ``; extension``) after the id of an extension claim; nothing for a paper's claim."""
    if not bool(getattr(r, "extension", False)):
        return ""
    return f"{sep} {EXTENSION_MARK}" if sep else f" ({EXTENSION_MARK})"


NOTE_CHARS = 60  # the figure's value column: longer texts end in "..." (scorecard.csv has them whole)


def value_notes(table: pd.DataFrame) -> pd.Series:
    """Per claim id: our value, its 95% interval and the trainings behind it, for the figure."""

    def note(r) -> str:
        text = str(r.our_value) if isinstance(r.our_value, str) and r.our_value else ""
        if r.replicates:
            text += f"  {r.interval}"
        basis = (seeds_text(getattr(r, "seeds", 0)) + basis_text(r)).strip()
        room = NOTE_CHARS - len(basis) - 1  # the seeds and the basis are never cut off
        text = text.strip() if len(text.strip()) <= room else text.strip()[: room - 3] + "..."
        return f"{text} {basis}".strip()

    return pd.Series([note(r) for r in table.itertuples()], index=table["id"])


def plot_scorecard(matrix: pd.DataFrame, title: str, notes: pd.Series | None = None, extension=()):
    """Claims (rows) x models (columns), each cell coloured by its verdict and marked in words
    (yes / no / n/a / -), so it reads in grey print too. ``matrix``: index = claim ids,
    columns = model slugs, values = verdicts ("" where a model is not judged on a claim);
    ``notes`` (by claim id): a text column to the right, e.g. our value and its interval;
    ``extension``: the claim ids that are this project's extensions, labelled so."""
    import matplotlib.patches as mpatches

    n_rows, n_cols = matrix.shape
    note_width = 3.6 if notes is not None else 0.0
    width, height = 3.2 + 1.3 * n_cols + note_width, 0.9 + 0.19 * n_rows
    fig, ax = new_figure(width, height, style="plain")
    if notes is not None:  # the grid keeps its width; the notes and the legend go to its right
        ax.set_position([2.0 / width, 0.45 / height, 1.3 * n_cols / width, (height - 1.0) / height])
    for j, model in enumerate(matrix.columns):
        for i, verdict in enumerate(matrix[model]):
            ax.add_patch(mpatches.Rectangle((j, i), 1, 1, facecolor=CELL_COLOURS[verdict], edgecolor="0.6", lw=0.5))
            ink = "white" if verdict in ("holds", "does not hold") else "black"
            ax.text(j + 0.5, i + 0.5, CELL_MARKS[verdict], ha="center", va="center", fontsize=6.5, color=ink)
    if notes is not None:
        ax.text(n_cols + 0.08, -0.35, "ours  [95% interval]", fontsize=6.5, fontweight="bold", va="bottom")
        for i, claim in enumerate(matrix.index):
            ax.text(n_cols + 0.08, i + 0.5, notes.get(claim, ""), va="center", fontsize=6)
    ax.set_xlim(0, n_cols)
    ax.set_ylim(n_rows, 0)
    ax.set_xticks([j + 0.5 for j in range(n_cols)], matrix.columns, rotation=20, ha="right", fontsize=7)
    labels = [f"{c} [{EXTENSION_MARK}]" if c in set(extension) else c for c in matrix.index]
    ax.set_yticks([i + 0.5 for i in range(n_rows)], labels, fontsize=6.5)
    ax.xaxis.tick_top()
    ax.set_xlabel("model")
    ax.set_ylabel(f"claim (config/claims/; [{EXTENSION_MARK}]: not tested in the paper)")
    handles = [mpatches.Patch(facecolor=c, edgecolor="0.6", label=v) for v, c in VERDICT_COLOURS.items()]
    legend_x = 1.02 + note_width / (1.3 * n_cols)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(legend_x, 1), fontsize=7, frameon=False)
    ax.set_title(title, fontsize=8, pad=28)
    return fig


def scorecard_html(table: pd.DataFrame, model: str) -> str:
    """A self-contained page: the counts, then every claim with both numbers and the verdict."""
    counts = headline(table, zeros=True)
    head = [
        "claim",
        "paper",
        "where",
        "paper's number",
        "ours",
        "95% interval",
        "verdict",
        "why / criterion",
        "basis (two-sided p; Benjamini-Hochberg q)",
        "random-init control (model minus control)",
        "table",
        "figure",
    ]
    rows = []
    for r in table.itertuples():
        # a reason without a value says why there is none; beside a value it qualifies it (tasks left out)
        why = r.reason if r.reason and not r.our_value else (f"{r.criterion} ({r.reason})" if r.reason else r.criterion)
        cells = [
            f"<b>{html.escape(r.id)}</b>{extension_mark(r)}<br>{html.escape(r.claim)}",
            r.paper,
            r.where,
            r.paper_value,
            r.our_value,
            r.interval + seeds_text(getattr(r, "seeds", 0)) + basis_text(r),
            r.verdict,
            why,
            f"{r.basis}"
            + (
                f" (p {r.p_value:.3g}; q {r.q_value:.3g}{', a discovery' if r.bh else ''})"
                if pd.notna(r.p_value)
                else ""
            ),
            f"{r.control_verdict}: {r.control_value} ({r.control_difference})" if r.control_verdict else "",
            r.tables,
            r.figure,
        ]
        cells = [cells[0]] + [html.escape(str(c)) for c in cells[1:]]
        colour = VERDICT_COLOURS[r.verdict]
        ink = "#fff" if r.verdict in ("holds", "does not hold") else "#000"  # ALSO_RANDOM's light green: black
        cells[6] = f'<span style="background:{colour};color:{ink};padding:1px 4px">{cells[6]}</span>'
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    style = (
        "body{font:13px sans-serif;margin:12px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 5px;vertical-align:top}th{background:#eee}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Claim scorecard: {html.escape(model)}</title>"
        f"<style>{style}</style></head><body><h2>Do the papers' findings hold for {html.escape(model)}?</h2>"
        f"<p>{html.escape(counts)}. Claims and criteria: <code>config/claims/</code>; "
        f"table: <code>results/{html.escape(model)}/tables/scorecard.csv</code>. "
        "Our values are fractions (accuracy 0.796 = 79.6%); the papers' numbers are as printed there. "
        f"{html.escape(interval_note(table))} {html.escape(firm_note(table))} {html.escape(seeds_note(table))} "
        f"{html.escape(CONTROL_NOTE) if has_control(table) else ''}</p>"
        f"<table><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr>{''.join(rows)}</table></body></html>\n"
    )


def scorecard_markdown(table: pd.DataFrame, model: str) -> str:
    """The full scorecard table of docs/scorecard.md: one line per claim, every number from the scorecard."""
    counts = headline(table)
    lines = [
        f"Claim scorecard of `{model}` (generated from `results/{model}/tables/scorecard.csv` by",
        "`tools/docs/scorecard_readme.py`; claims and criteria in `config/claims/`): " + counts + ".",
        "Our values are fractions (accuracy 0.796 = 79.6%); the papers' numbers are as printed there.",
        interval_note(table),
        firm_note(table),
        *([seeds_note(table)] if seeds_note(table) else []),
        *([CONTROL_NOTE] if has_control(table) else []),
        "",
        "| claim | paper | paper's number | ours | 95% interval | verdict | random-init control (model minus control) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        ours = f"{r.our_value} ({r.reason})" if r.our_value and r.reason else r.our_value or r.reason
        interval = (r.interval if r.replicates else "-") + seeds_text(getattr(r, "seeds", 0)) + basis_text(r)
        control = f"{r.control_value} ({r.control_verdict}; {r.control_difference})" if r.control_verdict else ""
        row = f"| {r.claim} (`{r.id}`{extension_mark(r, ';')}) | {r.paper}, {r.where} | {r.paper_value} | {ours} | {interval} | **{r.verdict}** | {control} |"
        lines.append(row.replace("\n", " "))
    return "\n".join(lines) + "\n"
