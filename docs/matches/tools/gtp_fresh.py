#!/usr/bin/env python3
"""GTP proxy: sends clear_cache to the engine before every genmove (no search reused)."""
import subprocess, sys
eng = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def ask(line):
    eng.stdin.write(line + "\n"); eng.stdin.flush()
    out = []
    while True:
        l = eng.stdout.readline()
        if l == "":
            return "".join(out)
        if l.strip() == "" and out:
            out.append("\n"); return "".join(out)
        if l.strip() == "" and not out:
            continue
        out.append(l)
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    words = line.split()
    cmd = words[1] if words[0].isdigit() and len(words) > 1 else words[0]
    if cmd == "genmove":
        ask("clear_cache")
    sys.stdout.write(ask(line)); sys.stdout.flush()
    if cmd == "quit":
        break
eng.wait()
