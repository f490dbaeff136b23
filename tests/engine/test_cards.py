import pytest

from feltline.engine.cards.card import (
    ALL_CARDS,
    JOKER,
    Card,
    CardError,
    deck,
    format_cards,
    parse_cards,
)


def test_every_card_round_trips_through_its_token() -> None:
    for card in ALL_CARDS:
        assert Card.parse(str(card)) == card
    assert len({str(c) for c in ALL_CARDS}) == 53


def test_index_layout_is_rank_major() -> None:
    ace_of_spades = Card.parse("As")
    assert (ace_of_spades.rank, ace_of_spades.suit) == (12, 3)
    assert Card.parse("2c") == 0
    assert Card.of(8, 1) == Card.parse("Td")
    assert JOKER.is_joker
    assert not ace_of_spades.is_joker


def test_parse_accepts_spaces_or_none() -> None:
    assert parse_cards("As Kd") == parse_cards("AsKd") == parse_cards(["As", "Kd"])
    assert format_cards(parse_cards("Th 9h Jk")) == "Th 9h Jk"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Zs", "bad card 'Zs': rank 'Z' is not one of 23456789TJQKA"),
        ("Ax", "bad card 'Ax': suit 'x' is not one of cdhs"),
        ("As K", "every card is two characters"),
        ("as", "rank 'a'"),
    ],
)
def test_bad_tokens_are_named(text: str, message: str) -> None:
    with pytest.raises(CardError, match=message.replace("(", r"\(")):
        parse_cards(text)


def test_every_bad_token_is_reported_by_position() -> None:
    with pytest.raises(CardError) as caught:
        parse_cards(["As", "10h", "Kq"])
    assert "card 2: bad card '10h'" in str(caught.value)
    assert "card 3: bad card 'Kq'" in str(caught.value)


def test_joker_has_neither_rank_nor_suit() -> None:
    with pytest.raises(ValueError, match="no rank"):
        _ = JOKER.rank
    with pytest.raises(ValueError, match="no suit"):
        _ = JOKER.suit


def test_decks() -> None:
    assert len(deck()) == 52
    assert len(deck(joker=True)) == 53
    assert JOKER in deck(joker=True)
    assert JOKER not in deck()
