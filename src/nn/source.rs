//! Which network an engine runs when started: `--model PATH` if given, else
//! the file named by the `TENGEN_MODEL` environment variable, else the
//! per-user default file (`$XDG_DATA_HOME/tengen/default.bin.gz`, or
//! `~/.local/share/tengen/default.bin.gz`; `.ci/fetch-nets --install` puts
//! the recommended net there), else the net built into the binary
//! ([`super::builtin`]). A file that is named or present but does not load is
//! an error, never a silent fall-back.

use super::builtin;
use super::file::error::ModelError;
use super::net::network::Network;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// The environment variable naming the default net.
pub const ENV_VAR: &str = "TENGEN_MODEL";

/// Where the net comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetSource {
    /// `--model PATH`.
    Flag(PathBuf),
    /// `TENGEN_MODEL=PATH`.
    Environment(PathBuf),
    /// The per-user default file.
    UserDefault(PathBuf),
    /// The net compiled into the binary.
    BuiltIn,
    /// `--human-model PATH` (never chosen by [`NetSource::choose`]: a
    /// human-SL net is only ever named).
    HumanFlag(PathBuf),
}

/// The per-user default file: `$XDG_DATA_HOME/tengen/default.bin.gz`, with
/// `XDG_DATA_HOME` defaulting to `$HOME/.local/share` as the XDG base
/// directory specification says; `None` without either variable.
pub fn user_default_path(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let data = set("XDG_DATA_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| set("HOME").map(|home| home.join(".local/share")))?;
    Some(data.join("tengen").join("default.bin.gz"))
}

impl NetSource {
    /// The source for this command line and environment (`env` reads a
    /// variable; the real one is [`std::env::var_os`]).
    pub fn choose(flag: Option<&Path>, env: &dyn Fn(&str) -> Option<OsString>) -> NetSource {
        if let Some(path) = flag {
            return NetSource::Flag(path.to_path_buf());
        }
        if let Some(path) = env(ENV_VAR).filter(|v| !v.is_empty()) {
            return NetSource::Environment(PathBuf::from(path));
        }
        match user_default_path(env) {
            Some(path) if path.exists() => NetSource::UserDefault(path),
            _ => NetSource::BuiltIn,
        }
    }

    /// The file, unless the net is the built-in one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            NetSource::Flag(p)
            | NetSource::Environment(p)
            | NetSource::UserDefault(p)
            | NetSource::HumanFlag(p) => Some(p),
            NetSource::BuiltIn => None,
        }
    }

    /// The net's name in KataGo's lists of models (`kata-get-models`,
    /// `query_models`): its file as given, or the built-in net's published
    /// file name.
    pub fn model_name(&self) -> String {
        self.path().map_or_else(
            || builtin::FILE_NAME.to_string(),
            |p| p.display().to_string(),
        )
    }

    /// Loads the net; errors name the file and how it was chosen.
    pub fn load(&self) -> Result<Network, ModelError> {
        match self.path() {
            Some(path) => Network::load(path).map_err(|e| match self {
                NetSource::Flag(_) | NetSource::HumanFlag(_) => e,
                _ => ModelError::new(format!("{} (chosen as {self})", e.message)),
            }),
            None => builtin::network(),
        }
    }
}

impl fmt::Display for NetSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetSource::Flag(p) => write!(f, "--model {}", p.display()),
            NetSource::Environment(p) => write!(f, "{ENV_VAR}={}", p.display()),
            NetSource::UserDefault(p) => write!(f, "the per-user default {}", p.display()),
            NetSource::BuiltIn => write!(f, "the built-in net"),
            NetSource::HumanFlag(p) => write!(f, "--human-model {}", p.display()),
        }
    }
}
