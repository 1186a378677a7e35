"""Keyed seeds: the seeds an organiser names are public, the ones a match runs on are not.

A tournament seed is public (tournaments/*.toml, default 0) and `arena play --seed`
values are small, so nothing a bot can search may be a public function of them: a
bot that can recompute the deal knows every hand. Each database therefore holds a
secret key (32 random bytes, arena.store.Store.secret; ARENA_SECRET may set it), and
the coordinator derives from it, with HMAC-SHA256, everything a match runs on:

- the deal seed (256 bits), from the public seed alone, so every seat rotation of a
  duplicate deal still gets the same cards;
- each seat's bot seed and fallback seed, and the opaque `match` id the bots are
  given, from the public seed and the match's place in its schedule.

Every value is an independent keyed hash: the bot seed is not a function of the
deal seed, and revealing one match's values (its replay records them) tells nothing
about another's. The derived values travel in the picklable MatchSpec, so workers
(local or on Dask) never see the secret. The same public seeds and the same secret
give the same matches, in any database that shares the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from arena import ArenaError, settings

#: Bytes of a database's secret key.
SECRET_BYTES = 32
#: The environment variable that overrides the stored secret (hex).
SECRET_ENV = settings.SECRET
#: Bits of a bot or fallback seed: exact as a JSON number in every language.
SEAT_SEED_BITS = 48
#: Hex digits of the opaque match id given to bots.
MATCH_ID_HEX = 20


class SecretError(ArenaError, ValueError):
    """A secret key that is not 32 bytes of hex."""


@dataclass(frozen=True)
class MatchKeys:
    """What one match runs on, derived by the coordinator; none of it guessable by a bot."""

    #: The opaque id the bots are given in `start` and `end`.
    match: str
    #: Seeds the referee's random generator (the deal and every later shuffle).
    deal: int
    #: The `seed` each seat's bot is given, by seat.
    bots: tuple[int, ...]
    #: Seeds the fallback policy that plays for a forfeited seat, by seat.
    fallbacks: tuple[int, ...]


def new_secret() -> bytes:
    """A fresh random secret key."""
    return secrets.token_bytes(SECRET_BYTES)


def parse_secret(text: str) -> bytes:
    """A secret key from its hex text; SecretError unless it is 32 bytes.

    >>> len(parse_secret("ab" * 32))
    32
    """
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        secret = b""
    if len(secret) != SECRET_BYTES:
        raise SecretError(f"a secret key is {2 * SECRET_BYTES} hex digits ({SECRET_BYTES} bytes)")
    return secret


def env_secret() -> bytes | None:
    """The secret set by ARENA_SECRET, or None when it is unset or empty."""
    text = settings.read(SECRET_ENV)
    if not text.strip():
        return None
    try:
        return parse_secret(text)
    except SecretError as error:
        raise SecretError(f"{SECRET_ENV}: {error}") from None


def _keyed(secret: bytes, *parts: str | int) -> bytes:
    """HMAC-SHA256 of the parts (encoded unambiguously as a JSON list)."""
    return hmac.new(secret, json.dumps(parts).encode(), hashlib.sha256).digest()


def _seat_seed(secret: bytes, purpose: str, seed: int, instance: str, seat: int) -> int:
    digest = _keyed(secret, purpose, seed, instance, seat)
    return int.from_bytes(digest[: SEAT_SEED_BITS // 8], "big")


def derive(secret: bytes, seed: int, instance: str, players: int) -> MatchKeys:
    """The keys of one match of a public `seed`; `instance` names it among that seed's matches.

    Matches that share `seed` share the deal (duplicate seat rotations); `instance`
    (e.g. the match's number in its schedule) gives each its own bot seeds and id.

    >>> a, b = derive(b"k" * 32, 0, "m0", 2), derive(b"k" * 32, 0, "m1", 2)
    >>> a.deal == b.deal and a.bots != b.bots and a.match != b.match
    True
    >>> derive(b"j" * 32, 0, "m0", 2).deal != a.deal
    True
    """
    return MatchKeys(
        match=_keyed(secret, "match", seed, instance).hex()[:MATCH_ID_HEX],
        deal=int.from_bytes(_keyed(secret, "deal", seed), "big"),
        bots=tuple(_seat_seed(secret, "bot", seed, instance, s) for s in range(players)),
        fallbacks=tuple(_seat_seed(secret, "fallback", seed, instance, s) for s in range(players)),
    )


def one_off(seed: int, instance: str, players: int) -> MatchKeys:
    """Keys under a secret used once and forgotten: for a match nobody needs to reproduce.

    The smoke match of a submission, arena doctor's check and benchmarks run this
    way: to a bot they look like any other match, and nothing about them can be
    recomputed, not even by arena.
    """
    return derive(new_secret(), seed, instance, players)
