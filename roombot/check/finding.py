"""One problem `roombot run --check` found: the key at fault, and what is wrong and what to do."""

from __future__ import annotations

from dataclasses import dataclass

from roombot.configerror import ConfigError


@dataclass(frozen=True, slots=True)
class Finding:
    key: str  # the dotted config key, as ConfigError names it
    message: str  # what is wrong, then what to do: one line

    @classmethod
    def of(cls, error: ConfigError) -> Finding:
        return cls(error.key, error.problem)

    def line(self) -> str:
        return f"{self.key}: {self.message}"
