//! SGF syntax: bytes to a tree of nodes holding raw properties, with the byte
//! offset of every node, property and value for error messages.
//!
//! Nothing in this module knows about Go. It is tolerant where the real world
//! needs it and strict where tolerance would corrupt a game:
//! - a UTF-8 byte-order mark and any text before, between and after the game
//!   trees are skipped (a game tree starts at `(` followed by `;`);
//! - FF\[3\] mixed-case identifiers keep only their capital letters
//!   (`AddBlack` is `AB`), as sgfmill does;
//! - a value runs to the first unescaped `]`; escapes are resolved only when a
//!   value is decoded ([`Value::text`]), so bytes are never re-encoded;
//! - anything else out of place (`US[Matsuyama[3d]]`, `B[cc]x;W[dd]`, a missing
//!   `)`) is an error naming the line, the column and what was expected. Two
//!   nodes are never silently merged.
//!
//! The tree lives in flat arrays (nodes, properties, value spans, identifier
//! bytes): parsing allocates a handful of vectors per file, not per node, and
//! deep variation nesting uses an explicit stack, never recursion.

use std::fmt;

/// Identifies a node within its [`Collection`].
pub type NodeId = u32;

const NONE: u32 = u32::MAX;

/// A syntax or content error in an SGF file, with the 1-based line and column
/// (counted in characters) where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for SgfError {}

/// Line and column (1-based; columns count characters, not bytes) of a byte
/// offset. Lines end at `\n`, `\r\n` or a lone `\r`.
pub fn line_column(input: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(input.len());
    let (mut line, mut line_start) = (1u32, 0usize);
    let mut i = 0;
    while i < offset {
        match input[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'\r' if input.get(i + 1) != Some(&b'\n') => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let column = input[line_start..offset]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count() as u32
        + 1;
    (line, column)
}

/// The error for `message` at byte `offset` of `input`.
pub fn error_at(input: &[u8], offset: usize, message: impl Into<String>) -> SgfError {
    let (line, column) = line_column(input, offset);
    SgfError {
        line,
        column,
        message: message.into(),
    }
}

#[derive(Clone, Copy, Debug)]
struct NodeData {
    offset: u32,
    props: (u32, u32),
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
}

#[derive(Clone, Copy, Debug)]
struct PropData {
    offset: u32,
    /// Span of the identifier (capital letters only) in `Collection::idents`.
    ident: (u32, u32),
    /// Span of the values in `Collection::values`.
    values: (u32, u32),
}

/// A value's bytes between its brackets: `[start, end)` of the input.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    end: u32,
}

/// Every game tree of one SGF file. Borrows the input bytes.
#[derive(Clone, Debug)]
pub struct Collection<'a> {
    input: &'a [u8],
    nodes: Vec<NodeData>,
    props: Vec<PropData>,
    values: Vec<Span>,
    idents: Vec<u8>,
    roots: Vec<NodeId>,
}

impl<'a> Collection<'a> {
    /// The bytes this collection was parsed from.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// Number of game trees.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// Never true: parsing fails on input without a game tree.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The root node of each game tree, in file order.
    pub fn games(&self) -> impl ExactSizeIterator<Item = Node<'_>> + '_ {
        self.roots.iter().map(move |&id| Node { c: self, id })
    }

    /// The node with id `id`.
    ///
    /// # Panics
    /// If `id` is not a node of this collection.
    pub fn node(&self, id: NodeId) -> Node<'_> {
        assert!((id as usize) < self.nodes.len(), "no node {id}");
        Node { c: self, id }
    }

    /// An error located at byte `offset` of this collection's input.
    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> SgfError {
        error_at(self.input, offset, message)
    }
}

/// A node of a [`Collection`].
#[derive(Clone, Copy)]
pub struct Node<'c> {
    c: &'c Collection<'c>,
    id: NodeId,
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.properties()).finish()
    }
}

impl<'c> Node<'c> {
    fn data(&self) -> &'c NodeData {
        &self.c.nodes[self.id as usize]
    }

    /// This node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The collection the node belongs to.
    pub fn collection(&self) -> &'c Collection<'c> {
        self.c
    }

    /// Byte offset of the node's `;`.
    pub fn offset(&self) -> usize {
        self.data().offset as usize
    }

    /// The properties in file order (duplicates kept).
    pub fn properties(&self) -> impl Iterator<Item = Property<'c>> + 'c {
        let c = self.c;
        let (a, b) = self.data().props;
        (a..b).map(move |i| Property { c, i })
    }

    /// The first property with identifier `ident` (capital letters).
    pub fn get(&self, ident: &str) -> Option<Property<'c>> {
        self.properties()
            .find(|p| p.ident_bytes() == ident.as_bytes())
    }

    /// The first child: the next node of the main line.
    pub fn first_child(&self) -> Option<Node<'c>> {
        let id = self.data().first_child;
        (id != NONE).then_some(Node { c: self.c, id })
    }

    /// The children, main line first, then the variations in file order.
    pub fn children(&self) -> impl Iterator<Item = Node<'c>> + 'c {
        let c = self.c;
        let mut next = self.data().first_child;
        std::iter::from_fn(move || {
            (next != NONE).then(|| {
                let n = Node { c, id: next };
                next = c.nodes[next as usize].next_sibling;
                n
            })
        })
    }

    /// This node and the first child of each node after it: the main line.
    pub fn main_line(&self) -> impl Iterator<Item = Node<'c>> + 'c {
        std::iter::successors(Some(*self), |n| n.first_child())
    }
}

/// A property of a [`Node`]: an identifier and one or more values.
#[derive(Clone, Copy)]
pub struct Property<'c> {
    c: &'c Collection<'c>,
    i: u32,
}

impl fmt::Debug for Property<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.ident())?;
        for v in self.values() {
            write!(f, "[{}]", String::from_utf8_lossy(v.raw()))?;
        }
        Ok(())
    }
}

impl<'c> Property<'c> {
    fn data(&self) -> &'c PropData {
        &self.c.props[self.i as usize]
    }

    /// The identifier: capital letters only (FF\[3\] lower-case letters dropped).
    pub fn ident(&self) -> &'c str {
        // Only ASCII capitals are ever stored.
        std::str::from_utf8(self.ident_bytes()).unwrap_or("")
    }

    /// The identifier's bytes (ASCII capitals), for fast comparisons.
    #[inline]
    pub fn ident_bytes(&self) -> &'c [u8] {
        let (a, b) = self.data().ident;
        &self.c.idents[a as usize..b as usize]
    }

    /// Byte offset of the identifier's first letter.
    pub fn offset(&self) -> usize {
        self.data().offset as usize
    }

    /// The values in file order (at least one).
    pub fn values(&self) -> impl ExactSizeIterator<Item = Value<'c>> + 'c {
        let c = self.c;
        let (a, b) = self.data().values;
        (a..b).map(move |i| {
            let s = c.values[i as usize];
            Value {
                input: c.input,
                start: s.start,
                end: s.end,
            }
        })
    }

    /// The first value.
    pub fn value(&self) -> Value<'c> {
        let s = self.c.values[self.data().values.0 as usize];
        Value {
            input: self.c.input,
            start: s.start,
            end: s.end,
        }
    }
}

/// One property value: raw bytes between the brackets, escapes unresolved.
#[derive(Clone, Copy, Debug)]
pub struct Value<'a> {
    input: &'a [u8],
    start: u32,
    end: u32,
}

impl<'a> Value<'a> {
    /// The bytes between `[` and `]`, exactly as in the file.
    pub fn raw(&self) -> &'a [u8] {
        &self.input[self.start as usize..self.end as usize]
    }

    /// Byte offset of the first byte after `[`.
    pub fn offset(&self) -> usize {
        self.start as usize
    }

    /// The value with escapes resolved and surrounding whitespace trimmed, for
    /// numbers, points, colours and other short values. Borrowed when the value
    /// holds no backslash (the usual case).
    pub fn plain(&self) -> std::borrow::Cow<'a, [u8]> {
        let raw = self.raw();
        if !raw.contains(&b'\\') {
            return std::borrow::Cow::Borrowed(raw.trim_ascii());
        }
        let mut out = Vec::with_capacity(raw.len());
        let mut bytes = raw.iter();
        while let Some(&b) = bytes.next() {
            if b == b'\\' {
                if let Some(&n) = bytes.next() {
                    out.push(n);
                }
            } else {
                out.push(b);
            }
        }
        let trimmed = out.trim_ascii().to_vec();
        std::borrow::Cow::Owned(trimmed)
    }

    /// The value as SGF Text: escapes resolved, soft line breaks (`\` before a
    /// line break) removed, other whitespace except line breaks turned into
    /// spaces; decoded as UTF-8 when valid, else as Latin-1 (lossy by design: a
    /// bad comment never stops a game from being read).
    pub fn text(&self) -> String {
        decode(&unescape_text(self.raw(), false))
    }

    /// The value as SGF SimpleText: like [`Value::text`], with line breaks
    /// turned into spaces too.
    pub fn simple_text(&self) -> String {
        decode(&unescape_text(self.raw(), true))
    }
}

/// Resolves Text escapes; `simple` also turns line breaks into spaces.
fn unescape_text(raw: &[u8], simple: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'\\' && i + 1 < raw.len() {
            let n = raw[i + 1];
            if n == b'\n' || n == b'\r' {
                // Soft line break: `\` + `\n`, `\r`, `\r\n` or `\n\r` is removed.
                let pair = raw.get(i + 2).copied();
                i += if (n == b'\n' && pair == Some(b'\r')) || (n == b'\r' && pair == Some(b'\n')) {
                    3
                } else {
                    2
                };
                continue;
            }
            out.push(n);
            i += 2;
            continue;
        }
        if b == b'\\' {
            i += 1;
            continue;
        }
        let is_break = b == b'\n' || b == b'\r';
        out.push(if is_break {
            if simple {
                b' '
            } else {
                b
            }
        } else if b.is_ascii_whitespace() || b == 0x0B {
            b' '
        } else {
            b
        });
        i += 1;
    }
    out
}

/// UTF-8 when valid, else Latin-1.
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Parses every game tree in `input`.
///
/// # Errors
/// No game tree in the input, or a syntax error inside one (see the module
/// documentation); the error names the line and column.
pub fn parse(input: &[u8]) -> Result<Collection<'_>, SgfError> {
    if input.len() >= NONE as usize {
        return Err(error_at(input, 0, "file too large for an SGF collection"));
    }
    // A move node takes about 6 bytes (`;B[aa]`); big files with long comments
    // grow the vectors as needed instead of reserving for the worst case.
    let guess = (input.len() / 6 + 1).min(1 << 14);
    let mut p = Parser {
        s: input,
        i: 0,
        c: Collection {
            input,
            nodes: Vec::with_capacity(guess),
            props: Vec::with_capacity(guess),
            values: Vec::with_capacity(guess),
            idents: Vec::with_capacity(guess),
            roots: Vec::new(),
        },
        stack: Vec::new(),
    };
    if input.starts_with(&[0xEF, 0xBB, 0xBF]) {
        p.i = 3;
    }
    while let Some(start) = p.find_tree_start() {
        p.i = start;
        p.game_tree()?;
    }
    if p.c.roots.is_empty() {
        return Err(error_at(
            input,
            p.i.min(input.len()),
            "no SGF game tree found: expected '(' followed by ';'",
        ));
    }
    Ok(p.c)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    c: Collection<'a>,
    /// For each open `(`: its byte offset and the node its subtree hangs from.
    stack: Vec<(usize, u32)>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    /// The offset of the next `(` that is followed (after whitespace) by `;`.
    fn find_tree_start(&self) -> Option<usize> {
        let mut i = self.i;
        while let Some(k) = self.s[i..].iter().position(|&b| b == b'(') {
            let open = i + k;
            let mut j = open + 1;
            while j < self.s.len() && self.s[j].is_ascii_whitespace() {
                j += 1;
            }
            if self.s.get(j) == Some(&b';') {
                return Some(open);
            }
            i = open + 1;
        }
        None
    }

    fn err(&self, offset: usize, message: impl Into<String>) -> SgfError {
        error_at(self.s, offset, message)
    }

    /// A description of the byte at the cursor, for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "end of file".to_owned(),
            Some(b) if b.is_ascii_graphic() => format!("'{}'", b as char),
            Some(b) => format!("byte 0x{b:02X}"),
        }
    }

    fn new_node(&mut self, parent: u32) -> u32 {
        let id = self.c.nodes.len() as u32;
        let n = self.c.props.len() as u32;
        self.c.nodes.push(NodeData {
            offset: self.i as u32,
            props: (n, n),
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
        });
        if parent == NONE {
            self.c.roots.push(id);
        } else {
            let pd = &mut self.c.nodes[parent as usize];
            let last = pd.last_child;
            pd.last_child = id;
            if last == NONE {
                pd.first_child = id;
            } else {
                self.c.nodes[last as usize].next_sibling = id;
            }
        }
        id
    }

    /// One top-level game tree starting at the `(` under the cursor.
    fn game_tree(&mut self) -> Result<(), SgfError> {
        // `cur`: the node the next node or subtree hangs from (NONE: a new root).
        let mut cur = NONE;
        // Whether properties may follow (we are inside a node).
        let mut in_node = false;
        // Whether a subtree was closed since the last node (then only `(` or `)`).
        let mut after_subtree = false;
        self.stack.clear();
        loop {
            self.skip_ws();
            let at = self.i;
            match self.peek() {
                Some(b'(') => {
                    self.stack.push((at, cur));
                    self.i += 1;
                    self.skip_ws();
                    if self.peek() != Some(b';') {
                        return Err(self.err(
                            self.i,
                            format!("expected ';' after '(', found {}", self.found()),
                        ));
                    }
                    in_node = false;
                    after_subtree = false;
                }
                Some(b';') => {
                    if after_subtree {
                        return Err(self.err(
                            at,
                            "expected '(' or ')' after a variation, found ';' (nodes may not follow variations)",
                        ));
                    }
                    cur = self.new_node(cur);
                    self.i += 1;
                    in_node = true;
                }
                Some(b')') => {
                    let Some((_, parent)) = self.stack.pop() else {
                        return Err(self.err(at, "unbalanced ')'"));
                    };
                    self.i += 1;
                    if self.stack.is_empty() {
                        return Ok(());
                    }
                    cur = parent;
                    in_node = false;
                    after_subtree = true;
                }
                Some(b) if b.is_ascii_alphabetic() => {
                    if !in_node {
                        return Err(self.err(
                            at,
                            "expected '(' or ')' after a variation, found a property",
                        ));
                    }
                    self.property(cur)?;
                }
                None => {
                    let open = self.stack.last().map_or(at, |&(o, _)| o);
                    let (line, column) = line_column(self.s, open);
                    return Err(self.err(
                        at,
                        format!(
                            "unexpected end of file: expected ')' to close the game tree opened at line {line}, column {column}"
                        ),
                    ));
                }
                Some(_) => {
                    let expected = if in_node {
                        "a property identifier, ';', '(' or ')'"
                    } else {
                        "'(' or ')'"
                    };
                    return Err(
                        self.err(at, format!("expected {expected}, found {}", self.found()))
                    );
                }
            }
        }
    }

    /// One property (identifier and values) of node `node`, cursor on a letter.
    fn property(&mut self, node: u32) -> Result<(), SgfError> {
        let at = self.i;
        let ident_start = self.c.idents.len() as u32;
        while let Some(b) = self.peek() {
            if !b.is_ascii_alphabetic() {
                break;
            }
            if b.is_ascii_uppercase() {
                self.c.idents.push(b);
            }
            self.i += 1;
        }
        let ident_end = self.c.idents.len() as u32;
        let end = self.i;
        let name = || String::from_utf8_lossy(&self.s[at..end]).into_owned();
        if ident_start == ident_end {
            return Err(self.err(
                at,
                format!("property identifier '{}' has no capital letter", name()),
            ));
        }
        self.skip_ws();
        if self.peek() != Some(b'[') {
            return Err(self.err(
                self.i,
                format!(
                    "expected '[' after property identifier '{}', found {}",
                    name(),
                    self.found()
                ),
            ));
        }
        let values_start = self.c.values.len() as u32;
        while self.peek() == Some(b'[') {
            let open = self.i;
            self.i += 1;
            let start = self.i;
            loop {
                match self.peek() {
                    None => {
                        let (line, column) = line_column(self.s, open);
                        return Err(self.err(
                            self.i,
                            format!(
                                "unexpected end of file: expected ']' to close the value of '{}' opened at line {line}, column {column}",
                                name()
                            ),
                        ));
                    }
                    Some(b']') => break,
                    Some(b'\\') => self.i = (self.i + 2).min(self.s.len()),
                    Some(_) => self.i += 1,
                }
            }
            self.c.values.push(Span {
                start: start as u32,
                end: self.i as u32,
            });
            self.i += 1;
            self.skip_ws();
        }
        self.c.props.push(PropData {
            offset: at as u32,
            ident: (ident_start, ident_end),
            values: (values_start, self.c.values.len() as u32),
        });
        self.c.nodes[node as usize].props.1 = self.c.props.len() as u32;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(n: Node<'_>) -> Vec<String> {
        n.properties().map(|p| p.ident().to_owned()).collect()
    }

    #[test]
    fn structure_main_line_and_variations() {
        let c =
            parse(b"(;FF[4]C[root](;C[a];C[b](;C[c])(;C[d];C[e]))(;C[f](;C[g];C[h];C[i])(;C[j])))")
                .unwrap();
        assert_eq!(c.len(), 1);
        let root = c.games().next().unwrap();
        let main: Vec<String> = root
            .main_line()
            .map(|n| n.get("C").unwrap().value().text())
            .collect();
        assert_eq!(main, ["root", "a", "b", "c"]);
        let kids: Vec<String> = root
            .children()
            .map(|n| n.get("C").unwrap().value().text())
            .collect();
        assert_eq!(kids, ["a", "f"]);
    }

    #[test]
    fn collection_bom_and_junk() {
        let c = parse(b"\xEF\xBB\xBFSubject: two games (see below)\n(;GM[1];B[aa])\n-- \n(c) me\n( ;GM[1];W[bb])\n--sig )").unwrap();
        assert_eq!(c.len(), 2);
        let second = c.games().nth(1).unwrap();
        assert_eq!(
            second
                .first_child()
                .unwrap()
                .get("W")
                .unwrap()
                .value()
                .raw(),
            b"bb"
        );
    }

    #[test]
    fn mixed_case_identifiers_keep_capitals() {
        let c = parse(b"(;CoPyright[x]AddBlack[aa][bb];B[cc])").unwrap();
        let root = c.games().next().unwrap();
        assert_eq!(idents(root), ["CP", "AB"]);
        assert_eq!(root.get("AB").unwrap().values().len(), 2);
    }

    #[test]
    fn escapes_and_soft_breaks() {
        let c =
            parse(b"(;C[a \\] b \\\\ c]GN[x\\]y]C[soft\\\nbreak\thard\nline];C[\\\\])").unwrap();
        let root = c.games().next().unwrap();
        let texts: Vec<String> = root.properties().map(|p| p.value().text()).collect();
        assert_eq!(texts, ["a ] b \\ c", "x]y", "softbreak hard\nline"]);
        assert_eq!(
            root.properties().nth(2).unwrap().value().simple_text(),
            "softbreak hard line"
        );
        let second = root.first_child().unwrap();
        assert_eq!(second.get("C").unwrap().value().text(), "\\");
    }

    #[test]
    fn latin1_fallback() {
        let c = parse(b"(;PB[Jos\xE9])").unwrap();
        let root = c.games().next().unwrap();
        assert_eq!(root.get("PB").unwrap().value().text(), "Jos\u{e9}");
    }

    #[test]
    fn unescaped_bracket_is_an_error_not_a_merge() {
        let e = parse(b"(;GM[1]\nUS[Matsuyama[3d]];B[aa])").unwrap_err();
        assert_eq!((e.line, e.column), (2, 17), "{e}");
        assert!(e.message.contains("found ']'"), "{e}");
        let e = parse(b"(;B[cc]x;W[dd])").unwrap_err();
        assert_eq!((e.line, e.column), (1, 8), "{e}");
        assert!(e.message.contains("no capital letter"), "{e}");
        let e = parse(b"(;B[cc]X;W[dd])").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9), "{e}");
        assert!(e.message.contains("expected '['"), "{e}");
    }

    #[test]
    fn structural_errors() {
        for (input, want) in [
            (&b""[..], "no SGF game tree"),
            (b";;)", "no SGF game tree"),
            (b"(B[pp];W[dd])", "no SGF game tree"),
            (b"(;B[pp]", "expected ')'"),
            (b"(;B[pp", "expected ']'"),
            (b"(;B[aa](;W[bb]);B[cc])", "nodes may not follow"),
            (b"(;B[aa](;W[bb])C[x])", "found a property"),
            (b"(;B[aa]( B[cc]))", "expected ';' after '('"),
            (b"(;b[aa])", "no capital letter"),
            (b"(;B[aa],W[bb])", "found ','"),
        ] {
            let e = parse(input).unwrap_err();
            assert!(
                e.message.contains(want),
                "{}: {e}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_column("ab\r\ncd\réf".as_bytes(), 9), (3, 2));
        let e = parse("\n(;C[日本]X)".as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 9), "{e}");
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let mut s = Vec::new();
        for _ in 0..200_000 {
            s.extend_from_slice(b"(;B[aa]");
        }
        s.extend(std::iter::repeat_n(b')', 200_000));
        let c = parse(&s).unwrap();
        assert_eq!(c.games().next().unwrap().main_line().count(), 200_000);
    }
}
