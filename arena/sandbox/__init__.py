"""How a bot process is started, confined and killed.

With bubblewrap (`bwrap`) available and working, every bot runs in its own
sandbox (see `arena.sandbox.bwrap` for what it can see), as its own
unprivileged uid when arena runs as root (`arena.sandbox.uids`), in its own
cgroup (memory, CPU share, process cap) where the machine offers one
(`arena.sandbox.cgroup`), under rlimits (`Limits`), with a clean environment
and in a new session. Without
bubblewrap, arena falls back to rlimits, the cgroup and process-group clean-up,
and says so once with a warning. `arena doctor` reports what is active.

Settings (environment): ARENA_SANDBOX=auto|bwrap|none (bwrap: refuse to run a
bot without it), ARENA_SANDBOX_UIDS=first-last,
ARENA_SANDBOX_CGROUP=auto|off|a comma list of memory,cpu,pids.

The modules, from the face down (each imports only those below it; `runtimes`'
check for `arena doctor` starts a sandbox, so imports `start` when it runs):

- `start`: `launch`, the one way to start a bot; it picks the start path by
  what `detection` found.
- `detection`: `protections()` and `Protections` (what confines bots here,
  probed once per process by starting a trivial sandbox), the unconfined warning.
- `spawn`: the two start paths (under bubblewrap, plain) and what they share: the
  held spawn set up from outside, the bot's environment, bubblewrap's ready
  handshake, stored versions run only as checked (`expect_version`).
- `handle`: `Sandboxed`, a started bot: its process, CPU and memory used, its
  kill (pidfd signals and waits) and what it gives back; every live bot dies with
  its process (`kill_all`).
- `launcher`: what a process sets up once: the launcher thread, the staged
  copies, the referees' copy, the constant /proc files, the subreaper.
- Confinement, below them all: `limits` (`Limits`, `MIB`), `uids` (a uid per bot,
  `SandboxError`), `cgroup`, `seccomp`, `bwrap` (bubblewrap's options, staging),
  `pythonpath` (the referees bots import), `runtimes` (configured toolchains).
- Beside the face: `build` (a bot's build step in a writable sandbox) and
  `report` (`arena doctor`).
"""
