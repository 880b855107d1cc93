"""The explorer page: 8-bit sqrt codes, the embedded data, and (in headless Chromium) picking a
layer and head and reading a hovered weight back from the page."""

import base64
import json
import re
import shutil
import zlib

import numpy as np
import pandas as pd
import pytest

from analysis.overview.explorer import LEVELS, dequantise, explorer_html, head_numbers, quantisation_step, quantise
from conftest import ROOT

rng = np.random.default_rng(0)


def test_quantisation_error_within_half_a_step():
    w = rng.dirichlet(np.ones(50), size=200).ravel()
    w = np.concatenate([w, [0.0, 1.0, 0.5, 1e-6]])
    err = np.abs(dequantise(quantise(w)) - w)
    assert (err <= np.array([quantisation_step(x) for x in w]) + 1e-12).all()
    assert quantisation_step(1.0) == pytest.approx(1 - (1 - 0.5 / LEVELS) ** 2)
    assert quantisation_step(0.01) < 1e-3  # small weights keep a fine step


def test_examples_are_left_out_to_stay_under_the_size_limit():
    from analysis.overview.explorer import fit_examples

    payloads = [{"maps": "x" * 1000, "n": 10} for _ in range(5)]
    assert len(fit_examples(payloads, 60_000 + 3 * 1320)) == 3
    with pytest.raises(ValueError, match="max_mb"):
        fit_examples(payloads, 60_500)


def random_maps(n_layers, n_heads, n):
    return rng.dirichlet(np.ones(n) * 0.3, size=(n_layers, n_heads, n)).astype(np.float32)


def page_data(page: str) -> dict:
    return json.loads(re.search(r"const DATA = (\{.*?\});\n", page, re.S).group(1).replace("<\\/", "</"))


def test_page_embeds_every_map_and_the_head_numbers():
    maps = random_maps(2, 3, 5)
    ex = {
        "id": "e0",
        "tokens": list("abcde"),
        "kinds": "COOOS",
        "n": 5,
        "maps": base64.b64encode(zlib.compress(quantise(maps).tobytes())).decode(),
    }
    per_head = pd.DataFrame({"layer": [1, 1, 1, 2, 2, 2], "head": [1, 2, 3] * 2})
    rp = per_head.assign(prev=0.1, current=0.2, next=0.3)
    st = per_head.assign(cls=0.4, sep=0.5, punct=0.6)
    en = per_head.assign(entropy=1.0, uniform_entropy=2.0)
    dep = pd.DataFrame(
        {
            "layer": [1, 1],
            "head": [2, 2],
            "relation": ["det", "goeswith"],
            "direction": "dep->head",
            "accuracy": [0.8, 1.0],
            "n": [40, 3],
        }
    )
    heads = head_numbers(rp, st, en, dep, min_count=30)
    assert heads["1-2"]["best_relation"] == "det (dep->head) 0.800"  # goeswith: too few arcs
    page = explorer_html("m", 2, 3, [ex], heads, "note")
    data = page_data(page)
    codes = np.frombuffer(zlib.decompress(base64.b64decode(data["examples"][0]["maps"])), np.uint8).reshape(2, 3, 5, 5)
    assert np.array_equal(codes, quantise(maps))
    assert data["heads"]["2-3"]["entropy"] == 1.0
    assert "http" not in page.split("<script>")[1]  # no network


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install -e '.[test]')")
    if not chromium():
        pytest.skip("no Chromium executable (apt-get install chromium); .ci/run installs it")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield b
        b.close()


def test_the_page_in_chromium(browser, tmp_path):
    n_layers, n_heads, n = 3, 4, 40
    examples = []
    all_maps = []
    for k in range(2):
        maps = random_maps(n_layers, n_heads, n)
        all_maps.append(maps)
        tokens = ["[CLS]", *[f"w{k}_{i}" for i in range(n - 2)], "[SEP]"]
        payload = base64.b64encode(zlib.compress(quantise(maps).tobytes())).decode()
        examples.append({"id": f"ex{k}", "tokens": tokens, "kinds": "C" + "O" * (n - 2) + "S", "n": n, "maps": payload})
    heads = {f"{l}-{h}": {"prev": round(0.1 * l, 4), "entropy": float(h)} for l in range(1, 4) for h in range(1, 5)}
    path = tmp_path / "explorer.html"
    path.write_text(explorer_html("test-model", n_layers, n_heads, examples, heads, "2 test examples"))
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#example", "1")
    page.select_option("#layer", "3")
    page.select_option("#head", "2")
    assert page.inner_text("#headtitle") == "head 3-2"
    assert page.inner_text("#stat-prev") == "0.3"
    box = page.locator("#map").bounding_box()
    pad, cell = 90, 18  # geometry() of the page for n = 40
    i, j = 7, 11
    page.mouse.move(box["x"] + pad + (j + 0.5) * cell, box["y"] + pad + (i + 0.5) * cell)
    hover = page.locator("#hover")
    assert (int(hover.get_attribute("data-row")), int(hover.get_attribute("data-col"))) == (i, j)
    shown = float(hover.get_attribute("data-weight"))
    stored = float(all_maps[1][2, 1, i, j])
    assert abs(shown - stored) <= quantisation_step(stored) + 1e-9
    assert f"{shown:.4f}" in page.inner_text("#hover")
    # switching the head keeps the hovered cell and shows that head's weight there
    page.select_option("#head", "3")
    shown = float(hover.get_attribute("data-weight"))
    stored = float(all_maps[1][2, 2, i, j])
    assert abs(shown - stored) <= quantisation_step(stored) + 1e-9
    assert page.inner_text("#hover").startswith("head 3-3:")
    # thumbnails: one per head, the selected one marked; clicking one selects it
    assert page.locator("#grid canvas").count() == n_layers * n_heads
    page.click("#thumb-2-4")
    assert page.inner_text("#headtitle") == "head 2-4"
    assert page.input_value("#layer") == "2"
    shots = ROOT / "results" / "test_screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "explorer.png"), full_page=True)
    assert not errors, errors
