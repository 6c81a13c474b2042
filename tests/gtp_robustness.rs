//! A seeded stream of many thousands of random and malformed lines: every
//! line that is not empty after preprocessing gets exactly one well-formed
//! response, in order, and the engine is still in sync afterwards.

use crate::common;
use common::Engine;

/// A small deterministic generator (xorshift64*), so failures replay.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "time_settings",
    "time_left",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "reg_genmove",
    "cputime",
    "kgs-rules",
    "kgs-time_settings",
    "kgs-genmove_cleanup",
    "kgs-game_over",
    "kata-list_time_settings",
    "kata-time_settings",
    "kata-get-rules",
    "kata-set-rules",
    "lz-analyze",
    "kata-analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "gogui-analyze_commands",
    "loadsgf",
    "printsgf",
    "gogui-interrupt",
    "rectangular_boardsize",
    "PLAY",
    "Genmove",
    "gg-undo",
    "stop",
    "help",
    "",
];

const WORDS: &[&str] = &[
    "b",
    "w",
    "B",
    "W",
    "black",
    "WHITE",
    "red",
    "pass",
    "PASS",
    "resign",
    "a1",
    "A1",
    "d4",
    "D4",
    "e5",
    "j10",
    "J10",
    "q16",
    "T19",
    "t19",
    "z25",
    "Z25",
    "i5",
    "a0",
    "a26",
    "c3",
    "C3",
    "b2",
    "0",
    "1",
    "2",
    "3",
    "5",
    "7",
    "9",
    "13",
    "19",
    "25",
    "26",
    "-1",
    "6.5",
    "-3.5",
    "1e2",
    "nan",
    "inf",
    "x",
    "dead",
    "alive",
    "seki",
    "none",
    "absolute",
    "byoyomi",
    "canadian",
    "fischer",
    "fischer-capped",
    "chinese",
    "japanese",
    "aga",
    "new_zealand",
    "tromp-taylor",
    "{\"ko\":\"SIMPLE\"}",
    "interval",
    "maxmoves",
    "avoid",
    "allow",
    "d4,e5",
    "ownership",
    "true",
    "rootInfo",
    "0.01",
    "10",
    // Files in the engine's scratch directory (see the test).
    "a.sgf",
    "b.sgf",
    "out.sgf",
    "missing.sgf",
];

/// One random line as bytes, including its terminator.
fn random_line(rng: &mut Rng) -> Vec<u8> {
    let mut line: Vec<u8> = Vec::new();
    match rng.below(10) {
        // Garbage bytes: controls, tabs, CR, `#`, non-ASCII.
        0 => {
            for _ in 0..rng.below(40) {
                line.push(match rng.below(6) {
                    0 => rng.below(32) as u8,
                    1 => b'#',
                    2 => 128 + rng.below(128) as u8,
                    3 => b'\t',
                    _ => 32 + rng.below(95) as u8,
                });
            }
            line.retain(|&b| b != b'\n');
        }
        // Blank, whitespace-only or comment lines.
        1 => line.extend_from_slice(
            rng.pick(&["", " ", "\t", " \t ", "# interrupt", "   # c", "\r"])
                .as_bytes(),
        ),
        // Commands with random arguments, sometimes an id, odd spacing and CR.
        _ => {
            if rng.below(3) == 0 {
                line.extend_from_slice(format!("{} ", rng.below(100_000)).as_bytes());
            }
            line.extend_from_slice(rng.pick(COMMANDS).as_bytes());
            for _ in 0..rng.below(5) {
                line.extend_from_slice(rng.pick(&[" ", "  ", "\t"]).as_bytes());
                line.extend_from_slice(rng.pick(WORDS).as_bytes());
            }
            if rng.below(8) == 0 {
                line.extend_from_slice(b" # trailing comment");
            }
            if rng.below(4) == 0 {
                line.push(b'\r');
            }
        }
    }
    line.push(b'\n');
    line
}

/// Whether GTP preprocessing leaves something of the line (the test's own
/// implementation of spec §3.1, on bytes).
fn is_command(line: &[u8]) -> bool {
    line.iter()
        .filter(|&&b| b == b'\t' || (b >= 32 && b != 127))
        .take_while(|&&b| b != b'#')
        .any(|&b| b != b' ' && b != b'\t')
}

/// Checks one chunk of output (a response without its final blank line).
fn well_formed(chunk: &str) -> bool {
    let mut lines = chunk.split('\n');
    let first = lines.next().unwrap_or("");
    let Some(rest) = first.strip_prefix(['=', '?']) else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let after = &rest[digits..];
    // `=` alone (or `=id`) heads a streamed analysis response.
    let header_ok = after.starts_with(' ') || (after.is_empty() && first.starts_with('='));
    header_ok && lines.all(|l| !l.is_empty())
}

// One test per seed, so that the three streams run side by side.
#[test]
fn thousands_of_random_lines_get_one_response_each_seed_1() {
    random_lines_get_one_response_each(1);
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn thousands_of_random_lines_get_one_response_each_seed_2() {
    random_lines_get_one_response_each(2);
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn thousands_of_random_lines_get_one_response_each_seed_3() {
    random_lines_get_one_response_each(3);
}

/// 5000 random lines from `seed` to a fresh engine.
fn random_lines_get_one_response_each(seed: u64) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
    // The engine runs in a scratch directory: `printsgf FILE` writes
    // there, `loadsgf` reads two superko positions copied there.
    let dir = std::env::temp_dir().join(format!("tengen-robust-{}-{seed}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let positions = concat!(env!("CARGO_MANIFEST_DIR"), "/sgf/positions/");
    std::fs::copy(format!("{positions}t03-triple-ko.sgf"), dir.join("a.sgf")).unwrap();
    std::fs::copy(format!("{positions}t12-ssk-vs-nssk.sgf"), dir.join("b.sgf")).unwrap();
    let mut e = Engine::spawn_in(
        &dir,
        &["--quiet", "--time", "0.05", "--seed", &seed.to_string()],
    );
    let mut expected = 0;
    let mut input = Vec::new();
    for _ in 0..5000 {
        let line = random_line(&mut rng);
        if is_command(&line) {
            expected += 1;
        }
        input.extend_from_slice(&line);
    }
    input.extend_from_slice(b"999999 name\n");
    for chunk in input.chunks(4096) {
        e.write(chunk);
    }
    let mut responses = 0;
    let mut current = String::new();
    loop {
        let l = e.line();
        if l != "\n" {
            current.push_str(&l);
            continue;
        }
        let chunk = std::mem::take(&mut current);
        let chunk = chunk.strip_suffix('\n').unwrap_or(&chunk);
        assert!(
            well_formed(chunk),
            "seed {seed}: response {responses} malformed: {chunk:?}"
        );
        if chunk == "=999999 tengen" {
            break;
        }
        responses += 1;
    }
    assert_eq!(
        responses, expected,
        "seed {seed}: one response per command line"
    );
    // Still in sync and working.
    e.ok("boardsize 5");
    e.ok("komi 0");
    e.ok("kata-set-rules chinese");
    e.ok("play b c3");
    assert_eq!(e.fail("play w c3"), "illegal move");
    assert_eq!(e.ok("final_score"), "B+25");
    let mv = e.ok("genmove w");
    assert!(mv == "pass" || (mv.len() == 2 && mv != "C3"), "{mv}");
    e.ok("quit");
    assert!(e.wait().success());
    std::fs::remove_dir_all(&dir).unwrap();
}
