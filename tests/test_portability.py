"""Locked numbers are the same bits on any x86-64 CPU (AVX2 or AVX-512, Intel or AMD; docs/locks.md,
"Portability").

One machine cannot run another CPU, so the slow test emulates the choices a CPU makes: OpenBLAS's kernel
(``OPENBLAS_CORETYPE``), NumPy's SIMD loops (``NPY_DISABLE_CPU_FEATURES``) and numba's vector width
(``BANDITREPRO_VECTOR_WIDTH``), and checks that the smoke ``verify`` of penalized_fairness, the paper whose
numbers went through BLAS (MovieLens arm means, Setting 4's pseudo-regret), passes under each without a
platform-rounding note. The fast tests pin :mod:`banditrepro.portable` to the C library's functions.

Every child starts from ``child_env.fresh_target_environ``: without the NUMBA_CPU_FEATURES that importing
banditrepro wrote into this process's environment on an AVX-512 CPU, which a child takes for the user's
choice (issue 40: the 256-bit case kept 512 bits on an AVX-512 EPYC and failed). numba's vector width can be
emulated one way only: an AVX-512 CPU can run the 256 bits of the others, a CPU without AVX-512 cannot run
512-bit code, so there that case is skipped saying so; the fast tests check the opt-out on a simulated
AVX-512 CPU (a child's LLVM reports AVX-512; it compiles nothing, so it runs on any CPU).
"""

from __future__ import annotations

import ast
import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from child_env import GIVEN_TARGET, TARGET_VARIABLES, fresh_target_environ, user_environ
from repo_copy import SNAKEMAKE, copy_build, snakemake_env

from banditrepro import numba_target, portable
from banditrepro.environments.movielens import MovieArms

PAPER = "penalized_fairness"


# --- banditrepro.portable: the C library's functions, element by element


def test_exp_log_log10_power_are_the_c_librarys_element_wise():
    rng = np.random.default_rng(25)
    x = rng.uniform(-40.0, 40.0, (300, 7))
    pos = rng.uniform(1e-6, 1e6, 2000)
    assert portable.exp(x).shape == x.shape
    assert portable.exp(x).tolist() == [[math.exp(v) for v in row] for row in x.tolist()]
    assert portable.log(pos).tolist() == [math.log(v) for v in pos.tolist()]
    assert portable.log10(pos).tolist() == [math.log10(v) for v in pos.tolist()]
    assert portable.power(pos, -1.7).tolist() == [math.pow(v, -1.7) for v in pos.tolist()]
    exps = rng.uniform(-3.0, 3.0, pos.size)
    assert portable.power(pos, exps).tolist() == [math.pow(a, b) for a, b in zip(pos.tolist(), exps.tolist())]
    assert portable.log(np.arange(1, 6)).tolist() == [math.log(v) for v in range(1, 6)]


def test_geomspace_is_numpys_formula_and_gives_the_same_checkpoints():
    for stop, num in ((10, 2), (1000, 4), (5000, 50), (10**5, 200), (10**6, 120), (3 * 10**6, 500)):
        exponents = np.linspace(0.0, math.log10(stop), num).tolist()
        expected = [1.0] + [math.pow(10.0, e) for e in exponents[1:-1]] + [float(stop)]
        assert portable.geomspace(1, stop, num).tolist() == expected
        # the integer checkpoints (engine.checkpoint_grid) are those np.geomspace gives
        assert np.array_equal(np.round(portable.geomspace(1, stop, num)), np.round(np.geomspace(1, stop, num)))


def test_dot_last_linear_fit_and_covariance_need_no_blas():
    rng = np.random.default_rng(7)
    pulls = rng.integers(0, 10**6, (40, 6, 5))
    gaps = rng.uniform(0.0, 1.0, 5)
    # five terms: NumPy adds them left to right, the same on every CPU
    expected = [[(((p[0] * gaps[0] + p[1] * gaps[1]) + p[2] * gaps[2]) + p[3] * gaps[3]) + p[4] * gaps[4]
                 for p in rows.tolist()] for rows in pulls]
    assert portable.dot_last(pulls, gaps).tolist() == expected
    x = np.array([1.0, 2.0, 4.0, 8.0])
    assert portable.linear_fit(x, 3.0 * x + 2.0) == (3.0, 2.0)
    y = rng.normal(size=50)
    xs = np.log(np.arange(50, 100.0))
    np.testing.assert_allclose(portable.linear_fit(xs, y), np.polyfit(xs, y, 1), rtol=1e-9)
    a, b = rng.normal(size=30), rng.normal(size=30)
    assert portable.covariance(a, b) == pytest.approx(np.cov(a, b)[0, 1], rel=1e-12)


# --- CSV floats: correctly rounded with every pandas (banditrepro.portable.csv_float_options)

REPO = Path(__file__).resolve().parents[1]
AMES_TABLE = REPO / "data" / "ames_forest" / "surrogate_table.csv"


def test_csv_float_options_ask_old_pandas_for_its_correctly_rounded_parser():
    for old in ("2.1.0", "2.2.3", "3.0.0", "3.0.6"):
        assert portable.csv_float_options(old) == {"float_precision": "round_trip"}
    for new in ("3.1.0", "3.1.1", "3.1.0rc1", "3.10.2", "4.0.0"):
        assert portable.csv_float_options(new) == {}


def test_the_ames_table_reads_as_its_decimals_nearest_floats():
    # pandas 3.0's default parser reads 2,697 of these 26,880 decimals one or two ulps off (Python's float() is
    # correctly rounded); the Ames bandits replay them, so every such bit reaches the locked curves
    import pandas as pd

    with AMES_TABLE.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    table = pd.read_csv(AMES_TABLE, **portable.csv_float_options(pd.__version__))
    floats = [c for c in table.columns if table[c].dtype == np.float64]
    assert len(floats) == 4 and len(rows) == len(table) == 6720
    for column in floats:
        assert table[column].tolist() == [float(row[column]) for row in rows], column


def _read_csv_calls(path: Path):
    """(enclosing function, call) of every ``read_csv`` call in a Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "read_csv":
            owner = [f.name for f in functions if f.lineno <= node.lineno <= (f.end_lineno or f.lineno)]
            yield (owner[-1] if owner else "<module>"), node


def test_every_csv_read_for_numbers_parses_floats_correctly_rounded():
    files = sorted((REPO / "src" / "banditrepro").rglob("*.py")) + sorted((REPO / "workflow" / "scripts").glob("*.py"))
    checked, loose = 0, []
    for path in files:
        for function, call in _read_csv_calls(path):
            checked += 1
            keywords = {k.arg: k.value for k in call.keywords}
            as_text = isinstance(keywords.get("dtype"), ast.Name) and keywords["dtype"].id == "str"
            exact = any(k.arg is None and isinstance(k.value, ast.Call) and isinstance(k.value.func, ast.Attribute)
                        and k.value.func.attr == "csv_float_options" for k in call.keywords)
            if not (as_text or exact):
                loose.append(f"{path.relative_to(REPO).as_posix()}:{call.lineno} ({function})")
    assert checked >= 15
    assert not loose, ("read_csv without **portable.csv_float_options(pd.__version__) (floats one ulp off with "
                       "pandas < 3.1) or dtype=str:\n" + "\n".join(loose))


def _run_python(code: str, **env: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=fresh_target_environ(**env))
    return proc.stdout.strip()


def _openblas_kernel(env: dict[str, str]) -> str | None:
    """The OpenBLAS kernel NumPy runs under ``env`` (None where NumPy's BLAS is not OpenBLAS)."""
    code = ("import json, numpy, threadpoolctl\n"
            "info = [i for i in threadpoolctl.threadpool_info() if i.get('internal_api') == 'openblas'\n"
            "        and 'numpy' in i.get('filepath', '')]\n"
            "print(json.dumps(info[0].get('architecture') if info else None))")
    return json.loads(_run_python(code, **env))


# the arm means' bytes, and the OpenBLAS kernel that computed them (as _openblas_kernel finds it)
MOVIELENS_MEANS = ("import json, numpy as np, threadpoolctl\n"
                   "from banditrepro.environments.movielens import MovieArms\n"
                   "probs = np.random.default_rng(5).dirichlet(np.ones(5), size=3000)\n"
                   "arms = MovieArms(np.arange(3000), np.ones(3000, dtype=np.int64), probs)\n"
                   "info = [i for i in threadpoolctl.threadpool_info() if i.get('internal_api') == 'openblas'\n"
                   "        and 'numpy' in i.get('filepath', '')]\n"
                   "print(json.dumps([arms.means.tobytes().hex(), info[0].get('architecture') if info else None]))")


def test_movielens_arm_means_are_the_same_under_every_blas_kernel():
    runs = {kernel: json.loads(_run_python(MOVIELENS_MEANS, OPENBLAS_CORETYPE=kernel))
            for kernel in ("Haswell", "SandyBridge")}
    if runs["Haswell"][1] is None:
        pytest.skip("NumPy does not use OpenBLAS here: OPENBLAS_CORETYPE has no effect")
    # each child ran the kernel asked for (OpenBLAS spells SandyBridge "Sandybridge")
    assert [kernel.lower() for _, kernel in runs.values()] == ["haswell", "sandybridge"], runs
    assert runs["Haswell"][0] == runs["SandyBridge"][0]
    probs = np.random.default_rng(5).dirichlet(np.ones(5), size=3000)
    here = MovieArms(np.arange(3000), np.ones(3000, dtype=np.int64), probs).means
    assert here.tolist() == [sum(p * r for p, r in zip(row, (1.0, 2.0, 3.0, 4.0, 5.0))) for row in probs.tolist()]


# --- the smoke verify under emulated CPUs


def _numpy_without_avx2_and_avx512() -> str:
    """NPY_DISABLE_CPU_FEATURES that leaves NumPy its baseline loops only (its AVX2 and AVX-512 loops off):
    NumPy >= 2.4 names the x86-64 levels, older NumPy the features."""
    from numpy._core._multiarray_umath import __cpu_features__ as features

    if "X86_V3" in features:
        return "X86_V4 X86_V3"
    return " ".join(f for f in ("AVX512F", "AVX512CD", "AVX512_SKX", "AVX512_CLX", "AVX512_CNL", "AVX512_ICL",
                                "AVX512_SPR", "AVX2", "FMA3") if features.get(f))


def _host_has_avx512() -> bool:
    import llvmlite.binding as llvm

    return numba_target.wide_vector_features(llvm.get_host_cpu_features().flatten()) is not None


SETTINGS = {
    # OpenBLAS's kernels for AVX2 CPUs (Intel and AMD) and for AVX CPUs: kernels of different families sum
    # in different orders, as the AVX-512 ones (SkylakeX) do
    "openblas-haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "openblas-sandybridge": {"OPENBLAS_CORETYPE": "SandyBridge"},
    # NumPy's ufunc loops: its baseline only, as on no AVX2 machine; exp and log then call the C library as
    # they do on AVX2 machines (AVX-512 machines run NumPy's own kernels: banditrepro.portable avoids them)
    "numpy-baseline": {"NPY_DISABLE_CPU_FEATURES": _numpy_without_avx2_and_avx512()},
    # numba's other vector width: on AVX-512 CPUs (512 bits by default) LLVM's default, 256 bits, as everywhere
    # else; on the others (256 bits) 512 bits cannot run (_setting_in_effect skips it)
    "numba-other-width": {numba_target.OPT_OUT: "256"},
}

# what the child of _numba_target reports: numba's target features, and what NUMBA_CPU_FEATURES holds
NUMBA_TARGET = ("import json, os, banditrepro, numba\n"
                "print(json.dumps([numba.config.CPU_FEATURES, os.environ.get('NUMBA_CPU_FEATURES')]))")


# --- numba's vector width in a child, on a simulated AVX-512 CPU

# LLVM's host features on an AVX-512 CPU (Intel's tuning prefers 256-bit vectors; numba_target allows 512)
SIMULATED_AVX512 = "+64bit,+sse2,+avx,+avx2,+fma,+avx512f,+avx512dq,+avx512vl,+avx512bw,+prefer-256-bit"
WIDE = numba_target.wide_vector_features(SIMULATED_AVX512)
ON_AVX512 = ("import llvmlite.binding as llvm\n"
             "class Host:\n"
             "    def flatten(self):\n"
             f"        return {SIMULATED_AVX512!r}\n"
             "llvm.get_host_cpu_features = Host\n")


def test_configure_writes_only_the_target_variables_the_children_drop():
    """fresh_target_environ drops child_env.TARGET_VARIABLES: everything numba_target.configure may write."""
    env = {}
    assert numba_target.configure(env, SIMULATED_AVX512) == WIDE and "-prefer-256-bit" in WIDE
    assert set(env) <= set(TARGET_VARIABLES), f"configure writes {sorted(set(env) - set(TARGET_VARIABLES))} too"


def test_snakemake_runs_get_the_target_variables_the_user_gave(monkeypatch):
    monkeypatch.setenv("NUMBA_CPU_FEATURES", WIDE)  # as importing banditrepro does on an AVX-512 CPU
    monkeypatch.setenv("BANDITREPRO_SOMETHING", "set by a test")
    env = user_environ()
    assert {name: env.get(name) for name in TARGET_VARIABLES} == GIVEN_TARGET
    assert env["BANDITREPRO_SOMETHING"] == "set by a test"


@pytest.mark.parametrize("numba_first", [False, True], ids=["banditrepro-first", "numba-first"])
def test_the_vector_width_opt_out_reaches_a_child_of_an_avx512_process(monkeypatch, numba_first):
    """Issue 40: on an AVX-512 CPU this process, importing banditrepro, wrote NUMBA_CPU_FEATURES into its
    environment; a child started with BANDITREPRO_VECTOR_WIDTH=256 inherited it, took it for the user's choice
    and kept 512 bits. Here on any CPU: this process's variable as on AVX-512, the child's CPU simulated (its
    LLVM reports AVX-512; it compiles nothing), numba imported before or after the package."""
    monkeypatch.setenv("NUMBA_CPU_FEATURES", WIDE)
    code = ON_AVX512 + ("import numba\n" if numba_first else "") + NUMBA_TARGET
    # without the opt-out the child chooses 512 bits itself (the simulation works: the check below can fail)
    assert json.loads(_run_python(code)) == [WIDE, WIDE]
    features, variable = json.loads(_run_python(code, **{numba_target.OPT_OUT: "256"}))
    assert "-prefer-256-bit" not in (features or "") and variable is None, \
        f"{numba_target.OPT_OUT}=256 ignored in a child: numba's CPU features {features!r}"


def _setting_in_effect(name: str, env: dict[str, str]) -> str | None:
    """Why the setting cannot be emulated here (None when it is in effect)."""
    if name.startswith("openblas"):
        kernel = _openblas_kernel(env)
        if kernel is None:
            return "NumPy does not use OpenBLAS here: OPENBLAS_CORETYPE has no effect"
        # OpenBLAS reports its kernel in its own spelling (SandyBridge runs as "Sandybridge")
        assert kernel.lower() == env["OPENBLAS_CORETYPE"].lower(), \
            f"OpenBLAS runs its {kernel} kernel, not {env['OPENBLAS_CORETYPE']}"
    elif name == "numpy-baseline":
        # NumPy >= 2.4 dispatches on the x86-64 levels (its AVX2 flag stays set when X86_V3 is off)
        code = ("from numpy._core._multiarray_umath import __cpu_features__ as f\n"
                "keys = ('X86_V3', 'X86_V4') if 'X86_V3' in f else ('AVX2', 'AVX512F')\n"
                "print(int(any(f.get(k) for k in keys)))")
        assert _run_python(code, **env) == "0", f"{env} leaves NumPy an AVX2 or AVX-512 loop"
    else:
        if not _host_has_avx512():
            return ("this CPU has no AVX-512: numba's 512-bit vectors (what AVX-512 CPUs run by default) cannot run "
                    "here, so only this CPU's own 256 bits are verified (the other cases); the opt-out that gives "
                    "AVX-512 CPUs 256 bits is tested on a simulated AVX-512 CPU "
                    "(test_the_vector_width_opt_out_reaches_a_child_of_an_avx512_process)")
        features, variable = json.loads(_run_python(NUMBA_TARGET, **env))
        assert "-prefer-256-bit" not in (features or "") and variable is None, \
            f"{env} leaves numba 512-bit vectors: CPU features {features!r}"
    return None


@pytest.fixture(scope="module")
def portability_repo(tmp_path_factory, smoke_build) -> Path:
    """A copy of the paper's smoke build: its processed data are reused, its results rebuilt under each setting."""
    return copy_build(smoke_build(PAPER), tmp_path_factory.mktemp("portability") / "repo")


@pytest.mark.slow
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_smoke_verify_passes_bit_for_bit_under_an_emulated_cpu(request, setting):
    env = SETTINGS[setting]
    why_not = _setting_in_effect(setting, env)
    if why_not:
        pytest.skip(why_not)
    repo = request.getfixturevalue("portability_repo")  # built only when a setting can be emulated
    # the paper's results and figures are rebuilt under the setting; the processed data (integer
    # histograms) and numba's cache are shared
    for top in ("results", "figures"):
        shutil.rmtree(repo / top / PAPER, ignore_errors=True)
    proc = subprocess.run([*SNAKEMAKE, "--directory", str(repo), "--snakefile", str(repo / "Snakefile"),
                           "--cores", "2", "verify", "--config", "scale=smoke", f"papers=[{PAPER}]"],
                          capture_output=True, text=True, check=False,
                          env={**{k: v for k, v in snakemake_env(repo).items() if k not in TARGET_VARIABLES}, **env})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"smoke verify fails under {env}:\n{out[-6000:]}"
    assert "verify OK at scale smoke" in out
    assert "platform rounding" not in out, f"numbers differ in their last bits under {env}:\n{out[-6000:]}"
