"""The config has one source of defaults (the schema), config/config.default.yaml repeats them, every
object is closed, and every key the rules read exists in the schema."""

import copy
import re

import pytest
import yaml
from jsonschema import Draft202012Validator
from snakemake.utils import validate

from analysis.core.config_defaults import apply_defaults, load_schema
from conftest import ROOT

SCHEMA_PATH = ROOT / "config" / "schema" / "config.schema.yaml"
SCHEMA = load_schema()


def load(*names):
    cfg = {}
    for name in names:
        _merge(cfg, yaml.safe_load((ROOT / name).read_text()))
    return cfg


def _merge(a: dict, b: dict) -> None:  # as Snakemake merges configfiles: recursively
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            _merge(a[k], v)
        else:
            a[k] = copy.deepcopy(v)


def leaves(d, path=()):
    if isinstance(d, dict) and d:
        for k, v in d.items():
            yield from leaves(v, (*path, k))
    else:
        yield path, d


def lookup(d, path):
    for k in path:
        d = d[k]
    return d


def resolve(node):
    while "$ref" in node:
        node = lookup(SCHEMA, node["$ref"][2:].split("/"))
    return node


def _branches(node):
    """``node`` and the sub-schemas its keys may be declared in (allOf items, if/then/else)."""
    node = resolve(node)
    yield node
    for sub in [*node.get("allOf", []), node.get("then"), node.get("else")]:
        if sub:
            yield from _branches(sub)


def schema_has(path) -> bool:
    nodes = [SCHEMA]
    for key in path:
        found = []
        for node in (b for n in nodes for b in _branches(n)):
            if key in node.get("properties", {}):
                found.append(node["properties"][key])
            elif isinstance(node.get("additionalProperties"), dict):
                found.append(node["additionalProperties"])
        if not found:
            return False
        nodes = found
    return True


def test_config_yaml_sets_only_schema_defaults():
    """config/config.default.yaml holds what a user changes, each value the schema's default (so the default
    run is the schema's), and the corpora, which the user names (each option a known one)."""
    defaults = apply_defaults({}, SCHEMA)
    config = yaml.safe_load((ROOT / "config" / "config.default.yaml").read_text())
    assert {"model", "corpora", "bootstrap", "trainings"} <= set(config)
    for path, value in leaves(config):
        if path[0] == "corpora":  # named by the user; their options' defaults are checked below
            continue
        assert lookup(defaults, path) == value, f"config.yaml {'.'.join(path)} differs from the schema default"
    for path, _ in leaves(config):
        if path[0] != "corpora":
            # the key's own default, or (open maps such as paper_uas) the default of the map holding it
            has = any("default" in resolve(_node(path[:n])) for n in range(len(path), 1, -1))
            assert has or len(path) == 1 and "default" in resolve(_node(path)), f"{'.'.join(path)}: no default"


def test_the_key_reference_of_the_docs_is_the_schema():
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "tools.docs.config_reference", "--check"], cwd=ROOT, capture_output=True
    )
    assert run.returncode == 0, run.stdout
    page = (ROOT / "docs" / "configuration.md").read_text()
    for key in ("bootstrap.resamples", "kovaleva_finetune.finetune.lr", "clark_probes.paper_uas"):
        assert f"| `{key}` |" in page


def _node(path):
    node = SCHEMA
    for key in path:
        node = resolve(node)
        node = node["properties"][key] if key in node.get("properties", {}) else node["additionalProperties"]
    return node


def test_every_schema_key_has_a_description():
    def walk(node, where):
        node = resolve(node)
        for key, sub in node.get("properties", {}).items():
            sub_r = resolve(sub)
            if key not in ("reader", "source") or "description" in sub_r:
                assert "description" in sub_r or "description" in sub, f"{where}.{key} has no description"
            walk(sub, f"{where}.{key}")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            walk(extra, f"{where}.*")
        for part in node.get("allOf", []):
            walk(part.get("then", {}), where)

    walk(SCHEMA, "config")


@pytest.mark.parametrize(
    "configs",
    [
        ["config/config.default.yaml"],
        ["config/config.default.yaml", "config/smoke.yaml"],
        ["config/config.default.yaml", "config/paper.yaml"],
        ["config/config.default.yaml", "config/random_init_model.yaml"],
        ["config/config.default.yaml", "config/trainings.yaml"],
        ["config/config.default.yaml", "config/seed_reference.yaml"],
        ["config/config.default.yaml", "config/smoke.yaml", "config/test/branches.yaml"],
    ],
)
def test_shipped_configs_validate(configs):
    cfg = apply_defaults(load(*configs), SCHEMA)
    validate(cfg, str(SCHEMA_PATH))  # as the Snakefile does: Snakemake follows the sections' $ref itself
    Draft202012Validator(SCHEMA).validate(cfg)  # the schema put together, as every other reader reads it


@pytest.mark.parametrize(
    "change, name",
    [
        (lambda c: c.update(max_len_polcy="error"), "max_len_polcy"),
        (lambda c: c["corpora"]["wsj_dp"].update(max_sentence=5), "max_sentence"),
        (lambda c: c["clark_probes"].update(epoch=3), "epoch"),
        (lambda c: c["explanation"]["adversarial"].update(step=3), "step"),
        (lambda c: c["corpora"]["gap_dev"].update(files="x"), "files"),
    ],
)
def test_unknown_keys_fail_with_their_name(change, name):
    cfg = apply_defaults(load("config/config.default.yaml"), SCHEMA)
    change(cfg)
    with pytest.raises(Exception, match=re.escape(f"'{name}' was unexpected")):
        validate(cfg, str(SCHEMA_PATH))
    with pytest.raises(Exception, match=re.escape(f"'{name}' was unexpected")):
        Draft202012Validator(SCHEMA).validate(cfg)


def test_each_schema_file_is_a_schema_and_a_definition_is_named_once(tmp_path):
    """config.schema.yaml and each section's file are JSON schemas of their own (Snakemake resolves
    the $ref between them as files); put together, a section's $defs may not take a name already used."""
    for path in sorted((ROOT / "config" / "schema").glob("*.schema.yaml")):
        Draft202012Validator.check_schema(yaml.safe_load(path.read_text()))
    assert SCHEMA["properties"]["clark_probes"]["properties"]["how"] == {"$ref": "#/$defs/how"}  # made local
    assert {"how", "corpus", "mlm_head", "finetune"} <= set(SCHEMA["$defs"])
    section = {"type": "object", "$defs": {"how": {"type": "string"}}}
    (tmp_path / "a.schema.yaml").write_text(yaml.safe_dump(section))
    top = {"properties": {"a": {"$ref": "a.schema.yaml"}}, "$defs": {"how": {"type": "integer"}}}
    (tmp_path / "config.schema.yaml").write_text(yaml.safe_dump(top))
    with pytest.raises(ValueError, match=r"a\.schema\.yaml: \$defs\.how is defined twice"):
        load_schema(tmp_path / "config.schema.yaml")


@pytest.mark.parametrize("path", ["config/sources.yaml", "tests/fixtures/sources.yaml"])
def test_sources_files_validate(path):
    validate(yaml.safe_load((ROOT / path).read_text()), str(ROOT / "config" / "schema" / "sources.schema.yaml"))


def test_apply_defaults_follows_refs_and_reader_branches():
    cfg = {"corpora": {"a": {"reader": "conllx", "source": "s"}, "b": {"reader": "gap", "source": "g"}}}
    apply_defaults(cfg, SCHEMA)
    assert cfg["corpora"]["a"]["n_shards"] == 1 and cfg["corpora"]["a"]["seed"] == 0
    assert cfg["corpora"]["b"] == {"reader": "gap", "source": "g", "n_shards": 1}  # gap takes no seed
    assert cfg["clark_probes"]["epochs"] == 8  # through $ref
    given = {"clark_probes": {"epochs": 3}}
    assert apply_defaults(given, SCHEMA)["clark_probes"]["epochs"] == 3  # never overwritten


ALIAS = re.compile(r"^(\w+) = (config(?:\[\"\w+\"\])+)\s*$", re.M)
KEYS = re.compile(r"\[\"([\w-]+)\"\]")


def config_reads(text: str):
    """Literal key paths read from config in a rules file, through aliases like DEP = config["clark_syntax"]."""
    aliases = {m.group(1): KEYS.findall(m.group(2)) for m in ALIAS.finditer(text)}
    for m in re.finditer(r"\b(config|[A-Z][A-Z0-9_]*)((?:\[\"[\w-]+\"\])+)", text):
        base = [] if m.group(1) == "config" else aliases.get(m.group(1))
        if base is not None:
            yield tuple(base + KEYS.findall(m.group(2)))


def test_every_key_read_in_rules_and_scripts_is_in_the_schema():
    files = [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk")), *sorted((ROOT / "workflow").glob("*.py"))]
    seen = 0
    for path in files:
        for keys in config_reads(path.read_text()):
            if keys and keys[0] == "sources":
                continue
            seen += 1
            assert schema_has(keys), f"{path.name} reads config{''.join(f'[{k!r}]' for k in keys)}: not in the schema"
    assert seen > 50  # the rules do read their values from config


def test_scripts_read_no_config_and_have_no_fallback_defaults():
    for path in sorted((ROOT / "workflow").glob("*.py")):
        text = path.read_text()
        assert "snakemake.config" not in text, f"{path.name} reads the config: pass what it needs as params"
        assert not re.search(r"snakemake\.params\.get\(|params\[[^\]]+\]\.get\(", text), f"{path.name}: a default"


RENAMED = yaml.safe_load((ROOT / "config" / "schema" / "renamed.yaml").read_text())


def test_renamed_keys_name_the_new_key_most_specific_first():
    from analysis.core.config_defaults import renamed_keys

    renamed = {"a": "x", "a.b": "y.b", "c.d": "c.e"}
    assert renamed_keys({"a": {"b": 1}, "c": {"d": 2}}, renamed) == [
        "config key 'a.b' was renamed to 'y.b'",
        "config key 'c.d' was renamed to 'c.e'",
    ]  # 'a' holds only 'b', already named
    assert renamed_keys({"a": {"b": 1, "z": 2}}, renamed) == [
        "config key 'a.b' was renamed to 'y.b'",
        "config key 'a' was renamed to 'x'",
    ]
    assert renamed_keys({"c": {"e": 1}, "x": {}}, renamed) == []


def test_renamed_keys_are_gone_from_the_schema_and_their_new_names_are_in_it():
    for old, new in RENAMED.items():
        assert not schema_has(tuple(old.split("."))), f"{old} is still in the schema"
        for target in re.split(r", | and ", new):
            assert schema_has(tuple(target.split("."))), f"{old} -> {target}: not in the schema"


def test_an_old_key_is_refused_with_its_new_name():
    import subprocess

    run = subprocess.run(
        ["snakemake", "-n", "--quiet", "--config", "kovaleva={tasks: [RTE]}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0
    assert "config key 'kovaleva' was renamed to 'kovaleva_finetune'" in run.stdout + run.stderr
    assert not re.search(TRACEBACK, run.stdout + run.stderr, re.M), run.stderr


# what Snakemake prints under an exception raised while it reads the Snakefile
TRACEBACK = r'Traceback|^\s+File "|in file "'


def test_a_decoder_is_refused_by_its_sentence_alone(tmp_path):
    """A model the workflow cannot analyse stops the dry run with one sentence, no traceback under it."""
    import subprocess

    (tmp_path / "gpt2").mkdir()
    (tmp_path / "gpt2" / "config.json").write_text('{"model_type": "gpt2", "n_layer": 2}')
    run = subprocess.run(
        ["snakemake", "-n", "--quiet", "--config", f"model={tmp_path / 'gpt2'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"Error: model '{tmp_path / 'gpt2'}' is a decoder (causal LM): model type 'gpt2'" in out, out
    assert not re.search(TRACEBACK, out, re.M), out


def test_the_bootstrap_reaches_every_rule_in_one_spelling():
    """Every rule that resamples for the scorecard's intervals takes config bootstrap whole
    (params bootstrap: resamples and seed), rollout included; no rule spells it another way."""
    text = "".join(p.read_text() for p in (ROOT / "rules").glob("*.smk"))
    assert not re.search(r'config\["bootstrap"\]\[', text), "pass config['bootstrap'] whole, as params bootstrap"
    assert text.count('bootstrap=config["bootstrap"]') >= 20
    rollout = re.search(r"^rule rollout:\n(.*?)^rule ", text, re.M | re.S).group(1)
    assert 'bootstrap=config["bootstrap"]' in rollout
