#!/usr/bin/env python3
"""Records KataGo's `kata-raw-nn` answers for the golden positions.

Usage: record.py KATAGO_BINARY CONFIG NET OUTFILE [--limit N] [--positions FILE]
                 [--only NAME,NAME...] [--profile NAME ...]

Runs an existing KataGo binary (`katago gtp -config CONFIG -model NET`); it builds
nothing. For every position in positions.txt (next to this script unless
--positions is given) it sends boardsize, clear_board, komi, kata-set-rules with
an explicit rule string, the moves, then `kata-raw-nn S` for each listed
symmetry, and writes OUTFILE as blocks. A rectangular position (`size W:H`, W columns and H
rows) is set up with KataGo's `rectangular_boardsize W H` instead of `boardsize`.

    position <name>
    symmetry <s>
    <the kata-raw-nn response lines, verbatim, without the leading "= ">
    end

--limit N records only the first N positions (for the slow nets). --only NAMES (comma
separated, repeatable) records only the positions named, in the order of positions.txt.

--profile NAME (repeatable; human-SL nets, which KataGo refuses to evaluate without one) records
every symmetry of every position once per profile: before the answers of each profile it sends
`kata-set-param humanSLProfile NAME`, and each block gets a `profile NAME` line after its
`position` line. KataGo is started with the first profile (`-override-config humanSLProfile=`).

The file starts with `#` lines naming the KataGo version and the net, and the SHA-256 and size of
the net's uncompressed model (`# model sha256 HEX N bytes`), by which a test that writes the same
net itself can tell that it is the net KataGo evaluated.
Python 3 standard library only.
"""

import argparse
import gzip
import hashlib
import os
import subprocess
import sys

KO = {"simple": "SIMPLE", "positional": "POSITIONAL", "situational": "SITUATIONAL"}
SCORING = {"area": "AREA", "territory": "TERRITORY"}
# KataGo's taxes for the two scorings as in its presets (chinese: NONE, japanese: SEKI).
TAX = {"area": "NONE", "territory": "SEKI"}


class Position:
    def __init__(self, name):
        self.name = name
        self.size = None
        self.komi = None
        self.rules = None
        self.kgs = None
        self.moves = []
        self.symmetries = None

    def katago_rules(self):
        """KataGo's explicit rule string: ko, scoring, tax, suicide, no button,
        white handicap bonus 0 (so leading Black moves never change komi)."""
        r = self.rules
        return "ko%sscore%stax%ssui%sbutton0whb0" % (
            KO[r["ko"]], SCORING[r["scoring"]], TAX[r["scoring"]], r["suicide"])

    def symmetry_list(self):
        if self.symmetries == ["all"]:
            return list(range(8))
        return [int(s) for s in self.symmetries]


def read_positions(path):
    """Parses positions.txt; raises ValueError naming the line on any malformed input."""
    positions = []
    current = None
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, _, rest = line.partition(" ")
            rest = rest.strip()
            where = "%s:%d" % (path, lineno)
            if key == "position":
                if current is not None:
                    raise ValueError(where + ": position inside position")
                current = Position(rest)
                continue
            if current is None:
                raise ValueError(where + ": '%s' outside a position block" % key)
            if key == "size":
                # N for a square board, W:H (columns, rows) for a rectangle.
                sides = rest.split(":")
                if len(sides) == 1:
                    sides = sides * 2
                if len(sides) != 2 or not all(s.isdigit() for s in sides):
                    raise ValueError(where + ": size must be N or W:H")
                current.size = tuple(int(s) for s in sides)
                if not all(2 <= s <= 19 for s in current.size):
                    raise ValueError(where + ": size out of range")
            elif key == "komi":
                current.komi = float(rest)
            elif key == "rules":
                fields = dict(kv.split("=", 1) for kv in rest.split())
                if (set(fields) != {"ko", "suicide", "scoring"} or fields["ko"] not in KO
                        or fields["suicide"] not in ("0", "1") or fields["scoring"] not in SCORING):
                    raise ValueError(where + ": bad rules line")
                current.rules = fields
            elif key == "kgs":
                if rest not in ("chinese", "japanese", "aga", "new_zealand"):
                    raise ValueError(where + ": kgs-rules name must be chinese, japanese, aga "
                                     "or new_zealand")
                current.kgs = rest
            elif key == "moves":
                tokens = rest.split()
                if len(tokens) % 2 != 0:
                    raise ValueError(where + ": odd number of move tokens")
                current.moves = [(tokens[i].upper(), tokens[i + 1].upper())
                                 for i in range(0, len(tokens), 2)]
                if any(c not in ("B", "W") for c, _ in current.moves):
                    raise ValueError(where + ": colour must be B or W")
            elif key == "symmetries":
                current.symmetries = rest.split()
                if current.symmetries != ["all"] and not all(
                        s.isdigit() and int(s) < 8 for s in current.symmetries):
                    raise ValueError(where + ": bad symmetries")
            elif key == "end":
                if None in (current.size, current.komi, current.symmetries) or (
                        (current.rules is None) == (current.kgs is None)):
                    raise ValueError(where + ": incomplete position " + current.name
                                     + " (size, komi, symmetries, and rules or kgs)")
                positions.append(current)
                current = None
            else:
                raise ValueError(where + ": unknown key " + key)
    if current is not None:
        raise ValueError(path + ": last position has no 'end'")
    return positions


class Gtp:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)

    def send(self, command):
        """Sends one command; returns the response lines (first one without '= ')."""
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("KataGo exited during '%s'" % command)
            line = line.rstrip("\n")
            if line == "":
                if lines:
                    break
                continue
            lines.append(line)
        if lines[0].startswith("?"):
            raise RuntimeError("'%s' failed: %s" % (command, " ".join(lines)))
        if not lines[0].startswith("="):
            raise RuntimeError("'%s': unexpected answer %r" % (command, lines[0]))
        lines[0] = lines[0][1:].lstrip(" ")
        if lines[0] == "":
            lines = lines[1:]
        return lines

    def close(self):
        try:
            self.send("quit")
        except RuntimeError:
            pass
        self.proc.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("katago")
    ap.add_argument("config")
    ap.add_argument("net")
    ap.add_argument("outfile")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--only", action="append", default=[],
                    help="comma-separated position names (repeatable)")
    ap.add_argument("--profile", action="append", default=[],
                    help="a human-SL profile such as rank_5k (repeatable)")
    ap.add_argument("--positions", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "positions.txt"))
    args = ap.parse_args()

    positions = read_positions(args.positions)
    if args.limit is not None:
        positions = positions[:args.limit]
    only = [name for arg in args.only for name in arg.split(",") if name]
    if only:
        known = {p.name for p in positions}
        unknown = [name for name in only if name not in known]
        if unknown:
            raise SystemExit("--only: unknown positions " + " ".join(unknown))
        positions = [p for p in positions if p.name in only]

    with open(args.net, "rb") as f:
        model = f.read()
    if args.net.endswith(".gz"):
        model = gzip.decompress(model)

    argv = [args.katago, "gtp", "-config", args.config, "-model", args.net]
    if args.profile:
        argv += ["-override-config", "humanSLProfile=" + args.profile[0]]
    gtp = Gtp(argv)
    with open(args.outfile, "w", encoding="utf-8") as out:
        version = " ".join(gtp.send("version"))
        out.write("# kata-raw-nn goldens: KataGo %s, net %s\n"
                  % (version, os.path.basename(args.net)))
        out.write("# model sha256 %s %d bytes\n\n" % (hashlib.sha256(model).hexdigest(), len(model)))
        for pos in positions:
            width, height = pos.size
            if width == height:
                gtp.send("boardsize %d" % width)
            else:
                gtp.send("rectangular_boardsize %d %d" % (width, height))
            gtp.send("clear_board")
            if pos.kgs is not None:
                # The rules by their KGS name, then the komi again.
                gtp.send("kgs-rules " + pos.kgs)
            else:
                gtp.send("kata-set-rules " + pos.katago_rules())
            gtp.send("komi %g" % pos.komi)
            for colour, vertex in pos.moves:
                gtp.send("play %s %s" % (colour, vertex))
            for profile in args.profile or [None]:
                if profile is not None:
                    gtp.send("kata-set-param humanSLProfile " + profile)
                for sym in pos.symmetry_list():
                    lines = gtp.send("kata-raw-nn %d" % sym)
                    if not lines or lines[0] != "symmetry %d" % sym:
                        raise RuntimeError("%s: unexpected kata-raw-nn answer" % pos.name)
                    out.write("position %s\n" % pos.name)
                    if profile is not None:
                        out.write("profile %s\n" % profile)
                    out.write("\n".join(lines) + "\nend\n\n")
            print("recorded %s (%s)" % (pos.name, " ".join(pos.symmetries)), file=sys.stderr)
    gtp.close()


if __name__ == "__main__":
    main()
