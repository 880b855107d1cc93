"""The light rules' scripts (no work estimate in analysis/scheduling/heavy_rules.py) start without torch,
transformers, scipy or sklearn unless they use them (issue 39: importing torch was most of a table
reader's start-up). A budget on modules, never on seconds: each script's module-level imports run in a
fresh process, and what they loaded is read from ``sys.modules``."""

import ast
import json
import subprocess
import sys

from analysis.scheduling.heavy_rules import HEAVY
from conftest import ROOT

BANNED = ("torch", "transformers", "scipy", "sklearn")
# light rules whose own work needs one of them at import (what for); an entry no longer needed fails
USES = {
    "staying_true_models": {"torch"},  # trains the LSTM classifiers
    "staying_true_adversary": {"torch"},  # trains the adversarial models
    "staying_true_erasure": {"torch"},  # runs the trained models on erased inputs
    "staying_true_permutation": {"torch"},  # runs them on permuted attention
    "staying_true_single_token": {"torch"},  # runs them on single-token inputs
}

# One process loads what every reader may (numpy, pandas, matplotlib; with "seaborn", seaborn too, which
# loads scipy.stats and scipy.cluster itself), then forks once per script: the child runs the script's
# imports and reports the packages of BANNED with a module that the parent had not loaded. Without
# seaborn, a script that asks for it stops there (reported as "seaborn"): it is probed again with it,
# so that scipy counts for a figure-drawing script only where it loads more of scipy than seaborn does.
PROBE = """
import json, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot, numpy, pandas
if {seaborn!r}:
    import seaborn
banned = {banned!r}
before = set(sys.modules)
assert {seaborn!r} or not [m for m in before if m.split(".")[0] in banned], "the probe loaded a banned package"


class NeedsSeaborn(BaseException):  # not an ImportError: no try/except of the imported code catches it
    pass


class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "seaborn":
            raise NeedsSeaborn


for name, code in json.loads(sys.stdin.read()).items():
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        sys.meta_path.insert(0, Stop())
        try:
            exec(compile(code, name, "exec"), {{"__name__": "imports_of_" + name}})
            out = sorted({{m.split(".")[0] for m in set(sys.modules) - before if m.split(".")[0] in banned}})
        except NeedsSeaborn:
            out = "seaborn"
        except BaseException as e:
            out = {{"error": repr(e)}}
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        print(name, f.read(), flush=True)
    os.waitpid(-1, 0)
"""


def light_scripts(workflow) -> dict:
    """rule -> its script, for every rule with a script and no work estimate."""
    out = {}
    for rule in workflow.rules:
        if rule.name not in HEAVY and rule.script:
            out[rule.name] = (ROOT / "rules" / rule.script).resolve()
    return out


def module_imports(path) -> str:
    """The import statements at the top level of a script (those that run before its work)."""
    tree = ast.parse(path.read_text())
    return "\n".join(ast.unparse(n) for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom))


def probe(code: dict, seaborn: bool) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", PROBE.format(seaborn=seaborn, banned=BANNED)],
        input=json.dumps(code),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return {name: json.loads(found) for name, found in (line.split(" ", 1) for line in run.stdout.splitlines())}


def loaded_by(scripts: dict) -> dict:
    """rule -> the packages of BANNED its script's imports load beyond numpy, pandas, matplotlib
    and, where it asks for it, seaborn."""
    code = {rule: module_imports(path) for rule, path in scripts.items()}
    found = probe(code, seaborn=False)
    figures = {rule: code[rule] for rule, got in found.items() if got == "seaborn"}
    return {**found, **(probe(figures, seaborn=True) if figures else {})}


def test_light_rules_import_only_what_they_use(workflow):
    scripts = light_scripts(workflow)
    # the readers of issue 39 are among them, and no heavy rule is
    assert {"entropy", "relative_position", "special_tokens", "coref_heads", "probes"} <= set(scripts)
    assert not set(scripts) & set(HEAVY) and set(USES) <= set(scripts)
    loaded = loaded_by(scripts)
    assert set(loaded) == set(scripts)
    over, unused = [], []
    for rule, found in sorted(loaded.items()):
        assert isinstance(found, list), f"{rule}: importing its script failed: {found}"
        over += [f"{rule} loads {m}" for m in found if m not in USES.get(rule, ())]
        unused += [f"{rule} declares {m}" for m in USES.get(rule, ()) if m not in found]
    assert not over, "import these inside the functions that need them, or split the module: " + "; ".join(over)
    assert not unused, "no longer loaded: remove from USES: " + "; ".join(unused)


def test_the_probe_sees_a_banned_import(tmp_path):
    """The check is not vacuous: a script that imports torch at the top is reported."""
    script = tmp_path / "reader.py"
    script.write_text("import json\nimport torch\n\nprint(json.dumps(1))\n")
    plain = tmp_path / "plain.py"
    plain.write_text("import pandas as pd\nfrom analysis.shared.rule_io import write_table\n")
    # seaborn's own scipy is no cost; scipy.signal, which seaborn does not load, is
    figure = tmp_path / "figure.py"
    figure.write_text("import seaborn\nimport scipy.stats\n")
    signal = tmp_path / "signal.py"
    signal.write_text("import seaborn\nimport scipy.signal\n")
    loaded = loaded_by({"reader": script, "plain": plain, "figure": figure, "signal": signal})
    assert loaded == {"reader": ["torch"], "plain": [], "figure": [], "signal": ["scipy"]}
