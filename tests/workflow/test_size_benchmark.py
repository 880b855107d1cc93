"""tools/measure/size_benchmark.py: its parts on hand-made benchmark files (the runs themselves are the
benchmark, not a test)."""

import pandas as pd
import pytest
import yaml
from snakemake.utils import validate

from analysis.core.config_defaults import apply_defaults, load_schema
from conftest import ROOT
from tools.measure import size_benchmark as sb

SCHEMA_PATH = ROOT / "config" / "schema" / "config.schema.yaml"


def merged(base, over):
    """``over`` merged into ``base`` as snakemake merges config files (recursively, dicts only)."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return over
    return {**base, **{k: merged(base.get(k), v) for k, v in over.items()}}


def test_sizes_parse_and_bad_ones_are_named():
    assert sb.parse_size("12x768") == (12, 768, 12) and sb.parse_size("24X1024") == (24, 1024, 16)
    assert sb.parse_size("6x384x12") == (6, 384, 12) and sb.slug_of("6x384x12") == "bert-6x384x12"
    for bad in ("12", "12x32", "0x768", "axb", "6x384x7", "1x2x3x4"):
        with pytest.raises(SystemExit, match=bad):
            sb.parse_size(bad)


def test_the_overlay_is_a_valid_config():
    cfg = yaml.safe_load((ROOT / "config" / "config.default.yaml").read_text())
    for key, value in sb.overlay("/models/bert-12x768").items():  # as snakemake merges configfiles
        cfg[key] = merged(cfg.get(key), value)
    validate(apply_defaults(cfg, load_schema()), str(SCHEMA_PATH))
    assert cfg["corpora"]["wiki"]["n_segments"] == 100 and cfg["kovaleva_finetune"]["tasks"] == ["SST-2"]


def test_rule_times_sum_a_rules_jobs_and_keep_the_largest_memory(tmp_path):
    header = "s\th:m:s\tmax_rss\n"
    (tmp_path / "extract_attention.wiki.0.tsv").write_text(header + "10.5\t0:00:10\t900\n")
    (tmp_path / "extract_attention.gum_sd_dev.0.tsv").write_text(header + "2.5\t0:00:02\t1200\n")
    (tmp_path / "entropy.tsv").write_text(header + "1\t0:00:01\t300\n")
    t = sb.rule_times(tmp_path).set_index("rule")
    assert t.loc["extract_attention"].tolist() == [13.0, 1200.0, 2]
    assert t.loc["entropy"].tolist() == [1.0, 300.0, 1]


def test_growth_and_prediction_by_hand():
    # extraction's time = 1e-6 x (L H^2): 6x384 -> 0.884736 s, 12x768 -> 7.077888 s (8x); exponent 1
    sizes = [("6x384", 6, 384), ("12x768", 12, 768)]  # (heads do not enter the fit)
    table = pd.DataFrame(
        [{"size": s, "layers": L, "hidden": H, "rule": "extract_attention", "s": 1e-6 * L * H**2} for s, L, H in sizes]
    )
    assert sb.growth(table).set_index("rule").loc["extract_attention", "exponent"] == pytest.approx(1.0)
    # the default run: extraction 10 s, disabling heads 100 s (scales like extraction), the scorecard 5 s
    default = pd.DataFrame(
        {"rule": ["extract_attention", "disable_heads_scores", "scorecard"], "s": [10.0, 100.0, 5.0]}
    )
    got = sb.predict(table, default).set_index(["size", "rule"])
    assert got.loc[("12x768", "disable_heads_scores"), "scales_like"] == "extract_attention"
    assert got.loc[("12x768", "disable_heads_scores"), "predicted_s"] == pytest.approx(800)
    assert got.loc[("12x768", "extract_attention"), "predicted_s"] == pytest.approx(80)
    assert got.loc[("12x768", "scorecard"), ["scales_like", "predicted_s"]].tolist() == ["(no model)", 5.0]
    assert got.loc[("6x384", "disable_heads_scores"), "predicted_s"] == pytest.approx(100)


def test_a_run_starts_from_no_output_of_its_size(tmp_path):
    for path in ["results/bert-2x64/tables/t.csv", "resources/surface_sums/bert-2x64/0.npz", "logs/bert-2x64/a.log"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    (tmp_path / "resources" / "surface_sums" / "bert-2x640").mkdir()  # another model: kept
    (tmp_path / "resources" / "size_benchmark" / "models" / "bert-2x64").mkdir(parents=True)  # the model: kept
    gone = sb.clear_outputs("bert-2x64", tmp_path)
    assert sorted(str(p.relative_to(tmp_path)) for p in gone) == [
        "logs/bert-2x64",
        "resources/surface_sums/bert-2x64",
        "results/bert-2x64",
    ]
    assert (
        not (tmp_path / "results" / "bert-2x64").exists() and (tmp_path / "resources/surface_sums/bert-2x640").is_dir()
    )
    assert (tmp_path / "resources" / "size_benchmark" / "models" / "bert-2x64").is_dir()


def test_the_fixed_part_of_a_rule_does_not_grow():
    # time = 3 s (loading, start-up) + 1e-6 x L H^2: the fit finds both; the part that grows 8x
    sizes = [("6x384", 6, 384), ("12x768", 12, 768), ("24x1024", 24, 1024)]
    table = pd.DataFrame(
        [{"size": s, "layers": L, "hidden": H, "rule": "finetune", "s": 3 + 1e-6 * L * H**2} for s, L, H in sizes]
    )
    fit = sb.growth(table).set_index("rule").loc["finetune"]
    assert fit["fixed_s"] == pytest.approx(3) and fit["per_unit_s"] == pytest.approx(1.0)
    got = sb.predict(table, pd.DataFrame({"rule": ["finetune"], "s": [100.0]})).set_index("size")
    # plain ratio (3 + 7.077888) / (3 + 0.884736) = 2.594; the part that grows: 8x -> 800 s
    assert got.loc["12x768", "ratio"] == pytest.approx(10.077888 / 3.884736)
    assert got.loc["12x768", "growth"] == pytest.approx(8) and got.loc["12x768", "predicted_s"] == pytest.approx(800)
