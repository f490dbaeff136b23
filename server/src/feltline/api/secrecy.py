"""Card text never leaves the server in free text.

Fields that carry cards are redacted by who may see them
(:mod:`feltline.api.redaction`); free text (an error's message, a log line's
exception) has no such structure, so it is scrubbed of anything spelled like
a card. A word that only looks like one ("As") is scrubbed too: a small price
for never showing a face-down card by accident.
"""

from __future__ import annotations

import re

CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]|Jk)(?![A-Za-z0-9])")
HIDDEN = "[card]"


def scrub(text: str) -> str:
    """``text`` with every card token replaced by ``[card]``."""
    return CARD.sub(HIDDEN, text)
