//! Openings for a match (`--openings`): the first moves of SGF game records,
//! played to both engines (and the referee) before the engines take over.
//! Games 2k-1 and 2k share opening k, once with each colour for engine A, so
//! that engines which play alike from the empty board still meet many
//! different positions, and each opening's bias cancels over its pair.

use crate::go::board::{Color, Geometry, Move};
use crate::go::game::Game;
use crate::go::rules::Rules;
use crate::sgf::{self, GameRecord, Step};
use std::path::{Path, PathBuf};

/// One opening: where it came from and its moves, legal under the match rules.
#[derive(Clone, Debug)]
pub struct Opening {
    /// `FILE` or `FILE#N` (game N of a collection), for the game lines.
    pub name: String,
    pub moves: Vec<(Color, Move)>,
}

/// Largest SGF file read as an opening (a game record is a few kilobytes).
const MAX_FILE_BYTES: u64 = 4 << 20;
/// Most openings read, over all files.
const MAX_OPENINGS: usize = 100_000;

/// The first `moves` moves of every game in `path` (an SGF file, or a
/// directory whose `.sgf` files are read in name order), each replayed under
/// `rules` on `geometry` from the empty board.
///
/// # Errors
/// A file that cannot be read or parsed, a game on another board size, with
/// setup stones, with fewer than `moves` moves or with an illegal one among
/// them (the file, game and move are named), or no game at all.
pub fn load(
    path: &Path,
    moves: u32,
    geometry: Geometry,
    rules: Rules,
) -> Result<Vec<Opening>, String> {
    let files = sgf_files(path)?;
    let mut openings = Vec::new();
    for file in &files {
        let size = std::fs::metadata(file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(format!(
                "{}: {size} bytes, more than an opening file may hold ({MAX_FILE_BYTES})",
                file.display()
            ));
        }
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let collection = sgf::parse(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        let games = collection.len();
        for (index, root) in collection.games().enumerate() {
            let name = if games == 1 {
                file.display().to_string()
            } else {
                format!("{}#{}", file.display(), index + 1)
            };
            let record = GameRecord::new(root).map_err(|e| format!("{name}: {e}"))?;
            openings.push(opening(&record, name, moves, geometry, rules)?);
            if openings.len() > MAX_OPENINGS {
                return Err(format!(
                    "{}: more than {MAX_OPENINGS} openings",
                    path.display()
                ));
            }
        }
    }
    if openings.is_empty() {
        return Err(format!("{}: no game to take openings from", path.display()));
    }
    Ok(openings)
}

/// The `.sgf` files of a directory in name order, or the file itself.
fn sgf_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let file = entry
            .map_err(|e| format!("{}: {e}", path.display()))?
            .path();
        if file
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("sgf"))
        {
            files.push(file);
        }
    }
    files.sort();
    Ok(files)
}

/// The first `moves` moves of `record`'s main line, checked under `rules`.
fn opening(
    record: &GameRecord,
    name: String,
    moves: u32,
    geometry: Geometry,
    rules: Rules,
) -> Result<Opening, String> {
    if record.geometry() != geometry {
        return Err(format!(
            "{name}: a {}x{} board, not the match's {}x{}",
            record.geometry().width(),
            record.geometry().height(),
            geometry.width(),
            geometry.height()
        ));
    }
    let mut game = Game::new(geometry, rules, 0.0);
    let mut played = Vec::new();
    for step in record.main_line() {
        if played.len() == moves as usize {
            break;
        }
        match step.map_err(|e| format!("{name}: {e}"))? {
            Step::Setup { .. } => {
                return Err(format!(
                    "{name}: setup stones (AB/AW/AE): an opening must be moves from the empty board"
                ))
            }
            Step::ToMove(_) => {}
            Step::Move { color, mv, .. } => {
                let number = played.len() + 1;
                if color != game.to_move() {
                    return Err(format!(
                        "{name}: move {number} is {color}'s, but {} is to play",
                        game.to_move()
                    ));
                }
                game.play(color, mv)
                    .map_err(|e| format!("{name}: move {number}: {e}"))?;
                played.push((color, mv));
            }
        }
    }
    if played.len() < moves as usize {
        return Err(format!(
            "{name}: {} moves, fewer than --opening-moves {moves}",
            played.len()
        ));
    }
    Ok(Opening {
        name,
        moves: played,
    })
}
