"""One hand, as a decider: its rules, state, commands, events, decide and
evolve, and the shared mechanics they ask the game's description about
(betting, dealing, pots, showdown, whose turn it is)."""
