//! The SGF reader and writer on the sgf/ fixtures: odd but valid files read
//! as intended, malformed ones fail with the right line and column, every
//! valid game survives read → write → read, and our reader agrees with the
//! `sgf-parse` crate on moves and setup.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tengen::sgf::{self, GameRecord, Step};
use tengen::{Color, Game, Geometry, Move, Preset, Rules, Stone};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sgf").join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

fn files(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn moves_of(bytes: &[u8], game: usize) -> Vec<(Color, Move)> {
    let c = sgf::parse(bytes).unwrap();
    let rec = GameRecord::new(c.games().nth(game).unwrap()).unwrap();
    rec.main_line()
        .filter_map(|s| match s.unwrap() {
            Step::Move { color, mv, .. } => Some((color, mv)),
            _ => None,
        })
        .collect()
}

#[test]
fn odd_encodings_and_quirks_read_as_intended() {
    // UTF-8 with a byte-order mark.
    let bom = read("odd/utf8-bom.sgf");
    let c = sgf::parse(&bom).unwrap();
    let root = c.games().next().unwrap();
    assert_eq!(root.get("PB").unwrap().value().simple_text(), "井山裕太");
    assert_eq!(moves_of(&bom, 0).len(), 5);

    // Latin-1 without CA; `tt` is a pass on 9x9.
    let latin = read("odd/latin1-no-ca.sgf");
    let c = sgf::parse(&latin).unwrap();
    let root = c.games().next().unwrap();
    assert_eq!(root.get("PB").unwrap().value().simple_text(), "José");
    let m = moves_of(&latin, 0);
    assert_eq!(m.len(), 5);
    assert_eq!(m[3], (Color::White, Move::Pass));
    assert_eq!(m[4], (Color::Black, Move::Pass));

    // GB2312 text (decoded lossily), Fox komi ×50, HA[0], `tt` passes.
    let gb = read("odd/gb2312.sgf");
    let loaded = sgf::load(&gb, 0, None, Rules::default(), 0.0).unwrap();
    assert_eq!(loaded.info.komi, Some(7.5));
    assert_eq!(loaded.info.handicap, 0);
    assert_eq!(loaded.game.consecutive_passes(), 2);
    assert_eq!(loaded.game.move_number(), 6);

    // Big5 whose trail byte 0x5C is escaped at byte level: the value survives intact.
    let big5 = read("odd/big5-escaped-trail-byte.sgf");
    let c = sgf::parse(&big5).unwrap();
    let root = c.games().next().unwrap();
    assert_eq!(&*root.get("PB").unwrap().value().plain(), &[0xB3, 0x5C]);
    assert_eq!(moves_of(&big5, 0).len(), 3);

    // FF[3] long mixed-case identifiers.
    let ff3 = read("odd/ff3-mixed-case.sgf");
    let loaded = sgf::load(&ff3, 0, None, Rules::default(), 0.0).unwrap();
    assert_eq!(loaded.info.geometry, Geometry::new(9).unwrap());
    assert_eq!(loaded.info.komi, Some(5.5));
    let (start, to_move) = loaded.game.start_position();
    assert_eq!(to_move, Color::White);
    let stones = |s: Stone| {
        start
            .geometry()
            .points()
            .filter(|&p| start.at(p) == s)
            .count()
    };
    assert_eq!((stones(Stone::Black), stones(Stone::White)), (2, 1));
    assert_eq!(loaded.game.move_number(), 3);

    // Mail headers and a signature around the tree.
    assert_eq!(moves_of(&read("odd/junk-around.sgf"), 0).len(), 3);

    // Escapes, soft line breaks and CRLF.
    let esc = read("odd/escapes-and-line-breaks.sgf");
    let c = sgf::parse(&esc).unwrap();
    let root = c.games().next().unwrap();
    assert_eq!(
        root.get("C").unwrap().value().text(),
        "a ] b \\ c: softbreak"
    );
    assert_eq!(root.get("GN").unwrap().value().text(), "\\");
    let first = root.first_child().unwrap();
    assert_eq!(first.get("C").unwrap().value().text(), "]");

    // Compressed point lists, AE after AW, PL in lower case.
    let lists = read("odd/compressed-lists.sgf");
    let loaded = sgf::load(&lists, 0, Some(1), Rules::default(), 0.0).unwrap();
    let (start, to_move) = loaded.game.start_position();
    assert_eq!(to_move, Color::Black);
    let g = start.geometry();
    let at = |x, y| start.at(g.point(x, y).unwrap());
    assert_eq!([at(0, 0), at(1, 0), at(2, 0), at(0, 1)], [Stone::Black; 4]);
    assert_eq!([at(0, 2), at(2, 2), at(0, 3)], [Stone::White; 3]);
    assert_eq!(at(1, 2), Stone::Empty);
}

#[test]
fn collections_and_variations() {
    let bytes = read("odd/collection-with-variations.sgf");
    let c = sgf::parse(&bytes).unwrap();
    assert_eq!(c.len(), 3);
    let sizes: Vec<usize> = c
        .games()
        .map(|r| GameRecord::new(r).unwrap().info().geometry.width())
        .collect();
    assert_eq!(sizes, [9, 13, 19]);
    let first = c.games().next().unwrap();
    let after_b = first.first_child().unwrap();
    let replies: Vec<String> = after_b
        .children()
        .map(|n| n.get("W").unwrap().value().simple_text())
        .collect();
    assert_eq!(replies, ["cc", "gg"]);
    // The variation line replays too.
    let rec = GameRecord::new(first).unwrap();
    let var = after_b.children().nth(1).unwrap();
    let path = vec![first, after_b, var, var.first_child().unwrap()];
    let steps: Vec<Step> = rec.line(path).map(Result::unwrap).collect();
    let g = rec.geometry();
    assert_eq!(
        steps.last(),
        Some(&Step::Move {
            color: Color::Black,
            mv: Move::Play(g.point(2, 2).unwrap()),
            offset: bytes.windows(6).rposition(|w| w == b"B[cc])").unwrap() + 2,
        })
    );
}

#[test]
fn malformed_files_fail_with_line_and_column() {
    let expect = [
        (
            "board-too-large.sgf",
            1,
            13,
            "board size 37 is not supported",
        ),
        ("empty.sgf", 1, 1, "no SGF game tree"),
        ("junk-between-nodes.sgf", 2, 7, "no capital letter"),
        ("no-game-tree.sgf", 1, 1, "no SGF game tree"),
        (
            "node-after-variation.sgf",
            1,
            41,
            "nodes may not follow variations",
        ),
        ("off-board-move.sgf", 3, 4, "bad move B[zz] on a 9x9 board"),
        ("two-moves-in-a-node.sgf", 2, 7, "more than one move"),
        (
            "unclosed.sgf",
            3,
            13,
            "expected ')' to close the game tree opened at line 1, column 1",
        ),
        ("unescaped-bracket.sgf", 2, 17, "found ']'"),
    ];
    let names: BTreeSet<String> = files("malformed")
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, expect.iter().map(|e| e.0.to_owned()).collect());
    for (name, line, column, message) in expect {
        let e = sgf::load(
            &read(&format!("malformed/{name}")),
            0,
            None,
            Rules::default(),
            0.0,
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (line, column), "{name}: {e}");
        assert!(e.message.contains(message), "{name}: {e}");
    }
}

/// Every square game of every valid fixture, loaded whole.
fn valid_games() -> Vec<(String, Game)> {
    let mut out = Vec::new();
    for sub in ["positions", "games", "odd"] {
        for path in files(sub) {
            let bytes = std::fs::read(&path).unwrap();
            let c = sgf::parse(&bytes).unwrap();
            for (i, root) in c.games().enumerate() {
                let Ok(rec) = GameRecord::new(root) else {
                    continue; // rectangular boards
                };
                let info = rec.info();
                let rules = info.rules.unwrap_or(Preset::Chinese.rules());
                let game = rec.game(rules, info.komi.unwrap_or(7.5), None).unwrap();
                out.push((format!("{} game {}", path.display(), i + 1), game));
            }
        }
    }
    out
}

#[test]
fn read_write_read_gives_the_same_game() {
    let games = valid_games();
    assert!(games.len() >= 25, "{}", games.len());
    for (name, game) in games {
        let text = sgf::write_game(&game, 0, None);
        assert!(!text.contains("\n\n"), "{name}: no blank lines");
        let back = sgf::load(text.as_bytes(), 0, None, Rules::default(), 0.0)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let (s1, t1) = game.start_position();
        let (s2, t2) = back.game.start_position();
        assert_eq!(s1.hash(), s2.hash(), "{name}: start position");
        assert_eq!(t1, t2, "{name}: start player");
        assert_eq!(game.turns(), back.game.turns(), "{name}: moves");
        assert_eq!(game.board().hash(), back.game.board().hash(), "{name}");
        assert_eq!(game.rules(), back.game.rules(), "{name}");
        assert_eq!(game.komi(), back.game.komi(), "{name}");
        // And writing again gives the same text.
        assert_eq!(sgf::write_game(&back.game, 0, None), text, "{name}");
    }
}

/// Moves and setup per node along the main line, as (colour, x, y) with
/// x = y = 255 for a pass, and setup as sorted (x, y, what) triples.
type Line = Vec<(Vec<(u8, u8, u8)>, Option<(char, u8, u8)>)>;

fn line_ours(bytes: &[u8], game: usize) -> Line {
    let c = sgf::parse(bytes).unwrap();
    let root = c.games().nth(game).unwrap();
    let rec = GameRecord::new(root).unwrap();
    let mut out = Vec::new();
    for node in root.main_line() {
        let steps: Vec<Step> = rec.line(vec![node]).map(Result::unwrap).collect();
        let mut setup = Vec::new();
        let mut mv = None;
        for s in steps {
            match s {
                Step::Setup { changes, .. } => {
                    for (p, c) in changes {
                        setup.push((
                            p.x() as u8,
                            p.y() as u8,
                            c.map_or(0, |c| c.index() as u8 + 1),
                        ));
                    }
                }
                Step::Move { color, mv: m, .. } => {
                    mv = Some(match m {
                        Move::Pass => (color.letter(), 255, 255),
                        Move::Play(p) => (color.letter(), p.x() as u8, p.y() as u8),
                    })
                }
                Step::ToMove(_) => {}
            }
        }
        setup.sort();
        setup.dedup();
        out.push((setup, mv));
    }
    out
}

fn line_sgf_parse(text: &str, game: usize, size: u8) -> Line {
    use sgf_parse::go::{Move as M, Prop};
    let games = sgf_parse::go::parse(text).unwrap_or_else(|e| panic!("sgf-parse: {e:?} on {text}"));
    let mut out = Vec::new();
    for node in games[game].main_variation() {
        let mut setup = Vec::new();
        let mut mv = None;
        for p in node.properties() {
            match p {
                Prop::AB(s) | Prop::AW(s) | Prop::AE(s) => {
                    let what = match p {
                        Prop::AB(_) => 1,
                        Prop::AW(_) => 2,
                        _ => 0,
                    };
                    setup.extend(s.iter().map(|pt| (pt.x, pt.y, what)));
                }
                Prop::B(m) | Prop::W(m) => {
                    let letter = if matches!(p, Prop::B(_)) { 'B' } else { 'W' };
                    mv = Some(match m {
                        M::Move(pt) if !(size <= 19 && pt.x == 19 && pt.y == 19) => {
                            (letter, pt.x, pt.y)
                        }
                        _ => (letter, 255, 255),
                    });
                }
                _ => {}
            }
        }
        setup.sort();
        setup.dedup();
        out.push((setup, mv));
    }
    out
}

#[test]
fn agrees_with_sgf_parse_on_every_valid_fixture() {
    let mut compared = 0;
    for sub in ["positions", "games", "odd"] {
        for path in files(sub) {
            let bytes = std::fs::read(&path).unwrap();
            // sgf-parse needs text without BOM or surrounding junk.
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
            let start = body.windows(2).position(|w| w == b"(;").unwrap();
            // The last `)` at the end of a line closes the last tree.
            let end = (0..body.len())
                .rev()
                .find(|&k| body[k] == b')' && matches!(body.get(k + 1), None | Some(b'\n' | b'\r')))
                .unwrap();
            let text: String = body[start..=end].iter().map(|&b| b as char).collect();
            let c = sgf::parse(&bytes).unwrap();
            for (i, root) in c.games().enumerate() {
                let Ok(rec) = GameRecord::new(root) else {
                    continue;
                };
                let size = rec.geometry().max_side() as u8;
                assert_eq!(
                    line_ours(&bytes, i),
                    line_sgf_parse(&text, i, size),
                    "{} game {}",
                    path.display(),
                    i + 1
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 25, "{compared}");
}
