#!/usr/bin/env python3
"""How much of a per-move clock an engine uses, and how many visits it gets for it.

Plays four opening moves, sets `time_settings 0 SECONDS 1` (one stone per period, as `tengen match --time`
does) and asks ten `genmove`s in turn, each after `time_left C SECONDS 1`; prints the wall time of each
answer and the visits tengen reports on stderr.

    time_probe.py --seconds 2 -- tengen --model b10c384h6nbttflrs.bin.gz [FLAGS]
"""

import argparse
import subprocess
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("engine", nargs="+", help="the engine's command line (after --)")
    args = ap.parse_args()
    p = subprocess.Popen(args.engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ask(command):
        start = time.time()
        p.stdin.write(command + "\n")
        p.stdin.flush()
        while p.stdout.readline() not in ("\n", ""):
            pass
        return time.time() - start

    s = f"{args.seconds:g}"
    for command in ["boardsize 19", "clear_board", "komi 7.5", f"time_settings 0 {s} 1",
                    "play b Q16", "play w D4", "play b Q3", "play w D16"]:
        ask(command)
    colour, used = "b", []
    for _ in range(args.moves):
        ask(f"time_left {colour} {s} 1")
        used.append(ask(f"genmove {colour}"))
        colour = "w" if colour == "b" else "b"
    p.stdin.write("quit\n")
    p.stdin.flush()
    err = p.stderr.read()
    visits = [int(l.split(" after ")[1].split()[0]) for l in err.splitlines() if " after " in l and " visits" in l]
    print("seconds a move:", " ".join(f"{t:.2f}" for t in used), f"mean {sum(used) / len(used):.2f}")
    if visits:
        print("visits a move:", visits, f"mean {sum(visits) / len(visits):.1f}")


if __name__ == "__main__":
    main()
