//! The eight symmetries of a board, numbered as KataGo numbers them: bit 0 flips y
//! (rows), bit 1 flips x (columns), bit 2 transposes, the flips applied first.
//!
//! The network sees board point `(y, x)` at `map(y, x)`; its spatial outputs are read back at
//! the same mapped point, so outputs always come back in board coordinates.
//!
//! On a rectangular board a transposing symmetry (4–7) changes the shape the network sees:
//! a board `width` wide and `height` high is shown to it `height` wide and `width` high, as
//! KataGo's `SymmetryHelpers::getSymLoc` and `getSymBoard` do. [`frame`] gives that shape.

/// Number of board symmetries.
pub const NUM_SYMMETRIES: u8 = 8;

/// Whether `symmetry` swaps rows and columns.
#[inline]
pub fn is_transpose(symmetry: u8) -> bool {
    symmetry & 4 != 0
}

/// `(width, height)` of the network's frame for a `width`x`height` board under `symmetry`.
#[inline]
pub fn frame(symmetry: u8, width: usize, height: usize) -> (usize, usize) {
    if is_transpose(symmetry) {
        (height, width)
    } else {
        (width, height)
    }
}

/// Where board point `(y, x)` of a `width`x`height` board lands under `symmetry`, as
/// `(y, x)` in the frame of [`frame`].
#[inline]
pub fn map(symmetry: u8, width: usize, height: usize, y: usize, x: usize) -> (usize, usize) {
    let y = if symmetry & 1 != 0 { height - 1 - y } else { y };
    let x = if symmetry & 2 != 0 { width - 1 - x } else { x };
    if is_transpose(symmetry) {
        (x, y)
    } else {
        (y, x)
    }
}

/// Index (`y * frame_width + x`) in the network's frame of every board index
/// (`y * width + x`), for one symmetry.
pub fn index_table(symmetry: u8, width: usize, height: usize, table: &mut [usize]) {
    let (frame_width, _) = frame(symmetry, width, height);
    for y in 0..height {
        for x in 0..width {
            let (sy, sx) = map(symmetry, width, height, y, x);
            table[y * width + x] = sy * frame_width + sx;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symmetry_is_a_permutation_and_transpose_comes_after_flips() {
        for (w, h) in [(5, 5), (7, 3), (3, 7), (19, 13)] {
            for s in 0..NUM_SYMMETRIES {
                let mut table = vec![0; w * h];
                index_table(s, w, h, &mut table);
                let mut seen = table.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..w * h).collect::<Vec<_>>(), "{w}x{h} symmetry {s}");
            }
        }
        let n = 5;
        // KataGo's getSymLoc: flip x then transpose sends (y=0, x=0) to (y=n-1, x=0).
        assert_eq!(map(6, n, n, 0, 0), (n - 1, 0));
        assert_eq!(map(5, n, n, 0, 0), (0, n - 1));
        assert_eq!(map(1, n, n, 0, 2), (n - 1, 2));
        assert_eq!(map(2, n, n, 0, 2), (0, n - 3));
        assert_eq!(map(4, n, n, 1, 3), (3, 1));
    }

    #[test]
    fn transposes_swap_the_shape_of_a_rectangle() {
        // A board 7 wide and 3 high. KataGo getSymLoc(x=6, y=0, 7, 3, 6): flipX gives x=0,
        // then the transpose: x=0, y=0 in a board 3 wide.
        assert_eq!(frame(6, 7, 3), (3, 7));
        assert_eq!(map(6, 7, 3, 0, 6), (0, 0));
        // Symmetry 5 (flip y, transpose): (y=0, x=6) -> y=2 -> (y=6, x=2).
        assert_eq!(map(5, 7, 3, 0, 6), (6, 2));
        assert_eq!(frame(3, 7, 3), (7, 3));
        assert_eq!(map(3, 7, 3, 0, 0), (2, 6));
    }
}
