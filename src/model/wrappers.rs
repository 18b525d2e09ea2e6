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

use std::path::{Path, PathBuf};

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

    /// Over the package's files (`(absolute path, text)`): only files that call one of the SDKs'
    /// request methods and have an `impl` are parsed. `uses` says which SDKs the package uses.
    pub fn of_package(
        root: &Path,
        files: &[(PathBuf, String)],
        uses: &dyn Fn(&SdkTable) -> bool,
    ) -> AskingWrappers {
        let names = method_names(uses);
        let mut out = AskingWrappers::default();
        for (path, text) in files {
            let rel = path.strip_prefix(root).unwrap_or(path);
            let test = rel
                .components()
                .any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches")));
            let calls = names.iter().any(|n| {
                let b = text.as_bytes();
                memchr::memmem::find(b, format!(".{n}(").as_bytes()).is_some()
                    || memchr::memmem::find(b, format!(".{n}::").as_bytes()).is_some()
            });
            if test || !calls || memchr::memmem::find(text.as_bytes(), b"impl").is_none() {
                continue;
            }
            if let Ok((_, tree)) = crate::reading::parse::parse(text.as_bytes()) {
                out.add_tree(&tree, uses);
            }
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
            out: &mut self.by_name,
            plain: &mut self.plain,
        };
        f.visit_file(tree);
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
    out: &'a mut HashMap<String, Wrapper>,
    plain: &'a mut HashSet<String>,
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
        // A handler's trait methods are the requests themselves, not an API of the server's.
        if let Some((_, path, _)) = &i.trait_ {
            let handler = path.segments.last().is_some_and(|s| {
                SDKS.iter()
                    .any(|sdk| sdk.handler_traits.iter().any(|h| s.ident == h.name))
            });
            if handler {
                return;
            }
        }
        let syn::Type::Path(tp) = &*i.self_ty else {
            return;
        };
        let Some(owner) = tp.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        let sdk_type = SDKS.iter().any(|s| {
            s.peer_types.iter().any(|p| p.name == owner)
                || s.context_types.iter().any(|c| c.name == owner)
        });
        if sdk_type {
            return;
        }
        for item in &i.items {
            let syn::ImplItem::Fn(f) = item else { continue };
            if f.sig.receiver().is_none() || is_test_attr(&f.attrs) {
                continue;
            }
            let mut asks = Asks {
                uses: self.uses,
                found: None,
            };
            asks.visit_block(&f.block);
            let Some((sdk, inner, sends)) = asks.found else {
                self.plain.insert(f.sig.ident.to_string());
                continue;
            };
            {
                self.out
                    .entry(f.sig.ident.to_string())
                    .or_insert_with(|| Wrapper {
                        owner: owner.clone(),
                        inner,
                        sends,
                        sdk,
                    });
            }
        }
    }
}

/// The first call in a body of an SDK request method on something the method's `self` holds
/// (`self.peer.elicit(..)`, `self.inner.read().await.peer.create_message(..)`).
struct Asks<'a> {
    uses: &'a dyn Fn(&SdkTable) -> bool,
    found: Option<(&'static SdkTable, &'static str, McpMethod)>,
}

fn rooted_at_self(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.path.is_ident("self"),
        syn::Expr::Field(f) => rooted_at_self(&f.base),
        syn::Expr::MethodCall(mc) => rooted_at_self(&mc.receiver),
        syn::Expr::Await(a) => rooted_at_self(&a.base),
        syn::Expr::Try(t) => rooted_at_self(&t.expr),
        syn::Expr::Paren(p) => rooted_at_self(&p.expr),
        syn::Expr::Reference(r) => rooted_at_self(&r.expr),
        syn::Expr::Unary(u) => rooted_at_self(&u.expr),
        _ => false,
    }
}

impl<'ast> Visit<'ast> for Asks<'_> {
    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if self.found.is_none() && rooted_at_self(&mc.receiver) {
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
