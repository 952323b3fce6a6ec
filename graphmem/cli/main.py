"""Entry point (placeholder until the CLI groups land)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    return 0
