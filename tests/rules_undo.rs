//! Undo: random play, then undo back to the start position, checking at every
//! step that board, key, captures, player to move and the superko history (seen
//! through the legality of every point) are exactly what they were.

use tengen::search::classical::playout::PlayoutRng;
use tengen::{Color, Game, Geometry, KoRule, Move, Preset};

/// Everything observable about a game position.
#[derive(Debug, PartialEq)]
struct Snapshot {
    diagram: String,
    hash: u64,
    captures: [u32; 2],
    to_move: Color,
    move_number: u32,
    verdicts: Vec<Result<(), tengen::IllegalMove>>,
}

fn snapshot(game: &Game) -> Snapshot {
    let b = game.board();
    Snapshot {
        diagram: format!("{b:?}"),
        hash: b.hash(),
        captures: [b.captures(Color::Black), b.captures(Color::White)],
        to_move: game.to_move(),
        move_number: game.move_number(),
        verdicts: b
            .geometry()
            .points()
            .map(|p| game.check(game.to_move(), Move::Play(p)))
            .collect(),
    }
}

#[test]
fn undo_back_to_the_start_restores_everything() {
    let mut rng = PlayoutRng::new(77);
    for (size, moves) in [(4, 150), (5, 200), (9, 250), (19, 400)] {
        for ko in KoRule::ALL {
            let mut rules = Preset::TrompTaylor.rules();
            rules.ko = ko;
            let mut game = Game::new(Geometry::new(size).expect("size"), rules, 7.0);
            let mut snapshots = vec![snapshot(&game)];
            for _ in 0..moves {
                let color = game.to_move();
                let legal = game.legal_points(color);
                let mv = if legal.is_empty() || rng.below(100) < 5 {
                    Move::Pass
                } else {
                    Move::Play(legal[rng.below(legal.len())])
                };
                game.play(color, mv).expect("legal");
                snapshots.push(snapshot(&game));
            }
            let captured =
                game.board().captures(Color::Black) + game.board().captures(Color::White);
            assert!(captured > 0, "{size}x{size}: the game had captures to undo");
            snapshots.pop();
            while let Some(expected) = snapshots.pop() {
                assert!(game.undo(), "undo while moves remain");
                assert_eq!(
                    snapshot(&game),
                    expected,
                    "{size}x{size} {ko:?} after undo to move {}",
                    expected.move_number
                );
                game.board().assert_consistent();
            }
            assert!(!game.undo(), "nothing left to undo");
            assert_eq!(game.board().hash(), 0, "back to the empty board");
        }
    }
}
