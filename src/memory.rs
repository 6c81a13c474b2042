//! How much memory this process may have: the machine's physical memory,
//! or its cgroup's limit when that is lower, and whether one large request
//! fits in it. The physical memory comes from `/proc/meminfo` on Linux (and
//! any Unix with a Linux-style `/proc`), from `sysctl -n hw.memsize` on macOS,
//! and is unknown on Windows; cgroups are Linux's alone.

/// The share of usable memory one request (the transposition table) may take.
pub const MAX_SHARE: f64 = 0.75;

/// Bytes of memory this process may use, `None` when unknown.
pub fn usable_bytes() -> Option<u64> {
    match (physical_bytes(), cgroup_bytes()) {
        (Some(p), Some(c)) => Some(p.min(c)),
        (p, c) => p.or(c),
    }
}

/// The machine's physical memory: `MemTotal` of `/proc/meminfo`.
#[cfg(all(unix, not(target_os = "macos")))]
fn physical_bytes() -> Option<u64> {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| mem_total(&m))
}

/// The machine's physical memory: `sysctl -n hw.memsize`, run as a command
/// (by its full path: an app started from the Dock has a short `PATH`).
#[cfg(target_os = "macos")]
fn physical_bytes() -> Option<u64> {
    let out = std::process::Command::new("/usr/sbin/sysctl")
        .args(["-n", "hw.memsize"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| memsize(&String::from_utf8_lossy(&out.stdout)))
        .flatten()
}

/// Unknown on Windows. Windows tells a program its memory through
/// `GlobalMemoryStatusEx` of kernel32, which Rust reaches only in `unsafe`
/// code (forbidden here outside the kernels) or through a dependency; the
/// commands that print it (`wmic`, gone from recent Windows, or PowerShell,
/// a second to start) are not worth running at each start. So on Windows no
/// table is refused as too large for the machine.
#[cfg(not(unix))]
fn physical_bytes() -> Option<u64> {
    None
}

/// The lowest cgroup memory limit of the process (v2, else v1).
#[cfg(target_os = "linux")]
fn cgroup_bytes() -> Option<u64> {
    [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|path| std::fs::read_to_string(path).ok())
    .filter_map(|text| cgroup_limit(&text))
    .min()
}

/// No cgroups outside Linux.
#[cfg(not(target_os = "linux"))]
fn cgroup_bytes() -> Option<u64> {
    None
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
#[cfg_attr(not(all(unix, not(target_os = "macos"))), allow(dead_code))]
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// A cgroup memory limit file's value in bytes; `None` for no limit (`max`,
/// or cgroup v1's huge "unlimited" value).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn cgroup_limit(text: &str) -> Option<u64> {
    text.trim().parse().ok().filter(|&b: &u64| b < 1 << 60)
}

/// The output of `sysctl -n hw.memsize` (bytes, one line), in bytes.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn memsize(text: &str) -> Option<u64> {
    text.trim().parse().ok().filter(|&b: &u64| b > 0)
}

/// Whether a request of `bytes` fits in [`MAX_SHARE`] of `usable` memory;
/// always when the usable memory is unknown.
///
/// # Errors
/// A message saying how much the machine has and how much may be asked.
pub fn check_request(bytes: u64, usable: Option<u64>) -> Result<(), String> {
    const MB: f64 = (1 << 20) as f64;
    match usable {
        Some(usable) if bytes as f64 > MAX_SHARE * usable as f64 => Err(format!(
            "{:.0} MB is more memory than this machine can spare: it has {:.0} MB, \
             of which at most {:.0} MB may go to the table",
            bytes as f64 / MB,
            usable as f64 / MB,
            (MAX_SHARE * usable as f64 / MB).floor()
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_and_requests_checked() {
        let meminfo = "MemTotal:       24684092 kB\nMemFree:        1000 kB\n";
        assert_eq!(mem_total(meminfo), Some(24684092 * 1024));
        assert_eq!(mem_total("nothing"), None);
        assert_eq!(cgroup_limit("max\n"), None);
        assert_eq!(cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(cgroup_limit("2147483648\n"), Some(1 << 31));
        assert_eq!(memsize("17179869184\n"), Some(16 << 30));
        assert_eq!(memsize(""), None);
        assert_eq!(memsize("hw.memsize: 17179869184"), None);
        let gb = 1u64 << 30;
        assert!(check_request(12 * gb, Some(16 * gb)).is_ok());
        let e = check_request(64 * gb, Some(16 * gb)).unwrap_err();
        assert!(e.contains("65536 MB") && e.contains("16384 MB"), "{e}");
        assert!(e.contains("12288 MB"), "{e}");
        assert!(check_request(64 * gb, None).is_ok());
    }
}
