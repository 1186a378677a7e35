"""Issue 30, item 6: a match sandbox sees only its view of the system, every page resident.

A bot used to see all of /usr read-only, and with it the page cache of every system file:
a receiver timing the first read of a cold page learned whether a sender had read it.
Now a match sandbox sees its view (`arena.sandbox.view`): /etc, /bin/sh, its program
and what that needs. Before any sandbox sees it, every file of the view is made
resident and locked. These tests look into a running sandbox from the host (its
/proc/PID/root is the bot's own mount namespace): every regular file a bot of each
language can see is fully in the page cache (mincore), a file outside the view is not
there at all, and tests/bots/page_cache, which passes its hand to its next process
through first reads, learns nothing, where with the whole system shown it does.

Issue 30, item 1: the view's folders are copies on a tmpfs (`arena.sandbox.trees`),
which keeps no negative dentries, so tests/bots/dentry_memory, which passes its hand
through lookups of missing names, learns nothing either, where with the host's folders
shown it does.
"""

from __future__ import annotations

import ctypes
import dataclasses
import mmap
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.match.run import MatchResult
from arena.sandbox import bwrap, spawn, view
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from arena.store import Store
from arena.submissions import check
from arena.submissions.manifest import BUNDLED_BOTS, load_manifest, prepare
from arena.tournament import runner
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS, sandboxed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here"),
]
STARTERS = BUNDLED_BOTS / "starters"
#: The language of each kit, and the programs its build and command need.
KITS = {
    "python": ("python3",),
    "javascript": ("node",),
    "c": ("gcc",),
    "java": ("javac", "java"),
    "rust": ("cargo",),
    "go": ("go",),
}
#: Files of the machine that no bot's view holds (documentation, other programs' data).
OUTSIDE = ("/usr/share/doc", "/usr/share/common-licenses/GPL-3", "/usr/bin/gcc")
#: Mounts of the sandbox's own, not the machine's system.
OWN = ("/proc", "/dev", "/tmp", "/sys")


# ----- looking into a running sandbox from the host ------------------------------------
def non_resident_pages(path: str) -> int:
    """How many pages of the file at `path` are not in the page cache (the host's mincore)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        assert address not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
    finally:
        os.close(fd)
    try:
        pages = -(-size // mmap.PAGESIZE)
        vector = (ctypes.c_ubyte * pages)()
        assert libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector) == 0
        return sum(1 for byte in vector if not byte & 1)
    finally:
        libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(size))


def visible_files(box: Sandboxed) -> Iterator[str]:
    """Every regular file the sandbox can see (its paths inside), through /proc/PID/root."""
    root = f"/proc/{box._init_pid}/root"
    assert os.path.isdir(root + "/bot"), "the sandbox is gone"
    for folder, dirs, names in os.walk(root):
        inside = folder[len(root) :] or "/"
        if inside == "/":
            dirs[:] = [d for d in dirs if "/" + d not in OWN]
        for name in names:
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                yield path[len(root) :]


def cold_files(box: Sandboxed, most: int = 20) -> list[tuple[str, int]]:
    """Up to `most` files visible in the sandbox with pages not in the page cache."""
    root = f"/proc/{box._init_pid}/root"
    found = []
    for inside in visible_files(box):
        missing = non_resident_pages(root + inside)
        if missing:
            found.append((inside, missing))
            if len(found) >= most:
                break
    return found


def started(argv: list[str], folder: Path) -> Sandboxed:
    """A bot of `argv` in `folder`, started as arena starts one for a match (it waits on
    its stdin for the protocol's first line, so it stays up while the test looks)."""
    return launch(argv, folder, Limits())


@pytest.fixture(scope="module")
def kits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[str], Path]]:
    """Every starter kit whose tools are here, built: its command and its folder."""
    built = {}
    for kit, tools in KITS.items():
        if any(shutil.which(t, path=bwrap.SANDBOX_PATH) is None for t in tools):
            continue
        folder = tmp_path_factory.mktemp("kits") / kit
        shutil.copytree(STARTERS / kit, folder, ignore=shutil.ignore_patterns("target", "bot"))
        folder.chmod(0o755)
        manifest = load_manifest(folder)
        built[kit] = (prepare(manifest), folder)
    return built


@pytest.mark.parametrize("kit", list(KITS))
def test_every_file_a_bot_can_see_is_resident(
    kit: str, kits: dict[str, tuple[list[str], Path]]
) -> None:
    if kit not in kits:
        pytest.skip(f"no {kit} toolchain here")
    argv, folder = kits[kit]
    box = started(argv, folder)
    try:
        seen = list(visible_files(box))
        cold = cold_files(box)
    finally:
        box.kill()
    assert len(seen) > 20, seen  # its program and what it needs are there
    assert cold == [], f"{len(cold)}+ files of the {kit} bot's view are not all resident"


def test_a_bundled_python_bot_sees_arenas_referees_and_only_its_view() -> None:
    random_bot = load_manifest(BUNDLED_BOTS / "random")
    box = started(prepare(random_bot), random_bot.folder)
    try:
        seen = set(visible_files(box))
        cold = cold_files(box)
    finally:
        box.kill()
    assert "/arena/python/arena/games/__init__.py" in seen
    assert cold == []
    for outside in OUTSIDE:
        if os.path.exists(outside):
            assert not any(bwrap.under(path, (outside,)) for path in seen), outside


@pytest.mark.parametrize("kit", ["python", "java", "javascript", "c"])
def test_files_outside_the_view_are_not_in_the_sandbox(
    kit: str, kits: dict[str, tuple[list[str], Path]]
) -> None:
    if kit not in kits:
        pytest.skip(f"no {kit} toolchain here")
    argv, folder = kits[kit]
    box = started(argv, folder)
    try:
        root = f"/proc/{box._init_pid}/root"
        there = [p for p in OUTSIDE if os.path.exists(p) and os.path.lexists(root + p)]
        usr_lib = sorted(os.listdir(root + "/usr/lib/x86_64-linux-gnu"))
    finally:
        box.kill()
    assert there == []
    on_host = os.listdir("/usr/lib/x86_64-linux-gnu")
    assert len(usr_lib) < len(on_host) // 2, usr_lib  # only the libraries it needs


def test_a_sandbox_is_shown_only_the_top_folders_of_its_own_view(tmp_path: Path) -> None:
    # One root holds every view of a process: a toolchain in /var/tmp that one bot's view
    # copied must not show /var to the next bot (CI saw it in tests/test_sandbox.py).
    mine = tmp_path / "mine.so"
    mine.write_bytes(b"x")
    root = view.Root(tmp_path / "root")
    try:
        other = root.place(view.View(files={"/etc/passwd"}))
        args = root.place(view.View(files={str(mine)}))
    finally:
        root.remove()
    assert "/etc" in other
    assert "/etc" not in args and "/tmp" in args


def test_a_views_trees_are_shared_copies_and_only_large_files_are_bound(tmp_path: Path) -> None:
    # Every folder a sandbox can look a name up in is a copy on the tmpfs (no negative
    # dentries); a file over COPY_MOST_BYTES is bound from the host, a file has no names.
    tree = tmp_path / "tree"
    (tree / "private").mkdir(parents=True)
    (tree / "private").chmod(0o700)
    (tree / "secret").write_text("s")
    (tree / "secret").chmod(0o640)
    with open(tree / "large", "wb") as handle:
        handle.truncate(view.COPY_MOST_BYTES + 1)
    (tree / "link").symlink_to("secret")
    seen = view.View(trees={str(tree)})
    first, second = view.Root(tmp_path / "one"), view.Root(tmp_path / "two")
    try:
        args = first.place(seen)
        source = first.shared.get(str(tree)).source
        assert [a.replace("/two", "/one") for a in second.place(seen)] == args  # one copy
        assert ["--ro-bind", str(source), str(tree)] == args[-6:-3]
        assert ["--ro-bind", str(tree / "large"), str(tree / "large")] == args[-3:]
        assert stat.S_IMODE((source / "secret").stat().st_mode) == 0o640
        assert stat.S_IMODE((source / "private").stat().st_mode) == 0o700
        # a byte-code file is stale when its source's time differs: copies keep the host's
        assert (source / "secret").stat().st_mtime_ns == (tree / "secret").stat().st_mtime_ns
        assert (source / "link").is_symlink() and (source / "large").stat().st_size == 0
        assert sorted(first.resident(seen)) == sorted([str(source / "secret"), str(tree / "large")])
        first.remove()
        assert source.is_dir()  # the other process still holds it
        (tree / "secret").write_text("changed")  # another content: another copy
        assert view.Root(tmp_path / "three").shared.get(str(tree)).source != source
    finally:
        first.remove()
        second.remove()
    assert not source.exists()
    assert sorted(os.listdir(tmp_path / "trees")) != []  # the third's, held until it goes


def test_a_build_still_sees_the_whole_system() -> None:
    folder = Path(tempfile.mkdtemp(prefix="arena-build-", dir="/var/tmp"))  # /tmp: not the uid's
    folder.chmod(0o755)
    try:
        box = launch(["/bin/sh", "-c", "read -r _"], folder, Limits(), writable=True)
        try:
            root = f"/proc/{box._init_pid}/root"
            assert os.path.exists(root + "/usr/bin/gcc") == os.path.exists("/usr/bin/gcc")
            assert os.path.isdir(root + "/usr/share/doc") == os.path.isdir("/usr/share/doc")
        finally:
            box.kill()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_root_of_a_match_sandbox_is_read_only(tmp_path: Path) -> None:
    box = launch(
        ["/bin/sh", "-c", "{ mkdir /usr/x; : > /x; } 2>&1; echo done"],
        TEST_BOTS / "polite",
        Limits(),
    )
    out, _err = box.process.communicate(timeout=20)
    box.kill()
    assert out.count(b"Read-only file system") == 2, out


# ----- reading ELF files as data -------------------------------------------------------------
def test_a_hostile_elf_file_is_no_elf_at_all(tmp_path: Path) -> None:
    broken = tmp_path / "bot"
    real = Path(os.path.realpath("/bin/sh")).read_bytes()
    broken.write_bytes(real[:64] + b"\xff" * 4096)  # a header that points past the end
    assert view.read_elf(str(broken)) is None
    (tmp_path / "magic").write_bytes(b"\x7fELF" + os.urandom(60))
    assert view.read_elf(str(tmp_path / "magic")) is None
    elf = view.read_elf(os.path.realpath("/bin/sh"))
    assert elf is not None and "libc.so.6" in elf.needed and elf.interpreter


@pytest.mark.slow  # a second of pyelftools
def test_the_elf_reader_finds_what_pyelftools_finds_in_the_systems_libraries() -> None:
    """read_elf reads ELF files with `struct`; pyelftools (arena's reader before, 20 times
    slower) is the reference: the same interpreter, needs and search paths for each."""
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile
    from elftools.elf.segments import InterpSegment

    folder = os.path.dirname(os.path.realpath("/lib64/ld-linux-x86-64.so.2"))
    paths = [os.path.realpath("/bin/sh")]
    paths += sorted(str(p) for p in Path(folder).glob("*.so*") if p.is_file())[:150]
    compared = 0
    path_tags = ("DT_RPATH", "DT_RUNPATH")  # in the order of the tags, as ld.so reads them
    for path in paths:
        found = view.read_elf(path)
        with open(path, "rb") as handle:
            if handle.read(4) != b"\x7fELF":
                assert found is None, path
                continue
            handle.seek(0)
            elf = ELFFile(handle)
            interpreters = [
                s.get_interp_name() for s in elf.iter_segments() if isinstance(s, InterpSegment)
            ]
            tags = [
                tag
                for section in elf.iter_sections()
                if isinstance(section, DynamicSection)
                for tag in section.iter_tags()
            ]
        needed = tuple(t.needed for t in tags if t.entry.d_tag == "DT_NEEDED")
        search = [getattr(t, t.entry.d_tag[3:].lower()) for t in tags if t.entry.d_tag in path_tags]
        assert found is not None, path
        assert found.interpreter == (interpreters[-1] if interpreters else None), path
        assert found.needed == needed, path
        assert found.search == tuple(part for entry in search for part in entry.split(":"))
        compared += 1
    assert compared > 20


def test_an_elf_file_written_again_is_read_again(tmp_path: Path) -> None:
    """read_elf keeps what it read of a file (the same system libraries are in every view):
    a file written since, even at the same path (the same inode), is read afresh."""
    program = tmp_path / "program"
    real = Path(os.path.realpath("/bin/sh")).read_bytes()
    program.write_bytes(real)
    first = view.read_elf(str(program))
    assert first is not None and view.read_elf(str(program)) == first
    with program.open("r+b") as handle:  # the same inode, not an ELF file now
        handle.write(b"\0\0\0\0")
        handle.truncate(len(real) - 1)  # a size of its own: coarse clocks may keep the times
    assert view.read_elf(str(program)) is None
    program.write_bytes(real)
    assert view.read_elf(str(program)) == first


def test_a_launcher_script_brings_the_programs_it_names(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot").write_text('#!/bin/sh\nexec cat "$(dirname "$0")/x"\n')
    seen = view.build([str(folder / "bot")], folder)
    assert os.path.realpath(shutil.which("cat") or "") in seen.files
    assert not any(bwrap.under(f, ("/usr/share/doc",)) for f in seen.files)


# ----- the attack: first reads of a shared page, across a deal's seat rotations -------------
PAGE_CACHE = str(TEST_BOTS / "page_cache")
ONE_DEAL = TournamentConfig(
    game="take-that", bots=(PAGE_CACHE, "first-legal"), rounds=1, seed=5, variant={"rounds": 1}
)


def evict_big_libraries() -> None:
    """Drop from the host's page cache the large libraries the bot may take as its codebook
    (what is locked stays: that is the point)."""
    folder = "/usr/lib/x86_64-linux-gnu"
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if not os.path.islink(path) and os.path.isfile(path) and os.path.getsize(path) > 27 << 20:
            fd = os.open(path, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)


def play_one_deal(
    tmp_path: Path, workers: int, config: TournamentConfig = ONE_DEAL
) -> list[MatchResult]:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = runner.create(store, tmp_path, config)  # its submission check plays it too
    evict_big_libraries()
    results: list[MatchResult] = []
    runner.run(store, tid, on_progress=lambda p: results.append(p.result), workers=workers)
    store.close()
    assert len(results) == 2 and all(r is not None for r in results)
    return results


def learned(
    results: list[MatchResult], bot: str = "page_cache", channel: str = "firsttouch"
) -> list[tuple[set[int], set[int]]]:
    """(cards `bot` learned, its opponent's first hand) for each receiving seat."""
    found = []
    for result in results:
        assert result.replay is not None, result.status
        hands = result.replay["events"][0]["outcome"]["hands"]
        for index, seat in enumerate(result.seats):
            if seat.bot != bot:
                continue
            for line in seat.stderr.splitlines():
                if f" through {channel}" in line:
                    cards = line.split("learned ", 1)[1].split(" through")[0]
                    found.append(({int(c) for c in cards.split(",")}, set(hands[1 - index])))
    return found


def said(results: list[MatchResult], bot: str = "page_cache") -> str:
    return "".join(s.stderr for r in results for s in r.seats if s.bot == bot)


@pytest.fixture
def whole_system(monkeypatch: pytest.MonkeyPatch) -> None:
    """Match sandboxes as before the view: all of the system, nothing made resident."""
    real = spawn._system
    monkeypatch.setattr(
        spawn,
        "_system",
        lambda argv, folder, source, binds, runtime, writable: (
            real(argv, folder, source, binds, runtime, True) + binds
        ),
    )


@pytest.mark.usefixtures("counters_alone")
@pytest.mark.parametrize("workers", [1, 2])
def test_a_later_process_learns_nothing_through_first_reads(tmp_path: Path, workers: int) -> None:
    results = play_one_deal(tmp_path, workers)
    text = said(results)
    assert "page_cache: codebook " in text, text
    assert learned(results) == [], text


@pytest.mark.usefixtures("counters_alone")
def test_with_the_whole_system_shown_the_second_rotation_learns_the_first_ones_hand(
    tmp_path: Path, whole_system: None
) -> None:
    """The attack is real: without the view, first reads carry the first rotation's hand."""
    results = play_one_deal(tmp_path, 1)
    found = learned(results)
    assert found, said(results)
    assert all(cards == hand for cards, hand in found), found


# ----- the attack: negative dentries in a folder of the view, across rotations ---------------
def dentry_deal(tmp_path: Path) -> TournamentConfig:
    """One deal of tests/bots/dentry_memory (a copy with a fresh nonce, so that names an
    earlier run looked up in a host folder are not taken for this run's)."""
    folder = tmp_path / "dentry_memory"
    shutil.copytree(TEST_BOTS / "dentry_memory", folder)
    (folder / "nonce.txt").write_text(os.urandom(8).hex())
    return dataclasses.replace(ONE_DEAL, bots=(str(folder), "first-legal"))


@pytest.fixture
def unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """No submission check: it would play the bot first, and its processes look up the same
    names for another deal (and a receiver among them every card's): the tournament's
    two matches alone play it."""
    monkeypatch.setattr(check, "submission_check", lambda *_args, **_kwargs: None)


@pytest.mark.usefixtures("counters_alone", "unchecked")
@pytest.mark.parametrize("workers", [1, 2])
def test_a_later_process_learns_nothing_through_negative_dentries(
    tmp_path: Path, workers: int
) -> None:
    # Every folder of the view is a copy on a tmpfs, which keeps no negative dentries: the
    # second rotation's process cannot tell that the first one looked its names up.
    results = play_one_deal(tmp_path, workers, dentry_deal(tmp_path))
    text = said(results, "dentry_memory")
    assert "dentry_memory: folder /usr/lib/python3" in text, text
    assert learned(results, "dentry_memory", "dentry") == [], text
    assert "flag known" not in text, text


@pytest.mark.usefixtures("counters_alone", "unchecked")
def test_in_a_folder_bound_from_the_host_the_second_rotation_learns_the_first_ones_hand(
    tmp_path: Path, whole_system: None
) -> None:
    """The attack is real: where the view's folders are the host's (ext4 or overlay), the
    first rotation's lookups carry its hand to the second rotation's process.

    A timing channel on a machine loaded by others may garble a deal (the suite saw one
    at load 12): the control holds when one of three deals carries the exact hand, which
    a channel without information does not do by chance."""
    tries = []
    for attempt in range(3):
        where = tmp_path / str(attempt)
        where.mkdir()
        results = play_one_deal(where, 1, dentry_deal(where))
        found = learned(results, "dentry_memory", "dentry")
        tries.append(found)
        if found and all(cards == hand for cards, hand in found):
            return
    pytest.fail(f"no deal of three carried the hand: {tries}")
