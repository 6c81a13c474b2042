//! `tengen check` on the sgf/ fixtures: T1–T12 and the whole games under every
//! ko rule, against the first illegal moves listed in
//! shared/docs/rules-sgf-deps.md §3.4 and against an independent oracle (the
//! `sgf-parse` crate for reading, a naive flood-fill board with whole-grid
//! position comparison for the rules) that must report exactly the same
//! violations, move numbers and repeated moves.

use sgf_parse::go::{Move as SpMove, Prop};
use std::path::{Path, PathBuf};
use tengen::config::{KoArg, RuleArgs, SuicideArg};
use tengen::sgf::check::{check_bytes, FileReport};
use tengen::{IllegalMove, KoRule};

fn fixture_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sgf").join(sub)
}

fn sgf_files(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture_dir(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .collect();
    v.sort();
    v
}

const KOS: [(KoArg, KoRule); 4] = [
    (KoArg::Simple, KoRule::Simple),
    (KoArg::Positional, KoRule::Positional),
    (KoArg::Situational, KoRule::Situational),
    (KoArg::NaturalSituational, KoRule::NaturalSituational),
];

fn args(ko: KoArg, suicide: Option<SuicideArg>) -> RuleArgs {
    RuleArgs {
        rules: None,
        ko: Some(ko),
        suicide,
    }
}

fn check_file(path: &Path, args: &RuleArgs) -> FileReport {
    check_bytes(&std::fs::read(path).unwrap(), args)
}

/// A violation as (game, move, colour, SGF point, reason code, repeats).
type Flat = (usize, u32, char, String, &'static str, Option<u32>);

fn flatten(r: &FileReport) -> Vec<Flat> {
    r.violations
        .iter()
        .map(|v| {
            (
                v.game,
                v.move_number,
                v.color.letter(),
                v.sgf_point(),
                v.reason.code(),
                v.reason.repeats_move(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------
// §3.4: the first illegal move of each position under each ko rule.

/// Per ko rule (simple, positional, situational, natural situational): the
/// first illegal move number and its reason, or None.
type FirstIllegal = [Option<(u32, &'static str)>; 4];

#[test]
fn t1_to_t12_first_violation_under_every_ko_rule() {
    // [simple, positional, situational, natural situational]: first illegal
    // move number and its reason, or None when the whole line is legal.
    let psk = "positional-superko";
    let ssk = "situational-superko";
    let nssk = "natural-situational-superko";
    let expected: [(&str, FirstIllegal); 12] = [
        ("t01-simple-ko.sgf", [None, None, None, None]),
        (
            "t02-sending-two-returning-one.sgf",
            [None, None, None, None],
        ),
        (
            "t03-triple-ko.sgf",
            [None, Some((6, psk)), Some((6, ssk)), Some((7, nssk))],
        ),
        (
            "t04-eternal-life.sgf",
            [None, Some((4, psk)), Some((4, ssk)), Some((5, nssk))],
        ),
        ("t05-s2r1-pass-ssk.sgf", [None, Some((3, psk)), None, None]),
        ("t06-superko-suicide.sgf", [None, None, None, None]),
        ("t07-psk-only.sgf", [None, Some((3, psk)), None, None]),
        (
            "t08-triple-ko-setup.sgf",
            [None, Some((6, psk)), Some((6, ssk)), None],
        ),
        (
            "t09-long-life.sgf",
            [None, Some((4, psk)), Some((4, ssk)), Some((5, nssk))],
        ),
        (
            "t10-ko-after-two-passes.sgf",
            [None, Some((4, psk)), Some((4, ssk)), None],
        ),
        ("t11-psk-from-empty.sgf", [None, None, None, None]),
        (
            "t12-ssk-vs-nssk.sgf",
            [None, Some((8, psk)), Some((8, ssk)), None],
        ),
    ];
    for (file, per_rule) in expected {
        for ((ko_arg, ko), want) in KOS.into_iter().zip(per_rule) {
            let r = check_file(&fixture_dir("positions").join(file), &args(ko_arg, None));
            assert!(r.errors.is_empty(), "{file}: {:?}", r.errors);
            assert_eq!(r.games, 1);
            let first = r
                .violations
                .first()
                .map(|v| (v.move_number, v.reason.code()));
            assert_eq!(first, want, "{file} under {ko:?}: {:?}", r.violations);
        }
    }
}

#[test]
fn superko_names_the_repeated_move() {
    // T12: under PSK the final W A3 repeats the board after move 3 (B H12); under
    // SSK the situation created by White's pass, move 4.
    let t12 = fixture_dir("positions").join("t12-ssk-vs-nssk.sgf");
    let psk = check_file(&t12, &args(KoArg::Positional, None));
    assert_eq!(
        psk.violations[0].reason,
        IllegalMove::PositionalSuperko { repeats: 3 }
    );
    let ssk = check_file(&t12, &args(KoArg::Situational, None));
    assert_eq!(
        ssk.violations[0].reason,
        IllegalMove::SituationalSuperko { repeats: 4 }
    );
    assert_eq!(ssk.violations[0].gtp_point(), "A3");
    // T7: W B19 recreates the setup position itself.
    let t7 = check_file(
        &fixture_dir("positions").join("t07-psk-only.sgf"),
        &args(KoArg::Positional, None),
    );
    assert_eq!(
        t7.violations[0].to_json("t07.sgf"),
        r#"{"type":"violation","file":"t07.sgf","game":1,"move":3,"color":"W","point":"B19","sgf_point":"ba","reason":"positional-superko","repeats_move":0}"#
    );
}

#[test]
fn rectangular_originals_agree_with_their_square_forms() {
    // T2 and T6 on KataGo's original 6x5 boards (SZ[6:5]: 6 columns, 5 rows)
    // give, under every ko rule and suicide setting, the same violations as
    // their 19x19 forms with the board filled outside the shape (none).
    for (rect, square) in [
        (
            "t02-rectangular-6x5.sgf",
            "t02-sending-two-returning-one.sgf",
        ),
        ("t06-rectangular-6x5.sgf", "t06-superko-suicide.sgf"),
    ] {
        for (ko_arg, ko) in KOS {
            for suicide in [None, Some(SuicideArg::Allowed), Some(SuicideArg::Forbidden)] {
                let a = args(ko_arg, suicide);
                let r = check_file(&fixture_dir("positions").join(rect), &a);
                let s = check_file(&fixture_dir("positions").join(square), &a);
                assert!(r.errors.is_empty(), "{rect}: {:?}", r.errors);
                assert_eq!((r.games, r.moves), (s.games, s.moves), "{rect}");
                let codes = |f: &FileReport| {
                    f.violations
                        .iter()
                        .map(|v| (v.move_number, v.reason.code()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(codes(&r), codes(&s), "{rect} under {ko:?}, {suicide:?}");
            }
        }
    }
}

#[test]
fn a_19x13_game_has_its_ko_in_the_far_corner() {
    // SZ[19:13]: 19 columns, 13 rows. The ko fight is in the bottom-right
    // corner, s (column 19) and m (row 13 from the top, GTP row 1): it is a
    // ko only if that corner is the board's corner.
    for (ko_arg, ko) in KOS {
        let r = check_file(
            &fixture_dir("games").join("rect-19x13-ko-fight.sgf"),
            &args(ko_arg, None),
        );
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!((r.games, r.moves), (1, 10));
        let got: Vec<(u32, &str, String, String)> = r
            .violations
            .iter()
            .map(|v| (v.move_number, v.reason.code(), v.gtp_point(), v.sgf_point()))
            .collect();
        let ko_at = |n: u32, gtp: &str, sgf: &str| (n, "ko", gtp.to_string(), sgf.to_string());
        assert_eq!(
            got,
            [
                ko_at(6, "S1", "rm"),
                ko_at(7, "T1", "sm"),
                ko_at(8, "S1", "rm")
            ],
            "{ko:?}"
        );
    }
    // The random 19x13 self-play game is legal from start to end.
    let r = check_file(
        &fixture_dir("games").join("selfplay-random-19x13.sgf"),
        &RuleArgs::default(),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(r.moves > 200, "{} moves", r.moves);
    assert!(r.violations.is_empty(), "{:?}", r.violations);
}

#[test]
fn whole_games_have_their_known_violations() {
    let dir = fixture_dir("games");
    // Simple ko: both immediate recaptures are ko under every rule.
    for (ko_arg, ko) in KOS {
        let r = check_file(&dir.join("simple-ko-fight.sgf"), &args(ko_arg, None));
        let moves: Vec<(u32, &str)> = r
            .violations
            .iter()
            .map(|v| (v.move_number, v.reason.code()))
            .collect();
        assert_eq!(moves, [(6, "ko"), (7, "ko"), (8, "ko")], "{ko:?}");
    }
    // The cycles are legal under simple ko (Japanese: no result), illegal under
    // superko. First violation (move, repeated move) under positional,
    // situational and natural situational superko; the shapes were built by
    // play, so the building moves count (sgf/README.md).
    let first_superko: [(&str, [(u32, u32); 3]); 3] = [
        (
            "sending-two-returning-one.sgf",
            [(27, 23), (27, 23), (27, 23)],
        ),
        ("triple-ko.sgf", [(46, 40), (46, 40), (46, 40)]),
        // After move 26 (W) Black was to move; move 27 is Black's pass, so the
        // same board with White to move first stood after 27; White created it
        // by a board play at 28.
        ("eternal-life.sgf", [(31, 26), (31, 27), (32, 28)]),
    ];
    for (file, firsts) in first_superko {
        let simple = check_file(&dir.join(file), &args(KoArg::Simple, None));
        assert_eq!(simple.violations, [], "{file}");
        let superko = [
            KoArg::Positional,
            KoArg::Situational,
            KoArg::NaturalSituational,
        ];
        for (ko_arg, want) in superko.into_iter().zip(firsts) {
            let r = check_file(&dir.join(file), &args(ko_arg, None));
            let v = r.violations.first().expect("a violation");
            assert_eq!(
                (v.move_number, v.reason.repeats_move()),
                (want.0, Some(want.1)),
                "{file} {ko_arg:?}"
            );
        }
    }
    // Triple ko: the twelfth cycle move repeats the position the cycle started
    // from (after move 40, the last building move) under every superko rule.
    let r = check_file(&dir.join("triple-ko.sgf"), &args(KoArg::Positional, None));
    let last = r.violations.last().unwrap();
    assert_eq!(
        (last.move_number, last.reason),
        (52, IllegalMove::PositionalSuperko { repeats: 40 })
    );
}

// ---------------------------------------------------------------------------
// The oracle: sgf-parse for reading, a naive board for the rules.

type Grid = Vec<u8>; // 0 empty, 1 black, 2 white

/// A board `w` columns wide and `h` rows high, row by row.
struct Naive {
    w: usize,
    h: usize,
    grid: Grid,
}

impl Naive {
    fn neighbors(&self, i: usize) -> impl Iterator<Item = usize> {
        let (w, h) = (self.w, self.h);
        let (x, y) = (i % w, i / w);
        let mut v = Vec::new();
        if x > 0 {
            v.push(i - 1);
        }
        if x + 1 < w {
            v.push(i + 1);
        }
        if y > 0 {
            v.push(i - w);
        }
        if y + 1 < h {
            v.push(i + w);
        }
        v.into_iter()
    }

    /// The chain through `i` and whether it has a liberty.
    fn chain(&self, g: &Grid, i: usize) -> (Vec<usize>, bool) {
        let c = g[i];
        let mut seen = vec![false; g.len()];
        let mut stack = vec![i];
        seen[i] = true;
        let mut stones = Vec::new();
        let mut free = false;
        while let Some(s) = stack.pop() {
            stones.push(s);
            for m in self.neighbors(s) {
                if g[m] == 0 {
                    free = true;
                } else if g[m] == c && !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            }
        }
        (stones, free)
    }

    /// Plays `c` at `i`: (resulting grid, stones captured, whether own stones were removed,
    /// whether the played stone had an own neighbour).
    fn play(&self, i: usize, c: u8) -> (Grid, usize, bool, bool) {
        let mut g = self.grid.clone();
        g[i] = c;
        let mut captured = 0;
        for m in self.neighbors(i) {
            if g[m] == 3 - c {
                let (stones, free) = self.chain(&g, m);
                if !free {
                    captured += stones.len();
                    for s in stones {
                        g[s] = 0;
                    }
                }
            }
        }
        let mut suicide = false;
        if captured == 0 {
            let (stones, free) = self.chain(&g, i);
            if !free {
                suicide = true;
                for s in stones {
                    g[s] = 0;
                }
            }
        }
        let friend = self.neighbors(i).any(|m| self.grid[m] == c);
        (g, captured, suicide, friend)
    }
}

struct Entry {
    grid: Grid,
    to_move: u8,
    created_by: Option<u8>,
    number: u32,
}

fn oracle(text: &str, ko: KoRule, suicide_allowed: bool) -> Vec<Flat> {
    let games = sgf_parse::go::parse(text).expect("sgf-parse reads every fixture");
    let mut out = Vec::new();
    for (gi, root) in games.iter().enumerate() {
        // sgf-parse reads SZ[19] as (19, 19) and SZ[W:H] as (W, H).
        let (w, h) = match root.get_property("SZ") {
            Some(Prop::SZ((a, b))) => (*a as usize, *b as usize),
            _ => (19, 19),
        };
        let mut b = Naive {
            w,
            h,
            grid: vec![0; w * h],
        };
        let mut to_move = 1u8;
        let mut history = vec![Entry {
            grid: b.grid.clone(),
            to_move,
            created_by: None,
            number: 0,
        }];
        // (grid before the opponent's last move, the opponent) when that move captured one stone.
        let mut ko_state: Option<(Grid, u8)> = None;
        let mut number = 0u32;
        for node in root.main_variation() {
            let mut setup = false;
            let mut pl = None;
            for p in node.properties() {
                match p {
                    Prop::AB(s) | Prop::AW(s) | Prop::AE(s) => {
                        setup = true;
                        let c = match p {
                            Prop::AB(_) => 1,
                            Prop::AW(_) => 2,
                            _ => 0,
                        };
                        for pt in s {
                            b.grid[pt.y as usize * w + pt.x as usize] = c;
                        }
                    }
                    Prop::PL(c) => {
                        pl = Some(if *c == sgf_parse::Color::Black { 1 } else { 2 });
                    }
                    _ => {}
                }
            }
            if let Some(c) = pl {
                to_move = c;
            }
            if setup || (pl.is_some() && number == 0) {
                history = vec![Entry {
                    grid: b.grid.clone(),
                    to_move,
                    created_by: None,
                    number,
                }];
                ko_state = None;
            }
            let mv = match node.get_move() {
                Some(Prop::B(m)) => Some((1u8, *m)),
                Some(Prop::W(m)) => Some((2u8, *m)),
                _ => None,
            };
            let Some((c, m)) = mv else { continue };
            number += 1;
            let point = match m {
                SpMove::Move(p) if !(w.max(h) <= 19 && p.x == 19 && p.y == 19) => Some(p),
                _ => None,
            };
            let Some(p) = point else {
                history.push(Entry {
                    grid: b.grid.clone(),
                    to_move: 3 - c,
                    created_by: None,
                    number,
                });
                ko_state = None;
                to_move = 3 - c;
                continue;
            };
            let i = p.y as usize * w + p.x as usize;
            let letters = format!("{}{}", (b'a' + p.x) as char, (b'a' + p.y) as char);
            let color = if c == 1 { 'B' } else { 'W' };
            if b.grid[i] != 0 {
                out.push((gi + 1, number, color, letters, "occupied", None));
                continue;
            }
            let (g, captured, suicide, friend) = b.play(i, c);
            let is_ko = ko_state
                .as_ref()
                .is_some_and(|(before, opp)| *opp == 3 - c && *before == g);
            let find = |f: &dyn Fn(&Entry) -> bool| history.iter().find(|e| f(e)).map(|e| e.number);
            let verdict = if is_ko {
                Some(("ko", None))
            } else if suicide && (!friend || !suicide_allowed) {
                Some(("suicide", None))
            } else {
                let repeat = match ko {
                    KoRule::Simple => None,
                    KoRule::Positional => find(&|e| e.grid == g),
                    KoRule::Situational => find(&|e| e.grid == g && e.to_move == 3 - c),
                    KoRule::NaturalSituational => find(&|e| e.grid == g && e.created_by == Some(c)),
                };
                let code = match ko {
                    KoRule::Positional => "positional-superko",
                    KoRule::NaturalSituational => "natural-situational-superko",
                    _ => "situational-superko",
                };
                repeat.map(|r| (code, Some(r)))
            };
            if let Some((code, repeats)) = verdict {
                out.push((gi + 1, number, color, letters, code, repeats));
            }
            ko_state = (captured == 1).then(|| (b.grid.clone(), c));
            b.grid = g;
            to_move = 3 - c;
            history.push(Entry {
                grid: b.grid.clone(),
                to_move,
                created_by: Some(c),
                number,
            });
        }
    }
    out
}

#[test]
fn checker_agrees_with_the_naive_oracle_on_every_fixture() {
    let mut files = sgf_files("positions");
    files.extend(sgf_files("games"));
    let mut compared = 0;
    let mut violations_seen = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        for (ko_arg, ko) in KOS {
            for (suicide_arg, allowed) in
                [(SuicideArg::Allowed, true), (SuicideArg::Forbidden, false)]
            {
                let ours = flatten(&check_bytes(&bytes, &args(ko_arg, Some(suicide_arg))));
                let theirs = oracle(&text, ko, allowed);
                assert_eq!(
                    ours,
                    theirs,
                    "{} under {ko:?}, suicide {allowed}",
                    path.display()
                );
                compared += 1;
                violations_seen += ours.len();
            }
        }
    }
    assert!(compared >= 8 * 14, "compared {compared}");
    assert!(
        violations_seen > 100,
        "the fixtures exercise the rules: {violations_seen}"
    );
}
