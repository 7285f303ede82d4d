"""The figures on failure text from the wild, held so that they cannot slip unseen.

The floors are below the figures reached (docs/kinds-by-provider.md prints them,
tests/normalise/accuracy.py computes them): a change that loses ground on the check
split, which no rule was written from, fails here. The aim is higher (95% of clear
cases, 75% of ambiguous ones on text never seen); see the closing notes.
"""

from __future__ import annotations

from tests.normalise.accuracy import score, split, wild_pairs

# check split, clear and ambiguous; train split, clear and ambiguous
# (Lowered as 1,100 entries from new sources came in, in six batches, and the train
# ambiguous floor again with batch 9, the check floors with batch 14, text in 27 languages
# of which rules knew two, the train ambiguous floor with batch 18, whose train half of
# agent hubs' lifecycle text was right once in 15 ambiguous cases, and the check and train
# ambiguous floors with batch 19, whose hard shapes are nine in ten ambiguous, and both
# ambiguous floors with batch 20, infrastructure and locale text right 11 times in its 35
# new check and 33 in its 69 new train ambiguous cases: harder text, not lost ground (the
# session's old entries went from 990 to 994 of 1,262 train and 423 to 430 of 637 check
# ambiguous cases), and the train ambiguous floor with batch 21, hubs' and harnesses'
# threads right 12 times in their 24 new train ambiguous cases before any rule was written
# from them; docs/kinds-by-provider.md shows each batch.)
FLOORS = {(True, "clear"): 0.88, (True, "ambiguous"): 0.65, (False, "clear"): 0.96,
          (False, "ambiguous"): 0.76}  # fmt: skip


def test_the_figures_hold() -> None:
    pairs = wild_pairs()
    for (check, clarity), floor in FLOORS.items():
        got = score(split(pairs, check, clarity))
        assert got.total >= 50, (check, clarity, got)
        assert got.right / got.total >= floor, (
            f"{'check' if check else 'train'} split, {clarity}: {got} is under {floor:.0%}"
        )
