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
fn diagrams_round_trip_and_reject_garbage() {
    let b = Board::from_diagram(&["X.O", ".+.", "O.X"]).unwrap();
    assert_eq!(format!("{b:?}"), "X.O\n...\nO.X\n");
    b.assert_consistent();
    assert!(
        Board::from_diagram(&["X.", "..", ".."]).is_none(),
        "not square"
    );
    assert!(
        Board::from_diagram(&["X?", ".."]).is_none(),
        "unknown character"
    );
    assert!(Board::from_diagram(&["."]).is_none(), "too small");
}
