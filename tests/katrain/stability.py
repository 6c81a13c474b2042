"""KaTrain's own engine wrapper analysing a game, as KaTrain does when a game is loaded.

Starts KaTrain's `KataGoEngine` (katrain/core/engine.py) headless on ENGINE with KaTrain's bundled
analysis_config.cfg (8 search threads, 12 analysis threads), loads the first NODES nodes of the main
line of SGF into KaTrain's `Game` (which queues every node for analysis at once), waits for all of
them and prints one JSON object: per node the root visits, the score lead and whether the first move
listed (`order` 0) has at least a tenth of the top move's visits, with their summaries.

Usage: python stability.py ENGINE MODEL SGF NODES VISITS
"""
import json
import os
import sys
import tempfile
import time

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="kivy-home-"))

from katrain.core.base_katrain import KaTrainBase  # noqa: E402
from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game import Game, KaTrainSGF  # noqa: E402
from katrain.core.game_node import GameNode  # noqa: E402
from katrain.core.utils import find_package_resource  # noqa: E402

DEADLINE_S = 900

# The engine's final answer for each node, as it came (KaTrain merges a child's root into its parent's
# move list, which would hide what the engine itself listed first).
RAW = {}
_set_analysis = GameNode.set_analysis


def _recording_set_analysis(self, analysis_json, refine_move=None, additional_moves=False,
                            region_of_interest=None, partial_result=False):
    if refine_move is None and not additional_moves and not partial_result:
        RAW[id(self)] = {"root": dict(analysis_json["rootInfo"]),
                         "moves": [dict(m) for m in analysis_json["moveInfos"]]}
    return _set_analysis(self, analysis_json, refine_move, additional_moves, region_of_interest,
                         partial_result)


GameNode.set_analysis = _recording_set_analysis


def main():
    engine_path, model, sgf, nodes, visits = sys.argv[1:6]
    nodes, visits = int(nodes), int(visits)
    katrain = KaTrainBase(force_package_config=True, debug_level=0)
    config = dict(katrain.config("engine"))
    config.update(
        katago=engine_path,
        model=model,
        config=find_package_resource("katrain/KataGo/analysis_config.cfg"),
        max_visits=visits,
        max_time=1000.0,
    )
    engine = KataGoEngine(katrain, config)
    tree = KaTrainSGF.parse_file(sgf)
    main_line = [tree]
    while main_line[-1].children and len(main_line) < nodes:
        main_line.append(main_line[-1].children[0])
    main_line[-1].children = []
    for node in main_line[:-1]:
        node.children = node.children[:1]
    start = time.time()
    Game(katrain, engine, move_tree=tree)
    while not all(n.analysis_complete and id(n) in RAW for n in main_line):
        if time.time() - start > DEADLINE_S or not engine.check_alive():
            sys.exit(f"analysis incomplete after {time.time() - start:.0f} s")
        time.sleep(0.2)
    elapsed = time.time() - start
    engine.shutdown(finish=False)

    per_node = []
    for n in main_line:
        raw = RAW[id(n)]
        moves = sorted(raw["moves"], key=lambda m: m["order"])
        top = max((m["visits"] for m in moves), default=0)
        first = moves[0]["visits"] if moves else 0
        per_node.append({"visits": raw["root"]["visits"], "lead": raw["root"]["scoreLead"],
                         "first": first, "top": top})
    leads = [p["lead"] for p in per_node]
    changes = [abs(b - a) for a, b in zip(leads, leads[1:])]
    print(
        json.dumps(
            {
                "nodes": len(per_node),
                "asked": visits,
                "seconds": round(elapsed, 1),
                "mean_visits": sum(p["visits"] for p in per_node) / len(per_node),
                "max_visits": max(p["visits"] for p in per_node),
                "mean_lead_change": sum(changes) / len(changes),
                "thin_first": sum(1 for p in per_node if p["first"] * 10 < p["top"]),
                "per_node": per_node,
            }
        )
    )


if __name__ == "__main__":
    main()
