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
//! The transforms of the tiles themselves are kernels ([`crate::nn::kernels::winograd`]); here
//! are the filters' transforms, made once at load, and the products between the two.

use super::precision::{Precision, Weights};
use super::shapes::Frame;
use crate::nn::kernels::winograd::{self as transforms, Boards, Tile, Transform, F2, F4};

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
        a * a * tiles * (cin + cout) + transforms::scratch_len(self.tile, cin.max(cout))
    }

    /// Tiles covering one board of shape `frame`.
    fn tiles_per_board(&self, frame: Frame) -> usize {
        let m = self.tile.m();
        frame.width.div_ceil(m) * frame.height.div_ceil(m)
    }

    /// Convolves `batch` boards (NHWC, the filters' input channels) into `out` (their output
    /// channels), adding to it when `accumulate`, `CHUNK_TILES` tiles at a time. `scratch`
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
            convolve(self.tile, &self.points, shape, input, out, scratch);
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

/// [`Filters::convolve`] on boards covered by `tiles` tiles: the input transform, one product
/// per transform point, the output transform.
fn convolve(
    tile: Tile,
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
    let points = tile.a() * tile.a();
    let boards = Boards {
        batch,
        width: frame.width,
        height: frame.height,
    };
    let tiles = boards.tiles(tile.m());
    let (v, rest) = scratch.split_at_mut(points * tiles * cin);
    let (prod, rest) = rest.split_at_mut(points * tiles * cout);
    transforms::transform_input(tile, boards, cin, input, v, rest);
    for (point, filter) in filters.iter().enumerate() {
        let a = &v[point * tiles * cin..(point + 1) * tiles * cin];
        let c = &mut prod[point * tiles * cout..(point + 1) * tiles * cout];
        filter.multiply(tiles, a, cin, c, false);
    }
    transforms::transform_output(tile, boards, cout, prod, out, accumulate, rest);
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
