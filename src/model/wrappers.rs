//! A server's own asking API: a method of its own type whose body asks the client through the
//! SDK's peer it holds (`impl ToolContext { async fn elicit<T>(&self, ..) { self.peer.elicit::<T>(
//! ..).await } }`). Its call sites (`ctx.elicit::<IndexConfirm>(..)` in a tool, in a loop, as a
//! match scrutinee) are what the migration must change, so they are reported like calls of the
//! SDK method (MCP001-003, `rules/legacy_request.rs`), naming the wrapper.
//!
//! The wrapper's own inner call is still reported too: it is the real send, and the wrapper's
//! body must change with its callers. So one ask through a wrapper called from three tools makes
//! four findings: the inner call and the three call sites.
//!
//! Only call sites whose method name is one of the SDK's own request method names (`elicit`,
//! `create_message`, `list_roots`, ...) are looked up: those are the bodies the skeleton keeps and
//! the calls the rule already stops at. Worked out once per package (from the crate index), and
//! only when such a call's receiver is not an SDK peer.

use crate::model::fast_hash::{HashMap, HashSet};

use syn::visit::Visit;

use crate::model::sdk::{McpMethod, SdkTable, SDKS};

/// A method of the server's own type that asks through an SDK peer it holds.
#[derive(Debug, Clone)]
pub struct Wrapper {
    /// The type whose method it is (`ToolContext`).
    pub owner: String,
    /// The SDK method it calls inside (`elicit`).
    pub inner: &'static str,
    pub sends: McpMethod,
    pub sdk: &'static SdkTable,
}

/// The package's (or one file's) asking wrappers, by method name.
#[derive(Debug, Default)]
pub struct AskingWrappers {
    by_name: HashMap<String, Wrapper>,
    /// Method names some impl defines without asking (`impl Confirmer for NoConfirm`): a call of
    /// such a name may be that one, so it is no wrapper's call.
    plain: HashSet<String>,
}

impl AskingWrappers {
    /// The wrapper of that name, when every method of that name the package defines (in the
    /// files read) asks.
    pub fn get(&self, name: &str) -> Option<&Wrapper> {
        if self.plain.contains(name) {
            return None;
        }
        self.by_name.get(name)
    }

    /// Over a package's candidates, found by the item index's reader (`item_index.rs`): only
    /// methods named like an SDK request method, of a type that may own one, are kept, and of
    /// those only the ones whose text may ask are parsed. Files under `tests` or `benches` and
    /// module files declared under `#[cfg(test)]` are left out. `uses` says which SDKs the
    /// package uses.
    ///
    /// (A wrapper defined inside a fn body is not seen: the reader skips bodies.)
    pub fn of_candidates(
        index: &crate::model::item_index::ItemIndex,
        uses: &dyn Fn(&SdkTable) -> bool,
    ) -> AskingWrappers {
        let names = method_names(uses);
        let mut out = AskingWrappers::default();
        for c in &index.asking_candidates {
            if !names.contains(&c.name.as_str()) {
                continue;
            }
            let path = &index.files[c.file].path;
            let rel = path.strip_prefix(&index.root).unwrap_or(path);
            let test = rel
                .components()
                .any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches")));
            if test || index.test_files.contains(path) {
                continue;
            }
            let Some(text) = &c.text else {
                out.plain.insert(c.name.clone());
                continue;
            };
            let Ok(f) = syn::parse_str::<syn::ImplItemFn>(text) else {
                continue;
            };
            out.add_method(&c.owner, &f, uses);
        }
        out
    }

    /// Over one file's tree (a file linted without a package).
    pub fn of_tree(tree: &syn::File, uses: &dyn Fn(&SdkTable) -> bool) -> AskingWrappers {
        let mut out = AskingWrappers::default();
        out.add_tree(tree, uses);
        out
    }

    fn add_tree(&mut self, tree: &syn::File, uses: &dyn Fn(&SdkTable) -> bool) {
        let mut f = Finder {
            uses,
            wrappers: self,
        };
        f.visit_file(tree);
    }

    /// One method of `owner` (an impl that [`may_own_wrappers`]): a wrapper when its body asks
    /// through something `self` holds, a plain method of that name otherwise. The first wrapper
    /// of a name is kept.
    fn add_method(&mut self, owner: &str, f: &syn::ImplItemFn, uses: &dyn Fn(&SdkTable) -> bool) {
        if f.sig.receiver().is_none() {
            return;
        }
        let mut asks = Asks { uses, found: None };
        asks.visit_block(&f.block);
        let Some((sdk, inner, sends)) = asks.found else {
            self.plain.insert(f.sig.ident.to_string());
            return;
        };
        self.by_name
            .entry(f.sig.ident.to_string())
            .or_insert_with(|| Wrapper {
                owner: owner.to_string(),
                inner,
                sends,
                sdk,
            });
    }
}

fn method_names(uses: &dyn Fn(&SdkTable) -> bool) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = SDKS
        .iter()
        .filter(|s| uses(s))
        .flat_map(|s| s.request_methods.iter().map(|m| m.name))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

struct Finder<'a> {
    uses: &'a dyn Fn(&SdkTable) -> bool,
    wrappers: &'a mut AskingWrappers,
}

fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        p.is_ident("test")
            || (p.is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test_attr(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if is_test_attr(&i.attrs) {
            return;
        }
        let trait_name = i
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last())
            .map(|s| s.ident.to_string());
        let syn::Type::Path(tp) = &*i.self_ty else {
            return;
        };
        let Some(owner) = tp.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        if !may_own_wrappers(trait_name.as_deref(), &owner) {
            return;
        }
        for item in &i.items {
            let syn::ImplItem::Fn(f) = item else { continue };
            if !is_test_attr(&f.attrs) {
                self.wrappers.add_method(&owner, f, self.uses);
            }
        }
    }
}

/// A method the item index's reader found that may be an asking wrapper: named like an SDK
/// request method, taking `self`, in an impl that [`may_own_wrappers`], outside test code.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index into the item index's files.
    pub file: usize,
    pub owner: String,
    pub name: String,
    /// The method's text from `fn` to its body's end, when the body [`may_ask`]; `None` when it
    /// cannot, which makes the name a plain method's.
    pub text: Option<String>,
}

/// Whether an impl's methods may be asking wrappers: not a handler trait's (those methods are
/// the requests themselves, not an API of the server's), not an SDK's own peer or context type.
pub fn may_own_wrappers(trait_name: Option<&str>, self_type: &str) -> bool {
    let handler = trait_name.is_some_and(|t| {
        SDKS.iter()
            .any(|sdk| sdk.handler_traits.iter().any(|h| h.name == t))
    });
    let sdk_type = SDKS.iter().any(|s| {
        s.peer_types.iter().any(|p| p.name == self_type)
            || s.context_types.iter().any(|c| c.name == self_type)
    });
    !handler && !sdk_type
}

/// Whether `name` is a request method's name in some SDK table (a wrapper is looked up by it).
pub fn is_request_method_name(name: &str) -> bool {
    SDKS.iter()
        .any(|s| s.request_methods_named(name).next().is_some())
}

/// Whether a method's text may ask: it names `self` and calls a method named like an SDK
/// request method (`.elicit(`, `.create_message::<..>(`). Only such texts are parsed.
pub fn may_ask(text: &str) -> bool {
    // The SDKs' request method names, all identifiers: `.name` not followed by an identifier
    // byte is a `.` whose identifier run after it is the name. One pass over the `.`s and a
    // lookup each, not a search (and a searcher built) per method name, on every method of
    // every file of the package.
    static NAMES: std::sync::LazyLock<HashSet<&'static [u8]>> = std::sync::LazyLock::new(|| {
        SDKS.iter()
            .flat_map(|s| s.request_methods.iter().map(|m| m.name.as_bytes()))
            .inspect(|n| debug_assert!(n.iter().all(|&c| ident(c))))
            .collect()
    });
    fn ident(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_'
    }
    let b = text.as_bytes();
    memchr::memmem::find(b, b"self").is_some()
        && memchr::memchr_iter(b'.', b).any(|at| {
            let name = &b[at + 1..];
            let len = name.iter().position(|&c| !ident(c)).unwrap_or(name.len());
            NAMES.contains(&name[..len])
        })
}

/// The first call in a body of an SDK request method on something the method's `self` holds
/// (`self.peer.elicit(..)`, `self.inner.read().await.peer.create_message(..)`).
struct Asks<'a> {
    uses: &'a dyn Fn(&SdkTable) -> bool,
    found: Option<(&'static SdkTable, &'static str, McpMethod)>,
}

impl<'ast> Visit<'ast> for Asks<'_> {
    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if self.found.is_none()
            && crate::reading::is_path_named(crate::reading::chain_root(&mc.receiver).0, "self")
        {
            let name = mc.method.to_string();
            for sdk in SDKS.iter().copied().filter(|s| (self.uses)(s)) {
                let m = sdk
                    .request_methods_named(&name)
                    .find(|m| m.arity == mc.args.len());
                if let Some(m) = m {
                    self.found = Some((sdk, m.name, m.sends));
                    break;
                }
            }
        }
        syn::visit::visit_expr_method_call(self, mc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::item_index::ItemIndex;
    use std::path::PathBuf;

    fn package(files: &[(&str, &str)]) -> AskingWrappers {
        let mut index = ItemIndex::build(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), t.to_string()))
                .collect(),
        );
        index.root = PathBuf::from("/pkg");
        AskingWrappers::of_candidates(&index, &|_| true)
    }

    #[test]
    fn the_package_s_wrappers_are_read_from_the_index_candidates() {
        let w = package(&[
            (
                "/pkg/src/context.rs",
                r#"
                pub struct ToolContext { peer: Peer<RoleServer> }
                impl<'a> ToolContext {
                    pub fn new() -> Self { todo!() }
                    pub async fn elicit<T>(&self, msg: &str) -> Result<Option<T>, E> {
                        self.peer.elicit::<T>(msg.to_string()).await
                    }
                    fn list_roots(&self) -> &[String] { &self.roots }
                }
                "#,
            ),
            (
                "/pkg/src/other.rs",
                r#"
                impl Sampler {
                    async fn create_message(self: Arc<Self>, p: P) -> R {
                        self.inner.lock().await.peer.create_message(p).await
                    }
                }
                "#,
            ),
        ]);
        let e = w.get("elicit").expect("the context's elicit asks");
        assert_eq!((e.owner.as_str(), e.inner), ("ToolContext", "elicit"));
        assert_eq!(
            w.get("create_message").map(|w| w.owner.as_str()),
            Some("Sampler")
        );
        // Named like a request method, asks nothing: a plain method of that name.
        assert!(w.get("list_roots").is_none());
    }

    #[test]
    fn test_code_handlers_sdk_types_and_plain_namesakes_own_no_wrapper() {
        let asks = "{ self.peer.elicit::<T>(m).await }";
        let w = package(&[
            (
                "/pkg/src/a.rs",
                &format!(
                    "#[cfg(test)] impl Fake {{ async fn elicit(&self, m: M) -> R {asks} }}
                     #[cfg(test)] mod tests {{ impl Fake2 {{ async fn elicit(&self, m: M) -> R {asks} }} }}
                     impl ServerHandler for Srv {{ async fn list_roots(&self, m: M) -> R {{ self.peer.list_roots().await }} }}
                     impl Peer<RoleServer> {{ async fn create_message(&self, m: M) -> R {{ self.peer.create_message(m).await }} }}
                     impl Free {{ async fn elicit_url(a: A, b: B, c: C) -> R {{ a.peer.elicit_url(a, b, c).await }} }}"
                ),
            ),
            (
                "/pkg/tests/it.rs",
                &format!("impl InTests {{ async fn elicit(&self, m: M) -> R {asks} }}"),
            ),
        ]);
        for name in ["elicit", "list_roots", "create_message", "elicit_url"] {
            assert!(w.get(name).is_none(), "{name}");
        }
        // With a plain namesake in the package, a call of that name is no wrapper's.
        let w = package(&[(
            "/pkg/src/a.rs",
            &format!(
                "impl Ctx {{ async fn elicit(&self, m: M) -> R {asks} }}
                 impl NoConfirm {{ async fn elicit(&self, m: M) -> R {{ Ok(None) }} }}"
            ),
        )]);
        assert!(w.get("elicit").is_none());
    }
}
