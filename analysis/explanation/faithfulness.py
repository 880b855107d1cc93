"""Is attention explanation? The tests of Serrano & Smith 2019 (single-weight and set
erasure) and Jain & Wallace 2019 (permutation, adversarial attention, rank agreement), as
plain functions of an attention vector and a callable that re-runs the decision.

Conventions: JS divergence in nats (at most ln 2), output change as total variation
distance (for two classes |p_1 - p_1'|), the *decision* is the predicted class of the
unmodified model and a *flip* is a change of the arg-max class. Rankings are descending
(item 0 erased first); ties keep position order.

:class:`RowPatch` patches one layer's attention row (the [CLS]-like query) inside any
Hugging Face model that dispatches attention through ``ALL_ATTENTION_FUNCTIONS`` (BERT,
RoBERTa, ... with eager attention), for the tests on the transformer's own attention.
"""

from __future__ import annotations

import logging

import numpy as np
import torch

from analysis.explanation.attn_classifiers import Instance, renormalise

log = logging.getLogger(__name__)

ORDERS = ("random", "attention", "gradient", "attention_x_gradient")


def js_divergence(p, q):
    """Jensen-Shannon divergence (nats) along the last axis; 0 log 0 = 0."""
    p, q = torch.as_tensor(p, dtype=torch.float64), torch.as_tensor(q, dtype=torch.float64)
    m = 0.5 * (p + q)

    def kl(x, y):
        return torch.where(x > 0, x * (torch.log(x.clamp_min(1e-300)) - torch.log(y.clamp_min(1e-300))), 0.0).sum(-1)

    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def tvd(p, q):
    """Total variation distance along the last axis."""
    return 0.5 * (torch.as_tensor(p) - torch.as_tensor(q)).abs().sum(-1)


# ----------------------------------------------------------------------------- erasure


def single_erasure(a: torch.Tensor, decide_keep, p0: torch.Tensor, rng: np.random.Generator) -> dict:
    """Zero the highest attention weight vs a random other one (renormalise, re-run).

    ``decide_keep(keep (B, n)) -> probs (B, C)``. Needs n >= 2.
    """
    n = a.shape[-1]
    if n < 2:
        raise ValueError("single-weight erasure needs at least two items")
    top = int(torch.argmax(a))
    others = [i for i in range(n) if i != top]
    rand = int(others[rng.integers(len(others))])
    keep = torch.ones((2, n), dtype=a.dtype)
    keep[0, top] = 0
    keep[1, rand] = 0
    with torch.no_grad():
        P = decide_keep(keep).detach()
    p0 = p0.detach()
    pred = int(p0.argmax())
    jsd = js_divergence(P, p0[None].expand_as(P))
    return {
        "n_items": n,
        "top_index": top,
        "top_weight": float(a[top]),
        "random_index": rand,
        "random_weight": float(a[rand]),
        "weight_difference": float(a[top] - a[rand]),
        "jsd_top": float(jsd[0]),
        "jsd_random": float(jsd[1]),
        "jsd_difference": float(jsd[0] - jsd[1]),
        "flip_top": bool(P[0].argmax() != pred),
        "flip_random": bool(P[1].argmax() != pred),
    }


def rankings(a: torch.Tensor, grad: torch.Tensor, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Erasure orders (indices, first erased first): random, attention, gradient of the
    decision w.r.t. attention, attention x gradient."""
    a_, g_ = a.detach().double().numpy(), grad.detach().double().numpy()
    return {
        "random": rng.permutation(len(a_)),
        "attention": np.argsort(-a_, kind="stable"),
        "gradient": np.argsort(-g_, kind="stable"),
        "attention_x_gradient": np.argsort(-(a_ * g_), kind="stable"),
    }


def set_erasure(order, a: torch.Tensor, decide_keep, p0: torch.Tensor) -> dict:
    """Erase items in ``order`` until the decision flips (at most n - 1 items: one must stay).

    Returns items removed, fraction of items removed, attention mass removed (original
    weights), and ``flipped`` (False = never flips; the other fields are then NaN).
    """
    n = a.shape[-1]
    order = np.asarray(order)
    if n < 2:
        return {"n_items": n, "flipped": False, "n_removed": np.nan, "fraction_removed": np.nan, "mass_removed": np.nan}
    keep = torch.ones((n - 1, n), dtype=a.dtype)
    for k in range(n - 1):
        keep[k:, order[k]] = 0  # row k: the first k + 1 items of the order removed
    with torch.no_grad():
        P = decide_keep(keep).detach()
    flips = (P.argmax(-1) != int(p0.argmax())).numpy()
    if not flips.any():
        return {"n_items": n, "flipped": False, "n_removed": np.nan, "fraction_removed": np.nan, "mass_removed": np.nan}
    k = int(np.argmax(flips)) + 1
    return {
        "n_items": n,
        "flipped": True,
        "n_removed": k,
        "fraction_removed": k / n,
        "mass_removed": float(a.detach()[torch.as_tensor(order[:k])].sum()),
    }


def erasure_tables(instances, explainer, seed: int) -> tuple[list[dict], list[dict], int]:
    """Single-weight and set erasure for every instance of one classifier
    (``explainer``: decide_keep(inst), attention_gradient(inst)). Returns (single rows,
    set rows, instances skipped because they have < 2 items)."""
    single, sets, skipped = [], [], 0
    for inst in instances:
        if inst.n < 2:
            skipped += 1
            continue
        rng = np.random.default_rng([seed, inst.id])
        decide = explainer.decide_keep(inst)
        base = {"id": inst.id, "label": inst.label, "prediction": inst.pred}
        single.append({**base, **single_erasure(inst.a, decide, inst.probs, rng)})
        grad = explainer.attention_gradient(inst)
        for name, order in rankings(inst.a, grad, rng).items():
            sets.append({**base, "order": name, **set_erasure(order, inst.a, decide, inst.probs)})
    return single, sets, skipped


# ----------------------------------------------------------------------------- permutation and adversaries


def permutation_test(a: torch.Tensor, decide_attn, p0: torch.Tensor, n_perm: int, rng: np.random.Generator) -> dict:
    """Permute the attention weights ``n_perm`` times; output change (TVD) per permutation
    and its median. ``decide_attn(A (B, n)) -> probs (B, C)``."""
    perms = np.stack([rng.permutation(a.shape[-1]) for _ in range(n_perm)])
    with torch.no_grad():
        P = decide_attn(a[torch.as_tensor(perms)]).detach()
    p0 = p0.detach()
    d = tvd(P, p0[None]).numpy()
    return {
        "median_output_change": float(np.median(d)),
        "max_output_change": float(d.max()),
        "flip_rate": float((P.argmax(-1) != p0.argmax()).float().mean()),
    }


def adversarial_attention(
    H,
    mask,
    a0,
    out_fn,
    p0,
    tolerance: float = 0.01,
    steps: int = 300,
    lr: float = 0.1,
    penalty: float = 100.0,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Attention distributions far (max JSD) from ``a0`` whose output moves <= ``tolerance``.

    Batched over instances: H (B, n, d), mask (B, n) bool, a0 (B, n), p0 (B, C),
    ``out_fn(H, A) -> logits``. Gradient ascent (Adam) on JSD(softmax(z), a0) - penalty *
    relu(TVD - tolerance) over logits z, started at log a0 plus seeded noise (the JSD has
    zero gradient at a0). Returns per instance the largest JSD among the iterates that
    satisfy the tolerance (0 when none did except the original), the TVD there and the
    adversary's max weight.
    """
    g = torch.Generator().manual_seed(seed)
    neg = torch.finfo(a0.dtype).min
    z0 = torch.log(a0.clamp_min(1e-12)) + torch.randn(a0.shape, generator=g, dtype=a0.dtype)
    z = z0.masked_fill(~mask, 0.0).clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=lr)
    B = a0.shape[0]
    best_j = torch.zeros(B, dtype=torch.float64)
    best_d = torch.zeros(B, dtype=torch.float64)
    best_max = a0.max(-1).values.detach().double().clone()
    best_A = a0.detach().clone()
    for _ in range(steps + 1):
        A = torch.softmax(z.masked_fill(~mask, neg), -1)
        P = torch.softmax(out_fn(H, A), -1)
        d = tvd(P, p0)
        j = js_divergence(A, a0).to(A.dtype)
        with torch.no_grad():
            better = (d <= tolerance) & (j.double() > best_j)
            best_j = torch.where(better, j.double(), best_j)
            best_d = torch.where(better, d.double(), best_d)
            best_max = torch.where(better, A.max(-1).values.double(), best_max)
            best_A[better] = A[better]
        loss = (-j + penalty * torch.relu(d - tolerance)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {
        "jsd": best_j.numpy(),
        "output_change": best_d.numpy(),
        "adversary_max_weight": best_max.numpy(),
        "attention": best_A.detach(),
    }


def kendall_tau(x, y) -> float:
    """Kendall's tau-b (NaN when either side is constant or n < 2)."""
    from scipy.stats import kendalltau

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(kendalltau(x, y).statistic)


# ----------------------------------------------------------------------------- the transformer's own attention

_PATCH_NAME = "attention_row_patch"
_ACTIVE: list = []


def _patched_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Eager attention; on the patched layer the probabilities of one query row go
    through the active patch's function."""
    if scaling is None:
        scaling = query.size(-1) ** -0.5
    w = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        w = w + attention_mask
    w = torch.softmax(w, dim=-1)
    patch = _ACTIVE[-1] if _ACTIVE else None
    if patch is not None and getattr(module, "layer_idx", None) == patch.layer and patch.fn is not None:
        row = patch.fn(w[:, :, patch.row, :])
        w = torch.cat([w[:, :, : patch.row], row[:, :, None], w[:, :, patch.row + 1 :]], dim=2)
    out = torch.matmul(w, value).transpose(1, 2).contiguous()
    return out, w


class RowPatch:
    """Context manager: inside it, ``model``'s attention at ``layer`` (0-based) for query
    position ``row`` is replaced by ``self.fn(row_probs (B, heads, n))``."""

    def __init__(self, model, layer: int, row: int = 0):
        from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, eager_mask
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

        self.model, self.layer, self.row, self.fn = model, layer, row, None
        ALL_ATTENTION_FUNCTIONS.register(_PATCH_NAME, _patched_attention)
        ALL_MASK_ATTENTION_FUNCTIONS.register(_PATCH_NAME, eager_mask)  # the additive masks of eager
        layers = {getattr(m, "layer_idx", None) for m in model.modules()} - {None}
        if layer not in layers:
            raise ValueError(
                f"layer {layer} (0-based) not found among the attention modules' layer_idx {sorted(layers)}; "
                "this architecture cannot be patched"
            )

    def __enter__(self):
        self._configs = [
            (c, c._attn_implementation)
            for c in {id(m.config): m.config for m in self.model.modules() if hasattr(m, "config")}.values()
        ]
        for c, _ in self._configs:
            c._attn_implementation = _PATCH_NAME
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        _ACTIVE.remove(self)
        for c, impl in self._configs:
            c._attn_implementation = impl
        return False


class ClsExplainer:
    """The frozen transformer + a linear read-out of its last-layer [CLS]-like state; the
    attention tested is the chosen layer's [CLS] row, heads averaged. Erasing item t zeroes
    column t in every head's row and renormalises each head."""

    def __init__(self, transformer, probe, layer: int):
        self.tf, self.probe, self.layer = transformer, probe, layer

    def _run(self, inst: Instance, fn, fast: bool = True):
        """Output distributions (B, C) with the patched row; ``fast`` re-runs only the layers
        from the patched one up, from the cached hidden states below it (no padding: one
        sentence repeated)."""
        ids = inst.inputs["ids"]
        B = getattr(fn, "batch", 1)
        cls = inst.inputs["cls"]
        with RowPatch(self.tf.model, self.layer, cls) as patch:
            patch.fn = fn
            h_in = inst.inputs.get("h_in") if fast else None
            if h_in is not None:
                h = h_in[None].expand(B, -1, -1).to(self.tf.device)
                for layer in self._layers[self.layer :]:
                    h = layer(h, None)
                    h = h[0] if isinstance(h, tuple) else h
                H = h
            else:
                ids_b = ids[None].expand(B, -1).to(self.tf.device)
                att = torch.ones(ids_b.shape, dtype=torch.long, device=self.tf.device)
                H = self.tf.forward(ids_b, att)
        return torch.softmax(self.probe(H[:, cls].float().cpu()), -1)

    @property
    def _layers(self):
        enc = getattr(self.tf.model, "encoder", None)
        layers = getattr(enc, "layer", None) or getattr(enc, "layers", None)
        return layers if isinstance(layers, torch.nn.ModuleList) else None

    def instance(self, i: int, words: list[str], label: int) -> Instance:
        from analysis.core.models import token_kinds

        ids, _, cls = self.tf.encode_ids(words)
        if cls < 0:
            raise ValueError("the tokenizer marks no [CLS]-like token; the [CLS]-row erasure needs one")
        inst = Instance(
            i,
            self.tf.tok.convert_ids_to_tokens(ids),
            label,
            torch.zeros(0),
            torch.zeros(0),
            torch.zeros(0),
            {"ids": torch.tensor(ids), "cls": cls, "kinds": token_kinds(self.tf.tok, ids)},
        )
        seen = {}

        def capture(row):
            seen["row"] = row.detach()
            return row

        with torch.no_grad():
            inst.probs = self._run(inst, capture, fast=False)[0]
            if self._layers is not None:  # cache the states entering the patched layer, if exact
                ids_ = inst.inputs["ids"][None].to(self.tf.device)
                out = self.tf.model(input_ids=ids_, attention_mask=torch.ones_like(ids_), output_hidden_states=True)
                inst.inputs["h_in"] = out.hidden_states[self.layer][0]
                fast = self._run(inst, lambda row: row, fast=True)[0]
                if not torch.allclose(fast, inst.probs, atol=1e-5):
                    log.warning(
                        "instance %d: re-running the upper layers alone differs from the full model "
                        "(%.2g); using full forward passes",
                        i,
                        float((fast - inst.probs).abs().max()),
                    )
                    del inst.inputs["h_in"]
        inst.inputs["heads"] = seen["row"][0].cpu()  # (heads, n)
        inst.a = inst.inputs["heads"].mean(0)
        return inst

    def decide_keep(self, inst: Instance):
        def decide(keep):
            keep = keep.to(self.tf.device)

            def fn(row):
                w = row * keep[:, None, :].to(row.dtype)
                return w / w.sum(-1, keepdim=True).clamp_min(1e-30)

            fn.batch = keep.shape[0]
            return self._run(inst, fn)

        return decide

    def attention_gradient(self, inst: Instance) -> torch.Tensor:
        """Sum over heads of d p(decision) / d a_{h,t}: the gradient w.r.t. a shift of item
        t's weight shared by every head (same ranking as the gradient w.r.t. the mean)."""
        leaf = {}

        def fn(row):
            r = row.detach().clone().requires_grad_(True)
            leaf["r"] = r
            return r

        with torch.enable_grad():
            p = self._run(inst, fn)[0, inst.pred]
            (g,) = torch.autograd.grad(p, leaf["r"])
        return g[0].sum(0).detach().cpu()


def pooled_instances(explainer, dev, n_max: int) -> list[Instance]:
    """Instances of the first ``n_max`` dev sentences."""
    return [explainer.instance(i, w, y) for i, (w, y) in enumerate(dev[:n_max])]


def renormalised_decider(explainer, inst):
    return lambda keep: explainer.probs_with_attention(inst, renormalise(inst.a, keep))


# ----------------------------------------------------------------------------- per-classifier drivers


def _instance_fields(inst) -> dict:
    """The columns that identify an instance in every per-instance table."""
    return {
        "id": inst.id,
        "label": inst.label,
        "prediction": inst.pred,
        "n_items": inst.n,
        "max_attention": float(inst.a.max()),
    }


def permutation_rows(instances, explainer, n_perm: int, seed: int) -> list[dict]:
    rows = []
    for inst in instances:
        rng = np.random.default_rng([seed, inst.id])
        res = permutation_test(
            inst.a, lambda A, inst=inst: explainer.probs_with_attention(inst, A), inst.probs, n_perm, rng
        )
        rows.append({**_instance_fields(inst), **res})
    return rows


def adversarial_rows(
    instances, explainer, tolerance: float, steps: int, lr: float, penalty: float, seed: int, batch_size: int = 64
) -> list[dict]:
    """Batched adversarial search over instances padded to a common length."""
    rows = []
    out_fn = explainer.clf.output
    for start in range(0, len(instances), batch_size):
        chunk = instances[start : start + batch_size]
        n = max(i.n for i in chunk)
        H = torch.zeros((len(chunk), n, chunk[0].H.shape[1]))
        a0 = torch.zeros((len(chunk), n))
        mask = torch.zeros((len(chunk), n), dtype=torch.bool)
        for k, inst in enumerate(chunk):
            H[k, : inst.n], a0[k, : inst.n], mask[k, : inst.n] = inst.H, inst.a, True
        p0 = torch.stack([i.probs for i in chunk])
        res = adversarial_attention(H, mask, a0, out_fn, p0, tolerance, steps, lr, penalty, seed=seed + start)
        for k, inst in enumerate(chunk):
            rows.append(
                {
                    **_instance_fields(inst),
                    "jsd": float(res["jsd"][k]),
                    "output_change": float(res["output_change"][k]),
                    "adversary_max_weight": float(res["adversary_max_weight"][k]),
                }
            )
    return rows


def rank_agreement_rows(instances, explainer) -> list[dict]:
    rows = []
    for inst in instances:
        a = inst.a.numpy()
        grad = explainer.input_gradient_importance(inst).numpy()
        loo = explainer.leave_one_out(inst).numpy()
        rows.append(
            {
                "id": inst.id,
                "label": inst.label,
                "prediction": inst.pred,
                "n_items": inst.n,
                "tau_gradient": kendall_tau(a, grad),
                "tau_leave_one_out": kendall_tau(a, loo),
            }
        )
    return rows


def set_summary(df):
    """Per encoder and order: instances, never-flip count, median fraction / mass removed."""
    g = df.groupby(["encoder", "order"], sort=False)
    out = g.agg(
        instances=("flipped", "size"),
        flipped=("flipped", "sum"),
        median_fraction_removed=("fraction_removed", "median"),
        median_items_removed=("n_removed", "median"),
        median_mass_removed=("mass_removed", "median"),
    ).reset_index()
    out["never_flips"] = out["instances"] - out["flipped"]
    out["never_flips_share"] = out["never_flips"] / out["instances"]
    # never flips counted as removing everything (fraction 1): a median over every instance
    out["median_fraction_never_as_1"] = g["fraction_removed"].apply(lambda x: x.fillna(1.0).median()).to_numpy()
    return out.merge(paired_vs_attention(df), on=["encoder", "order"], how="left")


def paired_vs_attention(df):
    """Per encoder and order: share of instances where the order flips the decision with fewer
    items than the attention order (never flipping = infinitely many), more, or as many."""
    key = ["encoder", "id"]
    items = df.assign(k=df["n_removed"].fillna(np.inf))
    att = items[items.order == "attention"][key + ["k"]].rename(columns={"k": "k_att"})
    m = items.merge(att, on=key)
    m["sooner"], m["later"], m["same"] = m.k < m.k_att, m.k > m.k_att, m.k == m.k_att
    return (
        m.groupby(["encoder", "order"], sort=False)[["sooner", "later", "same"]]
        .mean()
        .add_prefix("vs_attention_")
        .add_suffix("_share")
        .reset_index()
    )


def single_summary(df):
    g = df.groupby("encoder", sort=False)
    out = g.agg(
        instances=("id", "size"),
        flip_rate_top=("flip_top", "mean"),
        flip_rate_random=("flip_random", "mean"),
        median_jsd_top=("jsd_top", "median"),
        median_jsd_random=("jsd_random", "median"),
        share_jsd_top_larger=("jsd_difference", lambda x: float((x > 0).mean())),
    ).reset_index()
    both = df.assign(
        only_top=df.flip_top & ~df.flip_random,
        only_random=~df.flip_top & df.flip_random,
        both=df.flip_top & df.flip_random,
        neither=~df.flip_top & ~df.flip_random,
    )
    return out.merge(
        both.groupby("encoder", sort=False)[["only_top", "only_random", "both", "neither"]].sum().reset_index(),
        on="encoder",
    )
