//! What both front ends show of a search, computed once: one candidate
//! move's figures from the point of view asked for (GTP's `kata-analyze`
//! lines and the analysis engine's `moveInfos` format the same view), and
//! the root's ownership with one fallback when the search has none yet.

use crate::engine::{MoveInfo, Report};
use crate::go::board::{Board, Color, Move};
use crate::go::score;

/// One candidate move as KataGo reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveView {
    pub mv: Move,
    pub visits: u64,
    pub winrate: f64,
    pub score_lead: f64,
    /// KataGo's `scoreSelfplay`: the mean score.
    pub score_selfplay: f64,
    pub score_stdev: f64,
    pub prior: f64,
    pub utility: f64,
    pub lcb: f64,
    pub utility_lcb: f64,
    pub order: usize,
    /// At least the move itself, at most the length asked.
    pub pv: Vec<Move>,
    /// The visits of each move of `pv`.
    pub pv_visits: Vec<u64>,
    /// The searched move this one copies by a symmetry of the position.
    pub is_symmetry_of: Option<Move>,
}

impl MoveView {
    /// `m`, listed `order`-th, its figures for the other player when `flip`
    /// (they are the mover's), its line cut to `pv_len` moves.
    pub fn new(
        m: &MoveInfo,
        order: usize,
        is_symmetry_of: Option<Move>,
        flip: bool,
        pv_len: usize,
    ) -> MoveView {
        let rate = |w: f64| if flip { 1.0 - w } else { w };
        let signed = |v: f64| if flip { -v } else { v };
        let (pv, pv_visits) = if m.pv.is_empty() {
            (vec![m.mv], vec![m.visits])
        } else {
            let len = pv_len.clamp(1, m.pv.len());
            let visits = (0..len)
                .map(|i| m.pv_visits.get(i).copied().unwrap_or(0))
                .collect();
            (m.pv[..len].to_vec(), visits)
        };
        MoveView {
            mv: m.mv,
            visits: m.visits,
            winrate: rate(m.winrate),
            score_lead: signed(m.score_lead),
            score_selfplay: signed(m.score_mean),
            score_stdev: m.score_stdev,
            prior: m.prior,
            utility: signed(m.utility),
            lcb: rate(m.lcb),
            utility_lcb: signed(m.utility_lcb()),
            order,
            pv,
            pv_visits,
            is_symmetry_of,
        }
    }
}

/// The root's ownership from `view`'s side, for a search of `board` with
/// `to_move` to play: the search's own; before it has any, the net's view of
/// the root (`net`: its ownership and the side it is from) where the front
/// end has one, else the plain count of the board (each stone and each
/// surrounded area to its owner).
pub fn root_ownership(
    report: &Report,
    board: &Board,
    to_move: Color,
    view: Color,
    net: Option<(&[f32], Color)>,
) -> Vec<f64> {
    let area = board.geometry().area();
    let sign = |c: Color| if c == view { 1.0 } else { -1.0 };
    if report.ownership.len() == area {
        return report
            .ownership
            .iter()
            .map(|&o| sign(to_move) * o)
            .collect();
    }
    if let Some((ownership, side)) = net.filter(|(o, _)| o.len() == area) {
        return seen_by(ownership, side, view);
    }
    let (_, owners) = score::count(board, &[]);
    owners
        .into_iter()
        .map(|(_, owner)| owner.map_or(0.0, sign))
        .collect()
}

/// A net's `ownership`, given from `side`'s point of view, from `view`'s.
pub fn seen_by(ownership: &[f32], side: Color, view: Color) -> Vec<f64> {
    let sign = if side == view { 1.0 } else { -1.0 };
    ownership.iter().map(|&o| sign * f64::from(o)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;

    fn info(pv: Vec<Move>) -> MoveInfo {
        MoveInfo {
            mv: Move::Pass,
            visits: 10,
            winrate: 0.7,
            prior: 0.25,
            lcb: 0.6,
            score_lead: 2.5,
            score_mean: 2.0,
            score_stdev: 9.0,
            utility: 0.3,
            pv_visits: (0..pv.len() as u64).map(|i| 10 - i).collect(),
            pv,
        }
    }

    #[test]
    fn a_view_flips_for_the_other_player_and_keeps_a_line() {
        let v = MoveView::new(&info(Vec::new()), 2, None, true, 15);
        assert!((v.winrate - 0.3).abs() < 1e-12 && (v.lcb - 0.4).abs() < 1e-12);
        assert_eq!(
            (v.score_lead, v.score_selfplay, v.utility),
            (-2.5, -2.0, -0.3)
        );
        assert_eq!(
            (v.pv.clone(), v.pv_visits.clone()),
            (vec![Move::Pass], vec![10])
        );
        let line = vec![Move::Pass; 5];
        let v = MoveView::new(&info(line), 0, None, false, 3);
        assert_eq!((v.pv.len(), v.pv_visits.clone()), (3, vec![10, 9, 8]));
        assert_eq!(v.winrate, 0.7);
    }

    #[test]
    fn ownership_falls_back_to_the_net_then_to_the_board() {
        let g = Geometry::new(3).unwrap();
        let mut board = Board::new(g);
        let corner = g.point(0, 0).unwrap();
        board.play(corner, Color::White);
        let empty = Report::default();
        let counted = root_ownership(&empty, &board, Color::Black, Color::Black, None);
        assert_eq!(counted.len(), 9);
        assert!(
            counted.iter().all(|&o| o == -1.0),
            "White owns all: {counted:?}"
        );
        let net = [0.5f32; 9];
        let from_net = root_ownership(
            &empty,
            &board,
            Color::Black,
            Color::White,
            Some((&net, Color::Black)),
        );
        assert!(from_net.iter().all(|&o| o == -0.5));
        let searched = Report {
            ownership: vec![0.25; 9],
            ..Report::default()
        };
        let own = root_ownership(
            &searched,
            &board,
            Color::Black,
            Color::White,
            Some((&net, Color::Black)),
        );
        assert!(own.iter().all(|&o| o == -0.25));
    }
}
