import json
import socket
import sys

#: tests/test_match.py listens here on the host while this bot plays.
HOST_PORT = 47613


def attempt():
    for address in (("127.0.0.1", HOST_PORT), ("1.1.1.1", 53), ("8.8.8.8", 443)):
        try:
            socket.create_connection(address, timeout=0.3).close()
            return f"connected to {address}"
        except OSError:
            pass
    try:
        return f"resolved {socket.gethostbyname('example.com')}"
    except OSError:
        return ""


found = attempt()

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = f"escaped: {found}" if found else message["legal"][0]
        answer = {"type": "decision", "id": message["id"], "decision": decision}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
