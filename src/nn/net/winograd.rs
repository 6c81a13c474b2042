//! 3x3 convolution by Winograd's minimal filtering (Lavin & Gray 2015): each input tile and
//! each 3x3 filter go to a transform domain where the convolution is one independent matrix
//! product per transform point (a GEMM over all tiles of the batch), then each product goes back
//! to an output tile. Two tile sizes:
//! - F(4x4, 3x3) ([`Tile::F4x4`], points 0, ±1, ±2, ∞): 36 products per 4x4 output tile
//!   instead of 144. fp32 runs on it.
//! - F(2x2, 3x3) ([`Tile::F2x2`], points 0, ±1, ∞): 16 products per 2x2 tile instead of 36.
//!   Its transforms add and subtract only, so they do not amplify rounding; bf16 runs on it
//!   (on F(4x4) the transforms' coefficients up to 5 and 8 made bf16's win rate miss by 0.03).
//!
//! Transforms run over whole channel rows of the NHWC activations, so they vectorize.

use super::layers::Frame;
use super::precision::{Precision, Weights};

/// A tile size: `A`-point transforms giving `M x M` output tiles.
trait Transform<const A: usize> {
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
struct F4;

impl Transform<6> for F4 {
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
struct F2;

impl Transform<4> for F2 {
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
    fn a(self) -> usize {
        match self {
            Tile::F4x4 => 6,
            Tile::F2x2 => 4,
        }
    }

    /// Output tile side.
    fn m(self) -> usize {
        match self {
            Tile::F4x4 => F4::M,
            Tile::F2x2 => F2::M,
        }
    }
}

/// A 3x3 convolution's filters in a Winograd transform domain: one `in x out` matrix per
/// transform point, each in the precision its product runs in.
#[derive(Debug, Clone)]
pub struct Filters {
    tile: Tile,
    points: Vec<Weights>,
}

impl Filters {
    /// Transforms 3x3 filters (`[ky][kx][in][out]`) for `tile`, in fp32.
    pub fn new(tile: Tile, weights: &[f32], cin: usize, cout: usize) -> Filters {
        let points = match tile {
            Tile::F4x4 => transform_filters::<6, F4>(weights, cin, cout),
            Tile::F2x2 => transform_filters::<4, F2>(weights, cin, cout),
        };
        Filters {
            tile,
            points: points.iter().map(|p| Weights::new(p, cin, cout)).collect(),
        }
    }

    /// The tile size.
    pub fn tile(&self) -> Tile {
        self.tile
    }

    /// Input and output channels.
    fn channels(&self) -> (usize, usize) {
        // Every tile has A * A >= 16 points, all of one shape.
        (self.points[0].k(), self.points[0].n())
    }

    /// The 3x3 filters (`[ky][kx][in][out]`) back from their transform, while fp32.
    pub fn untransform(&self) -> Option<Vec<f32>> {
        let (cin, cout) = self.channels();
        let points = self
            .points
            .iter()
            .map(Weights::unpack_fp32)
            .collect::<Option<Vec<_>>>()?;
        Some(match self.tile {
            Tile::F4x4 => untransform_filters::<6, F4>(&points, cin, cout),
            Tile::F2x2 => untransform_filters::<4, F2>(&points, cin, cout),
        })
    }

    /// Runs the products in `precision` (from fp32 only, as [`Weights::set_precision`]).
    pub fn set_precision(&mut self, precision: Precision) {
        self.points
            .iter_mut()
            .for_each(|p| p.set_precision(precision));
    }

    /// Scratch floats for a batch of `batch` boards of shape `frame`.
    pub fn scratch_len(&self, batch: usize, frame: Frame) -> usize {
        let (cin, cout) = self.channels();
        let a = self.tile.a();
        let per_board = self.tiles_per_board(frame);
        let tiles = (batch * per_board).min(CHUNK_TILES.max(per_board));
        a * a * tiles * (cin + cout) + a * a * cin.max(cout) + a * cin.max(cout) + cin
    }

    /// Tiles covering one board of shape `frame`.
    fn tiles_per_board(&self, frame: Frame) -> usize {
        let m = self.tile.m();
        frame.width.div_ceil(m) * frame.height.div_ceil(m)
    }

    /// Convolves `batch` boards (NHWC, the filters' input channels) into `out` (their output
    /// channels), adding to it when `accumulate`, [`CHUNK_TILES`] tiles at a time. `scratch`
    /// holds [`Filters::scratch_len`] floats for a frame at least as large as `frame`.
    pub fn convolve(
        &self,
        input: &[f32],
        batch: usize,
        frame: Frame,
        out: &mut [f32],
        accumulate: bool,
        scratch: &mut [f32],
    ) {
        let (cin, cout) = self.channels();
        let boards = (CHUNK_TILES / self.tiles_per_board(frame)).max(1);
        let area = frame.area();
        let mut first = 0;
        while first < batch {
            let n = boards.min(batch - first);
            let shape = Shape {
                cin,
                cout,
                batch: n,
                frame,
                accumulate,
            };
            let input = &input[first * area * cin..(first + n) * area * cin];
            let out = &mut out[first * area * cout..(first + n) * area * cout];
            match self.tile {
                Tile::F4x4 => convolve::<6, F4>(&self.points, shape, input, out, scratch),
                Tile::F2x2 => convolve::<4, F2>(&self.points, shape, input, out, scratch),
            }
            first += n;
        }
    }
}

/// Tiles transformed and multiplied together: a batch goes through in chunks of boards
/// covering about this many, so that the transform-domain buffers stay in cache while the
/// products still get tall matrices (b15c192 in bf16 on F(2x2), 19x19, batch 8: 80 evals/s
/// in chunks of 200 tiles, 53 all at once; fp32 on F(4x4) is unchanged, 8 boards of 25 tiles).
const CHUNK_TILES: usize = 200;

/// What one convolution call works on.
#[derive(Clone, Copy)]
struct Shape {
    cin: usize,
    cout: usize,
    batch: usize,
    frame: Frame,
    accumulate: bool,
}

/// Transforms 3x3 filters (`[ky][kx][in][out]`) into `A * A` row-major `in x out` matrices.
fn transform_filters<const A: usize, T: Transform<A>>(
    weights: &[f32],
    cin: usize,
    cout: usize,
) -> Vec<Vec<f32>> {
    let mut points = vec![vec![0.0f32; cin * cout]; A * A];
    for ic in 0..cin {
        for oc in 0..cout {
            let g = |y: usize, x: usize| weights[((y * 3 + x) * cin + ic) * cout + oc] as f64;
            // gg = G g (A x 3), u = gg G^T (A x A).
            let mut gg = [[0.0f64; 3]; A];
            for (i, row) in gg.iter_mut().enumerate() {
                for (x, v) in row.iter_mut().enumerate() {
                    *v = (0..3).map(|k| T::G[i][k] * g(k, x)).sum();
                }
            }
            for i in 0..A {
                for j in 0..A {
                    let u: f64 = (0..3).map(|k| gg[i][k] * T::G[j][k]).sum();
                    points[i * A + j][ic * cout + oc] = u as f32;
                }
            }
        }
    }
    points
}

/// The 3x3 filters back from their `A * A` transformed matrices: `G_INV` on both sides.
fn untransform_filters<const A: usize, T: Transform<A>>(
    points: &[Vec<f32>],
    cin: usize,
    cout: usize,
) -> Vec<f32> {
    let mut weights = vec![0.0f32; 9 * cin * cout];
    for ic in 0..cin {
        for oc in 0..cout {
            let u = |i: usize, j: usize| points[i * A + j][ic * cout + oc] as f64;
            for y in 0..3 {
                for x in 0..3 {
                    let g: f64 = (0..A)
                        .flat_map(|i| (0..A).map(move |j| (i, j)))
                        .filter(|&(i, j)| T::G_INV[y][i] != 0.0 && T::G_INV[x][j] != 0.0)
                        .map(|(i, j)| T::G_INV[y][i] * u(i, j) * T::G_INV[x][j])
                        .sum();
                    weights[((y * 3 + x) * cin + ic) * cout + oc] = g as f32;
                }
            }
        }
    }
    weights
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

/// [`Filters::convolve`] for one tile size: with AVX2 and FMA where the CPU has them.
fn convolve<const A: usize, T: Transform<A>>(
    filters: &[Weights],
    shape: Shape,
    input: &[f32],
    out: &mut [f32],
    scratch: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if crate::nn::kernels::fp32::gemm::best_isa() != crate::nn::kernels::fp32::gemm::Isa::Portable {
        // SAFETY: best_isa() found AVX2 and FMA (or AVX-512, which implies them on every
        // CPU that has it).
        unsafe {
            return convolve_avx2::<A, T>(filters, shape, input, out, scratch);
        };
    }
    convolve_body::<A, T>(filters, shape, input, out, scratch)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn convolve_avx2<const A: usize, T: Transform<A>>(
    filters: &[Weights],
    shape: Shape,
    input: &[f32],
    out: &mut [f32],
    scratch: &mut [f32],
) {
    convolve_body::<A, T>(filters, shape, input, out, scratch)
}

#[inline(always)]
fn convolve_body<const A: usize, T: Transform<A>>(
    filters: &[Weights],
    shape: Shape,
    input: &[f32],
    out: &mut [f32],
    scratch: &mut [f32],
) {
    let Shape {
        cin,
        cout,
        batch,
        frame,
        accumulate,
    } = shape;
    let m = T::M;
    let points = A * A;
    let (w, h) = (frame.width, frame.height);
    let (tw, th) = (w.div_ceil(m), h.div_ceil(m));
    let tiles = batch * tw * th;
    let area = frame.area();
    let (v, rest) = scratch.split_at_mut(points * tiles * cin);
    let (prod, rest) = rest.split_at_mut(points * tiles * cout);
    let (tmp, rest) = rest.split_at_mut(A * A * cin.max(cout));
    let (row_buf, rest) = rest.split_at_mut(A * cin.max(cout));
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
                    T::input_rows(src, rows_mut(tmp, j * A, 1, cin), cin);
                }
                // Then rows, straight into V: V[i][j] = (B^T d B)[i][j].
                for i in 0..A {
                    let dst = rows_mut(v, i * A * tiles + tile, tiles, cin);
                    T::input_rows(rows(tmp, i, A, cin), dst, cin);
                }
            }
        }
    }

    // One product per transform point.
    for (point, filter) in filters.iter().enumerate() {
        let a = &v[point * tiles * cin..(point + 1) * tiles * cin];
        let c = &mut prod[point * tiles * cout..(point + 1) * tiles * cout];
        filter.multiply(tiles, a, cin, c, false);
    }

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
                    T::output_rows(src, &mut tmp[j * m * cout..(j + 1) * m * cout], cout);
                }
                for i in 0..m {
                    let y = m * ty + i;
                    if y >= h {
                        break;
                    }
                    T::output_rows(rows(tmp, i, m, cout), &mut row_buf[..m * cout], cout);
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
mod tests {
    use super::*;

    /// Direct 3x3 convolution, f64, zero padding.
    fn direct(w: &[f32], cin: usize, cout: usize, input: &[f32], frame: Frame) -> Vec<f64> {
        let (fw, fh) = (frame.width, frame.height);
        let mut out = vec![0.0; fw * fh * cout];
        for y in 0..fh as isize {
            for x in 0..fw as isize {
                for oc in 0..cout {
                    let mut s = 0.0f64;
                    for dy in 0..3 {
                        for dx in 0..3 {
                            let (sy, sx) = (y + dy as isize - 1, x + dx as isize - 1);
                            if sy < 0 || sx < 0 || sy >= fh as isize || sx >= fw as isize {
                                continue;
                            }
                            for ic in 0..cin {
                                s += w[((dy * 3 + dx) * cin + ic) * cout + oc] as f64
                                    * input[(sy as usize * fw + sx as usize) * cin + ic] as f64;
                            }
                        }
                    }
                    out[(y as usize * fw + x as usize) * cout + oc] = s;
                }
            }
        }
        out
    }

    const TILES: [Tile; 2] = [Tile::F4x4, Tile::F2x2];

    #[test]
    fn filters_come_back_from_their_transform() {
        let (cin, cout) = (5, 7);
        let w: Vec<f32> = (0..9 * cin * cout)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
            .collect();
        for tile in TILES {
            let filters = Filters::new(tile, &w, cin, cout);
            assert_eq!(filters.tile(), tile);
            let back = filters.untransform().expect("fp32 filters");
            assert_eq!(back.len(), w.len());
            for (a, b) in w.iter().zip(&back) {
                assert!(
                    (a - b).abs() < 1e-5 * (1.0 + a.abs()),
                    "{tile:?}: {a} vs {b}"
                );
            }
        }
        let mut reduced = Filters::new(Tile::F2x2, &w, cin, cout);
        reduced.set_precision(Precision::Bf16);
        assert!(reduced.untransform().is_none());
    }

    /// The largest `|winograd - direct|` over `batch` boards, relative to the largest
    /// `|direct|`, with `out` starting at 0.25 and accumulated into.
    fn worst_relative_error(filters: &Filters, w: &[f32], shape: Shape, input: &[f32]) -> f64 {
        let Shape {
            cin,
            cout,
            batch,
            frame,
            ..
        } = shape;
        let area = frame.area();
        let mut scratch = vec![0.0; filters.scratch_len(batch, frame)];
        let mut out = vec![0.25f32; batch * area * cout];
        filters.convolve(input, batch, frame, &mut out, true, &mut scratch);
        let (mut worst, mut largest) = (0.0f64, 0.0f64);
        for b in 0..batch {
            let want = direct(
                w,
                cin,
                cout,
                &input[b * area * cin..(b + 1) * area * cin],
                frame,
            );
            for (i, &wv) in want.iter().enumerate() {
                let got = out[b * area * cout + i] as f64 - 0.25;
                worst = worst.max((got - wv).abs());
                largest = largest.max(wv.abs());
            }
        }
        worst / largest.max(1e-30)
    }

    #[test]
    fn winograd_matches_direct_convolution() {
        for &(fw, fh, cin, cout, batch) in &[
            (1usize, 1usize, 1usize, 1usize, 1usize),
            (4, 4, 2, 3, 1),
            (5, 5, 3, 17, 2),
            (9, 9, 8, 5, 3),
            (19, 19, 16, 32, 1),
            (19, 13, 8, 5, 2),
            (3, 10, 4, 6, 2),
            // Several chunks of CHUNK_TILES: 8 + 1 boards on F(4x4), 2 + 2 + 2 + 2 + 1 on F(2x2).
            (19, 19, 4, 3, 9),
        ] {
            let frame = Frame {
                width: fw,
                height: fh,
            };
            let area = frame.area();
            let w: Vec<f32> = (0..9 * cin * cout)
                .map(|i| ((i * 31 % 17) as f32 - 8.0) * 0.05)
                .collect();
            let input: Vec<f32> = (0..batch * area * cin)
                .map(|i| ((i * 13 % 11) as f32 - 5.0) * 0.1)
                .collect();
            for tile in TILES {
                let filters = Filters::new(tile, &w, cin, cout);
                let mut scratch = vec![0.0; filters.scratch_len(batch, frame)];
                let mut out = vec![0.25f32; batch * area * cout];
                filters.convolve(&input, batch, frame, &mut out, true, &mut scratch);
                for b in 0..batch {
                    let want = direct(
                        &w,
                        cin,
                        cout,
                        &input[b * area * cin..(b + 1) * area * cin],
                        frame,
                    );
                    for (i, &wv) in want.iter().enumerate() {
                        let got = out[b * area * cout + i] as f64;
                        assert!(
                            (got - 0.25 - wv).abs() < 1e-4 * (1.0 + wv.abs()),
                            "{tile:?} {fw}x{fh} cin={cin} cout={cout} b={b} i={i}: {got} vs {}",
                            wv + 0.25
                        );
                    }
                }
            }
        }
    }

    /// bf16 on F(2x2) stays near bf16's own rounding (2^-9 per operand), and well under
    /// F(4x4)'s, whose transforms amplify it: the reason bf16 runs on F(2x2).
    #[test]
    fn bf16_on_small_tiles_rounds_less_than_on_large_ones() {
        let (cin, cout, batch) = (64, 48, 2);
        let frame = Frame::square(19);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let w: Vec<f32> = (0..9 * cin * cout).map(|_| next() * 0.1).collect();
        let input: Vec<f32> = (0..batch * frame.area() * cin).map(|_| next()).collect();
        let shape = Shape {
            cin,
            cout,
            batch,
            frame,
            accumulate: true,
        };
        let mut errors = Vec::new();
        for tile in TILES {
            let mut filters = Filters::new(tile, &w, cin, cout);
            let fp32 = worst_relative_error(&filters, &w, shape, &input);
            filters.set_precision(Precision::Bf16);
            let bf16 = worst_relative_error(&filters, &w, shape, &input);
            eprintln!(
                "{tile:?}: worst error relative to the largest output: fp32 {fp32:.2e}, \
                 bf16 {bf16:.2e}"
            );
            assert!(fp32 < 1e-5, "{tile:?} fp32: {fp32}");
            errors.push(bf16);
        }
        let (large, small) = (errors[0], errors[1]);
        assert!(small < 0.01, "F(2x2) bf16: {small}");
        assert!(
            small * 2.0 < large,
            "F(2x2) bf16 {small} against F(4x4) bf16 {large}"
        );
    }
}
