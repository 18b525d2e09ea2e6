//! Shared by the request rules: is this receiver a server's handle on its client?

use crate::model::callgraph::HandlerKind;
use crate::model::scope::{Kind, Value};
use crate::model::sdk::{SdkTable, Side};
use crate::rules::engine::Cx;

/// How sure the engine is that a call goes to the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receiver {
    /// Typed as a server-side peer (`Peer<RoleServer>`, `ClientSink`, `context.peer`, ...).
    Typed,
    /// Untyped, but named like a peer in a file that uses the SDK (`ctx.peer` in an untyped closure).
    Named,
}

/// `Some` when a call on `value` is a server-to-client call of `sdk`.
///
/// In client-side code (`impl ClientHandler`) only a peer *typed* as the server side counts: a
/// proxy that answers its upstream server's `create_message` by forwarding it to its own
/// downstream client through a `Peer<RoleServer>` does send a legacy request.
pub fn server_peer(cx: &Cx<'_>, sdk: &SdkTable, value: &Value) -> Option<Receiver> {
    let client_code = cx.context().kind == HandlerKind::Client;
    match &value.kind {
        Kind::Peer { sdk: s, side } if std::ptr::eq(*s, sdk) => match side {
            Some(Side::Client) => None,
            Some(Side::Server) => Some(Receiver::Typed),
            None if client_code => None,
            None => Some(Receiver::Typed),
        },
        _ if client_code => None,
        Kind::Unknown => {
            let named = value
                .hint
                .as_deref()
                .is_some_and(|h| h.to_ascii_lowercase().contains(sdk.receiver_name_hint));
            (named && cx.facts().mentions(sdk)).then_some(Receiver::Named)
        }
        _ => None,
    }
}
