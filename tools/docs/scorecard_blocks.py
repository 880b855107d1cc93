"""The parts of tools/docs/scorecard_readme.py that read a page and write its generated text: the inline
claim spans (their values: tools/docs/scorecard_values.py), the section blocks, the compact and the full
scorecard blocks and the compact block's text. The syntax of every kind: tools/docs/README.md."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

# the span's value: re-exported, as the tests and scorecard_readme.py read them from here
from tools.docs.page_block import markers
from tools.docs.scorecard_values import (  # noqa: F401
    Pick,
    SpanError,
    claim_value,
    formatted,
    group_text,
    parse_pick,
    read_scorecard,
)

SPAN = re.compile(r"<!-- claim:(?P<spec>\S+)(?: (?P<fmt>\S+))? -->(?P<text>.*?)<!-- /claim -->")
SPAN_OPEN = "<!-- claim:"
# Section markers stand alone at the start of a line, so one quoted in prose or `code` is no marker.
SECTION = re.compile(
    r"^<!-- scorecard-section:begin (?P<patterns>[^>\n]+?) -->\n(?P<body>.*?)^<!-- scorecard-section:end -->",
    re.DOTALL | re.MULTILINE,
)
SECTION_OPEN = re.compile(r"^<!-- scorecard-section:begin ", re.MULTILINE)
# the markers of before (a second grammar): refused with the form that replaced them, not left stale
OLD_MARKER = re.compile(r"^<!-- /?scorecard:(?:full|section)\b.*$", re.MULTILINE)
NEW_FORM = {"full": "scorecard-full:begin / :end", "section": "scorecard-section:begin PATTERNS / :end"}


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def in_code(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside a `code span` of its line: a span quoted there documents the syntax."""
    return text.count("`", text.rfind("\n", 0, pos) + 1, pos) % 2 == 1


def _starts(text: str, sub: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(sub), text)]


def fill_spans(readme: str, rows: dict[str, dict], name: str = "README.md") -> tuple[str, list[str]]:
    """README with every claim span filled, and the stale spans as ``name:line: id: old -> new``.

    Every problem (unknown id, no value, malformed span, a span not closed on its line) is collected
    and raised at once as one SpanError, one line each, so a README edit is fixed in one go."""
    errors, stale, out, last = [], [], [], 0
    for lineno, line in enumerate(readme.split("\n"), start=1):
        opened = [pos for pos in _starts(line, SPAN_OPEN) if not in_code(line, pos)]
        if len(opened) != len([m for m in SPAN.finditer(line) if not in_code(line, m.start())]):
            errors.append(f"{name}:{lineno}: a claim span not closed by <!-- /claim --> on its line")
    for m in SPAN.finditer(readme):
        if in_code(readme, m.start()):
            continue
        lineno = line_of(readme, m.start())
        try:
            new = claim_value(parse_pick(m["spec"], m["fmt"]), rows)
        except SpanError as e:
            errors.append(f"{name}:{lineno}: {e}")
            continue
        if new != m["text"]:
            stale.append(f"{name}:{lineno}: {m['spec']}: {m['text']!r} -> {new!r}")
        out += [readme[last : m.start("text")], new]
        last = m.end("text")
    if errors:
        raise SpanError("\n".join(errors))
    return "".join(out) + readme[last:], stale


def section_rows(patterns: list[str], rows: dict[str, dict]) -> list[dict]:
    """The scorecard rows (in file order) whose id matches a pattern and no ``!``-pattern."""
    keep = [p for p in patterns if not p.startswith("!")]
    drop = [p[1:] for p in patterns if p.startswith("!")]

    def chosen(cid: str) -> bool:
        return any(fnmatch.fnmatchcase(cid, p) for p in keep) and not any(fnmatch.fnmatchcase(cid, p) for p in drop)

    return [row for cid, row in rows.items() if chosen(cid)]


def basis_mark(row: dict) -> str:
    """`` (1 seed)`` / `` (point only)`` / `` (holds on 1 of 2 levels)``: what a verdict rests on, in
    every view of the scorecard (the levels where a per-level claim holds on fewer than it names)."""
    marks = ["1 seed"] * (str(row.get("seeds", "")) == "1") + ["point only"] * (row.get("basis") == "point only")
    held, _, named = str(row.get("levels") or "").partition(" of ")
    marks += [f"holds on {held} of {named} levels"] * bool(named and held != named)
    return f" ({', '.join(marks)})" if marks else ""


def section_block(rows: list[dict], model: str) -> str:
    """One bullet per claim: verdict, id, claim, our value (or why none), the paper's number."""
    lines = [f"Scorecard claims of this section (`{model}`; written by `tools/docs/scorecard_readme.py`):", ""]
    for row in rows:
        ours = row["our_value"] or f"none ({row['reason'] or row['verdict']})"
        difference = f"; model minus control {row['control_difference']}" if row.get("control_difference") else ""
        control = (
            f" Random-init control: {row['control_value']} ({row['control_verdict']}{difference})."
            if row.get("control_verdict")
            else ""
        )
        lines.append(
            f"- **{row['verdict']}**{basis_mark(row)} `{row['id']}`{extension_mark(row)}: {row['claim']} Ours: {ours}.{control} "
            f"Paper: {row['paper_value']}."
        )
    return "\n".join(lines) + "\n"


def fill_sections(readme: str, rows: dict[str, dict], model: str, name: str = "README.md") -> tuple[str, list[str]]:
    """README with every section block regenerated, and the stale ones as ``name:line: section ...``."""
    errors, stale = [], []

    def fill(m: re.Match) -> str:
        lineno = line_of(readme, m.start())
        patterns = m["patterns"].split()
        unmatched = [p for p in patterns if not section_rows([p.lstrip("!")], rows)]
        if unmatched:
            errors.append(f"{name}:{lineno}: section block pattern(s) matching no claim: {', '.join(unmatched)}")
            return m[0]
        body = section_block(section_rows(patterns, rows), model)
        if body != m["body"]:
            stale.append(f"{name}:{lineno}: section block {m['patterns']}")
        return f"<!-- scorecard-section:begin {m['patterns']} -->\n{body}<!-- scorecard-section:end -->"

    new = SECTION.sub(fill, readme)
    if len(SECTION_OPEN.findall(readme)) != len(SECTION.findall(readme)):
        errors.append(f"{name}: a scorecard-section block not closed by <!-- scorecard-section:end -->")
    if errors:
        raise SpanError("\n".join(errors))
    return new, stale


@dataclass(frozen=True)
class Block:
    """A generated block between two markers, each alone on its line (one quoted in prose or `code`
    is no marker); a page holds at most one of each kind."""

    name: str
    begin: str
    end: str

    @property
    def pattern(self) -> re.Pattern:
        return re.compile(rf"^{re.escape(self.begin)}$(?P<body>.*?)^{re.escape(self.end)}$", re.DOTALL | re.MULTILINE)

    def count(self, text: str, page: str) -> int:
        """0 or 1; fails on a marker without its partner, or on a second block."""
        blocks = len(self.pattern.findall(text))
        markers = re.findall(rf"^(?:{re.escape(self.begin)}|{re.escape(self.end)})$", text, re.MULTILINE)
        if len(markers) != 2 * blocks or blocks > 1:
            raise SpanError(
                f"{page}: the {self.name} needs one {self.begin} and one {self.end}, each alone on its line"
            )
        return blocks

    def body(self, text: str) -> str:
        """The text between the markers (``count`` has found them)."""
        return self.pattern.search(text)["body"]

    def line(self, text: str) -> int:
        return line_of(text, self.pattern.search(text).start())

    def splice(self, text: str, fragment: str, page: str) -> str:
        """``text`` with the block's body replaced by ``fragment``."""
        if not self.count(text, page):
            raise SpanError(f"{page} has no {self.begin} ... {self.end} block (each marker alone on its line)")
        m = self.pattern.search(text)
        return f"{text[: m.start()]}{self.begin}\n{fragment.rstrip()}\n{self.end}{text[m.end() :]}"


# README's short table
COMPACT = Block("compact scorecard block", *markers("scorecard"))
# the whole table with intervals and the random-init control: results/<model>/scorecard.md
FULL = Block("full scorecard block", *markers("scorecard-full"))


def old_markers(text: str, name: str) -> list[str]:
    """``name:line: ...`` for each marker of the old grammar (``<!-- scorecard:full -->``, ``<!-- /scorecard:section -->``)."""
    return [
        f"{name}:{line_of(text, m.start())}: old marker {m[0]!r}: now {NEW_FORM['full' if 'full' in m[0] else 'section']}"
        for m in OLD_MARKER.finditer(text)
    ]


# the scorecard's verdicts, in its order (analysis.scorecard.evaluate.VERDICTS)
VERDICTS = (
    "holds",
    "holds, also at random init",
    "holds (no control)",
    "inconclusive",
    "inconclusive (multiplicity)",
    "inconclusive (seed)",
    "does not hold",
    "not applicable",
    "not run",
)
CELL_CHARS = 48  # a compact cell longer than this is cut (at a "; ", ", " or space) and ends in "..."


def shorten(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters before its "...", ``|`` escaped for a table cell."""
    text = " ".join(text.split())
    if len(text) > limit:
        head = text[:limit]
        # the last whole group ("; ") or item (", ") when it keeps half the cell, else the last word
        cut = next((i for i in (head.rfind(s) for s in ("; ", ", ", " ")) if i >= limit // 2), limit)
        text = head[:cut].rstrip(" ;,") + " ..."
    return text.replace("|", "\\|")


def is_extension(row: dict) -> bool:
    """Whether a scorecard row is this project's extension (column ``extension``, claims file
    ``extension: true``: a setting the paper did not test), counted apart from the paper's claims."""
    return str(row.get("extension", "")).strip().lower() == "true"


def extension_mark(row: dict) -> str:
    """`` (extension)`` after the id of an extension claim, in every view of the scorecard."""
    return " (extension)" if is_extension(row) else ""


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def verdict_counts(rows: list[dict]) -> str:
    """The verdict counts of ``rows``: "23 holds; 12 does not hold; on their point value alone (no interval): 1 holds"."""
    counts, apart = {v: 0 for v in VERDICTS}, {v: 0 for v in VERDICTS}
    for row in rows:  # verdicts on a point value alone (no interval) are counted apart
        tally = apart if row.get("basis") == "point only" else counts
        tally[row["verdict"]] = tally.get(row["verdict"], 0) + 1
    alone = "; ".join(f"{n} {v}" for v, n in apart.items() if n)
    text = "; ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"
    return text + (f"; on their point value alone (no interval): {alone}" if alone else "")


def compact_block(rows: dict[str, dict], model: str) -> str:
    """The verdict counts (the paper's claims, this project's extensions apart) and one short row per
    claim (id, verdict, ours, the paper's number)."""
    paper = [r for r in rows.values() if not is_extension(r)]
    extra = [r for r in rows.values() if is_extension(r)]
    lines = [
        f"Claim scorecard of `{model}` ({plural(len(paper), 'paper claim')}, {plural(len(extra), 'extension')}; "
        f"written by `tools/docs/scorecard_readme.py` from `results/{model}/tables/scorecard.csv`): paper claims: "
        + verdict_counts(paper)
        + (f". Extensions (settings the papers did not test): {verdict_counts(extra)}" if extra else "")
        + ".",
        "Ours are fractions (0.796 = 79.6%), the papers' numbers as printed there; a cell longer than "
        f"{CELL_CHARS} characters is cut and ends in `...`.",
        "",
        "| claim | verdict | ours | paper's |",
        "|---|---|---|---|",
    ]

    def with_p(group: list[dict]) -> list[dict]:
        return [r for r in group if r.get("p_value", "") not in ("", "nan")]

    if with_p(paper) or with_p(extra):
        demoted = sum(r["verdict"] == "inconclusive (multiplicity)" for r in paper)
        demoted_extra = sum(r["verdict"] == "inconclusive (multiplicity)" for r in extra)
        alike = sum(r.get("about") == "model-independent" for r in rows.values())
        seed = sum(r["verdict"] == "inconclusive (seed)" for r in rows.values())
        widened = (
            f" {seed} firm on one training seed are undecided once widened by the seed reference (inconclusive (seed));"
            if seed
            else ""
        )
        lines.insert(1, f"Benjamini-Hochberg at 5% over the {plural(len(with_p(paper)), 'paper claim')} with a p "
                     f"and, apart, the {plural(len(with_p(extra)), 'extension')} with a p decides: firm verdicts that "
                     f"are no discovery (inconclusive (multiplicity)): {demoted} of the paper claims, {demoted_extra} "
                     f"of the extensions;{widened} {alike} claims are the same for any model; `1 seed`: the verdict rests on "
                     "one training seed.")  # fmt: skip
    for row in rows.values():
        ours = shorten(row["our_value"]) or "-"
        verdict = row["verdict"] + basis_mark(row)
        lines.append(f"| `{row['id']}`{extension_mark(row)} | {verdict} | {ours} | {shorten(row['paper_value'])} |")
    return "\n".join(lines) + "\n"
