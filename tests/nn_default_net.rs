//! Which net `tengen` runs when started: the built-in b6c96 with no flags,
//! `TENGEN_MODEL` and the per-user default file before it, `--model` before
//! all, `--classical` for none; a named file that does not load is an error,
//! not a silent fall-back. The engines here get an explicit environment.

use crate::common;

use common::Engine;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tengen::nn::source::DataFolder;

/// The variable that places the per-user data folder where the tests run:
/// `XDG_DATA_HOME` on Linux, `APPDATA` on Windows, `HOME` on macOS.
const DATA_VAR: &str = match DataFolder::HERE {
    DataFolder::Xdg => "XDG_DATA_HOME",
    DataFolder::Windows => "APPDATA",
    DataFolder::MacOs => "HOME",
};

/// The per-user default net when [`DATA_VAR`] is `dir`.
fn user_default_under(dir: &Path) -> PathBuf {
    DataFolder::HERE
        .user_default_path(&|name| (name == DATA_VAR).then(|| dir.as_os_str().to_owned()))
        .expect("a data folder")
}

/// A directory under the system temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p =
            std::env::temp_dir().join(format!("tengen-default-net-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `tengen ARGS` with `env` (and nothing else of tengen's: no
/// TENGEN_MODEL, XDG_DATA_HOME or APPDATA unless given), sends `stdin`;
/// returns (success, stdout, stderr).
fn run(args: &[&str], env: &[(&str, &Path)], stdin: &str) -> (bool, String, String) {
    use std::io::Write as _;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tengen"));
    cmd.args(args)
        .env_remove("TENGEN_MODEL")
        .env("XDG_DATA_HOME", common::NO_USER_DATA)
        .env("APPDATA", common::NO_USER_DATA)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const RAW_NN: &str = "boardsize 9\nkata-raw-nn 0\nquit\n";

#[test]
fn with_no_flags_the_built_in_net_plays_and_says_so() {
    let mut e = Engine::spawn_default_net(&["--size", "9", "--playouts", "30"]);
    assert_eq!(e.ok("known_command kata-raw-nn"), "true");
    assert!(e.ok("kata-raw-nn 0").contains("whiteWin"));
    let mv = e.ok("genmove b");
    assert!(mv.len() >= 2 && mv != "resign", "{mv}");
    assert!(
        e.stderr_has("network from the built-in net: g170-b6c96-s175395328-d26788732"),
        "{}",
        e.stderr()
    );
    assert!(e.stderr_has("MIT licence"), "the credit is shown");
}

#[test]
fn the_built_in_net_is_the_published_file() {
    // The shared copy of KataGo's file, when present, is byte for byte the
    // one compiled in.
    if let Some(p) = common::b6c96_path() {
        assert!(std::fs::read(p).unwrap() == tengen::nn::builtin::BYTES);
    }
    let m = tengen::nn::builtin::model().expect("the built-in net parses");
    assert_eq!(m.version, 8);
    assert!(tengen::nn::builtin::NOTICE.contains("MIT License"));
}

#[test]
fn environment_then_user_default_then_built_in() {
    let Some(b6) = common::b6c96_path() else {
        return;
    };
    let data = Scratch::new("xdg");
    let user_default = user_default_under(&data.0);
    // No user file yet: the built-in net.
    let (ok, out, err) = run(&[], &[(DATA_VAR, &data.0)], RAW_NN);
    assert!(ok && out.contains("whiteWin"), "{err}");
    assert!(err.contains("network from the built-in net"), "{err}");
    // A user file: it is used, and named.
    std::fs::create_dir_all(user_default.parent().unwrap()).unwrap();
    // Written anew, not copied: a copy keeps a read-only source's mode, and
    // Windows then refuses to remove the scratch folder.
    std::fs::write(&user_default, std::fs::read(&b6).unwrap()).unwrap();
    let (ok, _, err) = run(&[], &[(DATA_VAR, &data.0)], RAW_NN);
    assert!(ok, "{err}");
    let expected = format!(
        "network from the per-user default {}",
        user_default.display()
    );
    assert!(err.contains(&expected), "{err}");
    // TENGEN_MODEL comes before the user file.
    let (ok, _, err) = run(&[], &[(DATA_VAR, &data.0), ("TENGEN_MODEL", &b6)], RAW_NN);
    assert!(ok, "{err}");
    assert!(
        err.contains(&format!("network from TENGEN_MODEL={}", b6.display())),
        "{err}"
    );
    // --model comes before both.
    let (ok, _, err) = run(
        &["--model", b6.to_str().unwrap()],
        &[
            (DATA_VAR, &data.0),
            ("TENGEN_MODEL", Path::new("/nonexistent.bin.gz")),
        ],
        RAW_NN,
    );
    assert!(ok, "{err}");
    assert!(err.contains("network from --model "), "{err}");
    if DataFolder::HERE != DataFolder::Xdg {
        return;
    }
    // Without XDG_DATA_HOME the file is under $HOME/.local/share.
    let home = Scratch::new("home");
    let under_home = home.0.join(".local/share/tengen/default.bin.gz");
    std::fs::create_dir_all(under_home.parent().unwrap()).unwrap();
    std::fs::write(&under_home, std::fs::read(&b6).unwrap()).unwrap();
    let mut cmd_env = vec![("HOME", home.0.as_path())];
    cmd_env.push(("XDG_DATA_HOME", Path::new("")));
    let (ok, _, err) = run(&[], &cmd_env, RAW_NN);
    assert!(ok, "{err}");
    assert!(err.contains(&under_home.display().to_string()), "{err}");
}

#[test]
fn a_default_that_does_not_load_is_an_error_not_a_fall_back() {
    let data = Scratch::new("bad");
    let bad = user_default_under(&data.0);
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, b"not a network").unwrap();
    let (ok, out, err) = run(&[], &[(DATA_VAR, &data.0)], "quit\n");
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("chosen as the per-user default"), "{err}");
    let missing = data.0.join("missing.bin.gz");
    let (ok, out, err) = run(&[], &[("TENGEN_MODEL", &missing)], "quit\n");
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("chosen as TENGEN_MODEL="), "{err}");
}

#[test]
fn classical_runs_no_net_and_excludes_model() {
    let (ok, out, err) = run(&["--classical"], &[], RAW_NN);
    assert!(ok, "{err}");
    assert!(out.contains("? unknown command"), "{out}");
    assert!(err.contains("no network (--classical)"), "{err}");
    let (ok, _, err) = run(&["--classical", "--model", "x.bin.gz"], &[], "quit\n");
    assert!(!ok && err.contains("cannot be used with"), "{err}");
}
