//! The analysis commands' arguments and output lines: `lz-analyze` (Leela Zero
//! format, integer win rates 0..10000) and `kata-analyze` (KataGo format,
//! floats that always have a decimal point), shared/docs/gtp-clients.md §5.
//!
//! One call of [`info_line`] turns an engine [`Report`] into one output line:
//! `info move D4 visits … pv D4 Q16 info move …`, `pv` last in every block so
//! that Sabaki's parser (§5.3) reads it. Streaming and interruption are the
//! session's business (`gtp/mod.rs`).

use super::protocol::GtpError;
use crate::engine::root_choices::RootChoices;
use crate::engine::{excluded_points, MoveInfo, MoveRestriction, Report};
use crate::go::board::{Color, Geometry, Point};
use crate::go::game::Game;
use crate::go::vertex::{format_move, parse_color};
use crate::katago::move_view::{root_ownership, MoveView};
use crate::katago::moves::{self, depth_ok, parse_location};
use std::fmt::Write;
use std::time::Duration;

/// Which output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Leela Zero: `winrate`, `prior`, `lcb` as integers 0..10000.
    Lz,
    /// KataGo: floats with six decimals, plus `scoreLead`, `rootInfo`, `ownership`.
    Kata,
}

/// Parsed arguments of `lz-analyze`, `kata-analyze` and the genmove variants:
/// `[color] [interval] [interval N] [minmoves N] [maxmoves N] [avoid …] [allow …]`
/// and, for kata, `rootInfo|ownership|… true|false`.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzeArgs {
    pub color: Option<Color>,
    /// Time between two `info` lines; `None` (interval 0) prints none until the end.
    pub interval: Option<Duration>,
    /// `minmoves`: list at least this many moves, those the search has not
    /// visited after the visited ones by policy (as KataGo).
    pub min_moves: usize,
    pub max_moves: Option<usize>,
    /// `avoid`/`allow`: what the search may begin with (its root only).
    pub restrictions: Vec<MoveRestriction>,
    pub root_info: bool,
    pub ownership: bool,
    /// `ownershipStdev true`: each point's spread over the search.
    pub ownership_stdev: bool,
    /// `pvVisits true` / `pvEdgeVisits true`: visits along each variation
    /// (tengen counts edge visits only, so both print those).
    pub pv_visits: bool,
    pub pv_edge_visits: bool,
    /// `humanPolicy true` (a tengen extension): the human-SL net's policy for
    /// the analysed position, printed last on every line.
    pub human_policy_asked: bool,
    /// That policy, row by row from the top-left, pass last, -1 where the
    /// move is illegal: filled in by the session before the search.
    pub human_policy: Vec<f64>,
}

/// Default time between two `info` lines when the client names none.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

impl AnalyzeArgs {
    /// # Errors
    /// `syntax error` for anything it does not understand.
    pub fn parse(
        args: &[String],
        flavor: Flavor,
        geometry: Geometry,
    ) -> Result<AnalyzeArgs, GtpError> {
        let mut a = AnalyzeArgs {
            color: None,
            interval: Some(DEFAULT_INTERVAL),
            min_moves: 0,
            max_moves: None,
            restrictions: Vec::new(),
            root_info: false,
            ownership: false,
            ownership_stdev: false,
            pv_visits: false,
            pv_edge_visits: false,
            human_policy_asked: false,
            human_policy: Vec::new(),
        };
        let mut i = 0;
        if let Some(c) = args.first().and_then(|t| parse_color(t)) {
            a.color = Some(c);
            i = 1;
        }
        let centis = |t: &str| -> Result<Option<Duration>, GtpError> {
            let v: f64 = t.parse().map_err(|_| GtpError::syntax())?;
            if !v.is_finite() || v < 0.0 {
                return Err(GtpError::syntax());
            }
            Ok((v > 0.0).then(|| crate::time::duration(v / 100.0)))
        };
        if let Some(t) = args.get(i) {
            if t.parse::<f64>().is_ok() {
                a.interval = centis(t)?;
                i += 1;
            }
        }
        let value = |j: usize| args.get(j).map(String::as_str).ok_or_else(GtpError::syntax);
        while i < args.len() {
            let key = args[i].to_ascii_lowercase();
            match key.as_str() {
                "interval" => {
                    a.interval = centis(value(i + 1)?)?;
                    i += 2;
                }
                "minmoves" | "maxmoves" => {
                    let n: usize = value(i + 1)?.parse().map_err(|_| GtpError::syntax())?;
                    if key == "maxmoves" {
                        a.max_moves = Some(n);
                    } else {
                        a.min_moves = n;
                    }
                    i += 2;
                }
                "avoid" | "allow" => {
                    let player = parse_color(value(i + 1)?).ok_or_else(GtpError::syntax)?;
                    let moves = value(i + 2)?
                        .split(',')
                        .filter(|v| !v.is_empty())
                        .map(|v| parse_location(v, geometry))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(GtpError::syntax)?;
                    let depth: i64 = value(i + 3)?.parse().map_err(|_| GtpError::syntax())?;
                    if !depth_ok(depth) {
                        return Err(GtpError::syntax());
                    }
                    let restriction = MoveRestriction {
                        player,
                        moves,
                        allow: key == "allow",
                    };
                    moves::add(&mut a.restrictions, restriction).map_err(|_| GtpError::syntax())?;
                    i += 4;
                }
                "rootinfo"
                | "ownership"
                | "ownershipstdev"
                | "movesownership"
                | "movesownershipstdev"
                | "pvvisits"
                | "pvedgevisits"
                | "noresultvalue"
                | "humanpolicy"
                    if flavor == Flavor::Kata =>
                {
                    let on = match value(i + 1)?.to_ascii_lowercase().as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err(GtpError::syntax()),
                    };
                    // `movesOwnership*` and `noResultValue` are accepted and
                    // ignored: tengen's GTP search has no such figures.
                    // Sabaki asks for none of the fields printed after `pv`.
                    match key.as_str() {
                        "rootinfo" => a.root_info = on,
                        "ownership" => a.ownership = on,
                        "ownershipstdev" => a.ownership_stdev = on,
                        "pvvisits" => a.pv_visits = on,
                        "pvedgevisits" => a.pv_edge_visits = on,
                        "humanpolicy" => a.human_policy_asked = on,
                        _ => {}
                    }
                    i += 2;
                }
                _ => return Err(GtpError::syntax()),
            }
        }
        Ok(a)
    }

    /// The board points the search for `color` may not begin with.
    pub fn excluded(&self, color: Color, geometry: Geometry) -> Vec<Point> {
        excluded_points(&self.restrictions, color, geometry)
    }
}

fn fraction_int(v: f64) -> i64 {
    (v.clamp(0.0, 1.0) * 10000.0) as i64
}

/// One move's block (kata prints `isSymmetryOf`, as KataGo).
fn write_move(
    out: &mut String,
    m: &MoveView,
    args: &AnalyzeArgs,
    flavor: Flavor,
    geometry: Geometry,
) {
    let mv = format_move(m.mv, geometry);
    let _ = write!(out, "info move {mv} visits {}", m.visits);
    match flavor {
        Flavor::Lz => {
            let _ = write!(
                out,
                " winrate {} prior {} lcb {}",
                fraction_int(m.winrate),
                fraction_int(m.prior),
                fraction_int(m.lcb)
            );
        }
        Flavor::Kata => {
            // KataGo's fields in KataGo's order; `scoreMean` is the lead, as
            // KataGo reports it for older tools, the mean is `scoreSelfplay`.
            let _ = write!(
                out,
                " edgeVisits {} utility {:.6} winrate {:.6} scoreMean {:.6} scoreStdev {:.6} scoreLead {:.6} \
                 scoreSelfplay {:.6} prior {:.6} lcb {:.6} utilityLcb {:.6} weight {:.6}",
                m.visits,
                m.utility,
                m.winrate,
                m.score_lead,
                m.score_stdev,
                m.score_lead,
                m.score_selfplay,
                m.prior,
                m.lcb,
                m.utility_lcb,
                m.visits as f64,
            );
            if let Some(of) = m.is_symmetry_of {
                let _ = write!(out, " isSymmetryOf {}", format_move(of, geometry));
            }
        }
    }
    let _ = write!(out, " order {} pv", m.order);
    for &p in &m.pv {
        let _ = write!(out, " {}", format_move(p, geometry));
    }
    for (asked, key) in [
        (args.pv_visits, "pvVisits"),
        (args.pv_edge_visits, "pvEdgeVisits"),
    ] {
        if asked {
            let _ = write!(out, " {key}");
            for v in &m.pv_visits {
                let _ = write!(out, " {v}");
            }
        }
    }
}

/// One output line for `report`, analysed for `color` in `game` with the
/// root's `choices` (each searched move is followed by its symmetric
/// copies, as KataGo lists them); `None` when there is nothing to print.
pub fn info_line(
    report: &Report,
    color: Color,
    args: &AnalyzeArgs,
    flavor: Flavor,
    game: &Game,
    choices: &RootChoices,
) -> Option<String> {
    let geometry = game.board().geometry();
    let mut out = String::new();
    let padded;
    let mut listing = choices.listing(&report.moves);
    if listing.len() < args.min_moves {
        padded = padded_with_unvisited(report, args.min_moves - listing.len());
        listing = choices.listing(&padded);
        listing.truncate(args.min_moves);
    }
    let moves = listing.iter().take(args.max_moves.unwrap_or(usize::MAX));
    for (order, listed) in moves.enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        let view = MoveView::new(&listed.info, order, listed.symmetry_of, false, usize::MAX);
        write_move(&mut out, &view, args, flavor, geometry);
    }
    if flavor == Flavor::Kata && args.root_info {
        if !out.is_empty() {
            out.push(' ');
        }
        // KataGo's fields (`scoreMean` the lead, as for the moves), then the
        // player the values are for.
        let _ = write!(
            out,
            "rootInfo visits {} utility {:.6} winrate {:.6} scoreMean {:.6} scoreStdev {:.6} scoreLead {:.6} \
             scoreSelfplay {:.6} weight {:.6} currentPlayer {}",
            report.visits,
            report.utility,
            report.winrate,
            report.score_lead,
            report.score_stdev,
            report.score_lead,
            report.score_mean,
            report.visits as f64,
            color.letter()
        );
    }
    if flavor == Flavor::Kata && args.ownership {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str("ownership");
        for v in root_ownership(report, game.board(), color, color, None) {
            let _ = write!(out, " {v:.6}");
        }
    }
    if flavor == Flavor::Kata && args.ownership_stdev {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str("ownershipStdev");
        let area = game.board().geometry().area();
        // A count of the board (no engine figures) has no spread.
        let stdev = Some(&report.ownership_stdev).filter(|s| s.len() == area);
        for i in 0..area {
            let v = stdev.map_or(0.0, |s| s[i]);
            let _ = write!(out, " {v:.6}");
        }
    }
    if flavor == Flavor::Kata && !args.human_policy.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str("humanPolicy");
        for v in &args.human_policy {
            let _ = write!(out, " {v:.6}");
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The report's moves followed by up to `wanted` moves the search has not
/// visited, by policy ([`MoveInfo::unvisited`]).
fn padded_with_unvisited(report: &Report, wanted: usize) -> Vec<MoveInfo> {
    let unvisited = report
        .unvisited
        .iter()
        .take(wanted)
        .map(|&(mv, prior)| MoveInfo::unvisited(mv, prior, report));
    report.moves.iter().cloned().chain(unvisited).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Move;
    use crate::go::rules::Rules;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn report(game: &Game) -> Report {
        let g = game.board().geometry();
        let p = |x, y| Move::Play(g.point(x, y).unwrap());
        let info = |mv, w: f64| MoveInfo {
            mv,
            visits: 10,
            winrate: w,
            prior: 0.25,
            lcb: w - 0.1,
            score_lead: 1.5,
            score_mean: 1.25,
            score_stdev: 12.0,
            utility: 0.2,
            pv: vec![mv, p(2, 2), Move::Pass],
            pv_visits: vec![10, 5, 2],
        };
        Report {
            moves: vec![info(p(3, 5), 0.56789), info(Move::Pass, 1.0)],
            visits: 20,
            winrate: 0.5,
            score_lead: 0.0,
            score_mean: 0.0,
            score_stdev: 0.0,
            utility: 0.0,
            ownership: Vec::new(),
            ownership_stdev: Vec::new(),
            unvisited: vec![(p(4, 4), 0.125), (p(2, 6), 0.0625), (p(6, 2), 0.03125)],
        }
    }

    #[test]
    fn parses_sabaki_and_katago_syntax() {
        let g = Geometry::new(19).unwrap();
        let a = AnalyzeArgs::parse(&args("B 50"), Flavor::Lz, g).unwrap();
        assert_eq!(a.color, Some(Color::Black));
        assert_eq!(a.interval, Some(Duration::from_millis(500)));
        let a = AnalyzeArgs::parse(
            &args(
                "w interval 10 minmoves 7 maxmoves 3 avoid b d4,q16 1 ownership true rootInfo true",
            ),
            Flavor::Kata,
            g,
        )
        .unwrap();
        assert_eq!((a.min_moves, a.max_moves), (7, Some(3)));
        assert!(a.ownership && a.root_info);
        let d4 = g.point(3, 15).unwrap();
        let q16 = g.point(15, 3).unwrap();
        assert_eq!(
            a.restrictions,
            vec![MoveRestriction {
                player: Color::Black,
                moves: vec![Move::Play(d4), Move::Play(q16)],
                allow: false,
            }]
        );
        assert_eq!(a.excluded(Color::Black, g), vec![d4, q16]);
        assert!(a.excluded(Color::White, g).is_empty());
        let a = AnalyzeArgs::parse(&args("b 10 allow w d4,pass 3 avoid b d4 1"), Flavor::Lz, g)
            .unwrap();
        let white = a.excluded(Color::White, g);
        assert_eq!(white.len(), 360);
        assert!(!white.contains(&d4));
        assert_eq!(a.excluded(Color::Black, g), vec![d4]);
        assert_eq!(
            AnalyzeArgs::parse(&args("0"), Flavor::Lz, g)
                .unwrap()
                .interval,
            None
        );
        for bad in [
            "b x",
            "ownership true",
            "b 50 avoid b d4",
            "b 50 avoid b d4 0",
            "b 50 avoid b z99 1",
            // KataGo's rule: for one player, avoid lists or one allow list.
            "b 50 avoid b d4 1 allow b q16 1",
            "b 50 allow b d4 1 avoid b q16 1",
            "b 50 allow w d4 1 allow w q16 1",
            "interval -1",
            "b 50 maxmoves x",
            "b 50 minmoves -1",
        ] {
            assert!(
                AnalyzeArgs::parse(&args(bad), Flavor::Lz, g).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn formats_with_pv_last() {
        let game = Game::new(Geometry::new(9).unwrap(), Rules::default(), 7.0);
        let r = report(&game);
        let a = AnalyzeArgs::parse(&[], Flavor::Lz, game.board().geometry()).unwrap();
        let all = RootChoices::default();
        assert_eq!(
            info_line(&r, Color::Black, &a, Flavor::Lz, &game, &all).unwrap(),
            "info move D4 visits 10 winrate 5678 prior 2500 lcb 4678 order 0 pv D4 C7 pass \
             info move pass visits 10 winrate 10000 prior 2500 lcb 9000 order 1 pv pass C7 pass"
        );
        let k = info_line(&r, Color::Black, &a, Flavor::Kata, &game, &all).unwrap();
        assert!(
            k.starts_with(
                "info move D4 visits 10 edgeVisits 10 utility 0.200000 winrate 0.567890 \
                 scoreMean 1.500000 scoreStdev 12.000000 scoreLead 1.500000 scoreSelfplay 1.250000 \
                 prior 0.250000 lcb 0.467890 utilityLcb 0.000000 weight 10.000000 order 0 pv D4 C7 pass info"
            ),
            "{k}"
        );
        assert!(k.contains("winrate 1.000000"), "{k}");
        let mut a2 = a.clone();
        a2.ownership = true;
        a2.root_info = true;
        a2.max_moves = Some(1);
        let k = info_line(&r, Color::White, &a2, Flavor::Kata, &game, &all).unwrap();
        assert_eq!(k.matches("info move").count(), 1);
        assert!(k.contains(" rootInfo visits 20 "));
        assert!(
            k.contains(" scoreSelfplay 0.000000 weight 20.000000 currentPlayer W"),
            "{k}"
        );
        let own = k.split(" ownership ").nth(1).unwrap();
        assert_eq!(own.split(' ').count(), 81);
        let asked = AnalyzeArgs::parse(
            &args("b pvVisits true pvEdgeVisits true ownershipStdev true movesOwnership true"),
            Flavor::Kata,
            game.board().geometry(),
        )
        .unwrap();
        let k = info_line(&r, Color::Black, &asked, Flavor::Kata, &game, &all).unwrap();
        assert!(
            k.contains(" pv D4 C7 pass pvVisits 10 5 2 pvEdgeVisits 10 5 2 info move pass"),
            "{k}"
        );
        let (_, spread) = k.split_once(" ownershipStdev ").unwrap();
        assert_eq!(spread.split(' ').count(), 81, "{spread}");
    }

    /// `minmoves` lists moves the search has not visited after the visited
    /// ones, by policy, with no visits and the root's values, up to the
    /// number asked; `maxmoves` still cuts the line; the images of a listed
    /// move count on a symmetric position.
    #[test]
    fn minmoves_fills_from_the_policy() {
        let game = Game::new(Geometry::new(9).unwrap(), Rules::default(), 7.0);
        let r = report(&game);
        let all = RootChoices::default();
        let g = game.board().geometry();
        let line = |s: &str, choices: &RootChoices| {
            let a = AnalyzeArgs::parse(&args(s), Flavor::Lz, g).unwrap();
            info_line(&r, Color::Black, &a, Flavor::Lz, &game, choices).unwrap()
        };
        let moves = |line: &str| -> Vec<String> {
            line.split("info move ")
                .skip(1)
                .map(|b| b.split(' ').next().unwrap().to_string())
                .collect()
        };
        assert_eq!(moves(&line("b minmoves 2", &all)), ["D4", "pass"]);
        let four = line("b minmoves 4", &all);
        assert_eq!(moves(&four), ["D4", "pass", "E5", "C3"], "{four}");
        assert!(
            four.ends_with(
                " info move E5 visits 0 winrate 5000 prior 1250 lcb 0 order 2 pv E5 \
                 info move C3 visits 0 winrate 5000 prior 625 lcb 0 order 3 pv C3"
            ),
            "{four}"
        );
        // Asking for more than there are lists every move once.
        assert_eq!(moves(&line("b minmoves 50", &all)).len(), 5);
        assert_eq!(moves(&line("b minmoves 4 maxmoves 3", &all)).len(), 3);
        // D4 and its three images, the pass, then E5 (its own image) and C3
        // with C7, its first image.
        let symmetric = RootChoices::new(&game, Color::Black, Vec::new());
        let listed = moves(&line("b minmoves 8", &symmetric));
        assert_eq!(listed.len(), 8, "{listed:?}");
        assert_eq!(&listed[4..], ["pass", "E5", "C3", "C7"], "{listed:?}");
    }

    /// On a symmetric position each searched move is followed by its images,
    /// numbered in turn, with the variation turned; kata names the move
    /// copied (KataGo's `isSymmetryOf`), lz does not.
    #[test]
    fn symmetric_copies_follow_each_move() {
        let game = Game::new(Geometry::new(9).unwrap(), Rules::default(), 7.0);
        let r = report(&game);
        let choices = RootChoices::new(&game, Color::Black, Vec::new());
        let a = AnalyzeArgs::parse(&[], Flavor::Lz, game.board().geometry()).unwrap();
        let moves = |line: &str| -> Vec<String> {
            line.split("info move ")
                .skip(1)
                .map(|b| b.split(' ').next().unwrap().to_string())
                .collect()
        };
        let lz = info_line(&r, Color::Black, &a, Flavor::Lz, &game, &choices).unwrap();
        let listed = moves(&lz);
        // D4's four images (its diagonal holds it), then the pass.
        assert_eq!(listed.len(), 5, "{lz}");
        for v in ["D4", "F4", "D6", "F6"] {
            assert!(listed.contains(&v.to_string()), "{lz}");
        }
        assert!(
            lz.contains(" order 4 pv pass") && !lz.contains("isSymmetryOf"),
            "{lz}"
        );
        let kata = info_line(&r, Color::Black, &a, Flavor::Kata, &game, &choices).unwrap();
        assert_eq!(kata.matches(" isSymmetryOf D4 order ").count(), 3, "{kata}");
        let f6 = kata.split("info move F6 ").nth(1).unwrap();
        assert!(f6.contains(" pv F6 G3 pass"), "turned variation: {f6}");
    }
}
