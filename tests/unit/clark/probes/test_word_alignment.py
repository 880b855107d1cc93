"""clark_probes.word_alignment: which word vector scores which candidate head, checked by hand on
two padded sentences (units: 0 = the root, i = word i, zeros past a sentence's end)."""

import numpy as np
import pytest
import torch

from analysis.clark.probes.data import Sentence
from analysis.clark.probes.models import AttnProbe, MLPProbe, candidate_vectors
from analysis.clark.probes.training import batches


def sentence(sid, vectors):
    W = len(vectors)
    attn = np.zeros((2, W + 2, W + 2), dtype=np.float16)
    attn[0, : W + 1, : W + 1] = 1.0  # head 0 attends with weight 1 among [CLS] and the words, head 1 nowhere
    return Sentence(
        sid,
        [f"w{i}" for i in range(W)],
        np.zeros(W, dtype=np.int64),
        np.ones(W, dtype=bool),
        attn=attn,
        extra={"vec": np.asarray(vectors, dtype=np.float32)},
    )


# word vectors: one component each, so a sum over the components names the word it came from
A, B, C, D = [0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.3], [0.4, 0, 0]


def batch(need_attn):
    """Sentence 1: words a b c; sentence 2: word d (padded to 3 words)."""
    return next(batches([sentence("s1", [A, B, C]), sentence("s2", [D])], 2, need_attn, True))


def test_candidate_vectors_by_hand():
    v = batch(False)["vec"]
    assert candidate_vectors(v, "paper") is v
    shifted = candidate_vectors(v, "notebook")
    # sentence 1: the root scored with a's vector, a with b's, b with c's, c with zeros
    assert shifted[0].numpy() == pytest.approx(np.array([A, B, C, [0, 0, 0]]))
    # sentence 2: the root with d's vector, d (its last word) with the padding's zeros
    assert shifted[1].numpy() == pytest.approx(np.array([D, [0, 0, 0], [0, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="clark_probes.word_alignment"):
        candidate_vectors(v, "shifted")


def mlp(alignment):
    """s(j, i) = tanh-sum of candidate i's vector + 2 x tanh-sum of dependent j's: the first three
    hidden units read the candidate's vector, the last three the dependent's, no distance, no bias."""
    probe = MLPProbe(3, hidden=6, word_alignment=alignment)
    with torch.no_grad():
        for p in probe.parameters():
            p.zero_()
        probe.cand.weight[:3] = torch.eye(3)
        probe.dep.weight[3:] = torch.eye(3)
        probe.out.weight[:] = torch.tensor([[1.0, 1, 1, 2, 2, 2]])
    return probe


def test_mlp_candidate_and_dependent_vectors_by_hand():
    t = np.tanh
    with torch.no_grad():
        paper, notebook = mlp("paper")(batch(False)), mlp("notebook")(batch(False))
    # sentence 1, dependent b (unit 2): candidates root, a, b, c
    dep_b = 2 * t(0.2)
    assert paper[0, 2].tolist() == pytest.approx([0 + dep_b, t(0.1) + dep_b, t(0.2) + dep_b, t(0.3) + dep_b])
    assert notebook[0, 2].tolist() == pytest.approx([t(0.1) + dep_b, t(0.2) + dep_b, t(0.3) + dep_b, 0 + dep_b])
    # sentence 2, dependent d (unit 1): the root and d itself
    dep_d = 2 * t(0.4)
    assert paper[1, 1, :2].tolist() == pytest.approx([0 + dep_d, t(0.4) + dep_d])
    assert notebook[1, 1, :2].tolist() == pytest.approx([t(0.4) + dep_d, 0 + dep_d])


def test_attention_and_words_candidate_vectors_by_hand():
    """Only W's candidate half is non-zero (the sum of the vector's components, head 0): s(j, i) =
    W v_i x a_0(j -> i) = W v_i (head 0 attends with 1 among [CLS] and the words); the root's attention
    is [CLS]'s ([SEP] gets and gives none)."""
    scores = {}
    for alignment in ("paper", "notebook"):
        probe = AttnProbe(2, dim=3, word_alignment=alignment)
        with torch.no_grad():
            probe.w_cand.weight[0] = 1.0
            scores[alignment] = probe(batch(True))
    # sentence 1, dependent a (unit 1): candidates root, a, b, c
    assert scores["paper"][0, 1].tolist() == pytest.approx([0, 0.1, 0.2, 0.3])  # the root's learned vector: zeros
    assert scores["notebook"][0, 1].tolist() == pytest.approx([0.1, 0.2, 0.3, 0])
    assert scores["notebook"][1, 1, :2].tolist() == pytest.approx([0.4, 0])
    # under notebook the root's own vector never scores anything: nothing to learn
    assert "root" in dict(AttnProbe(2, dim=3).named_parameters())
    assert "root" not in dict(AttnProbe(2, dim=3, word_alignment="notebook").named_parameters())
    with pytest.raises(ValueError, match="clark_probes.word_alignment"):
        MLPProbe(3, word_alignment="columns")
