//! A client capability check through the peer a helper hands over becomes the runtime's check
//! on the `Mrtr` that takes the peer's place. The runtime reads the capabilities of the request on
//! either protocol era (a 2026-07-28 request's `_meta`, what the client declared at `initialize`
//! on an older session: `docs/mrtr-handler.md`, "One handler, both eras"), as rmcp's
//! `peer_info()` read the session's:
//!
//! | written | becomes |
//! |---|---|
//! | `peer.peer_info().is_some_and(\|i\| i.capabilities.roots.is_some())` (or `.map_or(false, ..)`, `.map(..).unwrap_or(false)`) | `mrtr.supports_roots()` |
//! | the same over `capabilities.sampling` | `mrtr.supports_sampling()` |
//! | the same over `capabilities.elicitation` | `mrtr.supports_form_elicitation() \|\| mrtr.supports_url_elicitation()` |
//! | `peer.supported_elicitation_modes().contains(&ElicitationMode::Form)` | `mrtr.supports_form_elicitation()` |
//! | `peer.supported_elicitation_modes().contains(&ElicitationMode::Url)` | `mrtr.supports_url_elicitation()` |
//! | `peer.supports_sampling_tools()` | `mrtr.supports_sampling_tools()` |

use syn::visit::Visit;

use super::text::range_of;
use super::Cx;
use crate::finding::Edit;

/// The rewritten checks of one function.
pub(super) struct Caps {
    pub(super) edits: Vec<Edit>,
    /// How many uses of the parameter they held.
    pub(super) uses: usize,
}

/// The capability checks of `block` through the parameter `param` (a `Peer` or a
/// `RequestContext`, read as `param.peer`), rewritten to `handle`'s.
pub(super) fn rewrite(cx: &Cx, block: &syn::Block, param: &str, handle: &str) -> Caps {
    let mut f = Find {
        param,
        hits: Vec::new(),
        parents: Vec::new(),
        modes: Vec::new(),
    };
    f.visit_block(block);
    let mut caps = Caps {
        edits: Vec::new(),
        uses: 0,
    };
    // `let modes = peer.supported_elicitation_modes();` read only by `modes.contains(..)`: the
    // local goes and each test becomes the runtime's (one use of the parameter, in the `let`).
    // A local read any other way keeps it all as it was.
    let mut kept_locals = Vec::new();
    for (local, name) in &f.modes {
        let through = f
            .hits
            .iter()
            .filter(|h| h.3.as_deref() == Some(name))
            .count();
        let Some((s, e)) = range_of(*local, cx.idx) else {
            continue;
        };
        if super::text::block_uses_of(block, cx.idx, name) != through + 1 {
            kept_locals.push(name.clone());
            continue;
        }
        let (s, e) = super::text::whole_lines(cx.src, s, e);
        caps.edits.push(cx.idx.edit(s, e, String::new()));
        caps.uses += 1;
    }
    f.hits
        .retain(|h| !h.3.as_ref().is_some_and(|n| kept_locals.contains(n)));
    for (e, check, parens, via) in f.hits {
        // The uses of the parameter the rewrite removes: one per check made on it directly.
        let direct = usize::from(via.is_none());
        let Some((s, end)) = range_of(e, cx.idx) else {
            continue;
        };
        let text = match check {
            Check::Elicitation => {
                let either = format!(
                    "{handle}.supports_form_elicitation() || {handle}.supports_url_elicitation()"
                );
                if parens {
                    format!("({either})")
                } else {
                    either
                }
            }
            Check::One(method) => format!("{handle}.{method}()"),
        };
        caps.edits.push(cx.idx.edit(s, end, text));
        caps.uses += direct;
    }
    caps
}

#[derive(Clone, Copy)]
enum Check {
    One(&'static str),
    /// Any elicitation mode: the runtime asks per mode.
    Elicitation,
}

struct Find<'a, 'p> {
    param: &'p str,
    /// The check, what it becomes, whether an `||` there needs parentheses, and the local of
    /// elicitation modes it reads (if not the parameter).
    hits: Vec<(&'a syn::Expr, Check, bool, Option<String>)>,
    /// `let NAME = param.supported_elicitation_modes();`
    modes: Vec<(&'a syn::Local, String)>,
    /// The enclosing expressions (`None`: a statement or a `let` in between).
    parents: Vec<Option<&'a syn::Expr>>,
}

impl<'a> Visit<'a> for Find<'a, '_> {
    fn visit_local(&mut self, l: &'a syn::Local) {
        if let (syn::Pat::Ident(pi), Some(init)) = (&l.pat, &l.init) {
            let modes = method(&init.expr, "supported_elicitation_modes");
            if init.diverge.is_none()
                && modes.is_some_and(|m| m.args.is_empty() && on_peer(&m.receiver, self.param))
            {
                self.modes.push((l, pi.ident.to_string()));
                return;
            }
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        let local = self
            .modes
            .iter()
            .find_map(|(_, n)| modes_test(e, n).map(|c| (c, n.clone())));
        if let Some((check, name)) = local {
            self.hits
                .push((e, check, parens_needed(self.parents.last(), e), Some(name)));
            return;
        }
        if let Some(check) = recognize(e, self.param) {
            self.hits
                .push((e, check, parens_needed(self.parents.last(), e), None));
            return;
        }
        self.parents.push(Some(e));
        syn::visit::visit_expr(self, e);
        self.parents.pop();
    }
    fn visit_stmt(&mut self, s: &'a syn::Stmt) {
        self.parents.push(None);
        syn::visit::visit_stmt(self, s);
        self.parents.pop();
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// Whether an `||` standing for `e` under `parent` needs parentheses.
fn parens_needed(parent: Option<&Option<&syn::Expr>>, e: &syn::Expr) -> bool {
    match parent {
        Some(Some(p)) => match p {
            syn::Expr::Unary(_)
            | syn::Expr::Field(_)
            | syn::Expr::Cast(_)
            | syn::Expr::Reference(_)
            | syn::Expr::Index(_) => true,
            syn::Expr::Binary(b) => !matches!(b.op, syn::BinOp::Or(_)),
            syn::Expr::MethodCall(mc) => std::ptr::eq(&*mc.receiver, e),
            _ => false,
        },
        _ => false,
    }
}

/// `param` (a peer) or `param.peer` (a request context).
fn on_peer(e: &syn::Expr, param: &str) -> bool {
    match e {
        syn::Expr::Path(p) => p.path.is_ident(param),
        syn::Expr::Field(f) => {
            matches!(&f.member, syn::Member::Named(m) if m == "peer")
                && matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(param))
        }
        _ => false,
    }
}

fn method<'a>(e: &'a syn::Expr, name: &str) -> Option<&'a syn::ExprMethodCall> {
    match e {
        syn::Expr::MethodCall(mc) if mc.method == name => Some(mc),
        _ => None,
    }
}

/// `R.peer_info()` on the parameter.
fn peer_info(e: &syn::Expr, param: &str) -> bool {
    method(e, "peer_info").is_some_and(|mc| mc.args.is_empty() && on_peer(&mc.receiver, param))
}

/// `|i| i.capabilities.FIELD.is_some()`: the check it makes.
fn capability_test(e: &syn::Expr) -> Option<Check> {
    let syn::Expr::Closure(c) = e else {
        return None;
    };
    let [syn::Pat::Ident(info)] = c.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let is_some = method(&c.body, "is_some").filter(|mc| mc.args.is_empty())?;
    let syn::Expr::Field(field) = &*is_some.receiver else {
        return None;
    };
    let syn::Expr::Field(caps) = &*field.base else {
        return None;
    };
    let named = |m: &syn::Member, n: &str| matches!(m, syn::Member::Named(i) if i == n);
    let through_info = matches!(&*caps.base, syn::Expr::Path(p) if p.path.is_ident(&info.ident));
    if !named(&caps.member, "capabilities") || !through_info {
        return None;
    }
    match &field.member {
        syn::Member::Named(m) if m == "roots" => Some(Check::One("supports_roots")),
        syn::Member::Named(m) if m == "sampling" => Some(Check::One("supports_sampling")),
        syn::Member::Named(m) if m == "elicitation" => Some(Check::Elicitation),
        _ => None,
    }
}

fn recognize(e: &syn::Expr, param: &str) -> Option<Check> {
    let syn::Expr::MethodCall(mc) = e else {
        return None;
    };
    let args: Vec<&syn::Expr> = mc.args.iter().collect();
    let is_false = |a: &syn::Expr| matches!(a, syn::Expr::Lit(l) if matches!(&l.lit, syn::Lit::Bool(b) if !b.value));
    match (mc.method.to_string().as_str(), &args[..]) {
        // `R.peer_info().is_some_and(|i| ..)` / `.map_or(false, |i| ..)`
        ("is_some_and", [test]) if peer_info(&mc.receiver, param) => capability_test(test),
        ("map_or", [default, test]) if is_false(default) && peer_info(&mc.receiver, param) => {
            capability_test(test)
        }
        // `R.peer_info().map(|i| ..).unwrap_or(false)` / `.unwrap_or_default()`
        ("unwrap_or", [default]) if is_false(default) => mapped(&mc.receiver, param),
        ("unwrap_or_default", []) => mapped(&mc.receiver, param),
        // `R.supports_sampling_tools()`
        ("supports_sampling_tools", []) if on_peer(&mc.receiver, param) => {
            Some(Check::One("supports_sampling_tools"))
        }
        // `R.supported_elicitation_modes().contains(&ElicitationMode::Url)`
        ("contains", [mode]) => {
            let modes = method(&mc.receiver, "supported_elicitation_modes")?;
            if !modes.args.is_empty() || !on_peer(&modes.receiver, param) {
                return None;
            }
            mode_check(mode)
        }
        _ => None,
    }
}

/// `NAME.contains(&ElicitationMode::Url)` over a local holding the modes.
fn modes_test(e: &syn::Expr, name: &str) -> Option<Check> {
    let mc = method(e, "contains")?;
    let [mode] = &mc.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    matches!(&*mc.receiver, syn::Expr::Path(p) if p.path.is_ident(name))
        .then(|| mode_check(mode))
        .flatten()
}

/// `&ElicitationMode::Form` / `&ElicitationMode::Url`: the runtime's check for it.
fn mode_check(mode: &syn::Expr) -> Option<Check> {
    let syn::Expr::Reference(r) = mode else {
        return None;
    };
    let syn::Expr::Path(p) = &*r.expr else {
        return None;
    };
    match super::text::path_end(&p.path).as_str() {
        "Form" => Some(Check::One("supports_form_elicitation")),
        "Url" => Some(Check::One("supports_url_elicitation")),
        _ => None,
    }
}

fn mapped(e: &syn::Expr, param: &str) -> Option<Check> {
    let map = method(e, "map")?;
    match &map.args.iter().collect::<Vec<_>>()[..] {
        [test] if peer_info(&map.receiver, param) => capability_test(test),
        _ => None,
    }
}
