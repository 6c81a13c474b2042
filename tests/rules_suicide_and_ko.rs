//! Hand-made positions for every suicide case and the shapes next to ko:
//! single-stone suicide (never legal), multi-stone suicide (legal only where
//! the rules allow it, and then it removes the mover's chain), a move that
//! looks like suicide but captures, and a snapback (a single-stone capture that
//! is not a ko).

use tengen::{Board, Color, Game, IllegalMove, KoRule, Move, Point, Preset, Rules};

/// A game whose start position is the diagram (X black, O white, . empty; top
/// row first), with `to_move` to play.
fn from_diagram(rows: &[&str], rules: Rules, to_move: Color) -> Game {
    let board = Board::from_diagram(rows).expect("square diagram");
    let g = board.geometry();
    let setup: Vec<(Point, Option<Color>)> = g
        .points()
        .filter_map(|p| board.at(p).color().map(|c| (p, Some(c))))
        .collect();
    let mut game = Game::new(g, rules, 0.0);
    game.setup(&setup, Some(to_move));
    game
}

fn at(game: &Game, x: usize, y: usize) -> Point {
    game.board().geometry().point(x, y).expect("on board")
}

fn rules(suicide_allowed: bool, ko: KoRule) -> Rules {
    let mut r = Preset::Chinese.rules();
    r.suicide_allowed = suicide_allowed;
    r.ko = ko;
    r
}

#[test]
fn single_stone_suicide_is_never_legal() {
    for allowed in [false, true] {
        for ko in KoRule::ALL {
            let game = from_diagram(
                &[".O...", "O....", ".....", ".....", "....."],
                rules(allowed, ko),
                Color::Black,
            );
            let p = at(&game, 0, 0);
            assert_eq!(
                game.check(Color::Black, Move::Play(p)),
                Err(IllegalMove::Suicide),
                "allowed={allowed} {ko:?}"
            );
            // White may fill its own eye: that is not suicide.
            assert_eq!(game.check(Color::White, Move::Play(p)), Ok(()));
        }
    }
}

#[test]
fn multi_stone_suicide_only_where_allowed_and_it_removes_the_chain() {
    let diagram = ["XO...", ".O...", "OO...", ".....", "....."];
    let forbidden = from_diagram(&diagram, rules(false, KoRule::Positional), Color::Black);
    let p = at(&forbidden, 0, 1);
    assert_eq!(
        forbidden.check(Color::Black, Move::Play(p)),
        Err(IllegalMove::Suicide)
    );

    let mut allowed = from_diagram(&diagram, rules(true, KoRule::Positional), Color::Black);
    allowed
        .play(Color::Black, Move::Play(p))
        .expect("multi-stone suicide allowed");
    assert_eq!(
        allowed.board().at(at(&allowed, 0, 0)).color(),
        None,
        "own chain removed"
    );
    assert_eq!(allowed.board().at(p).color(), None);
    assert_eq!(
        allowed.board().captures(Color::White),
        2,
        "the opponent gains the prisoners"
    );
    allowed.board().assert_consistent();
}

#[test]
fn a_move_without_liberties_that_captures_is_not_suicide() {
    let mut game = from_diagram(
        &[".OX..", "OX...", "X....", ".....", "....."],
        rules(false, KoRule::Simple),
        Color::Black,
    );
    let p = at(&game, 0, 0);
    game.play(Color::Black, Move::Play(p))
        .expect("captures, so legal");
    assert_eq!(game.board().captures(Color::Black), 2);
    assert_eq!(game.board().liberties(p), 2);
    assert!(game.board().ko().is_none(), "two stones captured: no ko");
}

#[test]
fn a_single_stone_capture_is_ko_only_when_the_capturer_is_alone_in_atari() {
    // Black captures the white stone at B5 with B4, which then has four
    // liberties: recapturing at B5 would not recreate the position, so no ko.
    let mut open = from_diagram(
        &["XOX..", ".....", ".....", ".....", "....."],
        rules(false, KoRule::Simple),
        Color::Black,
    );
    open.play(Color::Black, Move::Play(at(&open, 1, 1)))
        .expect("capture");
    assert_eq!(open.board().captures(Color::Black), 1);
    assert!(open.board().ko().is_none());
    assert_eq!(
        open.check(Color::White, Move::Play(at(&open, 1, 0))),
        Err(IllegalMove::Suicide)
    );

    // A real ko: White captures at B4; Black may not retake at C4 at once, but
    // may after an exchange elsewhere.
    let mut ko = from_diagram(
        &[".XO..", "X.XO.", ".XO..", ".....", "....."],
        rules(false, KoRule::Simple),
        Color::White,
    );
    let take = at(&ko, 1, 1);
    ko.play(Color::White, Move::Play(take))
        .expect("White captures the ko stone");
    assert_eq!(ko.board().captures(Color::White), 1);
    let retake = at(&ko, 2, 1);
    assert_eq!(ko.board().ko(), Some((retake, Color::Black)));
    assert_eq!(
        ko.check(Color::Black, Move::Play(retake)),
        Err(IllegalMove::Ko)
    );
    assert_eq!(
        ko.check(Color::White, Move::Play(retake)),
        Ok(()),
        "the ko binds only Black"
    );
    ko.play(Color::Black, Move::Play(at(&ko, 4, 4)))
        .expect("ko threat");
    ko.play(Color::White, Move::Play(at(&ko, 4, 3)))
        .expect("answer");
    assert_eq!(
        ko.check(Color::Black, Move::Play(retake)),
        Ok(()),
        "legal after an exchange elsewhere"
    );
}
