"""Bot protocol v1: what arena and a bot say to each other, and over what.

- `messages`: the messages, their encoding, and the checks of a bot's answers
  (`decode`, `decision_from`, `find_legal`).
- `errors`: the bot errors (`BotError` and its kinds), each carrying the seat status
  it causes.
- `transport`: the `Transport` interface a session speaks over, and `FakeTransport`,
  a scripted bot in memory for tests.
- `session`: `Session`, one bot's side of the protocol (start/ready, decide/decision,
  end, quit); the only reader of a bot's lines.

The process transport (a bot subprocess in its sandbox) is `arena.players.process`:
protocol imports neither players nor the sandbox.
"""
