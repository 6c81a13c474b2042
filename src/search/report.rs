//! What a search reports: the root's figures (weighted as KataGo weighs its
//! root's), each root move's win rate, score, bounds and principal
//! variation, best first, and the moves not visited with their priors.

use super::config::SearchConfig;
use super::puct;
use super::root::Root;
use super::tree::Tree;
use super::tt::{self, point_move, NO_SLOT};
use super::value;
use crate::engine::{MoveInfo, Report};
use crate::go::board::{Color, Move};

/// Moves in a reported principal variation, at most.
pub const MAX_PV: usize = 16;

/// The state of the search at the root. Win rates are the mean winning
/// chances of the results below each node when `exact_winrates` (the
/// network's search), else read back from the blended values
/// ([`value::winrate_of`], as the classical search always has).
pub(super) fn search_report(
    t: &Tree,
    root: &Root,
    cfg: &SearchConfig,
    exact_winrates: bool,
) -> Report {
    let color = root.color;
    let view = Viewpoint {
        color,
        sign: if color == Color::Black { 1.0 } else { -1.0 },
        exact_winrates,
        score_weight: cfg.score_weight,
        lcb_spread: cfg.lcb_spread,
    };
    let sign = view.sign;
    let mut report = Report {
        visits: t.simulations,
        ownership: t.ownership.for_color(&root.board, color),
        ownership_stdev: t.ownership.stdev(&root.board),
        ..Report::default()
    };
    let Some(slot) = t.table.find(root.key, NO_SLOT) else {
        return report;
    };
    let node = t.table.node(slot);
    report.winrate = view.winrate(node.value(), Some(node));
    report.score_lead = sign * node.mean_outcome().lead;
    report.score_mean = sign * node.score();
    report.score_stdev = node.score_stdev();
    report.utility = view.utility(node.value());
    let edges = t.table.edges(slot);
    if exact_winrates {
        if let Some(o) = pruned_root_outcome(t, slot, root, cfg) {
            report.winrate = view.for_color(o.win);
            report.score_lead = sign * o.lead;
            report.score_mean = sign * o.margin;
        }
    }
    let prior_total: f64 = edges
        .iter()
        .map(|e| e.prior_w as f64)
        .sum::<f64>()
        .max(1e-9);
    // Each visited move, its bound, and its weight: its edge's in the
    // network's search (its visits without uncertainty weighting), which
    // orders the moves as PUCT spends weight, not visits (a move whose lines
    // the net is sure of needs fewer); its visits in the classical search.
    let mut moves: Vec<(MoveInfo, f64, f64)> = edges
        .iter()
        .filter(|e| e.visits > 0 && root.searches(e.point))
        .map(|e| {
            let (info, lcb) = move_info(t, view, e, prior_total);
            let weight = if exact_winrates {
                f64::from(e.weight)
            } else {
                e.visits as f64
            };
            (info, lcb, weight)
        })
        .collect();
    if moves.is_empty() {
        // The search ended before a root move was visited (a slow net, a
        // short clock): the policy's favourite, with the root's values.
        let favourite = edges
            .iter()
            .filter(|e| root.searches(e.point))
            .max_by(|a, b| a.prior_w.total_cmp(&b.prior_w));
        if let Some(e) = favourite {
            let prior = e.prior_w as f64 / prior_total;
            let info = MoveInfo::unvisited(point_move(e.point), prior, &report);
            moves.push((info, f64::NEG_INFINITY, 0.0));
        }
    }
    moves.sort_by(|(a, _, wa), (b, _, wb)| {
        wb.total_cmp(wa)
            .then(b.visits.cmp(&a.visits))
            .then(b.winrate.total_cmp(&a.winrate))
    });
    // The network's search plays, as KataGo, the well-weighted move with
    // the best lower confidence bound; it goes first.
    if exact_winrates {
        if let Some(i) = puct::lcb_choice(moves.iter().map(|&(_, lcb, w)| (w, lcb))) {
            moves[..=i].rotate_right(1);
        }
    }
    report.moves = moves.into_iter().map(|(m, _, _)| m).collect();
    report.unvisited = edges
        .iter()
        .filter(|e| e.visits == 0 && root.searches(e.point))
        .map(|e| (point_move(e.point), e.prior_w as f64 / prior_total))
        .filter(|(mv, _)| report.moves.iter().all(|m| m.mv != *mv))
        .collect();
    report.unvisited.sort_by(|a, b| b.1.total_cmp(&a.1));
    report
}

/// How the report shows Black's figures: for the player the search is for,
/// with win rates exact or read back from the blended values.
#[derive(Clone, Copy)]
struct Viewpoint {
    color: Color,
    /// 1 for Black, -1 for White: what Black's scores are multiplied by.
    sign: f64,
    exact_winrates: bool,
    score_weight: f64,
    /// Bounds from the spread about each move's results' own mean
    /// ([`SearchConfig::lcb_spread`]).
    lcb_spread: bool,
}

impl Viewpoint {
    /// Black's win rate as the player sees it.
    fn for_color(self, black_winrate: f64) -> f64 {
        if self.color == Color::Black {
            black_winrate
        } else {
            1.0 - black_winrate
        }
    }

    /// The player's win rate at a node of Black's value `black_q` (`node`:
    /// the node, whose results give the exact one).
    fn winrate(self, black_q: f64, node: Option<&tt::Node>) -> f64 {
        match node {
            Some(n) if self.exact_winrates && n.score_n > 0 => self.for_color(n.win_rate()),
            _ => self.for_color(value::winrate_of(black_q, self.score_weight)),
        }
    }

    /// The player's utility, -1..=1, at Black's value `black_q`.
    fn utility(self, black_q: f64) -> f64 {
        self.sign * (2.0 * black_q - 1.0)
    }
}

/// The visited root edge `e` as a reported move, with the lower bound of its
/// value the network's search chooses by.
fn move_info(t: &Tree, view: Viewpoint, e: &tt::Edge, prior_total: f64) -> (MoveInfo, f64) {
    let n = e.visits as f64;
    let child = t.table.find(e.child_key, e.child_slot);
    let winrate = view.winrate(e.child_q as f64, child.map(|c| t.table.node(c)));
    let (score, lead, stdev) = child.map_or((0.0, 0.0, 0.0), |c| {
        let node = t.table.node(c);
        let lead = node.mean_outcome().lead;
        (
            view.sign * node.score(),
            view.sign * lead,
            node.score_stdev(),
        )
    });
    let mut pv = vec![point_move(e.point)];
    let mut pv_visits = vec![e.visits as u64];
    if let Some(c) = child {
        principal_variation(&t.table, c, &mut pv, &mut pv_visits);
    }
    let variance = child.map_or(0.0, |c| {
        let node = t.table.node(c);
        if view.lcb_spread {
            node.value_variance(t.table.edges(c))
        } else {
            node.value_sq_mean() - node.value() * node.value()
        }
    });
    let mover_q = value::for_mover(e.child_q, view.color) as f64;
    let value_lcb = puct::value_lcb(mover_q, variance, e.visits);
    // The network's search shows the bound it chooses by, moved
    // to the win rate (as KataGo shows it); the classical search
    // a binomial bound of the win rate.
    let lcb = if view.exact_winrates {
        winrate - (mover_q - value_lcb)
    } else {
        winrate - 1.96 * (winrate * (1.0 - winrate) / n).sqrt()
    };
    let info = MoveInfo {
        mv: point_move(e.point),
        visits: e.visits as u64,
        winrate,
        prior: e.prior_w as f64 / prior_total,
        lcb: lcb.max(0.0),
        score_lead: lead,
        score_mean: score,
        score_stdev: stdev,
        utility: view.utility(e.child_q as f64),
        pv,
        pv_visits,
    };
    (info, value_lcb)
}

/// The root's win rate, lead and margin (Black's) as the mean of its
/// children's, each weighted by the visits it keeps in hindsight
/// ([`puct::retrospective_weights`]), as KataGo reports its root: the
/// visits spent exploring poor moves, all poor for the player to move,
/// would otherwise pull every root's figures toward the opponent, and
/// the lead would swing with the side to move from one position to the
/// next. `None` without two visited children to weigh.
fn pruned_root_outcome(
    t: &Tree,
    slot: u32,
    root: &Root,
    cfg: &SearchConfig,
) -> Option<tt::Outcome> {
    let (node, edges) = (t.table.node(slot), t.table.edges(slot));
    let mut weights = Vec::with_capacity(edges.len());
    let allowed = |e: &tt::Edge| root.searches(e.point);
    puct::retrospective_weights(node, edges, root.color, &cfg.puct, allowed, &mut weights);
    let (mut sum, mut weight, mut children) = (tt::Outcome::default(), 0.0, 0);
    for (e, &w) in edges.iter().zip(&weights) {
        let Some(c) = t.table.find(e.child_key, e.child_slot).filter(|_| w > 0.0) else {
            continue;
        };
        let child = t.table.node(c);
        if child.score_n == 0 {
            continue;
        }
        let o = child.mean_outcome();
        sum.win += w * o.win;
        sum.lead += w * o.lead;
        sum.margin += w * o.margin;
        weight += w;
        children += 1;
    }
    (children >= 2 && weight > 0.0).then(|| tt::Outcome {
        win: sum.win / weight,
        lead: sum.lead / weight,
        margin: sum.margin / weight,
        ..sum
    })
}

/// Extends `pv` by following the most visited edges from `slot`, and
/// `visits` by those edges' visits.
fn principal_variation(
    table: &tt::Table,
    mut slot: u32,
    pv: &mut Vec<Move>,
    visits: &mut Vec<u64>,
) {
    while pv.len() < MAX_PV {
        let best = table
            .edges(slot)
            .iter()
            .filter(|e| e.visits > 0)
            .max_by_key(|e| e.visits);
        let Some(e) = best else { break };
        pv.push(point_move(e.point));
        visits.push(e.visits as u64);
        match table.find(e.child_key, e.child_slot) {
            Some(c) if c != slot => slot = c,
            _ => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::root_choices::RootChoices;
    use crate::engine::Limits;
    use crate::go::board::{Color, Geometry, Move, Point};
    use crate::go::game::Game;
    use crate::go::rules::Preset;
    use crate::search::mcts_engine::MctsEngine;
    use crate::search::test_nets::{self, small_network_engine};
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// Excluded root moves keep their share of the policy: a searched move
    /// reports the net's prior whether its symmetric images are searched
    /// too or not (KataGo reports the raw prior), and whether or not the
    /// root was first expanded by a search without exclusions.
    #[test]
    fn excluded_root_moves_leave_the_reported_priors_alone() {
        let Some(net) = test_nets::b6c96() else {
            return;
        };
        let fresh = || small_network_engine(&net);
        let g = Geometry::new(9).unwrap();
        let game = Game::new(g, Preset::Chinese.rules(), 7.0);
        let pruned = RootChoices::new(&game, Color::Black, Vec::new()).excluded();
        assert_eq!(pruned.len(), 81 - 15);
        let limits = Limits {
            playouts: Some(40),
            time: None,
        };
        let never = AtomicBool::new(false);
        let prior_of_centre = |engine: &mut MctsEngine, excluded: &[Point]| {
            let report = engine.analyze_within(
                &game,
                Color::Black,
                limits,
                excluded,
                Duration::MAX,
                &never,
                &mut |_| {},
            );
            let centre = Move::Play(g.point(4, 4).unwrap());
            report
                .moves
                .iter()
                .find(|m| m.mv == centre)
                .map(|m| m.prior)
                .expect("the centre is searched")
        };
        let whole = prior_of_centre(&mut fresh(), &[]);
        let alone = prior_of_centre(&mut fresh(), &pruned);
        let mut shared = fresh();
        prior_of_centre(&mut shared, &[]);
        let after = prior_of_centre(&mut shared, &pruned);
        assert!(whole > 0.1 && whole < 0.5, "{whole}");
        assert!((alone - whole).abs() < 1e-6, "{alone} vs {whole}");
        assert!((after - whole).abs() < 1e-6, "{after} vs {whole}");
    }
}
