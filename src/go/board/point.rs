//! The vocabulary of the board: [`Color`], [`Stone`], [`Point`], [`Move`] and board geometry.
//!
//! Every board, whatever its size, lives in the same padded 1-D array of
//! [`STRIDE`]×[`STRIDE`] cells: on-board points sit at `x` in `1..=width`, `y` in
//! `1..=height` (rectangular boards are the top-left part of the array), all
//! other cells are off-board sentinels. A fixed stride makes the neighbour offsets
//! constants and lets a [`Point`] be a plain index that needs no board to decode.
//!
//! Coordinates: `x` is the column from the left, `y` the row from the **top**, both
//! counted from 0 (the SGF convention). GTP's row number is `height - y`.
//! Text formats (GTP vertices, SGF points) are converted in their own modules.

use std::fmt;

/// Largest supported board (GTP's limit).
pub const MAX_SIZE: usize = 25;
/// Smallest supported board.
pub const MIN_SIZE: usize = 2;
/// Row length of the padded array: the largest board plus one sentinel on each side.
pub const STRIDE: usize = MAX_SIZE + 2;
/// Number of cells in the padded array.
pub const CELLS: usize = STRIDE * STRIDE;
/// Largest number of on-board points.
pub const MAX_POINTS: usize = MAX_SIZE * MAX_SIZE;

/// Offsets of the eight cells around a point, in 3×3 pattern-code order:
/// N, NE, E, SE, S, SW, W, NW.
pub const RING: [isize; 8] = [
    -(STRIDE as isize),
    -(STRIDE as isize) + 1,
    1,
    STRIDE as isize + 1,
    STRIDE as isize,
    STRIDE as isize - 1,
    -1,
    -(STRIDE as isize) - 1,
];

/// A player: two values only. The contents of a cell is a [`Stone`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    /// Both colours, Black first.
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    /// The other player.
    #[inline]
    pub fn opp(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-colour arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `B` or `W`, as SGF and GTP write it.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// The stone of this colour.
    #[inline]
    pub fn stone(self) -> Stone {
        match self {
            Color::Black => Stone::Black,
            Color::White => Stone::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// What a cell of the padded array holds. `Black` and `White` share their
/// discriminants with [`Color`], so `stone as usize` indexes per-colour arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Stone {
    Black = 0,
    White = 1,
    Empty = 2,
    Border = 3,
}

impl Stone {
    /// The colour of a stone, `None` for empty and border cells.
    #[inline]
    pub fn color(self) -> Option<Color> {
        match self {
            Stone::Black => Some(Color::Black),
            Stone::White => Some(Color::White),
            _ => None,
        }
    }
}

/// A cell index in the padded array. Only [`Geometry::point`] (checked) and
/// [`Point::from_index`] (unchecked, for tables) make one; whether it is on a
/// given board is the board's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u16);

impl Point {
    /// The cell index, for per-cell arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// A point from a cell index. The caller promises `index < CELLS`.
    #[inline]
    pub fn from_index(index: usize) -> Point {
        debug_assert!(index < CELLS);
        Point(index as u16)
    }

    /// Column from the left, from 0.
    #[inline]
    pub fn x(self) -> usize {
        self.0 as usize % STRIDE - 1
    }

    /// Row from the top, from 0.
    #[inline]
    pub fn y(self) -> usize {
        self.0 as usize / STRIDE - 1
    }

    /// The four orthogonal neighbours (some may be off-board sentinels).
    #[inline]
    pub fn neighbors(self) -> [Point; 4] {
        let i = self.0;
        [
            Point(i - STRIDE as u16),
            Point(i - 1),
            Point(i + 1),
            Point(i + STRIDE as u16),
        ]
    }

    /// The four diagonal neighbours (some may be off-board sentinels).
    #[inline]
    pub fn diagonals(self) -> [Point; 4] {
        let i = self.0;
        let s = STRIDE as u16;
        [
            Point(i - s - 1),
            Point(i - s + 1),
            Point(i + s - 1),
            Point(i + s + 1),
        ]
    }
}

/// A turn: a stone on a point, or a pass. Resignation exists only in the GTP layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Pass,
    Play(Point),
}

/// The shape of one board: `width` columns by `height` rows, each from
/// [`MIN_SIZE`] to [`MAX_SIZE`], square or not (SGF `SZ[W:H]`, GTP
/// `rectangular_boardsize W H`, KataGo's `boardXSize`/`boardYSize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    width: u8,
    height: u8,
}

impl Geometry {
    /// A square board of `size` lines, `None` outside [`MIN_SIZE`]`..=`[`MAX_SIZE`].
    pub fn new(size: usize) -> Option<Geometry> {
        Geometry::rect(size, size)
    }

    /// A board of `width` columns and `height` rows, `None` unless both are in
    /// [`MIN_SIZE`]`..=`[`MAX_SIZE`].
    pub fn rect(width: usize, height: usize) -> Option<Geometry> {
        let ok = |n: usize| (MIN_SIZE..=MAX_SIZE).contains(&n);
        (ok(width) && ok(height)).then_some(Geometry {
            width: width as u8,
            height: height as u8,
        })
    }

    /// Number of columns (KataGo's `x_size`).
    #[inline]
    pub fn width(self) -> usize {
        self.width as usize
    }

    /// Number of rows (KataGo's `y_size`).
    #[inline]
    pub fn height(self) -> usize {
        self.height as usize
    }

    /// Whether width and height are equal.
    #[inline]
    pub fn is_square(self) -> bool {
        self.width == self.height
    }

    /// The longer side.
    #[inline]
    pub fn max_side(self) -> usize {
        self.width().max(self.height())
    }

    /// The same board turned a quarter: width and height swapped.
    #[inline]
    pub fn transposed(self) -> Geometry {
        Geometry {
            width: self.height,
            height: self.width,
        }
    }

    /// Number of on-board points.
    #[inline]
    pub fn area(self) -> usize {
        self.width() * self.height()
    }

    /// The point at column `x`, row `y` (from the top-left, from 0), if on this board.
    #[inline]
    pub fn point(self, x: usize, y: usize) -> Option<Point> {
        (x < self.width() && y < self.height()).then(|| Point(((y + 1) * STRIDE + x + 1) as u16))
    }

    /// Whether a cell index is an on-board point of this geometry.
    #[inline]
    pub fn contains(self, p: Point) -> bool {
        let (col, row) = (p.index() % STRIDE, p.index() / STRIDE);
        (1..=self.width()).contains(&col) && (1..=self.height()).contains(&row)
    }

    /// Every on-board point, row by row from the top-left.
    pub fn points(self) -> impl Iterator<Item = Point> {
        let (w, h) = (self.width(), self.height());
        (0..h).flat_map(move |y| (0..w).map(move |x| Point(((y + 1) * STRIDE + x + 1) as u16)))
    }

    /// `19` for a square board, `19:13` (width first) otherwise: SGF's `SZ`
    /// value and KataGo's way of naming a board.
    pub fn sgf_size(self) -> String {
        if self.is_square() {
            self.width().to_string()
        } else {
            format!("{}:{}", self.width(), self.height())
        }
    }
}

impl fmt::Display for Geometry {
    /// `19x19`, `19x13` (width first).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_bounds_and_round_trip() {
        assert!(Geometry::new(1).is_none());
        assert!(Geometry::new(26).is_none());
        let g = Geometry::new(19).unwrap();
        assert_eq!(g.points().count(), 361);
        for p in g.points() {
            assert!(g.contains(p));
            assert_eq!(g.point(p.x(), p.y()), Some(p));
        }
        assert!(g.point(19, 0).is_none());
        let r = Geometry::rect(19, 13).unwrap();
        assert_eq!((r.width(), r.height(), r.area()), (19, 13, 247));
        assert!(Geometry::rect(19, 1).is_none() && Geometry::rect(26, 19).is_none());
        assert_eq!(r.points().count(), 247);
        assert!(r.point(18, 12).is_some() && r.point(12, 18).is_none());
        for p in r.points() {
            assert!(r.contains(p));
            assert_eq!(r.point(p.x(), p.y()), Some(p));
        }
        assert!(!r.contains(Geometry::rect(13, 19).unwrap().point(0, 18).unwrap()));
        assert_eq!(
            (r.sgf_size(), g.sgf_size()),
            ("19:13".to_string(), "19".to_string())
        );
        assert_eq!(r.transposed(), Geometry::rect(13, 19).unwrap());
        for n in g.point(0, 0).unwrap().neighbors() {
            assert_eq!(
                g.contains(n),
                n == g.point(1, 0).unwrap() || n == g.point(0, 1).unwrap()
            );
        }
    }

    #[test]
    fn colors() {
        assert_eq!(Color::Black.opp(), Color::White);
        assert_eq!(Color::White.stone() as usize, Color::White.index());
        assert_eq!(Stone::Empty.color(), None);
    }
}
