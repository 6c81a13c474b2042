#!/usr/bin/env python3
"""Move quality per visit: each engine's move on the same positions, judged by
a deeper search.

Whole games need hundreds of results to tell two searches apart at equal
visits. This asks each engine (any GTP engine: tengen, KataGo, ...) for its
move in positions sampled from recorded games, then has a judge (KataGo's
JSON analysis engine, or tengen's, with many more visits) evaluate the
position after each move that differs between the engines. Two engines that
play the same move lose nothing against each other there, so only the
differing positions are judged.

    move_quality.py sample POSITIONS.json COUNT SEED SGF_DIR...
        Positions from the games' SGF files (after move 6, before the first
        pass), shuffled with SEED.
    move_quality.py moves POSITIONS.json MOVES.json ENGINE_COMMAND...
        The engine's `genmove` in each position (a fresh `clear_board` each
        time, so no search is reused). Resumes where MOVES.json stopped.
    move_quality.py judge POSITIONS.json JUDGED.json VISITS JUDGE_COMMAND -- MOVES.json...
        The judge's score lead and win rate, for the player who moved, after
        every move that differs between the MOVES files (kept in JUDGED.json
        and reused). JUDGE_COMMAND speaks KataGo's analysis protocol and
        reports values for Black (`reportAnalysisWinratesAs = BLACK`).
    move_quality.py visits POSITIONS.json VISITS.json ENGINE_COMMAND...
        The engine's root visits per move in each position, from the last
        `info` line of `kata-genmove_analyze` (tengen and KataGo both answer
        it), and the move it chose.
    move_quality.py choices VISITS.json CHOSEN.json MOST.json
        From a VISITS file, MOVES files of the move the engine chose and of
        its most visited move (the first listed on ties), to judge the one
        against the other: what the engine's choice by more than visits
        gains.
    move_quality.py spread VISITS.json...
        How each engine spreads its root visits: the chosen and the most
        visited move's share, the moves visited, the entropy (mean over the
        positions).
    move_quality.py resigned MATCH.log SGF_DIR VISITS JUDGE_COMMAND...
        For each engine of a `tengen match` log, the judge's win rate for the
        side that resigned in each resigned game's final position: whether
        resigning cost games that were not lost.
    move_quality.py report POSITIONS.json JUDGED.json BASE.json OTHER.json...
        For each OTHER against BASE: the mean gain per move in the judge's
        lead and win rate over all positions (0 where they agree), with a 95%
        interval, by game phase too.

Rules are Chinese; each position keeps its game's board size and komi (7 where the
SGF gives none).
"""
import json
import math
import os
import random
import re
import subprocess
import sys

COLUMNS = "ABCDEFGHJKLMNOPQRST"
DEFAULT_KOMI = 7


def sgf_moves(path):
    """Board size, komi and moves [(colour, vertex)] of a one-line-of-play SGF."""
    with open(path) as f:
        text = f.read()
    size = int(re.search(r"SZ\[(\d+)\]", text).group(1))
    komi = re.search(r"KM\[([-0-9.]+)\]", text)
    komi = float(komi.group(1)) if komi else DEFAULT_KOMI
    moves = []
    for colour, coord in re.findall(r";([BW])\[([a-z]*)\]", text):
        if coord == "" or (size <= 19 and coord == "tt"):
            moves.append((colour, "pass"))
        else:
            x, y = ord(coord[0]) - 97, ord(coord[1]) - 97
            moves.append((colour, f"{COLUMNS[x]}{size - y}"))
    return size, komi, moves


def sample(out, count, seed, dirs):
    pool = []
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".sgf"):
                continue
            size, komi, moves = sgf_moves(os.path.join(d, name))
            for k in range(6, len(moves)):
                if any(m == "pass" for _, m in moves[:k]):
                    break
                pool.append({"size": size, "komi": komi, "moves": moves[:k],
                             "to_move": moves[k][0], "id": f"{d}/{name}:{k}"})
    random.Random(seed).shuffle(pool)
    with open(out, "w") as f:
        json.dump(pool[:count], f)
    print(f"{min(count, len(pool))} of {len(pool)} positions")


class Gtp:
    """A GTP engine on pipes."""

    def __init__(self, command):
        self.proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            got = self.proc.stdout.readline()
            if got == "":
                raise RuntimeError(f"the engine ended on: {line}")
            if got.strip() == "":
                if lines:
                    break
                continue
            lines.append(got.strip())
        answer = " ".join(lines)
        if answer.startswith("?"):
            raise RuntimeError(f"{line}: {answer}")
        return answer[1:].strip()


def save(data, path):
    with open(path + ".tmp", "w") as f:
        json.dump(data, f)
    os.replace(path + ".tmp", path)


def moves(positions_file, out, command):
    positions = json.load(open(positions_file))
    done = json.load(open(out)) if os.path.exists(out) else {}
    engine = Gtp(command)
    for i, p in enumerate(positions):
        if p["id"] in done:
            continue
        engine.ask(f"boardsize {p['size']}")
        engine.ask("clear_board")
        engine.ask(f"komi {p.get('komi', DEFAULT_KOMI)}")
        for colour, vertex in p["moves"]:
            engine.ask(f"play {colour} {vertex}")
        done[p["id"]] = engine.ask(f"genmove {p['to_move']}").upper()
        if i % 20 == 19:
            save(done, out)
            print(f"{i + 1} moves", file=sys.stderr, flush=True)
    save(done, out)
    engine.proc.kill()


def root_visits(positions_file, out, command):
    positions = json.load(open(positions_file))
    engine = Gtp(command)
    found = {}
    for p in positions:
        engine.ask(f"boardsize {p['size']}")
        engine.ask("clear_board")
        engine.ask(f"komi {p.get('komi', DEFAULT_KOMI)}")
        for colour, vertex in p["moves"]:
            engine.ask(f"play {colour} {vertex}")
        engine.proc.stdin.write(f"kata-genmove_analyze {p['to_move']} 100000\n")
        engine.proc.stdin.flush()
        last, chosen = "", None
        while chosen is None:
            line = engine.proc.stdout.readline()
            if line == "":
                raise RuntimeError("the engine ended during kata-genmove_analyze")
            if line.startswith("?"):
                raise RuntimeError(f"kata-genmove_analyze: {line.strip()}")
            if line.startswith("info"):
                last = line
            elif line.startswith("play"):
                chosen = line.split()[1].upper()
        while engine.proc.stdout.readline().strip() != "":
            pass
        visits = [[m.upper(), int(v)] for m, v in re.findall(r"move (\S+) visits (\d+)", last)]
        found[p["id"]] = {"move": chosen, "visits": visits}
    save(found, out)
    engine.proc.kill()


def choices(visits_file, chosen_file, most_file):
    found = json.load(open(visits_file))
    chosen, most = {}, {}
    for pid, v in found.items():
        if not v["visits"]:
            continue
        chosen[pid] = v["move"]
        top = max(n for _, n in v["visits"])
        most[pid] = next(m for m, n in v["visits"] if n == top)
    save(chosen, chosen_file)
    save(most, most_file)
    differ = sum(1 for pid in chosen if chosen[pid] != most[pid])
    print(f"{len(chosen)} positions, the chosen move not the most visited in {differ}")


def spread(files):
    for name in files:
        found = json.load(open(name))
        rows = []
        for v in found.values():
            counts = [n for _, n in v["visits"] if n > 0]
            if not counts:
                continue
            total = sum(counts)
            chosen = dict(v["visits"]).get(v["move"], 0)
            entropy = -sum(n / total * math.log(n / total) for n in counts)
            rows.append((total, chosen / total, max(counts) / total, len(counts), entropy))
        n = len(rows)
        if n == 0:
            print(f"{name}: no positions")
            continue
        mean = [sum(r[i] for r in rows) / n for i in range(5)]
        print(f"{name}: {n} positions, root visits {mean[0]:.1f}, chosen move's share "
              f"{mean[1]:.3f}, most visited move's share {mean[2]:.3f}, moves visited "
              f"{mean[3]:.1f}, entropy {mean[4]:.3f}")


def judge(positions_file, judged_file, visits, command, move_files):
    positions = {p["id"]: p for p in json.load(open(positions_file))}
    judged = json.load(open(judged_file)) if os.path.exists(judged_file) else {}
    tables = [json.load(open(m)) for m in move_files]
    wanted, seen = [], set()
    for pid, p in positions.items():
        chosen = [t.get(pid) for t in tables]
        if None in chosen or len(set(chosen)) == 1:
            continue
        for mv in chosen:
            key = f"{pid}|{mv}"
            if key not in judged and mv != "RESIGN" and key not in seen:
                seen.add(key)
                wanted.append((key, p, mv))
    print(f"{len(wanted)} moves to judge", file=sys.stderr, flush=True)
    queries = [analysis_query(p["size"], p.get("komi", DEFAULT_KOMI),
                              p["moves"] + [[p["to_move"], mv]], visits)
               for _, p, mv in wanted]

    def record(i, root_info):
        key, p, _ = wanted[i]
        judged[key] = for_mover(root_info, p["to_move"])
        if len(judged) % 20 == 0:
            save(judged, judged_file)
            print(f"{len(judged)} judged", file=sys.stderr, flush=True)

    ask_judge(command, queries, record)
    save(judged, judged_file)


def analysis_query(size, komi, moves, visits):
    """A KataGo analysis query for the position after `moves`, Chinese rules."""
    return {"moves": [list(m) for m in moves], "rules": "chinese", "komi": komi,
            "boardXSize": size, "boardYSize": size, "maxVisits": visits}


def for_mover(root_info, mover):
    """The judge's lead and win rate (reported for Black) for `mover`."""
    lead, winrate = root_info["scoreLead"], root_info["winrate"]
    if mover == "W":
        lead, winrate = -lead, 1 - winrate
    return {"lead": lead, "winrate": winrate}


def ask_judge(command, queries, record):
    """Sends every query to the analysis engine `command` at once and calls
    `record(index, rootInfo)` as each final answer comes (an error answer is
    printed and skipped)."""
    proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    for i, query in enumerate(queries):
        proc.stdin.write(json.dumps(dict(query, id=str(i))) + "\n")
    proc.stdin.flush()
    answered = 0
    while answered < len(queries):
        line = proc.stdout.readline()
        if not line:
            break
        r = json.loads(line)
        if "error" in r:
            print(r, file=sys.stderr)
            answered += 1
            continue
        if "rootInfo" not in r or r.get("isDuringSearch"):
            continue
        record(int(r["id"]), r["rootInfo"])
        answered += 1
    proc.kill()


def resigned(log, sgf_dir, visits, command):
    """Whether each resignation in a `tengen match` log was sound: the judge's
    win rate for the side that resigned, in the final position of its game
    (`game-NNN.sgf` in `sgf_dir`), by engine."""
    games = []
    for line in open(log):
        m = re.match(r"game (\d+): A (black|white), B (?:black|white): .*, (A|B) resigned", line)
        if m:
            a_black = m.group(2) == "black"
            resigner = "B" if (m.group(3) == "A") == a_black else "W"
            games.append((int(m.group(1)), m.group(3), resigner))
    queries = []
    for number, _, _ in games:
        size, komi, moves = sgf_moves(os.path.join(sgf_dir, f"game-{number:03d}.sgf"))
        queries.append(analysis_query(size, komi, moves, visits))
    found = {}
    ask_judge(command, queries, found.__setitem__)
    for engine in "AB":
        rates = sorted(for_mover(found[i], games[i][2])["winrate"]
                       for i in found if games[i][1] == engine)
        if not rates:
            print(f"engine {engine}: no resignations")
            continue
        above = sum(1 for r in rates if r > 0.1)
        print(f"engine {engine}: {len(rates)} resignations; the resigner's win rate by the judge: "
              f"at most {100 * rates[-1]:.1f}%, above 10% in {above}")


def mean_interval(xs):
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return m, 1.96 * sd / math.sqrt(n)


def report(positions_file, judged_file, move_files):
    positions = json.load(open(positions_file))
    judged = json.load(open(judged_file))
    base_name, base = move_files[0], json.load(open(move_files[0]))
    phases = [(0, 20), (20, 35), (35, 50), (50, 10_000)]
    for name in move_files[1:]:
        other = json.load(open(name))
        rows, differ, missing = [], 0, 0
        for p in positions:
            pid = p["id"]
            a, b = base.get(pid), other.get(pid)
            if a is None or b is None:
                missing += 1
                continue
            if a == b:
                rows.append((len(p["moves"]), 0.0, 0.0))
                continue
            ja, jb = judged.get(f"{pid}|{a}"), judged.get(f"{pid}|{b}")
            if ja is None or jb is None:
                missing += 1
                continue
            differ += 1
            rows.append((len(p["moves"]), jb["lead"] - ja["lead"], jb["winrate"] - ja["winrate"]))
        if len(rows) < 2:
            print(f"{name}: too few positions")
            continue
        lead, lead_i = mean_interval([r[1] for r in rows])
        win, win_i = mean_interval([r[2] for r in rows])
        print(f"{name} against {base_name}: {len(rows)} positions ({differ} differ, "
              f"{missing} not judged): lead {lead:+.3f} ± {lead_i:.3f} points a move, "
              f"win rate {100 * win:+.2f} ± {100 * win_i:.2f} points a move")
        for lo, hi in phases:
            part = [r for r in rows if lo <= r[0] < hi]
            if len(part) < 2:
                continue
            lead, lead_i = mean_interval([r[1] for r in part])
            win, win_i = mean_interval([r[2] for r in part])
            print(f"    moves {lo}-{hi if hi < 10_000 else 'end'}: {len(part)} positions, "
                  f"lead {lead:+.3f} ± {lead_i:.3f}, win rate {100 * win:+.2f} ± {100 * win_i:.2f}")


def main(args):
    if len(args) >= 5 and args[0] == "sample":
        sample(args[1], int(args[2]), int(args[3]), args[4:])
    elif len(args) >= 4 and args[0] == "moves":
        moves(args[1], args[2], " ".join(args[3:]))
    elif len(args) >= 7 and args[0] == "judge" and "--" in args:
        cut = args.index("--")
        judge(args[1], args[2], int(args[3]), " ".join(args[4:cut]), args[cut + 1:])
    elif len(args) >= 4 and args[0] == "visits":
        root_visits(args[1], args[2], " ".join(args[3:]))
    elif len(args) == 4 and args[0] == "choices":
        choices(args[1], args[2], args[3])
    elif len(args) >= 2 and args[0] == "spread":
        spread(args[1:])
    elif len(args) >= 5 and args[0] == "resigned":
        resigned(args[1], args[2], int(args[3]), " ".join(args[4:]))
    elif len(args) >= 5 and args[0] == "report":
        report(args[1], args[2], args[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
