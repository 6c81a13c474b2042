//! `loadsgf` and `printsgf`, and the superko positions T1–T12 of
//! shared/docs/rules-sgf-deps.md §3.4 (19×19 forms, true SGF setup, files in
//! `sgf/positions/`) replayed through GTP under each ko rule: `loadsgf FILE N`
//! gives the position before move N, then `play` of move N must be refused
//! exactly where the table says the sequence stops, and every listed
//! "after n: X may not play P" point must be refused.

use crate::common;
use common::Engine;

fn position(name: &str) -> String {
    format!("{}/sgf/positions/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Expected results for one ko rule: the move (1-based) that is illegal, if
/// any, and `(after n, colour, points)` lists.
struct Expect {
    ko: &'static str,
    illegal: Option<usize>,
    forbidden: &'static [(usize, &'static str, &'static [&'static str])],
}

struct Case {
    file: &'static str,
    /// `--suicide` for this position.
    suicide: &'static str,
    moves: &'static [&'static str],
    expect: &'static [Expect],
}

const CASES: &[Case] = &[
    Case {
        file: "t01-simple-ko.sgf",
        suicide: "forbidden",
        moves: &["b A1"],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[(1, "w", &["B1"])],
            },
            Expect {
                ko: "positional",
                illegal: None,
                forbidden: &[(1, "w", &["B1"])],
            },
            Expect {
                ko: "situational",
                illegal: None,
                forbidden: &[(1, "w", &["B1"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[(1, "w", &["B1"])],
            },
        ],
    },
    Case {
        file: "t02-sending-two-returning-one.sgf",
        suicide: "forbidden",
        moves: &[
            "b T18", "w pass", "b R17", "w Q19", "b O19", "w T19", "b pass", "w P19", "b pass",
            "w Q19",
        ],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[(1, "w", &["T19"]), (6, "b", &["T18"])],
            },
            Expect {
                ko: "positional",
                illegal: None,
                forbidden: &[
                    (1, "w", &["T19"]),
                    (5, "w", &["P19"]),
                    (6, "b", &["T18"]),
                    (8, "b", &["T18"]),
                    (10, "b", &["O19", "T18"]),
                ],
            },
            Expect {
                ko: "situational",
                illegal: None,
                forbidden: &[
                    (1, "w", &["T19"]),
                    (6, "b", &["T18"]),
                    (8, "b", &["T18"]),
                    (10, "b", &["O19"]),
                ],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[(1, "w", &["T19"]), (6, "b", &["T18"]), (8, "b", &["T18"])],
            },
        ],
    },
    Case {
        file: "t03-triple-ko.sgf",
        suicide: "forbidden",
        moves: &[
            "b D18", "w B17", "b F18", "w D17", "b B18", "w F17", "b D18", "w B17", "b F18",
            "w D17", "b B18", "w F17",
        ],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[
                    (1, "w", &["D17"]),
                    (2, "b", &["B18"]),
                    (3, "w", &["F17"]),
                    (4, "b", &["D18"]),
                    (5, "w", &["B17"]),
                    (6, "b", &["F18"]),
                    (7, "w", &["D17"]),
                    (8, "b", &["B18"]),
                    (9, "w", &["F17"]),
                    (10, "b", &["D18"]),
                    (11, "w", &["B17"]),
                    (12, "b", &["F18"]),
                ],
            },
            Expect {
                ko: "positional",
                illegal: Some(6),
                forbidden: &[
                    (1, "w", &["D17"]),
                    (2, "b", &["B18"]),
                    (3, "w", &["F17"]),
                    (4, "b", &["D18"]),
                    (5, "w", &["B17", "F17"]),
                ],
            },
            Expect {
                ko: "situational",
                illegal: Some(6),
                forbidden: &[
                    (1, "w", &["D17"]),
                    (2, "b", &["B18"]),
                    (3, "w", &["F17"]),
                    (4, "b", &["D18"]),
                    (5, "w", &["B17", "F17"]),
                ],
            },
            Expect {
                ko: "natural-situational",
                illegal: Some(7),
                forbidden: &[
                    (1, "w", &["D17"]),
                    (2, "b", &["B18"]),
                    (3, "w", &["F17"]),
                    (4, "b", &["D18"]),
                    (5, "w", &["B17"]),
                    (6, "b", &["D18", "F18"]),
                ],
            },
        ],
    },
    Case {
        file: "t04-eternal-life.sgf",
        suicide: "forbidden",
        moves: &[
            "b C1", "w E1", "b D1", "w F1", "b C1", "w E1", "b D1", "w F1",
        ],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "positional",
                illegal: Some(4),
                forbidden: &[(3, "w", &["F1"])],
            },
            Expect {
                ko: "situational",
                illegal: Some(4),
                forbidden: &[(3, "w", &["F1"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: Some(5),
                forbidden: &[(4, "b", &["C1"])],
            },
        ],
    },
    Case {
        file: "t05-s2r1-pass-ssk.sgf",
        suicide: "forbidden",
        moves: &["b T3", "w T1", "b T2", "w pass"],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "positional",
                illegal: Some(3),
                forbidden: &[(2, "b", &["T2"])],
            },
            Expect {
                ko: "situational",
                illegal: None,
                forbidden: &[(4, "b", &["T3"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[(4, "b", &["T3"])],
            },
        ],
    },
    Case {
        file: "t06-superko-suicide.sgf",
        suicide: "allowed",
        moves: &[
            "b E19", "w pass", "b E19", "w A19", "b F19", "w B19", "b pass", "w A19", "b E19",
        ],
        expect: &[
            Expect {
                ko: "positional",
                illegal: None,
                forbidden: &[(2, "b", &["F19"]), (7, "w", &["A18"]), (9, "w", &["A18"])],
            },
            Expect {
                ko: "situational",
                illegal: None,
                forbidden: &[(7, "w", &["A18"]), (9, "w", &["A18"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[(9, "w", &["A18"])],
            },
        ],
    },
    Case {
        file: "t07-psk-only.sgf",
        suicide: "forbidden",
        moves: &["w C19", "b A19", "w B19"],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "positional",
                illegal: Some(3),
                forbidden: &[(2, "w", &["B19"])],
            },
            Expect {
                ko: "situational",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[],
            },
        ],
    },
    Case {
        file: "t08-triple-ko-setup.sgf",
        suicide: "forbidden",
        moves: &["b D19", "w E15", "b D17", "w E19", "b D15", "w E17"],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[
                    (1, "w", &["E19"]),
                    (2, "b", &["D15"]),
                    (3, "w", &["E17"]),
                    (4, "b", &["D19"]),
                    (5, "w", &["E15"]),
                    (6, "b", &["D17"]),
                ],
            },
            Expect {
                ko: "positional",
                illegal: Some(6),
                forbidden: &[
                    (1, "w", &["E19"]),
                    (2, "b", &["D15"]),
                    (3, "w", &["E17"]),
                    (4, "b", &["D19"]),
                    (5, "w", &["E17", "E15"]),
                ],
            },
            Expect {
                ko: "situational",
                illegal: Some(6),
                forbidden: &[
                    (1, "w", &["E19"]),
                    (2, "b", &["D15"]),
                    (3, "w", &["E17"]),
                    (4, "b", &["D19"]),
                    (5, "w", &["E17", "E15"]),
                ],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[
                    (1, "w", &["E19"]),
                    (2, "b", &["D15"]),
                    (3, "w", &["E17"]),
                    (4, "b", &["D19"]),
                    (5, "w", &["E15"]),
                    (6, "b", &["D19", "D17"]),
                ],
            },
        ],
    },
    Case {
        file: "t09-long-life.sgf",
        suicide: "forbidden",
        moves: &["b A17", "w A15", "b A16", "w A14", "b A17"],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "positional",
                illegal: Some(4),
                forbidden: &[(3, "w", &["A14"])],
            },
            Expect {
                ko: "situational",
                illegal: Some(4),
                forbidden: &[(3, "w", &["A14"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: Some(5),
                forbidden: &[(4, "b", &["A17"])],
            },
        ],
    },
    Case {
        file: "t10-ko-after-two-passes.sgf",
        suicide: "forbidden",
        moves: &["w C16", "b pass", "w pass", "b B16"],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[(1, "b", &["B16"]), (4, "w", &["C16"])],
            },
            Expect {
                ko: "positional",
                illegal: Some(4),
                forbidden: &[(1, "b", &["B16"]), (3, "b", &["B16"])],
            },
            Expect {
                ko: "situational",
                illegal: Some(4),
                forbidden: &[(1, "b", &["B16"]), (3, "b", &["B16"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[(1, "b", &["B16"]), (4, "w", &["C16"])],
            },
        ],
    },
    Case {
        file: "t11-psk-from-empty.sgf",
        suicide: "forbidden",
        moves: &[
            "b B18", "w A18", "b C18", "w B19", "b D19", "w C19", "b A19",
        ],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "positional",
                illegal: None,
                forbidden: &[(7, "w", &["B19"])],
            },
            Expect {
                ko: "situational",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[],
            },
        ],
    },
    Case {
        file: "t12-ssk-vs-nssk.sgf",
        suicide: "forbidden",
        moves: &[
            "b A1", "w A3", "b H12", "w pass", "b A2", "w pass", "b A1", "w A3",
        ],
        expect: &[
            Expect {
                ko: "simple",
                illegal: None,
                forbidden: &[],
            },
            Expect {
                ko: "positional",
                illegal: Some(8),
                forbidden: &[(2, "b", &["A2"]), (7, "w", &["A3"])],
            },
            Expect {
                ko: "situational",
                illegal: Some(8),
                forbidden: &[(7, "w", &["A3"])],
            },
            Expect {
                ko: "natural-situational",
                illegal: None,
                forbidden: &[(8, "b", &["A2"])],
            },
        ],
    },
];

/// Loads the position after `n` moves of `case` (before move n+1, whose
/// player is then to move).
fn load_after(e: &mut Engine, case: &Case, n: usize) {
    let file = position(case.file);
    if n == case.moves.len() {
        e.ok(&format!("loadsgf {file}"));
    } else {
        e.ok(&format!("loadsgf {file} {}", n + 1));
    }
}

#[test]
fn superko_positions_through_loadsgf_under_each_ko_rule() {
    for case in CASES {
        for expect in case.expect {
            let mut e = Engine::spawn(&["--ko", expect.ko, "--suicide", case.suicide]);
            let what = format!("{} under {}", case.file, expect.ko);
            // Each move of the sequence, from the position before it.
            for (i, mv) in case.moves.iter().enumerate() {
                let n = i + 1;
                e.ok(&format!("loadsgf {} {n}", position(case.file)));
                if expect.illegal == Some(n) {
                    let before = e.ok("showboard");
                    assert_eq!(
                        e.fail(&format!("play {mv}")),
                        "illegal move",
                        "{what}: move {n} {mv}"
                    );
                    assert!(
                        e.stderr_has("superko: repeats the position after move"),
                        "{what}: {}",
                        e.stderr()
                    );
                    assert_eq!(
                        e.ok("showboard"),
                        before,
                        "{what}: refused play changed the game"
                    );
                    break;
                }
                e.ok(&format!("play {mv}"));
            }
            // Every listed point is refused.
            for &(after, color, points) in expect.forbidden {
                load_after(&mut e, case, after);
                for p in points {
                    let (ok, _, r) = {
                        e.send(&format!("play {color} {p}"));
                        e.response()
                    };
                    assert!(
                        !ok && r == "illegal move",
                        "{what}: after {after}: {color} {p} must be refused"
                    );
                }
            }
        }
    }
}

/// The same retake in T10 with every move entered by `play` after the SGF
/// setup: plays after `loadsgf` enter the history just as the recorded ones.
#[test]
fn plays_after_loadsgf_extend_the_history() {
    for (ko, refused) in [
        ("simple", false),
        ("positional", true),
        ("situational", true),
        ("natural-situational", false),
    ] {
        let mut e = Engine::spawn(&["--ko", ko]);
        e.ok(&format!(
            "loadsgf {} 1",
            position("t10-ko-after-two-passes.sgf")
        ));
        for mv in ["w c16", "b pass", "w pass"] {
            e.ok(&format!("play {mv}"));
        }
        e.send("play b b16");
        let (ok, _, _) = e.response();
        assert_eq!(ok, !refused, "{ko}");
    }
}

#[test]
fn loadsgf_errors_and_move_numbers() {
    let mut e = Engine::spawn(&[]);
    e.ok("boardsize 9");
    e.ok("play b e5");
    let board = e.ok("showboard");
    let dir = env!("CARGO_MANIFEST_DIR");
    for bad in [
        "loadsgf /no/such/file.sgf".to_string(),
        format!("loadsgf {dir}/sgf/malformed/board-too-large.sgf"),
        format!("loadsgf {dir}/Cargo.toml"),
        format!("loadsgf {dir}/sgf"),
    ] {
        assert_eq!(e.fail(&bad), "cannot load file", "{bad}");
    }
    assert!(e.stderr_has("cannot load file"), "{}", e.stderr());
    assert_eq!(e.ok("showboard"), board, "a failed load changes nothing");
    assert_eq!(e.fail("loadsgf"), "syntax error");
    assert_eq!(
        e.fail(&format!("loadsgf {} 0", position("t01-simple-ko.sgf"))),
        "syntax error"
    );
    // A move number past the end loads the whole game.
    e.ok(&format!("loadsgf {} 99", position("t01-simple-ko.sgf")));
    assert_eq!(e.fail("play w b1"), "illegal move", "ko after B A1");
    // The file's setup is the start position: undo stops there.
    e.ok("undo");
    assert_eq!(e.fail("undo"), "cannot undo");
    // Before move 1: the setup, with the player of move 1 to move.
    e.ok(&format!("loadsgf {} 1", position("t07-psk-only.sgf")));
    let shown = e.ok("showboard");
    assert!(shown.contains("Move 0, white to play"), "{shown}");
}

#[test]
fn printsgf_round_trips_through_loadsgf() {
    let dir = std::env::temp_dir().join(format!("tengen-printsgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.sgf");
    let mut e = Engine::spawn(&["--size", "9", "--komi", "5.5"]);
    e.ok("fixed_handicap 3");
    for mv in ["w e5", "b d5", "w pass", "b e4"] {
        e.ok(&format!("play {mv}"));
    }
    let text = e.ok("printsgf");
    assert!(
        text.starts_with("(;FF[4]GM[1]") && text.contains("SZ[9]") && text.contains("KM[5.5]"),
        "{text}"
    );
    assert!(
        text.contains("HA[3]") && text.contains("AB[cc][gc][cg]"),
        "{text}"
    );
    assert!(!text.contains("\n\n"));
    e.ok(&format!("printsgf {}", file.display()));
    let board = e.ok("showboard");
    let mut f = Engine::spawn(&[]);
    f.ok(&format!("loadsgf {}", file.display()));
    assert_eq!(f.ok("showboard"), board);
    assert_eq!(f.ok("printsgf"), text);
    assert_eq!(f.ok("final_score"), e.ok("final_score"));
    std::fs::remove_dir_all(&dir).unwrap();
}
