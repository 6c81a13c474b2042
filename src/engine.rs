//! The contract between the protocol front end (GTP, the match runner) and
//! whatever chooses moves: a search, or the simple [`RandomEngine`].
//!
//! The front end owns the [`Game`] and the clock; it asks an [`Engine`] for a
//! move within [`Limits`], may stop it at any time through an `AtomicBool`, and
//! receives [`Report`]s while it thinks (for `lz-analyze`, `kata-analyze`,
//! GoGui's analysis commands). An engine never sees protocol text.

use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::Game;
use crate::nn::metadata::SgfMetadata;
use crate::search::classical::playout::{random_point_where, PlayoutRng};
use crate::search::levels::Level;
use crate::search::root_choices::RootChoices;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// When to stop thinking: whichever limit is reached first. No limit at all
/// means "until stopped" (analysis).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Stop after this many playouts (or visits) in this search.
    pub playouts: Option<u64>,
    /// Stop after this much wall-clock time.
    pub time: Option<Duration>,
}

/// A front end's limit on the moves a search may begin with: GTP's
/// `avoid`/`allow COLOR V,V,… DEPTH` and the JSON analysis engine's
/// `avoidMoves`/`allowMoves`. Engines apply it at the root of a search for
/// `player` only, whatever the depth asked (a graph search shares its deeper
/// nodes between depths), and never to a pass.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRestriction {
    pub player: Color,
    pub moves: Vec<Move>,
    /// `allow`: only these; `avoid`: not these.
    pub allow: bool,
}

/// The board points `restrictions` keep a search for `color` from playing at
/// its root (a point may appear more than once).
pub fn excluded_points(
    restrictions: &[MoveRestriction],
    color: Color,
    geometry: Geometry,
) -> Vec<Point> {
    let mut out = Vec::new();
    for r in restrictions.iter().filter(|r| r.player == color) {
        if r.allow {
            out.extend(
                geometry
                    .points()
                    .filter(|p| !r.moves.contains(&Move::Play(*p))),
            );
        } else {
            out.extend(r.moves.iter().filter_map(|m| match m {
                Move::Play(p) => Some(*p),
                Move::Pass => None,
            }));
        }
    }
    out
}

/// What `genmove` asks for beyond the limits.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GenmoveOptions<'a> {
    pub limits: Limits,
    /// What the search may begin with (the front end's avoided points and
    /// the position's symmetries); `None`: every move.
    pub root: Option<&'a RootChoices>,
    /// `kgs-genmove_cleanup`: do not pass while dead opponent stones remain on
    /// the board; capture them first.
    pub cleanup: bool,
    /// Whether resigning is acceptable (off for cleanup and for `reg_genmove`).
    pub allow_resign: bool,
    /// The time limit is lost if not used (a byo-yomi period): think until
    /// it, even when the best move is already settled.
    pub use_all_time: bool,
}

/// One candidate move as the search sees it. Values are from the point of view
/// of the player the search is for.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    pub mv: Move,
    pub visits: u64,
    /// Probability of winning, 0..=1.
    pub winrate: f64,
    /// Prior probability the search gave the move, 0..=1.
    pub prior: f64,
    /// Lower confidence bound of the win rate, 0..=1 (the network's search:
    /// the bound of the move's value it chooses by, moved to the win rate).
    pub lcb: f64,
    /// Expected score lead in points.
    pub score_lead: f64,
    /// Expected score (mean) and its standard deviation, in points.
    pub score_mean: f64,
    pub score_stdev: f64,
    /// The search's value of the move, -1..=1: the win rate blended with the
    /// score utility.
    pub utility: f64,
    /// Principal variation, starting with `mv`.
    pub pv: Vec<Move>,
    /// Visits of each move of `pv` (the edge's, as `visits` counts them);
    /// empty when the engine keeps none.
    pub pv_visits: Vec<u64>,
}

impl MoveInfo {
    /// A move the search has not visited, with its `prior`: no visits, the
    /// position's values from `report` (KataGo gives such moves the parent's
    /// score), a variation of the move alone.
    pub fn unvisited(mv: Move, prior: f64, report: &Report) -> MoveInfo {
        MoveInfo {
            mv,
            visits: 0,
            winrate: report.winrate,
            prior,
            lcb: 0.0,
            score_lead: report.score_lead,
            score_mean: report.score_mean,
            score_stdev: report.score_stdev,
            utility: report.utility,
            pv: vec![mv],
            pv_visits: vec![0],
        }
    }

    /// The utility's lower bound: the utility moved by the margin of `lcb`
    /// below the win rate (the utility spans twice the win rate's range).
    pub fn utility_lcb(&self) -> f64 {
        self.utility - 2.0 * (self.winrate - self.lcb).max(0.0)
    }
}

/// A snapshot of a search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Candidates, best first.
    pub moves: Vec<MoveInfo>,
    /// Playouts (visits) so far in this search.
    pub visits: u64,
    /// Win rate of the position for the player the search is for, 0..=1.
    pub winrate: f64,
    /// Expected score lead for that player.
    pub score_lead: f64,
    /// Expected score (mean) for that player, and its standard deviation.
    pub score_mean: f64,
    pub score_stdev: f64,
    /// The search's value of the position for that player, -1..=1.
    pub utility: f64,
    /// Expected owner of each point, row by row from the top-left (the
    /// point order of [`crate::go::board::Geometry::points`]): +1 the player the
    /// search is for, -1 the opponent. Empty when the engine has none.
    pub ownership: Vec<f64>,
    /// The standard deviation of each point's owner over the search's
    /// evaluations, in the order of `ownership`. Empty when the engine has
    /// none.
    pub ownership_stdev: Vec<f64>,
    /// The root moves the search may begin with but has not visited, with
    /// their policy priors, highest prior first: what GTP's `minmoves` lists
    /// after the searched moves, as KataGo fills its listing from the policy.
    pub unvisited: Vec<(Move, f64)>,
}

/// What `genmove` decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Play(Move),
    Resign,
}

/// A move chooser. Implementations must never return a move that is illegal in
/// `game` under its rules (superko included).
pub trait Engine: Send {
    /// Chooses a move for `color`. Stops at the limits or as soon as `stop` is
    /// set (then answers with the best move so far); calls `progress` from time
    /// to time with the current state of the search.
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) -> (Decision, Report);

    /// Thinks about the position for `color`, never beginning with a point of
    /// `excluded`, until `stop` is set, calling `progress` about every
    /// `interval`.
    fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        excluded: &[Point],
        interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    );

    /// The stones this engine believes dead in `game`'s position (for
    /// `final_status_list dead` and `final_score`).
    fn dead_stones(&mut self, game: &Game) -> Vec<Point>;

    /// The stones this engine believes in seki in `game`'s position (for
    /// `final_status_list seki`); none by default.
    fn seki_stones(&mut self, _game: &Game) -> Vec<Point> {
        Vec::new()
    }

    /// A new game starts: forget whatever was learnt about the old one.
    /// Sets the SGF metadata (a human-SL profile) a human-SL network is
    /// given; engines without a network refuse.
    ///
    /// # Errors
    /// The engine has no use for a profile.
    fn set_human_profile(&mut self, _profile: Option<SgfMetadata>) -> Result<(), String> {
        Err("this engine has no human-SL network".into())
    }

    /// Sets how strong `genmove` plays ([`Level::Max`]: full strength).
    ///
    /// # Errors
    /// The engine cannot play below full strength (it has no network).
    fn set_level(&mut self, level: Level) -> Result<(), String> {
        match level {
            Level::Max => Ok(()),
            Level::Rank(_) => Err("this engine has no levels".into()),
        }
    }

    fn clear(&mut self) {}
}

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
