//! Playing below full strength: a rank from 20 kyu to 9 dan, and the move
//! choice KaTrain's "calibrated rank" bot makes for it from the net's policy
//! (fitted by KaTrain's authors against GNU Go and Pachi on KGS-rated games).
//!
//! For a rank, `n` of the `L` moves with a positive policy are drawn
//! uniformly without replacement, and the one of them the policy likes best
//! is played; `n` grows with the rank and with the share of the board still
//! open ([`moves_considered`]). The policy's top move is played instead when
//! the position leaves no real choice ([`plays_top_move`]), or when the draw's
//! best is less likely than passing. At the dan ranks the search, not the
//! policy, chooses among the `n` ([`search_chooses`]): the policy alone is
//! no stronger than the net. The search still decides passing, resigning
//! and the clean-up; a level only replaces the board move it chose.

use super::classical::playout::PlayoutRng;
use crate::go::board::Move;

/// The level a rank is asked for by, where the engine contract keeps it.
pub use crate::engine::level::Level;

/// `kyu` considers on a board of `points` points (KaTrain's fit).
pub fn moves_considered(kyu: f64, points: usize, legal: usize) -> usize {
    let n = points as f64;
    let share = legal as f64 / n;
    let orig = 0.063015 + 0.7624 * n / 10f64.powf(-0.05737 * kyu + 1.9482);
    let bump = (3.002 * share * share - share - 0.034889 * kyu - 0.5097).powi(2);
    let modified = (0.3931 + 0.6559 * share * (-bump).exp() - 0.01093 * kyu) * orig;
    let considered = (n * share / (1.31165 * (modified + 1.0) - 0.082653)).round();
    if considered.is_finite() && considered >= 1.0 {
        considered as usize
    } else {
        1
    }
}

/// Whether the policy's top move is played outright: passing is among the
/// five likeliest moves, or the top move is clear enough (more than
/// `0.8 (1 - share of the board filled / 2)`), or the top two together are
/// (more than 0.85, more for ranks weaker than 8k). `sorted` holds the
/// policy's probabilities, likeliest first, pass included.
pub fn plays_top_move(kyu: f64, points: usize, legal: usize, sorted: &[(Move, f32)]) -> bool {
    let filled = points.saturating_sub(legal) as f64 / points as f64;
    let p = |i: usize| sorted.get(i).map_or(0.0, |&(_, p)| p as f64);
    sorted.iter().take(5).any(|&(m, _)| m == Move::Pass)
        || p(0) > 0.8 * (1.0 - 0.5 * filled)
        || p(0) + p(1) > 0.85 + (0.02 * (kyu - 8.0)).max(0.0)
}

/// Whether the search, rather than the policy, chooses among the moves a
/// rank considers: the dan ranks. KaTrain's pick is no stronger than the
/// net's raw policy, which a small net reaches at about the amateur 1 dan
/// of its fit; above it the levels would crowd under that ceiling.
pub fn search_chooses(kyu: f64) -> bool {
    kyu <= 0.0
}

/// The move a player of rank `kyu` plays, given the net's policy over the
/// legal moves (`policy`, pass included; sorted in place, likeliest first)
/// on a board of `points` points, and the search's visits to the root's
/// moves (`visits`; read at the dan ranks only, see [`search_chooses`]).
/// A board move, unless passing is the policy's only choice.
///
/// `n` of the board moves are drawn ([`moves_considered`]); at a kyu rank
/// the policy's likeliest of them is played, at a dan rank the search's most
/// visited (the policy's likeliest when it visited none; the policy breaks
/// ties between equally visited moves). The top move, the
/// policy's or at a dan rank the search's most visited, is played outright
/// when [`plays_top_move`] says so, or when the policy's choice is less
/// likely than passing.
pub fn pick(
    kyu: f64,
    points: usize,
    policy: &mut [(Move, f32)],
    visits: &[(Move, u64)],
    rng: &mut PlayoutRng,
) -> Move {
    policy.sort_by(|a, b| b.1.total_cmp(&a.1));
    let pass_prob = policy
        .iter()
        .find(|&&(m, _)| m == Move::Pass)
        .map_or(0.0, |&(_, p)| p);
    let candidates = || policy.iter().filter(|&&(m, p)| m != Move::Pass && p > 0.0);
    let board_moves = candidates().count();
    let searched = search_chooses(kyu);
    let visits_of = |mv: Move| {
        visits
            .iter()
            .find(|&&(m, _)| m == mv)
            .map_or(0, |&(_, v)| v)
    };
    let top_by_policy = policy
        .iter()
        .find(|&&(m, _)| m != Move::Pass)
        .map(|&(m, _)| m);
    let Some(top_by_policy) = top_by_policy else {
        return Move::Pass;
    };
    let top = || {
        if !searched {
            return top_by_policy;
        }
        candidates()
            .fold(None, |best, &(m, _)| more_visited(best, m, visits_of(m)))
            .map_or(top_by_policy, |(m, _)| m)
    };
    if plays_top_move(kyu, points, board_moves, policy) {
        return top();
    }
    let n = moves_considered(kyu, points, board_moves).min(board_moves);
    // The n moves are a uniform n-subset of the board moves, taken in the
    // policy's order by selection sampling (Knuth's algorithm S: each in turn
    // with probability (moves wanted) / (moves left)). The policy's likeliest
    // of them is the first taken; the search's most visited needs them all.
    let mut wanted = n;
    let mut first: Option<(Move, f32)> = None;
    let mut most_visited: Option<(Move, u64)> = None;
    for (&(mv, p), left) in candidates().zip((1..=board_moves).rev()) {
        if wanted == 0 {
            break;
        }
        if rng.below(left) >= wanted {
            continue;
        }
        wanted -= 1;
        first.get_or_insert((mv, p));
        if !searched {
            break;
        }
        most_visited = more_visited(most_visited, mv, visits_of(mv));
    }
    match (most_visited, first) {
        (Some((mv, _)), _) => mv,
        (None, Some((mv, p))) if p >= pass_prob => mv,
        _ => top(),
    }
}

/// `best`, or `mv` with its `visits` if the search visited it, and more
/// than `best`: taken over moves in the policy's order, the policy breaks
/// ties.
fn more_visited(best: Option<(Move, u64)>, mv: Move, visits: u64) -> Option<(Move, u64)> {
    if visits > 0 && best.is_none_or(|(_, most)| visits > most) {
        Some((mv, visits))
    } else {
        best
    }
}
