//! The cursor over a decompressed model and the readers of its tokens and plain layers
//! (convolutions, norms, dense layers), every count capped and every float block checked
//! against the bytes really left.

use super::desc::{
    Activation, BatchNormDesc, ConvDesc, MatBiasDesc, MatMulDesc, RmsNormDesc, TransformerNormDesc,
};
use super::error::ModelError;
use std::fmt;

/// Largest channel count of any layer.
pub(super) const MAX_CHANNELS: i64 = 4096;
/// Largest convolution kernel side.
const MAX_KERNEL: i64 = 9;
/// Most blocks in one stack.
pub(super) const MAX_BLOCKS: i64 = 512;
/// Most parameters (floats) in one model.
const MAX_TOTAL_PARAMS: usize = 400_000_000;
/// Longest token (names, numbers).
const MAX_TOKEN_LEN: usize = 256;

/// A cursor over the decompressed token stream.
pub(super) struct Parser<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) binary: bool,
    /// The layer being read, for error messages.
    pub(super) context: String,
    /// Floats read so far.
    pub(super) params: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn err(&self, what: impl fmt::Display) -> ModelError {
        ModelError::new(format!(
            "{} (byte offset {}): {what}",
            self.context, self.pos
        ))
    }

    pub(super) fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    pub(super) fn token(&mut self) -> Result<&'a str, ModelError> {
        self.skip_space();
        let start = self.pos;
        while self.pos < self.bytes.len() && !self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
            if self.pos - start > MAX_TOKEN_LEN {
                return Err(self.err("token too long"));
            }
        }
        if start == self.pos {
            return Err(self.err("unexpected end of file"));
        }
        std::str::from_utf8(&self.bytes[start..self.pos])
            .map_err(|_| self.err("token is not UTF-8"))
    }

    pub(super) fn name(&mut self) -> Result<String, ModelError> {
        let name = self.token()?.to_string();
        self.context = format!("layer '{name}'");
        Ok(name)
    }

    pub(super) fn int(&mut self, what: &str, min: i64, max: i64) -> Result<i64, ModelError> {
        let tok = self.token()?;
        let v: i64 = tok
            .parse()
            .map_err(|_| self.err(format!("{what}: expected an integer, found '{tok}'")))?;
        if v < min || v > max {
            return Err(self.err(format!("{what} = {v} is outside {min}..={max}")));
        }
        Ok(v)
    }

    pub(super) fn count(&mut self, what: &str, max: i64) -> Result<usize, ModelError> {
        Ok(self.int(what, 1, max)? as usize)
    }

    pub(super) fn float(&mut self, what: &str) -> Result<f64, ModelError> {
        let tok = self.token()?;
        let v: f64 = tok
            .parse()
            .map_err(|_| self.err(format!("{what}: expected a number, found '{tok}'")))?;
        if !v.is_finite() {
            return Err(self.err(format!("{what} is not finite")));
        }
        Ok(v)
    }

    pub(super) fn flag(&mut self, what: &str) -> Result<bool, ModelError> {
        let tok = self.token()?;
        match tok.to_ascii_lowercase().as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            _ => Err(self.err(format!("{what}: expected 0 or 1, found '{tok}'"))),
        }
    }

    /// Reads `n` floats, checking the count against what the file can still hold.
    pub(super) fn floats(&mut self, n: usize) -> Result<Vec<f32>, ModelError> {
        if self.params + n > MAX_TOTAL_PARAMS {
            return Err(self.err(format!("model has more than {MAX_TOTAL_PARAMS} parameters")));
        }
        self.params += n;
        let remaining = self.bytes.len() - self.pos;
        if self.binary {
            let mut skipped = 0;
            while self.pos < self.bytes.len() && self.bytes[self.pos] != b'@' {
                if !self.bytes[self.pos].is_ascii_whitespace() || skipped > 100 {
                    return Err(
                        self.err("expected a @BIN@ float block (is this a .txt model named .bin?)")
                    );
                }
                self.pos += 1;
                skipped += 1;
            }
            if !self.bytes[self.pos..].starts_with(b"@BIN@") {
                return Err(self.err("expected a @BIN@ float block"));
            }
            self.pos += 5;
            let len = n
                .checked_mul(4)
                .filter(|&l| l <= self.bytes.len() - self.pos);
            let Some(len) = len else {
                return Err(self.err(format!(
                    "float block of {n} floats runs past the end of the file ({} bytes left)",
                    self.bytes.len() - self.pos
                )));
            };
            let out: Vec<f32> = self.bytes[self.pos..self.pos + len]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if let Some(i) = out.iter().position(|x| !x.is_finite()) {
                self.pos += 4 * i;
                return Err(self.err("NaN or infinite weight"));
            }
            self.pos += len;
            Ok(out)
        } else {
            // Each text float takes at least two bytes (digit and separator).
            if n > remaining / 2 + 1 {
                return Err(self.err(format!(
                    "{n} text floats cannot fit in the {remaining} bytes left"
                )));
            }
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let v = self.float("weight")?;
                out.push(v as f32);
            }
            Ok(out)
        }
    }

    pub(super) fn activation(&mut self, version: i64) -> Result<Activation, ModelError> {
        self.name()?;
        if version < 11 {
            return Ok(Activation::Relu);
        }
        let kind = self.token()?;
        match kind {
            "ACTIVATION_IDENTITY" => Ok(Activation::Identity),
            "ACTIVATION_RELU" => Ok(Activation::Relu),
            "ACTIVATION_MISH" => Ok(Activation::Mish),
            "ACTIVATION_SILU" => Ok(Activation::Silu),
            _ => Err(self.err(format!("unknown activation '{kind}'"))),
        }
    }

    pub(super) fn conv(&mut self) -> Result<ConvDesc, ModelError> {
        let name = self.name()?;
        let ky = self.count("kernel height", MAX_KERNEL)?;
        let kx = self.count("kernel width", MAX_KERNEL)?;
        let in_channels = self.count("input channels", MAX_CHANNELS)?;
        let out_channels = self.count("output channels", MAX_CHANNELS)?;
        let dil_y = self.int("dilation y", 1, 1)?;
        let dil_x = self.int("dilation x", 1, 1)?;
        debug_assert!(dil_y == 1 && dil_x == 1);
        if ky % 2 == 0 || kx % 2 == 0 {
            return Err(self.err(format!("kernel {ky}x{kx} is not odd-sized")));
        }
        let weights = self.floats(ky * kx * in_channels * out_channels)?;
        Ok(ConvDesc {
            name,
            ky,
            kx,
            in_channels,
            out_channels,
            weights,
        })
    }

    pub(super) fn batch_norm(&mut self) -> Result<BatchNormDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let epsilon = self.float("epsilon")? as f32;
        if epsilon.is_nan() || epsilon <= 0.0 {
            return Err(self.err(format!("epsilon {epsilon} is not positive")));
        }
        let has_scale = self.flag("hasScale")?;
        let has_bias = self.flag("hasBias")?;
        let mean = self.floats(channels)?;
        let variance = self.floats(channels)?;
        if variance.iter().any(|&v| v + epsilon <= 0.0) {
            return Err(self.err("variance + epsilon is not positive"));
        }
        let scale = if has_scale {
            self.floats(channels)?
        } else {
            vec![1.0; channels]
        };
        let bias = if has_bias {
            self.floats(channels)?
        } else {
            vec![0.0; channels]
        };
        Ok(BatchNormDesc {
            name,
            channels,
            epsilon,
            mean,
            variance,
            scale,
            bias,
        })
    }

    pub(super) fn matmul(&mut self) -> Result<MatMulDesc, ModelError> {
        let name = self.name()?;
        let in_channels = self.count("input channels", 3 * MAX_CHANNELS)?;
        let out_channels = self.count("output channels", MAX_CHANNELS)?;
        let weights = self.floats(in_channels * out_channels)?;
        Ok(MatMulDesc {
            name,
            in_channels,
            out_channels,
            weights,
        })
    }

    pub(super) fn matbias(&mut self) -> Result<MatBiasDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let weights = self.floats(channels)?;
        Ok(MatBiasDesc { name, weights })
    }

    /// Fails with `what` unless `a == b`.
    pub(super) fn same(&self, a: usize, b: usize, what: &str) -> Result<(), ModelError> {
        if a != b {
            return Err(self.err(format!("{what}: {a} != {b}")));
        }
        Ok(())
    }

    /// Reads `count` integers that must be 0 (the guard slots of versions 15 and 17), named
    /// from letter `first` on as KataGo names them.
    pub(super) fn zeros(&mut self, what: &str, first: u8, count: usize) -> Result<(), ModelError> {
        for slot in 0..count {
            let v = self.int(what, i64::MIN, i64::MAX)?;
            if v != 0 {
                return Err(self.err(format!(
                    "{what} {} is {v}: an option this reader does not know (a newer KataGo \
                     format?)",
                    (first + slot as u8) as char
                )));
            }
        }
        Ok(())
    }

    pub(super) fn epsilon(&mut self) -> Result<f32, ModelError> {
        let epsilon = self.float("epsilon")? as f32;
        if !(epsilon > 0.0 && epsilon <= 1.0) {
            return Err(self.err(format!("epsilon {epsilon} is not in (0, 1]")));
        }
        Ok(epsilon)
    }

    pub(super) fn rms_norm(&mut self) -> Result<RmsNormDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let epsilon = self.epsilon()?;
        let spatial = self.flag("spatial")?;
        let group = self.int("cgroupSize", i64::MIN, i64::MAX)?;
        if group != 0 {
            return Err(self.err(format!(
                "cgroupSize {group}: grouped spatial RMSNorm is not supported"
            )));
        }
        let gamma = self.floats(channels)?;
        let beta = self.floats(channels)?;
        Ok(RmsNormDesc {
            name,
            channels,
            epsilon,
            spatial,
            gamma,
            beta,
        })
    }

    pub(super) fn transformer_norm(&mut self) -> Result<TransformerNormDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let epsilon = self.epsilon()?;
        let weight = self.floats(channels)?;
        Ok(TransformerNormDesc {
            name,
            channels,
            epsilon,
            weight,
        })
    }
}
