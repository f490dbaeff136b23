"""Cards, the deck and what a hand of cards is worth."""
