//! Unit tests of the board's incremental structures.
use super::*;

fn g(n: usize) -> Geometry {
    Geometry::new(n).unwrap()
}

#[test]
fn capture_merge_and_liberties() {
    let geo = g(5);
    let mut b = Board::new(geo);
    let p = |x, y| geo.point(x, y).unwrap();
    b.play(p(1, 1), Color::Black);
    assert_eq!(b.liberties(p(1, 1)), 4);
    b.play(p(2, 1), Color::Black);
    assert_eq!(b.liberties(p(1, 1)), 6);
    assert_eq!(b.chain_size(p(2, 1)), 2);
    b.play(p(1, 2), Color::Black);
    assert_eq!(b.liberties(p(2, 1)), 7);
    // White surrounds a corner stone and captures it.
    b.play(p(0, 0), Color::White);
    assert_eq!(b.liberties(p(0, 0)), 2);
    b.play(p(0, 1), Color::Black);
    assert_eq!(b.liberties(p(0, 0)), 1);
    let e = b.play(p(1, 0), Color::Black);
    assert_eq!(e.captured, 1);
    assert_eq!(b.at(p(0, 0)), Stone::Empty);
    assert_eq!(b.captures(Color::Black), 1);
    b.assert_consistent();
}

#[test]
fn board_is_small_plain_data() {
    // Stated in the module documentation; a playout copies the whole struct.
    assert_eq!(std::mem::size_of::<Board>(), 13_672);
}

#[test]
fn liberties_after_and_self_atari() {
    let geo = g(5);
    let mut b = Board::new(geo);
    let p = |x, y| geo.point(x, y).unwrap();
    // . X O . .
    // X . O . .
    // O O . . .
    for (x, y, c) in [
        (1, 0, Color::Black),
        (0, 1, Color::Black),
        (2, 0, Color::White),
        (2, 1, Color::White),
        (0, 2, Color::White),
        (1, 2, Color::White),
    ] {
        b.play(p(x, y), c);
    }
    // Black B4 joins both black stones: liberties A5 only -> a group self-atari.
    assert_eq!(b.liberties_after(p(1, 1), Color::Black, 4), 1);
    assert!(b.is_group_self_atari(p(1, 1), Color::Black));
    // Black A5 joins both too and keeps B4 only.
    assert_eq!(b.liberties_after(p(0, 0), Color::Black, 4), 1);
    // White B4 joins two white chains: D5 D4 C3 A2 B2 (C3 shared, B4 itself not counted).
    assert_eq!(b.liberties_after(p(1, 1), Color::White, 8), 5);
    assert!(
        !b.is_group_self_atari(p(3, 3), Color::Black),
        "a lone stone is never a group self-atari"
    );
    assert_eq!(b.liberties_after(p(3, 3), Color::Black, 2), 2, "capped");
}

#[test]
fn liberties_after_counts_what_captures_free() {
    // White A8-B8 and Black B9 share their last liberty A9. Black A9 captures
    // both white stones: A8 touches A9 and B8 touches B9, so the new chain
    // A9-B9 has two liberties and is no self-atari. White A9 captures B9 only
    // and keeps one.
    let b = Board::from_diagram(&[
        ".XO......",
        "OOXO.....",
        "XXXX.....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ])
    .unwrap();
    let a9 = b.geometry().point(0, 0).unwrap();
    assert_eq!(b.liberties_after(a9, Color::Black, 8), 2);
    assert!(!b.is_group_self_atari(a9, Color::Black));
    assert_eq!(b.liberties_after(a9, Color::White, 8), 1);
    assert!(b.is_group_self_atari(a9, Color::White));
}

#[test]
fn liberties_after_matches_playing_the_move() {
    use crate::go::random::{random_move, PlayoutRng};
    let mut rng = PlayoutRng::new(11);
    let mut checked_captures = 0;
    for size in [5, 7, 9] {
        for _game in 0..40 {
            let mut b = Board::new(g(size));
            let mut color = Color::Black;
            for _ in 0..3 * size * size {
                for i in 0..b.num_empty() {
                    let q = b.empty_point(i);
                    if !b.is_legal_simple(q, color) {
                        continue;
                    }
                    let mut after = b.clone();
                    let captures_before = after.captures(color);
                    after.play(q, color);
                    checked_captures += (after.captures(color) > captures_before) as u32;
                    let truth = after.liberties(q);
                    for cap in [2, 3, 100] {
                        assert_eq!(
                            b.liberties_after(q, color, cap),
                            truth.min(cap),
                            "{color:?} at {q:?} (cap {cap}) on\n{b:?}"
                        );
                    }
                }
                match random_move(&b, color, &mut rng) {
                    Some(q) => {
                        b.play(q, color);
                    }
                    None => b.clear_ko(),
                }
                color = color.opp();
            }
        }
    }
    assert!(checked_captures > 100, "{checked_captures} capturing moves");
}

#[test]
fn diagrams_round_trip_and_reject_garbage() {
    let b = Board::from_diagram(&["X.O", ".+.", "O.X"]).unwrap();
    assert_eq!(format!("{b:?}"), "X.O\n...\nO.X\n");
    b.assert_consistent();
    // Rectangles: 2 wide and 3 high, then 3 wide and 2 high.
    let tall = Board::from_diagram(&["X.", "..", ".O"]).unwrap();
    assert_eq!((tall.geometry().width(), tall.geometry().height()), (2, 3));
    assert_eq!(format!("{tall:?}"), "X.\n..\n.O\n");
    tall.assert_consistent();
    let wide = Board::from_diagram(&["X.O", "..."]).unwrap();
    assert_eq!(wide.geometry(), Geometry::rect(3, 2).unwrap());
    assert_eq!(wide.liberties(wide.geometry().point(2, 0).unwrap()), 2);
    assert!(
        Board::from_diagram(&["X.", "...", ".."]).is_none(),
        "rows of different lengths"
    );
    assert!(
        Board::from_diagram(&["X?", ".."]).is_none(),
        "unknown character"
    );
    assert!(Board::from_diagram(&["."]).is_none(), "too small");
}
