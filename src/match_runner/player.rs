//! One engine taking part in a match (or refereeing it): its command line, the
//! GTP commands it lists, and a [`GtpClient`] that is started on demand and
//! thrown away after any error that breaks the protocol (crash, timeout), so
//! the next game starts from a fresh process.

use crate::match_runner::gtp_client::{GtpClient, GtpError};
use crate::time::TimeSystem;
use std::collections::HashSet;
use std::time::Duration;

/// What every game starts with, as the engines are told it.
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub size: usize,
    pub komi: f64,
    /// Argument of `kgs-rules`, when the rules have a KGS name.
    pub kgs_rules: Option<&'static str>,
    /// Seconds per move, sent as `time_settings 0 T 1`.
    pub seconds_per_move: Option<u32>,
    /// A game clock the runner keeps (absolute or Japanese byo-yomi).
    pub clock: Option<TimeSystem>,
}

/// Deadlines for engine responses.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// Any command but `genmove`.
    pub command: Duration,
    /// `genmove`.
    pub genmove: Duration,
}

/// See the module documentation.
pub struct Player {
    command_line: String,
    label: String,
    client: Option<GtpClient>,
    commands: HashSet<String>,
    name: Option<String>,
}

impl Player {
    /// An engine run by `command_line` (through the platform's shell), called
    /// `label` in logs.
    pub fn new(command_line: &str, label: &str) -> Player {
        Player {
            command_line: command_line.to_string(),
            label: label.to_string(),
            client: None,
            commands: HashSet::new(),
            name: None,
        }
    }

    /// The engine's `name` and `version`, once it has answered them.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The label given at creation (`A`, `B`, `referee`).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether the engine listed `command` in `list_commands`.
    pub fn supports(&self, command: &str) -> bool {
        self.commands.contains(command)
    }

    /// Starts the engine unless it is running, and learns its name and commands.
    ///
    /// # Errors
    /// The engine could not be started or does not answer `list_commands`
    /// (a failure response to it is tolerated: then only the required GTP
    /// commands are assumed).
    pub fn start(&mut self, timeout: Duration) -> Result<(), GtpError> {
        if self.client.is_some() {
            return Ok(());
        }
        self.client = Some(GtpClient::spawn(&self.command_line, &self.label)?);
        self.commands = match self.send("list_commands", timeout) {
            Ok(list) => list.split_whitespace().map(str::to_string).collect(),
            Err(e) if e.is_fatal() => return Err(e),
            Err(_) => REQUIRED.iter().map(|c| c.to_string()).collect(),
        };
        if self.name.is_none() {
            let name = self.send_tolerant("name", timeout)?;
            let version = self.send_tolerant("version", timeout)?;
            let full = format!("{name} {version}").trim().to_string();
            if !full.is_empty() {
                self.name = Some(full);
            }
        }
        Ok(())
    }

    /// Like [`Player::send`], but a failure response only gives an empty
    /// answer (logged); errors that break the protocol are still errors.
    fn send_tolerant(&mut self, command: &str, timeout: Duration) -> Result<String, GtpError> {
        match self.send(command, timeout) {
            Err(e) if !e.is_fatal() => {
                crate::log_line!("[{}] {e}; going on without it", self.label);
                Ok(String::new())
            }
            other => other,
        }
    }

    /// Sends one command. After an error that breaks the protocol the engine is
    /// killed; the next [`Player::start`] starts a new one.
    ///
    /// # Errors
    /// See [`GtpClient::send`].
    pub fn send(&mut self, command: &str, timeout: Duration) -> Result<String, GtpError> {
        let Some(client) = self.client.as_mut() else {
            return Err(GtpError::Exited {
                command: command.to_string(),
                detail: "not running".to_string(),
            });
        };
        let result = client.send(command, timeout);
        if let Err(e) = &result {
            if e.is_fatal() {
                crate::log_line!("[{}] {e}; stopping it", self.label);
                self.client = None;
            }
        }
        result
    }

    /// Starts the engine if needed and sets up a new game: `kgs-rules` and
    /// `time_settings` if listed (a failure response to them is tolerated: the
    /// moves are checked and the clock enforced anyway), then the required
    /// `boardsize`, `clear_board` and `komi`, which must succeed.
    ///
    /// # Errors
    /// The first command that failed.
    pub fn new_game(&mut self, settings: &GameSettings, timeout: Duration) -> Result<(), GtpError> {
        self.start(timeout)?;
        if let Some(rules) = settings.kgs_rules {
            if self.supports("kgs-rules") {
                self.send_tolerant(&format!("kgs-rules {rules}"), timeout)?;
            }
        }
        self.send(&format!("boardsize {}", settings.size), timeout)?;
        self.send("clear_board", timeout)?;
        self.send(&format!("komi {}", settings.komi), timeout)?;
        if let Some(t) = settings.seconds_per_move {
            if self.supports("time_settings") {
                self.send_tolerant(&format!("time_settings 0 {t} 1"), timeout)?;
            }
        }
        match settings.clock {
            Some(TimeSystem::Byoyomi {
                main,
                period,
                periods,
            }) => {
                // f64's Display writes whole seconds without a fraction (300, 0.2).
                if self.supports("kgs-time_settings") {
                    let command = format!("kgs-time_settings byoyomi {main} {period} {periods}");
                    self.send_tolerant(&command, timeout)?;
                } else if self.supports("time_settings") {
                    // GTP has no byo-yomi: a Canadian period of one stone is the same
                    // for the last period.
                    self.send_tolerant(&format!("time_settings {main} {period} 1"), timeout)?;
                }
            }
            Some(TimeSystem::Absolute { main }) if self.supports("time_settings") => {
                let command = format!("time_settings {main} 0 0");
                self.send_tolerant(&command, timeout)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Sends `quit` and waits briefly for the engine to exit.
    pub fn stop(&mut self) {
        if let Some(client) = self.client.take() {
            client.quit();
        }
    }
}

/// The commands GTP v2 requires of every engine.
const REQUIRED: [&str; 11] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
];
