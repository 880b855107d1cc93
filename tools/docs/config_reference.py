"""Write the key reference of docs/configuration.md from the config schema, so that no default or
description is typed twice: one row per key (dotted path, default, description), section by section,
between ``<!-- config-reference:begin -->`` and ``<!-- config-reference:end -->``.

    python -m tools.docs.config_reference           # fill the block of docs/configuration.md
    python -m tools.docs.config_reference --check   # exit 1 if the block is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from analysis.core.config_defaults import load_schema
from tools.docs.page_block import refresh, update_block

ROOT = Path(__file__).resolve().parents[2]
PAGE = "docs/configuration.md"


def resolve(node: dict, root: dict) -> dict:
    while "$ref" in node:
        target = root
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def flow(value) -> str:
    """A default as YAML flow text (what a user would type), | escaped for the table."""
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False).strip()
    text = text.removesuffix("\n...").removesuffix("...").strip()
    return text.replace("|", "\\|")


def one_line(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def rows(node: dict, root: dict, path: list[str]):
    """(dotted key, default, description) of every key under ``node``; an object whose keys are
    described one by one gets no row of its own, an open map (paper_uas) one row."""
    node = resolve(node, root)
    props = node.get("properties")
    if props and node.get("type") == "object" and path:
        for key, sub in props.items():
            yield from rows(sub, root, [*path, key])
        return
    default = flow(node["default"]) if "default" in node else "(required)"
    yield ".".join(path), default, one_line(node.get("description", ""))


def corpus_rows(root: dict):
    """Each reader's options (corpora.<name>.<option>), from the reader blocks of $defs.corpus."""
    corpus = root["$defs"]["corpus"]
    for branch in corpus["allOf"]:
        test = branch["if"]["properties"]["reader"]
        readers = ", ".join([test["const"]] if "const" in test else test["enum"])
        block = resolve(branch["then"], root)
        for key, sub in block["properties"].items():
            if key in ("reader", "source"):
                continue
            sub = resolve(sub, root)
            default = (
                flow(sub["default"]) if "default" in sub else "(required)" if key in block.get("required", []) else "-"
            )
            yield f"corpora.<name>.{key} (reader {readers})", default, one_line(sub.get("description", ""))


def reference(schema: dict) -> str:
    """A table of the top-level values, then one table per section (an object of keys)."""
    header = ["| key | default | what it is |", "|---|---|---|"]
    top, sections = [], []
    for name, node in schema["properties"].items():
        node = resolve(node, schema)
        if name == "corpora" or node.get("properties"):
            found = corpus_rows(schema) if name == "corpora" else rows(node, schema, [name])
            sections += ["", f"**`{name}`**: {one_line(node.get('description', ''))}", "", *header]
            sections += [f"| `{key}` | `{default}` | {text} |" for key, default, text in found]
        else:
            top += [f"| `{key}` | `{default}` | {text} |" for key, default, text in rows(node, schema, [name])]
    return "\n".join(["**Top-level values**", "", *header, *top, *sections])


def generate(root: Path, check: bool) -> list[str]:
    """The block of ``root``'s docs/configuration.md (python -m tools.docs): its stale part, written unless ``check``."""
    return refresh(root / PAGE, "config-reference", reference(load_schema()), check, PAGE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/configuration.md's block is stale")
    args = ap.parse_args(argv)
    text = reference(load_schema())
    return update_block(ROOT / PAGE, "config-reference", text, args.check, "python -m tools.docs.config_reference")


if __name__ == "__main__":
    sys.exit(main())
