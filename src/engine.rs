//! The contract between the protocol front end (GTP, the match runner) and
//! whatever chooses moves: a search, or the simple
//! [`RandomEngine`](crate::search::random::RandomEngine).
//!
//! The front end owns the [`Game`] and the clock; it asks an [`Engine`] for a
//! move within [`Limits`], may stop it at any time through an `AtomicBool`, and
//! receives [`Report`]s while it thinks (for `lz-analyze`, `kata-analyze`,
//! GoGui's analysis commands). An engine never sees protocol text.
//!
//! Below it, using nothing of the search: [`level`] (how strong an engine
//! plays) and [`root_choices`] (what a search may begin with).

pub mod level;
pub mod root_choices;

use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::Game;
use crate::nn::metadata::SgfMetadata;
use level::Level;
use root_choices::RootChoices;
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;
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

/// One line of a listing: a move as searched, or turned into one of its
/// images (`symmetry_of` the searched move it copies).
pub struct Listed<'a> {
    pub info: Cow<'a, MoveInfo>,
    pub symmetry_of: Option<Move>,
}

/// The front ends' listing of a search's moves under the root's choices
/// (here beside [`MoveInfo`], which it copies).
impl RootChoices {
    /// KataGo's listing of a search's moves (best first) under symmetry
    /// pruning: each move, then each of its images not listed yet and not
    /// avoided, as a copy with the move and the variation turned.
    pub fn listing<'a>(&self, moves: &'a [MoveInfo]) -> Vec<Listed<'a>> {
        let mut out: Vec<Listed<'a>> = Vec::with_capacity(moves.len());
        for m in moves {
            for &s in self.symmetries() {
                let image = self.image(s, m.mv);
                let is_avoided = matches!(image, Move::Play(p) if self.avoided().contains(&p));
                if out.iter().any(|l| l.info.mv == image) || (s != 0 && is_avoided) {
                    continue;
                }
                out.push(if s == 0 {
                    Listed {
                        info: Cow::Borrowed(m),
                        symmetry_of: None,
                    }
                } else {
                    Listed {
                        info: Cow::Owned(MoveInfo {
                            mv: image,
                            pv: m.pv.iter().map(|&mv| self.image(s, mv)).collect(),
                            ..m.clone()
                        }),
                        symmetry_of: Some(m.mv),
                    }
                });
            }
        }
        out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Preset;
    use crate::go::vertex::{format_move, parse_move};

    /// KataGo's listing: each searched move, then its images not listed yet
    /// and not avoided, as copies with the variation turned.
    #[test]
    fn the_listing_adds_each_image_once_with_its_variation_turned() {
        let g = Game::new(Geometry::new(5).unwrap(), Preset::Chinese.rules(), 7.5);
        let geo = g.board().geometry();
        let mv = |v: &str| parse_move(v, geo).unwrap();
        let info = |v: &str, pv: &[&str]| MoveInfo {
            mv: mv(v),
            visits: 10,
            winrate: 0.5,
            prior: 0.1,
            lcb: 0.4,
            score_lead: 0.0,
            score_mean: 0.0,
            score_stdev: 0.0,
            utility: 0.0,
            pv: pv.iter().map(|v| mv(v)).collect(),
            pv_visits: vec![10; pv.len()],
        };
        let a1 = match mv("A1") {
            Move::Play(p) => p,
            Move::Pass => unreachable!(),
        };
        let r = RootChoices::new(&g, Color::Black, vec![a1]);
        let moves = [
            info("C3", &["C3", "D4"]),
            info("E5", &["E5", "C3"]),
            info("pass", &["pass"]),
        ];
        let listed = r.listing(&moves);
        let shown: Vec<(String, Option<String>)> = listed
            .iter()
            .map(|l| {
                (
                    format_move(l.info.mv, geo),
                    l.symmetry_of.map(|m| format_move(m, geo)),
                )
            })
            .collect();
        let text: Vec<String> = shown
            .iter()
            .map(|(m, of)| {
                format!(
                    "{m}{}",
                    of.as_deref().map_or(String::new(), |o| format!("<{o}"))
                )
            })
            .collect();
        // C3 maps to itself; E5's corners but the avoided A1; a pass once.
        assert_eq!(text, ["C3", "E5", "E1<E5", "A5<E5", "pass"], "{text:?}");
        for l in &listed {
            assert_eq!(l.info.pv.first(), Some(&l.info.mv));
            if l.symmetry_of.is_some() {
                assert_eq!(l.info.pv[1], mv("C3"), "the centre stays");
                assert_eq!(l.info.visits, 10);
            }
        }
        // A searched move is listed as it is, not copied.
        assert!(matches!(listed[0].info, Cow::Borrowed(_)));
    }
}
