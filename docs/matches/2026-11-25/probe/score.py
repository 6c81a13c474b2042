"""Scores the move-choice probe: for each configuration, the mean value lost by
the move it chose, measured by the reference search's utility of that move
(best utility among moves with 10 or more reference visits, minus the chosen
move's; a move with fewer reference visits counts as the worst of those).
Usage: python3 score.py deep.txt choices.txt"""
import collections
import re
import sys

deep = {}
for line in open(sys.argv[1]):
    sgf, move = line.split()[:2]
    deep[(sgf, move)] = {
        m.group(1): (int(m.group(2)), float(m.group(3)))
        for m in re.finditer(r"info move (\S+) visits (\d+) edgeVisits \d+ utility (\S+)", line)
    }

per = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[2]):
    sgf, move, config, _seed, chosen = line.split()
    infos = deep[(sgf, move)]
    explored = [u for n, u in infos.values() if n >= 10]
    n, u = infos.get(chosen, (0, min(explored)))
    per[(sgf, move)][config].append(max(explored) - (u if n >= 10 else min(explored)))

configs = sorted({c for v in per.values() for c in v})
for c in configs:
    losses = [x for v in per.values() for x in v[c]]
    print(f"{c}: {len(losses)} choices, mean value lost {sum(losses) / len(losses):.4f}")
mean = lambda xs: sum(xs) / len(xs)
for a, b in (("old4", "lcb4"), ("lcb1", "lcb4")):
    d = [mean(v[a]) - mean(v[b]) for v in per.values()]
    print(f"{b} vs {a}: better in {sum(x > 1e-9 for x in d)} positions, "
          f"worse in {sum(x < -1e-9 for x in d)}, the same in {sum(abs(x) <= 1e-9 for x in d)}")
