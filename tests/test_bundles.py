"""Bot versions travel to workers as archives named by sha256, verified when unpacked."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from arena.match.run import BotRef
from arena.store import Store
from arena.submissions import submit as registry
from arena.tournament import bundles


def stored(tmp_path: Path, bot: str) -> tuple[str, str]:
    """(folder, sha256) of a bundled bot registered in a fresh home."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    version, _created = registry.submit(store, tmp_path, bot)
    store.close()
    return version.folder, version.sha256


def test_an_archive_unpacks_to_a_verified_copy_and_the_ref_points_there(tmp_path: Path) -> None:
    folder, sha = stored(tmp_path / "home", "first-legal")  # a C bot with a build step
    data = bundles.pack(folder, sha)
    cache = tmp_path / "cache"
    bundles.ARCHIVES[sha] = data
    # The coordinator's folder does not exist on this "worker": only the sha256 matters.
    ref = BotRef("first-legal", "/nowhere/on/this/worker", ("/nowhere/first-legal",), 1, sha)
    local = bundles.localize(ref, cache)
    assert local.folder == str(cache / sha)
    assert local.argv == (str(cache / sha / "first-legal"),)  # built on the worker
    assert Path(local.argv[0]).is_file()
    assert (local.name, local.version_id, local.sha256) == ("first-legal", 1, sha)
    assert bundles.localize(ref, cache) == local  # unpacked and built once


def test_an_archive_that_does_not_match_its_hash_is_refused(tmp_path: Path) -> None:
    folder, sha = stored(tmp_path / "home", "random")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(Path(folder).iterdir()):
            if path.name == "bot.py":
                info = tarfile.TarInfo("bot.py")
                evil = b"print('not the submitted code')\n"
                info.size = len(evil)
                tar.addfile(info, io.BytesIO(evil))
            else:
                tar.add(path, arcname=path.name)
    with pytest.raises(bundles.BundleError, match="hashing to"):
        bundles.unpack(sha, buffer.getvalue(), tmp_path / "cache")
    assert not (tmp_path / "cache" / sha).exists()
    assert list((tmp_path / "cache").iterdir()) == []  # no partial copy left behind


def test_a_version_never_shipped_is_a_platform_failure(tmp_path: Path) -> None:
    ref = BotRef("ghost", "/nowhere", ("python3", "bot.py"), 1, "0" * 64)
    with pytest.raises(bundles.BundleError, match="never shipped"):
        bundles.localize(ref, tmp_path)


def test_a_changed_stored_folder_is_not_packed(tmp_path: Path) -> None:
    folder, sha = stored(tmp_path, "random")
    (Path(folder) / "bot.py").write_text("# changed after submission\n")
    with pytest.raises(bundles.BundleError, match="no longer matches"):
        bundles.pack(folder, sha)


def test_a_ref_without_hash_is_used_as_it_is() -> None:
    ref = BotRef("plain", "/some/folder", ("python3", "bot.py"))
    assert bundles.localize(ref) is ref
