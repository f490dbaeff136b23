"""The table between hands, as a decider shaped like the hand's: its errors,
state, commands, events, decide and evolve, and the house's settings."""
