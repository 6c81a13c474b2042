//! The commands that set the game up rather than play it: the clock
//! (`time_settings`, `time_left`, `kgs-`/`kata-time_settings`), the rules
//! (`kgs-rules`, `kata-get-rules`, `kata-set-rules`), handicap stones and
//! SGF files (`loadsgf`, `printsgf`). Listed in [`super::commands::COMMANDS`].

use super::args::{arity, color_arg, empty, invalid_time, number, seconds, text};
use super::protocol::{Command, GtpError};
use super::session::{Reply, Session};
use crate::go::board::{Color, Move, Point};
use crate::go::game::Game;
use crate::go::handicap;
use crate::go::rules::{KataGoFields, Preset, Rules};
use crate::go::vertex::{format_point, parse_color, parse_move};
use crate::katago::rules::{self, Komi};
use crate::sgf;
use crate::time::{TimeSystem, KATA_TIME_SYSTEMS};

/// `time_settings MAIN BYO_YOMI STONES` → empty (GTP v2: `B > 0, S = 0` means
/// no limit, `B = 0` absolute, otherwise Canadian).
pub(super) fn cmd_time_settings(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 3)?;
    let main = seconds(&cmd.args[0])?;
    let period = seconds(&cmd.args[1])?;
    let stones: u32 = number(&cmd.args[2])?;
    s.clock = s
        .clock
        .with_system(TimeSystem::from_time_settings(main, period, stones));
    empty()
}

/// `time_left COLOR TIME STONES` → empty. TIME may be fractional or negative
/// (counted as 0).
pub(super) fn cmd_time_left(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 3)?;
    let color = color_arg(cmd.args.first())?;
    let time: f64 = number(&cmd.args[1])?;
    if !time.is_finite() {
        return Err(invalid_time(&cmd.args[1]));
    }
    let count: u32 = number(&cmd.args[2])?;
    s.clock.time_left(color, time, count);
    empty()
}

/// `kgs-time_settings none | absolute M | byoyomi M B P | canadian M B S` → empty.
pub(super) fn cmd_kgs_time_settings(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let system = TimeSystem::parse_named(&cmd.args, false).ok_or_else(GtpError::syntax)?;
    s.clock = s.clock.with_system(system);
    empty()
}

/// `kata-list_time_settings` → the systems `kata-time_settings` takes.
pub(super) fn cmd_kata_list_time_settings(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(KATA_TIME_SYSTEMS)
}

/// `kata-time_settings` → empty: the `kgs-time_settings` systems plus
/// `fischer M INC` and `fischer-capped M INC MAINCAP MAXPERMOVE` (`-1`: no cap).
pub(super) fn cmd_kata_time_settings(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let system = TimeSystem::parse_named(&cmd.args, true).ok_or_else(GtpError::syntax)?;
    s.clock = s.clock.with_system(system);
    empty()
}

/// Puts handicap stones on the empty board as setup; White moves next.
fn place_handicap(s: &mut Session, points: &[Point]) {
    let changes: Vec<(Point, Option<Color>)> =
        points.iter().map(|&p| (p, Some(Color::Black))).collect();
    s.game.setup(&changes, Some(Color::White));
    s.handicap = points.len() as u32;
}

fn require_empty_board(s: &Session) -> Result<(), GtpError> {
    let board = s.game.board();
    if board.num_empty() == board.geometry().area() {
        Ok(())
    } else {
        Err(GtpError::new("board not empty"))
    }
}

fn vertex_list(s: &Session, points: &[Point]) -> String {
    let geometry = s.game.board().geometry();
    points
        .iter()
        .map(|&p| format_point(p, geometry))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `fixed_handicap N` → the stones' vertices (GNU Go's layout, see
/// [`handicap::fixed`]). `board not empty`, `invalid number of stones`.
pub(super) fn cmd_fixed_handicap(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let n: usize = number(&cmd.args[0])?;
    require_empty_board(s)?;
    let points = handicap::fixed(s.game.board().geometry(), n)
        .ok_or_else(|| GtpError::new("invalid number of stones"))?;
    place_handicap(s, &points);
    text(vertex_list(s, &points))
}

/// `place_free_handicap N` → exactly N vertices chosen by tengen (2 ≤ N <
/// width × height). `board not empty`, `invalid number of stones`.
pub(super) fn cmd_place_free_handicap(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let n: usize = number(&cmd.args[0])?;
    require_empty_board(s)?;
    let points = handicap::free(s.game.board().geometry(), n)
        .ok_or_else(|| GtpError::new("invalid number of stones"))?;
    place_handicap(s, &points);
    text(vertex_list(s, &points))
}

/// `set_free_handicap V1 V2 …` → empty: black stones chosen by the opponent.
/// `board not empty`; `bad vertex list` for fewer than 2 or more than size²−1
/// vertices, `pass`, repeats, off-board or malformed vertices.
pub(super) fn cmd_set_free_handicap(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    if cmd.args.is_empty() {
        return Err(GtpError::syntax());
    }
    require_empty_board(s)?;
    let geometry = s.game.board().geometry();
    let bad = || GtpError::new("bad vertex list");
    let mut points = Vec::with_capacity(cmd.args.len());
    for a in &cmd.args {
        match parse_move(a, geometry) {
            Ok(Move::Play(p)) if !points.contains(&p) => points.push(p),
            _ => return Err(bad()),
        }
    }
    if points.len() < 2 || points.len() >= geometry.area() {
        return Err(bad());
    }
    place_handicap(s, &points);
    empty()
}

/// `loadsgf FILE [MOVE_NUMBER]` → empty: the main line of the file's first
/// game, replayed up to but not including move MOVE_NUMBER (B/W nodes
/// counted from 1; the player of that move is then to move), or to its end.
/// Setup stones (`AB`/`AW`/`AE`) are true setup: the superko history starts
/// from them. Recorded moves are replayed as recorded even if illegal. The
/// session's rules stay in force (the file's `RU` is not applied); `KM`
/// sets komi when present. Any failure: `cannot load file` (the reason on
/// stderr), the game unchanged. A file name may contain spaces.
pub(super) fn cmd_loadsgf(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let (path, before) = match cmd.args.as_slice() {
        [] => return Err(GtpError::syntax()),
        [path] => (path.clone(), None),
        [rest @ .., last] => match last.parse::<u32>() {
            Ok(0) => return Err(GtpError::syntax()),
            Ok(n) => (rest.join(" "), Some(n)),
            Err(_) => (cmd.args.join(" "), None),
        },
    };
    let cannot = |s: &Session, why: String| {
        s.log(&format!("cannot load file '{path}': {why}"));
        GtpError::new("cannot load file")
    };
    let bytes = std::fs::read(&path).map_err(|e| cannot(s, e.to_string()))?;
    let rules = s.game.rules();
    let loaded =
        sgf::load(&bytes, 0, before, rules, s.game.komi()).map_err(|e| cannot(s, e.to_string()))?;
    let mut game = loaded.game;
    game.set_rules(rules);
    s.start_game(game, loaded.info.handicap);
    empty()
}

/// `set_position [COLOR VERTEX]…` (KataGo's extension) → empty: a new game on
/// the same board size, rules and komi with these stones set up, Black to
/// move, as KataGo does it; no pairs give the empty board. `expected COLOR
/// VERTEX pairs` for an odd count, a bad colour, or a bad or `pass` vertex;
/// `illegal stone placements` for a point given twice or a chain left
/// without liberties (KataGo's "overlapping stones or stones with no
/// liberties"). On an error the game is unchanged.
pub(super) fn cmd_set_position(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let malformed = || GtpError::new("expected COLOR VERTEX pairs");
    let illegal = || GtpError::new("illegal stone placements");
    if !cmd.args.len().is_multiple_of(2) {
        return Err(malformed());
    }
    let geometry = s.game.board().geometry();
    let mut stones: Vec<(Point, Option<Color>)> = Vec::new();
    for pair in cmd.args.chunks_exact(2) {
        let color = parse_color(&pair[0]).ok_or_else(malformed)?;
        let point = match parse_move(&pair[1], geometry) {
            Ok(Move::Play(p)) => p,
            _ => return Err(malformed()),
        };
        // At most one stone a point, so at most size² stones are kept.
        if stones.iter().any(|&(p, _)| p == point) {
            return Err(illegal());
        }
        stones.push((point, Some(color)));
    }
    let mut game = Game::new(geometry, s.game.rules(), s.game.komi());
    game.setup(&stones, Some(Color::Black));
    if stones.iter().any(|&(p, _)| game.board().liberties(p) == 0) {
        return Err(illegal());
    }
    s.start_game(game, 0);
    empty()
}

/// `printsgf [FILE]` → the game as SGF (setup, then the moves since the last
/// setup; no blank lines), or written to FILE with an empty response.
pub(super) fn cmd_printsgf(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let record = sgf::write_game(&s.game, s.handicap, None);
    if cmd.args.is_empty() {
        return text(record);
    }
    let path = cmd.args.join(" ");
    std::fs::write(&path, record).map_err(|e| {
        s.log(&format!("cannot write '{path}': {e}"));
        GtpError::new("cannot save file")
    })?;
    empty()
}

/// Replaces the rules (komi is kept); the superko history is re-read.
fn set_rules(s: &mut Session, rules: Rules) {
    s.game.set_rules(rules);
}

/// `kgs-rules japanese|chinese|aga|new_zealand` → empty. Maps each name as
/// KataGo does: Chinese as KGS plays it (KataGo's `chinese-kgs`: positional
/// superko, White gets N points for N handicap stones), Japanese (simple ko,
/// territory, no bonus), AGA (situational superko, bonus N-1), New Zealand
/// (situational, suicide, no bonus). Komi is kept. Anything else: `unknown
/// rules`.
pub(super) fn cmd_kgs_rules(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let preset = match cmd.args[0].to_ascii_lowercase().as_str() {
        "japanese" => Preset::Japanese,
        "chinese" => Preset::Chinese,
        "aga" => Preset::Aga,
        "new_zealand" | "newzealand" | "new-zealand" => Preset::NewZealand,
        _ => return Err(GtpError::new("unknown rules")),
    };
    set_rules(s, preset.rules());
    empty()
}

/// `kata-get-rules` → the rules as KataGo's JSON, every field KataGo reports,
/// in its order: `{"friendlyPassOk":true,"hasButton":false,"ko":"POSITIONAL",
/// "scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"}`
/// ([`Rules::to_katago_json`]).
pub(super) fn cmd_kata_get_rules(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(s.game.rules().to_katago_json())
}

/// `kata-set-rule KEY VALUE` (KataGo's extension) → empty: one of KataGo's
/// rule fields changed, the others kept: `ko`, `score`/`scoring`, `tax`,
/// `suicide`, `hasButton`, `whiteHandicapBonus`, `friendlyPassOk`, read as
/// [`KataGoFields::set`] reads them. Komi is kept. An error says why (an
/// unknown key or value, a tax or the button tengen does not play), as
/// KataGo's does; the rules are then unchanged.
pub(super) fn cmd_kata_set_rule(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 2)?;
    let mut fields = KataGoFields::from_rules(s.game.rules());
    fields
        .set(&cmd.args[0], &cmd.args[1])
        .map_err(GtpError::new)?;
    let rules = fields.finish().map_err(GtpError::new)?;
    set_rules(s, rules);
    empty()
}

/// `kata-set-rules RULES` → empty. RULES is one of KataGo's names (`chinese`,
/// `japanese`, `korean`, `aga`, `bga`, `new-zealand`, `tromp-taylor`, `goe`,
/// `chinese-ogs`, `chinese-kgs`, … read as KataGo reads them,
/// [`KataGoNamedRules`]: KataGo's `chinese` is simple ko, unlike tengen's own
/// `--rules chinese` and `kgs-rules chinese`), KataGo's JSON (the format of `kata-get-rules`) or its
/// compact form (`koSIMPLEscoreAREAtaxNONEsui0whbN`). In JSON and the compact
/// form, fields not given are Tromp-Taylor's, as in KataGo. Komi is kept.
/// Read by [`crate::katago::rules`], as the analysis engine reads them: a tax
/// or button tengen does not play is left out and named on stderr. Anything
/// else: `unknown rules` (the reason on stderr).
pub(super) fn cmd_kata_set_rules(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let arg = cmd.args.join(" ");
    if arg.is_empty() {
        return Err(GtpError::syntax());
    }
    let read = rules::read_text(&arg, Komi::Refused).map_err(|why| {
        s.log(&format!("kata-set-rules {arg}: {why}"));
        GtpError::new("unknown rules")
    })?;
    if let Some(message) = read.ignored_message() {
        s.log(&format!("kata-set-rules {arg}: {message}"));
    }
    set_rules(s, read.rules);
    empty()
}
