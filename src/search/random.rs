//! [`RandomEngine`]: a uniformly random legal move, the engine used before a
//! search is plugged in and a baseline opponent.

use super::classical::playout::{random_point_where, PlayoutRng};
use crate::engine::root_choices::RootChoices;
use crate::engine::{Decision, Engine, GenmoveOptions, MoveInfo, Report};
use crate::go::board::{Color, Move, Point};
use crate::go::game::Game;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Plays a uniformly random legal move (superko-aware, under the game's rules)
/// that does not fill one of its own true eyes; passes when there is none.
/// Believes nothing is dead. The engine used until a search is plugged in, and
/// a baseline opponent.
#[derive(Clone, Debug)]
pub struct RandomEngine {
    rng: PlayoutRng,
}

impl RandomEngine {
    pub fn new(seed: u64) -> RandomEngine {
        RandomEngine {
            rng: PlayoutRng::new(seed),
        }
    }

    /// A report of one visit to `mv`.
    fn report(mv: Move) -> Report {
        Report {
            moves: vec![MoveInfo {
                mv,
                visits: 1,
                winrate: 0.5,
                prior: 1.0,
                lcb: 0.0,
                score_lead: 0.0,
                score_mean: 0.0,
                score_stdev: 0.0,
                utility: 0.0,
                pv: vec![mv],
                pv_visits: vec![1],
            }],
            visits: 1,
            winrate: 0.5,
            ..Report::default()
        }
    }

    fn choose(&mut self, game: &Game, color: Color, excluded: &[Point]) -> Move {
        let board = game.board();
        random_point_where(board, &mut self.rng, |p| {
            !board.is_true_eye(p, color)
                && !excluded.contains(&p)
                && game.is_legal(color, Move::Play(p))
        })
        .map_or(Move::Pass, Move::Play)
    }
}

impl Engine for RandomEngine {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        _stop: &AtomicBool,
        _progress: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        let avoided = options.root.map_or(&[][..], RootChoices::avoided);
        let mv = self.choose(game, color, avoided);
        (Decision::Play(mv), RandomEngine::report(mv))
    }

    fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        excluded: &[Point],
        interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) {
        while !stop.load(Ordering::Relaxed) {
            let mv = self.choose(game, color, excluded);
            let report = RandomEngine::report(mv);
            progress(&report);
            // Sleep in small steps so a stop request is seen quickly.
            let mut slept = Duration::ZERO;
            while slept < interval && !stop.load(Ordering::Relaxed) {
                let step = Duration::from_millis(5).min(interval - slept);
                std::thread::sleep(step);
                slept += step;
            }
        }
    }

    fn dead_stones(&mut self, _game: &Game) -> Vec<Point> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;
    use crate::go::rules::{KoRule, Preset};

    #[test]
    fn random_engine_plays_only_legal_moves_to_the_end() {
        for ko in KoRule::ALL {
            let mut rules = Preset::Chinese.rules();
            rules.ko = ko;
            let mut game = Game::new(Geometry::new(4).unwrap(), rules, 0.0);
            let mut engine = RandomEngine::new(3);
            let stop = AtomicBool::new(false);
            let mut color = Color::Black;
            while game.consecutive_passes() < 2 && game.move_number() < 500 {
                let (d, _) =
                    engine.genmove(&game, color, &GenmoveOptions::default(), &stop, &mut |_| {});
                let Decision::Play(mv) = d else {
                    panic!("random engine resigned")
                };
                game.play(color, mv).expect("legal");
                color = color.opp();
            }
            assert!(game.consecutive_passes() >= 2, "{ko:?}: the game ends");
        }
    }
}
