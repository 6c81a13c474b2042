//! The net's inputs from a game: KataGo's V7 planes and globals, the history they read, ladders,
//! pass-alive areas, the SGF-metadata inputs and the eight board symmetries.

pub mod area;
pub mod features;
pub mod history;
pub mod ladder;
pub mod metadata;
pub mod sizes;
pub mod symmetry;

#[cfg(test)]
mod tests;
