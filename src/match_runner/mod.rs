//! `tengen match`: plays two GTP engines against each other, colours
//! alternating as in gogui-twogtp (game 1: engine A — the `--black` engine —
//! takes Black, game 2: White, …), checks every move under our own rules,
//! counts finished games and reports the win rate of engine A with a 95%
//! Wilson interval.
//!
//! The game lines and the summary go to the given writer (stdout); progress
//! and engine trouble go to stderr.

mod game_loop;
pub mod gtp_client;
mod openings;
mod player;
mod report;
pub mod stats;

use crate::config::RuleArgs;
use crate::go::board::{Color, Geometry};
use crate::go::rules::{KoRule, Preset, Rules, Scoring};
use crate::time::TimeSystem;
use clap::Args;
use game_loop::{GameRecord, GameSpec};
use player::{GameSettings, Player, Timeouts};
use report::Tally;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `tengen match` options.
#[derive(Args, Clone, Debug)]
pub struct MatchArgs {
    /// Engine A, Black in odd-numbered games: a command line run with `sh -c`
    /// (`cmd /C` on Windows).
    #[arg(long, value_name = "CMD")]
    pub black: String,
    /// Engine B, White in odd-numbered games: a command line run with `sh -c`
    /// (`cmd /C` on Windows).
    #[arg(long, value_name = "CMD")]
    pub white: String,
    /// Number of games; colours alternate (unless --fixed-colors).
    #[arg(long, default_value_t = 2)]
    pub games: u32,
    /// Engine A is Black in every game.
    #[arg(long)]
    pub fixed_colors: bool,
    /// Handicap stones for Black on GNU Go's fixed points, sent to both
    /// engines (and the referee) as `set_free_handicap`; White moves first.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub handicap: u32,
    /// Board size (2 to 25).
    #[arg(long, default_value_t = 9)]
    pub size: usize,
    /// Komi; default: the rule preset's usual komi.
    #[arg(long, allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Seconds per move, sent as `time_settings 0 T 1` (Canadian byo-yomi, one
    /// stone per T seconds) and `time_left <color> T 1` before every genmove,
    /// each if the engine lists it.
    #[arg(long, value_name = "T")]
    pub time: Option<u32>,
    /// A real clock: each player's main time for the game, in seconds. The
    /// runner keeps both clocks, sends `time_left` before every genmove, and
    /// an engine whose flag falls loses on time. Absolute time, or Japanese
    /// byo-yomi after it with --byoyomi. Not with --time.
    #[arg(long, value_name = "SECONDS", conflicts_with = "time")]
    pub main_time: Option<f64>,
    /// Japanese byo-yomi after the main time: --periods periods of this many
    /// seconds; a move made within a period does not use it up (sent as
    /// `kgs-time_settings byoyomi`, else `time_settings M T 1`).
    #[arg(long, value_name = "SECONDS", conflicts_with = "time")]
    pub byoyomi: Option<f64>,
    /// Byo-yomi periods (with --byoyomi).
    #[arg(long, default_value_t = 1, value_name = "N", requires = "byoyomi")]
    pub periods: u32,
    /// Seconds a move may run past the clock and still be in time: the
    /// transmission lag a server forgives (with --main-time or --byoyomi).
    #[arg(long, default_value_t = 0.5, value_name = "SECONDS")]
    pub lag: f64,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Referee engine: told every move; its `final_status_list dead` decides
    /// the dead stones; its `final_score` is shown when it differs from ours.
    #[arg(long, value_name = "CMD")]
    pub referee: Option<String>,
    /// Directory for one SGF file per game (`game-001.sgf`, …), created if missing.
    #[arg(long, value_name = "DIR")]
    pub sgf_dir: Option<PathBuf>,
    /// A game reaching this many moves ends without result.
    #[arg(long, default_value_t = 1000, value_name = "M")]
    pub max_moves: u32,
    /// Openings: an SGF file or a directory of them (read in name order).
    /// Games 2k-1 and 2k begin with the first --opening-moves moves of game k
    /// (cycled), played to both engines and the referee, once with each colour
    /// for engine A. Not with --handicap
    #[arg(long, value_name = "PATH", conflicts_with = "handicap")]
    pub openings: Option<PathBuf>,
    /// Moves taken from each opening
    #[arg(long, default_value_t = 20, value_name = "N", requires = "openings")]
    pub opening_moves: u32,
    /// Seconds an engine may take to answer any command but genmove.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// Seconds an engine may take for genmove before it loses on time;
    /// default: 2T with at least 5 s margin when --time T is given, else 120.
    #[arg(long, value_name = "SECONDS")]
    pub move_timeout: Option<f64>,
}

impl MatchArgs {
    /// Checks the options that clap cannot check.
    fn validate(&self) -> Result<(), String> {
        let seconds_ok = |s: f64| s.is_finite() && s > 0.0 && s < 1e7;
        if !seconds_ok(self.timeout) || !self.move_timeout.is_none_or(seconds_ok) {
            return Err("timeouts must be positive numbers of seconds".into());
        }
        if self.komi.is_some_and(|k| !k.is_finite()) {
            return Err("--komi must be a number".into());
        }
        if self.handicap == 1 {
            return Err("--handicap must be 0 or at least 2 stones".into());
        }
        let clock_ok = |s: f64| s.is_finite() && (0.0..1e7).contains(&s);
        if !self.main_time.is_none_or(clock_ok)
            || !self.byoyomi.is_none_or(|s| clock_ok(s) && s > 0.0)
            || !clock_ok(self.lag)
        {
            return Err(
                "--main-time, --byoyomi and --lag must be seconds (byo-yomi above 0)".into(),
            );
        }
        if self.byoyomi.is_some() && self.periods == 0 {
            return Err("--periods must be at least 1".into());
        }
        if self.openings.is_some() && self.opening_moves >= self.max_moves {
            return Err("--opening-moves must be fewer than --max-moves".into());
        }
        Ok(())
    }

    /// The game clock of --main-time and --byoyomi, if any.
    fn clock(&self) -> Option<TimeSystem> {
        match (self.main_time, self.byoyomi) {
            (None, None) => None,
            (main, Some(period)) => Some(TimeSystem::Byoyomi {
                main: main.unwrap_or(0.0),
                period,
                periods: self.periods,
            }),
            (Some(main), None) => Some(TimeSystem::Absolute { main }),
        }
    }

    fn timeouts(&self) -> Timeouts {
        let clock_total = self
            .clock()
            .map(|c| match c {
                TimeSystem::Byoyomi {
                    main,
                    period,
                    periods,
                } => main + period * f64::from(periods),
                TimeSystem::Absolute { main } => main,
                _ => 0.0,
            })
            .map(|total| total + self.lag + 5.0);
        let genmove = self.move_timeout.unwrap_or(match (self.time, clock_total) {
            (Some(t), _) => f64::from(t) + f64::from(t).max(5.0),
            (None, Some(total)) => total,
            (None, None) => 120.0,
        });
        Timeouts {
            command: Duration::from_secs_f64(self.timeout),
            genmove: Duration::from_secs_f64(genmove),
        }
    }
}

/// The `kgs-rules` name of a preset.
fn kgs_rules_name(preset: Preset) -> Option<&'static str> {
    match preset {
        Preset::Chinese => Some("chinese"),
        Preset::Japanese => Some("japanese"),
        Preset::Aga => Some("aga"),
        Preset::NewZealand => Some("new_zealand"),
        Preset::TrompTaylor | Preset::Goe => None,
    }
}

/// `positional superko, suicide forbidden, area scoring`.
fn describe(rules: Rules) -> String {
    let ko = match rules.ko {
        KoRule::Simple => "simple ko".to_string(),
        other => format!("{} superko", other.name()),
    };
    let suicide = if rules.suicide_allowed {
        "allowed"
    } else {
        "forbidden"
    };
    let scoring = match rules.scoring {
        Scoring::Area => "area",
        Scoring::Territory => "territory",
    };
    format!("{ko}, suicide {suicide}, {scoring} scoring")
}

/// Plays the match, writing one line per game and the summary to `out`.
///
/// # Errors
/// Invalid options, or `out` cannot be written. Engine failures are never
/// errors: they lose games.
pub fn run(args: &MatchArgs, out: &mut impl Write) -> Result<(), String> {
    args.validate()?;
    let geometry = Geometry::new(args.size)
        .ok_or_else(|| format!("--size {} is not supported (2 to 25)", args.size))?;
    if let Some(dir) = &args.sgf_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create --sgf-dir {}: {e}", dir.display()))?;
    }
    let preset = args.rules.preset().unwrap_or(Preset::Chinese);
    let handicap = match args.handicap {
        0 => Vec::new(),
        n => crate::go::handicap::fixed(geometry, n as usize).ok_or_else(|| {
            format!(
                "--handicap {n}: a {0}x{0} board takes 2 to {1} fixed stones",
                args.size,
                crate::go::handicap::max_fixed(geometry)
            )
        })?,
    };
    let spec = GameSpec {
        geometry,
        settings: GameSettings {
            size: args.size,
            komi: args.komi.unwrap_or(preset.default_komi()),
            kgs_rules: kgs_rules_name(preset),
            seconds_per_move: args.time,
            clock: args.clock(),
        },
        lag: args.lag,
        rules: args.rules.resolve(Preset::Chinese),
        handicap,
        max_moves: args.max_moves,
        timeouts: args.timeouts(),
    };
    let openings = match &args.openings {
        Some(path) => openings::load(path, args.opening_moves, geometry, spec.rules)
            .map_err(|e| format!("--openings: {e}"))?,
        None => Vec::new(),
    };
    let started = Instant::now();
    let mut a = Player::new(&args.black, "A");
    let mut b = Player::new(&args.white, "B");
    let mut referee = args.referee.as_deref().map(|c| Player::new(c, "referee"));
    for p in [&mut a, &mut b] {
        if let Err(e) = p.start(spec.timeouts.command) {
            crate::log_line!("engine {}: {e}", p.label());
        }
    }
    let io = |e: io::Error| format!("cannot write the results: {e}");
    write_header(out, args, &spec, [&a, &b], openings.len()).map_err(io)?;

    let mut tally = Tally::default();
    for number in 1..=args.games {
        let a_color = if number % 2 == 1 || args.fixed_colors {
            Color::Black
        } else {
            Color::White
        };
        crate::log_line!("game {number} of {}: A plays {a_color}", args.games);
        // Both games of a pair on one opening.
        let opening =
            (!openings.is_empty()).then(|| &openings[((number - 1) / 2) as usize % openings.len()]);
        let record = match a_color {
            Color::Black => game_loop::play_game(&spec, opening, &mut a, &mut b, referee.as_mut()),
            Color::White => game_loop::play_game(&spec, opening, &mut b, &mut a, referee.as_mut()),
        };
        tally.add(&record, a_color);
        if let Some(dir) = &args.sgf_dir {
            save_sgf(dir, number, &record, args.handicap);
        }
        writeln!(out, "{}", report::game_line(number, a_color, &record)).map_err(io)?;
    }
    for p in [&mut a, &mut b] {
        p.stop();
    }
    if let Some(r) = referee.as_mut() {
        r.stop();
    }
    for line in tally.summary_lines(started.elapsed()) {
        writeln!(out, "{line}").map_err(io)?;
    }
    Ok(())
}

/// The match's first lines: the engines, then the games' settings.
fn write_header(
    out: &mut impl Write,
    args: &MatchArgs,
    spec: &GameSpec,
    players: [&Player; 2],
    openings: usize,
) -> io::Result<()> {
    for (label, player, command) in [
        ("A", players[0], &args.black),
        ("B", players[1], &args.white),
    ] {
        match player.name() {
            Some(name) => writeln!(out, "{label}: {name} ({command})"),
            None => writeln!(out, "{label}: {command}"),
        }?;
    }
    writeln!(
        out,
        "{} games, {}x{}, komi {}, rules {} ({}){}{}",
        args.games,
        args.size,
        args.size,
        spec.settings.komi,
        args.rules.preset().unwrap_or(Preset::Chinese).name(),
        describe(spec.rules),
        match (args.time, args.clock()) {
            (Some(t), _) => format!(", {t} s per move"),
            (
                None,
                Some(TimeSystem::Byoyomi {
                    main,
                    period,
                    periods,
                }),
            ) => format!(", {main} s main time + {periods} x {period} s byo-yomi"),
            (None, Some(TimeSystem::Absolute { main })) => format!(", {main} s main time"),
            _ => String::new(),
        },
        if args.handicap > 0 {
            format!(", handicap {} for Black", args.handicap)
        } else {
            String::new()
        }
    )?;
    if let Some(path) = &args.openings {
        writeln!(
            out,
            "openings: the first {} moves of {} games from {}",
            args.opening_moves,
            openings,
            path.display()
        )?;
    }
    Ok(())
}

/// Writes game `number` as `DIR/game-NNN.sgf`; a failure is reported on stderr
/// and does not stop the match.
fn save_sgf(dir: &Path, number: u32, record: &GameRecord, handicap: u32) {
    let path = dir.join(format!("game-{number:03}.sgf"));
    let text = crate::sgf::write_game(&record.game, handicap, Some(&record.result));
    if let Err(e) = std::fs::write(&path, text) {
        crate::log_line!("cannot write {}: {e}", path.display());
    }
}
