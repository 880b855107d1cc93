"""The config's JSON schema put together (:func:`load_schema`), and a config filled with its defaults,
following ``$ref`` and ``if``/``then``.

Snakemake's ``validate(..., set_default=True)`` sets the defaults of plain ``properties`` only;
the workflow's schema keeps reader options and repeated blocks in ``$defs`` (reached through
``$ref`` and ``if``/``then`` on a corpus's ``reader``), so the Snakefile fills those here.
The schema stays the one place where a default is written down; a dataclass of analysis/ whose
fields a rule fills from the config takes its defaults from :func:`schema_defaults`.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[2] / "config" / "schema" / "config.schema.yaml"


def _local_refs(node, top: str):
    """``node`` with each ``$ref`` into ``top`` (``config.schema.yaml#/$defs/how``) made local (``#/$defs/how``)."""
    if isinstance(node, dict):
        return {k: v.removeprefix(top) if k == "$ref" else _local_refs(v, top) for k, v in node.items()}
    return [_local_refs(v, top) for v in node] if isinstance(node, list) else node


def load_schema(path: Path = SCHEMA) -> dict:
    """The config schema as one document: ``path`` (the top-level keys and the definitions shared
    between sections) with each section's own file (a property ``{$ref: <section>.schema.yaml}``)
    put in its place, the section's ``$defs`` beside the shared ones. Snakemake's ``validate`` reads
    the same files through the same ``$ref``; every other reader of the schema reads this."""
    path = Path(path)
    schema = yaml.safe_load(path.read_text())
    defs = schema.setdefault("$defs", {})
    for key, node in schema["properties"].items():
        ref = node.get("$ref", "#")
        if ref.startswith("#"):
            continue
        section = _local_refs(yaml.safe_load((path.parent / ref).read_text()), path.name)
        section.pop("$schema", None)
        for name, definition in section.pop("$defs", {}).items():
            if name in defs:
                raise ValueError(
                    f"{path.parent / ref}: $defs.{name} is defined twice (once more in {path.name} or another section's file)"
                )
            defs[name] = definition
        schema["properties"][key] = {**section, **{k: v for k, v in node.items() if k != "$ref"}}
    return schema


def _resolve(node: dict, root: dict) -> dict:
    while "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"only local $ref is supported, got {ref!r}")
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _matches(cond: dict, instance: dict) -> bool:
    """The ``if`` of the schema: const / enum tests of an object's properties."""
    for key, test in cond.get("properties", {}).items():
        if key not in instance:
            return False
        if "const" in test and instance[key] != test["const"]:
            return False
        if "enum" in test and instance[key] not in test["enum"]:
            return False
    return True


def apply_defaults(instance, schema: dict, root: dict | None = None):
    """Set every missing key that has a ``default`` in ``schema``; returns ``instance`` (changed in place)."""
    root = schema if root is None else root
    node = _resolve(schema, root)
    if not isinstance(instance, dict):
        return instance
    for key, sub in node.get("properties", {}).items():
        sub = _resolve(sub, root)
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance:
            apply_defaults(instance[key], sub, root)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        for key, value in instance.items():
            if key not in node.get("properties", {}):
                apply_defaults(value, extra, root)
    for part in node.get("allOf", []):
        if "if" not in part or _matches(part["if"], instance):
            apply_defaults(instance, part.get("then", part if "if" not in part else {}), root)
    return instance


@functools.cache
def _default_config() -> dict:
    return apply_defaults({}, load_schema())


def schema_defaults(*path: str) -> dict:
    """The defaults of one config section or an object inside it (``schema_defaults("bootstrap")``):
    what a default run passes, so that a dataclass used by hand or in tests behaves as the rule does."""
    node = _default_config()
    for key in path:
        node = node[key]
    return copy.deepcopy(node)


def renamed_keys(instance: dict, renamed: dict[str, str]) -> list[str]:
    """One message per key of ``instance`` that ``renamed`` (old dotted path -> new) lists as
    renamed; the most specific old path wins (``a.b`` before ``a``), each key named once."""
    found, covered = [], set()
    for old in sorted(renamed, key=lambda k: -k.count(".")):
        node, parts = instance, old.split(".")
        for part in parts:
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            inner = {p for p in covered if p.startswith(old + ".")}
            if inner and isinstance(node, dict) and set(node) <= {p.rsplit(".", 1)[1] for p in inner}:
                continue  # every child was reported under its own new name
            found.append(f"config key '{old}' was renamed to '{renamed[old]}'")
            covered.add(old)
    return found


def refuse(message: str) -> None:
    """Stop Snakemake while it reads the Snakefile (a config or a model it cannot run), printing
    ``message`` alone: an exception raised there would be printed with Snakemake's traceback of the
    Snakefile under it."""
    import sys

    print(f"Error: {message}", file=sys.stderr)
    sys.exit(1)
