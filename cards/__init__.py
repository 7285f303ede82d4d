"""cards: the turn-error card, its payload codec and the reference renderers.

Pure: no I/O, and nothing from `roombot`. A Matrix client can depend on this
package alone to draw roombot's cards.
"""

from cards.kinds import Kind
from cards.shape import Attempt, TurnError

__all__ = ["Attempt", "Kind", "TurnError"]
