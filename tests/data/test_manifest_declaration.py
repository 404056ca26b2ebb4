"""A dataset is declared once, in manifest.yaml: names, processed files, preprocessing and stand-in functions."""

from __future__ import annotations

import pytest
import yaml

from banditrepro.data import DATASET_NAMES, KAGGLE_DATASETS, PROCESSED_FILES, coupon, movielens, outbrain, standin
from banditrepro.data.__main__ import preprocessor
from banditrepro.data.manifest import MANIFEST_PATH, dataset_spec, load_manifest


def test_names_and_processed_files_come_from_the_manifest():
    raw = yaml.safe_load(MANIFEST_PATH.read_text(encoding="utf-8"))["datasets"]
    assert tuple(raw) == DATASET_NAMES
    assert tuple(name for name, entry in raw.items() if entry.get("kaggle")) == KAGGLE_DATASETS
    assert {name: tuple(entry["processed"]) for name, entry in raw.items()} == PROCESSED_FILES
    assert PROCESSED_FILES["movielens_1m"] == ("movie_rating_histograms.csv",)


def test_functions_named_by_the_manifest():
    assert preprocessor("movielens_1m") is movielens.preprocess
    assert preprocessor("outbrain") is outbrain.preprocess and preprocessor("coupon") is coupon.preprocess
    assert dataset_spec("outbrain").standin_generator() is standin.generate_outbrain
    assert dataset_spec("coupon").preprocess_options == ("horizon",)
    with pytest.raises(KeyError, match="no 'standin'"):
        dataset_spec("movielens_1m").standin_generator()


def _manifest(tmp_path, **extra):
    entry = {"title": "a new data set", "mirror_dir": "new", "files": [{"name": "table.csv"}],
             "preprocess": "movielens:preprocess", "processed": ["out.csv"], **extra}
    path = tmp_path / "manifest.yaml"
    path.write_text(yaml.safe_dump({"datasets": {"new_data": entry}}))
    return path


def test_a_new_dataset_is_one_entry(tmp_path):
    spec = load_manifest(_manifest(tmp_path))["new_data"]
    assert spec.processed == ("out.csv",) and spec.preprocessor() is movielens.preprocess
    assert spec.kaggle is None and spec.standin is None


def test_manifest_entries_are_checked(tmp_path):
    with pytest.raises(ValueError, match="unknown keys \\['procesed'\\]"):
        load_manifest(_manifest(tmp_path, procesed=["x"]))
    (tmp_path / "k").mkdir()
    with pytest.raises(ValueError, match="a Kaggle dataset needs a 'standin' generator"):
        load_manifest(_manifest(tmp_path / "k", kaggle="some-competition"))
