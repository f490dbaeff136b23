"""The deck derivation: fixed vectors, a naive second implementation, fairness."""

import hashlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feltline.engine.cards.card import ALL_CARDS, deck, format_cards, parse_cards
from feltline.engine.cards.deck import (
    ALGORITHMS,
    CONTRIBUTED_ALGORITHM,
    DECK_ALGORITHM,
    commitment,
    deck_seed,
    draw,
    fisher_yates,
    reshuffle_purpose,
    shuffle,
    words,
)

ZERO_SEED = bytes(32)
COUNTING_SEED = bytes(range(32))
A5_SEED = bytes([0xA5]) * 32
STUB = "8c 2d 7h Ks 3c 9d Jh"

# (seed, purpose, cards in, cards out), computed once by feltline.engine.cards.deck
# and re-derived below by the naive reference; docs/deck.md lists the same.
VECTORS = [
    (
        ZERO_SEED,
        "deck",
        format_cards(deck()),
        "6c 7c Qd 8c 7s 5c 9s 3s Ts Kh 3c 9c 4h 4d 8h 5h 2s 3d Kd As 2c 3h Qc Ah 9h 2d "
        "Jh 8d Qh Jd 6d Jc 6h 7d 4s 7h 6s 2h 5d 9d 5s Tc Js Ks Ad 4c Th 8s Td Qs Kc Ac",
    ),
    (
        COUNTING_SEED,
        "deck",
        format_cards(deck()),
        "3h 8d 7s 5s 4d 8s 2c Kh 2d Td 9s Ac 7h Jc 3c Js 9d Ah 5c Kd 3s 8c Jd Ts Qh 2s "
        "7c 5h 7d Tc 2h 9c Qd 9h 6d Kc Qs Ks Ad As Qc Th 4s Jh 6s 4h 3d 4c 6h 5d 6c 8h",
    ),
    (
        A5_SEED,
        "deck",
        format_cards(deck(joker=True)),
        "4h Td 5c 3d Kd 6c Jd Kc 9h Qh Jh Qd 5d As Ac 9s 2s 7h 6d 3c Ah 9c Jk 8c 7c 8h "
        "8d Ts 5s 7s 6s Kh 5h Jc 8s 4s Tc 4d 4c 2c 9d 3h Th 6h 2d 2h Qc Ad Ks Qs 7d 3s Js",
    ),
    (COUNTING_SEED, "reshuffle/1", STUB, "2d 9d 3c 7h 8c Ks Jh"),
    (COUNTING_SEED, "reshuffle/2", STUB, "9d Jh 7h Ks 2d 3c 8c"),
]

COMMITMENTS = {
    ZERO_SEED: "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
    COUNTING_SEED: "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
    A5_SEED: "fc8b64001c5fdd0f2f40fb67dae4a865a2c5bd17836676d6d5b58b7917e33717",
}


def naive_shuffle(seed: bytes, tokens: list[str], purpose: str) -> list[str]:
    """The algorithm as docs/deck.md words it, sharing no code with the engine.

    HMAC is built by hand from SHA-256 (RFC 2104), the whole stream is made up
    front as one byte string, and cards stay as their tokens.
    """
    key = seed.ljust(64, b"\0")
    inner_pad = bytes(b ^ 0x36 for b in key)
    outer_pad = bytes(b ^ 0x5C for b in key)
    label = ("feltline-deck-v1/" + purpose).encode("utf-8")
    stream = b""
    for block in range(64):  # far more than a shuffle of a few dozen cards needs
        message = label + block.to_bytes(8, "big")
        inner = hashlib.sha256(inner_pad + message).digest()
        stream += hashlib.sha256(outer_pad + inner).digest()
    position = 0
    result = list(tokens)
    i = len(result) - 1
    while i >= 1:
        size = i + 1
        while True:
            value = int.from_bytes(stream[position : position + 4], "big")
            position += 4
            if value < (4294967296 // size) * size:
                break
        j = value % size
        result[i], result[j] = result[j], result[i]
        i -= 1
    return result


@pytest.mark.parametrize(("seed", "purpose", "cards_in", "cards_out"), VECTORS)
def test_vectors(seed: bytes, purpose: str, cards_in: str, cards_out: str) -> None:
    assert format_cards(shuffle(seed, parse_cards(cards_in), purpose)) == cards_out
    assert " ".join(naive_shuffle(seed, cards_in.split(), purpose)) == cards_out


def test_vectors_are_published() -> None:
    document = (Path(__file__).parents[2] / "docs" / "deck.md").read_text()
    for seed, _, _, cards_out in VECTORS:
        assert seed.hex() in document
        assert cards_out in document
    for digest in COMMITMENTS.values():
        assert digest in document


def test_commitment_is_lowercase_hex_sha256() -> None:
    for seed, digest in COMMITMENTS.items():
        assert commitment(seed) == digest == hashlib.sha256(seed).hexdigest()


def test_algorithm_is_named_and_versioned() -> None:
    assert DECK_ALGORITHM == "feltline-deck-v1"


@pytest.mark.parametrize("length", [0, 16, 31, 33, 64])
def test_seed_must_be_32_bytes(length: int) -> None:
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        shuffle(bytes(length), deck())
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        shuffle(bytes(length), ())
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        commitment(bytes(length))


@given(
    seed=st.binary(min_size=32, max_size=32),
    cards=st.lists(st.sampled_from(ALL_CARDS), unique=True, max_size=53),
    purpose=st.sampled_from(["deck", "reshuffle/1", "reshuffle/7"]),
)
def test_every_output_is_a_permutation(seed: bytes, cards: list[int], purpose: str) -> None:
    given_cards = tuple(ALL_CARDS[c] for c in cards)
    shuffled = shuffle(seed, given_cards, purpose)
    assert sorted(shuffled) == sorted(given_cards)
    assert [str(c) for c in shuffled] == naive_shuffle(seed, [str(c) for c in given_cards], purpose)


def test_purposes_and_seeds_give_different_orders() -> None:
    orders = {
        shuffle(seed, deck(), purpose)
        for seed in (ZERO_SEED, COUNTING_SEED, A5_SEED)
        for purpose in ("deck", reshuffle_purpose(1), reshuffle_purpose(2))
    }
    assert len(orders) == 9


def test_reshuffle_purposes_are_numbered_from_one() -> None:
    assert reshuffle_purpose(1) == "reshuffle/1"
    assert reshuffle_purpose(12) == "reshuffle/12"
    with pytest.raises(ValueError, match="from 1"):
        reshuffle_purpose(0)


def test_the_word_stream_is_hmac_blocks_read_big_endian() -> None:
    stream = words(ZERO_SEED, "deck")
    first = [next(stream) for _ in range(9)]
    # Block 0, HMAC-SHA256(0^32, "feltline-deck-v1/deck" || 0^8), begins 0c79691c 9bc26cc7;
    # block 1 (counter 1) begins b1d52b63 and follows block 0's eight words.
    assert first[:2] == [0x0C79691C, 0x9BC26CC7]
    assert first[8] == 0xB1D52B63


def test_first_draws_match_the_documented_intermediate_values() -> None:
    stream = words(ZERO_SEED, "deck")
    assert [draw(stream, i + 1) for i in range(51, 43, -1)] == [48, 44, 43, 33, 27, 34, 8, 43]


def crafted(*values: int) -> Iterator[int]:
    return iter(values)


def test_draw_rejects_words_at_or_above_the_threshold() -> None:
    # bound 6: threshold (2**32 // 6) * 6 = 4294967292; the last four words are rejected.
    assert draw(crafted(4294967292, 4294967295, 13), 6) == 13 % 6
    assert draw(crafted(4294967291), 6) == 4294967291 % 6
    # bound 3: only 2**32 - 1 is rejected.
    assert draw(crafted(2**32 - 1, 2**32 - 2), 3) == (2**32 - 2) % 3


def test_draw_never_rejects_for_a_power_of_two() -> None:
    assert draw(crafted(2**32 - 1), 4) == 3
    assert draw(crafted(2**32 - 1), 1) == 0


def test_draw_consumes_exactly_the_words_it_needs() -> None:
    stream = crafted(2**32 - 1, 5, 8)
    assert draw(stream, 3) == 2
    assert next(stream) == 8


def test_draw_refuses_an_empty_range_and_an_exhausted_stream() -> None:
    with pytest.raises(ValueError, match="cannot draw below 0"):
        draw(crafted(1), 0)
    with pytest.raises(ValueError, match="stream ended"):
        draw(crafted(2**32 - 1), 3)


def test_word_by_word_fisher_yates_rejects_as_draw_does() -> None:
    a, b, c = parse_cards("As Kd 2c")
    # bound 3 rejects 2**32 - 1 and takes 5 (j = 2); bound 2 takes 7 (j = 1).
    assert fisher_yates(crafted(2**32 - 1, 5, 7), (a, b, c)) == (a, b, c)
    # bound 3 takes 3 (j = 0): c and a swap; bound 2 takes 4 (j = 0): b and c swap.
    assert fisher_yates(crafted(3, 4), (a, b, c)) == (b, c, a)


@pytest.mark.parametrize("seed", [ZERO_SEED, COUNTING_SEED, A5_SEED])
@pytest.mark.parametrize("purpose", ["deck", "reshuffle/1"])
def test_shuffle_agrees_with_the_word_by_word_path(seed: bytes, purpose: str) -> None:
    """shuffle takes the words for a whole deck at once when none can be
    rejected, and goes word by word otherwise: both give one order."""
    for cards in (deck(), deck(joker=True), deck()[:7], deck()[:2]):
        assert shuffle(seed, cards, purpose) == fisher_yates(words(seed, purpose), cards)


# Found by search: seeds whose first 51 deck words include one above
# 2**32 - 52, so shuffle reads the stream word by word; with the second, a
# draw does reject a word (about one deck in three million).
RARE_SEEDS = [hashlib.sha256(b"reject %d" % i).digest() for i in (373747, 2073303)]


@pytest.mark.parametrize("seed", RARE_SEEDS)
def test_a_deck_with_a_rejectable_word_follows_the_reference(seed: bytes) -> None:
    stream = words(seed, "deck")
    first = [next(stream) for _ in range(51)]
    assert max(first) > 2**32 - 52
    rejected = any(w >= (2**32 // (52 - k)) * (52 - k) for k, w in enumerate(first))
    assert rejected == (seed == RARE_SEEDS[1])
    tokens = [str(c) for c in deck()]
    assert [str(c) for c in shuffle(seed, deck())] == naive_shuffle(seed, tokens, "deck")


def test_cards_spread_evenly_over_positions() -> None:
    """Over 2,000 seeds every card lands in every watched position about evenly.

    The seeds are fixed, so this cannot flake; the bounds (chi-square under 150
    with 51 degrees of freedom, every count between 5 and 90 around an expected
    38.5) would catch a broken or biased shuffle, not normal variation.
    """
    watched = (0, 1, 25, 51)
    counts = {position: Counter[int]() for position in watched}
    trials = 2000
    for n in range(trials):
        order = shuffle(hashlib.sha256(n.to_bytes(4, "big")).digest(), deck())
        for position in watched:
            counts[position][order[position]] += 1
    expected = trials / 52
    for position in watched:
        observed = [counts[position][card] for card in deck()]
        assert min(observed) >= 5
        assert max(observed) <= 90
        chi_square = sum((o - expected) ** 2 / expected for o in observed)
        assert chi_square < 150


# feltline-deck-v2: the deck seed from the server's seed and the seats'
# contributions; docs/deck.md lists the same vectors.
ELEVENS, FORTY_FOURS = bytes([0x11]) * 32, bytes([0x44]) * 32
V2_VECTORS = [
    (
        {},
        "92bfe3f14bbf10c327d07349b1edbd4ab85b8490ba337c9dfcb18044b8dcfa2b",
        "3h Qc 7d 8h Kh 3c 2d Ks 6d Qs 3s Ah Ac 9s 2s 8s 5s Ts 6c 7s 6s Jd Kc 5c 5d 2c "
        "Js 6h 9h 4d Th 2h As Qd 4c 9d Jc 8d 9c 7c Kd Td 3d Ad 4h Tc 7h 4s 8c Jh 5h Qh",
    ),
    (
        {1: ELEVENS, 4: FORTY_FOURS},
        "6e856284780c991eda70a8fe817592ba8de4086ef9c2438a7c35667a0e54a65f",
        "3s 2s Qc Kd 2c Jc Ts 6s 4d 6h Qh 2d Js Jh Kh Jd 7h Ac 8s 7c Qs Ks 3d 8c 3h As "
        "Kc 8d 5c Qd 5s 9h 2h Tc 9s 7d 4s 4h 5d 6c Td 9d 4c 6d 3c 8h Ad Th 7s 9c Ah 5h",
    ),
    (
        {1: ELEVENS},
        "45c7831b4c841d1f80aaf9be26f70ea22d0d5259d175490d94f4ef24b13cbf0a",
        "5h 9h 7h Qc 3d 4d 6s 3h 5s Ad 2s 2h Js 9c 5d 8d 6h 2c Jc Kd 7c 9s Tc 3s Qd 8h "
        "Qs 6c Td 4s Kc 2d 3c Jh 8c Jd 5c Ah Ac Th Ks 9d Qh Ts 7s 6d 4c 8s 4h 7d As Kh",
    ),
]


def naive_deck_seed(server: bytes, contributions: dict[int, bytes]) -> bytes:
    """docs/deck.md's D, with HMAC built by hand from SHA-256 (RFC 2104)."""
    message = b"feltline-deck-v2" + b"".join(
        seat.to_bytes(4, "big") + contributions[seat] for seat in sorted(contributions)
    )
    key = server.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key) + message).digest()
    return hashlib.sha256(bytes(b ^ 0x5C for b in key) + inner).digest()


@pytest.mark.parametrize(("contributions", "seed_hex", "cards_out"), V2_VECTORS)
def test_v2_vectors(contributions: dict[int, bytes], seed_hex: str, cards_out: str) -> None:
    assert deck_seed(COUNTING_SEED, contributions).hex() == seed_hex
    assert naive_deck_seed(COUNTING_SEED, contributions).hex() == seed_hex
    mixed = bytes.fromhex(seed_hex)
    assert format_cards(shuffle(mixed, deck())) == cards_out
    assert " ".join(naive_shuffle(mixed, format_cards(deck()).split(), "deck")) == cards_out


def test_v2_vectors_are_published() -> None:
    document = (Path(__file__).parents[2] / "docs" / "deck.md").read_text()
    for _, seed_hex, cards_out in V2_VECTORS:
        assert seed_hex in document
        assert cards_out in document
    for contribution in (ELEVENS, FORTY_FOURS):
        assert commitment(contribution) in document


def test_v2_is_named_and_listed() -> None:
    assert CONTRIBUTED_ALGORITHM == "feltline-deck-v2"
    assert ALGORITHMS == ("feltline-deck-v1", "feltline-deck-v2")


def test_the_deck_seed_follows_seat_order_not_the_order_given() -> None:
    assert deck_seed(COUNTING_SEED, {4: FORTY_FOURS, 1: ELEVENS}) == deck_seed(
        COUNTING_SEED, {1: ELEVENS, 4: FORTY_FOURS}
    )


def test_every_input_moves_the_deck_seed() -> None:
    """A seat's bytes, its seat number, and the server's seed each change D:
    no party's input can be dropped or swapped without it showing."""
    seeds = {
        deck_seed(COUNTING_SEED, {1: ELEVENS, 4: FORTY_FOURS}),
        deck_seed(COUNTING_SEED, {1: FORTY_FOURS, 4: ELEVENS}),
        deck_seed(COUNTING_SEED, {2: ELEVENS, 4: FORTY_FOURS}),
        deck_seed(ZERO_SEED, {1: ELEVENS, 4: FORTY_FOURS}),
        deck_seed(COUNTING_SEED, {1: ELEVENS}),
        deck_seed(COUNTING_SEED, {}),
    }
    assert len(seeds) == 6


@pytest.mark.parametrize("length", [0, 31, 33])
def test_a_contribution_must_be_32_bytes(length: int) -> None:
    with pytest.raises(ValueError, match="seat 3's contribution is exactly 32 bytes"):
        deck_seed(COUNTING_SEED, {3: bytes(length)})
    with pytest.raises(ValueError, match="a deck seed is exactly 32 bytes"):
        deck_seed(bytes(length), {})


def test_a_seat_number_fits_four_bytes() -> None:
    with pytest.raises(ValueError, match="a seat is numbered from 0"):
        deck_seed(COUNTING_SEED, {-1: ELEVENS})
