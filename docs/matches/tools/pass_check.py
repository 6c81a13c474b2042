#!/usr/bin/env python3
"""Checks every pass one player made in match games against a long reference search.

For each pass of the player, the position before it and the position after it are given to an
analysis engine speaking KataGo's JSON protocol (`katago analysis …` or `tengen analysis …`):
the pass loses `lead before - lead after` points for the player who passed (both leads from that
player's side; before: the player to move with the best move; after: the opponent to move). A pass
losing a point or more is a bad pass. The endgame figure reported is the share of bad passes.

    pass_check.py --engine "katago analysis -config analysis.cfg -model NET" --visits 1000 \\
        --player odd-black DIR/game-*.sgf

`--player odd-black`: the player checked is Black in odd-numbered games (engine A of
`tengen match`), `even-black` the other one. The engine's config must report values from Black's
side (`reportAnalysisWinratesAs = BLACK`, tengen's and KataGo's analysis default).
"""

import argparse
import json
import re
import subprocess
import sys

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def read_game(path):
    text = open(path, encoding="utf-8").read()
    size = int(re.search(r"SZ\[(\d+)\]", text).group(1))
    komi_match = re.search(r"KM\[([-0-9.]+)\]", text)
    komi = float(komi_match.group(1)) if komi_match else 7.5
    moves = []
    for colour, point in re.findall(r";([BW])\[([a-z]{0,2})\]", text):
        if point == "" or (point == "tt" and size <= 19):
            moves.append([colour, "pass"])
        else:
            x, y = ord(point[0]) - ord("a"), ord(point[1]) - ord("a")
            moves.append([colour, f"{COLUMNS[x]}{size - y}"])
    return size, komi, moves


def game_number(path):
    found = re.findall(r"(\d+)", path.rsplit("/", 1)[-1])
    return int(found[-1]) if found else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="analysis engine command line")
    ap.add_argument("--visits", type=int, default=1000)
    ap.add_argument("--player", choices=["odd-black", "even-black"], default="odd-black")
    ap.add_argument("--rules", default="chinese")
    ap.add_argument("--bad", type=float, default=1.0, help="points a bad pass loses at least")
    ap.add_argument("--before-final", action="store_true", help="skip the game's final two passes")
    ap.add_argument("--only", help="comma-separated move numbers: check only these passes (one game)")
    ap.add_argument("sgf", nargs="+")
    args = ap.parse_args()

    engine = subprocess.Popen(args.engine, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    passes, bad = 0, 0
    for path in args.sgf:
        size, komi, moves = read_game(path)
        odd = game_number(path) % 2 == 1
        colour = "B" if odd == (args.player == "odd-black") else "W"
        sign = 1.0 if colour == "B" else -1.0
        final = len(moves) - 2 if len(moves) >= 2 and moves[-1][1] == moves[-2][1] == "pass" else len(moves)
        for i, (c, point) in enumerate(moves):
            if c != colour or point != "pass" or (args.before_final and i >= final):
                continue
            if args.only and str(i + 1) not in args.only.split(","):
                continue
            query = {
                "id": f"{path}:{i}",
                "moves": moves[: i + 1],
                "rules": args.rules,
                "komi": komi,
                "boardXSize": size,
                "boardYSize": size,
                "analyzeTurns": [i, i + 1],
                "maxVisits": args.visits,
            }
            engine.stdin.write(json.dumps(query) + "\n")
            engine.stdin.flush()
            leads = {}
            while len(leads) < 2:
                line = engine.stdout.readline()
                if not line:
                    sys.exit("the analysis engine stopped")
                answer = json.loads(line)
                if "error" in answer:
                    sys.exit(f"{path} move {i + 1}: {answer['error']}")
                if answer.get("id") == query["id"] and "rootInfo" in answer:
                    leads[answer["turnNumber"]] = sign * answer["rootInfo"]["scoreLead"]
            loss = leads[i] - leads[i + 1]
            passes += 1
            is_bad = loss >= args.bad
            bad += is_bad
            where = "final two passes" if i >= final else "before the final two passes"
            print(
                f"{path} move {i + 1} ({colour}, {where}): lead before {leads[i]:+.1f}, "
                f"after the pass {leads[i + 1]:+.1f}: loses {loss:.1f}{'  BAD' if is_bad else ''}",
                flush=True,
            )
    engine.stdin.close()
    engine.wait()
    share = 100.0 * bad / passes if passes else 0.0
    print(f"{passes} passes checked at {args.visits} visits; {bad} lose {args.bad} point or more ({share:.0f}%)")


if __name__ == "__main__":
    main()
