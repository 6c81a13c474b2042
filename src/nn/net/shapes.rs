//! The shape of the boards the net runs on: the one type every layer shares.

/// The shape of the boards a layer runs on: `width` columns by `height` rows, stored row by
/// row (`y * width + x`). A rectangular board under a transposing symmetry is seen by the
/// network in a frame `height` wide and `width` high (see [`crate::nn::input::symmetry::frame`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub width: usize,
    pub height: usize,
}

impl Frame {
    /// A square frame of side `n`.
    pub fn square(n: usize) -> Frame {
        Frame {
            width: n,
            height: n,
        }
    }

    /// Number of points.
    #[inline]
    pub fn area(self) -> usize {
        self.width * self.height
    }
}
