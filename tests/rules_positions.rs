//! The twelve superko positions T1–T12 (tests/data/superko_positions.txt),
//! set up through the game API (real setup stones, not plays) and replayed
//! under every ko rule: after every move, the set of points the player to move
//! may not play *because of ko or superko* must be exactly the expected one, and
//! a move marked illegal must be refused with a ko/superko reason.

use std::collections::{BTreeMap, BTreeSet};
use tengen::{Color, Game, Geometry, IllegalMove, KoRule, Move, Point, Preset};

const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// GTP name of a 19x19 point, e.g. `D17`.
fn gtp_name(p: Point) -> String {
    format!("{}{}", COLUMNS[p.x()] as char, 19 - p.y())
}

fn sgf_point(g: Geometry, s: &[u8]) -> Point {
    g.point((s[0] - b'a') as usize, (s[1] - b'a') as usize)
        .expect("test data point on the board")
}

/// A minimal reader for the controlled records of the data file: root setup
/// (AB/AW with compressed lists, PL) and a sequence of B/W moves.
struct Record {
    setup: Vec<(Point, Option<Color>)>,
    to_move: Color,
    moves: Vec<(Color, Move)>,
}

fn read_record(sgf: &str, g: Geometry) -> Record {
    let mut rec = Record {
        setup: Vec::new(),
        to_move: Color::Black,
        moves: Vec::new(),
    };
    let bytes = sgf.as_bytes();
    let mut i = 0;
    let mut ident = String::new();
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_uppercase() {
            ident.push(c as char);
            i += 1;
        } else if c == b'[' {
            let end = i + sgf[i..].find(']').expect("closed value");
            let value = &sgf[i + 1..end];
            let color = |s: &str| if s == "B" { Color::Black } else { Color::White };
            match ident.as_str() {
                "AB" | "AW" => {
                    let stone = Some(color(&ident[1..]));
                    let (a, b) = value.split_once(':').unwrap_or((value, value));
                    let (a, b) = (sgf_point(g, a.as_bytes()), sgf_point(g, b.as_bytes()));
                    for y in a.y()..=b.y() {
                        for x in a.x()..=b.x() {
                            rec.setup.push((g.point(x, y).expect("on board"), stone));
                        }
                    }
                }
                "PL" => rec.to_move = color(value),
                "B" | "W" => {
                    let mv = if value.is_empty() {
                        Move::Pass
                    } else {
                        Move::Play(sgf_point(g, value.as_bytes()))
                    };
                    rec.moves.push((color(&ident), mv));
                }
                _ => {}
            }
            i = end + 1;
            // A property may have several values: keep the identifier until the next letter.
            if i < bytes.len() && bytes[i] != b'[' {
                ident.clear();
            }
        } else {
            ident.clear();
            i += 1;
        }
    }
    rec
}

/// Expected outcome under one rule: the illegal points after each move, and the
/// move number that is refused (the sequence stops there).
#[derive(Debug, Default, PartialEq)]
struct Expectation {
    after: BTreeMap<usize, (char, BTreeSet<String>)>,
    stops_at: Option<usize>,
}

fn parse_expectation(text: &str) -> Expectation {
    let mut e = Expectation::default();
    for part in text.split("; ") {
        let part = part.trim();
        if part == "no move is ko/superko-illegal" {
            continue;
        } else if let Some(rest) = part.strip_prefix("after ") {
            let (n, rest) = rest.split_once(": ").expect("after N: ...");
            let (who, points) = rest
                .split_once(" may not play ")
                .expect("X may not play ...");
            let points = points.split(',').map(str::to_string).collect();
            e.after.insert(
                n.parse().expect("number"),
                (who.chars().next().expect("colour"), points),
            );
        } else if let Some(rest) = part.strip_prefix("move ") {
            let n = rest.split_whitespace().next().expect("move number");
            e.stops_at = Some(n.parse().expect("number"));
        } else {
            panic!("unreadable expectation part: {part}");
        }
    }
    e
}

/// Points the player to move may not play because of ko or superko.
fn ko_illegal(game: &Game, color: Color) -> BTreeSet<String> {
    game.board()
        .geometry()
        .points()
        .filter(|&p| {
            matches!(
                game.check(color, Move::Play(p)),
                Err(IllegalMove::Ko
                    | IllegalMove::PositionalSuperko { .. }
                    | IllegalMove::SituationalSuperko { .. }
                    | IllegalMove::NaturalSituationalSuperko { .. })
            )
        })
        .map(gtp_name)
        .collect()
}

fn observe(rec: &Record, ko: KoRule, suicide_allowed: bool) -> Expectation {
    let g = Geometry::new(19).expect("19x19");
    let mut rules = Preset::Chinese.rules();
    rules.ko = ko;
    rules.suicide_allowed = suicide_allowed;
    let mut game = Game::new(g, rules, 7.5);
    game.setup(&rec.setup, Some(rec.to_move));
    let mut seen = Expectation::default();
    for (i, &(color, mv)) in rec.moves.iter().enumerate() {
        match game.play(color, mv) {
            Ok(()) => {}
            Err(
                IllegalMove::Ko
                | IllegalMove::PositionalSuperko { .. }
                | IllegalMove::SituationalSuperko { .. }
                | IllegalMove::NaturalSituationalSuperko { .. },
            ) => {
                seen.stops_at = Some(i + 1);
                break;
            }
            Err(other) => panic!("move {} refused for an unexpected reason: {other}", i + 1),
        }
        let next = color.opp();
        let illegal = ko_illegal(&game, next);
        if !illegal.is_empty() {
            seen.after.insert(i + 1, (next.letter(), illegal));
        }
    }
    seen
}

#[test]
fn superko_positions_t1_to_t12_under_every_ko_rule() {
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/superko_positions.txt"
    ))
    .expect("data file");
    let g = Geometry::new(19).expect("19x19");
    let mut checked = 0;
    for block in data.split("\n\n").filter(|b| b.starts_with('T')) {
        let mut lines = block.lines();
        let title = lines.next().expect("title");
        let mut record = None;
        let mut suicide_allowed = false;
        for line in lines {
            if let Some(sgf) = line.strip_prefix("sgf ") {
                record = Some(read_record(sgf, g));
            } else if line == "suicide allowed" {
                suicide_allowed = true;
            } else {
                let (rule, text) = line.split_once(": ").expect("rule: expectation");
                let ko = match rule {
                    "simple ko" => KoRule::Simple,
                    "PSK" => KoRule::Positional,
                    "SSK" => KoRule::Situational,
                    "NSSK+basic ko" => KoRule::NaturalSituational,
                    other => panic!("unknown rule {other}"),
                };
                let rec = record.as_ref().expect("sgf line first");
                let expected = parse_expectation(text);
                assert_eq!(
                    observe(rec, ko, suicide_allowed),
                    expected,
                    "{title} under {rule}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 47, "12 positions x 4 rules, T6 without simple ko");
}

#[test]
fn a_refused_superko_move_names_the_repeated_move() {
    // T4 (eternal life) under PSK: move 4 (W F1) repeats the position after move 0.
    let data = "(;GM[1]FF[4]SZ[19]AB[aq][bq][cq][dq][eq][ar][er][fr][ds][gs]AW[ap][bp][cp][dp][ep][fp][fq][br][cr][dr][gr][hr][bs][fs]PL[B];B[cs];W[es];B[ds];W[fs])";
    let g = Geometry::new(19).expect("19x19");
    let rec = read_record(data, g);
    let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
    game.setup(&rec.setup, Some(rec.to_move));
    for &(c, mv) in &rec.moves[..3] {
        game.play(c, mv).expect("legal");
    }
    let (c, mv) = rec.moves[3];
    let before = game.board().hash();
    assert_eq!(
        game.play(c, mv),
        Err(IllegalMove::PositionalSuperko { repeats: 0 })
    );
    assert_eq!(game.board().hash(), before);
    assert_eq!(game.move_number(), 3);
}
