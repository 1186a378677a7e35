"""Python bots find arena's own orjson on their path, exactly when their Python can load it.

Issue 15 item 3: the copy of arena's referees on every bot's PYTHONPATH
(`arena.sandbox.pythonpath`) also holds orjson's compiled module, as the top-level
module `orjson` under its full ABI-tagged name. A Python loads extension modules only
under its own suffixes, so a bot whose Python matches arena's imports it, any other
Python passes over it; it is read-only and nothing else of arena's environment goes
with it.
"""

from __future__ import annotations

import dataclasses
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest

from arena.sandbox import detection, launcher, pythonpath
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from tests.helpers import python_in_copy, sandboxed

TAG = importlib.machinery.EXTENSION_SUFFIXES[0]
NAME = "orjson" + TAG
needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
needs_tagged = pytest.mark.skipif(
    pythonpath.orjson_extension() is None, reason="arena's orjson is not a tagged extension here"
)


@pytest.fixture
def unsandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots started as with ARENA_SANDBOX=none (rlimits and a cgroup, no bubblewrap)."""
    real = detection.protections()
    plain = dataclasses.replace(real, bwrap=None, bwrap_reason="off for this test")
    monkeypatch.setattr(detection, "protections", lambda: plain)


#: What a bot's Python finds: its suffixes, orjson's file (or why not) and a round trip.
PROBE = """
import importlib.machinery, json, os, sys
found = {"executable": sys.executable, "suffixes": importlib.machinery.EXTENSION_SUFFIXES}
try:
    import orjson
    line = b'{"type":"decide","id":7,"legal":[{"action":"take"},{"action":"play","card":3}]}'
    message = orjson.loads(line)
    found["file"] = orjson.__file__
    found["answer"] = orjson.dumps({"id": message["id"], "decision": message["legal"][1]}).decode()
    try:
        with open(orjson.__file__, "r+b"):
            found["writable"] = True
    except OSError:
        found["writable"] = False
except ImportError as error:
    found["error"] = str(error)
print(json.dumps(found), file=sys.stderr)
"""


def probe(folder: Path) -> dict[str, object]:
    """Run PROBE as a bot (`python3`, resolved as a bot's command is) and return what it saw."""
    (folder / "probe.py").write_text(PROBE)
    from arena.submissions.manifest import _real_interpreter

    python = _real_interpreter("python3") or "/usr/bin/python3"
    box = launch([python, "probe.py"], folder, Limits())
    try:
        assert box.process.stderr is not None
        box.process.wait(timeout=60)
        said = box.process.stderr.read().decode()
    finally:
        box.kill()
    return dict(json.loads(said.strip().splitlines()[-1]))


# ----- the copy ------------------------------------------------------------------------
@needs_tagged
def test_the_copy_holds_arenas_orjson_as_one_read_only_tagged_module(tmp_path: Path) -> None:
    copy = pythonpath.GamesCopy(tmp_path / "python")
    assert copy.orjson == copy.root / NAME
    assert {p.name for p in copy.root.iterdir()} == {"arena", NAME}
    source = pythonpath.orjson_extension()
    assert source is not None and source.read_bytes() == copy.orjson.read_bytes()
    assert copy.orjson.stat().st_mode & 0o7777 == 0o644  # readable by bot uids, written by none
    assert not list(copy.root.rglob("*.dist-info")) and not (copy.root / "orjson").exists()


@needs_tagged
def test_arenas_python_imports_the_copy_and_it_works(tmp_path: Path) -> None:
    copy = pythonpath.GamesCopy(tmp_path / "python")
    script = "import orjson, sys; print(orjson.__file__, orjson.__version__, orjson.dumps([1]))"
    printed = python_in_copy(copy.root, script).split()
    assert printed == [str(copy.orjson), orjson.__version__, "b'[1]'"]


def other_python() -> str | None:
    """A CPython of another minor version here (pyenv's): other extension suffixes."""
    for path in sorted(Path.home().glob(".pyenv/versions/3.*/bin/python3.*")):
        version = path.name.removeprefix("python3.")
        if version.isdigit() and int(version) >= 9 and int(version) != sys.version_info[1]:
            return str(path)
    return None


@needs_tagged
@pytest.mark.skipif(other_python() is None, reason="no Python of another version here")
def test_a_python_of_another_abi_passes_over_the_copy(tmp_path: Path) -> None:
    copy = pythonpath.GamesCopy(tmp_path / "python")
    script = (
        "import importlib.machinery as m, json\n"
        "try:\n    import orjson; found = orjson.__file__\n"
        "except ImportError as error:\n    found = 'ImportError'\n"
        "print(json.dumps([m.EXTENSION_SUFFIXES[0], found]))"
    )
    done = subprocess.run(
        [other_python() or "", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(copy.root), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    suffix, found = json.loads(done.stdout)
    assert suffix != TAG
    assert not found.startswith(str(copy.root))  # its own orjson, or none at all


# ----- which extension may be offered -------------------------------------------------
def fake_orjson(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, package: bool = True
) -> Path:
    """Make `import orjson` find a stand-in whose extension file is `name`."""
    site = tmp_path / "site-packages"
    folder = site / "orjson" if package else site
    folder.mkdir(parents=True, exist_ok=True)
    extension = folder / name
    extension.write_bytes(b"\x7fELF")
    top = SimpleNamespace(__file__=str(folder / "__init__.py") if package else str(extension))
    monkeypatch.setitem(sys.modules, "orjson", top)
    if package:
        monkeypatch.setitem(sys.modules, "orjson.orjson", SimpleNamespace(__file__=str(extension)))
    else:
        monkeypatch.delitem(sys.modules, "orjson.orjson", raising=False)
    return extension


@pytest.mark.parametrize("package", [True, False])
def test_only_a_fully_tagged_self_contained_extension_is_offered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, package: bool
) -> None:
    tagged = fake_orjson(monkeypatch, tmp_path, "orjson" + TAG, package)
    assert pythonpath.orjson_extension() == tagged  # a wheel's package, or a bare module
    (tagged.parent.parent if package else tagged.parent).joinpath("orjson.libs").mkdir()
    assert pythonpath.orjson_extension() is None  # it would need libraries beside it


@pytest.mark.parametrize("name", ["orjson.abi3.so", "orjson.so", "orjson.cpython-399-x.so"])
def test_an_extension_other_pythons_might_load_is_not_offered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    fake_orjson(monkeypatch, tmp_path, name)
    assert pythonpath.orjson_extension() is None
    copy = pythonpath.GamesCopy(tmp_path / "python")
    assert copy.orjson is None and {p.name for p in copy.root.iterdir()} == {"arena"}


def test_without_orjson_or_on_a_noexec_file_system_nothing_is_offered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = os.statvfs
    monkeypatch.setattr(
        os, "statvfs", lambda path: SimpleNamespace(f_flag=real(path).f_flag | os.ST_NOEXEC)
    )
    assert pythonpath.GamesCopy(tmp_path / "noexec").orjson is None
    monkeypatch.undo()
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson fails
    assert pythonpath.orjson_extension() is None


# ----- what a bot's Python finds --------------------------------------------------------
def expect_found(found: dict[str, object], root: str, read_only: bool = True) -> None:
    suffixes = found["suffixes"]
    assert isinstance(suffixes, list)
    if TAG not in suffixes:  # a bot Python of another ABI: arena's module is not for it
        assert not str(found.get("file", "")).startswith(root), found
        return
    assert found.get("file") == f"{root}/{NAME}", found
    assert found["answer"] == '{"id":7,"decision":{"action":"play","card":3}}'
    if read_only:  # in bubblewrap: a read-only mount, and another uid than arena's
        assert found["writable"] is False


@needs_bwrap
@needs_tagged
def test_a_sandboxed_python_bot_imports_orjson_from_the_mount(tmp_path: Path) -> None:
    expect_found(probe(tmp_path), pythonpath.MOUNT)


@needs_tagged
def test_an_unsandboxed_python_bot_imports_orjson_from_the_copy(
    tmp_path: Path,
    unsandboxed: None,
) -> None:
    # Without bubblewrap a bot runs as arena's own user, read-only only by file mode.
    expect_found(probe(tmp_path), str(launcher.games_copy().root), read_only=False)
