//! What changed in rmcp's API between releases, for the upgrade rules (MCP201-203) and
//! `--upgrade-rmcp`. One row per change; a new rmcp release adds rows here, not code.
//!
//! Derived from rmcp's CHANGELOG and its source at each `rmcp-v*` tag (the deprecated aliases
//! 2.2.0 still had, the public names of 1.8.0, 2.0.0, 2.2.0 and 3.11.0 side by side, and the diffs
//! of the PRs named below), then checked by building `tests/upgrade_fixtures` on their rmcp and,
//! fixed, on 3.11.

use crate::model::manifest::Version;

/// The rmcp release the upgrade lands on, and the requirement `--upgrade-rmcp` writes.
pub const TARGET: Version = Version(3, 11, 0);
pub const TARGET_REQUIREMENT: &str = "3.11";

/// How code spelled the old API, and what the rule does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A type, trait, alias or macro name, in any path (`use` lines, types, expressions, patterns):
    /// renamed to `new` (MCP201, safe).
    Item,
    /// A variant of enum `of`, written `Enum::Old`: renamed to `new` (MCP201, safe).
    Variant { of: &'static str },
    /// A method: `.old(..)` renamed to `.new(..)` (MCP201, safe).
    Method,
    /// A method call that no longer exists and is no longer needed: `.old()` is dropped (MCP201,
    /// safe; `new` is empty).
    DropCall,
    /// A trait that is gone and whose methods the upgrade drops (`AnnotateAble`): its `use`
    /// leaf is removed (MCP201, safe; `new` is empty).
    DropImport,
    /// A `ServerHandler` method whose result type changed from `old` to `new` (MCP202, unsafe:
    /// the body is kept and its result converted with `Into`).
    HandlerResult { method: &'static str },
    /// A name that is gone with no mechanical replacement (MCP203, display-only).
    Removed,
    /// A method whose arguments changed: a call `.old(a1, .., aN)` with the old `arity` is rewritten
    /// to `.old(TEMPLATE)` (MCP205, unsafe). In the template `{N}` is argument N's text;
    /// `{N?PAT}` is empty when argument N is `None` and PAT with `$` replaced by `e` when it is
    /// `Some(e)` (anything else: no fix); `{N*PAT}` is empty when argument N is `&[]`, else PAT
    /// with `$` replaced by the argument.
    CallArgs {
        arity: usize,
        template: &'static str,
    },
    /// A method of rmcp trait `of` that user types implement, whose signature changed: an
    /// `impl of for T` still writing the old one no longer compiles (MCP205, display-only: the
    /// body must change with it).
    ImplSignature { of: &'static str },
    /// A method whose result type changed under the same name (`peer_info()`): its calls get
    /// guidance (MCP205, display-only) in a package below the release. `client_only`: only a
    /// call on a client's handle (a receiver named like one, in a file that uses `RoleClient`).
    MethodResult { client_only: bool },
    /// A struct that became `#[non_exhaustive]`: a struct literal of it no longer compiles outside
    /// rmcp (MCP204, display-only: its constructor's arguments differ per struct).
    StructLiteral,
}

/// One change of rmcp's API.
#[derive(Debug, Clone, Copy)]
pub struct Change {
    /// The first release where code written the old way no longer compiles.
    pub since: Version,
    /// The pull request that made it so.
    pub pr: u32,
    pub kind: Kind,
    pub old: &'static str,
    /// The new name (`Item`, `Variant`, `Method`, `HandlerResult`); empty otherwise.
    pub new: &'static str,
    /// Whether the old name, unqualified and not imported by name (a glob import), may be taken
    /// for rmcp's. Off for names too common to claim (`Error`, `Meta`).
    pub bare: bool,
    /// For the message: where it was renamed first, or what to do instead.
    pub note: &'static str,
}

const V0_11: Version = Version(0, 11, 0);
const V1: Version = Version(1, 0, 0);
const V2: Version = Version(2, 0, 0);
const V3: Version = Version(3, 0, 0);

const fn item(
    since: Version,
    pr: u32,
    old: &'static str,
    new: &'static str,
    note: &'static str,
) -> Change {
    Change {
        since,
        pr,
        kind: Kind::Item,
        old,
        new,
        bare: true,
        note,
    }
}

const fn removed(since: Version, pr: u32, old: &'static str, note: &'static str) -> Change {
    Change {
        since,
        pr,
        kind: Kind::Removed,
        old,
        new: "",
        bare: true,
        note,
    }
}

const PARAM_0_13: &str = "renamed in 0.13 (#617, SEP-1319); the deprecated alias went in 3.0";
const RENAMED_2_0: &str = "renamed in 2.0 (#927); the deprecated alias went in 3.0";
const ELICIT_RESULT: &str = "`ElicitResult` (formerly `CreateElicitationResult`) is \
`#[non_exhaustive]` since 2.0 (#927): build it with `ElicitResult::new(action)` and \
`.with_content(..)`";
const MODEL_2_0: &str = "renamed in 2.0 (#927), with no alias";
const TASKS: &str = "rmcp 3.0 replaced its tasks API with the SEP-2663 tasks extension: spawn \
long-running work with `rmcp::task_manager::TaskManager` and answer `tasks/get`, `tasks/update` \
and `tasks/cancel` through `ServerHandler::get_task`, `update_task` and `cancel_task`";

const fn literal(old: &'static str) -> Change {
    Change {
        since: V1,
        pr: 715,
        kind: Kind::StructLiteral,
        old,
        new: "",
        bare: true,
        note: "rmcp 1.0 made the model structs `#[non_exhaustive]` (#715): build it with its \
constructor (`::new(..)`, or `::default()`) and the `with_*` methods, or set fields on a built value",
    }
}

/// A model struct rmcp made `#[non_exhaustive]`, read from its sources at each release
/// (`rmcp_structs.rs`, generated by `scripts/rmcp-struct-table.py`).
pub struct StructRow {
    pub name: &'static str,
    pub since: Version,
    pub pr: u32,
    /// rmcp 3.x implements `Default` for it, so a literal can become `default()` plus field
    /// assignments.
    pub default: bool,
    /// Its public fields on rmcp 3.x.
    pub fields: &'static [&'static str],
}

/// The generated struct row named `name`.
pub fn struct_row(name: &str) -> Option<&'static StructRow> {
    super::rmcp_structs::STRUCTS.iter().find(|r| r.name == name)
}

const MADE_NON_EXHAUSTIVE_2_0: &str =
    "rmcp 2.0 made more model structs `#[non_exhaustive]` (#927): \
build it with `::default()` and set its fields, or with its constructor";

/// [`CHANGES`] and a struct-literal change for every generated struct row the hand-written
/// table does not name.
fn all_changes() -> &'static [Change] {
    static ALL: std::sync::LazyLock<Vec<Change>> = std::sync::LazyLock::new(|| {
        let mut all = CHANGES.to_vec();
        for row in super::rmcp_structs::STRUCTS {
            if all
                .iter()
                .any(|c| c.old == row.name && c.kind == Kind::StructLiteral)
            {
                continue;
            }
            all.push(Change {
                since: row.since,
                pr: row.pr,
                kind: Kind::StructLiteral,
                old: row.name,
                new: "",
                bare: true,
                note: if row.since.0 >= 2 {
                    MADE_NON_EXHAUSTIVE_2_0
                } else {
                    literal("").note
                },
            });
        }
        all
    });
    &ALL
}

/// Every change, oldest release first.
pub static CHANGES: &[Change] = &[
    // 0.11: the SSE transport went (its features are in FEATURES).
    removed(V0_11, 562, "SseServer", "rmcp 0.11 removed the SSE transport; serve over streamable HTTP (`rmcp::transport::StreamableHttpService`, feature `transport-streamable-http-server`)"),
    removed(V0_11, 562, "SseClientTransport", "rmcp 0.11 removed the SSE transport; connect with `rmcp::transport::StreamableHttpClientTransport` (feature `transport-streamable-http-client-reqwest`)"),
    // 1.0: model structs became `#[non_exhaustive]` (#715); `ServerInfo` and `ClientInfo` are
    // aliases of two of them.
    literal("CallToolResult"),
    literal("CallToolRequestParams"),
    literal("GetPromptResult"),
    literal("GetPromptRequestParams"),
    literal("ReadResourceResult"),
    literal("ReadResourceRequestParams"),
    literal("InitializeResult"),
    literal("ServerInfo"),
    literal("InitializeRequestParams"),
    literal("ClientInfo"),
    literal("Implementation"),
    literal("ServerCapabilities"),
    literal("ClientCapabilities"),
    literal("Tool"),
    literal("ToolAnnotations"),
    literal("Prompt"),
    literal("PromptArgument"),
    literal("PromptMessage"),
    literal("Annotations"),
    literal("SamplingMessage"),
    literal("CreateMessageRequestParams"),
    literal("CreateMessageResult"),
    literal("ModelPreferences"),
    literal("ModelHint"),
    literal("ListRootsResult"),
    literal("Root"),
    literal("Icon"),
    literal("CompleteResult"),
    literal("PaginatedRequestParams"),
    literal("SetLevelRequestParams"),
    // 2.0 (#927, the 2025-11-25 model): the annotated wrappers and prompt roles went, no alias.
    Change {
        since: V2,
        pr: 927,
        note: ELICIT_RESULT,
        ..literal("CreateElicitationResult")
    },
    Change {
        since: V2,
        pr: 927,
        note: ELICIT_RESULT,
        ..literal("ElicitResult")
    },
    item(V2, 927, "Content", "ContentBlock", MODEL_2_0),
    item(V2, 927, "PromptMessageRole", "Role", MODEL_2_0),
    item(V2, 927, "RawResource", "Resource", "renamed in 2.0 (#927): `Resource` is no longer an `Annotated<RawResource>`"),
    item(V2, 927, "RawResourceTemplate", "ResourceTemplate", "renamed in 2.0 (#927): `ResourceTemplate` is no longer an `Annotated<RawResourceTemplate>`"),
    Change {
        since: V2,
        pr: 927,
        kind: Kind::DropCall,
        old: "no_annotation",
        new: "",
        bare: true,
        note: "resources carry their annotations themselves since 2.0 (#927); `.no_annotation()` is gone and not needed",
    },
    Change {
        since: V2,
        pr: 927,
        kind: Kind::DropImport,
        old: "AnnotateAble",
        new: "",
        bare: true,
        note: "rmcp 2.0 removed `Annotated` and its `AnnotateAble` trait (#927); its `.no_annotation()` calls go with it",
    },
    Change {
        since: V2,
        pr: 927,
        kind: Kind::Variant { of: "ServerRequest" },
        old: "CreateElicitationRequest",
        new: "ElicitRequest",
        bare: true,
        note: "renamed in 2.0 (#927), with no alias",
    },
    // 3.0: the deprecated aliases went (#1066).
    item(V3, 1066, "InitializeRequestParam", "InitializeRequestParams", PARAM_0_13),
    item(V3, 1066, "PaginatedRequestParam", "PaginatedRequestParams", PARAM_0_13),
    item(V3, 1066, "ReadResourceRequestParam", "ReadResourceRequestParams", PARAM_0_13),
    item(V3, 1066, "SubscribeRequestParam", "SubscribeRequestParams", PARAM_0_13),
    item(V3, 1066, "UnsubscribeRequestParam", "UnsubscribeRequestParams", PARAM_0_13),
    item(V3, 1066, "GetPromptRequestParam", "GetPromptRequestParams", PARAM_0_13),
    item(V3, 1066, "SetLevelRequestParam", "SetLevelRequestParams", PARAM_0_13),
    item(V3, 1066, "CreateMessageRequestParam", "CreateMessageRequestParams", PARAM_0_13),
    item(V3, 1066, "CompleteRequestParam", "CompleteRequestParams", PARAM_0_13),
    item(V3, 1066, "CallToolRequestParam", "CallToolRequestParams", PARAM_0_13),
    item(V3, 1066, "CreateElicitationRequestParam", "ElicitRequestParams", PARAM_0_13),
    item(V3, 1066, "CreateElicitationRequestParams", "ElicitRequestParams", RENAMED_2_0),
    item(V3, 1066, "CreateElicitationResult", "ElicitResult", RENAMED_2_0),
    item(V3, 1066, "CreateElicitationRequest", "ElicitRequest", RENAMED_2_0),
    item(V3, 1066, "SamplingMessageContent", "SamplingMessageContentBlock", RENAMED_2_0),
    item(V3, 1066, "ResourceReference", "ResourceTemplateReference", RENAMED_2_0),
    item(V3, 1066, "PrimitiveSchema", "PrimitiveSchemaDefinition", RENAMED_2_0),
    Change {
        bare: false,
        ..item(V3, 1066, "Error", "ErrorData", "`rmcp::Error` was a deprecated alias of `ErrorData`; 3.0 removed it")
    },
    Change {
        bare: false,
        ..item(V3, 1066, "Meta", "MetaObject", "`Meta` was a deprecated re-export of `MetaObject`; 3.0 removed it")
    },
    removed(V3, 1066, "required_enum", "use `required_enum_schema(name, EnumSchema::builder(values).build())`; `required_enum` was deprecated in 0.13 and 3.0 removed it"),
    removed(V3, 1066, "optional_enum", "use `optional_enum_schema(name, EnumSchema::builder(values).build())`; `optional_enum` was deprecated in 0.13 and 3.0 removed it"),
    removed(V3, 1066, "TokioChildProcessOut", "use `TokioChildProcess` as a `Transport` directly; its `split()` and `TokioChildProcessOut` were deprecated and 3.0 removed them"),
    removed(V3, 1066, "ExpectedInitializedNotification", "the server no longer waits for `notifications/initialized` (since 1.4); drop the match arm"),
    removed(V3, 1066, "UnsupportedProtocolVersion", "negotiation falls back to the server's version (since 1.8); drop the match arm"),
    removed(V3, 915, "on_url_elicitation_notification_complete", "rmcp 3.0 removed `notifications/elicitation/complete` with MRTR (SEP-2322): a server finishes a URL-mode elicitation by answering the client's retry; drop the `ClientHandler` method"),
    // 3.0: MRTR (#929): the three requests that may ask for input return a response enum.
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult { method: "call_tool" },
        old: "CallToolResult",
        new: "CallToolResponse",
        bare: true,
        note: "`ServerHandler::call_tool` returns `CallToolResponse` since 3.0 (MRTR, SEP-2322); `CallToolResult` converts into it",
    },
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult { method: "get_prompt" },
        old: "GetPromptResult",
        new: "GetPromptResponse",
        bare: true,
        note: "`ServerHandler::get_prompt` returns `GetPromptResponse` since 3.0 (MRTR, SEP-2322); `GetPromptResult` converts into it",
    },
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult { method: "read_resource" },
        old: "ReadResourceResult",
        new: "ReadResourceResponse",
        bare: true,
        note: "`ServerHandler::read_resource` returns `ReadResourceResponse` since 3.0 (MRTR, SEP-2322); `ReadResourceResult` converts into it",
    },
    // 3.0: streamable HTTP sessions (#999, #1015).
    Change {
        since: V3,
        pr: 1015,
        kind: Kind::Method,
        old: "with_stateful_mode",
        new: "with_legacy_session_mode",
        bare: true,
        note: "renamed in 3.0 (#999, #1015): the option only affects protocol versions before 2026-07-28",
    },
    // 3.0: the OAuth client takes one request value (#1009).
    Change {
        since: V3,
        pr: 1009,
        kind: Kind::CallArgs {
            arity: 3,
            template: "rmcp::transport::AuthorizationRequest::new({2}){1*.with_scopes(($).iter().copied())}{3?.with_client_name($)}",
        },
        old: "start_authorization",
        new: "",
        bare: true,
        note: "`OAuthState::start_authorization` takes one `AuthorizationRequest` since 3.0 (#1009): \
`AuthorizationRequest::new(redirect_uri)` with `.with_scopes(..)` and `.with_client_name(..)`",
    },
    // 3.0: the SEP-2663 tasks extension replaced the 1.x/2.x tasks API (#1020).
    removed(V3, 1020, "OperationProcessor", TASKS),
    removed(V3, 1020, "OperationResultTransport", TASKS),
    removed(V3, 1020, "OperationDescriptor", TASKS),
    removed(V3, 1020, "task_handler", TASKS),
    removed(V3, 1020, "enqueue_task", TASKS),
    removed(V3, 1020, "get_task_info", TASKS),
    removed(V3, 1020, "get_task_result", TASKS),
    removed(V3, 1020, "list_tasks", TASKS),
    // A tool's task support (`Tool::execution`, `ToolExecution`, `TaskSupport`) went with the
    // 2.x tasks API.
    removed(V3, 1020, "TaskSupport", TASKS),
    removed(V3, 1020, "ToolExecution", TASKS),
    // A custom HTTP client for the streamable HTTP transport: resuming a stateless response
    // has no session.
    Change {
        since: V3,
        pr: 1024,
        kind: Kind::ImplSignature { of: "StreamableHttpClient" },
        old: "get_stream",
        new: "",
        bare: true,
        note: "rmcp 3.0 (#1024) made `StreamableHttpClient::get_stream` take `session_id: Option<Arc<str>>` (`None` when a stateless response is resumed by its event id alone): change the parameter and send the session header only when there is one",
    },
    // What a peer's `peer_info()` hands back.
    Change {
        since: V2,
        pr: 862,
        kind: Kind::MethodResult { client_only: false },
        old: "peer_info",
        new: "",
        bare: true,
        note: "rmcp 2.0 (#862) made `peer_info()` return `Option<Arc<..>>` instead of a reference: a value borrowed from it cannot leave the closure that reads it; clone what you keep",
    },
    Change {
        since: V3,
        pr: 1065,
        kind: Kind::MethodResult { client_only: true },
        old: "peer_info",
        new: "",
        bare: true,
        note: "rmcp 3.0 (#1065) gives a client `ServerPeerInfo` from `peer_info()`: its `server_info` is an `Option<Implementation>` (a server need not send one); read `info.server_info.as_ref()`",
    },
    // OAuth discovery reports where its metadata came from.
    removed(V3, 1041, "discover_metadata", "rmcp 3.0 replaced `AuthorizationManager::discover_metadata()` with `resolve_metadata()` (#1041), which returns an `AuthorizationMetadataResolution`: read its metadata from that value"),
    // `Annotated<T>` went in 2.0, as `AnnotateAble` did (a row of its own above).
    removed(V2, 927, "Annotated", "rmcp 2.0 removed `Annotated<T>` (#927): `Resource`, `ResourceTemplate` and the content types carry their `annotations` field themselves; build them with their own constructors"),
];

/// A Cargo feature of rmcp that went away.
#[derive(Debug, Clone, Copy)]
pub struct FeatureChange {
    pub since: Version,
    pub pr: u32,
    pub old: &'static str,
    /// The feature that takes its place; `None`: drop it.
    pub new: Option<&'static str>,
}

pub static FEATURES: &[FeatureChange] = &[
    FeatureChange {
        since: V0_11,
        pr: 562,
        old: "transport-sse-server",
        new: Some("transport-streamable-http-server"),
    },
    FeatureChange {
        since: V0_11,
        pr: 562,
        old: "transport-sse-client",
        new: Some("transport-streamable-http-client"),
    },
    FeatureChange {
        since: V0_11,
        pr: 562,
        old: "transport-sse-client-reqwest",
        new: Some("transport-streamable-http-client-reqwest"),
    },
];

/// The rows for an old name, in table order. The rules ask for every path segment they see, so the
/// table is indexed by name once.
pub fn changes_named(old: &str) -> impl Iterator<Item = &'static Change> {
    static BY_NAME: std::sync::LazyLock<
        std::collections::HashMap<&'static str, Vec<&'static Change>>,
    > = std::sync::LazyLock::new(|| {
        let mut m: std::collections::HashMap<&'static str, Vec<&'static Change>> =
            Default::default();
        for c in all_changes() {
            m.entry(c.old).or_default().push(c);
        }
        m
    });
    BY_NAME.get(old).into_iter().flatten().copied()
}

/// Whether a change concerns a package whose rmcp is `version` (locked, else the lowest its
/// requirement admits). Below the release that made it, the code has to change on the way up. At
/// or above it, a renamed or reshaped spelling no longer compiles, so seeing it means the
/// requirement was bumped ahead of the code: it still applies. So does a removed name the code
/// clearly takes from rmcp (`strong`: a `use` line or a module path from rmcp, a method of an rmcp
/// handler trait); one that only a glob import or a method name ties to rmcp is not rmcp's on an
/// rmcp without it. Without a version (no manifest), the spelling alone decides.
pub fn applies(change: &Change, version: Option<Version>, strong: bool) -> bool {
    match version {
        Some(v) if v >= change.since => strong || !matches!(change.kind, Kind::Removed),
        _ => true,
    }
}

/// The old names of the table that stand in a file as whole identifiers, by what can hit them.
/// Every name a rule compares with the table (a path segment, a method, a struct literal's type)
/// is an identifier of the file's text, so a class with no name here has nothing to find in the
/// file and its checks can be skipped: on an rmcp 3.x server that is most of them, and walking
/// every path, pattern and signature for nothing was a twentieth of the all-parse bench.
#[derive(Debug, Default, Clone)]
pub struct NamesInFile {
    /// Names with an `Item`, `Removed` or `Variant` change: what a path segment can hit.
    pub paths: Vec<&'static str>,
    /// Names with a `StructLiteral` change.
    pub structs: Vec<&'static str>,
    /// Names with a change a method call can hit (`Method`, `DropCall`, `Removed`, `CallArgs`,
    /// `MethodResult`).
    pub methods: Vec<&'static str>,
}

impl NamesInFile {
    /// The table's names standing in `text` as whole identifiers. `idents`: the identifiers of
    /// the text's code, when a pass before listed them (a subset of the runs scanned otherwise
    /// that still holds every identifier syn can see).
    pub fn of(text: &[u8], idents: Option<&[std::ops::Range<usize>]>) -> NamesInFile {
        /// The names by their bytes, and for each first byte the lengths names starting with it
        /// have (a bit per length): most identifiers are ruled out by one bit test, unhashed.
        struct Names {
            by_bytes: crate::model::fast_hash::HashMap<&'static [u8], &'static str>,
            lengths: [u64; 256],
        }
        static NAMES: std::sync::LazyLock<Names> = std::sync::LazyLock::new(|| {
            let mut names = Names {
                by_bytes: Default::default(),
                lengths: [0; 256],
            };
            for c in all_changes() {
                names.by_bytes.insert(c.old.as_bytes(), c.old);
                let first = c.old.as_bytes().first().copied().unwrap_or(0);
                names.lengths[usize::from(first)] |= 1 << c.old.len().min(63);
            }
            names
        });
        let names = &*NAMES;
        let mut out = NamesInFile::default();
        let scanned;
        let runs = match idents {
            Some(idents) => idents,
            None => {
                scanned = ident_runs(text);
                &scanned
            }
        };
        for r in runs {
            let word = &text[r.clone()];
            if names.lengths[usize::from(word[0])] & (1 << word.len().min(63)) == 0 {
                continue;
            }
            let Some(&name) = names.by_bytes.get(word) else {
                continue;
            };
            for c in changes_named(name) {
                let list = match c.kind {
                    Kind::Item | Kind::Variant { .. } => &mut out.paths,
                    Kind::StructLiteral => &mut out.structs,
                    Kind::Method
                    | Kind::DropCall
                    | Kind::CallArgs { .. }
                    | Kind::MethodResult { .. } => &mut out.methods,
                    Kind::Removed => {
                        push_once(&mut out.paths, name);
                        &mut out.methods
                    }
                    Kind::DropImport | Kind::HandlerResult { .. } | Kind::ImplSignature { .. } => {
                        continue
                    }
                };
                push_once(list, name);
            }
        }
        out
    }
}

/// Every maximal run of identifier bytes (in code, strings and comments alike: a superset of the
/// identifiers syn sees).
fn ident_runs(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let is_ident = crate::reading::lexer::is_ident;
    let mut runs = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !is_ident(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && is_ident(text[i]) {
            i += 1;
        }
        runs.push(start..i);
    }
    runs
}

fn push_once(list: &mut Vec<&'static str>, name: &'static str) {
    if !list.contains(&name) {
        list.push(name);
    }
}

/// The names the prefilter must let through: a file using none of them has nothing to upgrade.
/// Names too common to claim bare (`Error`) are left out: as triggers they would admit nearly
/// every file and keep nearly every fn body; a file must show another name of the table for them
/// to be looked at.
/// The old names of the changes whose name rmcp 3.x still has (a handler's result type, a struct
/// that became `#[non_exhaustive]`, a method or trait method whose types changed): in code already
/// on 3.x they are ordinary names.
pub fn current_names() -> impl Iterator<Item = &'static str> {
    all_changes()
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                Kind::HandlerResult { .. }
                    | Kind::StructLiteral
                    | Kind::MethodResult { .. }
                    | Kind::ImplSignature { .. }
            )
        })
        .map(|c| c.old)
}

pub fn trigger_names() -> impl Iterator<Item = &'static str> {
    all_changes().iter().filter(|c| c.bare).map(|c| c.old)
}

/// How to build a struct rmcp made `#[non_exhaustive]` (MCP204) from the fields of its old
/// literal, with the constructor and `with_*` methods of rmcp 3.x. A literal with a field not
/// listed here, or a value of a shape the row cannot carry over, keeps the display-only guidance.
pub struct Builder {
    pub ty: &'static str,
    /// The constructor, and the fields it takes in order.
    pub ctor: &'static str,
    pub args: &'static [&'static str],
    /// `(field, ctor)`: the constructor to use instead when the `Option<bool>` field is
    /// `Some(true)` (`CallToolResult::error`); `None` or `Some(false)` keep [`Builder::ctor`].
    pub switch: Option<(&'static str, &'static str)>,
    /// `Option` fields with a setter: `Some(x)` becomes `.method(x)`, `None` nothing.
    pub options: &'static [(&'static str, &'static str)],
    /// Fields whose value goes to a setter as it is.
    pub plain: &'static [(&'static str, &'static str)],
    /// `Option` fields without a setter: only `None` (what the constructor leaves) carries over.
    pub none_only: &'static [&'static str],
    /// Fields whose parameter is `impl Into<String>`: a trailing `.into()` on the value is
    /// dropped, or the call would not infer its type.
    pub into_string: &'static [&'static str],
}

const INITIALIZE_RESULT: Builder = Builder {
    ty: "InitializeResult",
    ctor: "new",
    args: &["capabilities"],
    switch: None,
    options: &[("instructions", "with_instructions")],
    plain: &[
        ("server_info", "with_server_info"),
        ("protocol_version", "with_protocol_version"),
    ],
    none_only: &["meta"],
    into_string: &["instructions"],
};

/// The builders of rmcp 3.11, read from its source (`impl X { pub fn new .. pub fn with_.. }`).
pub static BUILDERS: &[Builder] = &[
    INITIALIZE_RESULT,
    // The 1.x alias of `InitializeResult`: `ServerInfo::new(..)` resolves through it.
    Builder {
        ty: "ServerInfo",
        ..INITIALIZE_RESULT
    },
    Builder {
        ty: "Implementation",
        ctor: "new",
        args: &["name", "version"],
        switch: None,
        options: &[
            ("title", "with_title"),
            ("description", "with_description"),
            ("icons", "with_icons"),
            ("website_url", "with_website_url"),
        ],
        plain: &[],
        none_only: &[],
        into_string: &["name", "version", "title", "description", "website_url"],
    },
    Builder {
        ty: "CallToolResult",
        ctor: "success",
        args: &["content"],
        switch: Some(("is_error", "error")),
        options: &[],
        plain: &[("meta", "with_meta")],
        none_only: &["structured_content"],
        into_string: &[],
    },
    Builder {
        ty: "ElicitResult",
        ctor: "new",
        args: &["action"],
        switch: None,
        options: &[("content", "with_content"), ("meta", "with_meta")],
        plain: &[],
        none_only: &[],
        into_string: &[],
    },
    Builder {
        ty: "ListRootsResult",
        ctor: "new",
        args: &["roots"],
        switch: None,
        options: &[("meta", "with_meta")],
        plain: &[],
        none_only: &[],
        into_string: &[],
    },
    Builder {
        ty: "GetPromptResult",
        ctor: "new",
        args: &["messages"],
        switch: None,
        options: &[("description", "with_description")],
        plain: &[],
        none_only: &["meta"],
        into_string: &["description"],
    },
    Builder {
        ty: "ReadResourceResult",
        ctor: "new",
        args: &["contents"],
        switch: None,
        options: &[],
        plain: &[],
        none_only: &["meta"],
        into_string: &[],
    },
    Builder {
        ty: "CreateMessageResult",
        ctor: "new",
        args: &["message", "model"],
        switch: None,
        options: &[("stop_reason", "with_stop_reason")],
        plain: &[],
        none_only: &[],
        into_string: &["stop_reason"],
    },
];

/// The builder row of the struct named `ty`.
pub fn builder(ty: &str) -> Option<&'static Builder> {
    BUILDERS.iter().find(|b| b.ty == ty)
}
