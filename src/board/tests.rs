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
    assert_eq!(std::mem::size_of::<Board>(), 12_208);
}
