"""The sec. 3 tables of one model from its Wikipedia shards' sums (rule ``surface_sums``), read once
per rule: a rule's per-head table (``attention_stats.per_head_table``), its layer means and their
replicate tables (:func:`analysis.clark.surface.boot.replicate_tables`, the Wikipedia articles
resampled ``resamples`` times, each with all its segments)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.clark.surface.boot import replicate_tables, segment_clusters
from analysis.clark.surface.sums import combine, read_sums
from analysis.shared.attention_stats import by_layer, per_head_table
from analysis.shared.rule_io import write_table


@dataclass(frozen=True)
class SurfaceSums:
    """Every shard's sums (``parts``, in shard order) and metas, and the config's ``bootstrap``
    (``resamples``, ``seed``) of the replicate tables drawn from them."""

    parts: list[dict]
    metas: list[dict]
    resamples: int
    seed: int

    @classmethod
    def read(cls, npz_paths, resamples: int, seed: int) -> SurfaceSums:
        """The sums of the shards ``npz_paths`` (``read_sums``)."""
        return cls(*read_sums(npz_paths), resamples, seed)

    @property
    def n_examples(self) -> int:
        return sum(m["examples"] for m in self.metas)

    @property
    def header(self) -> dict:
        """The first shard's header (model, special tokens)."""
        return self.metas[0]["header"]

    def sums(self, prefix: str) -> dict:
        """Analysis ``prefix``'s sums over every shard (``combine``)."""
        return combine(self.parts, prefix)

    def table(self, prefix: str) -> pd.DataFrame:
        """Analysis ``prefix``'s per-head table."""
        return per_head_table(self.sums(prefix))

    def boot(self, prefix: str, *, per_head=None, layers=None) -> dict[str, pd.DataFrame]:
        """``replicate_tables`` of ``prefix`` (``'heads'``: the metrics ``per_head``; ``'layers'``: the
        layer means of the metrics ``layers``), every segment's article its cluster."""
        return replicate_tables(
            self.parts,
            prefix,
            self.resamples,
            self.seed,
            per_head=per_head,
            layers=layers,
            clusters=segment_clusters(self.metas),
        )

    def write_tables(self, prefix: str, output, *, per_head=None, layers=None) -> pd.DataFrame:
        """Write a rule's tables into its ``output`` (Snakemake's, or any object with these names):
        ``table`` the per-head table; with ``layers``, ``layers`` their layer means and
        ``layers_boot`` their replicates; with ``per_head``, ``boot`` the per-head replicates of
        those metrics. Returns the per-head table."""
        table = self.table(prefix)
        write_table(table, output.table)
        boot = self.boot(prefix, per_head=per_head, layers=layers)
        if layers:
            write_table(by_layer(table, list(layers)), output.layers)
            write_table(boot["layers"], output.layers_boot)
        if per_head:
            write_table(boot["heads"], output.boot)
        return table
