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
    /// A method of rmcp trait `of` that user types implement (`ServerHandler::call_tool`,
    /// `IntoCallToolResult::into_call_tool_result`) whose result type changed from `old` to `new`
    /// (MCP202, unsafe: the body is kept and its result converted with `Into`).
    HandlerResult {
        method: &'static str,
        of: &'static str,
    },
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
    ///
    /// `borrow`: a method that turns the new result back into the old one for code that borrows
    /// from it (`.as_deref()`: `Option<Arc<T>>` to `Option<&T>`), appended where the call is
    /// followed by `.and_then(..)` or `.map(..)`, whose closure may return a borrow of its
    /// argument (E0515 on the new result; unsafe: the borrow now ends with the statement).
    ///
    /// `optional`: a field of the result that became an `Option`; read in an
    /// `.and_then(|info| ..)` closure (which returns an `Option`), `info.field.x` becomes
    /// `info.field.as_ref()?.x` (unsafe: a peer without it now gives `None` there).
    MethodResult {
        client_only: bool,
        borrow: Option<&'static str>,
        optional: Option<&'static str>,
    },
    /// A generic wrapper that is gone, its contents folded into the wrapped type (`Annotated<T>`:
    /// since 2.0 `Resource` carries its `annotations` itself). `Old<T>` becomes `T` and the `use`
    /// leaf goes (MCP201, safe); `Old::new(x, a)` and `Old { inner: x, extra: a }` become `x` when
    /// `a` is `None` (safe) or absent, `x.setter(v)` when it is `Some(v)` (unsafe); any other
    /// spelling keeps the guidance.
    Unwrapped {
        inner: &'static str,
        extra: &'static str,
        setter: &'static str,
    },
    /// A type gone with no counterpart, whose values only fed a field that went with it
    /// (`TaskSupport`, read by the removed `Tool::execution`): its paths become `()`, type and
    /// value alike, so code that hands the value around still compiles (MCP203, unsafe). Only the
    /// `variants` whose meaning is what 3.x does anyway get the fix (`Forbidden`: a plain call);
    /// any other (`Required`) keeps the guidance, as does the `use` leaf's removal aside.
    Unit { variants: &'static [&'static str] },
    /// A field that is gone with its type: `x.old = v;`, where `v` names `marker` (the field's
    /// removed type, which ties the field to rmcp), is deleted (MCP203, unsafe: the value is
    /// dropped).
    DroppedField { marker: &'static str },
    /// A function that returned `Result<T, _>` and returns `T` now: the error handling on its
    /// call (`.unwrap()`, `.expect(..)`, `.unwrap_or_else(..)`, `.unwrap_or(..)`,
    /// `.unwrap_or_default()`, `?`) is dropped (MCP205, unsafe: the fallback goes with it);
    /// any other use of the result keeps the guidance.
    Infallible,
    /// An enum that became `#[non_exhaustive]` (generated rows): a `match` on it without a
    /// wildcard arm no longer compiles outside rmcp (MCP204). When its arms name every one of
    /// the enum's `variants` on 3.x, the fix adds `_ => unreachable!(..)` (unsafe: a variant a
    /// later rmcp adds would reach it); otherwise the guidance stays.
    ExhaustiveMatch { variants: &'static [&'static str] },
    /// A field of struct `of` that became an `Option` under the same name: a value logged with
    /// tracing's `%` (Display) becomes `?` (Debug, which `Option` has; MCP205, unsafe: the log
    /// line reads `Some(..)`); any other read of it gets the guidance, in a package below the
    /// release (on or above it, the name alone says nothing).
    NowOption { of: &'static str },
    /// An async method replaced by `new`, whose result holds the old one: `.old().await` becomes
    /// `.new().await` followed by `map` (MCP205, unsafe: the new method may do more on the way).
    MethodMapped { map: &'static str },
    /// A method that is gone, whose answer code of the release's API gives: `recv.old(a0, ..)`
    /// becomes `with`, `$` standing for the receiver's text and `$0`, `$1`, .. for the
    /// arguments' (in parentheses when the call is itself the receiver of more; MCP205, unsafe:
    /// the new call may answer a case the old one did not). A call with another number of
    /// arguments than the template names is left alone. Below the release only: at or above
    /// it, a method of that name is another type's. `receiver`: the field path the receiver
    /// must end in (`message.content`) for a method name other types keep (`as_text`).
    Replaced {
        with: &'static str,
        receiver: Option<&'static str>,
    },
    /// A method of rmcp trait `of` that rmcp no longer calls: its `impl` in user code is deleted
    /// (MCP203, unsafe: the body goes with it, though nothing would ever run it).
    DroppedMethod { of: &'static str },
    /// An argument of rmcp's attribute macro `attr` that the macro no longer takes
    /// (`#[tool(execution(task_support = ".."))]`, read off the macro crate's attribute struct at
    /// each release): the argument is deleted (MCP203, unsafe: what it configured goes with it).
    MacroArg { attr: &'static str },
    /// A builder method of the gone `Annotated<T>` wrapper (`with_audience`, `with_priority`)
    /// called on a content value made by one of `constructors` (`Content::text(..)`): since the
    /// wrapper went, the content is an enum and its annotations are set on the typed content it
    /// holds, whose type is `typed` for the constructor of the same index. The chain becomes
    /// `ContentBlock::Text(TextContent::new(..).with_annotations(Annotations::default()
    /// .with_audience(..)))` (MCP205, unsafe).
    AnnotationMethod {
        constructors: &'static [&'static str],
        typed: &'static [(&'static str, &'static str)],
    },
    /// A struct that stayed exhaustive but gained fields (`ListPromptsResult`'s cache hints and
    /// result type): a literal that names every old field and has no base no longer compiles
    /// (E0063). Rmcp 3.x gives it `Default`, whose values are what its own constructors set, so
    /// the fix appends `..Default::default()` (MCP204, unsafe: the new fields get those values).
    GainedFields { fields: &'static [&'static str] },
    /// A struct that became `#[non_exhaustive]`: a struct literal of it no longer compiles outside
    /// rmcp (MCP204, display-only: its constructor's arguments differ per struct).
    StructLiteral,
    /// A field of struct (or struct variant) `old` whose type changed to one its old value
    /// converts into (`From`): `meta` of a request's params, a `MetaObject` before 3.0 and a
    /// `RequestMetaObject` since. A literal's `field: Some(e)` becomes `Some(e.into())`, any other
    /// value `v` but `None` becomes `v.map(Into::into)` (MCP204, unsafe).
    FieldInto { field: &'static str },
    /// A numeric field of the structs `of` that rmcp widened under the same name (`from` to
    /// `to`, both inside an `Option`): a rebuilt literal converts the old value with `From`; a
    /// read of it into a field of the crate's own struct that still has the old type (E0308) is
    /// converted back with `try_from`, `None` when it does not fit (MCP205, unsafe). `read`:
    /// how a literal's field reads it (`.size,`), the text that keeps a fn body for the rule.
    Widened {
        of: &'static [&'static str],
        from: &'static str,
        to: &'static str,
        read: &'static [&'static str],
    },
    /// A field of rmcp's handler contexts whose type became a newtype over what the field was
    /// (`meta`: `Meta` before 3.0, `RequestMetaObject(MetaObject)` since, `MetaObject` being the
    /// old `Meta`'s name). Read through, it derefs as before; taken whole (`ctx.meta.clone()`),
    /// it is the newtype, and `.0` is the old value (MCP205, safe). At or above the release only
    /// where the file still names the `was` type that the whole value fed. `taken`: how code
    /// takes it whole, the text that keeps a fn body for the rule.
    Newtyped {
        was: &'static str,
        taken: &'static str,
    },
}

/// The methods that handle a `Result` and give its value (`Kind::Infallible`): on a call that
/// now returns the value itself, one of them is what no longer compiles.
pub const RESULT_HANDLERS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or_else",
    "unwrap_or",
    "unwrap_or_default",
];

/// The methods of an `Option` whose closure (their last argument) gets the value: a method's
/// changed result is read there (`peer_info().map(|info| ..)`).
pub const OPTION_CLOSURE_READS: [&str; 5] =
    ["map", "and_then", "is_some_and", "map_or", "map_or_else"];

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

/// The field path of a sampling message's content, which 0.15 (#628) made one block or several
/// (`SamplingContent`): what the old single `Content` was read by through it changed with it.
pub const SAMPLED_CONTENT: &str = "message.content";

/// Whether `path` names a variant of a content enum by any of its names across releases
/// (`RawContent::Text`, `ContentBlock::Text`, `Content::Image`): what a sampled content's
/// `.raw` was matched against.
pub fn names_content_variant(path: &syn::Path) -> bool {
    path.segments.iter().rev().nth(1).is_some_and(|s| {
        ["RawContent", "ContentBlock", "Content"]
            .iter()
            .any(|c| s.ident == c)
    })
}

/// Whether a receiver's text (`result.message.content`, spaces and line breaks allowed) ends
/// in the field path a [`Kind::Replaced`] row asks for.
pub fn receiver_ends_in(text: &str, path: &str) -> bool {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact == path || compact.ends_with(&format!(".{path}"))
}

/// The number of arguments a [`Kind::Replaced`] template names (`$0`, `$1`, ..).
pub fn replaced_arity(with: &str) -> usize {
    (0..10)
        .take_while(|i| with.contains(&format!("${i}")))
        .count()
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

const TOOL_TASKS: &str = "rmcp 3.0 dropped a tool's own task support (`Tool::execution`, \
`ToolExecution`, `TaskSupport`) with the 2.x tasks API: under the SEP-2663 tasks extension the \
server advertises tasks once (`ServerCapabilities::builder().enable_tasks()`) and its \
`rmcp::task_manager::TaskManager` decides per call; a tool that required a task must be served \
through it";

const ELICITATION_COMPLETE: &str = "rmcp 3.0 removed `notifications/elicitation/complete` \
with MRTR (SEP-2322): a server finishes a URL-mode elicitation by answering the client's retry, so \
no client is told of it any more; drop the `ClientHandler` method and its \
`ElicitationResponseNotificationParam`";

const fn gained(old: &'static str) -> Change {
    Change {
        since: V3,
        pr: 889,
        kind: Kind::GainedFields {
            fields: &["result_type", "ttl_ms", "cache_scope"],
        },
        old,
        new: "",
        bare: true,
        note: "rmcp 3.0 gave the paginated results `result_type` (#1038) and the cache hints \
`ttl_ms` and `cache_scope` (#889): finish the literal with `..Default::default()` (what \
`with_all_items` sets), or build it with `with_all_items(..)`",
    }
}

/// A builder of `Annotated<T>` called on a content value (see `Kind::AnnotationMethod`).
const fn annotation_method(old: &'static str) -> Change {
    Change {
        since: V2,
        pr: 927,
        kind: Kind::AnnotationMethod {
            constructors: &["text", "image", "audio"],
            typed: &[
                ("Text", "TextContent"),
                ("Image", "ImageContent"),
                ("Audio", "AudioContent"),
            ],
        },
        old,
        new: "",
        bare: false,
        note: "rmcp 2.0 removed `Annotated` (#927): a content block is an enum, and its \
annotations are set on the typed content it holds (`TextContent::new(..).with_annotations(..)`)",
    }
}

/// A request's params (struct or enum variant) whose `meta` became a `RequestMetaObject` in 3.0.
const fn request_meta(old: &'static str) -> Change {
    Change {
        since: V3,
        pr: 993,
        kind: Kind::FieldInto { field: "meta" },
        old,
        new: "",
        bare: true,
        note: "rmcp 3.0 gave requests their own metadata type (#993): `meta` takes a \
`RequestMetaObject`, which a `MetaObject` converts into (`.into()`)",
    }
}

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
    /// The parameters of its `new(..)` on rmcp 3.x, where each sets the field of its name (and
    /// the constructor leaves the other fields empty): a literal becomes `new(..)` plus field
    /// assignments. None without such a constructor.
    pub new: Option<&'static [&'static str]>,
    /// The parameters of `new(..)` that take `impl Into<..>` (a value's `.into()` is dropped
    /// there: the target type would be ambiguous).
    pub new_into: &'static [&'static str],
}

/// An enum rmcp made `#[non_exhaustive]` (`rmcp_structs.rs`, generated with the struct rows).
pub struct EnumRow {
    pub name: &'static str,
    pub since: Version,
    pub pr: u32,
    /// Its variants on rmcp 3.x.
    pub variants: &'static [&'static str],
}

/// A public item a release of rmcp took away (`rmcp_structs.rs`, generated from rmcp's sources at
/// each release since 0.8): its name no longer occurs in the crate. The hand-written [`CHANGES`]
/// say more where they name it (a fix, a note); a row of its own gives the finding and the pull
/// request.
pub struct GoneRow {
    pub name: &'static str,
    pub since: Version,
    pub pr: u32,
    /// The name a `#[deprecated]` alias pointed it to before it went (a rename).
    pub renamed_to: Option<&'static str>,
}

/// A Cargo feature of rmcp that a release dropped (generated with the rows above).
pub struct FeatureGone {
    pub name: &'static str,
    pub since: Version,
    pub pr: u32,
}

/// The generated struct row named `name`.
pub fn struct_row(name: &str) -> Option<&'static StructRow> {
    // A literal under a plain alias of the model (`ServerInfo` = `InitializeResult`, generated
    // with the rows) is built by its struct's row; the alias stays in the code the fix writes.
    let name = super::rmcp_structs::MODEL_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, of)| of);
    super::rmcp_structs::STRUCTS.iter().find(|r| r.name == name)
}

const MADE_NON_EXHAUSTIVE_2_0: &str =
    "rmcp 2.0 made more model structs `#[non_exhaustive]` (#927): \
build it with `::default()` and set its fields, or with its constructor";

const GONE_RENAMED: &str = "renamed: rmcp kept a deprecated alias for a while, then removed it \
(rows generated from rmcp's sources at each release)";
const GONE_REMOVED: &str = "rmcp removed it with no alias (rows generated from rmcp's sources at \
each release): see the pull request for what takes its place";

const MADE_NON_EXHAUSTIVE: &str = "this rmcp release made it `#[non_exhaustive]` (the rows \
are read from rmcp's sources at each release): build it with its constructor (`::new(..)`, or \
`::default()`) and the `with_*` methods, or set fields on a built value";
const MATCH_LATER: &str = "this rmcp release made the enum `#[non_exhaustive]`: a `match` on \
it needs a `_` arm; handle what a later variant should do there";
const MATCH_1_0: &str = "rmcp 1.0 made its public enums `#[non_exhaustive]` (#715): a `match` \
on one needs a `_` arm; handle what a later variant should do there";
const MATCH_2_0: &str = "rmcp 2.0 made more model enums `#[non_exhaustive]` (#927): a `match` \
on one needs a `_` arm; handle what a later variant should do there";

/// [`CHANGES`] and a struct-literal change for every generated struct row the hand-written
/// table does not name.
/// The rows of `Kind::MacroArg`: a handful, asked of every attribute of every fn, so kept as
/// their own list rather than looked up by a name made into a `String` each time.
pub fn dropped_macro_args() -> &'static [&'static Change] {
    static ROWS: std::sync::LazyLock<Vec<&'static Change>> = std::sync::LazyLock::new(|| {
        all_changes()
            .iter()
            .filter(|c| matches!(c.kind, Kind::MacroArg { .. }))
            .collect()
    });
    &ROWS
}

/// The rows of `Kind::AnnotationMethod`, asked of every method call (as [`dropped_macro_args`]).
pub fn annotation_builders() -> &'static [&'static Change] {
    static ROWS: std::sync::LazyLock<Vec<&'static Change>> = std::sync::LazyLock::new(|| {
        all_changes()
            .iter()
            .filter(|c| matches!(c.kind, Kind::AnnotationMethod { .. }))
            .collect()
    });
    &ROWS
}

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
                note: match row.pr {
                    927 => MADE_NON_EXHAUSTIVE_2_0,
                    715 => literal("").note,
                    _ => MADE_NON_EXHAUSTIVE,
                },
            });
        }
        // The model's plain aliases of those structs (`ServerConfig` = `InitializeResult`): a
        // literal under one is a literal of the struct. Not bare: `ServerConfig` is a word other
        // crates have (russh's), so only an alias imported from rmcp counts.
        for (alias, of) in super::rmcp_structs::MODEL_ALIASES {
            if all
                .iter()
                .any(|c| c.old == *alias && c.kind == Kind::StructLiteral)
            {
                continue;
            }
            let Some(row) = all
                .iter()
                .find(|c| c.old == *of && c.kind == Kind::StructLiteral)
                .cloned()
            else {
                continue;
            };
            all.push(Change {
                old: alias,
                bare: false,
                ..row
            });
        }
        // Items a release took away that the hand-written rows do not name: a rename where a
        // deprecated alias said where it went, else guidance. Not bare: a generated name counts
        // only imported by name or under a path from rmcp (`Sealed`, `TaskList` are words other
        // crates have). Lower-case names are methods and fns, which other types have too: only
        // a path from rmcp (`rmcp::transport::..::serve_with_config`) reaches them.
        for row in super::rmcp_structs::GONE {
            if all.iter().any(|c| c.old == row.name) {
                continue;
            }
            all.push(Change {
                since: row.since,
                pr: row.pr,
                kind: if row.renamed_to.is_some() {
                    Kind::Item
                } else {
                    Kind::Removed
                },
                old: row.name,
                new: row.renamed_to.unwrap_or(""),
                bare: false,
                note: if row.renamed_to.is_some() {
                    GONE_RENAMED
                } else {
                    GONE_REMOVED
                },
            });
        }
        for row in super::rmcp_structs::ENUMS {
            all.push(Change {
                since: row.since,
                pr: row.pr,
                kind: Kind::ExhaustiveMatch {
                    variants: row.variants,
                },
                old: row.name,
                new: "",
                bare: true,
                note: match row.pr {
                    927 => MATCH_2_0,
                    715 => MATCH_1_0,
                    _ => MATCH_LATER,
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
    // 0.15: URL-mode elicitation (#605) replaced the yes/no capability test with the modes the
    // client declared.
    Change {
        kind: Kind::Replaced {
            with: "!$.supported_elicitation_modes().is_empty()",
            receiver: None,
        },
        ..removed(Version(0, 15, 0), 605, "supports_elicitation", "rmcp 0.15 replaced `Peer::supports_elicitation()` with `supported_elicitation_modes()` (URL-mode elicitation, SEP-1036): test `!peer.supported_elicitation_modes().is_empty()`, or for one mode `.contains(&ElicitationMode::Form)`")
    },
    // 0.15: sampling with tools (#628, SEP-1577) made a sampling message's `content` one block
    // or several (`SamplingContent`); the old single `Content`'s text is the first block's.
    Change {
        kind: Kind::Replaced {
            with: "$.first().and_then(|c| c.as_text())",
            receiver: Some(SAMPLED_CONTENT),
        },
        ..removed(Version(0, 15, 0), 628, "as_text", "rmcp 0.15 made a sampling message's `content` a `SamplingContent` (one content block or several, SEP-1577): read the first block's text with `.content.first().and_then(|c| c.as_text())`")
    },
    // 2.0: `Annotated` went (#927); the annotated types carry their `annotations` themselves.
    Change {
        kind: Kind::Replaced {
            with: "{ let mut annotated = $; annotated.annotations = $0; annotated }",
            receiver: None,
        },
        ..removed(V2, 927, "optional_annotate", "rmcp 2.0 removed `Annotated` and `AnnotateAble` (#927): a resource or content carries its `annotations` field itself; set it on the value")
    },
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
    // `Content` was `Annotated<RawContent>`: the enum a content's `.raw` held is the content
    // itself since, with the same variants (`.raw` in a scrutinee is dropped by the rule).
    item(V2, 927, "RawContent", "ContentBlock", "renamed in 2.0 (#927): a content block is the enum itself, no longer an `Annotated<RawContent>`"),
    item(V2, 927, "RawTextContent", "TextContent", "renamed in 2.0 (#927): `TextContent` is no longer an `Annotated<RawTextContent>`"),
    item(V2, 927, "RawImageContent", "ImageContent", "renamed in 2.0 (#927): `ImageContent` is no longer an `Annotated<RawImageContent>`"),
    item(V2, 927, "RawAudioContent", "AudioContent", "renamed in 2.0 (#927): `AudioContent` is no longer an `Annotated<RawAudioContent>`"),
    item(V2, 927, "RawEmbeddedResource", "EmbeddedResource", "renamed in 2.0 (#927): `EmbeddedResource` is no longer an `Annotated<RawEmbeddedResource>`"),
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
    // `Annotated<T>`'s builders, which 2.0 moved onto `Annotations` (#927).
    annotation_method("with_audience"),
    annotation_method("with_priority"),
    annotation_method("with_timestamp"),
    annotation_method("with_timestamp_now"),
    // `ToolAttribute::execution` in rmcp-macros, gone at 3.0 with the tasks it configured.
    Change {
        kind: Kind::MacroArg { attr: "tool" },
        bare: false,
        ..removed(V3, 1020, "execution", "rmcp 3.0 moved tasks to the Tasks extension (#1020, SEP-2663): `#[tool]` no longer takes `execution(..)`, and the tool is called as any other; drop the argument")
    },
    Change {
        kind: Kind::DroppedMethod { of: "ClientHandler" },
        ..removed(V3, 915, "on_url_elicitation_notification_complete", ELICITATION_COMPLETE)
    },
    // The notification's parameters went with it; a `use` of them is all a client has left once
    // the method is gone.
    Change {
        kind: Kind::DropImport,
        ..removed(V3, 915, "ElicitationResponseNotificationParam", ELICITATION_COMPLETE)
    },
    // 3.0: MRTR (#929): the three requests that may ask for input return a response enum.
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult {
            method: "call_tool",
            of: "ServerHandler",
        },
        old: "CallToolResult",
        new: "CallToolResponse",
        bare: true,
        note: "`ServerHandler::call_tool` returns `CallToolResponse` since 3.0 (MRTR, SEP-2322); `CallToolResult` converts into it",
    },
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult {
            method: "get_prompt",
            of: "ServerHandler",
        },
        old: "GetPromptResult",
        new: "GetPromptResponse",
        bare: true,
        note: "`ServerHandler::get_prompt` returns `GetPromptResponse` since 3.0 (MRTR, SEP-2322); `GetPromptResult` converts into it",
    },
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult {
            method: "read_resource",
            of: "ServerHandler",
        },
        old: "ReadResourceResult",
        new: "ReadResourceResponse",
        bare: true,
        note: "`ServerHandler::read_resource` returns `ReadResourceResponse` since 3.0 (MRTR, SEP-2322); `ReadResourceResult` converts into it",
    },
    // The conversion rmcp's tool router calls on a tool's return value, which servers implement
    // for their own wrappers.
    Change {
        since: V3,
        pr: 929,
        kind: Kind::HandlerResult {
            method: "into_call_tool_result",
            of: "IntoCallToolResult",
        },
        old: "CallToolResult",
        new: "CallToolResponse",
        bare: true,
        note: "`IntoCallToolResult::into_call_tool_result` returns `CallToolResponse` since 3.0 (MRTR, SEP-2322); `CallToolResult` converts into it",
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
    // 3.x has no per-tool task support: a task is what the server's `TaskManager` makes of a
    // `tools/call`, under a capability of the whole server. `Forbidden` (the 2.x default) and
    // `Optional` both mean a plain call works, which is all 3.x does without the extension.
    Change {
        kind: Kind::Unit {
            variants: &["Forbidden", "Optional"],
        },
        ..removed(V3, 1020, "TaskSupport", TOOL_TASKS)
    },
    removed(V3, 1020, "ToolExecution", TOOL_TASKS),
    Change {
        kind: Kind::DroppedField {
            marker: "ToolExecution",
        },
        ..removed(V3, 1020, "execution", TOOL_TASKS)
    },
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
        kind: Kind::MethodResult {
            client_only: false,
            borrow: Some(".as_deref()"),
            optional: None,
        },
        old: "peer_info",
        new: "",
        bare: true,
        note: "rmcp 2.0 (#862) made `peer_info()` return `Option<Arc<..>>` instead of a reference: a value borrowed from it cannot leave the closure that reads it; clone what you keep",
    },
    Change {
        since: V3,
        pr: 1065,
        kind: Kind::MethodResult {
            client_only: true,
            borrow: None,
            optional: Some("server_info"),
        },
        old: "peer_info",
        new: "",
        bare: true,
        note: "rmcp 3.0 (#1065) gives a client `ServerPeerInfo` from `peer_info()`: its `server_info` is an `Option<Implementation>` (a server need not send one); read `info.server_info.as_ref()`",
    },
    // 3.0 (SEP-2106): an output schema need not be an object, so there is nothing to reject.
    Change {
        since: V3,
        pr: 895,
        kind: Kind::Infallible,
        old: "schema_for_output",
        new: "",
        bare: true,
        note: "`schema_for_output::<T>()` returns the schema itself since 3.0 (#895, SEP-2106): an output schema need not be an object, so it no longer fails; drop the error handling on its result",
    },
    // 2.0 (#927): `notifications/cancelled` may name a task instead of a request.
    Change {
        since: V2,
        pr: 927,
        kind: Kind::NowOption {
            of: "CancelledNotificationParam",
        },
        old: "request_id",
        new: "",
        bare: false,
        note: "`CancelledNotificationParam::request_id` is an `Option<RequestId>` since 2.0 (#927): log it with `?`, or read it with `if let Some(id) = &param.request_id`",
    },
    // 3.0: the paginated results carry a result type (#1038, SEP-2322) and cache hints (#889,
    // SEP-2549). They are written by a macro in rmcp, out of the generated table's reach.
    gained("ListToolsResult"),
    gained("ListPromptsResult"),
    gained("ListResourcesResult"),
    gained("ListResourceTemplatesResult"),
    // 2.0 (#927): a resource's size may pass 4 GiB.
    Change {
        since: V2,
        pr: 927,
        kind: Kind::Widened {
            of: &["Resource", "RawResource"],
            from: "u32",
            to: "u64",
            read: &[".size,", ".size }"],
        },
        old: "size",
        new: "",
        bare: false,
        note: "a resource's `size` is an `Option<u64>` since 2.0 (#927): widen the field that keeps it, or convert with `u32::try_from`",
    },
    // 3.0 (#993): a handler context's `meta` is the request's (or notification's) own newtype.
    Change {
        since: V3,
        pr: 993,
        kind: Kind::Newtyped {
            was: "Meta",
            taken: ".meta.clone()",
        },
        old: "meta",
        new: "",
        bare: false,
        note: "`RequestContext::meta` is a `RequestMetaObject` and `NotificationContext::meta` a `NotificationMetaObject` since 3.0 (#993), each a newtype over `MetaObject` (the old `Meta`): read `.meta.0` where the whole map is taken",
    },
    // 3.0: a request's `meta` is a `RequestMetaObject` (#993). The enum variants have no builder
    // to move to, so their literals stay and only the value converts.
    request_meta("FormElicitationParams"),
    request_meta("UrlElicitationParams"),
    // OAuth discovery reports where its metadata came from.
    Change {
        since: V3,
        pr: 1041,
        kind: Kind::MethodMapped {
            map: ".map(|resolved| resolved.metadata)",
        },
        old: "discover_metadata",
        new: "resolve_metadata",
        bare: true,
        note: "rmcp 3.0 replaced `AuthorizationManager::discover_metadata()` with `resolve_metadata()` (#1041), which returns an `AuthorizationMetadataResolution`: read its `metadata` from that value",
    },
    // `Annotated<T>` went in 2.0, as `AnnotateAble` did (a row of its own above).
    Change {
        kind: Kind::Unwrapped {
            inner: "raw",
            extra: "annotations",
            setter: "with_annotations",
        },
        ..removed(V2, 927, "Annotated", "rmcp 2.0 removed `Annotated<T>` (#927): `Resource`, `ResourceTemplate` and the content types carry their `annotations` field themselves; write the wrapped type, and set its annotations with `.with_annotations(..)`")
    },
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

/// A crate whose types rmcp's public API takes or gives, at the major rmcp 3.x depends on: a
/// package that depends on it itself, to hand its values to rmcp, must be on the same major, or
/// its values are another crate's types to rustc (E0277).
#[derive(Debug, Clone, Copy)]
pub struct Companion {
    pub name: &'static str,
    /// The requirement rmcp 3.x has, written where the package's admits only older releases.
    pub requirement: &'static str,
    pub pr: u32,
}

pub static COMPANIONS: &[Companion] = &[
    // `TokioChildProcess::new` / `::builder` take a `process_wrap::tokio::CommandWrap`.
    Companion {
        name: "process-wrap",
        requirement: "10.0",
        pr: 1229,
    },
];

/// The rows for an old name, in table order. The rules ask for every path segment they see, so the
/// table is indexed by name once.
pub fn changes_named(old: &str) -> impl Iterator<Item = &'static Change> {
    static BY_NAME: std::sync::LazyLock<
        crate::model::fast_hash::HashMap<&'static str, Vec<&'static Change>>,
    > = std::sync::LazyLock::new(|| {
        let mut m: crate::model::fast_hash::HashMap<&'static str, Vec<&'static Change>> =
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
        Some(v) if v >= change.since => {
            strong
                || !matches!(
                    change.kind,
                    Kind::Removed
                        | Kind::Replaced { .. }
                        | Kind::DroppedMethod { .. }
                        | Kind::Unit { .. }
                        | Kind::Unwrapped { .. }
                        | Kind::DroppedField { .. }
                )
        }
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
    /// Where a name of `paths` or `structs` stands, in order (byte offsets): what the rule's
    /// checks of a fn's signature and patterns can hit, so a fn holding none is not walked.
    pub path_or_struct_at: Vec<usize>,
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
                // Every run of identifier bytes, in code, strings and comments alike: a superset
                // of the identifiers syn sees.
                scanned = crate::reading::lexer::ident_runs(text).collect::<Vec<_>>();
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
                // Which of the rule's gated checks can report the row: `check_path` (paths),
                // `struct_literal` (structs), `method_call` (methods). The other rows are read by
                // checks that look at every node of their kind (impls, matches, assignments,
                // calls, fields, macros), so they need no list.
                let list = match c.kind {
                    Kind::Item
                    | Kind::Variant { .. }
                    | Kind::Unit { .. }
                    | Kind::Unwrapped { .. } => &mut out.paths,
                    Kind::StructLiteral | Kind::GainedFields { .. } | Kind::FieldInto { .. } => {
                        &mut out.structs
                    }
                    Kind::Method
                    | Kind::DropCall
                    | Kind::CallArgs { .. }
                    | Kind::MethodResult { .. }
                    | Kind::MethodMapped { .. }
                    | Kind::Replaced { .. } => &mut out.methods,
                    Kind::Removed => {
                        push_once(&mut out.paths, name);
                        &mut out.methods
                    }
                    // A gone trait's bounds (`T: AnnotateAble`) are paths.
                    Kind::DropImport => &mut out.paths,
                    Kind::HandlerResult { .. }
                    | Kind::ImplSignature { .. }
                    | Kind::DroppedMethod { .. }
                    | Kind::MacroArg { .. }
                    | Kind::AnnotationMethod { .. }
                    | Kind::Infallible
                    | Kind::ExhaustiveMatch { .. }
                    | Kind::NowOption { .. }
                    | Kind::Newtyped { .. }
                    | Kind::Widened { .. }
                    | Kind::DroppedField { .. } => continue,
                };
                push_once(list, name);
            }
            if out.paths.contains(&name) || out.structs.contains(&name) {
                out.path_or_struct_at.push(r.start);
            }
        }
        out
    }
}

fn push_once(list: &mut Vec<&'static str>, name: &'static str) {
    if !list.contains(&name) {
        list.push(name);
    }
}

/// The old names too common to take for rmcp's unless the file imports them by name (`Meta`,
/// `Error`): a fn body that uses one is worth parsing only in a file whose `use` of rmcp names it.
/// Listed once for the process: every file of a package below 3.x asks.
pub fn imported_only_names() -> &'static [&'static str] {
    static NAMES: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        all_changes()
            .iter()
            .filter(|c| !c.bare && !matches!(c.kind, Kind::NowOption { .. }))
            .map(|c| c.old)
            .collect()
    });
    &NAMES
}

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
                    | Kind::GainedFields { .. }
                    | Kind::FieldInto { .. }
                    | Kind::ExhaustiveMatch { .. }
                    | Kind::NowOption { .. }
                    | Kind::MethodResult { .. }
                    | Kind::ImplSignature { .. }
            )
        })
        .flat_map(|c| match c.kind {
            Kind::NowOption { of } => [Some(of), Some(c.old)],
            _ => [Some(c.old), None],
        })
        .flatten()
}

/// The names the prefilter must let through: a file using none of them has nothing to upgrade.
/// Names too common to claim bare (`Error`) are left out: as triggers they would admit nearly
/// every file and keep nearly every fn body; a file must show another name of the table for them
/// to be looked at.
pub fn trigger_names() -> impl Iterator<Item = &'static str> {
    // A field that became an `Option`: the struct it belongs to admits the file, and the field
    // keeps the body that reads it (`%param.request_id` in a handler whose body names nothing
    // else of rmcp's).
    all_changes()
        .iter()
        .flat_map(|c| match c.kind {
            Kind::NowOption { of } => [Some(of), Some(c.old)],
            // A wrapper's field read through (`resource.raw.uri`) and the old type a newtyped
            // field fed (`Meta`) are what old code shows on a manifest bumped by hand.
            Kind::Unwrapped { inner, .. } => [c.bare.then_some(c.old), Some(inner)],
            Kind::Newtyped { was, taken } => [Some(was), Some(taken)],
            _ => [c.bare.then_some(c.old), None],
        })
        .flatten()
        .chain(
            all_changes()
                .iter()
                .flat_map(|c| match c.kind {
                    Kind::Widened { read, .. } => read,
                    _ => &[],
                })
                .copied(),
        )
        // The model's aliases admit a file (its literal may be all it shows of rmcp), though
        // only one imported from rmcp is claimed.
        .chain(
            super::rmcp_structs::MODEL_ALIASES
                .iter()
                .map(|(alias, _)| *alias),
        )
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
    ///
    /// An `Option` field whose value is not written out (`logger` held in a variable) cannot go to
    /// its setter; when the struct's generated row lists it as a public field on 3.x, it is
    /// assigned on the built value instead.
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
    // 2.0 folded `Annotated<RawResource>` into `Resource` (#927), which has no `Default`.
    Builder {
        ty: "Resource",
        ctor: "new",
        args: &["uri", "name"],
        switch: None,
        options: &[
            ("title", "with_title"),
            ("description", "with_description"),
            ("mime_type", "with_mime_type"),
            ("size", "with_size"),
            ("icons", "with_icons"),
            ("meta", "with_meta"),
            ("annotations", "with_annotations"),
        ],
        plain: &[],
        none_only: &[],
        into_string: &["uri", "name", "title", "description", "mime_type"],
    },
    Builder {
        ty: "ResourceTemplate",
        ctor: "new",
        args: &["uri_template", "name"],
        switch: None,
        options: &[
            ("title", "with_title"),
            ("description", "with_description"),
            ("mime_type", "with_mime_type"),
            ("icons", "with_icons"),
            ("meta", "with_meta"),
            ("annotations", "with_annotations"),
        ],
        plain: &[],
        none_only: &[],
        into_string: &["uri_template", "name", "title", "description", "mime_type"],
    },
    // 0.x `PromptMessage { role: PromptMessageRole::User, content: PromptMessageContent::text(..) }`:
    // both types went in 2.0 (#865) for `Role` and `ContentBlock` ([`FIELD_VALUES`]).
    Builder {
        ty: "PromptMessage",
        ctor: "new",
        args: &["role", "content"],
        switch: None,
        options: &[],
        plain: &[],
        none_only: &[],
        into_string: &[],
    },
    // 0.x-1.x `SamplingMessage { role, content: Content::text(..) }`: its content is a
    // `SamplingMessageContentBlock` since 2.0 ([`FIELD_VALUES`]).
    Builder {
        ty: "SamplingMessage",
        ctor: "new",
        args: &["role", "content"],
        switch: None,
        options: &[],
        plain: &[],
        none_only: &["meta"],
        into_string: &[],
    },
    Builder {
        ty: "ProgressNotificationParam",
        ctor: "new",
        args: &["progress_token", "progress"],
        switch: None,
        options: &[("total", "with_total"), ("message", "with_message")],
        plain: &[],
        none_only: &["meta"],
        into_string: &["message"],
    },
    Builder {
        ty: "LoggingMessageNotificationParam",
        ctor: "new",
        args: &["level", "data"],
        switch: None,
        options: &[("logger", "with_logger")],
        plain: &[],
        none_only: &["meta"],
        into_string: &["logger"],
    },
];

/// A field whose type moved to another enum while the struct kept its name: a value written as a
/// constructor of the old enum (`Content::text(..)` in a `SamplingMessage`, whose content is a
/// `SamplingMessageContentBlock` since 2.0, #927) is written with the new one's, when the struct
/// is rebuilt (MCP204). The prefixes cover the old enum under its 2.x name too, which MCP201 may
/// have written first in the same run.
pub struct FieldValue {
    pub ty: &'static str,
    pub field: &'static str,
    pub old: &'static [&'static str],
    pub new: &'static str,
}

pub static FIELD_VALUES: &[FieldValue] = &[
    FieldValue {
        ty: "SamplingMessage",
        field: "content",
        old: &["Content::text(", "ContentBlock::text(", "RawContent::text("],
        new: "SamplingMessageContentBlock::text(",
    },
    // 2.0 (#865) dropped the prompt's own enums for the shared ones; `ContentBlock` has both of
    // `PromptMessageContent`'s constructors, with the same arguments.
    FieldValue {
        ty: "PromptMessage",
        field: "content",
        old: &["PromptMessageContent::text("],
        new: "ContentBlock::text(",
    },
    FieldValue {
        ty: "PromptMessage",
        field: "content",
        old: &["PromptMessageContent::resource_link("],
        new: "ContentBlock::resource_link(",
    },
    FieldValue {
        ty: "PromptMessage",
        field: "role",
        old: &["PromptMessageRole::"],
        new: "Role::",
    },
];

/// `value` (a field's text in a literal of `ty`) in the type the field has on 3.x.
pub fn field_value(ty: &str, field: &str, value: &str) -> Option<String> {
    FIELD_VALUES
        .iter()
        .filter(|v| v.ty == ty && v.field == field)
        .find_map(|v| {
            v.old
                .iter()
                .find_map(|o| value.strip_prefix(o))
                .map(|rest| format!("{}{rest}", v.new))
        })
}

/// The type field `field` of struct `ty` was widened to (a [`Kind::Widened`] row).
pub fn widened(ty: &str, field: &str) -> Option<&'static str> {
    changes_named(field).find_map(|c| match c.kind {
        Kind::Widened { of, to, .. } if of.contains(&ty) => Some(to),
        _ => None,
    })
}

/// Structs renamed into an enum whose struct variant has their fields: 0.x's struct
/// `CreateElicitationRequestParams` (alias `..Param`) became, in 0.15, an enum of the form and URL
/// modes (URL elicitation), its fields those of the `FormElicitationParams` variant; 2.0 renamed
/// the enum `ElicitRequestParams`. A literal or pattern of the old name (which compiles only on
/// 0.x) then names the variant; every other path, the enum.
static STRUCT_VARIANTS: &[(&str, &str)] = &[("ElicitRequestParams", "FormElicitationParams")];

/// The variant a struct renamed to `new` became (see [`STRUCT_VARIANTS`]).
pub fn struct_became_variant(new: &str) -> Option<&'static str> {
    STRUCT_VARIANTS
        .iter()
        .find(|(n, _)| *n == new)
        .map(|(_, v)| *v)
}

/// The builder row of the struct named `ty`.
pub fn builder(ty: &str) -> Option<&'static Builder> {
    BUILDERS.iter().find(|b| b.ty == ty)
}

/// What a package's code shows of the rmcp it was written for, whatever its manifest says: the
/// usual way a server meets the upgrade is a bump (by hand, Dependabot, Renovate) that raises the
/// requirement and leaves the code as it was. `Some(r)`: the text holds a spelling that stopped
/// compiling in release `r` (the lowest such), so the code was written for an rmcp below it.
///
/// Three kinds of evidence, each a spelling no code written for `r` or later can hold:
/// - an old name that rmcp renamed (`CallToolRequestParam`, `PromptMessageRole`,
///   `.no_annotation()`), standing alone; names too common to claim (`Content`, `Error`) and
///   names removed with no successor (free for another type once rmcp lacks them) are left out;
/// - a struct literal of a struct rmcp made `#[non_exhaustive]` (`CallToolResult { .. }`),
///   not a pattern (`Tool { name, .. } =>`, which still compiles);
/// - a `ServerHandler` method declaring the result type it had before MRTR
///   (`fn call_tool(..) -> Result<CallToolResult, ..>`).
///
/// A byte scan, with no parse: it may read a comment as code, which costs no more than a look
/// the rules then make on their own.
pub fn written_below(text: &[u8]) -> Option<Version> {
    // The names are whole identifiers, so a name stands alone exactly where a run of identifier
    // bytes equals it: one pass over the runs and a lookup each, not an automaton with too many
    // patterns for its SIMD search (that scan was 28 instructions per byte of every package file).
    struct Evidence {
        /// Each name's index in `rows`.
        names: crate::model::fast_hash::HashMap<&'static [u8], usize>,
        shapes: crate::reading::lexer::Shapes,
        /// Per name: the releases it stopped compiling in, each with how to confirm it.
        rows: Vec<Vec<(Version, Shape)>>,
    }
    #[derive(Clone, Copy)]
    enum Shape {
        Name,
        Literal,
        HandlerResult { method: &'static str },
    }
    static EVIDENCE: std::sync::LazyLock<Option<Evidence>> = std::sync::LazyLock::new(|| {
        let mut names: Vec<&'static str> = Vec::new();
        let mut rows: Vec<Vec<(Version, Shape)>> = Vec::new();
        let mut add = |name: &'static str, since: Version, shape: Shape| match names
            .iter()
            .position(|n| *n == name)
        {
            Some(i) => rows[i].push((since, shape)),
            None => {
                names.push(name);
                rows.push(vec![(since, shape)]);
            }
        };
        let current: Vec<&str> = current_names().collect();
        for c in all_changes() {
            if !c.bare || !distinctive(c.old) {
                continue;
            }
            match c.kind {
                Kind::StructLiteral => add(c.old, c.since, Shape::Literal),
                Kind::HandlerResult { method, .. } => {
                    add(c.old, c.since, Shape::HandlerResult { method })
                }
                // A name removed with no successor (`OperationProcessor`, `SseServer`) is no
                // evidence: once rmcp lacks it, the same name is free for the package's own type
                // or another crate's, which a glob import may bring in. A renamed one is.
                Kind::Item
                | Kind::Variant { .. }
                | Kind::Method
                | Kind::DropCall
                | Kind::DropImport
                | Kind::Unwrapped { .. }
                | Kind::MethodMapped { .. }
                // A method replaced by another call (`supports_elicitation()`, 0.15) is evidence
                // too: rmcp gave it a successor, so code calling it was written before. Not one
                // replaced on one field only (`message.content.as_text()`): other types keep it.
                | Kind::Replaced { receiver: None, .. }
                    if !current.contains(&c.old) =>
                {
                    add(c.old, c.since, Shape::Name)
                }
                _ => {}
            }
        }
        // Only identifier bytes: a name must be a whole run to match, so the run
        // `CallToolRequestParams` is that literal, never the shorter old name that is its prefix.
        debug_assert!(names
            .iter()
            .all(|n| n.bytes().all(crate::reading::lexer::is_ident)));
        Some(Evidence {
            shapes: crate::reading::lexer::Shapes::of(names.iter().map(|n| n.as_bytes())),
            names: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_bytes(), i))
                .collect(),
            rows,
        })
    });
    let ev = EVIDENCE.as_ref()?;
    let mut lowest: Option<Version> = None;
    for run in crate::reading::lexer::ident_runs(text) {
        let word = &text[run.clone()];
        if !ev.shapes.may_be(word) {
            continue;
        }
        let Some(&i) = ev.names.get(word) else {
            continue;
        };
        let (start, end) = (run.start, run.end);
        // A comment or string that names an old API (`// was Annotated<RawContent>`, an error
        // message quoting `CallToolRequestParam`) is prose, not code: read as evidence it would
        // lower the version for every rule of the package.
        if crate::reading::lexer::in_line_prose(text, start) {
            continue;
        }
        for &(since, shape) in &ev.rows[i] {
            if lowest.is_some_and(|l| l <= since) {
                continue;
            }
            let confirmed = match shape {
                Shape::Name => true,
                Shape::Literal => literal_at(text, start, end),
                Shape::HandlerResult { method } => old_handler_result(text, start, method),
            };
            if confirmed {
                lowest = Some(since);
            }
        }
    }
    lowest
}

/// A name that no other crate's code is likely to hold: two words or more (`RawResource`,
/// `no_annotation`), not one (`Content`, `Annotated`, `execution`).
fn distinctive(name: &str) -> bool {
    name.contains('_') || name.chars().skip(1).any(|c| c.is_ascii_uppercase())
}

/// Whether the name at `start..end` opens a struct literal: `Name {` (or `path::Name {`) in an
/// expression, not a declaration (`struct Name {`, `impl Name {`, `for Name {`) nor a pattern
/// that stops with `..` (`Name { a, .. }`, which compiles on a non-exhaustive struct).
fn literal_at(text: &[u8], start: usize, end: usize) -> bool {
    let after = skip_space(text, end);
    if text.get(after) != Some(&b'{') {
        return false;
    }
    let before = previous_word(text, start);
    if matches!(
        before,
        b"struct" | b"impl" | b"for" | b"enum" | b"trait" | b"union" | b"mod" | b"dyn"
    ) {
        return false;
    }
    // `-> Name {` is a fn's return type before its body.
    let mut i = start;
    while i > 0 && (text[i - 1] == b':' || crate::reading::lexer::is_ident(text[i - 1])) {
        i -= 1;
    }
    let prev = text[..i].iter().rev().find(|b| !b.is_ascii_whitespace());
    if prev == Some(&b'>') {
        return false;
    }
    // The body up to its closing brace: a pattern's rest is `..` right before it.
    let mut depth = 0usize;
    for (k, &b) in text[after..].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    let body = &text[after..after + k];
                    let trimmed = body.trim_ascii_end();
                    return !trimmed.ends_with(b"..") && !trimmed.ends_with(b"..,");
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether the old result type at `at` stands in the signature of a fn named `method`: the text
/// since the nearest `fn` before it names the method and holds no `{` or `;`.
fn old_handler_result(text: &[u8], at: usize, method: &str) -> bool {
    let from = at.saturating_sub(600);
    let window = &text[from..at];
    // The last `fn `: each `f` from the end, found with SIMD, and its next two bytes compared
    // (a two-way search backwards took ten instructions a byte, on every window of every mention
    // of a result type in every file of the package).
    let Some(fn_at) =
        memchr::memrchr_iter(b'f', window).find(|&i| window[i + 1..].starts_with(b"n "))
    else {
        return false;
    };
    let sig = &window[fn_at + 3..];
    let name_end = sig
        .iter()
        .position(|b| !crate::reading::lexer::is_ident(*b))
        .unwrap_or(sig.len());
    &sig[..name_end] == method.as_bytes() && !sig.contains(&b'{') && !sig.contains(&b';')
}

fn skip_space(text: &[u8], mut i: usize) -> usize {
    while text.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The identifier that ends right before `at`, across white space (empty if none).
fn previous_word(text: &[u8], at: usize) -> &[u8] {
    let mut end = at;
    while end > 0 && text[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && crate::reading::lexer::is_ident(text[start - 1]) {
        start -= 1;
    }
    &text[start..end]
}

/// The highest release below `r`: the version a package showing code for below `r` is taken to
/// be on, so every row from `r` on applies to it (and none before it, which the code has passed).
pub fn just_below(r: Version) -> Version {
    match r {
        Version(a, b, c) if c > 0 => Version(a, b, c - 1),
        Version(a, b, _) if b > 0 => Version(a, b - 1, u64::from(u16::MAX)),
        Version(a, _, _) => Version(a.saturating_sub(1), u64::from(u16::MAX), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn below(text: &str) -> Option<Version> {
        written_below(text.as_bytes())
    }

    #[test]
    fn code_shows_the_release_it_was_written_below() {
        // An alias 3.0 removed, a wrapper 2.0 removed, a literal 1.0 forbade: the lowest wins.
        assert_eq!(
            below("fn f(p: CallToolRequestParam) {}"),
            Some(Version(3, 0, 0))
        );
        assert_eq!(
            below("let r = PromptMessageRole::User; let p: CallToolRequestParam;"),
            Some(Version(2, 0, 0))
        );
        assert_eq!(
            below("Ok(CallToolResult { content, is_error: None })"),
            Some(Version(1, 0, 0))
        );
        assert_eq!(
            below("async fn call_tool(&self, r: R, c: C) -> Result<CallToolResult, ErrorData> {"),
            Some(Version(3, 0, 0))
        );
        // A method 0.15 replaced with another call.
        assert_eq!(
            below("if context.peer.supports_elicitation() {"),
            Some(Version(0, 15, 0))
        );
        // A longer name of which an old one is a prefix is read whole.
        assert_eq!(below("fn f(p: CallToolRequestParams) {}"), None);
        // Code after a string that closed on its line is code again.
        assert_eq!(
            below("let s = \"//\"; fn f(p: CallToolRequestParam) {}"),
            Some(Version(3, 0, 0))
        );
    }

    #[test]
    fn near_misses_are_no_evidence() {
        for text in [
            // Declarations, a fn's return type before its body, a pattern with a rest.
            "pub struct CallToolResult { x: u8 }",
            "impl CallToolResult { }",
            "fn f() -> CallToolResult { todo!() }",
            "let CallToolResult { content, .. } = r;",
            // A single word other crates have too; an old name inside a longer one.
            "let c = Content::text(\"x\"); enum Annotated {}",
            "struct MyCallToolRequestParamX;",
            // Another method's result, the 3.x result type.
            "fn list_tools() -> Result<CallToolResult, E>;",
            "async fn call_tool(&self) -> Result<CallToolResponse, E> { CallToolResult::success(v) }",
            // Prose: a comment that names the old API, a doc comment after code.
            "// 1.x took a CallToolRequestParam here\nfn f() {}",
            "let x = 1; /// was PromptMessageRole::User",
            // Prose in a string: an error message that quotes the old name.
            "return Err(\"expected a CallToolRequestParam\".into());",
        ] {
            assert_eq!(below(text), None, "{text}");
        }
    }

    #[test]
    fn just_below_a_release_is_above_every_earlier_one() {
        for r in [
            Version(3, 0, 0),
            Version(1, 3, 0),
            Version(0, 11, 0),
            Version(2, 2, 1),
        ] {
            let b = just_below(r);
            assert!(b < r, "{r}");
            assert!(b >= Version(r.0.saturating_sub(1), 0, 0), "{r}");
        }
        assert!(just_below(Version(3, 0, 0)) > Version(2, 2, 0));
        assert!(just_below(Version(1, 3, 0)) > Version(1, 2, 9));
    }
}
