//! The light scope model: what the syntax of one file says about names and types.
//!
//! `FileFacts` is gathered once per file before the walk (imports and their aliases, struct field
//! types, statics, fn return types, which types implement which handler trait). During the walk the
//! engine keeps frames of local bindings; `Value` is what the model knows about an expression:
//! whether it is an SDK peer or handler context and of which side, where it came from, and whether
//! it carries a server-to-client request.

use crate::model::fast_hash::{HashMap, HashSet};
use std::sync::Arc;

use syn::punctuated::Punctuated;
use syn::visit::Visit;

use std::cell::RefCell;

use crate::model::item_index::{ItemIndex, TypeText};
use crate::model::manifest::{Dependency, Package};
use crate::model::scan::RawRequest;
use crate::model::sdk::{HandlerTrait, McpMethod, RoleSource, SdkTable, Side, SDKS};
use crate::reading::name;

/// What an expression is, as far as MCP is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Nothing known.
    Unknown,
    /// A peer (or a running service that derefs to one); `side` is `None` for `Peer<R>`.
    Peer {
        sdk: &'static SdkTable,
        side: Option<Side>,
    },
    /// A handler context that carries a peer (`RequestContext<RoleServer>`).
    Context {
        sdk: &'static SdkTable,
        side: Option<Side>,
    },
    /// A value of a known type that is not an SDK peer (an in-house client, another vendor's type).
    Foreign,
    /// `self` inside an impl of the named type.
    SelfOf(Option<String>),
    /// A value of a type that implements one of the SDK's handler traits in this file.
    Handler(Side),
}

/// Where a peer value came from: decides whether a call can still be inside a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Unknown,
    /// A parameter of the enclosing fn or closure: the caller decides.
    Param,
    /// The handler's own context (`context.peer`).
    Context,
    /// A struct field, a static, or a getter: kept beyond the request that produced it.
    Stored,
    /// A running service (`serve_server(..)`): outside every request.
    Running,
}

#[derive(Debug, Clone)]
pub struct Value {
    pub kind: Kind,
    pub origin: Origin,
    /// The last name on the way to this value (`peer` in `self.peer.read().await`), for untyped
    /// receivers.
    pub hint: Option<String>,
    /// The request this value stands for (`ServerRequest::ListRootsRequest(..)`).
    pub request: Option<McpMethod>,
    /// Hand-written request literals this value was built from.
    pub raw: Vec<RawRequest>,
}

impl Value {
    pub fn unknown() -> Value {
        Value {
            kind: Kind::Unknown,
            origin: Origin::Unknown,
            hint: None,
            request: None,
            raw: Vec::new(),
        }
    }

    pub fn of(kind: Kind, origin: Origin) -> Value {
        Value {
            kind,
            origin,
            ..Value::unknown()
        }
    }

    pub fn with_hint(mut self, hint: &str) -> Value {
        if self.hint.is_none() {
            self.hint = Some(hint.to_string());
        }
        self
    }

    pub fn with_origin(mut self, origin: Origin) -> Value {
        if matches!(
            self.kind,
            Kind::Peer { .. } | Kind::Context { .. } | Kind::Unknown
        ) {
            self.origin = origin;
        }
        self
    }
}

/// Calls and methods whose arguments run in another task.
pub const SPAWNS: &[&str] = &["spawn", "spawn_blocking", "spawn_local", "spawn_on"];

/// The arguments of `e` when it starts a task (`tokio::spawn(..)`, `thread::spawn(..)`,
/// `rt.spawn(..)`): what runs in the task, or the local that names it.
pub fn spawn_args(e: &syn::Expr) -> Option<&Punctuated<syn::Expr, syn::Token![,]>> {
    match e {
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| crate::reading::ident_is_one_of(&s.ident, SPAWNS)))
        .then_some(&c.args),
        syn::Expr::MethodCall(mc) => {
            crate::reading::ident_is_one_of(&mc.method, SPAWNS).then_some(&mc.args)
        }
        _ => None,
    }
}

/// The plain local names among a spawn's arguments (`tokio::spawn(task)`).
pub fn spawned_locals(
    args: &Punctuated<syn::Expr, syn::Token![,]>,
) -> impl Iterator<Item = &syn::Ident> {
    args.iter().filter_map(|a| match a {
        syn::Expr::Path(p) => p.path.get_ident(),
        _ => None,
    })
}

/// Wrapper types whose first generic argument is what matters (`Arc<RwLock<Option<Peer<..>>>>`).
const WRAPPERS: &[&str] = &[
    "Arc",
    "Rc",
    "Box",
    "RwLock",
    "Mutex",
    "Option",
    "OnceCell",
    "OnceLock",
    "Cell",
    "RefCell",
    "Vec",
    "VecDeque",
    "Weak",
    "Result",
    "Pin",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "MutexGuard",
    "ArcSwap",
    "ArcSwapOption",
    "LazyLock",
    "Lazy",
    "ManuallyDrop",
    "Cow",
];

/// Where an imported name comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// First segment of the `use` path (`rmcp`, `crate`, `std`, another crate).
    pub root: String,
    /// The imported item's real name (`Peer` in `use rmcp::Peer as P`).
    pub name: String,
    /// The segment before the name (`elicitation` in `use crate::elicitation::X`); `None` for a
    /// name imported straight from its root.
    pub module: Option<String>,
}

/// What one file says about itself, gathered before the walk.
#[derive(Default)]
pub struct FileFacts {
    pub imports: HashMap<String, Import>,
    /// Types, traits and enums the file defines itself (they shadow SDK names).
    pub local_types: HashSet<String>,
    /// The first segment of each glob import (`use rmcp::model::*;` → `rmcp`).
    pub glob_roots: Vec<String>,
    /// Names a `pub use` of the file imports (re-exports): the crate's other modules import
    /// them by these names.
    pub reexports: HashSet<String>,
    /// `(struct, field)` → type.
    pub fields: HashMap<(String, String), syn::Type>,
    /// field name → types of every field of that name in the file.
    pub fields_by_name: HashMap<String, Vec<syn::Type>>,
    pub statics: HashMap<String, syn::Type>,
    /// fn or method name → return type (last definition wins; files rarely reuse a peer getter name).
    pub fn_returns: HashMap<String, syn::Type>,
    /// fn or method name → its parameters (by position, `self` not counted) whose type names an
    /// old name of the rmcp upgrade table, with that name: a value handed to one is of the old
    /// type (`describe(&content.raw)` into `fn describe(raw: &RawContent)`). Only gathered in a
    /// file that names one.
    pub old_typed_params: HashMap<String, Vec<(usize, &'static str)>>,
    /// Types with an `impl <HandlerTrait> for T` in this file, and the side of that trait.
    pub handler_impls: HashMap<String, Side>,
    /// Indices into `SDKS` of the SDKs whose crate name appears anywhere in the file text.
    pub mentioned_sdks: Vec<usize>,
    /// Indices into `SDKS` of the SDKs a name neither imported nor defined here may be from
    /// (see [`FileFacts::bare`]); set with `mentioned_sdks`.
    bare_sdks: Vec<usize>,
    /// Local names passed to a `spawn(..)` somewhere in the file (`tokio::spawn(task)`).
    pub spawned_names: HashSet<String>,
    /// The file's fns that build a request object or forward a method name to a sender.
    pub helpers: crate::model::request_helpers::RequestHelpers,
    /// The file names a constant another file of the package declares with a legacy method's
    /// name (`item_index.rs`): its requests may carry the method by that name alone.
    pub names_package_method_const: bool,
    /// `type ServerPeer = Peer<RoleServer>;` in this file: alias → aliased type.
    pub type_aliases: HashMap<String, syn::Type>,
    /// The package the file belongs to, when its `Cargo.toml` was found (see `manifest.rs`).
    pub package: Option<Arc<Package>>,
    /// Names a renamed dependency gives an SDK in paths (`mcp = { package = "rmcp" }`) → index
    /// into `SDKS`.
    pub crate_aliases: HashMap<String, usize>,
    /// The file sits under a `tests/` or `benches/` folder, or is a module declared under
    /// `#[cfg(test)]` in another file (set by the caller, from the path and the crate index).
    pub test_file: bool,
    /// Report legacy requests in test code (the `report-test-code` setting of the file).
    pub report_test_code: bool,
    /// What the other files of the package declare (`item_index.rs`), for names this file does
    /// not declare.
    pub items: Option<Arc<ItemIndex>>,
    /// The rmcp upgrade table's old names standing in the file's text (empty when the package
    /// does not use rmcp): the upgrade rules check only the nodes that can name one.
    pub upgrade_names: crate::model::sdk::rmcp_upgrade::NamesInFile,
    /// Where this file's request builders are sent, when the file has no package (with one, the
    /// crate index answers for the whole package: [`FileFacts::request_flow`]).
    local_flow: Option<crate::model::request_flow::RequestFlow>,
    /// This file's asking wrappers, when the file has no package (see [`FileFacts::asking_wrapper`]).
    local_wrappers: Option<crate::model::wrappers::AskingWrappers>,
    /// Kinds worked out from the crate index, per (table, key): each is parsed once per file.
    index_kinds: RefCell<HashMap<(IndexTable, String), Kind>>,
}

/// The tables of the crate index a lookup reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum IndexTable {
    Alias,
    Field,
    FieldByName,
    Static,
    FnReturn,
}

impl FileFacts {
    pub fn gather(file: &syn::File, text: &str) -> FileFacts {
        FileFacts::gather_in(file, text, None)
    }

    /// Same, for a file of a known package: SDKs the package does not depend on are out, renamed
    /// dependencies name their SDK, and the rules can read the SDK versions.
    pub fn gather_in(file: &syn::File, text: &str, package: Option<Arc<Package>>) -> FileFacts {
        FileFacts::gather_with(file, text, None, package)
    }

    /// [`FileFacts::gather_in`] with the file's identifiers when a pass before listed them
    /// ([`crate::reading::parse::Parsed::idents`]), so the text is not scanned for them again.
    pub fn gather_with(
        file: &syn::File,
        text: &str,
        idents: Option<&[std::ops::Range<usize>]>,
        package: Option<Arc<Package>>,
    ) -> FileFacts {
        let mut facts = FileFacts {
            package,
            ..FileFacts::default()
        };
        if let Some(package) = facts.package.as_deref() {
            facts.crate_aliases = package
                .sdk_aliases
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect();
        }
        for (i, sdk) in SDKS.iter().enumerate() {
            // Searched only for the SDKs the package may use (with a manifest, usually one), and
            // each only up to its first mention: usually a `use` at the top.
            if facts.absent(sdk) {
                continue;
            }
            let alias = facts
                .crate_aliases
                .iter()
                .any(|(a, j)| *j == i && mentions_word(text, a));
            // rmcp keeps its substring test; the newer SDKs' short names (`neva` in "Geneva")
            // must stand as a whole identifier.
            let named = || {
                sdk.crates.iter().any(|c| {
                    if sdk.bare_names {
                        text.contains(c)
                    } else {
                        mentions_word(text, c)
                    }
                })
            };
            if alias || named() {
                facts.mentioned_sdks.push(i);
            }
        }
        facts.bare_sdks = facts.bare_sdks();
        if !facts.absent(&crate::model::sdk::rmcp::RMCP) {
            facts.upgrade_names =
                crate::model::sdk::rmcp_upgrade::NamesInFile::of(text.as_bytes(), idents);
        }
        if let Some(package) = facts.package.as_deref() {
            let items = crate::model::item_index::for_package(&package.manifest);
            facts.names_package_method_const = items
                .method_consts
                .keys()
                .any(|c| crate::reading::lexer::mentions_word(text.as_bytes(), c));
            facts.items = Some(items);
        }
        let mut g = Gatherer { facts: &mut facts };
        g.visit_file(file);
        facts.crate_handler_impls();
        facts.helpers = crate::model::request_helpers::RequestHelpers::gather(file, text);
        if facts.items.is_none() && facts.helpers.names_method {
            // The sends may stand in bodies the skeleton blanked (no trigger token in them): the
            // flow reads the file as it is, as the package's flow does.
            let full = crate::reading::parse::parse(text.as_bytes()).ok();
            facts.local_flow = Some(crate::model::request_flow::RequestFlow::of_trees(
                &facts.helpers.builders,
                &facts.helpers.method_consts,
                full.as_ref().map_or(file, |(_, f)| f),
            ));
        }
        if facts.items.is_none() && !facts.mentioned_sdks.is_empty() {
            let wrappers = {
                let f = &facts;
                crate::model::wrappers::AskingWrappers::of_tree(file, &|s| !f.absent(s))
            };
            facts.local_wrappers = Some(wrappers);
        }
        facts
    }

    /// The server's own method of this name that asks through an SDK peer (`wrappers.rs`): the
    /// package's, worked out on first use, else this file's.
    pub fn asking_wrapper(&self, name: &str) -> Option<&crate::model::wrappers::Wrapper> {
        // A package that uses no SDK has no peer to wrap (and its files are not read again).
        if SDKS.iter().all(|s| self.absent(s)) {
            return None;
        }
        match &self.items {
            Some(items) => items.asking_wrappers(&|s| !self.absent(s)).get(name),
            None => self.local_wrappers.as_ref()?.get(name),
        }
    }

    /// The legacy method a constant of the file or the package holds
    /// (`const ROOTS_LIST: &str = "roots/list";`).
    pub fn method_const(&self, name: &str) -> Option<McpMethod> {
        if let Some(m) = self.helpers.method_consts.get(name) {
            return Some(*m);
        }
        let items = self.items.as_ref()?;
        if let Some(m) = items.method_consts.get(name) {
            return Some(*m);
        }
        items.request_flow().consts.get(name).copied()
    }

    /// Which request builders and request-holding fields reach a sender: the package's answer
    /// (built on first use), else this file's own. `None` when the file names no legacy method
    /// (nothing in it can be a build site).
    pub fn request_flow(&self) -> Option<&crate::model::request_flow::RequestFlow> {
        if !self.helpers.names_method {
            return None;
        }
        match &self.items {
            Some(items) => Some(items.request_flow()),
            None => self.local_flow.as_ref(),
        }
    }

    /// Whether a `/`-separated path names a file under a `tests` or `benches` folder.
    pub fn is_test_path(path: &str) -> bool {
        let mut parts: Vec<&str> = path.split(['/', '\\']).collect();
        parts.pop();
        parts.iter().any(|p| *p == "tests" || *p == "benches")
    }

    /// The package's dependency on `sdk`; `None` without a manifest or without the dependency.
    pub fn dependency(&self, sdk: &SdkTable) -> Option<&Dependency> {
        self.package.as_deref()?.dependency_on(sdk.packages)
    }

    /// The file is part of an SDK's own implementation (its package's `src/`): the SDK's request
    /// methods send these requests by name, and that is no server's call.
    pub fn in_sdk_itself(&self) -> bool {
        self.package
            .as_deref()
            .is_some_and(|p| p.as_sdk_user.is_some())
    }

    /// The manifest is known and does not depend on `sdk`: nothing in the file can be its.
    pub fn absent(&self, sdk: &SdkTable) -> bool {
        self.package.is_some() && self.dependency(sdk).is_none()
    }

    /// `impl <HandlerTrait> for T` in other files of the package: `T` is a handler here too.
    fn crate_handler_impls(&mut self) {
        let Some(items) = self.items.clone() else {
            return;
        };
        for (tr, ty) in &items.trait_impls {
            if self.handler_impls.contains_key(ty) || self.local_types.contains(tr) {
                continue;
            }
            let side = SDKS
                .iter()
                .filter(|s| !self.absent(s) && (s.bare_names || self.dependency(s).is_some()))
                .find_map(|sdk| sdk.handler_traits.iter().find(|h| h.name == tr))
                .map(|h| h.side);
            if let Some(side) = side {
                self.handler_impls.insert(ty.clone(), side);
            }
        }
    }

    /// What the crate index says of a name this file does not declare: the kind every entry of
    /// that name agrees on, `Unknown` when there is none or they disagree.
    fn index_kind(&self, table: IndexTable, key: &str, owner: Option<&str>) -> Kind {
        let Some(items) = self.items.as_deref().filter(|i| i.may_answer(key)) else {
            return Kind::Unknown;
        };
        let all: &[TypeText] = match table {
            IndexTable::Alias => items.aliases.get(key),
            IndexTable::Field | IndexTable::FieldByName => items.fields_by_name.get(key),
            IndexTable::Static => items.statics.get(key),
            IndexTable::FnReturn => items.fn_returns.get(key),
        }
        .map_or(&[], Vec::as_slice);
        let mine = |t: &&TypeText| owner.is_none_or(|o| t.owner == o);
        // A definition that names no SDK type cannot be a peer: then the name is not one for sure.
        // (Most lookups end here, before any allocation: the rules ask about every method call.)
        if all.is_empty() || all.iter().filter(mine).any(|t| !t.sdk) {
            return Kind::Unknown;
        }
        let cache_key = (
            table,
            owner.map_or_else(|| key.to_string(), |o| format!("{o}.{key}")),
        );
        if let Some(k) = self.index_kinds.borrow().get(&cache_key) {
            return k.clone();
        }
        // Marked first, so an alias that names itself (through other aliases) ends as unknown.
        self.index_kinds
            .borrow_mut()
            .insert(cache_key.clone(), Kind::Unknown);
        let mut kind: Option<Kind> = None;
        for t in all.iter().filter(mine) {
            let k = match syn::parse_str::<syn::Type>(&t.text) {
                Ok(mut ty) => {
                    qualify(&mut ty, &items.files[t.file].imports);
                    self.classify_type(&ty, &[])
                }
                Err(_) => Kind::Unknown,
            };
            match &kind {
                None => kind = Some(k),
                Some(prev) if *prev == k => {}
                Some(_) => {
                    kind = Some(Kind::Unknown);
                    break;
                }
            }
        }
        let kind = kind.unwrap_or(Kind::Unknown);
        self.index_kinds
            .borrow_mut()
            .insert(cache_key, kind.clone());
        kind
    }

    /// The kind of a static declared in another file of the package.
    pub fn crate_static(&self, name: &str) -> Kind {
        self.index_kind(IndexTable::Static, name, None)
    }

    /// The kind a fn or method of that name returns, from every file of the package.
    pub fn crate_fn_return(&self, name: &str) -> Kind {
        self.index_kind(IndexTable::FnReturn, name, None)
    }

    /// The kind of `owner.field` (`owner: None`: every field of that name in the package).
    pub fn crate_field(&self, owner: Option<&str>, field: &str) -> Kind {
        let declared = |o: &str| {
            self.items.as_deref().is_some_and(|i| {
                i.fields_by_name
                    .get(field)
                    .is_some_and(|v| v.iter().any(|t| t.owner == o))
            })
        };
        match owner {
            Some(o) if declared(o) => self.index_kind(IndexTable::Field, field, Some(o)),
            _ => self.index_kind(IndexTable::FieldByName, field, None),
        }
    }

    /// Whether `root` (the first segment of a path) names `sdk`'s crate here.
    fn is_root_of(&self, root: &str, sdk: &SdkTable) -> bool {
        (sdk.crates.contains(&root)
            || self
                .crate_aliases
                .get(root)
                .is_some_and(|&i| std::ptr::eq(SDKS[i], sdk)))
            && !self.absent(sdk)
    }

    /// The handler trait a path in `impl <path> for T` names, if any SDK's.
    pub fn handler_trait(&self, path: &syn::Path) -> Option<&'static HandlerTrait> {
        for (sdk, canonical) in self.resolve_path(path) {
            if let Some(h) = sdk.handler_traits.iter().find(|h| h.name == canonical) {
                return Some(h);
            }
        }
        // A path through a module the file does not import (`server::ServerHandler`): by name.
        let last = name::of(&path.segments.last()?.ident);
        let real = self
            .imports
            .get(&*last)
            .map_or(&*last, |imp| imp.name.as_str());
        SDKS.iter()
            .filter(|s| !self.absent(s) && (s.bare_names || self.mentions(s)))
            .find_map(|sdk| sdk.handler_traits.iter().find(|h| h.name == real))
    }

    pub fn mentions(&self, sdk: &SdkTable) -> bool {
        self.mentioned_sdks
            .iter()
            .any(|&i| std::ptr::eq(SDKS[i], sdk))
    }

    /// The SDK items a path may name: `(sdk, canonical last segment)`.
    /// `rmcp::service::Peer`, `Peer` (imported from rmcp, or bare: every SDK is a candidate),
    /// `P` (`use rmcp::Peer as P`). Empty when the path names something else.
    pub fn resolve_path(&self, path: &syn::Path) -> Vec<(&'static SdkTable, String)> {
        let (Some(first_seg), Some(last_seg)) = (path.segments.first(), path.segments.last())
        else {
            return Vec::new();
        };
        let first = name::of(&first_seg.ident);
        let last = name::of(&last_seg.ident);
        let from_root = |root: &str, name: &str| -> Vec<(&'static SdkTable, String)> {
            SDKS.iter()
                .filter(|s| self.is_root_of(root, s))
                .map(|s| (*s, name.to_string()))
                .collect()
        };
        if path.segments.len() > 1 {
            if SDKS
                .iter()
                .any(|s| s.crates.contains(&&*first) || self.is_root_of(&first, s))
            {
                return from_root(&first, &last);
            }
            // `model::ServerRequest` after `use rmcp::model;`, or an enum imported from the SDK.
            if let Some(imp) = self.imports.get(&*first) {
                return from_root(&imp.root, &last);
            }
            // A lowercase head that is not imported is another crate or a local module; a local
            // type is ours. Neither is the SDK.
            if first.starts_with(|c: char| c.is_lowercase() || c == '_')
                || self.local_types.contains(&*first)
            {
                return Vec::new();
            }
            return self.bare(&last);
        }
        match self.imports.get(&*last) {
            Some(imp) if matches!(imp.root.as_str(), "crate" | "super" | "self") => {
                match self.reexported(imp) {
                    Some((root, name)) => from_root(&root, &name),
                    None => Vec::new(),
                }
            }
            Some(imp) => from_root(&imp.root, &imp.name),
            None if self.local_types.contains(&*last) => Vec::new(),
            None => self.bare(&last),
        }
    }

    /// What the crate's own module an import names (`use crate::elicitation::ElicitationAction`)
    /// imports from an SDK under that name (`pub use rmcp::model::ElicitationAction;` in
    /// `elicitation.rs` or `elicitation/mod.rs`): the SDK crate's root and the real name. The
    /// module is found by its name among the package's files; `None` when no such file imports
    /// the name from an SDK, when two of them disagree, or for `super::X` (no module named).
    fn reexported(&self, imp: &Import) -> Option<(String, String)> {
        let module = imp.module.as_deref()?;
        let items = self.items.as_ref()?;
        let file_name = format!("{module}.rs");
        let mut found = None;
        for f in &items.files {
            let named = f.path.file_name().is_some_and(|n| *n == *file_name)
                || (f.path.file_name().is_some_and(|n| n == "mod.rs")
                    && f.path
                        .parent()
                        .and_then(|d| d.file_name())
                        .is_some_and(|d| *d == *module));
            // Or an inline module of that name (`pub mod kinds { pub use rmcp::model::X; }`).
            let imports = if named {
                &f.imports
            } else {
                match f.inline_mods.get(module) {
                    Some(imports) => imports,
                    None => continue,
                }
            };
            let path = imports.get(&imp.name)?;
            let root = path.first()?;
            if !SDKS.iter().any(|s| self.is_root_of(root, s)) {
                return None;
            }
            let this = (root.clone(), path.last()?.clone());
            if found.as_ref().is_some_and(|f| *f != this) {
                return None;
            }
            found = Some(this);
        }
        found
    }

    /// Whether `name`, written bare, comes from `sdk` through a glob import of it (`use
    /// rmcp::model::*;`): no `use` names it, the file defines no type of that name, and every
    /// glob of the file is the SDK's (`use std::io::*;` brings an `Error` too).
    pub fn glob_imported_from(&self, sdk: &SdkTable, name: &str) -> bool {
        if self.glob_roots.is_empty()
            || self.imports.contains_key(name)
            || self.local_types.contains(name)
        {
            return false;
        }
        self.glob_roots.iter().all(|root| {
            sdk.crates.contains(&root.as_str())
                || self
                    .crate_aliases
                    .get(root)
                    .is_some_and(|&i| std::ptr::eq(SDKS[i], sdk))
        })
    }

    /// A name that is neither imported nor defined here (a glob import, a prelude, a
    /// re-export): the SDKs the file mentions, then those the package depends on, then those
    /// whose names are distinctive enough to claim without evidence (`bare_names`).
    fn bare(&self, name: &str) -> Vec<(&'static SdkTable, String)> {
        self.bare_sdks
            .iter()
            .map(|&i| (SDKS[i], name.to_string()))
            .collect()
    }

    /// The SDKs [`FileFacts::bare`] answers with, in its order: asked for every unqualified
    /// name, so worked out once per file (every SDK's dependency looked up each time was a
    /// hundredth of a run).
    fn bare_sdks(&self) -> Vec<usize> {
        let mut out = self.mentioned_sdks.clone();
        for (i, s) in SDKS.iter().enumerate() {
            let candidate = !self.absent(s) && (s.bare_names || self.dependency(s).is_some());
            if !self.mentioned_sdks.contains(&i) && candidate {
                out.push(i);
            }
        }
        out
    }

    /// Classifies a type: is it (a wrapper around) an SDK peer or context, and of which side?
    /// `generics` are the type parameters in scope, which stay `Unknown`.
    pub fn classify_type(&self, ty: &syn::Type, generics: &[HashSet<String>]) -> Kind {
        match ty {
            syn::Type::Reference(r) => self.classify_type(&r.elem, generics),
            syn::Type::Paren(p) => self.classify_type(&p.elem, generics),
            syn::Type::Group(g) => self.classify_type(&g.elem, generics),
            // `dyn McpServer`, `impl McpServer`: the first trait names the type.
            syn::Type::TraitObject(syn::TypeTraitObject { bounds, .. })
            | syn::Type::ImplTrait(syn::TypeImplTrait { bounds, .. }) => {
                let Some(path) = bounds.iter().find_map(|b| match b {
                    syn::TypeParamBound::Trait(t) => Some(&t.path),
                    _ => None,
                }) else {
                    return Kind::Unknown;
                };
                let ty = syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: path.clone(),
                });
                match self.classify_type(&ty, generics) {
                    Kind::Foreign => Kind::Unknown,
                    k => k,
                }
            }
            syn::Type::Path(tp) => {
                let Some(last) = tp.path.segments.last() else {
                    return Kind::Unknown;
                };
                let name = name::of(&last.ident);
                if tp.qself.is_none()
                    && tp.path.segments.len() == 1
                    && generics.iter().any(|g| g.contains(&*name))
                {
                    return Kind::Unknown;
                }
                let real = self.imports.get(&*name).map_or(&*name, |i| i.name.as_str());
                if WRAPPERS.contains(&real) {
                    return match first_type_arg(&last.arguments) {
                        Some(inner) => self.classify_type(inner, generics),
                        None => Kind::Unknown,
                    };
                }
                // `HashMap<String, Peer<RoleServer>>`: what `get`, `values` and `iter` reach.
                if MAPS.contains(&real) {
                    return match last_type_arg(&last.arguments) {
                        Some(inner) => self.classify_type(inner, generics),
                        None => Kind::Unknown,
                    };
                }
                // `type ServerPeer = Peer<RoleServer>;`. Aliases can form a cycle
                // (`type A = B; type B = A;` does not compile, but the file may still say it).
                if tp.path.segments.len() == 1 {
                    if let Some(aliased) = self.type_aliases.get(&*name) {
                        thread_local!(static HOPS: std::cell::Cell<u8> = const { std::cell::Cell::new(0) });
                        let hops = HOPS.with(|h| h.get());
                        if hops >= 16 {
                            return Kind::Unknown;
                        }
                        HOPS.with(|h| h.set(hops + 1));
                        let kind = self.classify_type(aliased, generics);
                        HOPS.with(|h| h.set(hops));
                        return kind;
                    }
                }
                for (sdk, canonical) in self.resolve_path(&tp.path) {
                    if let Some(pt) = sdk.peer_types.iter().find(|p| p.name == canonical) {
                        let side = self.role_side(sdk, pt.role, &last.arguments);
                        return Kind::Peer { sdk, side };
                    }
                    if let Some(ct) = sdk.context_types.iter().find(|c| c.name == canonical) {
                        let side = self.role_side(sdk, ct.role, &last.arguments);
                        return Kind::Context { sdk, side };
                    }
                }
                // An alias another file of the package declares (`use crate::state::Registry`,
                // `crate::state::Registry`, or a glob import).
                if let Some(alias) = self.crate_alias_name(tp) {
                    if let k @ (Kind::Peer { .. } | Kind::Context { .. }) =
                        self.index_kind(IndexTable::Alias, &alias, None)
                    {
                        return k;
                    }
                }
                // A type from elsewhere in this crate (`use crate::types::ServerPeer`) may be an
                // alias or re-export of an SDK type the file cannot see: unknown, not foreign.
                let crate_root = |root: &str| matches!(root, "crate" | "self" | "super");
                let from_crate = match self.imports.get(&*name) {
                    Some(imp) if tp.path.segments.len() == 1 => crate_root(&imp.root),
                    _ => {
                        tp.path.segments.len() > 1
                            && crate_root(&name::of(&tp.path.segments[0].ident))
                    }
                };
                if from_crate {
                    return Kind::Unknown;
                }
                Kind::Foreign
            }
            _ => Kind::Unknown,
        }
    }

    /// The name under which the crate index may declare the alias a type path names: a bare
    /// name the file neither imports nor defines, or one imported from (or spelled through) the
    /// crate itself.
    fn crate_alias_name(&self, tp: &syn::TypePath) -> Option<String> {
        let segs = &tp.path.segments;
        let last = name::of(&segs.last()?.ident);
        // Most types are no alias of the package's: a few compares, no hash lookup.
        if !self.items.as_deref()?.may_answer(&last) {
            return None;
        }
        let crate_root = |root: &str| matches!(root, "crate" | "self" | "super");
        if segs.len() > 1 {
            return crate_root(&name::of(&segs[0].ident)).then(|| last.to_string());
        }
        match self.imports.get(&*last) {
            Some(imp) => (crate_root(&imp.root) && imp.name == *last).then(|| last.to_string()),
            None if self.local_types.contains(&*last) => None,
            None => Some(last.to_string()),
        }
    }

    fn role_side(
        &self,
        sdk: &SdkTable,
        role: RoleSource,
        args: &syn::PathArguments,
    ) -> Option<Side> {
        match role {
            RoleSource::Fixed(side) => Some(side),
            RoleSource::FirstGeneric => {
                let syn::Type::Path(tp) = first_type_arg(args)? else {
                    return None;
                };
                let ident = name::of(&tp.path.segments.last()?.ident);
                let real = self
                    .imports
                    .get(&*ident)
                    .map_or(&*ident, |i| i.name.as_str());
                sdk.role(real)
            }
        }
    }
}

/// Whether `word` occurs in `text` with no identifier character on either side.
fn mentions_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Map types: the value type (their last generic argument) is what matters.
const MAPS: &[&str] = &[
    "HashMap",
    "BTreeMap",
    "DashMap",
    "IndexMap",
    "FxHashMap",
    "AHashMap",
];

fn last_type_arg(args: &syn::PathArguments) -> Option<&syn::Type> {
    let syn::PathArguments::AngleBracketed(ab) = args else {
        return None;
    };
    ab.args.iter().rev().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// Spells out, in a type taken from another file, the paths that file imports
/// (`Peer<RoleServer>` after `use rmcp::{Peer, RoleServer}` → `rmcp::Peer<rmcp::RoleServer>`), so
/// the current file's scope model reads it as its own file did. Names imported from the crate
/// itself keep their bare (real) name: the crate index answers for those.
fn qualify(ty: &mut syn::Type, imports: &HashMap<String, Vec<String>>) {
    match ty {
        syn::Type::Path(tp) => {
            if let Some(q) = &mut tp.qself {
                qualify(&mut q.ty, imports);
            }
            for seg in tp.path.segments.iter_mut() {
                if let syn::PathArguments::AngleBracketed(ab) = &mut seg.arguments {
                    for a in ab.args.iter_mut() {
                        if let syn::GenericArgument::Type(t) = a {
                            qualify(t, imports);
                        }
                    }
                }
            }
            if tp.qself.is_some() || tp.path.leading_colon.is_some() {
                return;
            }
            let Some(first) = tp.path.segments.first() else {
                return;
            };
            let Some(full) = imports.get(&first.ident.to_string()) else {
                return;
            };
            let (Some(root), Some(real)) = (full.first(), full.last()) else {
                return;
            };
            let span = first.ident.span();
            let head: Vec<&String> = if matches!(root.as_str(), "crate" | "self" | "super") {
                vec![real]
            } else {
                full.iter().collect()
            };
            let Ok(idents) = head
                .iter()
                .map(|n| {
                    syn::parse_str::<syn::Ident>(n).map(|i| syn::Ident::new(&i.to_string(), span))
                })
                .collect::<Result<Vec<_>, _>>()
            else {
                return;
            };
            let mut segs: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> =
                syn::punctuated::Punctuated::new();
            let mut rest = std::mem::take(&mut tp.path.segments).into_iter();
            let Some(first) = rest.next() else { return };
            let n = idents.len();
            for (i, ident) in idents.into_iter().enumerate() {
                let mut seg = syn::PathSegment::from(ident);
                if i + 1 == n {
                    seg.arguments = first.arguments.clone();
                }
                segs.push(seg);
            }
            segs.extend(rest);
            tp.path.segments = segs;
        }
        syn::Type::Reference(r) => qualify(&mut r.elem, imports),
        syn::Type::Paren(p) => qualify(&mut p.elem, imports),
        syn::Type::Group(g) => qualify(&mut g.elem, imports),
        syn::Type::Slice(s) => qualify(&mut s.elem, imports),
        syn::Type::Array(a) => qualify(&mut a.elem, imports),
        syn::Type::Tuple(t) => t.elems.iter_mut().for_each(|e| qualify(e, imports)),
        syn::Type::TraitObject(syn::TypeTraitObject { bounds, .. })
        | syn::Type::ImplTrait(syn::TypeImplTrait { bounds, .. }) => {
            for b in bounds.iter_mut() {
                if let syn::TypeParamBound::Trait(t) = b {
                    let mut ty = syn::Type::Path(syn::TypePath {
                        qself: None,
                        path: t.path.clone(),
                    });
                    qualify(&mut ty, imports);
                    if let syn::Type::Path(tp) = ty {
                        t.path = tp.path;
                    }
                }
            }
        }
        _ => {}
    }
}

pub fn first_type_arg(args: &syn::PathArguments) -> Option<&syn::Type> {
    let syn::PathArguments::AngleBracketed(ab) = args else {
        return None;
    };
    ab.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The last identifier of a type path (`Counter` in `crate::Counter<T>`).
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(tp) => tp.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

struct Gatherer<'f> {
    facts: &'f mut FileFacts,
}

impl Gatherer<'_> {
    /// `parent`: the segment before `tree` (`task_manager` for the `self` of
    /// `use rmcp::task_manager::{self, X}`).
    fn use_tree(&mut self, root: Option<&str>, parent: Option<&str>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                let seg = p.ident.to_string();
                let root = root.unwrap_or(&seg).to_string();
                self.use_tree(Some(&root), Some(&seg), &p.tree);
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                // `{self, ..}` imports the module it stands in.
                let name = match (name.as_str(), parent) {
                    ("self", Some(module)) => module.to_string(),
                    ("self", None) => return,
                    _ => name,
                };
                let module = parent.filter(|p| Some(*p) != root).map(str::to_string);
                let root = root.unwrap_or(&name).to_string();
                self.facts
                    .imports
                    .insert(name.clone(), Import { root, name, module });
            }
            syn::UseTree::Rename(r) => {
                let name = r.ident.to_string();
                let module = parent.filter(|p| Some(*p) != root).map(str::to_string);
                let root = root.unwrap_or(&name).to_string();
                if r.rename != "_" {
                    self.facts
                        .imports
                        .insert(r.rename.to_string(), Import { root, name, module });
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(root, parent, t);
                }
            }
            syn::UseTree::Glob(_) => {
                if let Some(root) = root {
                    self.facts.glob_roots.push(root.to_string());
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Gatherer<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(None, None, &u.tree);
        if !matches!(u.vis, syn::Visibility::Inherited) {
            self.facts.reexports.extend(use_names(&u.tree));
        }
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if let Some(args) = spawn_args(e) {
            let names = spawned_locals(args).map(|id| id.to_string());
            self.facts.spawned_names.extend(names);
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let name = s.ident.to_string();
        self.facts.local_types.insert(name.clone());
        for f in &s.fields {
            if let Some(id) = &f.ident {
                self.facts
                    .fields
                    .insert((name.clone(), id.to_string()), f.ty.clone());
                self.facts
                    .fields_by_name
                    .entry(id.to_string())
                    .or_default()
                    .push(f.ty.clone());
            }
        }
        syn::visit::visit_item_struct(self, s);
    }

    fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
        self.facts.local_types.insert(e.ident.to_string());
        syn::visit::visit_item_enum(self, e);
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.facts.local_types.insert(t.ident.to_string());
        syn::visit::visit_item_trait(self, t);
    }

    fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
        self.facts.local_types.insert(t.ident.to_string());
        self.facts
            .type_aliases
            .insert(t.ident.to_string(), (*t.ty).clone());
        syn::visit::visit_item_type(self, t);
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        self.facts
            .statics
            .insert(s.ident.to_string(), (*s.ty).clone());
        syn::visit::visit_item_static(self, s);
    }

    fn visit_signature(&mut self, sig: &'ast syn::Signature) {
        let old_names = &self.facts.upgrade_names.paths;
        if !old_names.is_empty() {
            let typed = sig.inputs.iter().filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(&*t.ty),
                syn::FnArg::Receiver(_) => None,
            });
            let mut found = Vec::new();
            for (i, ty) in typed.enumerate() {
                if let Some(name) = old_name_in_type(ty, old_names) {
                    found.push((i, name));
                }
            }
            if !found.is_empty() {
                self.facts
                    .old_typed_params
                    .insert(sig.ident.to_string(), found);
            }
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            self.facts
                .fn_returns
                .insert(sig.ident.to_string(), (**ty).clone());
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if let (Some((_, trait_path, _)), Some(self_name)) = (&i.trait_, type_name(&i.self_ty)) {
            if let Some(h) = self.facts.handler_trait(trait_path) {
                self.facts.handler_impls.insert(self_name, h.side);
            }
        }
        syn::visit::visit_item_impl(self, i);
    }
}

/// The names a use tree brings into scope (`a::{B, C as D, self}` → `B`, `D`; not `self`, `_` or
/// a glob's).
pub fn use_names(tree: &syn::UseTree) -> Vec<String> {
    fn collect(tree: &syn::UseTree, out: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => collect(&p.tree, out),
            syn::UseTree::Name(n) if n.ident != "self" => out.push(n.ident.to_string()),
            syn::UseTree::Rename(r) if r.rename != "_" => out.push(r.rename.to_string()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| collect(t, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(tree, &mut out);
    out
}

/// The first of `names` that a path segment of `ty` spells (`&RawContent`, `Vec<RawContent>`).
fn old_name_in_type(ty: &syn::Type, names: &[&'static str]) -> Option<&'static str> {
    struct Find<'n> {
        names: &'n [&'static str],
        hit: Option<&'static str>,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
            if self.hit.is_none() {
                self.hit = self.names.iter().copied().find(|n| seg.ident == n);
            }
            syn::visit::visit_path_segment(self, seg);
        }
    }
    let mut f = Find { names, hit: None };
    f.visit_type(ty);
    f.hit
}
