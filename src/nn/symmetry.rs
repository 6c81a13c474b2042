//! The eight symmetries of a square board, numbered as KataGo numbers them: bit 0 flips y
//! (rows), bit 1 flips x (columns), bit 2 transposes, the flips applied first.
//!
//! The network sees board point `(y, x)` at `map(y, x)`; its spatial outputs are read back at
//! the same mapped point, so outputs always come back in board coordinates.

/// Number of board symmetries.
pub const NUM_SYMMETRIES: u8 = 8;

/// Where board point `(y, x)` of an `n`x`n` board lands under `symmetry`.
#[inline]
pub fn map(symmetry: u8, n: usize, y: usize, x: usize) -> (usize, usize) {
    let y = if symmetry & 1 != 0 { n - 1 - y } else { y };
    let x = if symmetry & 2 != 0 { n - 1 - x } else { x };
    if symmetry & 4 != 0 {
        (x, y)
    } else {
        (y, x)
    }
}

/// Index (`y * n + x`) in the network's frame of every board index, for one symmetry.
pub fn index_table(symmetry: u8, n: usize, table: &mut [usize]) {
    for y in 0..n {
        for x in 0..n {
            let (sy, sx) = map(symmetry, n, y, x);
            table[y * n + x] = sy * n + sx;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symmetry_is_a_permutation_and_transpose_comes_after_flips() {
        let n = 5;
        for s in 0..NUM_SYMMETRIES {
            let mut table = vec![0; n * n];
            index_table(s, n, &mut table);
            let mut seen = table.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..n * n).collect::<Vec<_>>(), "symmetry {s}");
        }
        // KataGo's getSymLoc: flip x then transpose sends (y=0, x=0) to (y=n-1, x=0).
        assert_eq!(map(6, n, 0, 0), (n - 1, 0));
        assert_eq!(map(5, n, 0, 0), (0, n - 1));
        assert_eq!(map(1, n, 0, 2), (n - 1, 2));
        assert_eq!(map(2, n, 0, 2), (0, n - 3));
        assert_eq!(map(4, n, 1, 3), (3, 1));
    }
}
