import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from banditrepro import layout
from banditrepro.experiments.spec import (
    ConfigError,
    discover_papers,
    load_paper,
    read_paper,
    resolve_scale,
    select_papers,
)
from banditrepro.registry import (
    BUILDER_PARAMETERS,
    OMITTED,
    SIMULATION_BUILDERS,
    BuilderParameters,
    Param,
    ParameterError,
    closest_name,
    complete,
)

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_resolve_scale_picks_the_active_entry():
    value = {"a": {"paper": 1000, "smoke": 10}, "b": [{"paper": "x", "smoke": "y"}], "c": {"paper_size": 3}}
    assert resolve_scale(value, "smoke") == {"a": 10, "b": ["y"], "c": {"paper_size": 3}}
    with pytest.raises(ConfigError):
        resolve_scale({"paper": 1}, "paper")


def _tmp_repo(tmp_path, mutate):
    (tmp_path / "config" / "papers").mkdir(parents=True)
    cfg = yaml.safe_load((REPO_ROOT / "config/papers/satisficing_ucl.yaml").read_text())
    mutate(cfg)
    (tmp_path / "config/papers/satisficing_ucl.yaml").write_text(yaml.safe_dump(cfg, allow_unicode=True))
    return tmp_path


def test_paper_config_loads_at_both_scales():
    paper = load_paper("satisficing_ucl", "paper", REPO_ROOT)
    smoke = load_paper("satisficing_ucl", "smoke", REPO_ROOT)
    assert paper.experiments["mean_reward"].horizon == 1000
    assert paper.experiments["mean_reward"].replications == 100
    assert smoke.experiments["mean_reward"].horizon < 1000
    assert paper.experiments["mean_reward"].shards(30) == [(0, 30), (30, 60), (60, 90), (90, 100)]


def test_unknown_experiment_key_is_named(tmp_path):
    repo = _tmp_repo(tmp_path, lambda c: c["experiments"]["mean_reward"].update(horizn=5))
    with pytest.raises(ConfigError, match="horizn"):
        load_paper("satisficing_ucl", "paper", repo)


def test_bad_value_is_named_with_its_path(tmp_path):
    repo = _tmp_repo(tmp_path, lambda c: c["experiments"]["mean_reward"].update(replications=0))
    with pytest.raises(ConfigError, match="experiments/mean_reward/replications"):
        load_paper("satisficing_ucl", "paper", repo)


def test_dangling_references_are_rejected(tmp_path):
    repo = _tmp_repo(tmp_path, lambda c: c["figures"]["fig1"]["panels"][0].update(experiment="nope"))
    with pytest.raises(ConfigError, match="unknown experiment 'nope'"):
        load_paper("satisficing_ucl", "paper", repo)


# --- declared builder parameters ------------------------------------------------------------------

DECLARED = {
    "means": Param(list, items=Param(float)),
    "K": Param(float, default=1.0),
    "threshold": Param(float, default=None),
    "rule": Param(str, default="random", choices=("random", "lowest_index")),
    "grid": Param(dict, default=OMITTED, fields={"size": Param(int), "reading": Param(str, default="linspace")}),
}


def test_complete_fills_defaults_and_keeps_given_values():
    out = complete({"means": [1, 2.5], "K": 3}, DECLARED)
    assert out == {"means": [1, 2.5], "K": 3, "threshold": None, "rule": "random"}  # grid: OMITTED stays absent
    assert complete(out, DECLARED) == out  # idempotent
    nested = complete({"means": [1], "grid": {"size": 5}}, DECLARED)
    assert nested["grid"] == {"size": 5, "reading": "linspace"}


def test_complete_does_not_share_mutable_defaults():
    declared = {"extra": Param(list, default=[])}
    first = complete({}, declared)
    first["extra"].append(1)
    assert complete({}, declared) == {"extra": []}


@pytest.mark.parametrize("values, where, words", [
    ({"means": [1], "treshold": 2.5}, "", ["unknown key 'treshold'", "did you mean 'threshold'?"]),
    ({"means": [1], "k": 4}, "", ["unknown key 'k'", "did you mean 'K'?"]),  # case-only slip
    ({"means": [1], "zzz": 4}, "", ["unknown key 'zzz'", "valid: K, grid, means, rule, threshold"]),
    ({}, "", ["missing required key 'means'"]),
    ({"means": [1], "K": "big"}, "K", ["'big' is not a number"]),
    ({"means": [1], "K": True}, "K", ["True is not a number"]),  # a boolean is not a number
    ({"means": [1, "x"]}, "means[1]", ["'x' is not a number"]),
    ({"means": [1], "rule": "first"}, "rule", ["'first' is not one of 'random', 'lowest_index'"]),
    ({"means": [1], "grid": {"size": 5, "readin": "x"}}, "grid", ["unknown key 'readin'", "'reading'"]),
    ({"means": [1], "grid": {"size": 2.5}}, "grid/size", ["2.5 is not an integer"]),
])
def test_complete_names_the_offending_key(values, where, words):
    with pytest.raises(ParameterError) as err:
        complete(values, DECLARED)
    assert err.value.where == where
    for word in words:
        assert word in str(err.value)
    assert "\n" not in str(err.value)


def test_every_unknown_key_is_named_on_one_line():
    with pytest.raises(ParameterError) as err:
        complete({"means": [1], "k": 4, "treshold": 2.5}, DECLARED, "algorithms/A2")
    assert str(err.value) == ("algorithms/A2: unknown key 'k' (did you mean 'K'?); "
                              "unknown key 'treshold' (did you mean 'threshold'?)")


def test_closest_name():
    assert closest_name("treshold", ["threshold", "delta"]) == "threshold"
    assert closest_name("DELTA", ["threshold", "delta"]) == "delta"
    assert closest_name("xyz", ["threshold", "delta"]) is None


def test_label_is_allowed_for_every_algorithm_and_not_redeclared():
    declared = BuilderParameters({}, {"policy": Param(str)})
    assert declared.complete_algorithm({"policy": "ucb", "label": "UCB"}) == {"policy": "ucb", "label": "UCB"}
    with pytest.raises(ValueError):
        BuilderParameters({}, {"label": Param(str)})


@pytest.mark.parametrize("paper", discover_papers(REPO_ROOT))
def test_every_registered_builder_declares_its_parameters(paper):
    before = set(SIMULATION_BUILDERS)
    spec = load_paper(paper, "smoke", REPO_ROOT)  # imports the package that registers the builders
    assert set(BUILDER_PARAMETERS) == set(SIMULATION_BUILDERS)
    used = {exp.builder for exp in spec.experiments.values()}
    assert used and used <= set(SIMULATION_BUILDERS) and (set(SIMULATION_BUILDERS) - before) <= set(BUILDER_PARAMETERS)
    for name in used:
        declared = BUILDER_PARAMETERS[name]
        assert isinstance(declared, BuilderParameters), name
        assert "label" in declared.algorithm, name


def test_loaded_entries_carry_the_declared_defaults():
    spec = load_paper("satisficing_ucl", "paper", REPO_ROOT)
    a1 = spec.experiments["mean_reward"].algorithms["A1_P1"]
    assert a1["threshold"] is None and a1["delta"] is None and a1["choice_rule"] == "random"
    assert spec.experiments["mean_reward"].params["happiness_threshold"] == 2.0
    # the written config (provenance) is kept as written
    assert "choice_rule" not in spec.experiments["mean_reward"].config["algorithms"]["A1_P1"]


def _typo(c):
    c["experiments"]["mean_reward"]["algorithms"]["A2_P2"] = {"variant": "A2", "k": 4, "treshold": 2.5}


def test_misspelled_algorithm_key_stops_load_paper(tmp_path):
    repo = _tmp_repo(tmp_path, _typo)
    with pytest.raises(ConfigError) as err:
        load_paper("satisficing_ucl", "paper", repo)
    message = str(err.value)
    for word in ("satisficing_ucl.yaml", "experiments/mean_reward/algorithms/A2_P2", "unknown key 'treshold'",
                 "did you mean 'threshold'?", "unknown key 'k'", "did you mean 'K'?"):
        assert word in message


def test_misspelled_param_of_the_other_scale_is_caught(tmp_path):
    def typo(c):
        c["experiments"]["robust"]["params"]["happines_threshold"] = {"paper": 2.0, "smoke": 2.0}
    repo = _tmp_repo(tmp_path, typo)
    with pytest.raises(ConfigError, match="experiments/robust/params: unknown key 'happines_threshold' "
                                          r"\(did you mean 'happiness_threshold'\?\)"):
        load_paper("satisficing_ucl", "smoke", repo)


def test_bad_algorithm_value_and_unknown_builder_and_dataset_are_named(tmp_path):
    repo = _tmp_repo(tmp_path, lambda c: c["experiments"]["robust"]["algorithms"]["A5_P5"].update(variant="A9"))
    with pytest.raises(ConfigError, match="experiments/robust/algorithms/A5_P5/variant: 'A9' is not one of"):
        load_paper("satisficing_ucl", "paper", repo)
    repo = _tmp_repo(tmp_path / "b", lambda c: c["experiments"]["robust"].update(builder="gausian_ucl"))
    with pytest.raises(ConfigError, match="unknown simulation builder 'gausian_ucl' \\(did you mean 'gaussian_ucl'"):
        load_paper("satisficing_ucl", "paper", repo)
    repo = _tmp_repo(tmp_path / "c", lambda c: c["experiments"]["robust"].update(data=["movielens1m"]))
    with pytest.raises(ConfigError, match="unknown dataset 'movielens1m' \\(did you mean 'movielens_1m'"):
        load_paper("satisficing_ucl", "paper", repo)


def test_papers_are_discovered_from_their_config_files(tmp_path):
    assert discover_papers(REPO_ROOT) == sorted(p.stem for p in (REPO_ROOT / "config/papers").glob("*.yaml"))
    assert select_papers(REPO_ROOT) == discover_papers(REPO_ROOT)
    assert select_papers(REPO_ROOT, ["satisficing_ucl"]) == ["satisficing_ucl"]
    with pytest.raises(ConfigError, match="unknown paper 'satisficing_uc' \\(did you mean 'satisficing_ucl'"):
        select_papers(REPO_ROOT, ["satisficing_uc"])


def test_a_config_without_a_registering_package_is_named(tmp_path):
    repo = _tmp_repo(tmp_path, lambda c: None)
    text = (repo / "config/papers/satisficing_ucl.yaml").read_text().replace("paper: satisficing_ucl", "paper: no_such")
    (repo / "config/papers/no_such.yaml").write_text(text)
    with pytest.raises(ConfigError, match="no package banditrepro.experiments.no_such"):
        load_paper("no_such", "paper", repo)


def test_a_paper_id_the_workflow_cannot_build_is_refused_naming_the_rule(tmp_path):
    """`auer_ucb1.yaml` (a digit) passed the schema and failed later with "Missing input files": the {paper}
    wildcard of every rule is layout.PAPER_ID. Loading it, or planning with it, now stops on one line naming the
    rule; the wildcard and the check read the same pattern."""
    assert layout.WILDCARD_CONSTRAINTS["paper"] is layout.PAPER_ID
    repo = _tmp_repo(tmp_path, lambda c: None)
    text = (repo / "config/papers/satisficing_ucl.yaml").read_text().replace("paper: satisficing_ucl", "paper: auer_ucb1")
    (repo / "config/papers/auer_ucb1.yaml").write_text(text)
    rule = r"invalid paper id 'auer_ucb1': a paper id is lower-case letters and underscores only \(pattern"
    for load in (lambda: read_paper("auer_ucb1", "smoke", repo), lambda: select_papers(repo),
                 lambda: select_papers(repo, ["auer_ucb1"])):
        with pytest.raises(ConfigError, match=rule) as err:
            load()
        assert "\n" not in str(err.value) and "auer_ucb1.yaml" in str(err.value)
    assert select_papers(repo, ["satisficing_ucl"]) == ["satisficing_ucl"]  # a selection without it builds
    for good, bad in (("toy_ucb", "toy-ucb"), ("a", "Auer"), ("ucb_", "ucb.1")):
        assert re.fullmatch(layout.PAPER_ID, good) and not re.fullmatch(layout.PAPER_ID, bad)


def _copy_workflow(dest: Path) -> Path:
    """What `snakemake -n` reads: Snakefile, workflow/, config/ (git-tracked files)."""
    files = subprocess.run(["git", "ls-files", "-z", "Snakefile", "workflow", "config"], cwd=REPO_ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / f, dest / f)
    return dest


@pytest.mark.slow
def test_a_paper_id_with_a_digit_stops_snakemake_naming_the_rule(tmp_path):
    """The workflow agrees with the config check: `snakemake -n` with config/papers/auer_ucb1.yaml stops at once on
    the rule's one line, not later with "Missing input files"."""
    repo = _copy_workflow(tmp_path / "repo")
    text = (repo / "config/papers/satisficing_ucl.yaml").read_text().replace("paper: satisficing_ucl", "paper: auer_ucb1")
    (repo / "config/papers/auer_ucb1.yaml").write_text(text)
    env = dict(os.environ, BANDITREPRO_DATA_MIRROR=str(tmp_path / "no-mirror"))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--directory", str(repo), "--snakefile",
                           str(repo / "Snakefile")], capture_output=True, text=True, env=env, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Missing input files" not in output, output[-3000:]
    assert any("invalid paper id 'auer_ucb1': a paper id is lower-case letters and underscores only" in line
               for line in output.splitlines()), output[-3000:]


@pytest.mark.slow
def test_typo_stops_snakemake_dry_run_naming_the_key(tmp_path):
    """Issue #13: `k: 4, treshold: 2.5` in an experiment stops `snakemake -n satisficing_ucl` at parse time."""
    repo = _copy_workflow(tmp_path / "repo")
    path = repo / "config/papers/satisficing_ucl.yaml"
    written = 'A2_P2: {label: "Satisfaction UCL (P2, M=2.5)", variant: A2, K: 1, threshold: 2.5}'
    text = path.read_text()
    assert written in text
    path.write_text(text.replace(written, 'A2_P2: {label: "Satisfaction UCL (P2, M=2.5)", variant: A2, k: 4, '
                                          'treshold: 2.5}', 1))
    env = dict(os.environ, BANDITREPRO_DATA_MIRROR=str(tmp_path / "no-mirror"))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "satisficing_ucl", "--directory", str(repo),
                           "--snakefile", str(repo / "Snakefile")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode != 0
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if "treshold" in line]
    assert lines, proc.stdout[-2000:] + proc.stderr[-4000:]
    line = lines[0]
    for word in ("satisficing_ucl", "mean_reward", "unknown key 'treshold'", "did you mean 'threshold'?"):
        assert word in line, line
    # the untouched config passes the same dry run
    path.write_text(text)
    ok = subprocess.run([sys.executable, "-m", "snakemake", "-n", "satisficing_ucl", "--directory", str(repo),
                         "--snakefile", str(repo / "Snakefile")], capture_output=True, text=True, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr[-4000:]
