"""The error every part of the configuration raises: the dotted key, and what is wrong.

Its own module so that the sections read elsewhere (`roombot.api.settings`) and the
whole file (`roombot.config`) both use it without importing each other.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration problem; `key` is the dotted name of what is wrong."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem
