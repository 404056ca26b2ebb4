import shutil
from pathlib import Path

import pytest
import yaml

from banditrepro.experiments.spec import ConfigError, load_paper, resolve_scale

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_resolve_scale_picks_the_active_entry():
    value = {"a": {"paper": 1000, "smoke": 10}, "b": [{"paper": "x", "smoke": "y"}], "c": {"paper_size": 3}}
    assert resolve_scale(value, "smoke") == {"a": 10, "b": ["y"], "c": {"paper_size": 3}}
    with pytest.raises(ConfigError):
        resolve_scale({"paper": 1}, "paper")


def _tmp_repo(tmp_path, mutate):
    (tmp_path / "config" / "papers").mkdir(parents=True)
    (tmp_path / "workflow" / "schemas").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "workflow/schemas/paper.schema.yaml", tmp_path / "workflow/schemas/")
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
