"""Submitting bots: validate a folder, smoke-test it, store an immutable content-addressed copy.

A version is a copy of the bot folder under `<home>/bots/<sha256>/`, named by the
sha256 of its files. Submitting changed code creates version n+1; submitting the
same code again changes nothing.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from pathlib import Path

from arena.games import all_games, load_game
from arena.manifest import BotFolderError, Manifest, find_bot, load_manifest, prepare
from arena.match import BotRef, MatchSpec, SeatStatus, run_match
from arena.models import BotVersion
from arena.store import Store

#: Never part of a bot's identity: caches and what its build step produces.
_IGNORED_DIRS = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache"}
_IGNORED_SUFFIXES = (".pyc", ".pyo")


def _files(manifest: Manifest) -> list[Path]:
    built = manifest.folder / manifest.command[0] if manifest.build else None
    files = []
    for path in sorted(manifest.folder.rglob("*")):
        relative = path.relative_to(manifest.folder)
        if any(part in _IGNORED_DIRS for part in relative.parts):
            continue
        if path.is_file() and not path.name.endswith(_IGNORED_SUFFIXES) and path != built:
            files.append(path)
    return files


def content_hash(manifest: Manifest) -> str:
    """sha256 over the relative paths and contents of the bot's files."""
    digest = hashlib.sha256()
    for path in _files(manifest):
        digest.update(str(path.relative_to(manifest.folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _copy(manifest: Manifest, target: Path) -> None:
    if target.exists():
        return
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    for path in _files(manifest):
        destination = partial / path.relative_to(manifest.folder)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
    partial.rename(target)


def smoke_games(manifest: Manifest) -> list[str]:
    """The games a new version is smoke-tested on: the ones it declares it plays."""
    if "*" in manifest.games:
        return [g.spec.id for g in all_games()]
    for game in manifest.games:
        load_game(game)  # an unknown game id in the manifest is an error
    return list(manifest.games)


def smoke_test(manifest: Manifest, seed: int = 1) -> None:
    """Play one match per declared game against `random`; BotFolderError if the bot forfeits."""
    argv = tuple(prepare(manifest))
    opponent = find_bot("random")
    ref = BotRef(manifest.name, str(manifest.folder), argv)
    other = BotRef("random", str(opponent.folder), tuple(prepare(opponent)))
    for game in smoke_games(manifest):
        players = max(2, load_game(game).spec.min_players)
        spec = MatchSpec(
            match_id=f"smoke-{manifest.name}-{game}",
            game=game,
            seed=seed,
            seats=(ref, *[other] * (players - 1)),
            decision_timeout=2.0,
        )
        seat = run_match(spec).seats[0]
        if seat.status is not SeatStatus.OK:
            tail = seat.stderr.strip().splitlines()[-1:] if seat.stderr.strip() else []
            extra = f"; stderr: {tail[0]}" if tail else ""
            raise BotFolderError(
                f"{manifest.name} failed its smoke match of {game} against random: "
                f"{seat.status}: {seat.detail}{extra}"
            )


def submit(store: Store, home: Path, path: str, name: str | None = None) -> tuple[BotVersion, bool]:
    """Register a bot folder; returns (version, created). Unchanged code is a no-op."""
    manifest = find_bot(path)
    if name:
        manifest = replace(manifest, name=name)
    prepare(manifest)  # the command must exist (and build) before anything is stored
    sha = content_hash(manifest)
    existing = store.bot_version_by_sha(manifest.name, sha)
    if existing is not None:
        return existing, False
    target = home / "bots" / sha
    _copy(manifest, target)
    stored = replace(load_manifest(target), name=manifest.name)
    smoke_test(stored)
    version = store.add_bot_version(
        manifest.name, sha, str(target), stored.command, list(stored.games)
    )
    return version, True


def bot_ref(version: BotVersion, name: str) -> BotRef:
    """How to start a stored version (building it first if it has a build step)."""
    manifest = replace(load_manifest(version.folder), name=name)
    argv = tuple(prepare(manifest))
    return BotRef(name, str(manifest.folder), argv, version.id, version.sha256)
