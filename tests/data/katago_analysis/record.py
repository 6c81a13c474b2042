#!/usr/bin/env python3
"""Records KataGo's analysis-engine answers to queries.jsonl.

Usage: record.py KATAGO_BINARY NET OUTFILE [--config FILE] [--queries FILE]

Runs an existing KataGo binary (`katago analysis -config analysis.cfg -model NET`); it
builds nothing. Sends every line of queries.jsonl, one at a time, and waits until KataGo has
answered the line before sending the next (an answer is: an error or warning naming the
line's id, the echo of an action, or the last final response of a query: one per analysed
turn; a line without an id waits for its id-less error). Writes OUTFILE as JSON lines:

    {"query": <the line as sent, a string>, "responses": [<each stdout object>, ...]}

so that a test can send the same lines to tengen and compare answer by answer. The config
file's path, which KataGo quotes in some errors, is written as `$CONFIG`.
Python 3 standard library only.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def expected_finals(line):
    """How many final responses the query line asks for, or None when it is not a
    query that KataGo would analyse (an action or a line that does not parse)."""
    try:
        q = json.loads(line)
    except ValueError:
        return None
    if not isinstance(q, dict) or "action" in q:
        return None
    turns = q.get("analyzeTurns")
    if isinstance(turns, list):
        return len(turns)
    return 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("katago")
    ap.add_argument("net")
    ap.add_argument("out")
    ap.add_argument("--config", default=os.path.join(HERE, "analysis.cfg"))
    ap.add_argument("--queries", default=os.path.join(HERE, "queries.jsonl"))
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()

    with open(args.queries, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]

    proc = subprocess.Popen(
        [args.katago, "analysis", "-config", args.config, "-model", args.net],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, bufsize=1)
    out = queue.Queue()

    def reader():
        for raw in proc.stdout:
            out.put(raw)
        out.put(None)

    threading.Thread(target=reader, daemon=True).start()

    records = []
    for line in lines:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        finals = expected_finals(line)
        try:
            qid = json.loads(line).get("id")
        except (ValueError, AttributeError):
            qid = None
        got = []
        while True:
            raw = out.get(timeout=args.timeout)
            if raw is None:
                sys.exit("katago ended early; last query: " + line)
            v = json.loads(raw.replace(json.dumps(args.config)[1:-1], "$CONFIG"))
            got.append(v)
            if "error" in v:
                break
            if finals is None:
                if "warning" not in v:
                    break  # the action's echo
                continue
            if v.get("id") == qid and v.get("isDuringSearch") is False:
                finals -= 1
                if finals == 0:
                    break
        # A query with an error in one field may still be followed by nothing; a
        # warning comes before the analysis, which the loop above waited for.
        records.append({"query": line, "responses": got})
    proc.stdin.close()
    proc.wait(timeout=args.timeout)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    print("recorded %d lines to %s" % (len(records), args.out))


if __name__ == "__main__":
    main()
