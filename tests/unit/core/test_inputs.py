from analysis.core.inputs import seeded_subset


def test_seeded_subset_is_ordered_reproducible_and_complete_when_n_is_large():
    items = list("abcdefghij")
    a = seeded_subset(items, 4, seed=3)
    assert len(a) == 4 and a == sorted(a) and set(a) <= set(items)
    assert seeded_subset(items, 4, seed=3) == a
    assert seeded_subset(items, None, seed=3) == items and seeded_subset(items, 10, seed=3) == items
