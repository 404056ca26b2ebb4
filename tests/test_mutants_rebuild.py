"""A mutant's claims equal those of a full rebuild with the same patch (slow: smoke builds in scratch copies).

The mutation machinery reruns only what a patch can reach (banditrepro.mutation) and copies the rest from the
main build. These tests plant two patches in penalized_fairness at smoke scale, run `mutants_penalized_fairness`
in a copy of the paper's smoke build (the main build the mutants copy from), and rebuild the mutants' figures
from scratch in two fresh copies of the project whose sources carry the patch. The mutant's claims, readings
and shards must equal the full rebuild's:

- a shared-code patch (the builder's unfairness metric, in algorithms/fairness.py but called by the builder)
  reruns every algorithm;
- a policy-kernel patch (LFG's index) reruns only LFG's runs and copies HT-UCB's and Flearn's from the main
  build, and still equals the full rebuild.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from repo_copy import SNAKEMAKE, copy_build, copy_repo, snakemake_env

from banditrepro.experiments.spec import load_paper
from banditrepro.mutation import Mutant, apply_patch, mutant_figures
from banditrepro.shards import load_shards

PAPER = "penalized_fairness"
SHARED_PATCH = {"file": "algorithms/fairness.py",
                "old": "return np.maximum(np.asarray(tau, dtype=np.float64) * horizon - pulls, 0.0)",
                "new": "return np.maximum(np.asarray(tau, dtype=np.float64) * horizon - pulls, 0.5)"}
POLICY_PATCH = {"file": "algorithms/fairness.py", "old": "ucb = mean[k] + radius_scale * inv_sqrt_n[k]",
                "new": "ucb = mean[k] + 0.5 * radius_scale * inv_sqrt_n[k]"}
MUTANTS = {"test_shared_unfairness_floor": ("arm_unfairness", SHARED_PATCH), "test_policy_lfg_radius": ("lfg", POLICY_PATCH)}

pytestmark = pytest.mark.slow


def snakemake(repo: Path, *args: str) -> None:
    """Snakemake in ``repo`` importing that copy's own sources (its patched package, if any)."""
    env = {**snakemake_env(repo), "PYTHONPATH": str(repo / "src")}
    proc = subprocess.run([*SNAKEMAKE, "--directory", str(repo), "--snakefile", str(repo / "Snakefile"), "--cores", "2",
                           *args, "--config", "scale=smoke"], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"


def rebuilt_figures(repo: Path) -> list[str]:
    return mutant_figures(load_paper(PAPER, "smoke", repo))


@pytest.fixture(scope="module")
def mutated(tmp_path_factory, smoke_build) -> Path:
    """A copy of penalized_fairness's smoke build (the main build, shared with the other files) whose config
    declares the two test mutants, after `mutants_<paper>`: only the mutants' jobs run here."""
    repo = copy_build(smoke_build(PAPER), tmp_path_factory.mktemp("mutated") / "repo")
    config = repo / "config" / "papers" / f"{PAPER}.yaml"
    data = yaml.safe_load(config.read_text())
    data["mutants"] = [{"id": mid, "algorithm": label, "description": f"test mutant {mid}", "patch": patch}
                       for mid, (label, patch) in MUTANTS.items()]
    text = config.read_text()
    config.write_text(text[: text.index("\nmutants:")] + "\n" + yaml.safe_dump({"mutants": data["mutants"]}, width=200))
    snakemake(repo, f"mutants_{PAPER}")
    return repo


def full_rebuild(tmp_path_factory, name: str, patch: dict) -> Path:
    """A copy of the project with ``patch`` applied to its sources, the mutants' figures rebuilt from scratch."""
    repo = copy_repo(tmp_path_factory.mktemp(name) / "repo")
    source = repo / "src" / "banditrepro" / patch["file"]
    source.write_text(apply_patch(source.read_text(), patch["old"], patch["new"]))
    targets = [f"results/{PAPER}/claims/{fig}.csv" for fig in rebuilt_figures(repo)] + [f"results/{PAPER}/readings.csv"]
    snakemake(repo, *targets)
    return repo


@pytest.fixture(scope="module")
def shared_rebuild(tmp_path_factory) -> Path:
    return full_rebuild(tmp_path_factory, "shared", SHARED_PATCH)


@pytest.fixture(scope="module")
def policy_rebuild(tmp_path_factory) -> Path:
    return full_rebuild(tmp_path_factory, "policy", POLICY_PATCH)


def claims_of(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def assert_same_claims(mutated: Path, mutant: str, rebuild: Path) -> None:
    figures = rebuilt_figures(mutated)
    for fig in figures:
        theirs = claims_of(rebuild / "results" / PAPER / "claims" / f"{fig}.csv")
        ours_path = mutated / "results" / "mutants" / mutant / PAPER / "claims" / f"{fig}.csv"
        if not ours_path.exists():
            # a figure whose data cannot be had here (no mirror: MovieLens' fig3): the mutant run skips it, the
            # rebuild writes its claims unmeasured; anything measured the mutant run left out is a failure
            assert (theirs["measured"] == "not measured").all(), f"the mutant run made no claims of {fig}"
            continue
        pd.testing.assert_frame_equal(claims_of(ours_path), theirs, obj=f"claims of {fig}")
    pd.testing.assert_frame_equal(claims_of(mutated / "results" / "mutants" / mutant / PAPER / "readings.csv"),
                                  claims_of(rebuild / "results" / PAPER / "readings.csv"), obj="readings")


def mutants_row(mutated: Path, mutant: str) -> dict:
    table = pd.read_csv(mutated / "results" / PAPER / "mutants.csv", dtype=str, keep_default_na=False)
    return table.set_index("mutant").loc[mutant].to_dict()


def test_a_shared_patch_reruns_every_algorithm_and_equals_a_full_rebuild(mutated, shared_rebuild):
    row = mutants_row(mutated, "test_shared_unfairness_floor")
    assert row["where"] == "shared" and row["reruns"] == "every algorithm"
    assert row["status"] != "equivalent"  # the metric feeds claims: something moved
    assert_same_claims(mutated, "test_shared_unfairness_floor", shared_rebuild)


def test_a_policy_patch_reruns_only_that_policy_and_equals_a_full_rebuild(mutated, policy_rebuild):
    row = mutants_row(mutated, "test_policy_lfg_radius")
    assert row["where"] == "policy" and row["reruns"] == "lfg"
    assert_same_claims(mutated, "test_policy_lfg_radius", policy_rebuild)
    # the shards too: LFG's runs rerun, the others copied from the main build, every array as a full rebuild's
    shard_dir = mutated / "results" / "mutants" / "test_policy_lfg_radius" / PAPER / "shards"
    shards = sorted(shard_dir.rglob("*.npz"))
    assert shards
    for path in shards:
        relative = path.relative_to(shard_dir)
        ours, theirs = load_shards([path]), load_shards([policy_rebuild / "results" / PAPER / "shards" / relative])
        assert set(ours) == set(theirs)
        for algorithm in ours:
            for name, curve in ours[algorithm].curves.items():
                np.testing.assert_array_equal(curve, theirs[algorithm].curves[name], err_msg=f"{relative} {algorithm}")


def test_the_test_mutants_are_what_they_claim_to_be():
    """The two patches apply to the sources as they are (else the tests above would test nothing)."""
    for mid, (label, patch) in MUTANTS.items():
        mutant = Mutant(id=mid, paper=PAPER, algorithm=label, description="", **patch)
        text = (Path(__file__).resolve().parents[1] / "src" / "banditrepro" / mutant.file).read_text()
        assert text.count(mutant.old) == 1, mid
