"""The claim tables' registry: what the scorecard knows of each table a claim can read, declared
beside the rule that writes it (``claim_table(...)`` in rules/*.smk, collected in CLAIM_TABLES)
and handed to the engine as plain data: stem pattern -> {rule, unit, cluster, reads_maps, family,
finetuned_maps, replicates}. A stem pattern may hold wildcards (``dep_heads.{corpus}``)."""

from __future__ import annotations

import re

from analysis.scorecard.values import specs_of


def _pattern(stem: str) -> re.Pattern:
    parts = re.split(r"(\{[^}]+\})", stem)
    return re.compile("".join("[^.]+" if p.startswith("{") else re.escape(p) for p in parts) + "$")


def lookup(registry: dict[str, dict], stem: str) -> dict | None:
    """The registry entry of table ``stem`` (exact, else the wildcard pattern it matches)."""
    if stem in registry:
        return registry[stem]
    matches = [entry for pattern, entry in registry.items() if "{" in pattern and _pattern(pattern).match(stem)]
    return matches[0] if len(matches) == 1 else None


def check_stems(check: dict | None) -> list[str]:
    """The tables a check (or premise) reads."""
    return list(dict.fromkeys(s["table"] for s in specs_of(check)))


def derive(claim: dict, registry: dict[str, dict], source: str = "the claims file") -> dict:
    """``claim`` with ``reads_maps`` (its check reads a table of the pre-trained model's maps),
    ``finetuned_maps`` (a table of fine-tuned models' maps, which no control is run for),
    ``trained`` (the training family of its check's tables; None: no training) and ``clustered``
    (a table it reads resamples clusters) from the registry.
    A table no rule declares, or a check mixing two families, is an error naming the claim."""
    for key in ("check", "applies_if", "refuted_if", "resolved_if"):
        for stem in check_stems(claim.get(key)):
            if lookup(registry, stem) is None:
                raise ValueError(
                    f"{source}: claim {claim['id']} reads table {stem!r}, which no rule declares "
                    "(claim_table(...) in the output of its rule, rules/*.smk)"
                )
    checked = [lookup(registry, s) for s in check_stems(claim["check"])]
    families = sorted({e["family"] for e in checked if e["family"]})
    if len(families) > 1:
        raise ValueError(f"{source}: claim {claim['id']} reads tables of several trainings: {', '.join(families)}")
    return {
        **claim,
        "reads_maps": any(e["reads_maps"] for e in checked),
        "finetuned_maps": any(e["finetuned_maps"] for e in checked),
        "trained": families[0] if families else None,
        # whether its replicates drew whole clusters (documents, articles): shown beside the interval
        "clustered": any(e["cluster"] for e in checked),
    }
