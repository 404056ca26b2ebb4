"""banditrepro.numba_target: 512-bit vectors only where the CPU has AVX-512, and never over the user's choice."""

import os
import subprocess
import sys

from banditrepro import numba_target

AVX512 = "+sse2,+avx,+avx2,+avx512f,+avx512dq,+avx512vl"
AVX2 = "+sse2,+avx,+avx2,-avx512f"


def test_wide_vectors_need_avx512():
    assert numba_target.wide_vector_features(AVX2) is None
    assert numba_target.wide_vector_features(AVX512) == AVX512 + ",-prefer-256-bit"
    # an explicit preference in the host string is replaced, not doubled
    assert numba_target.wide_vector_features(AVX512 + ",+prefer-256-bit").split(",").count("-prefer-256-bit") == 1
    assert "+prefer-256-bit" not in numba_target.wide_vector_features(AVX512 + ",+prefer-256-bit")


def test_configure_sets_the_variable_only_where_it_should():
    env = {}
    assert numba_target.configure(env, AVX512) == AVX512 + ",-prefer-256-bit"
    assert env["NUMBA_CPU_FEATURES"] == AVX512 + ",-prefer-256-bit"
    env = {}
    assert numba_target.configure(env, AVX2) is None and env == {}
    for preset in ({"NUMBA_CPU_FEATURES": "+avx2"}, {"NUMBA_CPU_NAME": "generic"}, {numba_target.OPT_OUT: "256"}):
        env = dict(preset)
        assert numba_target.configure(env, AVX512) is None and env == preset


def test_a_fresh_process_compiles_with_the_configured_features():
    """The package sets the variable before numba reads its config (numba is imported by the package)."""
    code = ("import os, banditrepro, numba; "
            "print(os.environ.get('NUMBA_CPU_FEATURES') == numba.config.CPU_FEATURES)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items()
                              if k not in ("NUMBA_CPU_FEATURES", "NUMBA_CPU_NAME")})
    assert out.stdout.strip() == "True"
