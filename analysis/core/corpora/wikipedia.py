"""Wikipedia segments as in BERT pre-training and Clark et al. sec. 3.

WikiText raw files hold one paragraph a line, article titles as `` = Title = `` lines
(sections as `` = = Section = = ``), CRLF line ends, and the tokenisation artefacts
``@-@``, ``@,@``, ``@.@`` inside numbers and compounds (undone here).

A segment is ``[CLS] A [SEP] B [SEP]``: A and B are consecutive chunks of whole sentences
of one article, together at most ``max_len`` word pieces. Each article is packed greedily
into consecutive, non-overlapping segments; the A/B split falls at a random sentence
boundary (seeded); then ``n_segments`` of them are sampled (seeded).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np

from analysis.core.corpora import reader
from analysis.core.inputs import read_text, seeded_subset

TITLE = re.compile(r"^ ?= ([^=].*[^=]) = ?$")
HEADING = re.compile(r"^ ?(=\s?){2,}.*(=\s?){2,}$")
ARTEFACT = re.compile(r" @([-,.])@ ")
# sentence end: . ! ? (optionally followed by a closing quote or bracket) before a space
SENT_END = re.compile(r"(?<=[.!?])(?:\s+[\"')\]])?\s+(?=[A-Z0-9\"'(\[])")


def read_articles(path) -> list[tuple[str, list[list[str]]]]:
    """(title, paragraphs) per article; a paragraph is a list of sentences (strings)."""
    articles: list[tuple[str, list[list[str]]]] = []
    with io.StringIO(read_text(path), newline="") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            m = TITLE.match(line)
            if m and not HEADING.match(line):
                articles.append((m.group(1).strip(), []))
                continue
            if HEADING.match(line):
                continue
            if not articles:
                raise ValueError(f"{path}:{lineno}: text before the first ' = Title = ' line")
            text = ARTEFACT.sub(r"\1", line.strip())
            sents = [s.strip() for s in SENT_END.split(text) if s.strip()]
            articles[-1][1].append(sents)
    return articles


def _pieces(tokenizer, sentences: list[str]) -> list[int]:
    enc = tokenizer(sentences, add_special_tokens=False)
    return [len(ids) for ids in enc["input_ids"]]


def segments(articles, tokenizer, max_len: int = 128, seed: int = 0) -> tuple[list[dict], dict]:
    """Every segment of every article, in order, with counts of what had to be cut."""
    rng = np.random.default_rng(seed)
    budget = max_len - tokenizer.num_special_tokens_to_add(pair=True)
    out, counts = (
        [],
        {"articles": len(articles), "sentences": 0, "long_sentences_cut": 0, "single_sentence_segments": 0},
    )
    for a_idx, (title, paragraphs) in enumerate(articles):
        sents = [s for p in paragraphs for s in p]
        counts["sentences"] += len(sents)
        if not sents:
            continue
        lens = _pieces(tokenizer, sents)
        chunk: list[list[str]] = []
        used = 0

        def flush(title=title, a_idx=a_idx):
            nonlocal chunk, used
            if chunk:
                out.append(_split_ab(chunk, title, a_idx, len(out), rng, counts))
            chunk, used = [], 0

        for s, n in zip(sents, lens):
            words = s.split()
            if n > budget:  # one sentence longer than a segment: cut it, counted
                counts["long_sentences_cut"] += 1
                words = _cut_to(tokenizer, words, budget)
                n = budget
            if used + n > budget:
                flush()
            chunk.append(words)
            used += n
        flush()
    counts["segments_available"] = len(out)
    return out, counts


def _cut_to(tokenizer, words: list[str], budget: int) -> list[str]:
    enc = tokenizer(words, is_split_into_words=True, add_special_tokens=False)
    keep = {w for w, _ in zip(enc.word_ids(), range(budget)) if w is not None}
    return words[: max(keep) + 1] if len(enc["input_ids"]) <= budget else words[: max(keep)]


def _split_ab(chunk, title, a_idx, seg_idx, rng, counts) -> dict:
    boundary = "sentence"
    if len(chunk) >= 2:
        cut = int(rng.integers(1, len(chunk)))
        a = [w for s in chunk[:cut] for w in s]
        b = [w for s in chunk[cut:] for w in s]
    else:  # one sentence fills the segment: split it at a word boundary in the middle
        counts["single_sentence_segments"] += 1
        boundary = "word"
        words = chunk[0]
        if len(words) < 2:
            a, b = words, words  # degenerate; never happens with real text
        else:
            a, b = words[: len(words) // 2], words[len(words) // 2 :]
    return {
        "id": f"wiki-{seg_idx:05d}",
        "words": [a, b],
        "meta": {"article": title, "article_index": a_idx, "ab_boundary": boundary},
    }


@reader("wikipedia")
def prepare_wikipedia(raw_dir, tokenizer, file: str, n_segments: int = 1000, max_len: int = 128, seed: int = 0):
    arts = read_articles(Path(raw_dir) / file)
    segs, counts = segments(arts, tokenizer, max_len=max_len, seed=seed)
    if n_segments > len(segs):
        raise ValueError(f"{file}: asked for {n_segments} segments, only {len(segs)} can be made")
    counts["segments_sampled"] = n_segments
    return seeded_subset(segs, n_segments, seed + 1), counts
