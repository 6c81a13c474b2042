//! Reading a model file: from a path or bytes, gzip or not, text floats or binary blocks, into
//! a [`ModelDesc`]; the gzip stream decompressed under a size cap.

use super::desc::ModelDesc;
use super::error::ModelError;
use super::parser::Parser;
use std::io::Read;
use std::path::Path;

/// Largest decompressed model accepted (the b18c384nbt net is about 120 MB).
const MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;
/// Deflate never expands more than about 1032 to 1.
const MAX_DEFLATE_RATIO: u64 = 1032;

impl ModelDesc {
    /// Reads a model file; `.txt.gz`/`.txt` hold text floats, anything else `@BIN@` blocks.
    pub fn load(path: &Path) -> Result<ModelDesc, ModelError> {
        let shown = path.display().to_string();
        let file = std::fs::File::open(path)
            .map_err(|e| ModelError::new(format!("{shown}: cannot open: {e}")))?;
        let mut raw = Vec::new();
        file.take(MAX_DECOMPRESSED_BYTES + 1)
            .read_to_end(&mut raw)
            .map_err(|e| ModelError::new(format!("{shown}: cannot read: {e}")))?;
        ModelDesc::from_file_bytes(&shown, &raw)
    }

    /// Parses the bytes of a model file named `name` (gzip or not; the name's ending tells
    /// text floats from `@BIN@` blocks, as for [`ModelDesc::load`]); errors start with `name`.
    pub fn from_file_bytes(name: &str, raw: &[u8]) -> Result<ModelDesc, ModelError> {
        let lower = name.to_ascii_lowercase();
        let decompressed;
        let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
            decompressed =
                decompress(raw).map_err(|e| ModelError::new(format!("{name}: {}", e.message)))?;
            &decompressed[..]
        } else if lower.ends_with(".bin") || lower.ends_with(".txt") {
            raw
        } else {
            return Err(ModelError::new(format!(
                "{name}: not a gzip file (no gzip magic bytes) and not named .bin or .txt"
            )));
        };
        let binary = !(lower.ends_with(".txt.gz") || lower.ends_with(".txt"));
        ModelDesc::parse(bytes, binary)
            .map_err(|e| ModelError::new(format!("{name}: {}", e.message)))
    }

    /// Parses a decompressed model; `binary` selects `@BIN@` float blocks over text floats.
    pub fn parse(bytes: &[u8], binary: bool) -> Result<ModelDesc, ModelError> {
        let mut p = Parser {
            bytes,
            pos: 0,
            binary,
            context: String::from("header"),
            params: 0,
        };
        p.model()
    }
}

/// Decompresses a gzip stream, refusing output past the size cap.
pub fn decompress(raw: &[u8]) -> Result<Vec<u8>, ModelError> {
    // The gzip trailer's size (mod 2^32) is only a hint: it sizes the buffer up front so the
    // output does not double past the cap; the capped read below is what is enforced.
    let hinted = raw
        .len()
        .checked_sub(4)
        .map(|at| u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]));
    let mut out = Vec::with_capacity(hinted.map_or(0, |h| {
        (h as u64)
            .min(MAX_DECOMPRESSED_BYTES)
            .min(raw.len() as u64 * MAX_DEFLATE_RATIO) as usize
    }));
    flate2::read::GzDecoder::new(raw)
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| ModelError::new(format!("gzip stream is corrupt or truncated: {e}")))?;
    if out.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(ModelError::new(format!(
            "decompressed model is larger than {MAX_DECOMPRESSED_BYTES} bytes"
        )));
    }
    Ok(out)
}
