"""The one YAML/JSON config loader (``rewardkit._config_file``): every file it reads (reward spec, training
config, verl routes) fails with one ConfigError naming the kind of file, its path and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardkit import ConfigError, build_reward
from rewardkit._config_file import load_mapping
from rewardkit.integrations import verl
from rewardkit.train.config import load_config

LOADERS = (
    ("reward spec file", "a mapping", build_reward),
    ("training config", "a mapping of config fields", load_config),
    ("verl: routes file", "a mapping of data_source to spec", verl.configure),
)


def message(load, path: Path) -> str:
    with pytest.raises(ConfigError) as raised:
        load(path)
    return str(raised.value)


@pytest.mark.parametrize(("what", "expected", "load"), LOADERS)
def test_every_config_file_fails_alike(tmp_path, what, expected, load):
    missing = tmp_path / "missing.yaml"
    assert message(load, missing) == f"{what} {str(missing)!r} does not exist"
    bad = tmp_path / "bad.yaml"
    bad.write_text("combine: [sum\n")
    assert message(load, bad).startswith(f"{what} {str(bad)!r} is not valid YAML/JSON: while parsing")
    listing = tmp_path / "list.yaml"
    listing.write_text("- reward: tag_format\n")
    assert message(load, listing) == f"{what} {str(listing)!r} must hold {expected}, got list"
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert message(load, empty) == f"{what} {str(empty)!r} must hold {expected}, got NoneType"


def test_yaml_and_json_give_the_same_mapping(tmp_path):
    (tmp_path / "a.yaml").write_text("reward: tag_format\nparams: {weight: 2}\n")
    (tmp_path / "a.json").write_text('{"reward": "tag_format", "params": {"weight": 2}}')
    assert load_mapping(tmp_path / "a.yaml", "x") == load_mapping(str(tmp_path / "a.json"), "x")
