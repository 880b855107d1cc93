"""Config batch_size: a number as given, auto by the job's device, and what a job is sized for."""

import pytest

from analysis.core.batch import AUTO, batch_for, sizing_batch


def test_auto_is_chosen_by_device():
    assert batch_for("auto", "cpu") == 8 and AUTO["cpu"] == 8  # the CPU's: small batches stay in cache
    assert batch_for("auto", "cuda") == batch_for("auto", "cuda:1") == 64


def test_a_number_is_kept_on_every_device():
    assert batch_for(32, "cpu") == batch_for(32, "cuda") == 32


def test_a_job_is_sized_for_the_largest_auto_batch():
    assert sizing_batch("auto") == 64 and sizing_batch(16) == 16


@pytest.mark.parametrize("bad", [0, -2, "8", 2.5, True, None])
def test_anything_else_names_the_key(bad):
    with pytest.raises(ValueError, match="config batch_size"):
        batch_for(bad, "cpu")


def test_an_unknown_device_names_the_key():
    with pytest.raises(ValueError, match="config batch_size: auto has no size for device 'mps'"):
        batch_for("auto", "mps")
