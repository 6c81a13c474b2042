//! `tengen check`: replay SGF games and collect rule violations.
