//! One input line of KataGo's analysis protocol, read and checked: an action
//! (`query_version`, `terminate`, …) or a query, whose position is replayed
//! once here so that an illegal move is an error before anything is queued.
//!
//! Fields are read in KataGo's order (`cpp/command/analysis.cpp`) and their
//! errors carry KataGo's texts, so a client sees the same first complaint.
//! Nothing is allocated from a number in the input: sizes are checked
//! (boards 2 to 19 on each side, square or not), lists are as long as the line that holds them,
//! and the turns to analyse are flags over the move list.

use super::settings::{EngineSettings, SearchSettings, KATAGO_SEARCH_KEYS};
use crate::engine::{excluded_points, MoveRestriction};
use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::{Game, IllegalMove};
use crate::go::rules::{HandicapBonus, Rules};
use crate::go::vertex::parse_color;
use crate::katago::moves::{self, parse_location};
use crate::katago::rules::{self, Komi};
use serde_json::{Map, Value};

/// The largest board side: the largest a KataGo net takes.
pub const MAX_BOARD_SIZE: usize = crate::nn::MAX_BOARD_SIZE;

/// KataGo's bounds on `priority`.
const MAX_PRIORITY: i64 = 0x3FFF_FFFF_FFFF_FFFF;

/// The most `moves` (and `initialStones`) a query may have: far beyond any
/// game, and small enough that replaying every turn stays quick (each
/// analysed turn replays the moves before it).
pub const MAX_MOVES: usize = 10_000;

/// An error response: `{"error"}` alone (the line had no usable id) or
/// `{"id","field","error"}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub id: Option<String>,
    pub field: Option<String>,
    pub message: String,
}

impl Fault {
    fn general(message: impl Into<String>) -> Fault {
        Fault {
            id: None,
            field: None,
            message: message.into(),
        }
    }
}

/// A warning response, `{"id","field","warning"}`: the query still runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub id: String,
    pub field: String,
    pub message: String,
}

/// What a line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `query_version`: the line, to be echoed with the version added.
    Version(Map<String, Value>),
    /// `query_models`: the line, to be echoed with the models added.
    Models(Map<String, Value>),
    /// `clear_cache`: the line, echoed once the caches are cleared.
    ClearCache(Map<String, Value>),
    /// `terminate` (`target` the id to stop) or `terminate_all` (`None`);
    /// `turns` limits it to those turn numbers.
    Terminate {
        echo: Map<String, Value>,
        target: Option<String>,
        turns: Option<Vec<i64>>,
    },
    Analyze(Box<Query>),
}

/// A checked query.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub id: String,
    pub geometry: Geometry,
    pub rules: Rules,
    pub komi: f64,
    /// `initialStones`, in order (a later stone on the same point wins).
    pub stones: Vec<(Point, Color)>,
    pub initial_player: Color,
    pub moves: Vec<(Color, Move)>,
    /// The turns to analyse, increasing, each with its priority.
    pub turns: Vec<(usize, i64)>,
    pub settings: SearchSettings,
    pub pv_len: usize,
    pub include_ownership: bool,
    pub include_ownership_stdev: bool,
    pub include_moves_ownership: bool,
    pub include_policy: bool,
    pub include_pv_visits: bool,
    /// `reportDuringSearchEvery` (or `firstReportDuringSearchAfter`), seconds.
    pub report_every: Option<f64>,
    pub restrictions: Vec<MoveRestriction>,
}

impl Query {
    /// The game before move `turn` (0 = the initial position), replayed as
    /// KataGo replays: a move by the player not to move restarts the
    /// superko history, and ko, superko and suicide are tolerated (only an
    /// occupied point is illegal, and the replay at parse time has refused
    /// those).
    pub fn game_at(&self, turn: usize) -> Game {
        replay(self, turn).0
    }

    /// The board plays the root may not search for `color` (see
    /// [`MoveRestriction`]: the root only, never a pass).
    pub fn excluded(&self, color: Color) -> Vec<Point> {
        excluded_points(&self.restrictions, color, self.geometry)
    }
}

/// The game after `upto` moves of `q`; on an occupied point, the game before
/// that move and the move's index.
fn replay(q: &Query, upto: usize) -> (Game, Option<usize>) {
    let mut game = Game::new(q.geometry, q.rules, q.komi);
    let setup: Vec<(Point, Option<Color>)> = q.stones.iter().map(|&(p, c)| (p, Some(c))).collect();
    game.setup(&setup, Some(q.initial_player));
    for (i, &(color, mv)) in q.moves.iter().take(upto).enumerate() {
        if color != game.to_move() {
            game.setup(&[], Some(color));
        }
        if game.play_recorded(color, mv) == Some(IllegalMove::Occupied) {
            return (game, Some(i));
        }
    }
    (game, None)
}

/// Setup stones, and moves in order.
type Stones = Vec<(Point, Color)>;
type Moves = Vec<(Color, Move)>;

/// What a query's responses include.
struct Outputs {
    ownership: bool,
    ownership_stdev: bool,
    moves_ownership: bool,
    policy: bool,
    pv_visits: bool,
    /// `reportDuringSearchEvery` (or `firstReportDuringSearchAfter`), in
    /// seconds.
    report_every: Option<f64>,
}

/// What the reader knows beyond the line.
pub struct Context<'a> {
    pub settings: &'a EngineSettings,
    /// The main net is a human-SL net: every query needs a profile.
    pub net_needs_profile: bool,
}

/// The fields a query may have (others get a warning).
const KNOWN_FIELDS: &[&str] = &[
    "id",
    "action",
    "terminateId",
    "turnNumbers",
    "boardXSize",
    "boardYSize",
    "initialStones",
    "moves",
    "initialPlayer",
    "analyzeTurns",
    "priorities",
    "rules",
    "komi",
    "whiteHandicapBonus",
    "overrideSettings",
    "maxVisits",
    "analysisPVLen",
    "rootFpuReductionMax",
    "rootPolicyTemperature",
    "includeMovesOwnership",
    "includeMovesOwnershipStdev",
    "includeOwnership",
    "includeOwnershipStdev",
    "includePolicy",
    "includePVVisits",
    "includeNoResultValue",
    "reportDuringSearchEvery",
    "firstReportDuringSearchAfter",
    "priority",
    "allowMoves",
    "avoidMoves",
];

const MOVES_SHAPE: &str =
    "Must be an array of pairs of the form: [\"b\" or \"w\", GTP board vertex]";
const RULES_SHAPE: &str = "Must specify rules string, such as \"chinese\" or \"tromp-taylor\", or a JSON object with detailed rules parameters.";
const KOMI_RANGE: &str = "Must be a integer or half-integer from -400.0 to 400.0";
const FILTER_SHAPE: &str = "Must be a list of dicts with subfields 'player', 'moves', 'untilDepth'";

/// Reads one line (already trimmed, not empty). Warnings go to `warnings`,
/// in the order KataGo would send them, whether or not the line then fails.
///
/// # Errors
/// The line's error response.
pub fn parse(line: &str, cx: &Context, warnings: &mut Vec<Warning>) -> Result<Request, Fault> {
    let input: Value = serde_json::from_str(line).map_err(|e| {
        Fault::general(format!(
            "{e} - could not parse input line as json request: {}",
            clip(line)
        ))
    })?;
    let Value::Object(input) = input else {
        return Err(Fault::general(format!(
            "Request line was valid json but was not an object, ignoring: {}",
            clip(&input.to_string())
        )));
    };
    let Some(Value::String(id)) = input.get("id") else {
        return Err(Fault::general("Request must have a string \"id\" field"));
    };
    let id = id.clone();
    if let Some(Value::String(action)) = input.get("action") {
        return parse_action(action.clone(), &id, input);
    }
    let mut r = Reader {
        id: id.clone(),
        input: &input,
    };
    let q = r.query(cx, warnings)?;
    Ok(Request::Analyze(Box::new(q)))
}

/// Long input quoted back in an error, cut to a readable length.
fn clip(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn parse_action(action: String, id: &str, input: Map<String, Value>) -> Result<Request, Fault> {
    let field_error = |field: &str, message: &str| Fault {
        id: Some(id.to_string()),
        field: Some(field.to_string()),
        message: message.to_string(),
    };
    let turns = |input: &Map<String, Value>| -> Result<Option<Vec<i64>>, Fault> {
        match input.get("turnNumbers") {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(Value::as_i64)
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| {
                    field_error(
                        "turnNumbers",
                        "If provided, must be an array of integers indicating turns to terminate",
                    )
                }),
            Some(_) => Err(field_error(
                "turnNumbers",
                "If provided, must be an array of integers indicating turns to terminate",
            )),
        }
    };
    match action.as_str() {
        "query_version" => Ok(Request::Version(input)),
        "query_models" => Ok(Request::Models(input)),
        "clear_cache" => Ok(Request::ClearCache(input)),
        "terminate" => {
            let Some(Value::String(target)) = input.get("terminateId") else {
                return Err(field_error(
                    "terminateId",
                    "Requests for a terminate action must have a string \"terminateId\" field",
                ));
            };
            let target = Some(target.clone());
            let turns = turns(&input)?;
            Ok(Request::Terminate {
                echo: input,
                target,
                turns,
            })
        }
        "terminate_all" => {
            let turns = turns(&input)?;
            Ok(Request::Terminate {
                echo: input,
                target: None,
                turns,
            })
        }
        _ => Err(Fault::general(
            "'action' field must be 'query_version' or 'query_models' or 'clear_cache' or 'terminate' or 'terminate_all'",
        )),
    }
}

/// Reads the fields of one query.
struct Reader<'a> {
    id: String,
    input: &'a Map<String, Value>,
}

impl Reader<'_> {
    fn fault(&self, field: &str, message: impl Into<String>) -> Fault {
        Fault {
            id: Some(self.id.clone()),
            field: Some(field.to_string()),
            message: message.into(),
        }
    }

    fn warn(&self, warnings: &mut Vec<Warning>, field: &str, message: impl Into<String>) {
        warnings.push(Warning {
            id: self.id.clone(),
            field: field.to_string(),
            message: message.into(),
        });
    }

    fn get(&self, field: &str) -> Option<&Value> {
        self.input.get(field)
    }

    fn integer(&self, field: &str, min: i64, max: i64, message: &str) -> Result<i64, Fault> {
        match self.get(field).and_then(Value::as_i64) {
            Some(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(self.fault(field, message)),
        }
    }

    fn number(&self, field: &str, min: f64, max: f64, message: &str) -> Result<f64, Fault> {
        match self.get(field).and_then(Value::as_f64) {
            Some(v) if v.is_finite() && (min..=max).contains(&v) => Ok(v),
            _ => Err(self.fault(field, message)),
        }
    }

    /// An optional boolean field.
    fn flag(&self, field: &str) -> Result<bool, Fault> {
        match self.get(field) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.fault(field, "Must be a boolean")),
        }
    }

    fn player(&self, value: Option<&Value>, field: &str) -> Result<Color, Fault> {
        value
            .and_then(Value::as_str)
            .and_then(parse_color)
            .ok_or_else(|| self.fault(field, "Must be \"b\" or \"w\""))
    }

    fn query(&mut self, cx: &Context, warnings: &mut Vec<Warning>) -> Result<Query, Fault> {
        // Fields are read in KataGo's order, so that a query with several
        // faults gets the one KataGo names.
        let geometry = self.board()?;
        let (stones, moves, initial_player) = self.position(geometry)?;
        let (analyze, priorities) = self.turns_to_analyze(moves.len())?;
        let (rules, komi) = self.rules_and_komi(cx, warnings)?;
        let (settings, pv_len) = self.search_settings(cx, warnings)?;
        let outputs = self.outputs(warnings)?;
        let priority = self.priority()?;
        let restrictions = self.restrictions(geometry)?;
        self.warn_unused_fields(cx, warnings);
        let initial_player = initial_player.unwrap_or_else(|| match moves.first() {
            Some(&(c, _)) => c,
            None if handicap_stones(&stones) => Color::White,
            None => Color::Black,
        });
        let turns = analyze
            .iter()
            .enumerate()
            .filter(|(_, &on)| on)
            .map(|(t, _)| (t, priorities.get(t).copied().flatten().unwrap_or(priority)))
            .collect();
        let query = Query {
            id: self.id.clone(),
            geometry,
            rules,
            komi,
            stones,
            initial_player,
            moves,
            turns,
            settings,
            pv_len,
            include_ownership: outputs.ownership,
            include_ownership_stdev: outputs.ownership_stdev,
            include_moves_ownership: outputs.moves_ownership,
            include_policy: outputs.policy,
            include_pv_visits: outputs.pv_visits,
            report_every: outputs.report_every,
            restrictions,
        };
        if let (_, Some(i)) = replay(&query, query.moves.len()) {
            let (_, mv) = query.moves[i];
            return Err(self.fault(
                "moves",
                format!(
                    "Illegal move {i}: {}",
                    crate::go::vertex::format_move(mv, geometry)
                ),
            ));
        }
        Ok(query)
    }

    /// `boardXSize` columns (the letters) and `boardYSize` rows, as KataGo.
    fn board(&self) -> Result<Geometry, Fault> {
        let size_error = format!("Must provide an integer from 2 to {MAX_BOARD_SIZE}");
        for field in ["boardXSize", "boardYSize"] {
            if self.get(field).is_none() {
                return Err(self.fault(field, &size_error));
            }
        }
        let x = self.integer("boardXSize", 2, MAX_BOARD_SIZE as i64, &size_error)?;
        let y = self.integer("boardYSize", 2, MAX_BOARD_SIZE as i64, &size_error)?;
        Geometry::rect(x as usize, y as usize).ok_or_else(|| self.fault("boardXSize", &size_error))
    }

    /// `initialStones`, `moves` and `initialPlayer`.
    fn position(&self, geometry: Geometry) -> Result<(Stones, Moves, Option<Color>), Fault> {
        let stones = match self.get("initialStones") {
            None => Vec::new(),
            Some(v) => self
                .placements(v, "initialStones", geometry, false)?
                .into_iter()
                .filter_map(|(c, m)| match m {
                    Move::Play(p) => Some((p, c)),
                    Move::Pass => None,
                })
                .collect(),
        };
        let moves = match self.get("moves") {
            Some(v) => self.placements(v, "moves", geometry, true)?,
            None => {
                return Err(self.fault("moves", "Must specify an array of [player,location] pairs"))
            }
        };
        let initial_player = match self.get("initialPlayer") {
            Some(v) => Some(self.player(Some(v), "initialPlayer")?),
            None => None,
        };

        Ok((stones, moves, initial_player))
    }

    /// Which turns to analyse (`analyzeTurns`, else the last) and each one's
    /// `priorities` entry.
    fn turns_to_analyze(&self, moves: usize) -> Result<(Vec<bool>, Vec<Option<i64>>), Fault> {
        let mut analyze = vec![false; moves + 1];
        let analyze_turns = match self.get("analyzeTurns") {
            None => {
                analyze[moves] = true;
                None
            }
            Some(v) => {
                let turns = int_list(v).ok_or_else(|| {
                    self.fault(
                        "analyzeTurns",
                        "Must specify an array of integers indicating turns to analyze",
                    )
                })?;
                for &t in &turns {
                    match usize::try_from(t) {
                        Ok(t) if t <= moves => analyze[t] = true,
                        _ => {
                            return Err(
                                self.fault("analyzeTurns", format!("Invalid turn number: {t}"))
                            )
                        }
                    }
                }
                Some(turns)
            }
        };
        let mut priorities: Vec<Option<i64>> = Vec::new();
        if let Some(v) = self.get("priorities") {
            let list = int_list(v).ok_or_else(|| {
                self.fault(
                    "priorities",
                    "Must specify an array of integers indicating priorities",
                )
            })?;
            let Some(turns) = &analyze_turns else {
                return Err(self.fault(
                    "priorities",
                    "Can only specify when also specifying analyzeTurns",
                ));
            };
            if list.len() != turns.len() {
                return Err(self.fault("priorities", "Must be of matching length to analyzeTurns"));
            }
            priorities = vec![None; moves + 1];
            for (&t, &p) in turns.iter().zip(&list) {
                if !(-MAX_PRIORITY..=MAX_PRIORITY).contains(&p) {
                    return Err(self.fault("priorities", format!("Invalid priority: {p}")));
                }
                // Checked above: 0 <= t <= moves.
                if let Some(slot) = usize::try_from(t).ok().and_then(|t| priorities.get_mut(t)) {
                    *slot = Some(p);
                }
            }
        }

        Ok((analyze, priorities))
    }

    /// `rules` (else the config's), `komi` (else the rules' own) and
    /// `whiteHandicapBonus`.
    fn rules_and_komi(
        &self,
        cx: &Context,
        warnings: &mut Vec<Warning>,
    ) -> Result<(Rules, f64), Fault> {
        let (rules, default_komi) = match self.get("rules") {
            Some(v) => self.rules(v, warnings)?,
            None => match &cx.settings.default_rules {
                Some(text) => self.rules(&Value::String(text.clone()), warnings)?,
                None => return Err(self.fault("rules", RULES_SHAPE)),
            },
        };
        let mut komi = default_komi;
        if self.get("komi").is_some() {
            komi = self.number("komi", -400.0, 400.0, KOMI_RANGE)?;
            if (komi * 2.0).fract() != 0.0 {
                return Err(self.fault("komi", KOMI_RANGE));
            }
        }
        let mut rules = rules;
        if let Some(v) = self.get("whiteHandicapBonus") {
            let bonus = v
                .as_str()
                .ok_or_else(|| self.fault("whiteHandicapBonus", "Must be a string"))?;
            rules.handicap_bonus = bonus.parse::<HandicapBonus>().map_err(|_| {
                self.fault(
                    "whiteHandicapBonus",
                    format!("Could not parse white handicap bonus rule: {bonus}"),
                )
            })?;
        }

        Ok((rules, komi))
    }

    /// The config's search settings with `overrideSettings` and the query's
    /// own search fields; and the PV length.
    fn search_settings(
        &self,
        cx: &Context,
        warnings: &mut Vec<Warning>,
    ) -> Result<(SearchSettings, usize), Fault> {
        let mut settings = cx.settings.search.clone();
        if let Some(v) = self.get("overrideSettings") {
            self.override_settings(v, &mut settings, &cx.settings.overrides_file, warnings)?;
        }
        if cx.net_needs_profile && settings.human_profile.is_none() {
            return Err(self.fault(
                "overrideSettings",
                "Could not set settings: this is a human-SL net and needs humanSLProfile (in the config or overrideSettings)",
            ));
        }
        if self.get("maxVisits").is_some() {
            let v = self.integer(
                "maxVisits",
                1,
                super::settings::MAX_VISITS as i64,
                "Must be an integer from 1 to 2^50",
            )?;
            settings.limits.max_visits = Some(v as u64);
        }
        let mut pv_len = cx.settings.analysis_pv_len;
        if self.get("analysisPVLen").is_some() {
            pv_len = self.integer(
                "analysisPVLen",
                1,
                1000,
                "Must be an integer from 1 to 1000",
            )? as usize;
        }
        if self.get("rootFpuReductionMax").is_some() {
            self.number(
                "rootFpuReductionMax",
                0.0,
                2.0,
                "Must be a number from 0.0 to 2.0",
            )?;
            self.warn(
                warnings,
                "rootFpuReductionMax",
                "tengen ignores rootFpuReductionMax",
            );
        }
        if self.get("rootPolicyTemperature").is_some() {
            let t = self.number(
                "rootPolicyTemperature",
                0.01,
                100.0,
                "Must be a number from 0.01 to 100.0",
            )?;
            settings.root_policy_temperature = t;
        }
        Ok((settings, pv_len))
    }

    /// What the responses include, and how often they come during a search.
    fn outputs(&self, warnings: &mut Vec<Warning>) -> Result<Outputs, Fault> {
        let include_moves_ownership = self.flag("includeMovesOwnership")?;
        for field in ["includeMovesOwnershipStdev", "includeNoResultValue"] {
            if self.flag(field)? {
                self.warn(
                    warnings,
                    field,
                    format!("tengen does not report this yet: {field} ignored"),
                );
            }
        }
        let include_ownership = self.flag("includeOwnership")?;
        let include_ownership_stdev = self.flag("includeOwnershipStdev")?;
        let include_policy = self.flag("includePolicy")?;
        let include_pv_visits = self.flag("includePVVisits")?;
        let seconds = "Must be number of seconds from 0.001 to 1000000.0";
        let mut report_every = None;
        if self.get("reportDuringSearchEvery").is_some() {
            report_every = Some(self.number("reportDuringSearchEvery", 0.001, 1e6, seconds)?);
        }
        if self.get("firstReportDuringSearchAfter").is_some() {
            let first = self.number("firstReportDuringSearchAfter", 0.001, 1e6, seconds)?;
            // One interval serves both: the first report comes after it too.
            report_every.get_or_insert(first);
        }
        Ok(Outputs {
            ownership: include_ownership,
            ownership_stdev: include_ownership_stdev,
            moves_ownership: include_moves_ownership,
            policy: include_policy,
            pv_visits: include_pv_visits,
            report_every,
        })
    }

    /// `priority` (not with `priorities`).
    fn priority(&self) -> Result<i64, Fault> {
        let mut priority = 0;
        if self.get("priority").is_some() {
            if self.get("priorities").is_some() {
                return Err(self.fault("priority", "Cannot specify both priority and priorities"));
            }
            priority = self.integer(
                "priority",
                -MAX_PRIORITY,
                MAX_PRIORITY,
                "Must be a number between -2^62 and 2^62",
            )?;
        }
        Ok(priority)
    }

    /// KataGo's warning for each field it does not know (`warnUnusedFields`).
    fn warn_unused_fields(&self, cx: &Context, warnings: &mut Vec<Warning>) {
        if cx.settings.warn_unused_fields {
            for key in self.input.keys() {
                if !KNOWN_FIELDS.contains(&key.as_str()) {
                    self.warn(
                        warnings,
                        key,
                        "Unexpected or unused field, do you have a typo? (set warnUnusedFields=false in the config to disable this warning)",
                    );
                }
            }
        }
    }

    /// `[["b","D4"],…]` placed on `geometry`.
    fn placements(
        &self,
        v: &Value,
        field: &str,
        geometry: Geometry,
        allow_pass: bool,
    ) -> Result<Vec<(Color, Move)>, Fault> {
        let items = v.as_array().ok_or_else(|| self.fault(field, MOVES_SHAPE))?;
        if items.len() > MAX_MOVES {
            return Err(self.fault(
                field,
                format!(
                    "tengen takes at most {MAX_MOVES} entries here, not {}",
                    items.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let (Some(who), Some(at)) = (
                item.as_array()
                    .filter(|pair| pair.len() == 2)
                    .and_then(|pair| pair[0].as_str()),
                item.as_array()
                    .filter(|pair| pair.len() == 2)
                    .and_then(|pair| pair[1].as_str()),
            ) else {
                return Err(self.fault(field, MOVES_SHAPE));
            };
            let color = parse_color(who.trim())
                .ok_or_else(|| self.fault(field, format!("Could not parse player: {who}")))?;
            let mv = parse_location(at, geometry)
                .filter(|m| allow_pass || *m != Move::Pass)
                .ok_or_else(|| {
                    self.fault(field, format!("Could not parse board location: {at}"))
                })?;
            out.push((color, mv));
        }
        Ok(out)
    }

    /// The rules and their default komi.
    fn rules(&self, v: &Value, warnings: &mut Vec<Warning>) -> Result<(Rules, f64), Fault> {
        // KataGo's text whatever the reason (tengen's reason goes after it).
        let unreadable = |text: &str, why: String| {
            let why = if why.is_empty() {
                why
            } else {
                format!(" ({why})")
            };
            format!("Could not parse rules: {}{why}", clip(text))
        };
        let read = match v {
            // KataGo's words alone for a name it does not know.
            Value::String(s) if !s.trim_start().starts_with('{') => {
                rules::read_text(s, Komi::Allowed).map_err(|_| unreadable(s, String::new()))
            }
            Value::String(s) => {
                rules::read_text(s, Komi::Allowed).map_err(|why| unreadable(s, why))
            }
            Value::Object(o) => {
                rules::read_object(o, Komi::Allowed).map_err(|why| unreadable(&v.to_string(), why))
            }
            _ => Err(RULES_SHAPE.to_string()),
        }
        .map_err(|e| self.fault("rules", e))?;
        if let Some(message) = read.ignored_message() {
            self.warn(warnings, "rules", message);
        }
        Ok((read.rules, read.komi))
    }

    /// `overrideSettings`; `overrides_file` is the config as KataGo's
    /// messages name it there.
    fn override_settings(
        &self,
        v: &Value,
        settings: &mut SearchSettings,
        overrides_file: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), Fault> {
        let Value::Object(o) = v else {
            return Err(self.fault("overrideSettings", "Must be an object"));
        };
        let mut unknown = Vec::new();
        for (key, value) in o {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let used = settings.apply(key, &text).map_err(|e| {
                self.fault(
                    "overrideSettings",
                    format!("Could not set settings: {}", e.describe(overrides_file)),
                )
            })?;
            // KataGo's own parameters that tengen's search has no use for are
            // accepted silently, as KataGo accepts them.
            if !used && !KATAGO_SEARCH_KEYS.contains(&key.as_str()) {
                unknown.push(key.as_str());
            }
        }
        if !unknown.is_empty() {
            self.warn(
                warnings,
                "overrideSettings",
                format!("Unknown config params: {}", unknown.join(",")),
            );
        }
        Ok(())
    }

    fn restrictions(&self, geometry: Geometry) -> Result<Vec<MoveRestriction>, Fault> {
        let allow = self.get("allowMoves");
        let avoid = self.get("avoidMoves");
        let (field, list, is_allow) = match (allow, avoid) {
            (None, None) => return Ok(Vec::new()),
            (Some(_), Some(_)) => {
                return Err(self.fault(
                    "allowMoves",
                    "Cannot specify both allowMoves and avoidMoves",
                ))
            }
            (Some(v), None) => ("allowMoves", v, true),
            (None, Some(v)) => ("avoidMoves", v, false),
        };
        let items = list
            .as_array()
            .ok_or_else(|| self.fault(field, FILTER_SHAPE))?;
        if is_allow && items.len() > 2 {
            return Err(self.fault(
                field,
                "Currently allowMoves only allows at most one entry per player",
            ));
        }
        let mut out: Vec<MoveRestriction> = Vec::new();
        for item in items {
            let Some(entry) = item.as_object().filter(|e| {
                ["moves", "untilDepth", "player"]
                    .iter()
                    .all(|k| e.contains_key(*k))
            }) else {
                return Err(self.fault(field, FILTER_SHAPE));
            };
            let player = entry
                .get("player")
                .and_then(Value::as_str)
                .and_then(parse_color)
                .ok_or_else(|| self.fault("player", "Must be \"b\" or \"w\""))?;
            let locations = entry
                .get("moves")
                .and_then(Value::as_array)
                .ok_or_else(|| self.fault("moves", "Must be an array of GTP board vertices"))?;
            let mut moves = Vec::with_capacity(locations.len());
            for l in locations {
                let text = l
                    .as_str()
                    .ok_or_else(|| self.fault("moves", "Must be an array of GTP board vertices"))?;
                moves.push(parse_location(text, geometry).ok_or_else(|| {
                    self.fault("moves", format!("Could not parse board location: {text}"))
                })?);
            }
            if !entry
                .get("untilDepth")
                .and_then(Value::as_i64)
                .is_some_and(moves::depth_ok)
            {
                return Err(self.fault("untilDepth", "Must be a positive integer"));
            }
            let restriction = MoveRestriction {
                player,
                moves,
                allow: is_allow,
            };
            // Both lists at once were refused above, so only a second allow
            // list for one player can clash here.
            moves::add(&mut out, restriction).map_err(|_| {
                self.fault(
                    field,
                    "Cannot specify allowMoves more than once for the same player",
                )
            })?;
        }
        Ok(out)
    }
}

/// Integers of a JSON array (`None` if it is no array of integers).
fn int_list(v: &Value) -> Option<Vec<i64>> {
    v.as_array()?.iter().map(Value::as_i64).collect()
}

/// KataGo's default: a start with handicap stones (two or more black
/// stones, no white one) has White to move.
fn handicap_stones(stones: &[(Point, Color)]) -> bool {
    let mut board: Vec<(Point, Color)> = Vec::new();
    for &(p, c) in stones {
        board.retain(|&(q, _)| q != p);
        board.push((p, c));
    }
    let count = |color| board.iter().filter(|(_, c)| *c == color).count() as u32;
    crate::go::handicap::count_katago(count(Color::Black), count(Color::White), 0) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::{KoRule, Preset};

    fn cx(settings: &EngineSettings) -> Context<'_> {
        Context {
            settings,
            net_needs_profile: false,
        }
    }

    fn run(line: &str) -> (Result<Request, Fault>, Vec<Warning>) {
        let settings = EngineSettings::default();
        let mut w = Vec::new();
        let r = parse(line, &cx(&settings), &mut w);
        (r, w)
    }

    fn query(line: &str) -> Query {
        match run(line).0 {
            Ok(Request::Analyze(q)) => *q,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn fault(line: &str) -> Fault {
        match run(line).0 {
            Err(f) => f,
            other => panic!("{line}: {other:?}"),
        }
    }

    const BASE: &str = r#""id":"a","rules":"japanese","boardXSize":9,"boardYSize":9"#;

    #[test]
    fn a_katrain_query_reads() {
        let q = query(&format!(
            r#"{{{BASE},"moves":[["B","E5"],["W","C3"]],"komi":6.5,"analyzeTurns":[2],"maxVisits":50,
            "includeOwnership":true,"includePolicy":true,"priority":3,
            "overrideSettings":{{"reportAnalysisWinratesAs":"BLACK","wideRootNoise":0.04,"maxTime":8.0}}}}"#
        ));
        assert_eq!(q.turns, vec![(2, 3)]);
        assert_eq!(q.settings.limits.visits(), Some(50));
        assert_eq!(q.settings.limits.max_time, Some(8.0));
        assert_eq!(q.komi, 6.5);
        assert_eq!(q.rules, Preset::Japanese.rules());
        assert!(q.include_ownership && q.include_policy && !q.include_pv_visits);
        let g = q.game_at(2);
        assert_eq!(g.to_move(), Color::Black);
        assert_eq!(g.board().num_empty(), 79);
        // KataGo's own parameters pass without a word; others get KataGo's warning.
        let (_, w) = run(&format!(
            r#"{{{BASE},"moves":[],"overrideSettings":{{"wideRootNoise":0.04}},"typo":1}}"#
        ));
        let fields: Vec<&str> = w.iter().map(|w| w.field.as_str()).collect();
        assert_eq!(fields, ["typo"]);
        let (_, w) = run(&format!(
            r#"{{{BASE},"moves":[],"overrideSettings":{{"wideRootNoise":0.04,"zeta":1,"alpha":2}}}}"#
        ));
        let texts: Vec<(&str, &str)> = w
            .iter()
            .map(|w| (w.field.as_str(), w.message.as_str()))
            .collect();
        assert_eq!(
            texts,
            [("overrideSettings", "Unknown config params: alpha,zeta")]
        );
    }

    #[test]
    fn a_rectangular_board_is_width_columns_by_height_rows() {
        // boardXSize 13 (columns A..N), boardYSize 9 (rows 1..9).
        let q = query(
            r#"{"id":"a","moves":[["B","N9"],["W","A1"]],"rules":"chinese","boardXSize":13,"boardYSize":9}"#,
        );
        assert_eq!((q.geometry.width(), q.geometry.height()), (13, 9));
        let g = q.geometry;
        assert_eq!(
            q.moves,
            [
                (Color::Black, Move::Play(g.point(12, 0).unwrap())),
                (Color::White, Move::Play(g.point(0, 8).unwrap()))
            ]
        );
        for bad in ["O1", "A10"] {
            let f = fault(&format!(
                r#"{{"id":"a","moves":[["B","{bad}"]],"rules":"chinese","boardXSize":13,"boardYSize":9}}"#
            ));
            assert_eq!(f.field.as_deref(), Some("moves"), "{bad}");
        }
    }

    #[test]
    fn errors_name_the_field_as_katago_does() {
        let cases = [
            (
                r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":9}"#,
                "boardYSize",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":99,"boardYSize":99}"#,
                "boardXSize",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":20}"#,
                "boardYSize",
            ),
            (
                r#"{"id":"a","rules":"chinese","boardXSize":9,"boardYSize":9}"#,
                "moves",
            ),
            (
                r#"{"id":"a","moves":[["B","Z9"]],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
                "moves",
            ),
            (
                r#"{"id":"a","moves":[["B"]],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
                "moves",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"martian","boardXSize":9,"boardYSize":9}"#,
                "rules",
            ),
            (
                r#"{"id":"a","moves":[],"rules":5,"boardXSize":9,"boardYSize":9}"#,
                "rules",
            ),
            (
                r#"{"id":"a","moves":[],"boardXSize":9,"boardYSize":9}"#,
                "rules",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","komi":7.3,"boardXSize":9,"boardYSize":9}"#,
                "komi",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","komi":1e9,"boardXSize":9,"boardYSize":9}"#,
                "komi",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","analyzeTurns":[1],"boardXSize":9,"boardYSize":9}"#,
                "analyzeTurns",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","analyzeTurns":[-1],"boardXSize":9,"boardYSize":9}"#,
                "analyzeTurns",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","maxVisits":0,"boardXSize":9,"boardYSize":9}"#,
                "maxVisits",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","maxVisits":1.5,"boardXSize":9,"boardYSize":9}"#,
                "maxVisits",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","includePolicy":1,"boardXSize":9,"boardYSize":9}"#,
                "includePolicy",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","overrideSettings":{"maxVisits":-4},"boardXSize":9,"boardYSize":9}"#,
                "overrideSettings",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","avoidMoves":[{"player":"b"}],"boardXSize":9,"boardYSize":9}"#,
                "avoidMoves",
            ),
            (
                r#"{"id":"a","moves":[],"rules":"chinese","priority":1,"priorities":[1],"analyzeTurns":[0],"boardXSize":9,"boardYSize":9}"#,
                "priority",
            ),
            (
                r#"{"id":"a","moves":[["B","E5"],["W","E5"]],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
                "moves",
            ),
        ];
        for (line, field) in cases {
            let f = fault(line);
            assert_eq!(f.field.as_deref(), Some(field), "{line}: {f:?}");
            assert_eq!(f.id.as_deref(), Some("a"));
        }
        let many = vec![r#"["B","pass"]"#; MAX_MOVES + 1].join(",");
        let f = fault(&format!(r#"{{{BASE},"moves":[{many}]}}"#));
        assert_eq!(f.field.as_deref(), Some("moves"), "{f:?}");
        let f = fault(
            r#"{"id":"a","moves":[["B","E5"],["W","E5"]],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
        );
        assert_eq!(f.message, "Illegal move 1: E5");
        for general in ["{", "[1]", r#"{"id":5}"#, r#"{"id":"x","action":"dance"}"#] {
            let f = fault(general);
            assert_eq!((f.id, f.field), (None, None), "{general}");
        }
    }

    #[test]
    fn ko_and_turn_order_are_tolerated_as_katago_tolerates_them() {
        // A ko recapture, and two black moves in a row.
        let q = query(&format!(
            r#"{{{BASE},"initialStones":[["B","D5"],["B","E6"],["B","E4"],["W","F6"],["W","F4"],["W","G5"]],
               "moves":[["B","F5"],["W","E5"],["B","F5"],["B","A1"]],"analyzeTurns":[0,2,4]}}"#
        ));
        assert_eq!(q.turns, vec![(0, 0), (2, 0), (4, 0)]);
        assert_eq!(q.initial_player, Color::Black);
        assert_eq!(q.game_at(4).to_move(), Color::White);
    }

    #[test]
    fn actions_and_rules_objects() {
        match run(r#"{"id":"t","action":"terminate","terminateId":"a","turnNumbers":[1,2]}"#).0 {
            Ok(Request::Terminate { target, turns, .. }) => {
                assert_eq!(target.as_deref(), Some("a"));
                assert_eq!(turns, Some(vec![1, 2]));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            fault(r#"{"id":"t","action":"terminate"}"#).field.as_deref(),
            Some("terminateId")
        );
        let q = query(
            r#"{"id":"a","moves":[],"rules":{"ko":"SITUATIONAL","scoring":"TERRITORY","suicide":false},"boardXSize":9,"boardYSize":9}"#,
        );
        assert_eq!(q.rules.ko, KoRule::Situational);
        assert_eq!(q.komi, 6.5);
        let (_, w) = run(
            r#"{"id":"a","moves":[],"rules":"{\"hasButton\":true}","boardXSize":9,"boardYSize":9}"#,
        );
        assert_eq!(w[0].field, "rules");
        let f = fault(
            r#"{"id":"a","moves":[],"rules":{"colour":"red"},"boardXSize":9,"boardYSize":9}"#,
        );
        assert!(
            f.message
                .starts_with(r#"Could not parse rules: {"colour":"red"}"#),
            "{f:?}"
        );
        let named = |name: &str| rules::read_text(name, Komi::Allowed).unwrap();
        assert_eq!(named("stone_scoring").rules.ko, KoRule::Simple);
        assert_eq!(named("new zealand").komi, 7.0);
        // The handicap bonus: the preset's, the object's, the query's field.
        let bonus = |line: &str| query(line).rules.handicap_bonus;
        assert_eq!(
            bonus(&format!(r#"{{{BASE},"moves":[],"rules":"aga"}}"#)),
            HandicapBonus::NMinusOne
        );
        assert_eq!(
            bonus(
                r#"{"id":"a","moves":[],"rules":{"whiteHandicapBonus":"N","friendlyPassOk":true},"boardXSize":9,"boardYSize":9}"#
            ),
            HandicapBonus::N
        );
        assert_eq!(
            bonus(&format!(
                r#"{{{BASE},"moves":[],"whiteHandicapBonus":"N-1"}}"#
            )),
            HandicapBonus::NMinusOne
        );
        assert_eq!(
            fault(&format!(
                r#"{{{BASE},"moves":[],"whiteHandicapBonus":"2N"}}"#
            ))
            .field
            .as_deref(),
            Some("whiteHandicapBonus")
        );
        // KataGo's compact form, and a tax tengen does not play (a warning).
        let q = query(
            r#"{"id":"a","moves":[],"rules":"koSITUATIONALscoreAREAtaxNONEsui1whbN-1","boardXSize":9,"boardYSize":9}"#,
        );
        assert_eq!(
            (q.rules.ko, q.rules.suicide_allowed),
            (KoRule::Situational, true)
        );
        let (r, w) = run(
            r#"{"id":"a","moves":[],"rules":{"scoring":"AREA","tax":"ALL"},"boardXSize":9,"boardYSize":9}"#,
        );
        assert!(matches!(r, Ok(Request::Analyze(_))));
        assert!(w[0].message.contains("tax ALL"), "{w:?}");
    }

    /// Seeded mutations of valid queries (bytes flipped, cut, repeated,
    /// numbers made huge or negative) never panic, and every query that
    /// reads replays to a game.
    #[test]
    fn mutated_queries_never_panic() {
        let seeds = [
            format!(
                r#"{{{BASE},"moves":[["B","E5"],["W","C3"],["B","pass"]],"analyzeTurns":[0,3],"komi":7.5,
                "initialStones":[["W","A1"]],"priorities":[1,2],"includePolicy":true,"analysisPVLen":5,
                "overrideSettings":{{"maxVisits":10,"humanSLProfile":"rank_3d"}},
                "avoidMoves":[{{"player":"B","moves":["D4","(1,1)"],"untilDepth":2}}]}}"#
            ),
            r#"{"id":"t","action":"terminate","terminateId":"a","turnNumbers":[1]}"#.to_string(),
            r#"{"id":"a","moves":[],"rules":{"ko":"POSITIONAL","komi":-3.5,"tax":"ALL"},"boardXSize":19,"boardYSize":19,"allowMoves":[{"player":"W","moves":["Q16"],"untilDepth":1}]}"#.to_string(),
        ];
        let pieces: [&str; 12] = [
            "-1",
            "1e308",
            "99999999999999999999",
            "\"",
            "[",
            "]",
            "{",
            "}",
            ",",
            "null",
            "\"pass\"",
            "4294967296",
        ];
        let settings = EngineSettings::default();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut read = 0;
        for round in 0..100_000 {
            let mut line = seeds[round % seeds.len()].clone().into_bytes();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % (line.len() + 1);
                match next() % 4 {
                    0 if at < line.len() => line[at] = (next() % 128) as u8,
                    1 => line.truncate(at),
                    2 => {
                        let p = pieces[(next() as usize) % pieces.len()].as_bytes();
                        line.splice(at..at, p.iter().copied());
                    }
                    _ => {
                        let len = ((next() as usize) % 40).min(line.len() - at.min(line.len()));
                        let copy: Vec<u8> = line[at..at + len].to_vec();
                        line.splice(at..at, copy);
                    }
                }
            }
            let text = String::from_utf8_lossy(&line);
            let mut w = Vec::new();
            if let Ok(Request::Analyze(q)) = parse(&text, &cx(&settings), &mut w) {
                read += 1;
                for &(t, _) in &q.turns {
                    q.game_at(t);
                }
                q.excluded(Color::Black);
            }
        }
        assert!(read > 100, "some mutations still read: {read}");
    }

    #[test]
    fn locations_and_restrictions() {
        let g = Geometry::new(9).unwrap();
        assert_eq!(
            parse_location("(0,0)", g),
            Some(Move::Play(g.point(0, 0).unwrap()))
        );
        assert_eq!(parse_location("(9,0)", g), None);
        assert_eq!(parse_location("PASS", g), Some(Move::Pass));
        let q = query(&format!(
            r#"{{{BASE},"moves":[],"allowMoves":[{{"player":"B","moves":["E5","D4"],"untilDepth":1}}]}}"#
        ));
        assert_eq!(q.excluded(Color::Black).len(), 79);
        assert!(q.excluded(Color::White).is_empty());
        let q = query(&format!(
            r#"{{{BASE},"moves":[],"avoidMoves":[{{"player":"W","moves":["E5","pass"],"untilDepth":3}}]}}"#
        ));
        assert_eq!(q.excluded(Color::White), vec![g.point(4, 4).unwrap()]);
    }
}
