//! Which helpers the file's own handlers call. A plain method that reads a stored peer is inside a
//! request when a `#[tool]` (or `call_tool`, ...) calls it, and outside every request when only
//! `on_initialized` or `list_tools` do. Callees are matched by name (`self.x(..)`, `Self::x(..)`,
//! `x(..)`, `module::x(..)`), within one file.

use crate::reading::name;
use std::collections::{BTreeMap, BTreeSet};

use crate::model::fast_hash::HashSet;

use syn::visit::Visit;

use crate::model::scope::FileFacts;
use crate::model::sdk::{HandlerTrait, SDKS};

/// What kind of code a fn is, and so every node it encloses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandlerKind {
    /// A request handler that may answer with `InputRequiredResult`: `call_tool`, `get_prompt`,
    /// `read_resource`, a `#[tool]` or `#[prompt]` method.
    MrtrRequest,
    /// A request handler that cannot (`list_tools`, `complete`, `initialize`, ...).
    OtherRequest,
    /// A notification hook (`on_initialized`) or another trait method that is not a request.
    Hook,
    /// Client-side code (`impl ClientHandler`).
    Client,
    /// Anything else: helpers, free functions, `main`.
    Plain,
}

/// How a plain fn is reached from the file's handlers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Some chain of calls starts in a request handler that can return `InputRequiredResult`.
    Request,
    /// Every chain starts in handlers MRTR cannot reach; the first of them, by name.
    Unreachable(String),
    /// Every chain starts in a task spawned by the fn named (or in handlers MRTR cannot reach):
    /// the task outlives the request that started it.
    Spawned(String),
    /// No handler in this file calls it (a public helper, `main`, a callback).
    Unknown,
}

#[derive(Debug, Default)]
pub struct CallGraph {
    /// fn name → the kinds of the fns of that name (several impls may share a name).
    kinds: BTreeMap<String, Vec<HandlerKind>>,
    /// callee name → caller names.
    callers: BTreeMap<String, BTreeSet<String>>,
    /// Callers that stand for the tasks a fn spawns (`tokio::spawn(async move { helper().await
    /// })`): such a caller's name is the spawning fn's with [`SPAWNED_BY`] before it, which no
    /// fn can be named.
    spawned: BTreeSet<String>,
}

/// The prefix of a spawned task's caller name.
const SPAWNED_BY: &str = "task spawned by ";

impl CallGraph {
    pub fn build(file: &syn::File, facts: &FileFacts) -> CallGraph {
        let mut b = Builder {
            facts,
            graph: CallGraph::default(),
            handler: Vec::new(),
            current: Vec::new(),
            in_task: 0,
        };
        b.visit_file(file);
        b.graph
    }

    /// How the plain fn `name` is reached.
    pub fn reach(&self, name: &str) -> Reach {
        let mut seen: HashSet<&str> = HashSet::default();
        let mut stack: Vec<&str> = vec![name];
        let mut unreachable: BTreeSet<&str> = BTreeSet::new();
        while let Some(n) = stack.pop() {
            let Some(callers) = self.callers.get(n) else {
                continue;
            };
            for c in callers {
                if !seen.insert(c.as_str()) {
                    continue;
                }
                if self.spawned.contains(c) {
                    unreachable.insert(c.as_str());
                    continue;
                }
                let kinds = self.kinds.get(c).map(Vec::as_slice).unwrap_or(&[]);
                if kinds.contains(&HandlerKind::MrtrRequest) {
                    return Reach::Request;
                }
                if kinds
                    .iter()
                    .any(|k| matches!(k, HandlerKind::Hook | HandlerKind::OtherRequest))
                {
                    unreachable.insert(c.as_str());
                }
                if kinds.is_empty() || kinds.contains(&HandlerKind::Plain) {
                    stack.push(c.as_str());
                }
            }
        }
        if self.has_plain_root(name) {
            return Reach::Unknown;
        }
        // A task is named before a hook: it is the likelier surprise to whoever reads the finding.
        let spawner = unreachable.iter().find_map(|c| c.strip_prefix(SPAWNED_BY));
        match (spawner, unreachable.first()) {
            (Some(spawner), _) => Reach::Spawned(spawner.to_string()),
            (None, Some(first)) => Reach::Unreachable(first.to_string()),
            (None, None) => Reach::Unknown,
        }
    }

    /// Whether some chain of callers of `name` ends in a plain fn nobody in the file calls
    /// (public API, `main`): then the fn may run anywhere.
    fn has_plain_root(&self, name: &str) -> bool {
        let mut seen: HashSet<&str> = HashSet::default();
        let mut stack: Vec<&str> = vec![name];
        while let Some(n) = stack.pop() {
            let kinds = self.kinds.get(n).map(Vec::as_slice).unwrap_or(&[]);
            let plain = (kinds.is_empty() && !self.spawned.contains(n))
                || kinds.contains(&HandlerKind::Plain);
            if !plain {
                continue;
            }
            match self.callers.get(n) {
                None => return true,
                Some(cs) => {
                    for c in cs {
                        if seen.insert(c.as_str()) {
                            stack.push(c.as_str());
                        }
                    }
                }
            }
        }
        false
    }
}

/// The kind of a fn, from the trait impl around it and its attributes. Shared with the walk.
pub fn handler_kind(
    facts: &FileFacts,
    handler: Option<&HandlerTrait>,
    attrs: &[syn::Attribute],
    sig: &syn::Signature,
    takes_context: bool,
) -> HandlerKind {
    let name = name::of(&sig.ident);
    let has_handler_attr = attrs.iter().any(|a| {
        a.path().segments.last().is_some_and(|s| {
            SDKS.iter()
                .any(|sdk| crate::reading::ident_is_one_of(&s.ident, sdk.handler_attributes))
        })
    });
    let _ = facts;
    match handler {
        Some(h) if h.side == crate::model::sdk::Side::Client => HandlerKind::Client,
        Some(h) if h.mrtr_methods.contains(&&*name) => HandlerKind::MrtrRequest,
        Some(h) if name.starts_with(h.hook_prefix) => HandlerKind::Hook,
        Some(h) if !h.request_suffix.is_empty() && name.ends_with(h.request_suffix) => {
            HandlerKind::OtherRequest
        }
        // `#[mcp_server] impl McpServer for S { #[tool] async fn f(..) }` (mcp-attr).
        Some(_) if has_handler_attr => HandlerKind::MrtrRequest,
        Some(_) if takes_context => HandlerKind::OtherRequest,
        Some(_) => HandlerKind::Hook,
        None if has_handler_attr => HandlerKind::MrtrRequest,
        None => HandlerKind::Plain,
    }
}

/// The handler trait an impl implements, if any.
pub fn impl_handler(facts: &FileFacts, i: &syn::ItemImpl) -> Option<&'static HandlerTrait> {
    let (_, path, _) = i.trait_.as_ref()?;
    facts.handler_trait(path)
}

/// Whether a signature takes a handler context of some SDK (`RequestContext<RoleServer>`).
pub fn takes_context(
    facts: &FileFacts,
    sig: &syn::Signature,
    generics: &[HashSet<String>],
) -> bool {
    sig.inputs.iter().any(|i| match i {
        syn::FnArg::Typed(pt) => matches!(
            facts.classify_type(&pt.ty, generics),
            crate::model::scope::Kind::Context { .. }
        ),
        syn::FnArg::Receiver(_) => false,
    })
}

struct Builder<'f> {
    facts: &'f FileFacts,
    graph: CallGraph,
    handler: Vec<Option<&'static HandlerTrait>>,
    current: Vec<String>,
    /// How many spawned tasks (`spawn(async move { .. })`) around the node being visited.
    in_task: usize,
}

impl Builder<'_> {
    fn enter(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        block: &syn::Block,
        in_impl: bool,
    ) {
        let handler = if in_impl {
            self.handler.last().copied().flatten()
        } else {
            None
        };
        let generics: HashSet<String> = sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect();
        let ctx = takes_context(self.facts, sig, std::slice::from_ref(&generics));
        let kind = handler_kind(self.facts, handler, attrs, sig, ctx);
        let name = sig.ident.to_string();
        self.graph.kinds.entry(name.clone()).or_default().push(kind);
        self.current.push(name);
        self.visit_block(block);
        self.current.pop();
    }

    fn call(&mut self, callee: &str) {
        let Some(caller) = self.current.last() else {
            return;
        };
        if caller == callee {
            return;
        }
        // Most calls are made again (`to_string`, `clone`): only a new pair is stored.
        if !self.graph.callers.contains_key(callee) {
            (self.graph.callers).insert(callee.to_string(), BTreeSet::new());
        }
        let Some(callers) = self.graph.callers.get_mut(callee) else {
            return;
        };
        if self.in_task > 0 {
            let task = format!("{SPAWNED_BY}{caller}");
            self.graph.spawned.insert(task.clone());
            callers.insert(task);
        } else if !callers.contains(caller.as_str()) {
            callers.insert(caller.clone());
        }
    }

    /// What runs in a task: calls made there have the task for their caller.
    fn in_task(&mut self, visit: impl FnOnce(&mut Self)) {
        self.in_task += 1;
        visit(self);
        self.in_task -= 1;
    }
}

impl<'ast> Visit<'ast> for Builder<'_> {
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.handler.push(impl_handler(self.facts, i));
        syn::visit::visit_item_impl(self, i);
        self.handler.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let handlers = std::mem::take(&mut self.handler);
        self.enter(&f.attrs, &f.sig, &f.block, false);
        self.handler = handlers;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.enter(&f.attrs, &f.sig, &f.block, true);
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if matches!(&*mc.receiver, syn::Expr::Path(p) if p.path.is_ident("self")) {
            self.call(&name::of(&mc.method));
        }
        if crate::reading::ident_is_one_of(&mc.method, crate::model::scope::SPAWNS) {
            self.visit_expr(&mc.receiver);
            self.in_task(|b| mc.args.iter().for_each(|a| b.visit_expr(a)));
            return;
        }
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                self.call(&name::of(&last.ident));
            }
        }
        let spawns = matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last()
            .is_some_and(|s| crate::reading::ident_is_one_of(&s.ident, crate::model::scope::SPAWNS)));
        if spawns {
            self.in_task(|b| c.args.iter().for_each(|a| b.visit_expr(a)));
            return;
        }
        syn::visit::visit_expr_call(self, c);
    }

    /// `let task = async move { .. };` then `spawn(task)` in the file: the block runs in a task.
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let spawned = match &l.pat {
            syn::Pat::Ident(pi) => self.facts.spawned_names.contains(&*name::of(&pi.ident)),
            _ => false,
        };
        let Some(init) = l.init.as_ref().filter(|_| spawned) else {
            syn::visit::visit_local(self, l);
            return;
        };
        if matches!(&*init.expr, syn::Expr::Async(_) | syn::Expr::Closure(_)) {
            self.in_task(|b| b.visit_expr(&init.expr));
        } else {
            syn::visit::visit_local(self, l);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(src: &str) -> CallGraph {
        let file = syn::parse_file(src).unwrap();
        let facts = FileFacts::gather(&file, src);
        CallGraph::build(&file, &facts)
    }

    const SRC: &str = r#"
        use rmcp::{ServerHandler, tool, service::{RequestContext, NotificationContext}, RoleServer};
        impl S {
            #[tool(description = "t")]
            async fn tool_a(&self) { self.ask().await; }
            async fn ask(&self) { self.deeper().await; }
            async fn deeper(&self) {}
            async fn hook_only(&self) {}
            pub async fn public(&self) {}
            pub async fn mixed(&self) {}
        }
        impl ServerHandler for S {
            async fn on_initialized(&self, c: NotificationContext<RoleServer>) { self.hook_only().await; self.mixed().await; }
            async fn list_tools(&self, r: (), c: RequestContext<RoleServer>) { self.deeper().await; }
        }
        pub async fn entry(s: &S) { s.mixed().await; S::mixed(s).await; }
    "#;

    #[test]
    fn helpers_called_from_a_tool_are_in_a_request() {
        let g = graph(SRC);
        assert_eq!(g.reach("ask"), Reach::Request);
        assert_eq!(
            g.reach("deeper"),
            Reach::Request,
            "transitively, even if list_tools calls it too"
        );
    }

    #[test]
    fn helpers_called_only_from_hooks_are_unreachable() {
        let g = graph(SRC);
        assert_eq!(
            g.reach("hook_only"),
            Reach::Unreachable("on_initialized".into())
        );
    }

    #[test]
    fn helpers_called_only_from_spawned_tasks_run_outside_the_request() {
        let g = graph(
            r#"
            impl S {
                #[tool(description = "t")]
                async fn tool_a(&self) {
                    tokio::spawn(async move { self.in_task().await; });
                    let job = async move { self.in_named_task().await };
                    tokio::spawn(job);
                    rt.spawn(helper_in_task(1));
                    self.both().await;
                    let not_spawned = async { self.awaited_here().await };
                    not_spawned.await;
                }
                #[tool(description = "u")]
                async fn tool_b(&self) { tokio::spawn(async move { self.both().await }); }
                async fn in_task(&self) { self.deeper().await; }
                async fn in_named_task(&self) {}
                async fn both(&self) {}
                async fn awaited_here(&self) {}
                async fn deeper(&self) {}
            }
            async fn helper_in_task(n: u8) {}
            "#,
        );
        for f in ["in_task", "deeper", "in_named_task", "helper_in_task"] {
            assert_eq!(g.reach(f), Reach::Spawned("tool_a".into()), "{f}");
        }
        // Called from a tool directly as well: in that request.
        assert_eq!(g.reach("both"), Reach::Request);
        assert_eq!(g.reach("awaited_here"), Reach::Request);
    }

    #[test]
    fn uncalled_or_publicly_called_helpers_are_unknown() {
        let g = graph(SRC);
        assert_eq!(g.reach("public"), Reach::Unknown);
        assert_eq!(
            g.reach("mixed"),
            Reach::Unknown,
            "`entry` may call it from anywhere"
        );
    }
}
