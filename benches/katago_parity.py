#!/usr/bin/env python3
"""Is tengen's search KataGo's, visit for visit? Root visits of both engines
on the same positions, the same net, the same settings.

Both engines evaluate every position in symmetry 0 (tengen `--nn-symmetry
0`, KataGo `nnRandomize = false`), so their nets answer alike to about 1e-6.
Given the same search, the visits then follow the same path: after V visits
each root move holds the same count in both. Where a method differs (its
formula, its scale, what it reads), the counts part within a few visits.
This is how each of KataGo's per-visit methods was checked here, alone and
together, and how the defaults were found to be KataGo's search.

    katago_parity.py run OUT.json VISITS KATAGO_COMMAND -- TENGEN_COMMAND -- SGF...
        For positions after moves 20, 45, 70, 95, 120, 150 and 180 of each
        game (those reached without a pass): KataGo's analysis engine
        (KATAGO_COMMAND: `katago analysis -model NET -config CFG`; this adds
        the overrides it needs) and tengen's `kata-search_analyze`
        (TENGEN_COMMAND: `tengen --model NET` and its flags; this adds
        `--visits`, `--threads 1` and `--nn-symmetry 0`). Both under Chinese
        rules with positional superko (as `tengen match --rules chinese`
        sets them), komi 7.5, 19x19. KataGo's search settings: the
        environment's KATAGO_SETTINGS, a JSON object of `overrideSettings`.
    katago_parity.py report OUT.json...
        Per file: positions, how often the most visited move is the same,
        and the distance between the two visit distributions (half the sum
        of the differences of each move's share: 0 the same, 1 disjoint).

Example, the defaults against KataGo's GTP defaults (see docs/search.md):

    benches/katago_parity.py run \\
        defaults.json 100 katago analysis -model NET -config analysis_example.cfg \\
        -- tengen --model NET -- game-001.sgf game-002.sgf
    benches/katago_parity.py report defaults.json
"""
import json
import os
import re
import subprocess
import sys

COLUMNS = "ABCDEFGHJKLMNOPQRST"
MOVE_NUMBERS = (20, 45, 70, 95, 120, 150, 180)
# KataGo's analysis engine defaults that differ from its GTP engine's, set
# back: no pre-root history ignored, no noise at the root, no symmetry
# pruning; one thread, symmetry 0.
KATAGO_CONFIG_OVERRIDES = ("numAnalysisThreads=1,numSearchThreadsPerAnalysisThread=1,"
                           "nnRandomize=false,reportAnalysisWinratesAs=SIDETOMOVE,"
                           "ignorePreRootHistory=false,wideRootNoise=0.0,rootSymmetryPruning=false")
# KataGo's `chinese` is simple ko; `tengen match --rules chinese` sends
# `kgs-rules chinese`, which both engines read as positional superko.
RULES = dict(ko="POSITIONAL", scoring="AREA", suicide=False, tax="NONE", hasButton=False,
             whiteHandicapBonus="N", friendlyPassOk=True)


def gtp_point(sgf_point):
    if sgf_point == "":
        return "pass"
    return COLUMNS[ord(sgf_point[0]) - 97] + str(19 - (ord(sgf_point[1]) - 97))


def positions(sgf_files):
    for path in sgf_files:
        with open(path) as f:
            text = f.read()
        moves = [(c, gtp_point(m)) for c, m in re.findall(r";([BW])\[([a-s]*)\]", text)]
        for n in MOVE_NUMBERS:
            if n < len(moves) and all(m != "pass" for _, m in moves[:n]):
                yield path, n, moves[:n]


class Gtp:
    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = []
        while True:
            got = self.proc.stdout.readline()
            if got == "":
                raise SystemExit(f"tengen ended at: {line}")
            if got.strip() == "" and out:
                return "".join(out)
            if got.strip():
                out.append(got)


def root_visits_of_info(text):
    """Root moves' visits from the last `info` line (symmetric copies left out)."""
    lines = [line for line in text.splitlines() if "info move" in line]
    visits = {}
    for block in (lines[-1] if lines else "").split("info move ")[1:]:
        words = block.split()
        fields = dict(zip(words[1::2], words[2::2]))
        if "isSymmetryOf" not in block:
            visits[words[0]] = int(fields["visits"])
    return visits


def run(args):
    out, visits = args[0], int(args[1])
    rest = args[2:]
    first = rest.index("--")
    second = rest.index("--", first + 1)
    katago_cmd, tengen_cmd, sgfs = rest[:first], rest[first + 1:second], rest[second + 1:]
    settings = json.loads(os.environ.get("KATAGO_SETTINGS", "{}"))
    katago = subprocess.Popen(katago_cmd + ["-override-config", KATAGO_CONFIG_OVERRIDES],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    tengen = Gtp(tengen_cmd + ["--visits", str(visits), "--threads", "1", "--nn-symmetry", "0",
                               "--quiet"])
    for line in ("boardsize 19", "komi 7.5", "kgs-rules chinese"):
        tengen.ask(line)
    results = []
    for i, (path, n, moves) in enumerate(positions(sgfs)):
        query = dict(id=str(i), moves=[[c, m] for c, m in moves], rules=RULES, komi=7.5,
                     boardXSize=19, boardYSize=19, maxVisits=visits, overrideSettings=settings)
        katago.stdin.write(json.dumps(query) + "\n")
        katago.stdin.flush()
        answer = json.loads(katago.stdout.readline())
        if "error" in answer:
            raise SystemExit(f"KataGo: {answer['error']}")
        k = {m["move"]: m["visits"] for m in answer["moveInfos"]}
        tengen.ask("clear_cache")
        tengen.ask("clear_board")
        for color, move in moves:
            tengen.ask(f"play {color} {move}")
        t = root_visits_of_info(tengen.ask(f"kata-search_analyze {'b' if n % 2 == 0 else 'w'}"))
        results.append(dict(sgf=path, move_number=n, katago=k, tengen=t))
        print(f"{os.path.basename(path)} @{n}: distance {distance(k, t):.3f}", flush=True)
    with open(out, "w") as f:
        json.dump(results, f)


def distance(a, b):
    total_a, total_b = sum(a.values()) or 1, sum(b.values()) or 1
    return 0.5 * sum(abs(a.get(m, 0) / total_a - b.get(m, 0) / total_b) for m in set(a) | set(b))


def report(files):
    for path in files:
        with open(path) as f:
            results = json.load(f)
        if not results:
            print(f"{path}: no positions")
            continue
        d = sorted(distance(r["katago"], r["tengen"]) for r in results)
        same = sum(max(r["katago"], key=r["katago"].get) == max(r["tengen"], key=r["tengen"].get)
                   for r in results if r["katago"] and r["tengen"])
        print(f"{path}: {len(d)} positions, same most visited move {same}, distance mean "
              f"{sum(d) / len(d):.3f}, median {d[len(d) // 2]:.3f}, largest {d[-1]:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("run", "report"):
        sys.exit(__doc__)
    if sys.argv[1] == "run":
        run(sys.argv[2:])
    else:
        report(sys.argv[2:])
