//! KataGo's configuration files as `katago analysis -config FILE` reads them:
//! `key = value` lines, `#` comments, values optionally in double quotes
//! (with `\` escapes), `@include OTHER.cfg` (relative to the including
//! file), and `-override-config k=v,k=v` on the command line.
//!
//! This room only reads text into keys and values; what a key means is
//! [`super::settings`]'s business. Limits: a file of at most
//! [`MAX_FILE_BYTES`], includes nested at most [`MAX_INCLUDE_DEPTH`] deep,
//! and a file included twice is an error, as in KataGo.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The largest configuration file read.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// How deep `@include` may nest.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// Keys and values in the order of precedence already applied: a later
/// definition (an included file after the line, an override) replaces an
/// earlier one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KataGoConfig {
    pub values: BTreeMap<String, String>,
}

impl KataGoConfig {
    /// Reads `path` and the files it includes.
    ///
    /// # Errors
    /// An unreadable file, a line that is not `key = value`, an unknown `@`
    /// directive, a circular or repeated include; the text names the file and line.
    pub fn load(path: &Path) -> Result<KataGoConfig, String> {
        let mut config = KataGoConfig::default();
        let mut seen = Vec::new();
        config.read_file(path, &mut seen, 0)?;
        Ok(config)
    }

    fn read_file(
        &mut self,
        path: &Path,
        seen: &mut Vec<PathBuf>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_INCLUDE_DEPTH {
            return Err(format!(
                "{}: @include nested more than {MAX_INCLUDE_DEPTH} deep",
                path.display()
            ));
        }
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if seen.contains(&canonical) {
            return Err(format!(
                "circular or multiple inclusion of the same file: '{}'",
                path.display()
            ));
        }
        seen.push(canonical);
        let text = read_limited(path)?;
        let base = path.parent().unwrap_or(Path::new(""));
        for (i, raw) in text.lines().enumerate() {
            let at = || format!("line {} in '{}'", i + 1, path.display());
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix('@') {
                let rest = rest.split('#').next().unwrap_or("");
                let (directive, file) = rest
                    .split_once(|c: char| c.is_whitespace() || c == '=')
                    .ok_or_else(|| format!("@ directive without a value, {}", at()))?;
                if directive != "include" {
                    return Err(format!("unsupported @ directive '@{directive}', {}", at()));
                }
                let file = file
                    .trim_start_matches(|c: char| c.is_whitespace() || c == '=')
                    .trim()
                    .trim_matches('\'')
                    .trim_matches('"');
                if file.is_empty() {
                    return Err(format!("@include without a file name, {}", at()));
                }
                self.read_file(&base.join(file), seen, depth + 1)?;
                continue;
            }
            match parse_key_value(line) {
                Ok(Some((key, value))) => {
                    self.values.insert(key, value);
                }
                Ok(None) => {}
                Err(()) => return Err(format!("could not parse key value pair, {}", at())),
            }
        }
        Ok(())
    }

    /// Applies `-override-config k=v,k=v,…` (spaces around keys and values
    /// are dropped; empty pieces are skipped).
    ///
    /// # Errors
    /// A piece without `=`, or with an empty key.
    pub fn apply_overrides(&mut self, text: &str) -> Result<(), String> {
        for (key, value) in parse_overrides(text)? {
            self.values.insert(key, value);
        }
        Ok(())
    }
}

/// Reads a file of at most [`MAX_FILE_BYTES`] as text.
fn read_limited(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read config file '{}': {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read config file '{}': {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "config file '{}' is larger than {} MB",
            path.display(),
            MAX_FILE_BYTES >> 20
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| format!("config file '{}' is not UTF-8 text", path.display()))
}

/// `k=v,k=v` as pairs.
///
/// # Errors
/// A piece without `=` or with an empty key.
pub fn parse_overrides(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = piece
            .split_once('=')
            .ok_or_else(|| format!("could not parse kv pair, could not find '=' in: {piece}"))?;
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("could not parse kv pair, empty key in: {piece}"));
        }
        pairs.push((key.to_string(), value.trim().to_string()));
    }
    Ok(pairs)
}

/// One trimmed line that does not start with `#` or `@`: `Ok(None)` for a
/// line that is a comment after all, `Err` when it is not `key = value`.
/// Keys are letters, digits, `_` and `-`; a value ends at `#` unless quoted.
fn parse_key_value(line: &str) -> Result<Option<(String, String)>, ()> {
    let key_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(line.len());
    let key = &line[..key_end];
    let rest = line[key_end..].trim_start();
    if key.is_empty() {
        return if rest.starts_with('#') {
            Ok(None)
        } else {
            Err(())
        };
    }
    let rest = rest.strip_prefix('=').ok_or(())?.trim_start();
    let value = if let Some(quoted) = rest.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.chars();
        loop {
            match chars.next() {
                None => return Err(()),
                Some('\\') => value.push(chars.next().ok_or(())?),
                Some('"') => break,
                Some(c) => value.push(c),
            }
        }
        let after = chars.as_str().trim();
        if !(after.is_empty() || after.starts_with('#')) {
            return Err(());
        }
        value
    } else {
        rest.split('#').next().unwrap_or("").trim().to_string()
    };
    if value.is_empty() {
        return Err(());
    }
    Ok(Some((key.to_string(), value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(line: &str) -> Result<Option<(String, String)>, ()> {
        parse_key_value(line)
    }

    #[test]
    fn reads_katago_lines() {
        assert_eq!(
            kv("maxVisits = 500"),
            Ok(Some(("maxVisits".into(), "500".into())))
        );
        assert_eq!(
            kv("maxVisits=500 # a comment"),
            Ok(Some(("maxVisits".into(), "500".into())))
        );
        assert_eq!(
            kv(r#"homeDataDir = "a b\"c # d" # e"#),
            Ok(Some(("homeDataDir".into(), "a b\"c # d".into())))
        );
        assert_eq!(kv("# only a comment"), Ok(None));
        for bad in [
            "maxVisits",
            "maxVisits =",
            "maxVisits 500",
            "= 5",
            "a = \"open",
            "a = \"x\" y",
            "ma!x = 1",
        ] {
            assert_eq!(kv(bad), Err(()), "{bad}");
        }
    }

    #[test]
    fn includes_resolve_beside_the_including_file_and_later_keys_win() {
        let dir = std::env::temp_dir().join(format!("tengen-cfg-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join("main.cfg"),
            "maxVisits = 10\n@include sub/inner.cfg # more\nnumSearchThreads = 2\n",
        )
        .unwrap();
        std::fs::write(dir.join("sub/inner.cfg"), "maxVisits = 20\nmaxTime = 1.5\n").unwrap();
        let mut c = KataGoConfig::load(&dir.join("main.cfg")).unwrap();
        assert_eq!(c.values["maxVisits"], "20");
        assert_eq!(c.values["maxTime"], "1.5");
        assert_eq!(c.values["numSearchThreads"], "2");
        c.apply_overrides(" maxVisits = 7 , homeDataDir=~/.katrain,")
            .unwrap();
        assert_eq!(c.values["maxVisits"], "7");
        assert_eq!(c.values["homeDataDir"], "~/.katrain");
        assert!(c.apply_overrides("maxVisits").is_err());
        std::fs::write(dir.join("loop.cfg"), "@include loop.cfg\n").unwrap();
        let e = KataGoConfig::load(&dir.join("loop.cfg")).unwrap_err();
        assert!(e.contains("circular"), "{e}");
        std::fs::write(dir.join("bad.cfg"), "a = 1\n@exclude x\n").unwrap();
        let e = KataGoConfig::load(&dir.join("bad.cfg")).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(KataGoConfig::load(&dir.join("missing.cfg")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
