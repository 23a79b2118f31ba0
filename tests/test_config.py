"""Configuration comes from the environment, a variable per setting, typed like its default."""

from __future__ import annotations

import pytest

from api.runtime.config import Config


def test_every_setting_reads_its_variable_as_its_type() -> None:
    config = Config.from_env({
        "PORT": "9000", "BOT_GRACE_SECONDS": "2.5", "REDIS_CLUSTER": "yes", "CORS_ORIGINS": "https://a.example, https://b.example",
        "REDIS_URL": "redis://cache:6379/1", "RATE_LIMITS_ENABLED": "0",
    })
    assert config.PORT == 9000 and config.BOT_GRACE_SECONDS == 2.5 and config.REDIS_CLUSTER is True
    assert config.CORS_ORIGINS == ("https://a.example", "https://b.example")
    assert config.REDIS_URL == "redis://cache:6379/1" and config.RATE_LIMITS_ENABLED is False
    assert Config.from_env({}) == Config()


def test_an_empty_variable_is_unset_but_an_empty_list_allows_nothing() -> None:
    config = Config.from_env({"PORT": "", "LOG_LEVEL": " ", "CORS_ORIGINS": ""})
    assert config.PORT == Config.PORT and config.LOG_LEVEL == Config.LOG_LEVEL
    assert config.CORS_ORIGINS == ()


def test_a_value_of_the_wrong_type_names_its_variable() -> None:
    with pytest.raises(ValueError, match=r"WORKER_TTL_SECONDS='soon' is not a int"):
        Config.from_env({"WORKER_TTL_SECONDS": "soon"})
