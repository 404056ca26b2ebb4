import numpy as np
import pytest
from scipy.special import ndtr, ndtri

from banditrepro.seeding import name_id, replication_keys
from banditrepro.special import norm_cdf, norm_ppf


def test_replication_keys_do_not_depend_on_blocking():
    whole = replication_keys(1, ("paper", "exp", "noise"), 100)
    parts = np.concatenate([replication_keys(1, ("paper", "exp", "noise"), 100, a, min(a + 30, 100))
                            for a in range(0, 100, 30)])
    np.testing.assert_array_equal(whole, parts)
    assert len(set(whole.tolist())) == 100


def test_replication_keys_depend_on_seed_and_path():
    a = replication_keys(1, ("p", "e"), 10)
    assert not np.array_equal(a, replication_keys(2, ("p", "e"), 10))
    assert not np.array_equal(a, replication_keys(1, ("p", "f"), 10))


def test_replication_keys_reject_bad_ranges():
    with pytest.raises(ValueError):
        replication_keys(1, ("p",), 10, 5, 11)


def test_name_id_is_stable_across_processes():
    # sha256-based, so this value is fixed forever (Python's hash() would be salted)
    assert name_id("satisficing_ucl") == int.from_bytes(
        __import__("hashlib").sha256(b"satisficing_ucl").digest()[:4], "little")


@pytest.mark.parametrize("p", [1e-300, 1e-12, 1e-5, 0.01, 0.02425, 0.3, 0.5, 0.77, 0.975, 1 - 1e-9, 1 - 1e-16])
def test_norm_ppf_matches_scipy(p):
    assert norm_ppf(p) == pytest.approx(float(ndtri(p)), rel=1e-12, abs=1e-12)


def test_norm_ppf_limits_and_cdf():
    assert norm_ppf(0.0) == -np.inf and norm_ppf(1.0) == np.inf
    for x in (-8.0, -1.3, 0.0, 0.4, 5.0):
        assert norm_cdf(x) == pytest.approx(float(ndtr(x)), rel=1e-13, abs=1e-300)
