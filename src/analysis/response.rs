//! Output lines of the analysis protocol: a search [`Report`] and the
//! network's view of the root turned into KataGo's response object, and the
//! error, warning and `noResults` lines.
//!
//! Values are from the query's `reportAnalysisWinratesAs` point of view and
//! rounded to 8 significant digits, as KataGo rounds them. Fields tengen has
//! no exact figure for are approximated, never invented: `weight`,
//! `edgeWeight` and `playSelectionValue` are the visits (tengen weighs every
//! visit alike), `utilityLcb` is the utility moved by the same margin as
//! `lcb`, `pvVisits` and `pvEdgeVisits` are both the edge visits along the
//! variation, and `thisHash`/`symHash` are tengen's own position hashes
//! (equal positions, and for `symHash` symmetric ones, give equal strings;
//! the values differ from KataGo's).

use super::query::{Fault, Query, Warning};
use crate::engine::{Listed, Report};
use crate::go::board::{Board, Color, Geometry, Move};
use crate::go::vertex::format_move;
use crate::katago::move_view::{root_ownership, seen_by, MoveView};
use crate::nn::NetEval;
use serde::Serialize;
use serde_json::{json, Value};

/// One analysed turn as the worker knows it.
pub struct Turn<'a> {
    pub query: &'a Query,
    pub turn: usize,
    pub board: &'a Board,
    pub to_move: Color,
    /// The main net's evaluation of the root, from `to_move`'s view.
    pub root: Option<&'a NetEval>,
    /// The human-SL net's, when there is one and a profile.
    pub human: Option<&'a NetEval>,
    /// Black's ownership after each move (`includeMovesOwnership`), by point
    /// order.
    pub moves_ownership: &'a [(Move, Vec<f32>)],
    /// [`position_hashes`] of the root.
    pub hashes: (String, String),
    /// The moves to list (the report's, through
    /// [`crate::engine::root_choices::RootChoices::listing`]): each searched
    /// move, then its images under the root's symmetries that are not avoided.
    pub listing: &'a [Listed<'a>],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Analysis {
    id: String,
    turn_number: usize,
    is_during_search: bool,
    move_infos: Vec<MoveInfoJson>,
    root_info: RootInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    ownership: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ownership_stdev: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    policy: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    human_policy: Option<Vec<f64>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MoveInfoJson {
    #[serde(rename = "move")]
    mv: String,
    visits: u64,
    edge_visits: u64,
    weight: f64,
    edge_weight: f64,
    winrate: f64,
    score_mean: f64,
    score_selfplay: f64,
    score_lead: f64,
    score_stdev: f64,
    prior: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    human_prior: Option<f64>,
    utility: f64,
    lcb: f64,
    utility_lcb: f64,
    order: usize,
    play_selection_value: f64,
    pv: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pv_visits: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pv_edge_visits: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ownership: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_symmetry_of: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RootInfo {
    winrate: f64,
    score_lead: f64,
    score_selfplay: f64,
    score_stdev: f64,
    utility: f64,
    visits: u64,
    weight: f64,
    this_hash: String,
    sym_hash: String,
    current_player: &'static str,
    #[serde(flatten)]
    raw: Option<RawInfo>,
    #[serde(flatten)]
    human: Option<HumanInfo>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RawInfo {
    raw_winrate: f64,
    raw_lead: f64,
    raw_score_selfplay: f64,
    raw_score_selfplay_stdev: f64,
    raw_no_result_prob: f64,
    raw_st_wr_error: f64,
    raw_st_score_error: f64,
    raw_var_time_left: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HumanInfo {
    human_winrate: f64,
    human_score_mean: f64,
    human_score_stdev: f64,
    human_st_wr_error: f64,
    human_st_score_error: f64,
}

/// `x` to 8 significant digits; 0 for what is not a finite number (JSON has
/// no NaN).
pub fn round8(x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    format!("{x:.7e}").parse().unwrap_or(x)
}

/// The response for `report` on `t`.
pub fn analysis(t: &Turn, report: &Report, during_search: bool) -> Value {
    let q = t.query;
    let geometry = t.board.geometry();
    let view = q.settings.perspective.color(t.to_move);
    let flip = view != t.to_move;
    let sign = if flip { -1.0 } else { 1.0 };
    let rate = |w: f64| round8(if flip { 1.0 - w } else { w });
    let signed = |v: f64| round8(sign * v);
    let human_prior = |mv: Move| {
        t.human.map(|h| {
            let p = match mv {
                Move::Pass => h.pass_policy,
                Move::Play(p) => h
                    .policy
                    .get(p.y() * geometry.width() + p.x())
                    .copied()
                    .unwrap_or(0.0),
            };
            round8(f64::from(p).max(0.0))
        })
    };
    let moves_ownership = |mv: Move| {
        if !q.include_moves_ownership {
            return None;
        }
        let black = t.moves_ownership.iter().find(|(m, _)| *m == mv)?;
        Some(
            seen_by(&black.1, Color::Black, view)
                .into_iter()
                .map(round8)
                .collect(),
        )
    };
    let move_infos = t
        .listing
        .iter()
        .enumerate()
        .map(|(order, listed)| {
            let view = MoveView::new(&listed.info, order, listed.symmetry_of, flip, q.pv_len);
            move_info(&view, q, geometry, &human_prior, &moves_ownership)
        })
        .collect();
    let root_info = RootInfo {
        winrate: rate(report.winrate),
        score_lead: signed(report.score_lead),
        score_selfplay: signed(report.score_mean),
        score_stdev: round8(report.score_stdev),
        utility: signed(report.utility),
        visits: report.visits,
        weight: report.visits as f64,
        this_hash: t.hashes.0.clone(),
        sym_hash: t.hashes.1.clone(),
        current_player: if t.to_move == Color::Black { "B" } else { "W" },
        raw: t.root.map(|e| raw_info(&e.to_view(view))),
        human: t.human.map(|e| human_info(&e.to_view(view))),
    };
    let ownership = q.include_ownership.then(|| {
        let net = t.root.map(|e| (&e.ownership[..], e.view));
        root_ownership(report, t.board, t.to_move, view, net)
            .into_iter()
            .map(round8)
            .collect()
    });
    let ownership_stdev = q.include_ownership_stdev.then(|| {
        let area = t.board.geometry().area();
        if report.ownership_stdev.len() == area {
            report.ownership_stdev.iter().map(|&s| round8(s)).collect()
        } else {
            vec![0.0; area]
        }
    });
    let policy = |e: &NetEval| -> Vec<f64> { e.listed_policy().map(round8).collect() };
    let out = Analysis {
        id: q.id.clone(),
        turn_number: t.turn,
        is_during_search: during_search,
        move_infos,
        root_info,
        ownership,
        ownership_stdev,
        policy: if q.include_policy {
            t.root.map(policy)
        } else {
            None
        },
        human_policy: if q.include_policy {
            t.human.map(policy)
        } else {
            None
        },
    };
    object_or_error(&out, &q.id, t.turn)
}

/// `value` as a JSON object; should it not serialise as one (a bug), an
/// error object under the query's `id` and turn instead, so that every line
/// a client reads is an object it can match to its query.
fn object_or_error(value: &impl Serialize, id: &str, turn: usize) -> Value {
    match serde_json::to_value(value) {
        Ok(object @ Value::Object(_)) => object,
        Ok(other) => internal_error(id, turn, &format!("not an object: {other}")),
        Err(e) => internal_error(id, turn, &e.to_string()),
    }
}

fn internal_error(id: &str, turn: usize, why: &str) -> Value {
    crate::log_line!("tengen analysis: cannot write the analysis of turn {turn}: {why}");
    json!({
        "id": id,
        "turnNumber": turn,
        "error": format!("internal error while writing the analysis of turn {turn}"),
    })
}

fn move_info(
    m: &MoveView,
    q: &Query,
    geometry: Geometry,
    human_prior: &dyn Fn(Move) -> Option<f64>,
    moves_ownership: &dyn Fn(Move) -> Option<Vec<f64>>,
) -> MoveInfoJson {
    let pv_visits = q.include_pv_visits.then(|| m.pv_visits.clone());
    MoveInfoJson {
        mv: format_move(m.mv, geometry),
        visits: m.visits,
        edge_visits: m.visits,
        weight: m.visits as f64,
        edge_weight: m.visits as f64,
        winrate: round8(m.winrate),
        score_mean: round8(m.score_lead),
        score_selfplay: round8(m.score_selfplay),
        score_lead: round8(m.score_lead),
        score_stdev: round8(m.score_stdev),
        prior: round8(m.prior),
        human_prior: human_prior(m.mv),
        utility: round8(m.utility),
        lcb: round8(m.lcb),
        utility_lcb: round8(m.utility_lcb),
        order: m.order,
        play_selection_value: m.visits as f64,
        pv: m.pv.iter().map(|&mv| format_move(mv, geometry)).collect(),
        pv_edge_visits: pv_visits.clone(),
        pv_visits,
        ownership: moves_ownership(m.mv),
        is_symmetry_of: m.is_symmetry_of.map(|mv| format_move(mv, geometry)),
    }
}

fn raw_info(e: &NetEval) -> RawInfo {
    let mean = f64::from(e.score_mean);
    RawInfo {
        raw_winrate: round8(0.5 + 0.5 * f64::from(e.win - e.loss)),
        raw_lead: round8(f64::from(e.lead)),
        raw_score_selfplay: round8(mean),
        raw_score_selfplay_stdev: round8(
            (f64::from(e.score_mean_sq) - mean * mean).max(0.0).sqrt(),
        ),
        raw_no_result_prob: round8(f64::from(e.no_result)),
        raw_st_wr_error: round8(0.5 * f64::from(e.shortterm_winloss_error)),
        raw_st_score_error: round8(f64::from(e.shortterm_score_error)),
        raw_var_time_left: round8(f64::from(e.var_time_left)),
    }
}

fn human_info(e: &NetEval) -> HumanInfo {
    let mean = f64::from(e.score_mean);
    HumanInfo {
        human_winrate: round8(0.5 + 0.5 * f64::from(e.win - e.loss)),
        human_score_mean: round8(mean),
        human_score_stdev: round8((f64::from(e.score_mean_sq) - mean * mean).max(0.0).sqrt()),
        human_st_wr_error: round8(0.5 * f64::from(e.shortterm_winloss_error)),
        human_st_score_error: round8(f64::from(e.shortterm_score_error)),
    }
}

/// `{"id","isDuringSearch":false,"noResults":true,"turnNumber"}`: a turn
/// terminated before its search began.
pub fn no_results(id: &str, turn: usize) -> Value {
    json!({"id": id, "isDuringSearch": false, "noResults": true, "turnNumber": turn})
}

pub fn error(f: &Fault) -> Value {
    let mut v = json!({"error": f.message});
    if let (Some(id), Value::Object(o)) = (&f.id, &mut v) {
        o.insert("id".into(), Value::String(id.clone()));
        if let Some(field) = &f.field {
            o.insert("field".into(), Value::String(field.clone()));
        }
    }
    v
}

pub fn warning(w: &Warning) -> Value {
    json!({"id": w.id, "field": w.field, "warning": w.message})
}

/// `thisHash` and `symHash` of `board` with `to_move` to play: tengen's
/// Zobrist hash of the stones, the simple-ko point and the player, as 32 hex
/// digits; `symHash` the least over the eight symmetries of the board.
pub fn position_hashes(board: &Board, to_move: Color) -> (String, String) {
    let g = board.geometry();
    let (w, ht) = (g.width(), g.height());
    let ko = board.ko().map(|(p, _)| (p.x(), p.y()));
    let mut least = u64::MAX;
    let mut this = 0;
    for symmetry in 0..8u8 {
        let map = |x: usize, y: usize| {
            let (y, x) = crate::nn::symmetry::map(symmetry, w, ht, y, x);
            (x, y)
        };
        // A transposing symmetry turns a rectangle a quarter, as KataGo's
        // getSymBoard does; the shape enters the hash so that a 19x13 board
        // and its turned 13x19 twin hash apart.
        let sym_g = if crate::nn::symmetry::is_transpose(symmetry) {
            g.transposed()
        } else {
            g
        };
        let mut h = mix(0x737a_0000_0000_0000 ^ (sym_g.width() * 32 + sym_g.height()) as u64);
        let mut sym_board = Board::new(sym_g);
        for p in g.points() {
            if let Some(c) = board.at(p).color() {
                let (x, y) = map(p.x(), p.y());
                if let Some(q) = sym_g.point(x, y) {
                    sym_board.set_stone(q, Some(c));
                }
            }
        }
        h ^= sym_board.hash();
        if let Some((x, y)) = ko {
            let (x, y) = map(x, y);
            h ^= mix(0x6b6f_0000_0000_0000 ^ (x * 32 + y) as u64);
        }
        if to_move == Color::White {
            h ^= mix(0x7768_6974_6500_0000);
        }
        if symmetry == 0 {
            this = h;
        }
        least = least.min(h);
    }
    let hex = |h: u64| format!("{:016X}{:016X}", mix(h), mix(!h));
    (hex(this), hex(least))
}

/// SplitMix64's finaliser: spreads `x` over 64 bits.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_eight_digits_and_drops_non_numbers() {
        assert_eq!(round8(0.123_456_789_123), 0.123_456_79);
        assert_eq!(round8(-1_234.567_890_1), -1_234.567_9);
        assert_eq!(round8(f64::NAN), 0.0);
        assert_eq!(round8(f64::INFINITY), 0.0);
    }

    /// What cannot serialise, or not as an object, still answers its query
    /// with an object carrying the query's id and turn.
    #[test]
    fn every_answer_is_an_object_with_its_id() {
        struct Unserialisable;
        impl Serialize for Unserialisable {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        for answer in [
            object_or_error(&Unserialisable, "q7", 3),
            object_or_error(&f64::NAN, "q7", 3),
        ] {
            assert_eq!(answer["id"], "q7", "{answer}");
            assert_eq!(answer["turnNumber"], 3, "{answer}");
            assert!(answer["error"].is_string(), "{answer}");
        }
        let fine = object_or_error(&json!({"id": "q7", "x": 1}), "q7", 3);
        assert_eq!(fine, json!({"id": "q7", "x": 1}));
    }

    #[test]
    fn symmetric_positions_share_sym_hash_only() {
        let g = Geometry::new(9).unwrap();
        let mut a = Board::new(g);
        a.set_stone(g.point(2, 2).unwrap(), Some(Color::Black));
        let mut b = Board::new(g);
        b.set_stone(g.point(6, 2).unwrap(), Some(Color::Black));
        let (ha, sa) = position_hashes(&a, Color::White);
        let (hb, sb) = position_hashes(&b, Color::White);
        assert_ne!(ha, hb);
        assert_eq!(sa, sb);
        assert_eq!(ha.len(), 32);
        assert_ne!(position_hashes(&a, Color::Black).0, ha);
    }

    #[test]
    fn error_lines_have_katago_shapes() {
        let f = Fault {
            id: Some("q".into()),
            field: Some("moves".into()),
            message: "Illegal move 1: E5".into(),
        };
        assert_eq!(
            error(&f).to_string(),
            r#"{"error":"Illegal move 1: E5","field":"moves","id":"q"}"#
        );
        let general = Fault {
            id: None,
            field: None,
            message: "x".into(),
        };
        assert_eq!(error(&general).to_string(), r#"{"error":"x"}"#);
        assert_eq!(
            no_results("q", 3).to_string(),
            r#"{"id":"q","isDuringSearch":false,"noResults":true,"turnNumber":3}"#
        );
    }
}
