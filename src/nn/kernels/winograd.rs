//! The transforms of Winograd's minimal filtering (Lavin & Gray 2015) for 3x3 convolutions:
//! F(4x4, 3x3) ([`Tile::F4x4`], points 0, ±1, ±2, ∞) and F(2x2, 3x3) ([`Tile::F2x2`], points 0,
//! ±1, ∞), the input transform of a batch of NHWC boards into the transform domain and the
//! output transform back. They run over whole channel rows, so they vectorize: compiled for
//! AVX2+FMA on x86-64, written with NEON intrinsics on AArch64 (`winograd/neon.rs`), where
//! [`cpu`] allows it, portable otherwise (the same arithmetic, so the same results). The
//! filters' transforms and the products between these two live with the convolution
//! (`net/winograd.rs`).

use super::cpu::{self, Isa};
use std::sync::OnceLock;

#[cfg(target_arch = "aarch64")]
mod neon;

/// The levels the transforms are compiled for, lowest first.
pub const KERNELS: &[Isa] = &[
    Isa::Portable,
    #[cfg(target_arch = "aarch64")]
    Isa::Neon,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx2,
];

/// The level the transforms run at (chosen once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| cpu::best_of(KERNELS))
}

/// A tile size: `A`-point transforms giving `M x M` output tiles.
pub trait Transform<const A: usize> {
    /// The tile size it is.
    const TILE: Tile;
    /// Output tile side.
    const M: usize;
    /// The filter transform `G` (`A x 3`).
    const G: [[f64; 3]; A];
    /// A left inverse of `G` (`3 x A`), to get the filters back.
    const G_INV: [[f64; A]; 3];
    /// `B^T d` for `A` channel rows of `c` values: `A` output rows, one in each of `dst`.
    fn input_rows(src: [&[f32]; A], dst: [&mut [f32]; A], c: usize);
    /// `A^T m` for `A` channel rows: `M` output rows of `c` values in `dst`.
    fn output_rows(src: [&[f32]; A], dst: &mut [f32], c: usize);
}

/// F(4x4, 3x3).
pub struct F4;

impl Transform<6> for F4 {
    const TILE: Tile = Tile::F4x4;
    const M: usize = 4;
    const G: [[f64; 3]; 6] = [
        [1.0 / 4.0, 0.0, 0.0],
        [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
        [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
        [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
        [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
        [0.0, 0.0, 1.0],
    ];
    /// Rows 0, 1 and 5 of `G`: `g0 = 4 u0`, `g2 = u5`, `g1 = -6 u1 - g0 - g2`.
    const G_INV: [[f64; 6]; 3] = [
        [4.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [-4.0, -6.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    ];

    #[inline(always)]
    fn input_rows(src: [&[f32]; 6], dst: [&mut [f32]; 6], c: usize) {
        let [d0, d1, d2, d3, d4, d5] = src.map(|row| &row[..c]);
        let [o0, o1, o2, o3, o4, o5] = dst.map(|row| &mut row[..c]);
        // Each output row a parameter of its own, so that the compiler knows they alias
        // nothing and vectorizes without runtime overlap checks (a 6% slower fp32 net else).
        #[allow(clippy::too_many_arguments)]
        #[inline(always)]
        fn kernel(
            d: [&[f32]; 6],
            o0: &mut [f32],
            o1: &mut [f32],
            o2: &mut [f32],
            o3: &mut [f32],
            o4: &mut [f32],
            o5: &mut [f32],
        ) {
            let [d0, d1, d2, d3, d4, d5] = d;
            for i in 0..o0.len() {
                let (a0, a1, a2, a3, a4, a5) = (d0[i], d1[i], d2[i], d3[i], d4[i], d5[i]);
                o0[i] = 4.0 * a0 - 5.0 * a2 + a4;
                o1[i] = -4.0 * (a1 + a2) + a3 + a4;
                o2[i] = 4.0 * (a1 - a2) - a3 + a4;
                o3[i] = 2.0 * (a3 - a1) - a2 + a4;
                o4[i] = 2.0 * (a1 - a3) - a2 + a4;
                o5[i] = 4.0 * a1 - 5.0 * a3 + a5;
            }
        }
        kernel([d0, d1, d2, d3, d4, d5], o0, o1, o2, o3, o4, o5);
    }

    #[inline(always)]
    fn output_rows(src: [&[f32]; 6], dst: &mut [f32], c: usize) {
        let (o0, rest) = dst.split_at_mut(c);
        let (o1, rest) = rest.split_at_mut(c);
        let (o2, o3) = rest.split_at_mut(c);
        let [m0, m1, m2, m3, m4, m5] = src;
        for i in 0..c {
            let (p12, n12) = (m1[i] + m2[i], m1[i] - m2[i]);
            let (p34, n34) = (m3[i] + m4[i], m3[i] - m4[i]);
            o0[i] = m0[i] + p12 + p34;
            o1[i] = n12 + 2.0 * n34;
            o2[i] = p12 + 4.0 * p34;
            o3[i] = n12 + 8.0 * n34 + m5[i];
        }
    }
}

/// F(2x2, 3x3).
pub struct F2;

impl Transform<4> for F2 {
    const TILE: Tile = Tile::F2x2;
    const M: usize = 2;
    const G: [[f64; 3]; 4] = [
        [1.0, 0.0, 0.0],
        [0.5, 0.5, 0.5],
        [0.5, -0.5, 0.5],
        [0.0, 0.0, 1.0],
    ];
    /// `g0 = u0`, `g1 = u1 - u2`, `g2 = u3`.
    const G_INV: [[f64; 4]; 3] = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, -1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];

    #[inline(always)]
    fn input_rows(src: [&[f32]; 4], dst: [&mut [f32]; 4], c: usize) {
        let src = src.map(|row| &row[..c]);
        let [o0, o1, o2, o3] = dst.map(|row| &mut row[..c]);
        // One parameter per output row, as in F4's.
        #[inline(always)]
        fn kernel(d: [&[f32]; 4], o0: &mut [f32], o1: &mut [f32], o2: &mut [f32], o3: &mut [f32]) {
            let [d0, d1, d2, d3] = d;
            for i in 0..o0.len() {
                o0[i] = d0[i] - d2[i];
                o1[i] = d1[i] + d2[i];
                o2[i] = d2[i] - d1[i];
                o3[i] = d1[i] - d3[i];
            }
        }
        kernel(src, o0, o1, o2, o3);
    }

    #[inline(always)]
    fn output_rows(src: [&[f32]; 4], dst: &mut [f32], c: usize) {
        let (o0, o1) = dst.split_at_mut(c);
        let [m0, m1, m2, m3] = src;
        for i in 0..c {
            o0[i] = m0[i] + m1[i] + m2[i];
            o1[i] = m1[i] - m2[i] - m3[i];
        }
    }
}

/// The tile sizes a convolution can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tile {
    F4x4,
    F2x2,
}

impl Tile {
    /// Transform side.
    pub fn a(self) -> usize {
        match self {
            Tile::F4x4 => 6,
            Tile::F2x2 => 4,
        }
    }

    /// Output tile side.
    pub fn m(self) -> usize {
        match self {
            Tile::F4x4 => F4::M,
            Tile::F2x2 => F2::M,
        }
    }
}

/// `A` consecutive `c`-long rows of `buf` starting at row `first`, `stride` rows apart.
#[inline(always)]
fn rows<const A: usize>(buf: &[f32], first: usize, stride: usize, c: usize) -> [&[f32]; A] {
    std::array::from_fn(|k| &buf[(first + k * stride) * c..(first + k * stride + 1) * c])
}

/// [`rows`], mutable.
#[inline(always)]
fn rows_mut<const A: usize>(
    buf: &mut [f32],
    first: usize,
    stride: usize,
    c: usize,
) -> [&mut [f32]; A] {
    let mut rest = &mut buf[first * c..];
    std::array::from_fn(|k| {
        let step = if k + 1 < A { stride * c } else { c };
        let (row, tail) = std::mem::take(&mut rest).split_at_mut(step);
        rest = tail;
        &mut row[..c]
    })
}

/// The boards one transform call covers: `batch` NHWC boards of `width` x `height` points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boards {
    pub batch: usize,
    pub width: usize,
    pub height: usize,
}

impl Boards {
    /// Tiles covering the boards for output tiles of side `m`.
    pub fn tiles(self, m: usize) -> usize {
        self.batch * self.width.div_ceil(m) * self.height.div_ceil(m)
    }
}

/// Scratch floats [`transform_input`] and [`transform_output`] need for `channels` channels.
pub fn scratch_len(tile: Tile, channels: usize) -> usize {
    let a = tile.a();
    a * a * channels + a * channels + channels
}

/// `V = B^T d B` for every tile of `boards` (`cin` channels, zero outside the boards) into `v`,
/// laid out `[point][tile][cin]`. `scratch` holds [`scratch_len`] floats.
pub fn transform_input(
    tile: Tile,
    boards: Boards,
    cin: usize,
    input: &[f32],
    v: &mut [f32],
    scratch: &mut [f32],
) {
    transform_input_with(best_isa(), tile, boards, cin, input, v, scratch);
}

/// [`transform_input`] compiled for `isa`; panics where the CPU lacks it.
pub fn transform_input_with(
    isa: Isa,
    tile: Tile,
    boards: Boards,
    cin: usize,
    input: &[f32],
    v: &mut [f32],
    scratch: &mut [f32],
) {
    check(isa);
    let io = Input {
        boards,
        cin,
        input,
        v,
        scratch,
    };
    match tile {
        Tile::F4x4 => input_on::<6, F4>(isa, io),
        Tile::F2x2 => input_on::<4, F2>(isa, io),
    }
}

/// `A^T m A` of every tile of the products `prod` (`[point][tile][cout]`) into `boards`' NHWC
/// rows of `out` (`cout` channels), added to them when `accumulate`. `scratch` holds
/// [`scratch_len`] floats.
#[allow(clippy::too_many_arguments)] // a transform's operands and shapes
pub fn transform_output(
    tile: Tile,
    boards: Boards,
    cout: usize,
    prod: &[f32],
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut [f32],
) {
    transform_output_with(
        best_isa(),
        tile,
        boards,
        cout,
        prod,
        out,
        accumulate,
        scratch,
    );
}

/// [`transform_output`] compiled for `isa`; panics where the CPU lacks it.
#[allow(clippy::too_many_arguments)] // a transform's operands and shapes
pub fn transform_output_with(
    isa: Isa,
    tile: Tile,
    boards: Boards,
    cout: usize,
    prod: &[f32],
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut [f32],
) {
    check(isa);
    let io = Output {
        boards,
        cout,
        prod,
        out,
        accumulate,
        scratch,
    };
    match tile {
        Tile::F4x4 => output_on::<6, F4>(isa, io),
        Tile::F2x2 => output_on::<4, F2>(isa, io),
    }
}

/// Panics unless the transforms are compiled for `isa` and the CPU has it.
fn check(isa: Isa) {
    assert!(
        KERNELS.contains(&isa) && isa.on_cpu(),
        "no Winograd transforms for {} on this CPU",
        isa.name()
    );
}

/// The operands of one input transform.
struct Input<'a> {
    boards: Boards,
    cin: usize,
    input: &'a [f32],
    v: &'a mut [f32],
    scratch: &'a mut [f32],
}

/// The operands of one output transform.
struct Output<'a> {
    boards: Boards,
    cout: usize,
    prod: &'a [f32],
    out: &'a mut [f32],
    accumulate: bool,
    scratch: &'a mut [f32],
}

/// The input transform for one tile size, compiled for AVX2 and FMA when `isa` is that level,
/// on NEON's row transforms when it is NEON.
fn input_on<const A: usize, T: Transform<A>>(isa: Isa, io: Input) {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx2 {
        // SAFETY: `check` found AVX2 and FMA on this CPU.
        return unsafe { input_avx2::<A, T>(io) };
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        // SAFETY: `check` found NEON on this CPU.
        return unsafe { input_neon::<A, T>(io) };
    }
    let _ = isa;
    input_body::<A, T>(io, T::input_rows)
}

/// The output transform for one tile size, as [`input_on`].
fn output_on<const A: usize, T: Transform<A>>(isa: Isa, io: Output) {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx2 {
        // SAFETY: `check` found AVX2 and FMA on this CPU.
        return unsafe { output_avx2::<A, T>(io) };
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        // SAFETY: `check` found NEON on this CPU.
        return unsafe { output_neon::<A, T>(io) };
    }
    let _ = isa;
    output_body::<A, T>(io, T::output_rows)
}

/// [`input_body`] (inlined) vectorized for AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn input_avx2<const A: usize, T: Transform<A>>(io: Input) {
    input_body::<A, T>(io, T::input_rows)
}

/// [`output_body`] (inlined) vectorized for AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn output_avx2<const A: usize, T: Transform<A>>(io: Output) {
    output_body::<A, T>(io, T::output_rows)
}

/// [`input_body`] (inlined) on NEON's row transforms.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
unsafe fn input_neon<const A: usize, T: Transform<A>>(io: Input) {
    // SAFETY: this fn's contract: the CPU has NEON.
    input_body::<A, T>(io, |src, dst, c| unsafe {
        neon_input_rows::<A, T>(src, dst, c)
    })
}

/// [`output_body`] (inlined) on NEON's row transforms.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
unsafe fn output_neon<const A: usize, T: Transform<A>>(io: Output) {
    // SAFETY: this fn's contract: the CPU has NEON.
    output_body::<A, T>(io, |src, dst, c| unsafe {
        neon_output_rows::<A, T>(src, dst, c)
    })
}

/// `T`'s input transform of `A` channel rows of `c` values: NEON's 4-wide steps, the ragged
/// end by `T`'s own.
#[cfg(target_arch = "aarch64")]
#[inline]
#[target_feature(enable = "neon")]
unsafe fn neon_input_rows<const A: usize, T: Transform<A>>(
    src: [&[f32]; A],
    mut dst: [&mut [f32]; A],
    c: usize,
) {
    let body = c - c % 4;
    // SAFETY: this fn's contract: the CPU has NEON; the row kernels check the rows' lengths.
    unsafe {
        match T::TILE {
            Tile::F4x4 => neon::f4_input(&src, &mut dst, body),
            Tile::F2x2 => neon::f2_input(&src, &mut dst, body),
        }
    }
    T::input_rows(
        src.map(|r| &r[body..]),
        dst.map(|r| &mut r[body..]),
        c - body,
    );
}

/// `T`'s output transform of `A` channel rows of `c` values into `T::M` rows of `dst`, as
/// [`neon_input_rows`].
#[cfg(target_arch = "aarch64")]
#[inline]
#[target_feature(enable = "neon")]
unsafe fn neon_output_rows<const A: usize, T: Transform<A>>(
    src: [&[f32]; A],
    dst: &mut [f32],
    c: usize,
) {
    let body = c - c % 4;
    let mut out: [&mut [f32]; 4] = Default::default();
    let mut rest = &mut dst[..T::M * c];
    for row in out.iter_mut().take(T::M) {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(c);
        *row = head;
        rest = tail;
    }
    // SAFETY: this fn's contract: the CPU has NEON; the row kernels check the rows' lengths.
    unsafe {
        match T::TILE {
            Tile::F4x4 => neon::f4_output(&src, &mut out, body),
            Tile::F2x2 => neon::f2_output(&src, &mut out, body),
        }
    }
    // The ragged end (at most 3 channels), by `T`'s own transform into a small buffer.
    let tail = c - body;
    if tail > 0 {
        let mut buf = [0.0f32; 4 * 3];
        T::output_rows(src.map(|r| &r[body..]), &mut buf[..T::M * tail], tail);
        for (row, values) in out.iter_mut().take(T::M).zip(buf.chunks_exact(tail)) {
            row[body..].copy_from_slice(values);
        }
    }
}

/// The input transform's body, for one tile size, on the row transform `input_rows` (`T`'s
/// own or a twin giving the same values).
#[inline(always)]
fn input_body<const A: usize, T: Transform<A>>(
    io: Input,
    input_rows: impl Fn([&[f32]; A], [&mut [f32]; A], usize),
) {
    let Input {
        boards,
        cin,
        input,
        v,
        scratch,
    } = io;
    let m = T::M;
    let (w, h) = (boards.width, boards.height);
    let (tw, th) = (w.div_ceil(m), h.div_ceil(m));
    let tiles = boards.tiles(m);
    let area = w * h;
    let batch = boards.batch;
    let (tmp, rest) = scratch.split_at_mut(A * A * cin);
    let zero = &mut rest[..cin];
    zero.fill(0.0);
    let zero: &[f32] = zero;

    // Input transform: V[point][tile][cin].
    for b in 0..batch {
        let board = &input[b * area * cin..(b + 1) * area * cin];
        for ty in 0..th {
            for tx in 0..tw {
                let tile = (b * th + ty) * tw + tx;
                let at = |i: usize, j: usize| -> &[f32] {
                    let y = (m * ty + i) as isize - 1;
                    let x = (m * tx + j) as isize - 1;
                    if y >= 0 && x >= 0 && (y as usize) < h && (x as usize) < w {
                        let p = y as usize * w + x as usize;
                        &board[p * cin..(p + 1) * cin]
                    } else {
                        zero
                    }
                };
                // Columns first: tmp[j][i] = (B^T d)[i][j].
                for j in 0..A {
                    let src = std::array::from_fn(|k| at(k, j));
                    input_rows(src, rows_mut(tmp, j * A, 1, cin), cin);
                }
                // Then rows, straight into V: V[i][j] = (B^T d B)[i][j].
                for i in 0..A {
                    let dst = rows_mut(v, i * A * tiles + tile, tiles, cin);
                    input_rows(rows(tmp, i, A, cin), dst, cin);
                }
            }
        }
    }
}

/// The output transform's body, for one tile size, on the row transform `output_rows`, as
/// [`input_body`].
#[inline(always)]
fn output_body<const A: usize, T: Transform<A>>(
    io: Output,
    output_rows: impl Fn([&[f32]; A], &mut [f32], usize),
) {
    let Output {
        boards,
        cout,
        prod,
        out,
        accumulate,
        scratch,
    } = io;
    let m = T::M;
    let (w, h) = (boards.width, boards.height);
    let (tw, th) = (w.div_ceil(m), h.div_ceil(m));
    let tiles = boards.tiles(m);
    let area = w * h;
    let batch = boards.batch;
    let (tmp, rest) = scratch.split_at_mut(A * A * cout);
    let row_buf = &mut rest[..A * cout];

    // Output transform.
    for b in 0..batch {
        let board = &mut out[b * area * cout..(b + 1) * area * cout];
        for ty in 0..th {
            for tx in 0..tw {
                let tile = (b * th + ty) * tw + tx;
                // Columns first: tmp[j][i] = (A^T m)[i][j] for i < M.
                for j in 0..A {
                    let src = std::array::from_fn(|k| {
                        let p = ((k * A + j) * tiles + tile) * cout;
                        &prod[p..p + cout]
                    });
                    output_rows(src, &mut tmp[j * m * cout..(j + 1) * m * cout], cout);
                }
                for i in 0..m {
                    let y = m * ty + i;
                    if y >= h {
                        break;
                    }
                    output_rows(rows(tmp, i, m, cout), &mut row_buf[..m * cout], cout);
                    for j in 0..m {
                        let x = m * tx + j;
                        if x >= w {
                            break;
                        }
                        let dst = &mut board[(y * w + x) * cout..(y * w + x + 1) * cout];
                        let src = &row_buf[j * cout..(j + 1) * cout];
                        if accumulate {
                            dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
                        } else {
                            dst.copy_from_slice(src);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::nn::kernels::tested::run_each;

    /// The name the kernel record knows this family by.
    pub(in crate::nn::kernels) const FAMILY: &str = "Winograd transforms";

    /// Both transforms of each level give the portable transforms' values, bit for bit (the
    /// same arithmetic, only vectorized), on ragged boards of every tile size; the output
    /// transform adds when accumulating.
    #[test]
    pub(in crate::nn::kernels) fn transforms_match_their_portable_twins() {
        let test = "transforms_match_their_portable_twins";
        run_each(test, FAMILY, KERNELS, |isa| {
            for tile in [Tile::F4x4, Tile::F2x2] {
                for &(width, height, batch, c) in &[(1, 1, 1, 3), (9, 9, 2, 17), (19, 13, 1, 40)] {
                    let boards = Boards {
                        batch,
                        width,
                        height,
                    };
                    let (a, tiles) = (tile.a(), boards.tiles(tile.m()));
                    let input: Vec<f32> = (0..batch * width * height * c)
                        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.03)
                        .collect();
                    let mut scratch = vec![0.0; scratch_len(tile, c)];
                    let transformed = |isa: Isa, scratch: &mut [f32]| {
                        let mut v = vec![f32::NAN; a * a * tiles * c];
                        transform_input_with(isa, tile, boards, c, &input, &mut v, scratch);
                        v
                    };
                    let (want, got) = (
                        transformed(Isa::Portable, &mut scratch),
                        transformed(isa, &mut scratch),
                    );
                    assert_eq!(got, want, "{isa:?} {tile:?} input {width}x{height}");
                    for accumulate in [false, true] {
                        let back = |isa: Isa, scratch: &mut [f32]| {
                            let mut out = vec![0.5; batch * width * height * c];
                            transform_output_with(
                                isa, tile, boards, c, &want, &mut out, accumulate, scratch,
                            );
                            out
                        };
                        let (want, got) =
                            (back(Isa::Portable, &mut scratch), back(isa, &mut scratch));
                        assert_eq!(got, want, "{isa:?} {tile:?} output {width}x{height}");
                    }
                }
            }
        });
    }
}
