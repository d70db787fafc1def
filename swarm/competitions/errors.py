"""The one error type of the competitions package."""

from __future__ import annotations


class CompetitionError(ValueError):
    """A competition dir, id, metric or leaderboard is wrong; the message says what and where."""
