import pandas as pd

from analysis.clark.surface import pick_example_heads, pick_example_segment
from analysis.core.storage import Shards
from analysis.shared.plots import attention_map, close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
shards = Shards(snakemake.input.shards)
tables = {k: pd.read_csv(snakemake.input[k]) for k in ["relative_position", "special_tokens", "entropy"]}
picked = pick_example_heads(tables)
write_table(picked, snakemake.output.table)

index = [e for s in shards.shards for e in s.examples]
want = pick_example_segment(
    [e["n"] for e in index],
    snakemake.params.segment,
    snakemake.params.window,
    eligible=[e.get("meta", {}).get("ab_boundary", "sentence") == "sentence" for e in index],
)
ex = next(e for i, e in enumerate(shards) if i == want)
w = min(snakemake.params.window, ex.n)
attn = ex.attn
h = shards.header
names = {
    "prev": "previous token",
    "next": "next token",
    "cls": h["cls_token"],
    "sep": h["sep_token"],
    "punct": "'.' / ','",
    "broad": "broad (max entropy)",
}
fig, axes = new_figure(7.0, 6.4, ncols=3, nrows=2)
rows = []
for ax, r in zip(axes.ravel(), picked.itertuples()):
    m = attn[r.layer - 1, r.head - 1, :w, :w]
    attention_map(
        ax,
        m,
        ex.tokens[:w],
        ex.tokens[:w],
        title=f"{names[r.behaviour]}: head {r.layer}-{r.head}\n(corpus mean {r.value:.2f})",
    )
    frame = pd.DataFrame(m).stack().rename("attention").reset_index()
    frame.columns = ["from_index", "to_index", "attention"]
    frame.insert(0, "behaviour", r.behaviour)
    frame.insert(1, "layer", r.layer)
    frame.insert(2, "head", r.head)
    rows.append(frame)
for ax in axes.ravel():
    ax.set_xlabel("")
    ax.set_ylabel("")
fig.suptitle(f"{h['model']}: example heads on segment {ex.id} (word pieces 1-{w} of {ex.n}; head = layer-head)")
fig.tight_layout()
save_figure(fig, snakemake.output.figure)
close(fig)
maps = pd.concat(rows, ignore_index=True)
maps["from_token"] = [ex.tokens[i] for i in maps.from_index]
maps["to_token"] = [ex.tokens[i] for i in maps.to_index]
maps["segment"] = ex.id
write_table(maps, snakemake.output.maps)
log.info("example heads: %s", picked.to_dict("records"))
