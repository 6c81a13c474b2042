//! Rectangular boards over GTP: `rectangular_boardsize` as KataGo reads it
//! (`cpp/command/gtp.cpp`: `W H`, `W:H` or `N`, with KataGo's error texts),
//! then play, genmove, showboard, handicap and SGF on the board it sets. `W`
//! is the number of columns (letters A.. without I), `H` the number of rows.

use crate::common;
use common::Engine;

/// Whether `text` is a vertex of a board `w` wide and `h` high.
fn on_board(text: &str, w: usize, h: usize) -> bool {
    const COLS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mut chars = text.chars();
    let Some(x) = chars.next().and_then(|c| COLS.find(c)) else {
        return false;
    };
    chars
        .as_str()
        .parse::<usize>()
        .is_ok_and(|row| x < w && (1..=h).contains(&row))
}

#[test]
fn rectangular_boardsize_reads_katagos_three_forms() {
    let mut e = Engine::spawn(&[]);
    assert_eq!(e.ok("known_command rectangular_boardsize"), "true");
    assert!(e.ok("list_commands").contains("rectangular_boardsize"));
    for (args, width, height) in [
        ("19 13", 19, 13),
        ("7:5", 7, 5),
        ("9", 9, 9),
        ("2 25", 2, 25),
    ] {
        e.ok(&format!("rectangular_boardsize {args}"));
        let board = e.ok("showboard");
        let lines: Vec<&str> = board.lines().collect();
        // Letters for the columns, one line per row, the rows counted from the bottom.
        let letters: String = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
            .chars()
            .take(width)
            .map(|c| format!(" {c}"))
            .collect();
        assert_eq!(lines[1], format!("  {letters}"), "{args}");
        assert_eq!(
            lines[2],
            format!("{height:>2}{} {height}", " .".repeat(width)),
            "{args}"
        );
        assert_eq!(
            lines[1 + height],
            format!(" 1{} 1", " .".repeat(width)),
            "{args}"
        );
        assert_eq!(lines[2 + height], format!("  {letters}"), "{args}");
    }
}

#[test]
fn rectangular_boardsize_errors_are_katagos_and_change_nothing() {
    let mut e = Engine::spawn(&[]);
    e.ok("rectangular_boardsize 7 5");
    e.ok("play b G5");
    let board = e.ok("showboard");
    let expected = |args: &str| {
        format!("Expected int argument for boardsize or pair of ints but got '{args}'")
    };
    for (args, error) in [
        ("", expected("")),
        ("x 5", expected("x 5")),
        ("19 x", expected("19 x")),
        ("19 13 1", expected("19 13 1")),
        ("19:13:2", expected("19:13:2")),
        ("19:", expected("19:")),
        ("7.5 5", expected("7.5 5")),
        ("1 5", "unacceptable size".to_string()),
        ("5 1", "unacceptable size".to_string()),
        ("0:0", "unacceptable size".to_string()),
        ("-3 5", "unacceptable size".to_string()),
        ("26 3", "unacceptable size".to_string()),
        ("3 26", "unacceptable size".to_string()),
        ("99999999999999999999 3", expected("99999999999999999999 3")),
    ] {
        let line = format!("rectangular_boardsize {args}");
        assert_eq!(e.fail(line.trim_end()), error, "{line}");
    }
    assert_eq!(e.ok("showboard"), board, "a refused size keeps the game");
    // `boardsize` stays square (GTP): two different sides are refused.
    assert_eq!(e.fail("boardsize 19 13"), "unacceptable size");
    assert_eq!(e.ok("showboard"), board);
}

#[test]
fn play_genmove_and_showboard_follow_width_and_height() {
    let mut e = Engine::spawn(&["--playouts", "100"]);
    e.ok("rectangular_boardsize 19 13");
    // Corners: A1, T1, A13, T13; row 14 and column U are off the board.
    for v in ["A1", "T13"] {
        e.ok(&format!("play b {v}"));
    }
    e.ok("play w T1");
    e.ok("play w A13");
    for v in ["T14", "A14", "U1", "U13"] {
        assert_eq!(e.fail(&format!("play b {v}")), "illegal move", "{v}");
    }
    let board = e.ok("showboard");
    let lines: Vec<&str> = board.lines().collect();
    assert_eq!(lines.len(), 1 + 1 + 13 + 1 + 1, "{board}");
    // The last move, W A13, in parentheses.
    assert_eq!(
        lines[2],
        format!("13(O){} X 13", ". ".repeat(17).trim_end()),
        "{board}"
    );
    assert_eq!(lines[14], format!(" 1 X{} O 1", " .".repeat(17)), "{board}");
    // Both colours generate moves on the board (or pass); each is played.
    for i in 0..12 {
        let color = if i % 2 == 0 { "b" } else { "w" };
        let mv = e.ok(&format!("genmove {color}"));
        assert!(mv == "pass" || on_board(&mv, 19, 13), "{mv}");
    }
    // The other orientation: 13 columns, 19 rows.
    e.ok("rectangular_boardsize 13 19");
    e.ok("play b N19");
    assert_eq!(e.fail("play b O1"), "illegal move");
    e.ok("play w A1");
    for i in 0..6 {
        let color = if i % 2 == 0 { "b" } else { "w" };
        let mv = e.ok(&format!("genmove {color}"));
        assert!(mv == "pass" || on_board(&mv, 13, 19), "{mv}");
    }
    let sgf = e.ok("printsgf");
    assert!(sgf.contains("SZ[13:19]"), "{sgf}");
    assert!(sgf.contains(";B[ma];W[as]"), "{sgf}");
}

#[test]
fn handicap_takes_each_side_alone() {
    let mut e = Engine::spawn(&[]);
    e.ok("rectangular_boardsize 19 13");
    assert_eq!(e.ok("fixed_handicap 9"), "D4 Q10 D10 Q4 D7 Q7 K4 K10 K7");
    e.ok("clear_board");
    let free = e.ok("place_free_handicap 12");
    let stones: Vec<&str> = free.split(' ').collect();
    assert_eq!(stones.len(), 12);
    assert!(stones.iter().all(|v| on_board(v, 19, 13)), "{free}");
    // A side of 6: no fixed handicap, as on a 6x6 board (and as KataGo).
    e.ok("rectangular_boardsize 19 6");
    assert_eq!(e.fail("fixed_handicap 2"), "invalid number of stones");
    // An even side allows 4 at most.
    e.ok("rectangular_boardsize 19 10");
    assert_eq!(e.fail("fixed_handicap 5"), "invalid number of stones");
    assert_eq!(e.ok("fixed_handicap 4"), "D3 Q8 D8 Q3");
}

#[test]
fn loadsgf_reads_a_rectangular_board() {
    let mut e = Engine::spawn(&[]);
    let dir = env!("CARGO_MANIFEST_DIR");
    e.ok(&format!(
        "loadsgf {dir}/sgf/positions/t02-rectangular-6x5.sgf 1"
    ));
    let board = e.ok("showboard");
    let lines: Vec<&str> = board.lines().collect();
    assert_eq!(lines[1], "   A B C D E F", "{board}");
    // SZ[6:5] AB[da][ea]... AW[ba][fa]...: the top row is row 5.
    assert_eq!(lines[2], " 5 . O . X X O 5", "{board}");
    assert_eq!(lines[7], "   A B C D E F", "{board}");
    e.ok(&format!(
        "loadsgf {dir}/sgf/games/rect-19x13-ko-fight.sgf 6"
    ));
    // Move 6 would retake the ko at once: W S1 is illegal now.
    assert_eq!(e.fail("play w S1"), "illegal move");
}

#[test]
fn a_net_evaluates_and_plays_rectangular_boards() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let net = net.to_str().unwrap();
    let mut e = Engine::spawn(&["--model", net, "--playouts", "16"]);
    for (w, h) in [(13, 19), (19, 13)] {
        e.ok(&format!("rectangular_boardsize {w} {h}"));
        e.ok("play b D4");
        let mv = e.ok("genmove w");
        assert!(on_board(&mv, w, h), "{mv} on {w}x{h}");
        let raw = e.ok("kata-raw-nn all");
        let lines: Vec<&str> = raw.lines().collect();
        assert_eq!(raw.matches("symmetry ").count(), 8);
        let policy = lines.iter().position(|l| *l == "policy").unwrap();
        // h rows of w entries, then the pass.
        for row in &lines[policy + 1..policy + 1 + h] {
            assert_eq!(row.split_whitespace().count(), w, "{row}");
        }
        assert!(lines[policy + 1 + h].starts_with("policyPass "));
    }
    // Larger than the net's 19: searched the classical way, still legal moves.
    e.ok("rectangular_boardsize 25 3");
    let mv = e.ok("genmove b");
    assert!(on_board(&mv, 25, 3), "{mv}");
}
