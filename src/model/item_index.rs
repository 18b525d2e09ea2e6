//! The crate-wide item index: what the items of every file of a package declare (type aliases,
//! struct fields, statics, fn and method return types, trait impls, `use` imports, which module
//! files are declared under `#[cfg(test)]`), so the scope model can answer for a name the current
//! file does not declare (`type Registry = ..` in `state.rs`, a struct's fields in `server.rs`).
//!
//! Built once per package, from items only: one `lexer.rs` pass per file, fn bodies and every
//! other brace group skipped by matching braces, no syn. Types are kept as text, with the
//! declaring file's imports, and parsed only when a lookup reaches them (syn trees are per thread;
//! the index is shared by every worker).

use crate::model::fast_hash::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use crate::reading::lexer::{Lexer, Token};

/// A type as written in one file of the package.
#[derive(Debug, Clone)]
pub struct TypeText {
    /// Index into [`ItemIndex::files`].
    pub file: usize,
    pub text: String,
    /// The struct a field belongs to (empty for other entries).
    pub owner: String,
    /// The text names an SDK's peer or context type, or an alias of the package that may be one
    /// (directly, through an import rename, or through other aliases). Only such types are
    /// parsed: the rest cannot be a peer or a context, whatever file reads them.
    pub sdk: bool,
}

/// One file of the package, as far as the index is concerned.
#[derive(Debug, Default)]
pub struct FileItems {
    pub path: PathBuf,
    /// `use` imports at file level: local name → full path (`Peer` → `["rmcp", "Peer"]`).
    pub imports: HashMap<String, Vec<String>>,
    /// The `use` imports of each inline module of the file (`mod kinds { pub use .. }`), by the
    /// module's name: a module found by name may be one of these, not a file of its own.
    pub inline_mods: HashMap<String, HashMap<String, Vec<String>>>,
}

/// What the items of a package's files declare.
#[derive(Debug, Default)]
pub struct ItemIndex {
    pub files: Vec<FileItems>,
    /// `type Name = ..;` at module level → every definition of that name.
    pub aliases: HashMap<String, Vec<TypeText>>,
    /// field name → the types of every field of that name, each with its struct (tuple fields
    /// are named `0`, `1`, ..).
    pub fields_by_name: HashMap<String, Vec<TypeText>>,
    pub statics: HashMap<String, Vec<TypeText>>,
    /// fn or method name → the return types of every fn of that name.
    pub fn_returns: HashMap<String, Vec<TypeText>>,
    /// `impl Trait for Type` where `Trait` is named like an SDK's handler trait: (last segment
    /// of the trait path, last segment of the type).
    pub trait_impls: Vec<(String, String)>,
    /// Files declared by a `mod x;` under `#[cfg(test)]`, and every file below one.
    pub test_files: HashSet<PathBuf>,
    /// Sorted names (of any table) with a definition that names an SDK type: the only names a
    /// lookup can answer. Usually a handful, so a miss costs a few compares, not a hash.
    sdk_keys: Vec<String>,
    /// The package's folder (empty for an index built from loose texts).
    pub root: PathBuf,
    /// Where the package's hand-written requests are sent, worked out on first use.
    flow: OnceLock<crate::model::request_flow::RequestFlow>,
    /// The package's asking wrappers (`wrappers.rs`), worked out on first use.
    wrappers: OnceLock<crate::model::wrappers::AskingWrappers>,
    /// The methods that may be asking wrappers, found while the items are read.
    pub asking_candidates: Vec<crate::model::wrappers::Candidate>,
    /// `const ROOTS_LIST: &str = "roots/list";` (or a `static`) in any file of the package →
    /// its method: a file that only names the constant builds a request as much as one holding
    /// the string.
    pub method_consts: HashMap<String, crate::model::sdk::McpMethod>,
}

impl ItemIndex {
    /// Whether some definition of `name` names an SDK type (otherwise no table can answer).
    pub fn may_answer(&self, name: &str) -> bool {
        self.sdk_keys
            .binary_search_by(|k| k.as_str().cmp(name))
            .is_ok()
    }

    /// Which request builders and request-holding fields of the package reach a sender
    /// (`request_flow.rs`). Built on first use, by the first file that has a builder: the
    /// package's files are read again (few packages have one, and those pay once).
    pub fn request_flow(&self) -> &crate::model::request_flow::RequestFlow {
        self.flow.get_or_init(|| {
            crate::timings::stage(crate::timings::Stage::RequestFlow, || {
                crate::model::request_flow::RequestFlow::of_package(&self.root, &self.texts())
            })
        })
    }

    /// The package's own methods that ask through an SDK peer (`wrappers.rs`), built on first
    /// use: by the first call of an SDK request method's name on a receiver that is no peer.
    /// Only the candidates' own text is parsed, not the files again.
    pub fn asking_wrappers(
        &self,
        uses: &dyn Fn(&crate::model::sdk::SdkTable) -> bool,
    ) -> &crate::model::wrappers::AskingWrappers {
        self.wrappers.get_or_init(|| {
            crate::timings::stage(crate::timings::Stage::Wrappers, || {
                crate::model::wrappers::AskingWrappers::of_candidates(self, uses)
            })
        })
    }

    /// The texts of the package's files (read again: only the rare request flow needs them),
    /// without the module files declared under `#[cfg(test)]`.
    fn texts(&self) -> Vec<(PathBuf, String)> {
        self.files
            .iter()
            .filter(|f| !self.test_files.contains(&f.path))
            .filter_map(|f| {
                let text = std::fs::read(&f.path).ok()?;
                Some((f.path.clone(), String::from_utf8(text).ok()?))
            })
            .collect()
    }

    /// Whether `path` (absolute, or relative to the working directory) is a module file declared
    /// under `#[cfg(test)]` somewhere in the package.
    pub fn is_test_file(&self, path: &Path) -> bool {
        !self.test_files.is_empty()
            && std::path::absolute(path).is_ok_and(|p| self.test_files.contains(&normalize(&p)))
    }

    /// Indexes the given files' texts (`(path, text)`; paths absolute).
    pub fn build(files: Vec<(PathBuf, String)>) -> ItemIndex {
        let mut index = ItemIndex::default();
        let mut mods: Vec<ModDecl> = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        for (file, (path, text)) in files.iter().enumerate() {
            index.files.push(FileItems {
                path: normalize(path),
                imports: HashMap::default(),
                inline_mods: HashMap::default(),
            });
            let mut scanner = Scanner::new(text, file, &mut index, &mut mods, &mut pending);
            scanner.items(&mut Vec::new(), Ctx::Module, false);
        }
        index.test_files = test_files(&index.files, &mods);
        index.keep_sdk_types(&files, pending);
        index
    }

    /// Keeps, of what the scanner found, the definitions that may name an SDK peer or context:
    /// those whose text names one of the SDK tables' peer or context types (directly, through an
    /// import rename, or through an alias that does, to any depth), and for the names that have
    /// one, every other definition too (which makes the name ambiguous). Everything else is
    /// dropped before it costs an allocation: most of a package's fields and fns are of no
    /// interest, and this runs on every file of it.
    fn keep_sdk_types(&mut self, files: &[(PathBuf, String)], pending: Vec<Pending>) {
        let mut names: Vec<String> = crate::model::sdk::SDKS
            .iter()
            .flat_map(|s| {
                s.peer_types
                    .iter()
                    .map(|p| p.name)
                    .chain(s.context_types.iter().map(|c| c.name))
            })
            .map(str::to_string)
            .collect();
        names.sort_unstable();
        names.dedup();
        // `use rmcp::Peer as P;`: local name → real name, per file (usually none).
        let renames: Vec<Vec<(String, String)>> = self
            .files
            .iter()
            .map(|f| {
                f.imports
                    .iter()
                    .filter_map(|(local, path)| {
                        let real = path.last()?;
                        (real != local).then(|| (local.clone(), real.clone()))
                    })
                    .collect()
            })
            .collect();
        let names_sdk = |text: &str, file: usize, names: &[String]| {
            let known = |w: &str| names.binary_search_by(|n| n.as_str().cmp(w)).is_ok();
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .any(|w| {
                    known(w)
                        || renames[file]
                            .iter()
                            .any(|(local, real)| local == w && known(real))
                })
        };
        let text_of = |p: &Pending| &files[p.file].1[p.ty.clone()];
        let name_of = |p: &Pending| match p.tuple {
            Some(n) => n.to_string(),
            None => files[p.file].1[p.name.clone()].to_string(),
        };
        let mut sdk = vec![false; pending.len()];
        // Aliases first (few), until no alias changes.
        loop {
            let mut grew = false;
            for (i, p) in pending.iter().enumerate() {
                if p.table == Table::Alias && !sdk[i] && names_sdk(text_of(p), p.file, &names) {
                    sdk[i] = true;
                    let name = name_of(p);
                    if let Err(at) = names.binary_search(&name) {
                        names.insert(at, name);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        for (i, p) in pending.iter().enumerate() {
            if p.table != Table::Alias {
                sdk[i] = names_sdk(text_of(p), p.file, &names);
            }
        }
        let mut keys: Vec<String> = pending
            .iter()
            .zip(&sdk)
            .filter(|(_, s)| **s)
            .map(|(p, _)| name_of(p))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let wanted = |p: &Pending| match p.tuple {
            Some(n) => keys.binary_search(&n.to_string()).is_ok(),
            None => keys
                .binary_search_by(|k| k.as_str().cmp(&files[p.file].1[p.name.clone()]))
                .is_ok(),
        };
        for (p, &is_sdk) in pending.iter().zip(&sdk) {
            if !is_sdk && !wanted(p) {
                continue;
            }
            let entry = TypeText {
                file: p.file,
                text: text_of(p).to_string(),
                owner: files[p.file].1[p.owner.clone()].to_string(),
                sdk: is_sdk,
            };
            let map = match p.table {
                Table::Alias => &mut self.aliases,
                Table::Field => &mut self.fields_by_name,
                Table::Static => &mut self.statics,
                Table::FnReturn => &mut self.fn_returns,
            };
            map.entry(name_of(p)).or_default().push(entry);
        }
        self.sdk_keys = keys;
    }

    /// Reads and indexes every `.rs` file of the package whose manifest is `manifest`: the files
    /// under its folder, minus `target/`, hidden folders and nested packages. `held` gives the
    /// bytes of a file (by its absolute, normalized path) that the caller has read already.
    pub fn of_package_files(manifest: &Path, held: Held<'_>) -> ItemIndex {
        let Some(root) = manifest.parent() else {
            return ItemIndex::default();
        };
        let mut paths = Vec::new();
        collect_rs(root, true, &mut paths);
        paths.sort();
        let files = paths
            .into_iter()
            .filter_map(|p| {
                let text = match held(&normalize(&p)) {
                    Some(bytes) => bytes,
                    None => std::fs::read(&p).ok()?,
                };
                Some((p, String::from_utf8(text).ok()?))
            })
            .collect();
        let mut index = ItemIndex::build(files);
        index.root = normalize(&std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()));
        index
    }
}

/// The bytes of a file the caller has read already, by its absolute, normalized path.
pub type Held<'a> = &'a dyn Fn(&Path) -> Option<Vec<u8>>;

/// The index of the package whose manifest is `manifest`, built on first use and shared by every
/// file of the package (and every thread) for the rest of the process.
pub fn for_package(manifest: &Path) -> Arc<ItemIndex> {
    for_package_with(manifest, &|_| None)
}

/// [`for_package`], built (when this is the first use) from the bytes `held` has instead of
/// reading those files again: a run's first pass read most of a package's files, and reading
/// them twice was two system calls and a copy per file.
type Slot = Arc<OnceLock<Arc<ItemIndex>>>;

/// Every package's index, built once per process (by the first file that asks).
fn indexes() -> &'static Mutex<HashMap<PathBuf, Slot>> {
    static INDEXES: LazyLock<Mutex<HashMap<PathBuf, Slot>>> = LazyLock::new(Default::default);
    &INDEXES
}

pub fn for_package_with(manifest: &Path, held: Held<'_>) -> Arc<ItemIndex> {
    let slot = indexes()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(manifest.to_path_buf())
        .or_default()
        .clone();
    // Other files of the package wait here while the first one builds it.
    slot.get_or_init(|| Arc::new(ItemIndex::of_package_files(manifest, held)))
        .clone()
}

/// Forgets every package's index: the files changed under them (a `--fix` run wrote them), so
/// the next use reads the packages again. Facts of a package (where a built request is written,
/// which wrappers ask) are otherwise those of the files before the fix.
pub fn forget_all() {
    indexes().lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// The package's index when this process has built it already; `None` (nothing is built)
/// otherwise.
pub fn built(manifest: &Path) -> Option<Arc<ItemIndex>> {
    let slot = indexes()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(manifest)?
        .clone();
    slot.get().cloned()
}

fn collect_rs(dir: &Path, top: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Ok(ft) = e.file_type() else { continue };
        let path = e.path();
        if ft.is_dir() {
            if name.starts_with('.') || (top && name == "target") {
                continue;
            }
            if path.join("Cargo.toml").is_file() {
                continue;
            }
            collect_rs(&path, false, out);
        } else if ft.is_file() && name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Which table a definition goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Table {
    Alias,
    Field,
    Static,
    FnReturn,
}

/// A definition as the scanner finds it: offsets into its file's text.
struct Pending {
    table: Table,
    file: usize,
    name: Range<usize>,
    /// A tuple struct's field number (then `name` is empty).
    tuple: Option<usize>,
    /// A field's struct (empty for other definitions).
    owner: Range<usize>,
    ty: Range<usize>,
}

/// A `mod name;` declaration.
struct ModDecl {
    file: usize,
    /// Inline modules around it (`mod a { mod b; }` → `["a"]`).
    nesting: Vec<String>,
    name: String,
    test: bool,
}

/// The files a `mod` declaration may load, relative to the declaring file.
fn mod_candidates(declaring: &Path, nesting: &[String], name: &str) -> [PathBuf; 2] {
    let dir = declaring.parent().unwrap_or(Path::new("/"));
    let stem = declaring
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut base = dir.to_path_buf();
    if !matches!(stem.as_str(), "lib" | "main" | "mod") {
        base.push(&stem);
    }
    for n in nesting {
        base.push(n);
    }
    [
        base.join(format!("{name}.rs")),
        base.join(name).join("mod.rs"),
    ]
}

/// The files under a `#[cfg(test)] mod x;`, and the files they declare in turn.
fn test_files(files: &[FileItems], mods: &[ModDecl]) -> HashSet<PathBuf> {
    let by_path: HashMap<&Path, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_path(), i))
        .collect();
    let mut test: HashSet<usize> = HashSet::default();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::default();
    let mut stack = Vec::new();
    for m in mods {
        let found = mod_candidates(&files[m.file].path, &m.nesting, &m.name)
            .into_iter()
            .find_map(|c| by_path.get(c.as_path()).copied());
        let Some(child) = found else { continue };
        children.entry(m.file).or_default().push(child);
        if m.test && test.insert(child) {
            stack.push(child);
        }
    }
    while let Some(f) = stack.pop() {
        for &c in children.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
            if test.insert(c) {
                stack.push(c);
            }
        }
    }
    test.into_iter().map(|i| files[i].path.clone()).collect()
}

/// From just inside a `{`, passes over the body with the shared lexer's [`Lexer::skip_block`] (so
/// strings, raw strings, comments and char literals holding braces count as the compiler counts
/// them) and returns the offset of its matching `}`, or `None` at the end of the text. Nothing of
/// the body is kept, not even its tokens.
fn body_end(lexer: &mut Lexer<'_>) -> Option<usize> {
    lexer.skip_block()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Module,
    /// Inside `impl` or `trait` braces: fns are methods, `type` is an associated type.
    Members,
}

#[derive(Clone, Copy)]
enum Tok {
    Ident,
    Punct(u8),
    Literal,
    Other,
}

/// The item-level reader of one file.
struct Scanner<'a> {
    text: &'a str,
    toks: Vec<(Tok, Range<u32>)>,
    at: usize,
    file: usize,
    index: &'a mut ItemIndex,
    mods: &'a mut Vec<ModDecl>,
    pending: &'a mut Vec<Pending>,
    /// Inside an `impl` whose methods may be asking wrappers: its type's name (see
    /// `wrappers::may_own_wrappers`).
    wrapper_owner: Option<String>,
    /// The innermost inline module being scanned, whose imports are also kept by its name.
    inline_mod: Option<String>,
}

impl<'a> Scanner<'a> {
    fn new(
        text: &'a str,
        file: usize,
        index: &'a mut ItemIndex,
        mods: &'a mut Vec<ModDecl>,
        pending: &'a mut Vec<Pending>,
    ) -> Self {
        let bytes = text.as_bytes();
        let mut lexer = Lexer::new(bytes);
        // After `fn`, the first `{` outside parentheses opens its body, which is skipped by
        // `body_end` without being kept: bodies are most of the text, and no item in them
        // is indexed. (`fn(u8)` pointer types end at a `;` or `}` first.)
        let mut fn_pending = false;
        let mut parens = 0usize;
        // About one token per four bytes of Rust: one allocation, no regrowth.
        let mut toks = Vec::with_capacity(text.len() / 4);
        while let Some(t) = lexer.next() {
            // Files over 4 GiB are not Rust anyone wrote; their offsets wrap and the index is wrong
            // for them, nothing worse.
            let range = lexer.start() as u32..lexer.offset() as u32;
            let t = match t {
                Token::Ident(r) => {
                    if &bytes[r] == b"fn" {
                        fn_pending = true;
                    }
                    Tok::Ident
                }
                Token::Punct(b) => {
                    match b {
                        b'(' | b'[' => parens += 1,
                        b')' | b']' => parens = parens.saturating_sub(1),
                        b';' | b'}' if parens == 0 => fn_pending = false,
                        b'{' if fn_pending && parens == 0 => {
                            fn_pending = false;
                            toks.push((Tok::Punct(b'{'), range));
                            if let Some(close) = body_end(&mut lexer) {
                                toks.push((Tok::Punct(b'}'), close as u32..close as u32 + 1));
                            }
                            continue;
                        }
                        _ => {}
                    }
                    Tok::Punct(b)
                }
                Token::Literal(_) => Tok::Literal,
                _ => Tok::Other,
            };
            toks.push((t, range));
        }
        Scanner {
            text,
            toks,
            at: 0,
            file,
            index,
            mods,
            pending,
            wrapper_owner: None,
            inline_mod: None,
        }
    }

    fn range(&self, i: usize) -> Range<usize> {
        let r = &self.toks[i].1;
        r.start as usize..r.end as usize
    }

    fn word(&self, i: usize) -> Option<&'a str> {
        match self.toks.get(i)? {
            (Tok::Ident, r) => Some(&self.text[r.start as usize..r.end as usize]),
            _ => None,
        }
    }

    fn punct(&self, i: usize) -> Option<u8> {
        match self.toks.get(i)? {
            (Tok::Punct(b), _) => Some(*b),
            _ => None,
        }
    }

    /// `->`: a `>` right after a `-` closes no angle bracket.
    fn is_arrow_head(&self, i: usize) -> bool {
        i > 0 && self.punct(i - 1) == Some(b'-') && self.toks[i - 1].1.end == self.toks[i].1.start
    }

    /// From an opening `(`, `[` or `{` at `i`: the index just past its match.
    fn skip_group(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while j < self.toks.len() {
            match self.punct(j) {
                Some(b'(' | b'[' | b'{') => depth += 1,
                Some(b')' | b']' | b'}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        j
    }

    /// From `i`, the first token at bracket and angle depth 0 that `stop` accepts (or the end).
    /// Groups `stop` does not accept are stepped over; a closing bracket of the enclosing group
    /// stops.
    fn scan_to(&self, mut i: usize, stop: impl Fn(&Self, usize) -> bool) -> usize {
        let mut angle = 0usize;
        while i < self.toks.len() {
            if angle == 0 && stop(self, i) {
                return i;
            }
            match self.punct(i) {
                Some(b'(' | b'[' | b'{') => {
                    i = self.skip_group(i);
                    continue;
                }
                Some(b')' | b']' | b'}') => return i,
                Some(b'<') => angle += 1,
                Some(b'>') if !self.is_arrow_head(i) => angle = angle.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        i
    }

    /// The tokens of `from..to` outside every bracket and angle bracket.
    fn top_level(&self, from: usize, to: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut angle = 0usize;
        let mut i = from;
        while i < to {
            match self.punct(i) {
                Some(b'(' | b'[' | b'{') => {
                    if angle == 0 {
                        out.push(i);
                    }
                    i = self.skip_group(i);
                    continue;
                }
                Some(b'<') => angle += 1,
                Some(b'>') if !self.is_arrow_head(i) => angle = angle.saturating_sub(1),
                _ if angle == 0 => out.push(i),
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// The text of tokens `from..to`, as offsets.
    fn span_of(&self, from: usize, to: usize) -> Option<Range<usize>> {
        if from >= to || to > self.toks.len() {
            return None;
        }
        Some(self.range(from).start..self.range(to - 1).end)
    }

    fn record(&mut self, table: Table, name_tok: usize, ty: Option<Range<usize>>) {
        if let Some(ty) = ty {
            self.pending.push(Pending {
                table,
                file: self.file,
                name: self.range(name_tok),
                tuple: None,
                owner: 0..0,
                ty,
            });
        }
    }

    /// Items up to the closing brace of the group the scanner is in (or the end of the file).
    fn items(&mut self, nesting: &mut Vec<String>, ctx: Ctx, in_test: bool) {
        let mut test = false;
        while self.at < self.toks.len() {
            let i = self.at;
            match (self.toks[i].0, self.punct(i)) {
                (_, Some(b'}')) => {
                    self.at += 1;
                    return;
                }
                (_, Some(b'#')) => {
                    let mut j = i + 1;
                    if self.punct(j) == Some(b'!') {
                        j += 1;
                    }
                    if self.punct(j) == Some(b'[') {
                        let end = self.skip_group(j);
                        test |= self.is_cfg_test(j + 1, end.saturating_sub(1));
                        self.at = end;
                    } else {
                        self.at = j;
                    }
                    continue;
                }
                (_, Some(b'{' | b'(' | b'[')) => {
                    self.at = self.skip_group(i);
                    test = false;
                    continue;
                }
                (_, Some(b';')) => {
                    self.at += 1;
                    test = false;
                    continue;
                }
                (Tok::Ident, _) => {}
                _ => {
                    self.at += 1;
                    continue;
                }
            }
            let word = self.word(i).unwrap_or_default();
            match word {
                "pub" => {
                    self.at += 1;
                    if self.punct(self.at) == Some(b'(') {
                        self.at = self.skip_group(self.at);
                    }
                    continue;
                }
                "async" | "unsafe" | "default" | "extern" | "crate" => {
                    self.at += 1;
                    continue;
                }
                "const"
                    if !matches!(self.word(i + 1), Some("fn" | "unsafe" | "async" | "extern")) =>
                {
                    // `const X: T = ..;` (not `const fn`): only a legacy method's name is kept.
                    let end = self.scan_to(i + 1, |s, j| s.punct(j) == Some(b';'));
                    self.method_const(i + 1, end);
                    self.at = end + 1;
                }
                "const" => self.at += 1,
                "use" => self.use_item(i + 1),
                "type" => self.type_item(i + 1, ctx),
                "struct" | "union" => self.struct_item(i + 1),
                "static" => self.static_item(i + 1),
                "fn" => self.fn_item(i + 1, in_test || test),
                "impl" => self.impl_item(i + 1, nesting, in_test || test),
                "trait" => {
                    let open = self.scan_to(i + 1, |s, j| matches!(s.punct(j), Some(b'{' | b';')));
                    self.at = open + 1;
                    if self.punct(open) == Some(b'{') {
                        let outer = self.wrapper_owner.take();
                        self.items(nesting, Ctx::Members, in_test);
                        self.wrapper_owner = outer;
                    }
                }
                "mod" => {
                    let name = self.word(i + 1).unwrap_or_default().to_string();
                    match self.punct(i + 2) {
                        Some(b';') => {
                            self.mods.push(ModDecl {
                                file: self.file,
                                nesting: nesting.clone(),
                                name,
                                test: test || in_test,
                            });
                            self.at = i + 3;
                        }
                        Some(b'{') => {
                            self.at = i + 3;
                            nesting.push(name.clone());
                            let outer = self.inline_mod.replace(name);
                            self.items(nesting, Ctx::Module, in_test || test);
                            self.inline_mod = outer;
                            nesting.pop();
                        }
                        _ => self.at = i + 1,
                    }
                }
                _ => {
                    // `enum`, a macro call, anything else: on to its end.
                    self.at = i + 1;
                    continue;
                }
            }
            test = false;
        }
    }

    /// `cfg(test)` (alone, or in an `all(..)`), not `cfg(not(test))`.
    fn is_cfg_test(&self, from: usize, to: usize) -> bool {
        if self.word(from) != Some("cfg") {
            return false;
        }
        let words: Vec<&str> = (from..to).filter_map(|j| self.word(j)).collect();
        words.contains(&"test") && !words.contains(&"not") && !words.contains(&"any")
    }

    fn use_item(&mut self, from: usize) {
        let end = self.scan_to(from, |s, j| s.punct(j) == Some(b';'));
        self.at = end + 1;
        let mut prefix = Vec::new();
        self.use_tree(from, end, &mut prefix);
    }

    /// Records an import at file level, and in the inline module being scanned, if any.
    fn import(&mut self, local: String, path: Vec<String>) {
        let file = &mut self.index.files[self.file];
        if let Some(module) = &self.inline_mod {
            file.inline_mods
                .entry(module.clone())
                .or_default()
                .insert(local.clone(), path.clone());
        }
        file.imports.insert(local, path);
    }

    /// One use tree over tokens `from..to`: `a::b::{c, d as e, f::*}`.
    fn use_tree(&mut self, from: usize, to: usize, prefix: &mut Vec<String>) {
        let depth = prefix.len();
        let mut j = from;
        while j < to {
            if self.punct(j) == Some(b':') {
                j += 1;
                continue;
            }
            if self.punct(j) == Some(b'{') {
                let close = self.skip_group(j) - 1;
                let mut k = j + 1;
                while k < close {
                    let end = self.scan_to(k, |s, x| s.punct(x) == Some(b','));
                    let end = end.min(close);
                    self.use_tree(k, end, prefix);
                    k = end + 1;
                }
                break;
            }
            let Some(w) = self.word(j) else { break };
            if self.word(j + 1) == Some("as") {
                let rename = self.word(j + 2).unwrap_or("_");
                let mut path = prefix.clone();
                path.push(w.to_string());
                if rename != "_" {
                    self.import(rename.to_string(), path);
                }
                break;
            }
            let last = j + 1 >= to || self.punct(j + 1) != Some(b':');
            if last {
                if w == "self" {
                    if let Some(name) = prefix.last().cloned() {
                        self.import(name, prefix.clone());
                    }
                } else {
                    let mut path = prefix.clone();
                    path.push(w.to_string());
                    self.import(w.to_string(), path);
                }
                break;
            }
            prefix.push(w.to_string());
            j += 1;
        }
        prefix.truncate(depth);
    }

    /// After `type`: `Name<..> = Type;` at module level is an alias; in an impl or trait it is
    /// an associated type, skipped.
    fn type_item(&mut self, from: usize, ctx: Ctx) {
        let end = self.scan_to(from, |s, j| s.punct(j) == Some(b';'));
        self.at = end + 1;
        if ctx != Ctx::Module {
            return;
        }
        if self.word(from).is_none() {
            return;
        }
        let eq = self.scan_to(from + 1, |s, j| s.punct(j) == Some(b'='));
        if eq < end {
            let ty = self.span_of(eq + 1, end);
            self.record(Table::Alias, from, ty);
        }
    }

    fn struct_item(&mut self, from: usize) {
        if self.word(from).is_none() {
            self.at = from;
            return;
        }
        let name = self.range(from);
        let open = self.scan_to(from + 1, |s, j| {
            matches!(s.punct(j), Some(b'{' | b';' | b'('))
        });
        match self.punct(open) {
            Some(b'{') => {
                let close = self.skip_group(open) - 1;
                let mut k = open + 1;
                while k < close {
                    let end = self.scan_to(k, |s, x| s.punct(x) == Some(b',')).min(close);
                    self.field(name.clone(), None, k, end);
                    k = end + 1;
                }
                self.at = close + 1;
            }
            Some(b'(') => {
                let close = self.skip_group(open) - 1;
                let mut k = open + 1;
                let mut n = 0;
                while k < close {
                    let end = self.scan_to(k, |s, x| s.punct(x) == Some(b',')).min(close);
                    self.field(name.clone(), Some(n), k, end);
                    n += 1;
                    k = end + 1;
                }
                self.at = self.scan_to(close + 1, |s, j| s.punct(j) == Some(b';')) + 1;
            }
            _ => self.at = open + 1,
        }
    }

    /// One field, tokens `from..to`: attributes, visibility, `name: Type` (or a tuple field's
    /// type, numbered `n`).
    fn field(&mut self, owner: Range<usize>, n: Option<usize>, mut from: usize, to: usize) {
        loop {
            if self.punct(from) == Some(b'#') {
                from = self.skip_group(from + 1);
            } else if self.word(from) == Some("pub") {
                from += 1;
                if self.punct(from) == Some(b'(') {
                    from = self.skip_group(from);
                }
            } else {
                break;
            }
        }
        let (name, ty_from) = match n {
            Some(_) => (0..0, from),
            None => match (self.word(from), self.punct(from + 1)) {
                (Some(_), Some(b':')) => (self.range(from), from + 2),
                _ => return,
            },
        };
        let Some(ty) = self.span_of(ty_from, to) else {
            return;
        };
        self.pending.push(Pending {
            table: Table::Field,
            file: self.file,
            name,
            tuple: n,
            owner,
            ty,
        });
    }

    fn static_item(&mut self, from: usize) {
        let from = if self.word(from) == Some("mut") {
            from + 1
        } else {
            from
        };
        let end = self.scan_to(from, |s, j| s.punct(j) == Some(b';'));
        self.at = end + 1;
        if self.word(from).is_none() || self.punct(from + 1) != Some(b':') {
            return;
        }
        let eq = self.scan_to(from + 2, |s, j| s.punct(j) == Some(b'='));
        let ty = self.span_of(from + 2, eq.min(end));
        self.record(Table::Static, from, ty);
        self.method_const(from, end);
    }

    /// `NAME: Type = "roots/list"` over tokens `from..end`: the value one string literal, a
    /// legacy method's wire name.
    fn method_const(&mut self, from: usize, end: usize) {
        let (Some(name), Some(b':')) = (self.word(from), self.punct(from + 1)) else {
            return;
        };
        if end < 2
            || self.punct(end - 2) != Some(b'=')
            || !matches!(self.toks[end - 1].0, Tok::Literal)
        {
            return;
        }
        let lit = &self.text[self.range(end - 1)];
        let Some(wire) = lit.strip_prefix('"').and_then(|l| l.strip_suffix('"')) else {
            return;
        };
        if let Some(m) = crate::model::sdk::McpMethod::from_wire(wire) {
            self.index.method_consts.insert(name.to_string(), m);
        }
    }

    /// After `fn`: `name<..>(..) -> Type where .. { body }`; the body is skipped (kept as a
    /// wrapper candidate's text when it may be one).
    fn fn_item(&mut self, from: usize, in_test: bool) {
        if self.word(from).is_none() {
            self.at = from;
            return;
        }
        let end = self.scan_to(from + 1, |s, j| {
            matches!(s.punct(j), Some(b'{' | b';')) || s.word(j) == Some("where")
        });
        // The return type follows the `->` at depth 0 (not one in `impl Fn() -> T` parameters).
        let arrow = self.top_level(from + 1, end).into_iter().find(|&j| {
            self.punct(j) == Some(b'-')
                && self.punct(j + 1) == Some(b'>')
                && self.toks[j].1.end == self.toks[j + 1].1.start
        });
        if let Some(a) = arrow {
            let ty = self.span_of(a + 2, end);
            self.record(Table::FnReturn, from, ty);
        }
        let open = self.scan_to(end, |s, j| matches!(s.punct(j), Some(b'{' | b';')));
        self.at = match self.punct(open) {
            Some(b'{') => self.skip_group(open),
            _ => open + 1,
        };
        if !in_test && self.punct(open) == Some(b'{') {
            self.wrapper_candidate(from, end);
        }
    }

    /// A method named like an SDK request method, in an impl that may own a wrapper: kept with
    /// its text (from `fn` to the body's end) when its body may ask, by name only when it cannot
    /// (`wrappers::Candidate`).
    fn wrapper_candidate(&mut self, name_tok: usize, sig_end: usize) {
        let Some(owner) = &self.wrapper_owner else {
            return;
        };
        let name = self.word(name_tok).unwrap_or_default();
        if !crate::model::wrappers::is_request_method_name(name) {
            return;
        }
        // `(self`, `(&self`, `(&mut self`, `(&'a self`, `(mut self`, `(self: Arc<Self>`.
        let Some(params) = (name_tok + 1..sig_end).find(|&j| self.punct(j) == Some(b'(')) else {
            return;
        };
        let has_self = (params + 1..(params + 6).min(sig_end))
            .take_while(|&j| !matches!(self.punct(j), Some(b',' | b')')))
            .any(|j| self.word(j) == Some("self"));
        if !has_self {
            return;
        }
        let item = self.range(name_tok - 1).start..self.range(self.at - 1).end;
        let text = &self.text[item];
        let asks = crate::model::wrappers::may_ask(text);
        self.index
            .asking_candidates
            .push(crate::model::wrappers::Candidate {
                file: self.file,
                owner: owner.clone(),
                name: name.to_string(),
                text: asks.then(|| text.to_string()),
            });
    }

    /// After `impl`: `<..> Trait for Type where .. {` or `<..> Type {`; then its members.
    fn impl_item(&mut self, mut from: usize, nesting: &mut Vec<String>, in_test: bool) {
        if self.punct(from) == Some(b'<') {
            from = self.close_angle(from);
        }
        let open = self.scan_to(from, |s, j| {
            matches!(s.punct(j), Some(b'{' | b';')) || s.word(j) == Some("where")
        });
        let top = self.top_level(from, open);
        let for_at = top.iter().copied().find(|&j| self.word(j) == Some("for"));
        let self_from = for_at.map_or(from, |f| f + 1);
        let last_segment = |s: &Self, a: usize, b: usize| -> Option<String> {
            top.iter()
                .filter(|&&j| j >= a && j < b)
                .filter_map(|&j| s.word(j))
                .rfind(|w| !matches!(*w, "dyn" | "mut" | "const"))
                .map(str::to_string)
        };
        if let (Some(f), Some(ty)) = (for_at, last_segment(self, self_from, open)) {
            if let Some(tr) = last_segment(self, from, f) {
                let handler = crate::model::sdk::SDKS
                    .iter()
                    .any(|s| s.handler_traits.iter().any(|h| h.name == tr));
                if handler {
                    self.index.trait_impls.push((tr, ty));
                }
            }
        }
        let trait_name = for_at.and_then(|f| last_segment(self, from, f));
        let self_ty = top
            .iter()
            .copied()
            .find(|&j| j >= self_from && j < open)
            .and_then(|j| self.word(j))
            .filter(|w| !matches!(*w, "dyn" | "impl"))
            .and_then(|_| last_segment(self, self_from, open));
        let owner = self_ty
            .filter(|ty| crate::model::wrappers::may_own_wrappers(trait_name.as_deref(), ty));
        let body = self.scan_to(open, |s, j| matches!(s.punct(j), Some(b'{' | b';')));
        self.at = body + 1;
        if self.punct(body) == Some(b'{') {
            let outer = std::mem::replace(&mut self.wrapper_owner, owner);
            self.items(nesting, Ctx::Members, in_test);
            self.wrapper_owner = outer;
        }
    }

    /// From the first `<` at `i`, the index just past its matching `>`.
    fn close_angle(&self, i: usize) -> usize {
        let mut d = 0usize;
        let mut j = i;
        while j < self.toks.len() {
            match self.punct(j) {
                Some(b'<') => d += 1,
                Some(b'>') if !self.is_arrow_head(j) => {
                    d = d.saturating_sub(1);
                    if d == 0 {
                        return j + 1;
                    }
                }
                Some(b'(' | b'[' | b'{') => {
                    j = self.skip_group(j);
                    continue;
                }
                _ => {}
            }
            j += 1;
        }
        j
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sdk::McpMethod;

    fn index(files: &[(&str, &str)]) -> ItemIndex {
        ItemIndex::build(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), t.to_string()))
                .collect(),
        )
    }

    fn texts(v: Option<&Vec<TypeText>>) -> Vec<&str> {
        v.map(|v| v.iter().map(|t| t.text.as_str()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn constants_holding_a_legacy_method_are_indexed() {
        let ix = index(&[(
            "/p/src/methods.rs",
            r#"
            pub const LIST_ROOTS: &str = "roots/list";
            pub static mut ASK: &'static str = "elicitation/create";
            const PING: &str = "ping";
            const SAMPLE: &str = concat!("sampling/", "createMessage");
            const fn roots() -> &'static str { "roots/list" }
            impl Client { const SAMPLING: &'static str = "sampling/createMessage"; }
            fn f() { const INNER: &str = "roots/list"; }
            "#,
        )]);
        let mut got: Vec<(&str, McpMethod)> = ix
            .method_consts
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        got.sort_by_key(|(k, _)| *k);
        // A const in a fn body is the file's own business (`request_helpers.rs`).
        assert_eq!(
            got,
            [
                ("ASK", McpMethod::Elicitation),
                ("LIST_ROOTS", McpMethod::Roots),
                ("SAMPLING", McpMethod::Sampling),
            ]
        );
    }

    #[test]
    fn items_are_indexed_and_bodies_skipped() {
        let ix = index(&[(
            "/p/src/state.rs",
            r#"
            use rmcp::{Peer, service::RoleServer as Server, model::*};
            use std::sync::Arc;
            pub type Registry = Arc<RwLock<HashMap<String, Peer<Server>>>>;
            #[derive(Clone)]
            pub struct App<T: Clone> where T: Send {
                #[serde(skip)] pub(crate) peers: Registry,
                cb: Box<dyn Fn(u8, u8) -> Vec<Peer<Server>>>,
                count: u64,
                pub other: T,
            }
            struct Pair(pub Peer<Server>, String);
            static GLOBAL: OnceLock<Peer<Server>> = OnceLock::new();
            impl<T: Clone> App<T> {
                type Out = u8;
                pub async fn peer(&self, f: impl Fn() -> u8) -> Option<Peer<Server>> {
                    let type_in_body: u8 = { 1 };
                    fn nested() -> NotIndexed {}
                    "} fn fake() -> Bad {"
                }
                fn unit(&self) {}
                fn text(&self) -> String { String::new() }
            }
            impl<T> rmcp::ServerHandler for App<T> {}
            trait T { fn get(&self) -> Peer<Server>; }
            "#,
        )]);
        assert_eq!(
            texts(ix.aliases.get("Registry")),
            ["Arc<RwLock<HashMap<String, Peer<Server>>>>"]
        );
        assert!(
            !ix.aliases.contains_key("Out"),
            "associated types are not aliases"
        );
        let field = |s: &str, f: &str| -> Vec<String> {
            ix.fields_by_name
                .get(f)
                .map(|v| {
                    v.iter()
                        .filter(|t| t.owner == s)
                        .map(|t| t.text.clone())
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_eq!(field("App", "peers"), ["Registry"]);
        assert_eq!(
            field("App", "cb"),
            ["Box<dyn Fn(u8, u8) -> Vec<Peer<Server>>>"]
        );
        assert_eq!(field("Pair", "0"), ["Peer<Server>"]);
        // Types that name no SDK type, directly or through an alias, are not kept.
        assert!(field("App", "other").is_empty() && field("App", "count").is_empty());
        assert!(field("Pair", "1").is_empty());
        assert_eq!(texts(ix.statics.get("GLOBAL")), ["OnceLock<Peer<Server>>"]);
        assert_eq!(texts(ix.fn_returns.get("peer")), ["Option<Peer<Server>>"]);
        assert_eq!(texts(ix.fn_returns.get("get")), ["Peer<Server>"]);
        assert!(!ix.fn_returns.contains_key("unit"));
        assert!(!ix.fn_returns.contains_key("text"), "names no SDK type");
        assert!(
            !ix.fn_returns.contains_key("nested"),
            "fn bodies are not read"
        );
        assert!(!ix.fn_returns.contains_key("fake"));
        assert_eq!(
            ix.trait_impls,
            [("ServerHandler".to_string(), "App".to_string())]
        );
        let imports = &ix.files[0].imports;
        assert_eq!(imports["Server"], ["rmcp", "service", "RoleServer"]);
        assert_eq!(imports["Peer"], ["rmcp", "Peer"]);
        assert_eq!(imports["Arc"], ["std", "sync", "Arc"]);
        assert!(!imports.contains_key("*"));
        let sdk = |v: Option<&Vec<TypeText>>| v.unwrap()[0].sdk;
        assert!(sdk(ix.aliases.get("Registry")));
        assert!(sdk(ix.fields_by_name.get("peers")), "through the alias");
        assert!(sdk(ix.fn_returns.get("peer")));
        assert!(ix.may_answer("peers") && ix.may_answer("Registry") && ix.may_answer("GLOBAL"));
        assert!(!ix.may_answer("count") && !ix.may_answer("unit"));
    }

    #[test]
    fn a_name_with_another_definition_keeps_it_so_the_lookup_sees_the_ambiguity() {
        let ix = index(&[
            (
                "/p/src/a.rs",
                "use rmcp::{Peer as P, RoleServer}; fn peer() -> P<RoleServer> {}",
            ),
            (
                "/p/src/b.rs",
                "fn peer() -> MyPeer {} fn other() -> MyPeer {}",
            ),
        ]);
        let defs = ix.fn_returns.get("peer").unwrap();
        assert_eq!(defs.len(), 2);
        assert!(defs[0].sdk, "through the import rename");
        assert!(!defs[1].sdk);
        assert!(!ix.fn_returns.contains_key("other"));
    }

    #[test]
    fn bodies_are_skipped_whatever_braces_their_literals_hold() {
        for body in [
            r##"{ let s = "}"; }"##,
            r##"{ let s = r#"}"#; let t = br"}"; }"##,
            r##"{ let c = '}'; let d = '\u{7d}'; let e = b'{'; }"##,
            r##"{ // }
                /* } /* } */ } */ let l: &'static str = "x"; }"##,
            r##"{ let s = "\"}"; if x { y } }"##,
            r##"{ let é = 'é'; fn inner() -> u8 { 1 } }"##,
            // The body's own `}` right after a comment: once lost, with every item up to the
            // next `}` of the file.
            "{ x(); // note\n}",
            "{ x(); /* note */}",
        ] {
            let text =
                format!("fn f() -> Peer<RoleServer> {body}\nfn after() -> Peer<RoleServer> {{}}");
            let ix = index(&[("/p/src/lib.rs", &text)]);
            assert_eq!(ix.fn_returns.len(), 2, "{body}: {:?}", ix.fn_returns.keys());
            assert!(ix.fn_returns.contains_key("after"), "{body}");
        }
        let mut lexer = Lexer::new(b"{ let s = \"}");
        lexer.next();
        assert_eq!(
            body_end(&mut lexer),
            None,
            "an unclosed string runs to the end"
        );
    }

    #[test]
    fn modules_declared_under_cfg_test_are_test_files() {
        let ix = index(&[
            ("/p/src/lib.rs", "mod server;\n#[cfg(test)]\nmod server_tests;\n#[cfg(test)] mod t { mod inner; }\n#[cfg(not(test))] mod real;\nmod a { #[cfg(test)] pub mod b; }"),
            ("/p/src/server.rs", "#[cfg(test)] #[path = \"x\"] mod helpers;\n"),
            ("/p/src/server_tests.rs", "mod support;"),
            ("/p/src/server_tests/support.rs", ""),
            ("/p/src/server/helpers.rs", ""),
            ("/p/src/real.rs", ""),
            ("/p/src/a/b/mod.rs", ""),
            ("/p/src/t/inner.rs", ""),
        ]);
        let test = |p: &str| ix.test_files.contains(Path::new(p));
        assert!(test("/p/src/server_tests.rs"));
        assert!(
            test("/p/src/server_tests/support.rs"),
            "below a test module"
        );
        assert!(test("/p/src/server/helpers.rs"));
        assert!(test("/p/src/a/b/mod.rs"), "inside an inline module");
        assert!(test("/p/src/t/inner.rs"), "inside an inline test module");
        assert!(!test("/p/src/server.rs"));
        assert!(!test("/p/src/real.rs"), "cfg(not(test)) is not test code");
        assert!(!test("/p/src/lib.rs"));
    }
}
