"""Attention rollout and attention flow (Abnar & Zuidema 2020, samiraabnar/attention_flow).

Both start from the per-layer "residual" attention graph: heads averaged, the residual
connection added as the identity, rows renormalised,

    A~_l = (1 - r) * mean_h A_{l,h} + r * I,   rows / row sums        (r = 0.5 in the paper)

(the rows of mean_h A already sum to 1, so renormalising only matters for r outside [0, 1]
or maps that do not sum to 1, e.g. float16 maps).

- Rollout: R = A~_L ... A~_2 A~_1; row ``q`` of R is how much each input token contributes to
  position ``q`` of the last layer (``rollout``); through layer l: R_l = A~_l ... A~_1
  (``rollout_per_layer``, the authors compare every layer).
- Flow: the layered graph with one node per (layer, token), layer 0 = the inputs, and an edge
  from (l, i) to (l - 1, j) of capacity A~_l[i, j]; the flow of input token j is the
  maximum flow from (L, q) to (0, j) (``attention_flow``). The authors normalise the flows
  of a query position to sum to one over the inputs (``normalise=True``).

scipy's maximum flow needs integer capacities: they are scaled by ``FLOW_SCALE`` (2^24) and
rounded, so a flow is exact to about (number of edges in a minimum cut) x 3e-8.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow

FLOW_SCALE = 2**24


def residual_attention(attentions: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """(L, n, n) residual attention graph of (L, H, n, n) maps of one input (unpadded)."""
    att = np.asarray(attentions, dtype=np.float64)
    if att.ndim != 4 or att.shape[-1] != att.shape[-2]:
        raise ValueError(f"expected (layers, heads, n, n) maps of one input, got {att.shape}")
    mixed = (1.0 - residual) * att.mean(axis=1) + residual * np.eye(att.shape[-1])[None]
    return mixed / mixed.sum(axis=-1, keepdims=True)


def rollout(residual_att: np.ndarray) -> np.ndarray:
    """(n, n) product A~_L ... A~_1 of the (L, n, n) residual graph: row q = contributions of
    the input tokens to position q of the last layer."""
    out = residual_att[0]
    for layer in residual_att[1:]:
        out = layer @ out
    return out


def rollout_per_layer(residual_att: np.ndarray) -> np.ndarray:
    """(L, n, n): entry l - 1 is the rollout through layer l, A~_l ... A~_1."""
    out = np.empty_like(residual_att)
    out[0] = residual_att[0]
    for layer in range(1, len(residual_att)):
        out[layer] = residual_att[layer] @ out[layer - 1]
    return out


def attention_flow(residual_att: np.ndarray, query: int, normalise: bool = True) -> np.ndarray:
    """(n,) maximum flow from position ``query`` of the last layer to each input token over the
    layered graph of ``residual_att`` (L, n, n); normalised to sum to one when ``normalise``."""
    return _flows(flow_graph(residual_att), len(residual_att), residual_att.shape[-1], [query], normalise)[0]


def flows_per_layer(residual_att: np.ndarray, queries: list[int], normalise: bool = True) -> np.ndarray:
    """(L, len(queries), n): entry [l - 1, k] is the flow from position ``queries[k]`` of layer
    l to each input token over the graph of the first l layers (one graph per layer, shared by
    the queries)."""
    n_layers, n, _ = residual_att.shape
    return np.stack(
        [_flows(flow_graph(residual_att[:layer]), layer, n, queries, normalise) for layer in range(1, n_layers + 1)]
    )


def _flows(graph: csr_matrix, n_layers: int, n: int, queries: list[int], normalise: bool) -> np.ndarray:
    flows = np.array(
        [[maximum_flow(graph, n_layers * n + q, j).flow_value for j in range(n)] for q in queries], dtype=np.float64
    )
    flows /= FLOW_SCALE
    if normalise:
        total = flows.sum(axis=1, keepdims=True)
        flows = np.divide(flows, total, out=flows.copy(), where=total > 0)
    return flows


def flow_graph(residual_att: np.ndarray) -> csr_matrix:
    """Capacities (integer, scaled by FLOW_SCALE) of the layered graph: node l * n + i is token
    i at layer l (0 = inputs); an edge from (l, i) to (l - 1, j) carries A~_l[i, j]."""
    n_layers, n, _ = residual_att.shape
    rows, cols, caps = [], [], []
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    for layer in range(1, n_layers + 1):
        rows.append((layer * n + i).ravel())
        cols.append(((layer - 1) * n + j).ravel())
        caps.append(np.rint(residual_att[layer - 1].ravel() * FLOW_SCALE).astype(np.int32))
    size = (n_layers + 1) * n
    rows, cols, caps = np.concatenate(rows), np.concatenate(cols), np.concatenate(caps)
    keep = caps > 0
    return csr_matrix((caps[keep], (rows[keep], cols[keep])), shape=(size, size), dtype=np.int32)


def layer_scores(
    attentions: np.ndarray, query: int | None, residual: float = 0.5, flow: bool = True
) -> dict[str, np.ndarray]:
    """Per layer, the scores each input token gets: (L, n) arrays ``raw`` (layer l's attention,
    heads averaged), ``rollout`` (through layer l) and, when ``flow``, ``flow`` (normalised,
    through layer l), for (L, H, n, n) maps of one input. ``query`` an int: that position's row
    (the [CLS]-like position); None: the maximum over every query position's row (the authors'
    SST-2 script, ``get_*_relevance``: ``.max(axis=0)``)."""
    res = residual_attention(attentions, residual)
    raw = np.asarray(attentions, dtype=np.float64).mean(axis=1)
    queries = list(range(res.shape[-1])) if query is None else [query]
    rows = {"raw": raw[:, queries], "rollout": rollout_per_layer(res)[:, queries]}  # (L, queries, n)
    if flow:
        rows["flow"] = flows_per_layer(res, queries)
    return {method: r.max(axis=1) for method, r in rows.items()}  # one query: its row


def query_rows(attentions: np.ndarray, query: int, residual: float = 0.5, flow: bool = True) -> dict[str, np.ndarray]:
    """Row ``query`` of the raw last-layer attention (heads averaged), of the rollout and (when
    ``flow``) the normalised attention flow, for (L, H, n, n) maps of one input."""
    res = residual_attention(attentions, residual)
    out = {
        "raw": np.asarray(attentions[-1], dtype=np.float64).mean(axis=0)[query],
        "rollout": rollout(res)[query],
    }
    if flow:
        out["flow"] = attention_flow(res, query)
    return out
