"""Where each attention head's output is reached in any Hugging Face encoder: the hook points of
disabling heads (Kovaleva et al.) and head gates (Michel et al.).

Every encoder family computes, in each layer, head h's context c_h = A_h V_h (A_h its attention
probabilities, V_h its slice of the value projection) and feeds the contexts, side by side
(heads x head size wide, head-major), to a linear output projection. The module names differ
(BERT ``query``/``value`` + ``attention.output.dense``; DistilBERT ``v_lin``/``out_lin``; DeBERTa
``value_proj``; ModernBERT one fused ``Wqkv`` and ``Wo``; ALBERT one layer shared by all), so the
sites are found by what they compute, never by name: one probe forward pass records every
``nn.Linear`` call of the encoder, and for layer l the value projection is the call whose output
(or one heads x head-size block of it, for a fused projection) V gives A_l V = the input of a later
call, which is the output projection. Checked by shape and by value, exactly one site per layer;
otherwise the architecture is refused with ``UnsupportedHeads``.

``HeadSiteHooks`` then puts a forward hook on each value projection (to read V) and a forward
pre-hook on each output projection (to change head slices of its input). A module shared by
several layers (ALBERT) is told apart by its call number within the forward pass.
"""

from __future__ import annotations

import weakref
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch import nn

from analysis.core.model_families import ModelRefusal
from analysis.core.models import checked_attentions, shape_of


class UnsupportedHeads(NotImplementedError, ModelRefusal):
    """The heads of this architecture cannot be reached (no value / output projection pair found)."""


@dataclass(frozen=True)
class HeadSite:
    """Layer ``layer``'s heads: V is block ``value_block`` of call ``value_call`` of ``value``;
    the contexts are the input of call ``output_call`` of ``output`` (calls counted per forward)."""

    layer: int
    value: nn.Linear
    value_call: int
    value_block: int
    output: nn.Linear
    output_call: int


def _probe_calls(model) -> tuple[list, tuple]:
    """Every nn.Linear call of the encoder on a seeded probe input: (module, call number, input,
    output), in order; and the attention probabilities of that pass."""
    base = model.base_model
    device = next(model.parameters()).device
    ids = torch.randint(0, int(model.config.vocab_size), (1, 7), generator=torch.Generator().manual_seed(0))
    calls, counts, hooks = [], {}, []

    def record(module, args, output):
        k = counts[id(module)] = counts.get(id(module), -1) + 1
        calls.append((module, k, args[0].detach(), output.detach()))

    for m in base.modules():
        if isinstance(m, nn.Linear):
            hooks.append(m.register_forward_hook(record))
    was_training = base.training
    base.eval()
    try:
        # in fp32 whatever autocast the caller runs in: the sites are found by comparing values
        with torch.no_grad(), torch.autocast(torch.device(device).type, enabled=False):
            out = base(input_ids=ids.to(device), attention_mask=torch.ones_like(ids).to(device), output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
        base.train(was_training)
    return calls, checked_attentions(model, out)


def _contexts(att: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """att (heads, n, n) @ ``values`` (n, heads * d), per head: the contexts (n, heads * d), in float64."""
    h, n, _ = att.shape
    return torch.einsum("hqk,khd->qhd", att.double(), values.double().view(n, h, -1)).reshape(n, -1)


def _matching(expected: torch.Tensor, inputs: torch.Tensor, dtype) -> torch.Tensor:
    """Which of ``inputs`` (calls, n, width; float64) equal ``expected`` (n, width) within the noise of
    the model's ``dtype``: a bool per call."""
    tol = 1e-3 if dtype in (torch.float16, torch.bfloat16) else 1e-5
    scale = float(expected.abs().max().clamp(min=1.0))
    return ((inputs - expected).abs() <= tol * scale + tol * 10 * expected.abs()).flatten(1).all(1)


def _find_sites(model) -> list[HeadSite]:
    n_heads = shape_of(model)[1]
    calls, atts = _probe_calls(model)
    n = atts[0].shape[-1]
    calls = [c for c in calls if c[2].dim() == 3 and c[2].shape[1] == n and c[3].shape[:2] == (1, n)]  # per token
    dtype = calls[0][2].dtype
    # the inputs of the calls, stacked by width (a possible output projection's input is heads * d wide)
    by_width = {}
    for j, c in enumerate(calls):
        if c[2].shape[-1] % n_heads == 0:
            by_width.setdefault(c[2].shape[-1], []).append(j)
    stacked = {w: torch.stack([calls[j][2][0].double() for j in js]) for w, js in by_width.items()}
    sites = []
    for layer, att in enumerate(atts):
        found = []
        # each candidate V (a call's output, or one block of it as wide as some call's input) times
        # the attention, compared with the inputs of every later call of that width at once
        for i, (val_mod, val_call, _, y) in enumerate(calls):
            for width in (w for w in by_width if y.shape[-1] % w == 0):
                later = torch.tensor([j > i for j in by_width[width]])
                for block in range(y.shape[-1] // width):
                    expected = _contexts(att[0], y[0, :, block * width : (block + 1) * width])
                    hits = _matching(expected, stacked[width], dtype) & later
                    found += [
                        HeadSite(layer, val_mod, val_call, block, calls[j][0], calls[j][1])
                        for j, hit in zip(by_width[width], hits.tolist())
                        if hit
                    ]
        if len(found) != 1:
            raise UnsupportedHeads(
                f"{type(model).__name__} ({model.config.model_type}): layer {layer + 1} has {len(found)} "
                "(value projection, output projection) pairs whose contexts equal the attention times the "
                "values, expected one; the heads of this architecture cannot be reached"
            )
        sites.append(found[0])
    return sites


_SITES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def head_sites(model) -> list[HeadSite]:
    """The head site of every layer, in order (found once per model object)."""
    if model not in _SITES:
        _SITES[model] = _find_sites(model)
    return _SITES[model]


def shared_layers(model) -> bool:
    """Whether one attention module serves several layers (ALBERT): its sites differ by call number."""
    return any(s.value_call or s.output_call for s in head_sites(model))


class HeadSiteHooks:
    """Context manager: within it, ``on_values(layer, V)`` sees every layer's value vectors
    ((batch, n, heads, d)) and ``on_contexts(layer, C)`` may return a replacement for its head
    contexts ((batch, n, heads, d), the output projection's input) or None to keep them."""

    def __init__(self, model):
        self.model = model
        self.sites = head_sites(model)
        self.n_heads = shape_of(model)[1]
        self._value_sites = {(id(s.value), s.value_call): s for s in self.sites}
        self._output_sites = {(id(s.output), s.output_call): s for s in self.sites}
        self._counts: dict = {}
        self._hooks = []

    def on_values(self, layer: int, values: torch.Tensor) -> None:
        return None

    def on_contexts(self, layer: int, contexts: torch.Tensor) -> torch.Tensor | None:
        return None

    def __enter__(self):
        self._hooks.append(self.model.base_model.register_forward_pre_hook(lambda *_: self._counts.clear()))
        for mod in {id(s.value): s.value for s in self.sites}.values():
            self._hooks.append(mod.register_forward_hook(self._value_hook))
        for mod in {id(s.output): s.output for s in self.sites}.values():
            self._hooks.append(mod.register_forward_pre_hook(self._output_hook))
        return self

    def __exit__(self, *exc):
        for h in self._hooks:
            h.remove()
        self._hooks.clear()
        return False

    def _call(self, module, kind: str) -> int:
        key = (kind, id(module))
        self._counts[key] = self._counts.get(key, -1) + 1
        return self._counts[key]

    def _value_hook(self, module, args, output):
        site = self._value_sites.get((id(module), self._call(module, "v")))
        if site is not None:
            w = site.output.in_features  # one block of a fused projection is as wide as the contexts
            v = output[..., site.value_block * w : (site.value_block + 1) * w]
            self.on_values(site.layer, v.view(*v.shape[:-1], self.n_heads, w // self.n_heads))

    def _output_hook(self, module, args):
        site = self._output_sites.get((id(module), self._call(module, "o")))
        if site is None:
            return None
        x = args[0]
        new = self.on_contexts(site.layer, x.view(*x.shape[:-1], self.n_heads, x.shape[-1] // self.n_heads))
        if new is None:
            return None
        return (new.reshape(x.shape),) + tuple(args[1:])


def layer_list(model) -> tuple[nn.Module, str, nn.ModuleList]:
    """The encoder's list of layers (the outermost ModuleList with one entry per layer), its
    parent and attribute name; NotImplementedError where there is none (ALBERT shares one layer)."""
    n_layers = shape_of(model)[0]
    lists = {n: m for n, m in model.base_model.named_modules() if isinstance(m, nn.ModuleList) and len(m) == n_layers}
    outer = [n for n in lists if not any(n.startswith(o + ".") for o in lists)]
    if len(outer) != 1 or shared_layers(model):
        raise NotImplementedError(f"{type(model.base_model).__name__}: no single list of {n_layers} layers to start at")
    parent, _, attr = outer[0].rpartition(".")
    return (model.base_model.get_submodule(parent) if parent else model.base_model), attr, lists[outer[0]]


@contextmanager
def start_at_layer(model, layer: int, hidden: torch.Tensor):
    """Run the model from ``layer`` (0-based) upwards on ``hidden``, the input of that layer:
    the layers below are skipped and ``hidden`` replaces the input of the first one run. The
    rest of the forward pass (embeddings, masks, upper layers, pooler, task head) is the model's own."""
    parent, attr, layers = layer_list(model)

    def feed(module, args, kwargs):
        if args:
            return (hidden,) + tuple(args[1:]), kwargs
        return args, {**kwargs, "hidden_states": hidden}

    setattr(parent, attr, nn.ModuleList(list(layers)[layer:]))
    handle = layers[layer].register_forward_pre_hook(feed, with_kwargs=True)
    try:
        yield
    finally:
        handle.remove()
        setattr(parent, attr, layers)
