"""The pure rules of poker: no I/O, no clock, no randomness of its own.

Its parts, each a folder: ``cards/`` (the cards, the deck a seed orders and
what a hand of cards is worth), ``games/`` (each game's rules, one module a
game), ``hand/`` (one hand as a decider and the mechanics it shares across
games) and ``table/`` (the table between hands, a decider of the same
shape). Beside them, what spans tables: ``tournament`` with its
``director``, ``duplicate`` scoring, and the ``errors`` every decider
refuses with."""
