//! Which network an engine runs when started: `--model PATH` if given, else
//! the file named by the `TENGEN_MODEL` environment variable, else the
//! per-user default file `tengen/default.bin.gz` in the platform's data
//! folder ([`DataFolder`]: `$XDG_DATA_HOME` or `~/.local/share` on Linux and
//! the BSDs, where `.ci/fetch-nets --install` puts the recommended net;
//! `~/Library/Application Support` on macOS; `%APPDATA%` on Windows), else
//! the net built into the binary
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

/// Where a platform keeps per-user application data, and so the per-user
/// default net. The environment is read through a function, so every
/// platform's rule can be tested on any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFolder {
    /// Linux and the BSDs: `$XDG_DATA_HOME`, which defaults to
    /// `$HOME/.local/share` as the XDG base directory specification says (a
    /// relative `XDG_DATA_HOME` is ignored, as the specification asks).
    Xdg,
    /// macOS: `$HOME/Library/Application Support`.
    MacOs,
    /// Windows: `%APPDATA%` (the roaming application data folder).
    Windows,
}

impl DataFolder {
    /// The rule of the platform this binary was built for.
    pub const HERE: DataFolder = if cfg!(windows) {
        DataFolder::Windows
    } else if cfg!(target_os = "macos") {
        DataFolder::MacOs
    } else {
        DataFolder::Xdg
    };

    /// The per-user default net, `tengen/default.bin.gz` in this data folder;
    /// `None` when the variables it is found from are unset or empty.
    pub fn user_default_path(self, env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let data = match self {
            DataFolder::Xdg => set("XDG_DATA_HOME")
                .filter(|p| p.is_absolute())
                .or_else(|| set("HOME").map(|home| home.join(".local").join("share")))?,
            DataFolder::MacOs => set("HOME")?.join("Library").join("Application Support"),
            DataFolder::Windows => set("APPDATA")?,
        };
        Some(data.join("tengen").join("default.bin.gz"))
    }
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
        match DataFolder::HERE.user_default_path(env) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment holding just `vars`.
    fn env_of<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    fn path(folder: DataFolder, vars: &[(&str, &str)]) -> Option<PathBuf> {
        folder.user_default_path(&env_of(vars))
    }

    #[test]
    fn xdg_data_home_then_home() {
        let net = |dir: &str| Some(Path::new(dir).join("tengen").join("default.bin.gz"));
        let xdg = DataFolder::Xdg;
        // An absolute path where the test runs: `/data` has no drive on Windows.
        let data = if cfg!(windows) { r"C:\data" } else { "/data" };
        assert_eq!(
            path(xdg, &[("XDG_DATA_HOME", data), ("HOME", "/home/u")]),
            net(data)
        );
        assert_eq!(
            path(xdg, &[("HOME", "/home/u")]),
            net("/home/u/.local/share")
        );
        // Empty or relative XDG_DATA_HOME: as if unset.
        for bad in ["", "rel/dir"] {
            assert_eq!(
                path(xdg, &[("XDG_DATA_HOME", bad), ("HOME", "/home/u")]),
                net("/home/u/.local/share")
            );
        }
        assert_eq!(path(xdg, &[("XDG_DATA_HOME", "rel")]), None);
        assert_eq!(path(xdg, &[("APPDATA", "/appdata")]), None);
        assert_eq!(path(xdg, &[]), None);
    }

    #[test]
    fn macos_application_support() {
        let mac = DataFolder::MacOs;
        assert_eq!(
            path(mac, &[("HOME", "/Users/u"), ("XDG_DATA_HOME", "/data")]),
            Some(PathBuf::from(
                "/Users/u/Library/Application Support/tengen/default.bin.gz"
            ))
        );
        assert_eq!(path(mac, &[("HOME", "")]), None);
        assert_eq!(path(mac, &[("XDG_DATA_HOME", "/data")]), None);
    }

    #[test]
    fn windows_appdata() {
        let win = DataFolder::Windows;
        let appdata = r"C:\Users\u\AppData\Roaming";
        assert_eq!(
            path(win, &[("APPDATA", appdata), ("HOME", "/home/u")]),
            Some(Path::new(appdata).join("tengen").join("default.bin.gz"))
        );
        assert_eq!(path(win, &[("APPDATA", "")]), None);
        assert_eq!(
            path(win, &[("HOME", "/home/u"), ("XDG_DATA_HOME", "/d")]),
            None
        );
    }

    #[test]
    fn flag_then_variable_then_user_default_then_built_in() {
        let dir = std::env::temp_dir().join(format!("tengen-source-{}", std::process::id()));
        let (var, value) = match DataFolder::HERE {
            DataFolder::Xdg => ("XDG_DATA_HOME", dir.clone()),
            DataFolder::MacOs => ("HOME", dir.clone()),
            DataFolder::Windows => ("APPDATA", dir.clone()),
        };
        let value = value.into_os_string();
        let env = |name: &str| (name == var).then(|| value.clone());
        // Nothing there yet: the built-in net.
        assert_eq!(NetSource::choose(None, &env), NetSource::BuiltIn);
        let file = DataFolder::HERE.user_default_path(&env).unwrap();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"").unwrap();
        assert_eq!(
            NetSource::choose(None, &env),
            NetSource::UserDefault(file.clone())
        );
        let with_var = |name: &str| match name {
            ENV_VAR => Some(OsString::from("/nets/x.bin.gz")),
            _ => env(name),
        };
        assert_eq!(
            NetSource::choose(None, &with_var),
            NetSource::Environment(PathBuf::from("/nets/x.bin.gz"))
        );
        let flag = Path::new("/nets/flag.bin.gz");
        assert_eq!(
            NetSource::choose(Some(flag), &with_var),
            NetSource::Flag(flag.to_path_buf())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
