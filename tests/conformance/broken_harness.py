"""A deliberately broken conformance harness: the reference model, misbehaving on purpose.

    python broken_harness.py MODE [EVERY]

It answers like the reference harness, except that every EVERY-th ``run`` (default 1: every run)
it misbehaves as MODE says. The count restarts with the process, so after the suite restarts it
the next EVERY-1 runs are answered properly again.

MODE: crash (exit 3 after writing to stderr), hang (never answer), garbage (print a line that is
not JSON), wrong-case (answer for another case), bad-handshake (speak protocol 999), slow-start
(sleep before answering the handshake).
"""

from __future__ import annotations

import json
import sys
import time

from reference.harness import Driver


def main() -> None:
    mode = sys.argv[1]
    every = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    driver = Driver()
    runs = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "stop":
            return
        response = driver.handle(message)
        if message["type"] == "start":
            if mode == "bad-handshake":
                response["protocol"] = 999
            if mode == "slow-start":
                time.sleep(60)
        else:
            runs += 1
            if runs % every == 0:
                if mode == "crash":
                    sys.stderr.write(f"broken harness: crashing on case {message['case']}\n")
                    sys.stderr.flush()
                    sys.exit(3)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "garbage":
                    sys.stdout.write("this is not a protocol message\n")
                    sys.stdout.flush()
                    continue
                if mode == "wrong-case":
                    response["case"] = "some/other-case"
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
