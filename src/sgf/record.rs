//! The typed view of a parsed SGF game tree: [`GameRecord`] reads the root's
//! game information (board size, komi, handicap, rules) and walks a line of
//! play as [`Step`]s; [`load`] makes a [`Game`] of it. Points and rules as
//! SGF writes them.

use super::parse::{parse, Node, SgfError};
use crate::go::board::{Color, Geometry, Move, Point, MAX_SIZE};
use crate::go::game::Game;
use crate::go::rules::{Preset, Rules};

/// The game information of a root node that matters for play.
#[derive(Clone, Debug, PartialEq)]
pub struct GameInfo {
    /// Board shape (`SZ`, default 19; `SZ[W:H]` for a board W wide and H high).
    pub geometry: Geometry,
    /// Komi (`KM`), Fox's ×100 and ×50 values mapped back; `None` if absent or unreadable.
    pub komi: Option<f64>,
    /// Handicap (`HA`); 0 when absent, 0, 1 or unreadable.
    pub handicap: u32,
    /// The rules `RU` names, if it names known ones.
    pub rules: Option<Rules>,
    /// `RU` as written.
    pub rules_text: Option<String>,
    /// `RE` as written.
    pub result: Option<String>,
}

/// One thing a line of play does to the game.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Setup stones (`AB`/`AW`/`AE`; `None` = empty the point) and the player
    /// to move (`PL`). Applied without rules.
    Setup {
        changes: Vec<(Point, Option<Color>)>,
        to_move: Option<Color>,
    },
    /// `PL` alone in a node after moves were played: who moves next.
    ToMove(Color),
    /// A move (`B`/`W`); `offset` is the byte offset of its value.
    Move {
        color: Color,
        mv: Move,
        offset: usize,
    },
}

/// One game of a collection, with its root information read.
#[derive(Clone, Copy, Debug)]
pub struct GameRecord<'c> {
    root: Node<'c>,
    geometry: Geometry,
}

impl<'c> GameRecord<'c> {
    /// Reads the root of a game tree.
    ///
    /// # Errors
    /// The board size is unsupported (a side outside 2..=25), or not a number.
    pub fn new(root: Node<'c>) -> Result<GameRecord<'c>, SgfError> {
        let (width, height) = board_size(root)?;
        let geometry = Geometry::rect(width, height).ok_or_else(|| {
            let size = if width == height {
                width.to_string()
            } else {
                format!("{width}:{height}")
            };
            root.collection().error_at(
                root.get("SZ").map_or(root.offset(), |p| p.offset()),
                format!("board size {size} is not supported (2 to {MAX_SIZE} on each side)"),
            )
        })?;
        Ok(GameRecord { root, geometry })
    }

    /// The root node.
    pub fn root(&self) -> Node<'c> {
        self.root
    }

    /// The board geometry (`SZ`).
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The root's game information.
    pub fn info(&self) -> GameInfo {
        let r = self.root;
        let rules_text = r.get("RU").map(|p| p.value().simple_text());
        let fox = r
            .get("AP")
            .is_some_and(|p| p.value().simple_text().to_ascii_lowercase().contains("fox"));
        GameInfo {
            geometry: self.geometry,
            komi: r
                .get("KM")
                .and_then(|p| parse_komi(&p.value().plain(), fox)),
            handicap: r
                .get("HA")
                .map_or(0, |p| parse_handicap(&p.value().plain())),
            rules: rules_text.as_deref().and_then(rules_from_text),
            rules_text,
            result: r.get("RE").map(|p| p.value().simple_text()),
        }
    }

    /// The steps of the main line (first child at every node), root included.
    pub fn main_line(&self) -> Steps<'c, impl Iterator<Item = Node<'c>> + 'c> {
        Steps {
            nodes: self.root.main_line(),
            geometry: self.geometry,
            pending: None,
            moves_seen: false,
            failed: false,
        }
    }

    /// The steps of the nodes of `path` (a line from this game's root, for
    /// replaying a variation).
    pub fn line(&self, path: Vec<Node<'c>>) -> Steps<'c, std::vec::IntoIter<Node<'c>>> {
        Steps {
            nodes: path.into_iter(),
            geometry: self.geometry,
            pending: None,
            moves_seen: false,
            failed: false,
        }
    }

    /// The game after replaying the main line up to, not including, move
    /// `before_move` (B/W nodes counted from 1; `None` = the whole line), as GTP
    /// `loadsgf` wants; the player of move `before_move` is then to move.
    /// Moves are replayed tolerantly ([`Game::play_recorded`]): illegal ones
    /// are executed, moves onto occupied points skipped.
    ///
    /// # Errors
    /// A malformed move, point or setup value on the way.
    pub fn game(
        &self,
        rules: Rules,
        komi: f64,
        before_move: Option<u32>,
    ) -> Result<Game, SgfError> {
        let mut game = Game::new(self.geometry, rules, komi);
        let mut number = 0u32;
        for step in self.main_line() {
            match step? {
                Step::Setup { changes, to_move } => game.setup(&changes, to_move),
                Step::ToMove(c) => game.set_to_move(c),
                Step::Move { color, mv, .. } => {
                    number += 1;
                    if before_move.is_some_and(|n| number >= n) {
                        // The player of move N is the one to move (GNU Go does the same).
                        game.set_to_move(color);
                        break;
                    }
                    game.play_recorded(color, mv);
                }
            }
        }
        Ok(game)
    }
}

/// A [`Game`] read from SGF, with the root information.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub game: Game,
    pub info: GameInfo,
}

/// Reads game `index` (from 0) of an SGF file and replays its main line up to,
/// not including, move `before_move` (`None`: all of it). The rules are those
/// `RU` names, else `default_rules`; the komi is `KM`, else `default_komi`.
///
/// # Errors
/// The file does not parse, has no game `index`, or the game is malformed.
pub fn load(
    bytes: &[u8],
    index: usize,
    before_move: Option<u32>,
    default_rules: Rules,
    default_komi: f64,
) -> Result<Loaded, SgfError> {
    let collection = parse(bytes)?;
    let root = collection.games().nth(index).ok_or_else(|| {
        collection.error_at(
            0,
            format!(
                "no game {} in this file ({} game(s))",
                index + 1,
                collection.len()
            ),
        )
    })?;
    let record = GameRecord::new(root)?;
    let info = record.info();
    let game = record.game(
        info.rules.unwrap_or(default_rules),
        info.komi.unwrap_or(default_komi),
        before_move,
    )?;
    Ok(Loaded { game, info })
}

/// Iterator over the [`Step`]s of a line of play (the nodes `I` yields).
pub struct Steps<'c, I: Iterator<Item = Node<'c>>> {
    nodes: I,
    geometry: Geometry,
    pending: Option<Step>,
    moves_seen: bool,
    /// Set after an error: the rest of the line cannot be trusted.
    failed: bool,
}

impl<'c, I: Iterator<Item = Node<'c>>> Iterator for Steps<'c, I> {
    type Item = Result<Step, SgfError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(s) = self.pending.take() {
            return Some(Ok(s));
        }
        if self.failed {
            return None;
        }
        loop {
            let node = self.nodes.next()?;
            match node_steps(node, self.geometry, self.moves_seen) {
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                Ok((None, None)) => continue,
                Ok((Some(setup), mv)) => {
                    self.pending = mv;
                    self.moves_seen |= self.pending.is_some();
                    return Some(Ok(setup));
                }
                Ok((None, Some(mv))) => {
                    self.moves_seen = true;
                    return Some(Ok(mv));
                }
            }
        }
    }
}

/// The setup step and the move step of one node (setup first, as FF\[4\] asks
/// when a node mixes them). `moves_seen`: whether the line had moves before
/// this node (a lone `PL` is then [`Step::ToMove`], not a setup).
pub(crate) fn node_steps(
    node: Node<'_>,
    geometry: Geometry,
    moves_seen: bool,
) -> Result<(Option<Step>, Option<Step>), SgfError> {
    let c = node.collection();
    let mut changes: Vec<(Point, Option<Color>)> = Vec::new();
    let mut has_setup = false;
    let mut to_move = None;
    let mut mv: Option<Step> = None;
    for prop in node.properties() {
        let ident = prop.ident_bytes();
        match ident {
            b"B" | b"W" => {
                let color = if ident == b"B" {
                    Color::Black
                } else {
                    Color::White
                };
                if mv.is_some() {
                    return Err(c.error_at(
                        prop.offset(),
                        "a node holds more than one move (B/W); FF[4] allows one",
                    ));
                }
                if prop.values().len() != 1 {
                    return Err(c.error_at(
                        prop.offset(),
                        format!("{} takes exactly one value", prop.ident()),
                    ));
                }
                let v = prop.value();
                let m = parse_move(&v.plain(), geometry).ok_or_else(|| {
                    c.error_at(
                        v.offset(),
                        format!(
                            "bad move {}[{}] on a {geometry} board",
                            prop.ident(),
                            String::from_utf8_lossy(v.raw()),
                        ),
                    )
                })?;
                mv = Some(Step::Move {
                    color,
                    mv: m,
                    offset: v.offset(),
                });
            }
            b"AB" | b"AW" | b"AE" => {
                has_setup = true;
                let stone = match ident {
                    b"AB" => Some(Color::Black),
                    b"AW" => Some(Color::White),
                    _ => None,
                };
                for v in prop.values() {
                    let plain = v.plain();
                    if plain.is_empty() {
                        continue; // `AB[]`: seen in the wild, means nothing
                    }
                    let (a, b) = parse_point_range(&plain, geometry).ok_or_else(|| {
                        c.error_at(
                            v.offset(),
                            format!(
                                "bad point {}[{}] on a {geometry} board",
                                prop.ident(),
                                String::from_utf8_lossy(v.raw()),
                            ),
                        )
                    })?;
                    for y in a.1..=b.1 {
                        for x in a.0..=b.0 {
                            if let Some(p) = geometry.point(x, y) {
                                changes.push((p, stone));
                            }
                        }
                    }
                }
            }
            b"PL" => {
                let v = prop.value();
                to_move = Some(parse_color(&v.plain()).ok_or_else(|| {
                    c.error_at(
                        v.offset(),
                        format!(
                            "bad player PL[{}]: expected B or W (or FF[3]'s 1 or 2)",
                            String::from_utf8_lossy(v.raw())
                        ),
                    )
                })?);
            }
            _ => {}
        }
    }
    let setup = if has_setup || (to_move.is_some() && !moves_seen) {
        Some(Step::Setup { changes, to_move })
    } else {
        to_move.map(Step::ToMove)
    };
    Ok((setup, mv))
}

/// `(width, height)` from `SZ` (FF\[4\]: `SZ[19]`, or `SZ[W:H]` with the
/// number of columns first); 19x19 when absent. Not yet checked for range.
fn board_size(root: Node<'_>) -> Result<(usize, usize), SgfError> {
    let Some(prop) = root.get("SZ") else {
        return Ok((19, 19));
    };
    let v = prop.value();
    let plain = v.plain();
    let text = String::from_utf8_lossy(&plain);
    let bad = |msg: String| root.collection().error_at(v.offset(), msg);
    let number = |s: &str| s.trim().parse::<usize>().ok();
    match text.split_once(':') {
        Some((cols, rows)) => number(cols)
            .zip(number(rows))
            .ok_or_else(|| bad(format!("bad board size SZ[{text}]"))),
        None => number(&text)
            .map(|n| (n, n))
            .ok_or_else(|| bad(format!("bad board size SZ[{text}]"))),
    }
}

/// A coordinate letter: `a`..`z` = 0..25, `A`..`Z` = 26..51.
fn coordinate(b: u8) -> Option<usize> {
    match b {
        b'a'..=b'z' => Some((b - b'a') as usize),
        b'A'..=b'Z' => Some((b - b'A') as usize + 26),
        _ => None,
    }
}

/// Column and row (from the top-left, from 0) of a two-letter point.
fn parse_xy(v: &[u8]) -> Option<(usize, usize)> {
    match v {
        [a, b] => Some((coordinate(*a)?, coordinate(*b)?)),
        _ => None,
    }
}

/// A single point on `geometry`, from its two letters.
pub fn parse_point(v: &[u8], geometry: Geometry) -> Option<Point> {
    let (x, y) = parse_xy(v)?;
    geometry.point(x, y)
}

/// A move value: empty or (on boards up to 19 on each side) `tt` is a pass.
pub fn parse_move(v: &[u8], geometry: Geometry) -> Option<Move> {
    if v.is_empty() || (v == b"tt" && geometry.max_side() <= 19) {
        return Some(Move::Pass);
    }
    parse_point(v, geometry).map(Move::Play)
}

/// A point or a compressed rectangle `aa:cc`, as the corners (x, y) of the
/// rectangle. Corners given in the wrong order are put right.
fn parse_point_range(v: &[u8], geometry: Geometry) -> Option<((usize, usize), (usize, usize))> {
    let (a, b) = match v.iter().position(|&b| b == b':') {
        Some(k) => (
            parse_point(v[..k].trim_ascii(), geometry)?,
            parse_point(v[k + 1..].trim_ascii(), geometry)?,
        ),
        None => {
            let p = parse_point(v, geometry)?;
            (p, p)
        }
    };
    Some((
        (a.x().min(b.x()), a.y().min(b.y())),
        (a.x().max(b.x()), a.y().max(b.y())),
    ))
}

/// The two letters of a point.
pub fn point_letters(p: Point) -> [u8; 2] {
    let letter = |i: usize| {
        if i < 26 {
            b'a' + i as u8
        } else {
            b'A' + (i - 26) as u8
        }
    };
    [letter(p.x()), letter(p.y())]
}

/// The two letters of a point, as a string.
pub fn point_to_sgf(p: Point) -> String {
    let [a, b] = point_letters(p);
    String::from_utf8_lossy(&[a, b]).into_owned()
}

/// GTP notation of a point on a board of `geometry` (`A19`; no `I`; the row
/// counts from the bottom, so from the board's height).
pub fn point_to_gtp(p: Point, geometry: Geometry) -> String {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let col = LETTERS.get(p.x()).map_or('?', |&b| b as char);
    format!("{col}{}", geometry.height() - p.y())
}

/// `B`/`W` (any case; `black`/`white` too), or FF[3]'s `1`/`2` (as sgfmill reads them).
fn parse_color(v: &[u8]) -> Option<Color> {
    match v.trim_ascii() {
        b"1" => return Some(Color::Black),
        b"2" => return Some(Color::White),
        _ => {}
    }
    match v.first()?.to_ascii_uppercase() {
        b'B' => Some(Color::Black),
        b'W' => Some(Color::White),
        _ => None,
    }
}

/// Komi: a decimal number, comma accepted. When `fox` (the file comes from
/// the Fox server) or the value is one of Fox's known encodings, ×100 and ×50
/// values are mapped back (750 and 375 → 7.5, 650 and 325 → 6.5, 700 and 350 → 7,
/// 550 and 275 → 5.5), as KataGo does.
fn parse_komi(v: &[u8], fox: bool) -> Option<f64> {
    let text = String::from_utf8_lossy(v).replace(',', ".");
    let k: f64 = text.trim().parse().ok().filter(|k: &f64| k.is_finite())?;
    let mapped = match k as i64 {
        _ if k.fract() != 0.0 => k,
        750 | 375 => 7.5,
        650 | 325 => 6.5,
        700 | 350 => 7.0,
        550 | 275 => 5.5,
        n if fox && n.abs() >= 100 && n % 50 == 0 => k / 100.0,
        _ => k,
    };
    Some(mapped)
}

/// Handicap: `HA[0]` and `HA[1]` (invalid but common) and unreadable values are 0.
fn parse_handicap(v: &[u8]) -> u32 {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .filter(|&h| h >= 2)
        .unwrap_or(0)
}

/// The rules an `RU` value names: a preset name ([`Preset::from_name`]) or
/// KataGo's compact form ([`Rules::from_katago_compact`], which
/// [`rules_to_text`] writes for other combinations:
/// `koSITUATIONALscoreAREAtaxNONEsui1`).
pub fn rules_from_text(text: &str) -> Option<Rules> {
    Preset::from_name(text)
        .map(Preset::rules)
        .or_else(|| Rules::from_katago_compact(text).ok())
}

/// The `RU` value for `rules`: the SGF name of a preset when one matches
/// (`Chinese`, `Japanese`, `AGA`, `NZ`, `Tromp-Taylor`, `GOE`), else KataGo's
/// compact form.
pub fn rules_to_text(rules: Rules) -> String {
    if let Some(p) = Preset::ALL.into_iter().find(|p| p.rules() == rules) {
        return match p {
            Preset::Chinese => "Chinese",
            Preset::Japanese => "Japanese",
            Preset::Aga => "AGA",
            Preset::NewZealand => "NZ",
            Preset::TrompTaylor => "Tromp-Taylor",
            Preset::Goe => "GOE",
        }
        .to_owned();
    }
    rules.to_katago_compact()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::{HandicapBonus, KoRule, Scoring};

    fn record_steps(text: &str) -> Result<Vec<Step>, SgfError> {
        let c = parse(text.as_bytes())?;
        let rec = GameRecord::new(c.games().next().unwrap())?;
        rec.main_line().collect()
    }

    fn g19() -> Geometry {
        Geometry::new(19).unwrap()
    }

    #[test]
    fn passes_tt_and_points() {
        let g = g19();
        assert_eq!(parse_move(b"", g), Some(Move::Pass));
        assert_eq!(parse_move(b"tt", g), Some(Move::Pass));
        assert_eq!(
            parse_move(b"tt", Geometry::new(9).unwrap()),
            Some(Move::Pass)
        );
        let g21 = Geometry::new(21).unwrap();
        assert_eq!(
            parse_move(b"tt", g21),
            Some(Move::Play(g21.point(19, 19).unwrap()))
        );
        assert_eq!(
            parse_move(b"pd", g),
            Some(Move::Play(g.point(15, 3).unwrap()))
        );
        assert_eq!(parse_move(b"zz", g), None);
        assert_eq!(parse_move(b"abc", g), None);
        for p in g21.points() {
            assert_eq!(parse_point(&point_letters(p), g21), Some(p));
        }
        assert_eq!(point_to_gtp(g.point(15, 3).unwrap(), g), "Q16");
        assert_eq!(point_to_gtp(g.point(8, 18).unwrap(), g), "J1");
        let r = Geometry::rect(19, 13).unwrap();
        assert_eq!(point_to_gtp(r.point(18, 0).unwrap(), r), "T13");
    }

    #[test]
    fn compressed_lists_and_setup() {
        let steps = record_steps("(;SZ[5]AB[aa:cb][ee]AW[dd]AE[bb];B[cc])").unwrap();
        let g = Geometry::new(5).unwrap();
        let Step::Setup { changes, to_move } = &steps[0] else {
            panic!("{steps:?}")
        };
        assert_eq!(*to_move, None);
        let black: Vec<Point> = changes
            .iter()
            .filter(|c| c.1 == Some(Color::Black))
            .map(|c| c.0)
            .collect();
        assert_eq!(black.len(), 7);
        assert!(black.contains(&g.point(2, 1).unwrap()));
        assert_eq!(changes.last(), Some(&(g.point(1, 1).unwrap(), None)));
        assert!(matches!(
            steps[1],
            Step::Move {
                color: Color::Black,
                ..
            }
        ));
        // Reversed corners are put right; AB[] is ignored.
        let steps = record_steps("(;SZ[5]AB[cb:aa]AB[])").unwrap();
        let Step::Setup { changes, .. } = &steps[0] else {
            panic!()
        };
        assert_eq!(changes.len(), 6);
    }

    #[test]
    fn player_to_move_in_root_and_mid_game() {
        let steps = record_steps("(;PL[w];W[aa];B[bb]PL[B];W[cc]AB[dd]PL[b])").unwrap();
        assert_eq!(
            steps[0],
            Step::Setup {
                changes: vec![],
                to_move: Some(Color::White)
            }
        );
        assert_eq!(
            steps[2],
            Step::ToMove(Color::Black),
            "setup properties come first"
        );
        assert!(matches!(
            steps[3],
            Step::Move {
                color: Color::Black,
                ..
            }
        ));
        assert!(matches!(
            steps[4],
            Step::Setup {
                to_move: Some(Color::Black),
                ..
            }
        ));
        assert!(
            matches!(
                steps[5],
                Step::Move {
                    color: Color::White,
                    ..
                }
            ),
            "setup before move"
        );
    }

    #[test]
    fn old_numeric_players_are_read() {
        // FF[3] files (GNU Go's regression games) write PL[1] for Black and PL[2] for White.
        let steps = record_steps("(;FF[3]AB[aa]PL[2];W[bb];B[cc]PL[1])").unwrap();
        assert!(matches!(
            steps[0],
            Step::Setup {
                to_move: Some(Color::White),
                ..
            }
        ));
        assert_eq!(steps[2], Step::ToMove(Color::Black));
        for bad in ["(;PL[3])", "(;PL[0])", "(;PL[12])"] {
            let e = record_steps(bad).unwrap_err();
            assert!(e.message.contains("bad player"), "{bad}: {e}");
        }
    }

    #[test]
    fn content_errors_name_the_place() {
        let e = record_steps("(;SZ[19]\n;B[zz])").unwrap_err();
        assert_eq!((e.line, e.column), (2, 4), "{e}");
        assert!(e.message.contains("bad move B[zz]"), "{e}");
        // 19 wide, 13 high: sm (x 18, y 12) is on the board, ms is not.
        assert_eq!(record_steps("(;SZ[19:13];B[sm])").unwrap().len(), 1);
        let e = record_steps("(;SZ[19:13];B[ms])").unwrap_err();
        assert!(e.message.contains("bad move B[ms] on a 19x13 board"), "{e}");
        let e = record_steps("(;SZ[30])").unwrap_err();
        assert!(e.message.contains("not supported"), "{e}");
        let e = record_steps("(;SZ[19:26])").unwrap_err();
        assert!(
            e.message.contains("board size 19:26 is not supported"),
            "{e}"
        );
        let e = record_steps("(;SZ[19:x])").unwrap_err();
        assert!(e.message.contains("bad board size"), "{e}");
        let e = record_steps("(;B[aa]W[bb])").unwrap_err();
        assert!(e.message.contains("more than one move"), "{e}");
        let e = record_steps("(;PL[x])").unwrap_err();
        assert!(e.message.contains("bad player"), "{e}");
        assert_eq!(record_steps("(;SZ[19:19];B[ss])").unwrap().len(), 1);
    }

    #[test]
    fn komi_handicap_and_rules_values() {
        assert_eq!(parse_komi(b"7.5", false), Some(7.5));
        assert_eq!(parse_komi(b"6,5", false), Some(6.5));
        assert_eq!(parse_komi(b"-2.5", false), Some(-2.5));
        assert_eq!(parse_komi(b"750", false), Some(7.5));
        assert_eq!(parse_komi(b"375", false), Some(7.5));
        assert_eq!(parse_komi(b"650", false), Some(6.5));
        assert_eq!(parse_komi(b"275", false), Some(5.5));
        assert_eq!(parse_komi(b"0", true), Some(0.0));
        assert_eq!(parse_komi(b"800", true), Some(8.0));
        assert_eq!(parse_komi(b"800", false), Some(800.0));
        assert_eq!(parse_komi(b"", false), None);
        assert_eq!(parse_komi(b"NaN", false), None);
        assert_eq!(parse_handicap(b"0"), 0);
        assert_eq!(parse_handicap(b"1"), 0);
        assert_eq!(parse_handicap(b" 4 "), 4);
        assert_eq!(parse_handicap("吴受先".as_bytes()), 0);
        for r in [
            "Chinese",
            "Japanese",
            "AGA",
            "NZ",
            "Tromp-Taylor",
            "GOE",
            "Korean",
            "New Zealand",
        ] {
            let rules = rules_from_text(r).unwrap();
            assert_eq!(rules_from_text(&rules_to_text(rules)), Some(rules), "{r}");
        }
        for ko in KoRule::ALL {
            for suicide_allowed in [false, true] {
                for scoring in [Scoring::Area, Scoring::Territory] {
                    for handicap_bonus in HandicapBonus::ALL {
                        for friendly_pass_ok in [false, true] {
                            let rules = Rules {
                                ko,
                                suicide_allowed,
                                scoring,
                                handicap_bonus,
                                friendly_pass_ok,
                            };
                            assert_eq!(rules_from_text(&rules_to_text(rules)), Some(rules));
                        }
                    }
                }
            }
        }
        // What tengen wrote before the handicap bonus and the friendly pass:
        // KataGo's defaults (0, false) for them.
        assert_eq!(
            rules_from_text("koSITUATIONALscoreAREAsui1"),
            Some(Rules {
                handicap_bonus: HandicapBonus::Zero,
                friendly_pass_ok: false,
                ..Preset::NewZealand.rules()
            })
        );
        // As KataGo writes it.
        assert_eq!(
            rules_from_text("koSIMPLEscoreAREAtaxNONEsui0whbNfpok1"),
            Some(Rules {
                ko: KoRule::Simple,
                ..Preset::Chinese.rules()
            })
        );
        assert_eq!(rules_from_text("martian"), None);
    }

    #[test]
    fn info_from_the_root() {
        let c = parse(b"(;GM[1]SZ[13]KM[750]HA[0]RU[Japanese Rules]RE[W+R]AP[foxwq])").unwrap();
        let info = GameRecord::new(c.games().next().unwrap()).unwrap().info();
        assert_eq!(
            info,
            GameInfo {
                geometry: Geometry::new(13).unwrap(),
                komi: Some(7.5),
                handicap: 0,
                rules: Some(Preset::Japanese.rules()),
                rules_text: Some("Japanese Rules".into()),
                result: Some("W+R".into()),
            }
        );
    }

    #[test]
    fn load_stops_before_move_n() {
        let text = b"(;SZ[9]AB[aa]PL[W];W[bb];B[cc];W[dd])(;SZ[5])";
        let full = load(text, 0, None, Rules::default(), 7.5).unwrap();
        assert_eq!(full.game.move_number(), 3);
        let part = load(text, 0, Some(3), Rules::default(), 7.5).unwrap();
        assert_eq!(part.game.move_number(), 2);
        assert_eq!(part.game.to_move(), Color::White);
        let first = load(text, 0, Some(1), Rules::default(), 7.5).unwrap();
        assert_eq!(first.game.move_number(), 0);
        assert_eq!(first.game.to_move(), Color::White);
        let g = Geometry::new(9).unwrap();
        assert_eq!(
            first.game.board().at(g.point(0, 0).unwrap()),
            crate::Stone::Black
        );
        // Non-alternating moves: the player of move N is to move.
        let twice = b"(;SZ[9];B[aa];B[bb];W[cc])";
        let part = load(twice, 0, Some(2), Rules::default(), 7.5).unwrap();
        assert_eq!(part.game.to_move(), Color::Black);
        let second = load(text, 1, None, Rules::default(), 7.5).unwrap();
        assert_eq!(second.game.board().geometry(), Geometry::new(5).unwrap());
        assert!(load(text, 2, None, Rules::default(), 7.5).is_err());
    }
}
