//! MCP201-203 by the package's rmcp: the same source needs an upgrade under rmcp 1.x/2.x, is stale
//! code under a requirement already raised to 3.x, and is nobody's business in a package without
//! rmcp. The fixes of `tests/upgrade_fixed.rs` ride on these findings.

use std::path::Path;

use mcp_lint::finding::Report;
use mcp_lint::{fix, fix_driver, lint_paths, Settings};

const SOURCE: &str = r#"use rmcp::model::*;
use rmcp::task_manager::OperationProcessor;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use rmcp::service::RequestContext;

struct S {
    processor: OperationProcessor,
}

fn hello() -> CallToolResult {
    CallToolResult::success(vec![Content::text("hi")])
}

impl ServerHandler for S {
    async fn read_resource(
        &self,
        request: ReadResourceRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, McpError> {
        if request.uri.is_empty() {
            return Err(McpError::invalid_params("empty", None));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text("x", request.uri)]))
    }
}
"#;

fn lint(deps: &str, lock: Option<&str>) -> Report {
    let report = lint_text(deps, lock, SOURCE);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    report
}

fn codes(r: &Report) -> Vec<(usize, &str)> {
    r.findings
        .iter()
        .filter(|f| f.code.starts_with("MCP2"))
        .map(|f| (f.line, f.code.as_str()))
        .collect()
}

/// `src` as `lib.rs` of a package without configuration, fixed with the unsafe fixes admitted.
fn fix_unsafe(src: &str) -> fix_driver::FileFix {
    fix_driver::fix_source(
        "lib.rs",
        src,
        &Settings::default(),
        fix::Allowed { unsafe_fixes: true },
    )
}

#[test]
fn below_the_changing_release_everything_fires() {
    let r = lint(r#"rmcp = "2.2""#, None);
    assert_eq!(
        codes(&r),
        vec![
            (2, "MCP203"),
            (7, "MCP203"),
            (11, "MCP201"),
            (17, "MCP201"),
            (19, "MCP202")
        ]
    );
    let f = &r.findings.iter().find(|f| f.line == 11).unwrap();
    assert!(
        f.message
            .contains("`Content` is `ContentBlock` in rmcp 2.0"),
        "{}",
        f.message
    );
    assert!(f.help.as_deref().unwrap().contains("#927"));
}

/// A removed name that only a glob import ties to rmcp.
const GLOB_ONLY: &str = "use rmcp::model::*;\nuse rmcp::task_manager::*;\n\nfn p() -> OperationProcessor {\n    OperationProcessor::new()\n}\n";

fn lint_text(deps: &str, lock: Option<&str>, text: &str) -> Report {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!("[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}\n"),
    )
    .unwrap();
    if let Some(v) = lock {
        std::fs::write(
            dir.path().join("Cargo.lock"),
            format!("version = 4\n\n[[package]]\nname = \"rmcp\"\nversion = \"{v}\"\n\n[[package]]\nname = \"s\"\nversion = \"0.1.0\"\ndependencies = [\"rmcp\"]\n"),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
    let settings = Settings {
        base_dir: dir.path().to_path_buf(),
        ..Settings::default()
    };
    lint_paths(&[dir.path().to_path_buf()], &settings)
}

#[test]
fn the_lock_decides_over_the_requirement() {
    // The requirement admits 2.2; below 3.0 the glob-imported tasks API is rmcp's.
    let r = lint_text(r#"rmcp = ">=2.2""#, None, GLOB_ONLY);
    assert_eq!(codes(&r), vec![(4, "MCP203"), (5, "MCP203")]);
    // Cargo resolved 3.11, which has no `OperationProcessor`: with another glob in the file the
    // name may be that one's.
    let other_glob = GLOB_ONLY.replace("\n\nfn", "\nuse crate::ops::*;\n\nfn");
    let r = lint_text(r#"rmcp = ">=2.2""#, Some("3.11.0"), &other_glob);
    assert_eq!(codes(&r), vec![]);
    // With rmcp's globs alone, nothing else can bring it: the code is older than its lock (a
    // bump by hand), and the name rmcp's old one.
    let r = lint_text(r#"rmcp = ">=2.2""#, Some("3.11.0"), GLOB_ONLY);
    assert_eq!(codes(&r), vec![(4, "MCP203"), (5, "MCP203")]);
}

#[test]
fn after_the_bump_stale_names_still_fire() {
    // On rmcp 3.11 none of it compiles: the requirement was raised ahead of the code. The removed
    // `OperationProcessor` is imported from rmcp by name, so it is stale code too.
    let r = lint(r#"rmcp = "3.11""#, Some("3.11.0"));
    assert_eq!(
        codes(&r),
        vec![
            (2, "MCP203"),
            (7, "MCP203"),
            (11, "MCP201"),
            (17, "MCP201"),
            (19, "MCP202")
        ]
    );
}

#[test]
fn a_package_without_rmcp_is_left_alone() {
    let r = lint(r#"serde = "1""#, None);
    assert_eq!(codes(&r), vec![]);
}

#[test]
fn the_handler_fix_keeps_the_body_and_converts_its_result() {
    let r = lint(r#"rmcp = "2.2""#, None);
    let f = r.findings.iter().find(|f| f.code == "MCP202").unwrap();
    let fix = f.fix.as_ref().unwrap();
    assert_eq!(fix.applicability, mcp_lint::finding::Applicability::Unsafe);
    let settings = Settings::default();
    let out = fix_driver::fix_source(
        "lib.rs",
        SOURCE,
        &settings,
        fix::Allowed { unsafe_fixes: true },
    );
    assert!(out.error.is_none(), "{:?}", out.error);
    let want = "    ) -> Result<ReadResourceResponse, McpError> {\n        let result: Result<ReadResourceResult, McpError> = async move {\n        if request.uri.is_empty() {";
    assert!(out.text.contains(want), "{}", out.text);
    assert!(
        out.text
            .contains("    }.await;\n        result.map(Into::into)\n    }\n}\n"),
        "{}",
        out.text
    );
    assert!(out.text.contains("vec![ContentBlock::text(\"hi\")]"));
    assert!(out.text.contains("request: ReadResourceRequestParams,"));
    // The removed API has guidance, never an edit.
    let removed = r.findings.iter().find(|f| f.code == "MCP203").unwrap();
    let fix = removed.fix.as_ref().unwrap();
    assert!(
        fix.edits.is_empty() && fix.message.contains("TaskManager"),
        "{fix:?}"
    );
    assert!(Path::new(&removed.path).ends_with("src/lib.rs"));
}

#[test]
fn catalog_fixed_examples_are_what_the_fix_writes() {
    for code in ["MCP201", "MCP202", "MCP203", "MCP204", "MCP205"] {
        let doc = mcp_lint::catalog::catalog().get(code).unwrap();
        let mut checked = 0;
        for ex in &doc.fire {
            let Some(want) = &ex.fixed else { continue };
            let out = fix_driver::fix_source(
                "example.rs",
                &ex.code,
                &Settings::default(),
                fix::Allowed { unsafe_fixes: true },
            );
            assert_eq!(&out.text, want, "{code}: {:?}", ex.description);
            checked += 1;
        }
        assert!(checked > 0, "{code} has no fixed example");
    }
}

#[test]
fn struct_literals_of_non_exhaustive_structs_are_built_or_get_guidance() {
    let fixed = |body: &str| {
        let src = format!("use rmcp::model::*;\n\nfn r(flag: Option<bool>) -> CallToolResult {{\n    {body}\n}}\n");
        let out = fix_unsafe(&src);
        let line = out.text.lines().nth(3).unwrap().trim().to_string();
        let left: Vec<_> = out
            .remaining
            .iter()
            .filter(|f| f.code == "MCP204")
            .cloned()
            .collect();
        (line, left)
    };
    let (line, left) =
        fixed("CallToolResult { content: vec![], is_error: None, ..Default::default() }");
    assert_eq!(line, "CallToolResult::success(vec![])");
    assert!(left.is_empty());
    let (line, _) = fixed(
        "rmcp::model::CallToolResult { content: vec![], is_error: Some(true), meta: None, structured_content: None }",
    );
    assert_eq!(line, "rmcp::model::CallToolResult::error(vec![])");
    // `Option::default()` in an `Option` field is `None`.
    let (line, _) =
        fixed("CallToolResult { content: vec![], is_error: None, meta: Option::default() }");
    assert_eq!(line, "CallToolResult::success(vec![])");
    // A flag no constructor can take: `default()` and the fields set, each as written.
    let src = "use rmcp::model::*;\n\nfn r(flag: Option<bool>) -> CallToolResult {\n    CallToolResult { content: vec![], is_error: flag }\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        "use rmcp::model::*;\n\nfn r(flag: Option<bool>) -> CallToolResult {\n    {\n        let mut ctr = CallToolResult::default();\n        ctr.content = vec![];\n        ctr.is_error = flag;\n        ctr\n    }\n}\n"
    );
    assert!(out.remaining.iter().all(|f| f.code != "MCP204"));
    // A value that reads a local of the binding's name: the binding takes another, or the
    // field would be set from the new value (`ctr.is_error = ctr.is_error`).
    let src = "use rmcp::model::*;\n\nfn r(ctr: &CallToolResult) -> CallToolResult {\n    CallToolResult { content: vec![], is_error: ctr.is_error }\n}\n";
    let out = fix_unsafe(src);
    assert!(
        out.text
            .contains("let mut ctr2 = CallToolResult::default();")
            && out.text.contains("ctr2.is_error = ctr.is_error;"),
        "{}",
        out.text
    );
    // Another base than `Default`, a field rmcp 3.x does not have: the literal stays, with the
    // guidance and the PR.
    for body in [
        "CallToolResult { content: vec![], ..other() }",
        "CallToolResult { content: vec![], is_error: None, extra: 1 }",
    ] {
        let (line, left) = fixed(body);
        assert_eq!(line, body);
        assert_eq!(left.len(), 1, "{body}");
        let fix = left[0].fix.as_ref().unwrap();
        assert_eq!(
            fix.applicability,
            mcp_lint::finding::Applicability::DisplayOnly
        );
        assert!(fix.message.contains("#715"), "{fix:?}");
    }
    // The reported position and the fix's kind.
    let src = "use rmcp::model::*;\n\nfn r() -> CallToolResult {\n    CallToolResult { content: vec![], is_error: None, ..Default::default() }\n}\n";
    let r = mcp_lint::lint_source("lib.rs", src.as_bytes(), &Settings::default());
    let f: Vec<_> = r.findings.iter().filter(|f| f.code == "MCP204").collect();
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!((f[0].line, f[0].column), (4, 5));
    let fix = f[0].fix.as_ref().unwrap();
    assert_eq!(fix.applicability, mcp_lint::finding::Applicability::Unsafe);
    assert_eq!(
        fix.message,
        "build `CallToolResult` with `CallToolResult::success(..)`"
    );
}

#[test]
fn associated_items_named_like_old_rmcp_names_are_not_rmcp_s() {
    let src = "use rmcp::model::*;\n\nfn f<S: serde::Serializer>(s: S) -> Result<S::Ok, S::Error> {\n    todo!()\n}\n\nimpl TryFrom<u8> for Role {\n    type Error = String;\n    fn try_from(_: u8) -> Result<Self, Self::Error> {\n        todo!()\n    }\n}\n\nfn g() -> rmcp::Error {\n    let _ = LoggingLevel::Error;\n    todo!()\n}\n\nfn h() {\n    let _ = Content::text(\"x\");\n}\n";
    let r = mcp_lint::lint_source("lib.rs", src.as_bytes(), &Settings::default());
    let lines: Vec<usize> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP201")
        .map(|f| f.line)
        .collect();
    // (`Content` makes the file pass the prefilter: `Error` is too common to be a trigger.)
    assert_eq!(lines, vec![14, 20], "{:#?}", r.findings);
}

#[test]
fn in_a_pass_the_upgrade_fix_goes_before_an_overlapping_mrtr_one() {
    use mcp_lint::finding::{Applicability, Edit, Finding, Fix, Level};
    let text = "fn f() { Content::text(1) }\n";
    let finding = |code: &str, end: usize, replacement: &str| Finding {
        code: code.into(),
        name: String::new(),
        level: Level::Error,
        path: "lib.rs".into(),
        line: 1,
        column: 10,
        end_line: 1,
        end_column: end + 1,
        message: String::new(),
        mcp_method: None,
        sdk: Some("rmcp".into()),
        help: None,
        fix: Some(Fix {
            applicability: Applicability::Unsafe,
            message: String::new(),
            edits: vec![Edit {
                start: 9,
                end,
                line: 1,
                column: 10,
                end_line: 1,
                end_column: end + 1,
                replacement: replacement.into(),
            }],
            other_files: Vec::new(),
        }),
    };
    // The MRTR finding comes first in the report; its edit covers the upgrade one's.
    let findings = vec![
        finding("MCP001", 25, "mrtr()"),
        finding("MCP201", 16, "ContentBlock"),
    ];
    let out = fix_driver::fix_text(
        "lib.rs",
        text,
        findings,
        fix::Allowed { unsafe_fixes: true },
        &mut |_| Vec::new(),
        false,
    );
    assert_eq!(out.text, "fn f() { ContentBlock::text(1) }\n");
    assert_eq!(out.fixed.len(), 1);
    assert_eq!(out.fixed[0].code, "MCP201");
}

#[test]
fn changed_arguments_are_rebuilt_from_the_old_ones_or_left_alone() {
    let fixed = |call: &str| {
        let src = format!("use rmcp::transport::auth::OAuthState;\n\nasync fn f(s: &mut OAuthState, uri: &str, name: Option<&str>) {{\n    let _ = s.{call}.await;\n}}\n");
        let out = fix_unsafe(&src);
        let line = out.text.lines().nth(3).unwrap().trim().to_string();
        (
            line,
            out.remaining
                .iter()
                .map(|f| f.code.clone())
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        fixed(r#"start_authorization(&["read", "write"], uri, None)"#),
        (
            r#"let _ = s.start_authorization(rmcp::transport::AuthorizationRequest::new(uri).with_scopes((&["read", "write"]).iter().copied())).await;"#.to_string(),
            vec![]
        )
    );
    // A client name that is neither `None` nor `Some(..)`: the template cannot read it.
    let (line, left) = fixed(r#"start_authorization(&[], uri, name)"#);
    assert_eq!(
        line,
        r#"let _ = s.start_authorization(&[], uri, name).await;"#
    );
    assert_eq!(left, vec!["MCP205".to_string()]);
}

#[test]
fn a_client_handler_method_rmcp_removed_and_an_elicit_result_literal() {
    let src = "use rmcp::model::*;\nuse rmcp::ClientHandler;\n\nstruct C;\n\nimpl ClientHandler for C {\n    async fn on_url_elicitation_notification_complete(&self) {}\n}\n\nfn cancel() -> CreateElicitationResult {\n    CreateElicitationResult { action: ElicitationAction::Cancel, content: None }\n}\n";
    let r = mcp_lint::lint_source("lib.rs", src.as_bytes(), &Settings::default());
    let got: Vec<(usize, &str)> = r
        .findings
        .iter()
        .map(|f| (f.line, f.code.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (7, "MCP203"),
            (10, "MCP201"),
            (11, "MCP201"),
            (11, "MCP204")
        ],
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_rename_onto_a_name_already_imported_drops_the_old_import_and_gone_traits_go() {
    let src = "use rmcp::model::{AnnotateAble, RawResource, Resource};\nuse rmcp::model::{Tool, RawResource as Raw};\nuse rmcp::model::AnnotateAble;\n\npub fn r(_: Tool, _: Raw) -> Vec<Resource> {\n    vec![RawResource::new(\"a\", \"b\").no_annotation()]\n}\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"1.7\"\n",
    )
    .unwrap();
    let package = mcp_lint::model::manifest::Package::read(&dir.path().join("Cargo.toml"))
        .unwrap()
        .map(std::sync::Arc::new);
    let settings = Settings {
        base_dir: dir.path().to_path_buf(),
        ..Settings::default()
    };
    let first =
        mcp_lint::lint::lint_source_in("lib.rs", src.as_bytes(), &settings, package.clone())
            .findings;
    let mut again = |t: &str| {
        mcp_lint::lint::lint_source_in("lib.rs", t.as_bytes(), &settings, package.clone()).findings
    };
    let out = fix_driver::fix_text(
        "lib.rs",
        src,
        first,
        fix::Allowed {
            unsafe_fixes: false,
        },
        &mut again,
        false,
    );
    assert_eq!(
        out.text,
        "use rmcp::model::{Resource};\nuse rmcp::model::{Tool, Resource as Raw};\n\npub fn r(_: Tool, _: Raw) -> Vec<Resource> {\n    vec![Resource::new(\"a\", \"b\")]\n}\n"
    );
    assert!(out.remaining.is_empty(), "{:#?}", out.remaining);
    // A rename under another name (`as Raw`) imports no duplicate: it is renamed.
    assert!(out.fixed.iter().any(|f| f.fix.as_ref().unwrap().message
        == "drop the import of `RawResource`: `Resource` is imported already"));
}

#[test]
fn a_handler_that_hands_the_request_to_rmcp_s_router_only_changes_its_signature() {
    let handler = |body: &str| {
        format!(
            "use rmcp::handler::server::tool::ToolCallContext;\nuse rmcp::model::*;\nuse rmcp::service::RequestContext;\nuse rmcp::{{ErrorData, RoleServer, ServerHandler}};\n\nimpl ServerHandler for S {{\n    async fn call_tool(\n        &self,\n        request: CallToolRequestParams,\n        context: RequestContext<RoleServer>,\n    ) -> Result<CallToolResult, ErrorData> {{\n{body}\n    }}\n}}\n"
        )
    };
    let fixed = |src: &str| fix_unsafe(src).text;
    // On 3.x the router returns `CallToolResponse`: wrapping its result would not compile.
    let delegating = "        let ctx = ToolCallContext::new(self, request, context);\n        self.tool_router.call(ctx).await";
    assert_eq!(
        fixed(&handler(delegating)),
        handler(delegating).replace(
            "-> Result<CallToolResult, ErrorData>",
            "-> Result<CallToolResponse, ErrorData>"
        )
    );
    // A body that also builds the old type itself keeps the conversion.
    let mixed = "        if request.name.is_empty() {\n            return Ok(CallToolResult::error(vec![]));\n        }\n        let ctx = ToolCallContext::new(self, request, context);\n        self.tool_router.call(ctx).await";
    assert!(fixed(&handler(mixed)).contains("result.map(Into::into)"));
}

#[test]
fn the_2_x_task_support_and_annotated_are_rewritten_and_a_local_namesake_is_not() {
    let src = "use rmcp::model::{Annotated, RawResource, TaskSupport};\n\npub fn t(t: &mut rmcp::model::Tool, s: TaskSupport) {\n    t.execution = Some(rmcp::model::ToolExecution::new().with_task_support(s));\n}\n\npub fn pick(required: bool) -> TaskSupport {\n    if required { TaskSupport::Required } else { TaskSupport::Forbidden }\n}\n\npub fn r(raw: RawResource, a: rmcp::model::Annotations) -> Vec<Annotated<RawResource>> {\n    vec![Annotated::new(raw.clone(), None), Annotated { raw, annotations: Some(a) }]\n}\n";
    let r = lint_text(r#"rmcp = "1.3""#, None, src);
    let got: Vec<(usize, &str, &str)> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP203" || f.message.starts_with("`Annotated"))
        .map(|f| {
            (
                f.line,
                f.code.as_str(),
                f.message.split('`').nth(1).unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "MCP201", "Annotated<T>"),
            (1, "MCP203", "TaskSupport"),
            (3, "MCP203", "TaskSupport"),
            (4, "MCP203", "execution"),
            (4, "MCP203", "ToolExecution"),
            (7, "MCP203", "TaskSupport"),
            (8, "MCP203", "TaskSupport"),
            (8, "MCP203", "TaskSupport"),
            (11, "MCP201", "Annotated<T>"),
            (12, "MCP201", "Annotated<T>"),
            (12, "MCP201", "Annotated<T>"),
        ],
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    // `Forbidden` is what 3.x does anyway; `Required` has no counterpart and stays, explained.
    assert_eq!(
        out.text,
        "use rmcp::model::{Resource};\n\npub fn t(t: &mut rmcp::model::Tool, s: ()) {\n}\n\npub fn pick(required: bool) -> () {\n    if required { TaskSupport::Required } else { () }\n}\n\npub fn r(raw: Resource, a: rmcp::model::Annotations) -> Vec<Resource> {\n    vec![raw.clone(), raw.with_annotations(a)]\n}\n"
    );
    let left: Vec<&str> = out.remaining.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(left, ["MCP203"], "{:#?}", out.remaining);
    // A crate's own `Annotated` in an rmcp server is not rmcp's.
    let local = "use rmcp::model::Tool;\n\npub struct Annotated<T>(pub T);\n\npub fn f(t: Tool) -> Annotated<Tool> {\n    Annotated(t)\n}\n";
    let r = lint_text(r#"rmcp = "1.3""#, None, local);
    assert!(
        r.findings.iter().all(|f| f.code != "MCP203"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_custom_http_client_with_the_old_get_stream_signature_gets_guidance() {
    let client = |session: &str| {
        format!("use std::sync::Arc;\nuse rmcp::transport::streamable_http_client::StreamableHttpClient;\n\nstruct C;\n\nimpl StreamableHttpClient for C {{\n    async fn get_stream(&self, uri: Arc<str>, session_id: {session}) {{}}\n}}\n\nimpl C {{\n    async fn get_stream(&self) {{}}\n}}\n")
    };
    let r = lint_text(r#"rmcp = "2.2""#, None, &client("Arc<str>"));
    let got: Vec<(usize, &str)> = r
        .findings
        .iter()
        .map(|f| (f.line, f.code.as_str()))
        .collect();
    assert_eq!(got, vec![(7, "MCP205")], "{:#?}", r.findings);
    let fix = r.findings[0].fix.as_ref().expect("guidance");
    assert_eq!(
        fix.applicability,
        mcp_lint::finding::Applicability::DisplayOnly
    );
    assert!(fix.message.contains("Option<Arc<str>>") && fix.message.contains("#1024"));
    // Already on 3.x with the new signature: nothing (the inherent method never fires).
    let r = lint_text(r#"rmcp = "3.11""#, None, &client("Option<Arc<str>>"));
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
}

#[test]
fn peer_info_changes_are_named_for_the_side_and_version_that_see_them() {
    let src = "use rmcp::service::{RequestContext, RunningService};\nuse rmcp::{RoleClient, RoleServer};\n\npub fn server(context: &RequestContext<RoleServer>) -> Option<&str> {\n    context.peer.peer_info().map(|i| i.client_info.name.as_str())\n}\n\npub fn client(client: &RunningService<RoleClient, ()>) -> Option<String> {\n    client.peer_info().map(|i| i.server_info.name.clone())\n}\n";
    let helps = |deps: &str| {
        let r = lint_text(deps, None, src);
        r.findings
            .iter()
            .filter(|f| f.code == "MCP205")
            .map(|f| {
                let help = f.help.clone().unwrap_or_default();
                (f.line, help.contains("#862"), help.contains("#1065"))
            })
            .collect::<Vec<_>>()
    };
    // 1.x: the server's borrowed name breaks on the Arc (#862); the client's owned clone does
    // not, but its `server_info` became optional in `ServerPeerInfo` (#1065).
    assert_eq!(
        helps(r#"rmcp = "1.7""#),
        vec![(5, true, false), (9, false, true)]
    );
    // 2.x: only the client's change is ahead; the server's `peer_info()` is its client's info.
    assert_eq!(helps(r#"rmcp = "2.2""#), vec![(9, false, true)]);
    assert_eq!(helps(r#"rmcp = "3.11""#), vec![]);
}

/// The MCP205 findings of a 1.x server fn returning `ret` whose body is `body`.
fn server_read_findings(ret: &str, body: &str) -> usize {
    let src = format!("use rmcp::service::RequestContext;\nuse rmcp::RoleServer;\n\npub fn f(context: &RequestContext<RoleServer>) -> {ret} {{\n    {body}\n}}\n");
    lint_text(r#"rmcp = "1.7""#, None, &src)
        .findings
        .iter()
        .filter(|f| f.code == "MCP205")
        .count()
}

#[test]
fn a_peer_info_read_that_compiles_on_both_results_is_not_reported() {
    // On 1.x, each of these reads compiles on the `Arc` of 2.0 and later too: only whether there
    // is one, the `.as_deref()` the fix writes, or owned field values (through a closure, an
    // `if let`, a `let` and its reborrow) or a format string.
    for read in [
        "context.peer.peer_info().is_some()",
        "context.peer\n        .peer_info()\n        .is_none()",
        "context.peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some())",
        "context.peer.peer_info().as_deref().map(|i| i.client_info.name.as_str()) == Some(\"x\")",
        "if let Some(info) = context.peer.peer_info() {\n        tracing::info!(\"{} {}\", info.client_info.name, info.client_info.version);\n    }\n    true",
        "if let Some(info) = context.peer.peer_info() && info.capabilities.sampling.is_some() {\n        return true;\n    }\n    false",
        "context.peer.peer_info().map(|info| info.capabilities.sampling.is_some()).unwrap_or(false)",
        "context.peer.peer_info().and_then(|info| info.client_info.title.clone()).is_some()",
        "let info = context.peer.peer_info();\n    println!(\"{info:?}\");\n    true",
        "let info = context.peer.peer_info();\n    if let Some(i) = &info {\n        return i.client_info.name.is_empty();\n    }\n    false",
        // A reference into a field, kept in the block: the same type on both results.
        "let info = context.peer.peer_info();\n    if let Some(i) = &info {\n        if let Some(t) = &i.client_info.title {\n            assert!(t.contains(\"x\"), \"got {}\", t);\n        }\n    }\n    true",
    ] {
        assert_eq!(server_read_findings("bool", read), 0, "{read}");
    }
    // Reads that may need the change still fire: a `let` whose value is handed on whole, and an
    // `if let` whose block lends out what it read (E0515 on the `Arc`).
    assert_eq!(
        server_read_findings(
            "Option<&rmcp::model::ClientInfo>",
            "let info = context.peer.peer_info();\n    info"
        ),
        1
    );
    assert_eq!(
        server_read_findings(
            "&str",
            "if let Some(info) = context.peer.peer_info() {\n        return info.client_info.name.as_str();\n    }\n    \"\""
        ),
        1
    );
    // ... and one that hands the reference into the field on, where it may outlive the `Arc`.
    assert_eq!(
        server_read_findings(
            "&str",
            "let info = context.peer.peer_info();\n    if let Some(i) = &info {\n        if let Some(t) = &i.client_info.title {\n            return t.as_str();\n        }\n    }\n    \"\""
        ),
        1
    );
    // A client's `server_info` became optional in 3.0: `.is_some_and(|i| i.server_info..)` and
    // `.as_deref()` do not read it the new way, only asking whether there is one does.
    let client = |read: &str| {
        let src = format!("use rmcp::service::RunningService;\nuse rmcp::RoleClient;\n\npub fn f(client: &RunningService<RoleClient, ()>) -> bool {{\n    {read}\n}}\n");
        lint_text(r#"rmcp = "2.2""#, None, &src)
            .findings
            .into_iter()
            .filter(|f| f.code == "MCP205")
            .count()
    };
    assert_eq!(
        client("client.peer_info().is_some_and(|i| i.server_info.name == \"s\")"),
        1
    );
    assert_eq!(
        client("client.peer_info().as_deref().is_some_and(|i| i.server_info.name == \"s\")"),
        1
    );
    assert_eq!(client("client.peer_info().is_some()"), 0);
    // A file that is all client: its handle need not be named like one, nor the file name
    // `RoleClient` (a `ClientInfo` served over a transport makes a client).
    let src = "use rmcp::model::ClientInfo;\nuse rmcp::ServiceExt;\n\npub async fn connect(info: ClientInfo, t: T) -> anyhow::Result<()> {\n    let service = info.serve(t).await?;\n    if let Some(peer) = service.peer_info() {\n        println!(\"{}\", peer.server_info.name);\n    }\n    Ok(())\n}\n";
    let helps: Vec<String> = lint_text(r#"rmcp = "2.2""#, None, src)
        .findings
        .into_iter()
        .filter(|f| f.code == "MCP205")
        .filter_map(|f| f.help)
        .collect();
    assert_eq!(helps.len(), 1);
    assert!(helps[0].contains("#1065"), "{}", helps[0]);
}

#[test]
fn a_client_s_url_elicitation_method_goes_and_then_its_parameter_s_import() {
    let src = "// A client; its imports follow.\nuse rmcp::model::{ElicitationResponseNotificationParam, ListRootsResult};\nuse rmcp::ClientHandler;\n\nstruct C;\n\nimpl ClientHandler for C {\n    async fn list_roots(&self) -> ListRootsResult {\n        ListRootsResult::new(vec![])\n    }\n\n    /// Told when the user is done.\n    async fn on_url_elicitation_notification_complete(&self, p: ElicitationResponseNotificationParam) {\n        println!(\"{}\", p.elicitation_id);\n    }\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        "// A client; its imports follow.\nuse rmcp::model::{ListRootsResult};\nuse rmcp::ClientHandler;\n\nstruct C;\n\nimpl ClientHandler for C {\n    async fn list_roots(&self) -> ListRootsResult {\n        ListRootsResult::new(vec![])\n    }\n}\n"
    );
    assert!(out.remaining.is_empty(), "{:#?}", out.remaining);
}

#[test]
fn a_1_x_resource_literal_is_renamed_then_built() {
    let src = "use rmcp::model::RawResource;\n\npub fn r(uri: &str) -> RawResource {\n    RawResource {\n        uri: uri.to_string(),\n        name: \"n\".into(),\n        title: None,\n        description: Some(\"d\".to_string()),\n        mime_type: None,\n        size: Some(3),\n        icons: None,\n        meta: None,\n    }\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        "use rmcp::model::Resource;\n\npub fn r(uri: &str) -> Resource {\n    Resource::new(uri.to_string(), \"n\")\n        .with_description(\"d\".to_string())\n        .with_size(3)\n}\n"
    );
}

#[test]
fn on_3_x_a_schema_call_is_stale_only_while_its_result_is_handled() {
    let src = |tail: &str| {
        format!("use rmcp::handler::server::tool::schema_for_output;\n\npub fn s() -> std::sync::Arc<rmcp::model::JsonObject> {{\n    schema_for_output::<u8>(){tail}\n}}\n")
    };
    let codes = |tail: &str| -> Vec<String> {
        lint_text(r#"rmcp = "3.11""#, None, &src(tail))
            .findings
            .into_iter()
            .map(|f| f.code)
            .collect()
    };
    assert!(codes("").is_empty());
    assert_eq!(codes(".unwrap()"), ["MCP205"]);
    assert_eq!(codes(".expect(\"schema\")"), ["MCP205"]);
    // Below 3.0 the call itself is reported once, handled or not.
    let r = lint_text(r#"rmcp = "2.2""#, None, &src(".unwrap()"));
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
}

#[test]
fn a_cloned_peer_info_is_cloned_through_as_deref() {
    // `Option<Arc<T>>` has no `.cloned()` (E0599); through `.as_deref()` it is the old
    // `Option<T>` again, owned, so nothing borrows past the statement.
    let src = "use rmcp::{Peer, RoleServer};\n\npub fn info(peer: &Peer<RoleServer>) -> rmcp::model::ClientInfo {\n    peer.peer_info().cloned().unwrap_or_default()\n}\n";
    let r = lint_text(r#"rmcp = "1.7""#, None, src);
    assert_eq!(
        r.findings.iter().filter(|f| f.code == "MCP205").count(),
        1,
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        src.replace("peer_info().cloned()", "peer_info().as_deref().cloned()")
    );
    // A client's clone is a `ServerPeerInfo` on 3.x whatever the adapter: left to the guidance.
    let client = "use rmcp::service::RunningService;\nuse rmcp::RoleClient;\n\npub fn info(client: &RunningService<RoleClient, ()>) -> rmcp::model::ServerInfo {\n    client.peer_info().cloned().unwrap_or_default()\n}\n";
    assert_eq!(fix_unsafe(client).text, client);
}

#[test]
fn a_peer_info_borrowed_in_a_closure_borrows_through_as_deref_and_an_owned_one_is_left() {
    let src = "use rmcp::model::*;\nuse rmcp::{Peer, RoleServer};\n\npub fn name(peer: &Peer<RoleServer>) -> Option<String> {\n    let title = peer.peer_info().and_then(|info| info.client_info.title.as_ref())?;\n    let info = peer.peer_info().unwrap();\n    Some(format!(\"{title} {}\", info.client_info.name))\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        src.replace(
            "peer.peer_info().and_then",
            "peer.peer_info().as_deref().and_then"
        )
    );
    // The call read through `.as_deref()` compiles on both results and is not reported again;
    // the owned one keeps its finding: the rest of the change (an `Arc`) is the code's to follow.
    assert_eq!(out.remaining.len(), 1, "{:#?}", out.remaining);
    assert_eq!(out.remaining[0].line, 6, "{:#?}", out.remaining);
}

#[test]
fn a_progress_notification_literal_is_built() {
    let src = "use rmcp::model::*;\n\npub fn p(token: ProgressToken, done: u32) -> ProgressNotificationParam {\n    ProgressNotificationParam {\n        progress_token: token,\n        progress: done as f64,\n        total: None,\n        message: Some(format!(\"{done} done\")),\n    }\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        "use rmcp::model::*;\n\npub fn p(token: ProgressToken, done: u32) -> ProgressNotificationParam {\n    ProgressNotificationParam::new(token, done as f64)\n        .with_message(format!(\"{done} done\"))\n}\n"
    );
}

#[test]
fn a_tool_literal_loses_its_2_x_execution_field_with_the_rest_rebuilt() {
    let src = "use rmcp::model::*;\n\npub fn t(schema: std::sync::Arc<JsonObject>) -> Tool {\n    Tool {\n        name: \"t\".into(),\n        input_schema: schema,\n        execution: Some(ToolExecution::new()),\n        ..Default::default()\n    }\n}\n";
    let out = fix_unsafe(src);
    assert!(!out.text.contains("execution"), "{}", out.text);
    assert!(
        out.text.contains("let mut t = Tool::default();"),
        "{}",
        out.text
    );
}

#[test]
fn a_client_reads_the_server_s_now_optional_info_through_as_ref() {
    let src = "use rmcp::service::RunningService;\nuse rmcp::RoleClient;\n\npub fn title(client: &RunningService<RoleClient, ()>) -> Option<String> {\n    client.peer_info().and_then(|info| info.server_info.title.clone())\n}\n";
    let r = lint_text(r#"rmcp = "1.7""#, None, src);
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        src.replace(
            "client.peer_info().and_then(|info| info.server_info.title",
            "client.peer_info().as_deref().and_then(|info| info.server_info.as_ref()?.title"
        )
    );
}

#[test]
fn a_paginated_result_literal_gets_the_new_fields_defaults_and_a_named_result_type_its_path() {
    let src = "use rmcp::model::{ErrorData, GetPromptRequestParams, GetPromptResult, ListPromptsResult, Prompt};\nuse rmcp::service::RequestContext;\nuse rmcp::{RoleServer, ServerHandler};\n\npub fn list(prompts: Vec<Prompt>) -> ListPromptsResult {\n    ListPromptsResult { prompts, next_cursor: None, meta: None }\n}\n\npub fn listed(prompts: Vec<Prompt>) -> ListPromptsResult {\n    ListPromptsResult { prompts, ..Default::default() }\n}\n\nstruct S;\n\nimpl ServerHandler for S {\n    async fn get_prompt(\n        &self,\n        _request: GetPromptRequestParams,\n        _context: RequestContext<RoleServer>,\n    ) -> Result<GetPromptResult, ErrorData> {\n        Ok(GetPromptResult::new(vec![]))\n    }\n}\n";
    let out = fix_unsafe(src);
    assert!(
        out.text.contains(
            "ListPromptsResult { prompts, next_cursor: None, meta: None, ..Default::default() }"
        ),
        "{}",
        out.text
    );
    assert!(out
        .text
        .contains("ListPromptsResult { prompts, ..Default::default() }"));
    // The signature cannot see a `use` inside the body: the new type is written with its path.
    assert!(
        out.text
            .contains("-> Result<rmcp::model::GetPromptResponse, ErrorData> {"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("use rmcp::model::GetPromptResponse"));
}

/// A package of several files under a manifest and lock that already say rmcp 3.11.
fn lint_files_at_3(files: &[(&str, &str)]) -> Report {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\"] }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Cargo.lock"),
        "version = 4\n\n[[package]]\nname = \"rmcp\"\nversion = \"3.11.0\"\n\n[[package]]\nname = \"s\"\nversion = \"0.1.0\"\ndependencies = [\"rmcp\"]\n",
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join("src").join(name), text).unwrap();
    }
    let settings = Settings {
        base_dir: dir.path().to_path_buf(),
        ..Settings::default()
    };
    let r = lint_paths(&[dir.path().to_path_buf()], &settings);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r
}

fn codes_in<'r>(r: &'r Report, file: &str) -> Vec<(usize, &'r str)> {
    r.findings
        .iter()
        .filter(|f| f.code.starts_with("MCP2") && f.path.ends_with(file))
        .map(|f| (f.line, f.code.as_str()))
        .collect()
}

/// A handler written for rmcp 2.x in a file that names nothing rmcp 3.x lacks: its result type
/// and its literals are what stop compiling on 3.x.
const HANDLER_2X: &str = "use rmcp::model::*;\nuse rmcp::{ErrorData, RoleServer, ServerHandler};\nuse rmcp::service::RequestContext;\n\npub struct S;\n\nimpl ServerHandler for S {\n    async fn call_tool(\n        &self,\n        _request: CallToolRequestParams,\n        _context: RequestContext<RoleServer>,\n    ) -> Result<CallToolResult, ErrorData> {\n        Ok(CallToolResult { content: vec![], structured_content: None, is_error: None, meta: None })\n    }\n}\n";

#[test]
fn a_manifest_bumped_ahead_of_the_code_keeps_every_upgrade_rule_on() {
    // Dependabot raised rmcp to 3.11 (manifest and lock); the code is 2.x. Another file of the
    // package still names the 2.x alias `CallToolRequestParam`.
    let helper = "use rmcp::model::CallToolRequestParam;\n\npub fn name(p: &CallToolRequestParam) -> &str {\n    &p.name\n}\n";
    let r = lint_files_at_3(&[("lib.rs", HANDLER_2X), ("helper.rs", helper)]);
    assert_eq!(
        codes_in(&r, "lib.rs"),
        vec![(12, "MCP202"), (13, "MCP204")],
        "{:#?}",
        r.findings
    );
    assert_eq!(
        codes_in(&r, "helper.rs"),
        vec![(1, "MCP201"), (3, "MCP201")]
    );
    // The handler's own shapes are evidence enough, with no old name anywhere.
    let r = lint_files_at_3(&[("lib.rs", HANDLER_2X)]);
    assert_eq!(codes_in(&r, "lib.rs"), vec![(12, "MCP202"), (13, "MCP204")]);
}

#[test]
fn code_written_for_3_x_gives_no_evidence() {
    // The same server on 3.x: the new result type, a constructor, a pattern with a rest (which
    // compiles on a non-exhaustive struct), a struct of its own named like rmcp's in a declaration.
    let current = "use rmcp::model::*;\nuse rmcp::{ErrorData, RoleServer, ServerHandler};\nuse rmcp::service::RequestContext;\n\npub struct S;\n\npub struct CallToolResultLog {\n    pub n: usize,\n}\n\nimpl ServerHandler for S {\n    async fn call_tool(\n        &self,\n        _request: CallToolRequestParams,\n        _context: RequestContext<RoleServer>,\n    ) -> Result<CallToolResponse, ErrorData> {\n        let r = CallToolResult::success(vec![]);\n        let CallToolResult { content, .. } = &r;\n        let _ = content;\n        Ok(r.into())\n    }\n}\n\npub fn peer_name(p: &rmcp::Peer<RoleServer>) -> Option<String> {\n    p.peer_info().map(|i| i.client_info.name.clone())\n}\n";
    let r = lint_files_at_3(&[("lib.rs", current)]);
    assert_eq!(codes_in(&r, "lib.rs"), vec![], "{:#?}", r.findings);
}

#[test]
fn a_field_3_x_dropped_is_left_out_of_the_rebuilt_literal_when_it_was_none() {
    // rmcp 0.14's sampling params had a `task`; 3.x's have none.
    let src = "use rmcp::model::*;\n\npub fn ask(messages: Vec<SamplingMessage>) -> CreateMessageRequestParams {\n    CreateMessageRequestParams {\n        task: None,\n        messages,\n        max_tokens: 100,\n        ..Default::default()\n    }\n}\n";
    let out = fix_unsafe(src);
    assert!(
        out.text.contains("CreateMessageRequestParams::default()"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("task"), "{}", out.text);
    assert!(out.text.contains(".max_tokens = 100;"), "{}", out.text);
    // A value that was set keeps the guidance: dropping it would lose what the code asked for.
    let set = src.replace("task: None", "task: Some(TaskMetadata::default())");
    let out = fix_unsafe(&set);
    assert!(out.text.contains("task: Some("), "{}", out.text);
}

#[test]
fn a_wrapper_s_raw_field_is_read_through_only_where_the_wrapped_type_has_the_name() {
    let src = "use rmcp::model::*;\n\npub fn f(r: &Resource, c: &Content, frame: &Frame) -> usize {\n    let _ = c.raw.as_text();\n    let _ = r.raw.mime_type.clone();\n    frame.raw.len() + r.raw.uri.len()\n}\n\npub struct Frame {\n    pub raw: Vec<u8>,\n}\n";
    let r = lint_text(r#"rmcp = "1.7""#, None, src);
    let raw: Vec<(usize, usize)> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP201" && f.message.contains("`.raw`"))
        .map(|f| (f.line, f.column))
        .collect();
    assert_eq!(raw, vec![(4, 14), (5, 14), (6, 24)], "{:#?}", r.findings);
    // A manifest bumped by hand over the same code: `r.raw.uri` is still the old API's, unless
    // the file has a `raw` field of its own (then `raw` is anyone's field).
    let raws = |manifest: &str, lock: &str, src: &str| -> usize {
        lint_text(manifest, Some(lock), src)
            .findings
            .iter()
            .filter(|f| f.message.contains("`.raw`"))
            .count()
    };
    assert_eq!(raws(r#"rmcp = "3.11""#, "3.11.0", src), 0);
    let no_frame =
        "use rmcp::model::*;\n\npub fn f(r: &Resource) -> usize {\n    r.raw.uri.len()\n}\n";
    assert_eq!(raws(r#"rmcp = "3.11""#, "3.11.0", no_frame), 1);
}

#[test]
fn a_wrapper_s_raw_value_cloned_whole_becomes_the_value_s_clone() {
    // 0.x: `resource.raw` is the `RawResource` inside `Annotated`; 3.x's `Resource` is that
    // value itself, so its clone stands where the inner one's did (E0609 otherwise).
    let src = "use rmcp::model::*;\n\npub fn rename(resource: &Resource) -> Resource {\n    let mut raw = resource.raw.clone();\n    raw.uri = format!(\"ns+{}\", resource.uri);\n    Resource { raw, annotations: resource.annotations.clone() }\n}\n";
    let out = fix_unsafe(src);
    assert!(
        out.text.contains("let mut raw = resource.clone();"),
        "{}",
        out.text
    );
    assert!(!out.text.contains(".raw"), "{}", out.text);
    // A `raw` field of the file's own struct is not the wrapper's.
    let own = "use rmcp::model::*;\n\npub struct Frame {\n    pub raw: Vec<u8>,\n}\n\npub fn f(frame: &Frame, r: &Resource) -> Vec<u8> {\n    let _ = r;\n    frame.raw.clone()\n}\n";
    let r = lint_text(r#"rmcp = "0.8""#, None, own);
    assert!(
        !r.findings.iter().any(|f| f.message.contains("`.raw`")),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_sampling_message_literal_is_built_with_the_content_type_3_x_takes() {
    let src = "use rmcp::model::*;\n\npub fn ask(q: String) -> SamplingMessage {\n    SamplingMessage {\n        role: Role::User,\n        content: Content::text(q),\n    }\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        "use rmcp::model::*;\n\npub fn ask(q: String) -> SamplingMessage {\n    SamplingMessage::new(Role::User, SamplingMessageContentBlock::text(q))\n}\n"
    );
    // Imported by name, the old type is all the file has: the new one is written by its path
    // (E0433 otherwise).
    let named = src.replace(
        "use rmcp::model::*;",
        "use rmcp::model::{Content, Role, SamplingMessage};",
    );
    let out = fix_unsafe(&named);
    assert!(
        out.text.contains(
            "SamplingMessage::new(Role::User, rmcp::model::SamplingMessageContentBlock::text(q))"
        ),
        "{}",
        out.text
    );
}

#[test]
fn a_handler_that_hands_its_request_to_the_router_names_the_new_type_by_its_path() {
    // The old type is imported by name inside a nested group: the new one is not, so the
    // signature writes its path (E0425 otherwise).
    let src = "use rmcp::{\n    ErrorData, ServerHandler,\n    handler::server::tool::ToolCallContext,\n    model::{CallToolRequestParams, CallToolResult},\n    service::{RequestContext, RoleServer},\n};\n\npub struct S {\n    tool_router: rmcp::handler::server::router::tool::ToolRouter<S>,\n}\n\nimpl ServerHandler for S {\n    async fn call_tool(\n        &self,\n        request: CallToolRequestParams,\n        context: RequestContext<RoleServer>,\n    ) -> Result<CallToolResult, ErrorData> {\n        let tcc = ToolCallContext::new(self, request, context);\n        self.tool_router.call(tcc).await\n    }\n}\n";
    let out = fix_unsafe(src);
    // `CallToolResult` is no longer named, so its import goes; the group is then formatted as
    // rustfmt does (edition 2021 here: no manifest says otherwise).
    let upgraded = src.replace(
        ") -> Result<CallToolResult, ErrorData> {",
        ") -> Result<rmcp::model::CallToolResponse, ErrorData> {",
    );
    let imports_then = "use rmcp::{\n    handler::server::tool::ToolCallContext,\n    model::CallToolRequestParams,\n    service::{RequestContext, RoleServer},\n    ErrorData, ServerHandler,\n};\n";
    let imports_now = &src[..src.find("\n\n").unwrap() + 1];
    assert_eq!(out.text, upgraded.replace(imports_now, imports_then));
}

#[test]
fn a_parameter_destructured_by_an_old_type_name_is_renamed_in_its_pattern() {
    // The type after the colon was renamed already; the pattern names the old one (E0422).
    let src = "use rmcp::model::*;\n\npub async fn read(ReadResourceRequestParam { uri, .. }: ReadResourceRequestParams) -> String {\n    uri\n}\n";
    let r = lint_text(r#"rmcp = "2.2""#, None, src);
    let at: Vec<(usize, usize)> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP201" && f.message.contains("ReadResourceRequestParam`"))
        .map(|f| (f.line, f.column))
        .collect();
    assert_eq!(at, vec![(3, 19)], "{:#?}", r.findings);
    let out = fix_unsafe(src);
    assert!(
        out.text
            .contains("read(ReadResourceRequestParams { uri, .. }: ReadResourceRequestParams)"),
        "{}",
        out.text
    );
    // A pattern of a type that is not rmcp's stays.
    let own = "pub struct ReadResourceRequestParam { pub uri: String }\n\npub fn read(ReadResourceRequestParam { uri }: ReadResourceRequestParam) -> String {\n    uri\n}\n";
    let r = lint_text(r#"rmcp = "2.2""#, None, own);
    assert!(
        !r.findings.iter().any(|f| f.code == "MCP201"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_prompt_message_literal_of_0_x_is_built_with_the_shared_role_and_content_types() {
    let src = "use rmcp::model::*;\n\npub fn ask(q: String) -> PromptMessage {\n    PromptMessage {\n        role: PromptMessageRole::User,\n        content: PromptMessageContent::text(q),\n    }\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        "use rmcp::model::*;\n\npub fn ask(q: String) -> PromptMessage {\n    PromptMessage::new(Role::User, ContentBlock::text(q))\n}\n"
    );
    let link = src.replace(
        "PromptMessageContent::text(q)",
        "PromptMessageContent::resource_link(r)",
    );
    assert!(
        fix_unsafe(&link)
            .text
            .contains("PromptMessage::new(Role::User, ContentBlock::resource_link(r))"),
        "{}",
        fix_unsafe(&link).text
    );
    // A content the table cannot carry over (a variant literal of the old enum) keeps the
    // display-only guidance: the literal is left as it was.
    let other = src.replace(
        "PromptMessageContent::text(q)",
        "PromptMessageContent::Text { text: q }",
    );
    let out = fix_unsafe(&other);
    assert!(
        out.text.contains("PromptMessageContent::Text { text: q }"),
        "{}",
        out.text
    );
}

#[test]
fn a_handler_written_as_a_fn_returning_a_future_awaits_its_old_future_and_converts_it() {
    let src = "use rmcp::model::*;\nuse rmcp::service::{RequestContext, RoleServer};\nuse rmcp::{ErrorData, ServerHandler};\n\npub struct S;\n\nimpl ServerHandler for S {\n    fn get_prompt(\n        &self,\n        request: GetPromptRequestParams,\n        _: RequestContext<RoleServer>,\n    ) -> impl std::future::Future<Output = Result<GetPromptResult, ErrorData>> + Send + '_ {\n        async move { Ok(GetPromptResult::new(vec![])) }\n    }\n}\n";
    let r = lint_text(r#"rmcp = "2.2""#, None, src);
    assert!(
        r.findings
            .iter()
            .any(|f| f.code == "MCP202" && f.line == 12),
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    assert_eq!(
        out.text,
        src.replace(
            "Result<GetPromptResult, ErrorData>>",
            "Result<GetPromptResponse, ErrorData>>"
        )
        .replace(
            "+ Send + '_ {\n        async move { Ok(GetPromptResult::new(vec![])) }\n    }",
            "+ Send + '_ {\n        let old_future = {\n        async move { Ok(GetPromptResult::new(vec![])) }\n    };\n        async move { old_future.await.map(Into::into) }\n    }"
        )
    );
    // A boxed future is boxed again.
    let boxed = src
        .replace(
            "impl std::future::Future<Output = Result<GetPromptResult, ErrorData>> + Send + '_",
            "std::pin::Pin<Box<dyn std::future::Future<Output = Result<GetPromptResult, ErrorData>> + Send + '_>>",
        )
        .replace("async move { Ok(", "Box::pin(async move { Ok(")
        .replace("vec![])) }\n", "vec![])) })\n");
    let out = fix_unsafe(&boxed);
    assert!(
        out.text
            .contains("Box::pin(async move { old_future.await.map(Into::into) })"),
        "{}",
        out.text
    );
}

#[test]
fn a_struct_pattern_of_a_now_non_exhaustive_struct_gets_its_rest() {
    // 0.x code destructuring the request params rmcp 3.x marks `#[non_exhaustive]` (E0638).
    let src = "use rmcp::model::*;\n\npub fn uri_of(ReadResourceRequestParams { uri }: ReadResourceRequestParams) -> String {\n    uri\n}\n\npub fn name_of(p: GetPromptRequestParams) -> String {\n    let GetPromptRequestParams {\n        name,\n        arguments,\n    } = p;\n    let _ = arguments;\n    name\n}\n\npub fn done(ReadResourceRequestParams { uri, .. }: ReadResourceRequestParams) -> String {\n    uri\n}\n";
    let r = lint_text(r#"rmcp = "0.8""#, None, src);
    let at: Vec<(usize, usize)> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP204" && f.message.contains("struct pattern"))
        .map(|f| (f.line, f.column))
        .collect();
    // Each on its closing brace; the pattern that has `..` already stays quiet.
    assert_eq!(at, vec![(3, 47), (11, 5)], "{:#?}", r.findings);
    let out = fix_unsafe(src);
    assert!(
        out.text
            .contains("uri_of(ReadResourceRequestParams { uri, .. }: ReadResourceRequestParams)"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("        arguments, ..\n    } = p;"),
        "{}",
        out.text
    );
    // Patterns that end in `..` stay quiet on 3.x too.
    let r = lint_text(
        r#"rmcp = "3.11""#,
        Some("3.11.0"),
        &src.replace("{ uri }", "{ uri, .. }")
            .replace("arguments,\n    }", "arguments,\n        ..\n    }"),
    );
    assert!(
        !r.findings
            .iter()
            .any(|f| f.message.contains("struct pattern")),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_0_x_elicitation_params_literal_names_the_form_variant_of_the_enum_it_became() {
    let src = "use rmcp::model::*;\n\npub fn params(message: String, schema: ElicitationSchema) -> CreateElicitationRequestParams {\n    CreateElicitationRequestParams {\n        meta: None,\n        message,\n        requested_schema: schema,\n    }\n}\n";
    let r = lint_text(r#"rmcp = "0.14""#, Some("0.14.0"), src);
    assert!(
        r.findings.iter().any(|f| f.code == "MCP201"),
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    // The type in the signature is the enum; the literal is its form variant (E0574 otherwise).
    assert!(
        out.text.contains(") -> ElicitRequestParams {\n    ElicitRequestParams::FormElicitationParams {\n        meta: None,"),
        "{}",
        out.text
    );
}

#[test]
fn a_trait_s_bodiless_signatures_and_names_from_an_rmcp_glob_are_upgraded() {
    // A trait of the server's own (a plugin API) declares rmcp's types in signatures with no
    // body; `Meta`, too common to claim bare, comes from rmcp when only rmcp's glob brings it.
    let src = "use rmcp::model::*;\n\npub trait Plugin {\n    fn call(&self, request: CallToolRequestParam) -> CallToolResult;\n}\n\npub struct Ctx {\n    pub meta: Meta,\n}\n";
    let r = lint_text(r#"rmcp = "0.12""#, Some("0.12.0"), src);
    let at: Vec<(usize, &str)> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP201")
        .map(|f| (f.line, f.message.split('`').nth(1).unwrap_or("")))
        .collect();
    assert_eq!(
        at,
        vec![(4, "CallToolRequestParam"), (8, "Meta")],
        "{:#?}",
        r.findings
    );
    // Another glob may bring its own `Meta` (or `Error`): then the name is not claimed.
    let mixed = src.replace(
        "use rmcp::model::*;\n",
        "use rmcp::model::*;\nuse crate::types::*;\n",
    );
    let r = lint_text(r#"rmcp = "0.12""#, Some("0.12.0"), &mixed);
    assert!(
        !r.findings.iter().any(|f| f.message.contains("`Meta`")),
        "{:#?}",
        r.findings
    );
}

#[test]
fn gone_items_behind_a_module_import_and_in_bounds_are_reported() {
    // `task_manager` comes from `{self, ..}`; a type alias, a trait object's trait and a gone
    // trait's bound are each reported where they stand.
    let src = "use rmcp::model::AnnotateAble;\nuse rmcp::task_manager::{self, OperationDescriptor};\n\npub fn f(d: OperationDescriptor) -> task_manager::OperationFuture {\n    let t: Box<dyn task_manager::OperationResultTransport> = todo!();\n    todo!()\n}\n\nfn no_ann<T: AnnotateAble>(raw: T) -> T {\n    raw\n}\n";
    let r = lint_text(r#"rmcp = "0.14""#, Some("0.14.0"), src);
    let mut at: Vec<(usize, &str)> = r
        .findings
        .iter()
        .filter(|f| f.code.starts_with("MCP20"))
        .map(|f| (f.line, f.message.split('`').nth(1).unwrap_or("")))
        .collect();
    at.sort();
    assert_eq!(
        at,
        vec![
            (2, "OperationDescriptor"),
            (4, "OperationDescriptor"),
            (4, "OperationFuture"),
            (5, "OperationResultTransport"),
            (9, "AnnotateAble"),
        ],
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_literal_of_a_struct_whose_constructor_sets_fields_by_name_is_built_with_it() {
    // No builder row, no `Default` on 3.x: `new(..)`, whose parameters are named like the
    // fields they set (the generated table), takes the literal's values; the rest are set.
    let src = "use rmcp::model::*;\n\nfn a(uri: String) -> ReadResourceRequestParams {\n    ReadResourceRequestParams { uri: uri.into(), meta: None }\n}\n\nfn b(name: String, title: Option<String>) -> PromptReference {\n    PromptReference { name, title }\n}\n\nfn c(r: Reference, argument: ArgumentInfo, context: Option<CompletionContext>) -> CompleteRequestParams {\n    CompleteRequestParams { r#ref: r, argument, context }\n}\n";
    let out = fix_unsafe(src);
    for want in [
        "    ReadResourceRequestParams::new(uri)\n",
        "        let mut pr = PromptReference::new(name);\n        pr.title = title;\n        pr\n",
        "        let mut crp = CompleteRequestParams::new(r, argument);\n        crp.context = context;\n",
    ] {
        assert!(out.text.contains(want), "{want}\n{}", out.text);
    }
    assert!(
        out.remaining.iter().all(|f| f.code != "MCP204"),
        "{:#?}",
        out.remaining
    );
    // A literal that leaves out a parameter's field keeps its guidance.
    let out = fix_unsafe("use rmcp::model::*;\n\nfn d(t: Option<String>) -> PromptReference {\n    PromptReference { title: t, ..other() }\n}\n");
    assert!(out.remaining.iter().any(|f| f.code == "MCP204"));
}

#[test]
fn a_literal_of_the_annotated_wrapper_becomes_its_raw_value_with_the_annotations_set() {
    // 0.x's `Resource` was `Annotated<RawResource>`: `{ raw, annotations }`. On 3.x the
    // resource carries its annotations itself.
    let src = "use rmcp::model::*;\n\npub fn r(raw: RawResource, a: &Resource) -> Resource {\n    Resource {\n        raw,\n        annotations: a.annotations.clone(),\n    }\n}\n";
    let r = lint_text(r#"rmcp = "0.14""#, Some("0.14.0"), src);
    assert!(
        r.findings.iter().any(|f| f.code == "MCP204" && f.line == 4),
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    assert!(
        out.text.contains(
            "        let mut r = raw;\n        r.annotations = a.annotations.clone();\n        r\n"
        ),
        "{}",
        out.text
    );
    assert!(out.text.contains("raw: Resource,"), "{}", out.text);
}

#[test]
fn optional_annotate_sets_the_value_s_own_annotations() {
    // `AnnotateAble::optional_annotate` wrapped the value in `Annotated`; on 3.x the value has
    // the field. A call with another number of arguments is another type's method.
    let src = "use rmcp::model::{AnnotateAble, Annotations, RawResource, Resource};\n\npub fn r(uri: String, a: Option<Annotations>) -> Resource {\n    RawResource::new(uri, \"n\").optional_annotate(a)\n}\n\npub fn other(x: Thing) -> Thing {\n    x.optional_annotate()\n}\n";
    let r = lint_text(r#"rmcp = "0.14""#, Some("0.14.0"), src);
    assert!(
        r.findings
            .iter()
            .any(|f| f.code == "MCP205" && f.line == 4 && f.fix.is_some()),
        "{:#?}",
        r.findings
    );
    assert!(!r.findings.iter().any(|f| f.line == 8), "{:#?}", r.findings);
    let out = fix_unsafe(src);
    assert!(
        out.text.contains(
            "{ let mut annotated = Resource::new(uri, \"n\"); annotated.annotations = a; annotated }"
        ),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("    x.optional_annotate()\n"),
        "{}",
        out.text
    );
}

#[test]
fn a_re_exported_old_name_keeps_its_name_for_the_crate_s_importers() {
    // `crate::elicitation::CreateElicitationResult` is imported elsewhere in the crate: the
    // re-export names the new type under the old name; a private import is renamed outright.
    // The same file's own uses keep the old name too: the aliased re-export is what brings it
    // into scope there.
    let src = "pub use rmcp::model::{CreateElicitationResult, ElicitationAction};\nuse rmcp::model::CallToolRequestParam;\n\npub fn f(_: CallToolRequestParam) {}\n\npub fn g() -> Option<CreateElicitationResult> {\n    None\n}\n";
    let out = fix_unsafe(src);
    assert!(
        out.text.starts_with("pub use rmcp::model::{ElicitResult as CreateElicitationResult, ElicitationAction};\nuse rmcp::model::CallToolRequestParams;\n"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("pub fn f(_: CallToolRequestParams)"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("-> Option<CreateElicitationResult>"),
        "{}",
        out.text
    );
}

#[test]
fn a_literal_of_a_struct_imported_under_another_name_is_rebuilt_under_that_name() {
    let src = "use rmcp::model::{Prompt as McpPrompt, PromptArgument};\n\npub fn p(name: String, arguments: Option<Vec<PromptArgument>>) -> McpPrompt {\n    McpPrompt {\n        name,\n        title: None,\n        description: None,\n        arguments,\n        icons: None,\n        meta: None,\n    }\n}\n";
    let r = lint_text(r#"rmcp = "2.2""#, Some("2.2.0"), src);
    assert!(
        r.findings.iter().any(|f| f.code == "MCP204" && f.line == 4),
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    assert!(out.text.contains("McpPrompt::default()"), "{}", out.text);
    assert!(!out.text.contains("    McpPrompt {\n"), "{}", out.text);
}

#[test]
fn a_type_in_a_macro_of_its_own_syntax_is_renamed() {
    // A host-function DSL (`name(ctx: Ctx; arg: Json<T>) -> Json<R> { .. }`) is no Rust a
    // parse takes whole; its generic types still name rmcp's.
    let src = "use rmcp::model::*;\n\nhost_fn!(create_message(ctx: Ctx; msg: Json<CreateMessageRequestParam>) -> Json<CreateMessageResult> {\n    Ok(msg)\n});\n";
    let out = fix_unsafe(src);
    assert!(
        out.text.contains("msg: Json<CreateMessageRequestParams>)"),
        "{}",
        out.text
    );
}

#[test]
fn a_name_the_crate_re_exports_from_rmcp_is_rmcp_s_where_it_is_imported() {
    // `use crate::elicitation::ElicitationAction` reaches rmcp's enum through the crate's own
    // module: a match without a wildcard on it no longer compiles on 3.x (E0004).
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"0.14\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/elicitation.rs"),
        "pub use rmcp::model::ElicitationAction;\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "mod elicitation;\nmod tasks;\nmod types;\nuse crate::elicitation::ElicitationAction as _;\n\npub fn f(a: elicitation::ElicitationAction) -> u8 {\n    use crate::elicitation::ElicitationAction;\n    match a {\n        ElicitationAction::Accept => 1,\n        ElicitationAction::Decline => 2,\n        ElicitationAction::Cancel => 3,\n    }\n}\n",
    )
    .unwrap();
    // The crate's own `Task`, imported from its module, is not rmcp's `Task` that another file
    // imports.
    std::fs::write(
        dir.path().join("src/types.rs"),
        "pub struct Task {\n    pub id: u64,\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/tasks.rs"),
        "use rmcp::model::Task as _;\nuse crate::types::Task;\n\npub fn t() -> Task {\n    Task { id: 1 }\n}\n",
    )
    .unwrap();
    let settings = Settings {
        base_dir: dir.path().to_path_buf(),
        ..Settings::default()
    };
    let r = lint_paths(&[dir.path().to_path_buf()], &settings);
    assert!(
        r.findings
            .iter()
            .any(|f| f.code == "MCP204" && f.path.ends_with("lib.rs") && f.line == 8),
        "{:#?}",
        r.findings
    );
    assert!(
        !r.findings
            .iter()
            .any(|f| f.path.ends_with("tasks.rs") && f.line == 5),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_handler_context_s_meta_taken_whole_reads_the_value_inside_its_newtype() {
    // rmcp 2.x: `context.meta` is a `Meta` (`MetaObject`); 3.x: `RequestMetaObject(MetaObject)`.
    let src = "use rmcp::model::*;\nuse rmcp::service::{NotificationContext, RequestContext, RoleServer};\n\npub struct Seen {\n    pub meta: Meta,\n}\n\npub fn seen(context: &RequestContext<RoleServer>) -> Seen {\n    Seen { meta: context.meta.clone() }\n}\n\npub fn heard(context: &NotificationContext<RoleServer>) -> Seen {\n    Seen { meta: context.meta.clone() }\n}\n\npub fn token(context: &RequestContext<RoleServer>) -> bool {\n    context.meta.get(\"progressToken\").is_some()\n}\n";
    let out = fix_unsafe(src);
    assert_eq!(
        out.text.matches("meta: context.meta.0.clone()").count(),
        2,
        "{}",
        out.text
    );
    // Read through, the newtype derefs to the same map: left alone.
    assert!(out.text.contains("context.meta.get("), "{}", out.text);
    // On 3.x code (no old `Meta` named) the newtype is what the code takes.
    let current = src.replace("pub meta: Meta", "pub meta: RequestMetaObject");
    let r = lint_text(r#"rmcp = "3.11""#, Some("3.11.0"), &current);
    assert!(
        !r.findings.iter().any(|f| f.code == "MCP205"),
        "{:#?}",
        r.findings
    );
    // A field named `meta` of something else is not a context's.
    let other = "use rmcp::model::*;\n\npub struct Page {\n    pub meta: Meta,\n}\n\npub fn copy(page: &Page) -> Meta {\n    page.meta.clone()\n}\n";
    let r = lint_text(r#"rmcp = "2.2""#, None, other);
    assert!(
        !r.findings.iter().any(|f| f.code == "MCP205"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_rebuilt_literal_widens_the_value_of_a_field_rmcp_widened() {
    // 0.x/1.x: `RawResource::size` is an `Option<u32>`; 2.0 (#927) made it an `Option<u64>`.
    let src = "use rmcp::model::*;\n\npub struct Found {\n    pub uri: String,\n    pub size: Option<u32>,\n    pub bytes: u32,\n}\n\npub fn listed(f: Found, named: String) -> RawResource {\n    RawResource {\n        uri: f.uri,\n        name: named,\n        title: None,\n        description: None,\n        mime_type: None,\n        size: f.size,\n        icons: None,\n        meta: None,\n    }\n}\n\npub fn sized(f: Found) -> RawResource {\n    RawResource {\n        uri: f.uri,\n        name: \"n\".into(),\n        title: None,\n        description: None,\n        mime_type: None,\n        size: Some(f.bytes),\n        icons: None,\n        meta: None,\n    }\n}\n\npub fn fixed(f: Found) -> RawResource {\n    RawResource {\n        uri: f.uri,\n        name: \"n\".into(),\n        title: None,\n        description: None,\n        mime_type: None,\n        size: Some(4096),\n        icons: None,\n        meta: None,\n    }\n}\n";
    let out = fix_unsafe(src);
    assert!(out.text.contains("f.size.map(u64::from)"), "{}", out.text);
    assert!(out.text.contains("u64::from(f.bytes)"), "{}", out.text);
    // An integer literal takes the new type as written.
    assert!(out.text.contains("4096)"), "{}", out.text);
    assert!(!out.text.contains("u64::from(4096)"), "{}", out.text);
}

#[test]
fn a_match_on_an_enum_under_its_old_name_kept_by_a_re_export_gets_its_catch_all() {
    // The crate re-exports 3.x's `PrimitiveSchemaDefinition` under 2.x's name `PrimitiveSchema`
    // (the upgrade keeps that name); a `match` on it still needs the `_` arm.
    let src = "use rmcp::model::PrimitiveSchema;\n\npub fn kind(s: &PrimitiveSchema) -> &'static str {\n    match s {\n        PrimitiveSchema::String(_) => \"string\",\n        PrimitiveSchema::Number(_) => \"number\",\n        PrimitiveSchema::Integer(_) => \"integer\",\n        PrimitiveSchema::Boolean(_) => \"boolean\",\n        PrimitiveSchema::Enum(_) => \"enum\",\n    }\n}\n";
    let r = lint_text(r#"rmcp = "2.2""#, None, src);
    assert!(
        r.findings
            .iter()
            .any(|f| f.code == "MCP204" && f.message.contains("PrimitiveSchemaDefinition")),
        "{:#?}",
        r.findings
    );
    // With a catch-all arm it compiles on 3.x: quiet.
    let caught = src.replace(
        "        PrimitiveSchema::Enum(_) => \"enum\",\n",
        "        _ => \"other\",\n",
    );
    let r = lint_text(r#"rmcp = "2.2""#, None, &caught);
    assert!(
        !r.findings.iter().any(|f| f.code == "MCP204"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_widened_field_read_into_the_crate_s_own_narrow_field_is_converted_back() {
    let src = "use rmcp::model::*;\n\npub struct Seen {\n    pub uri: String,\n    pub size: Option<u32>,\n}\n\npub struct Wide {\n    pub size: Option<u64>,\n}\n\npub fn seen(resource: &Resource) -> (Seen, Wide) {\n    (\n        Seen { uri: resource.uri.clone(), size: resource.size },\n        Wide { size: resource.size },\n    )\n}\n";
    let r = lint_text(r#"rmcp = "1.7""#, None, src);
    let widened: Vec<usize> = r
        .findings
        .iter()
        .filter(|f| f.code == "MCP205")
        .map(|f| f.line)
        .collect();
    // Only the read into the `Option<u32>` field: the `Option<u64>` one fits already.
    assert_eq!(widened, vec![14], "{:#?}", r.findings);
    let out = fix_unsafe(src);
    assert!(
        out.text
            .contains("size: resource.size.and_then(|v| u32::try_from(v).ok()) }"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("Wide { size: resource.size }"),
        "{}",
        out.text
    );
    // A file that names no widened struct: another `size`.
    let other = src
        .replace("resource: &Resource", "resource: &Page")
        .replace(
        "pub struct Wide",
        "pub struct Page {\n    pub uri: String,\n    pub size: Option<u32>,\n}\n\npub struct Wide",
    );
    let r = lint_text(r#"rmcp = "1.7""#, None, &other);
    assert!(
        !r.findings.iter().any(|f| f.code == "MCP205"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_bound_on_a_gone_trait_goes_and_then_its_import() {
    // `Annotated` unwraps to the value, which leaves the helper an identity whose bound names a
    // trait 3.x no longer has: the bound goes, then nothing names the trait and its import goes.
    let src = "use rmcp::model::{AnnotateAble, Annotated, RawResource};\n\nfn no_ann<T: AnnotateAble>(raw: T) -> Annotated<T> {\n    Annotated::new(raw, None)\n}\n\nfn both<T>(raw: T) -> T\nwhere\n    T: AnnotateAble + Clone,\n{\n    raw.clone()\n}\n\npub fn listed() -> Vec<Annotated<RawResource>> {\n    vec![no_ann(both(RawResource::new(\"a\", \"b\")))]\n}\n";
    let out = fix_unsafe(src);
    assert!(!out.text.contains("AnnotateAble"), "{}", out.text);
    assert!(
        out.text.contains("fn no_ann<T>(raw: T) -> T {"),
        "{}",
        out.text
    );
    assert!(out.text.contains("    T: Clone,\n"), "{}", out.text);
    assert!(
        out.fixed
            .iter()
            .any(|f| f.fix.as_ref().is_some_and(
                |x| x.message == "drop the bound `AnnotateAble`: rmcp removed the trait"
            )),
        "{:#?}",
        out.fixed
    );
    assert!(
        !out.remaining.iter().any(|f| f.code == "MCP201"),
        "{:#?}",
        out.remaining
    );
    // Without the unsafe fixes the bound stays, and so does the import it keeps alive.
    let safe = fix_driver::fix_source(
        "lib.rs",
        src,
        &Settings::default(),
        fix::Allowed {
            unsafe_fixes: false,
        },
    );
    assert!(safe.text.contains("T: AnnotateAble"), "{}", safe.text);
}

#[test]
fn a_generic_struct_s_literal_is_built_with_its_constructor_and_its_defaults_are_left_to_it() {
    // A handler's test builds its `RequestContext` by hand; 3.x made it non-exhaustive, with a
    // `new(id, peer)` in a generic impl, and gave `meta` another type.
    let src = "use rmcp::model::*;\nuse rmcp::service::{Peer, RequestContext, RoleServer};\nuse tokio_util::sync::CancellationToken;\n\npub fn ctx(peer: Peer<RoleServer>, token: CancellationToken) -> RequestContext<RoleServer> {\n    RequestContext {\n        ct: token,\n        extensions: Extensions::default(),\n        id: RequestId::Number(1),\n        meta: Meta::default(),\n        peer,\n    }\n}\n";
    let r = lint_text(r#"rmcp = "1.2""#, None, src);
    assert!(
        r.findings.iter().any(|f| f.code == "MCP204"),
        "{:#?}",
        r.findings
    );
    let out = fix_unsafe(src);
    assert!(
        out.text.contains(
            "let mut rc = RequestContext::new(RequestId::Number(1), peer);\n        rc.ct = token;\n        rc\n"
        ),
        "{}",
        out.text
    );
    // What the constructor leaves at its default is not set again (3.x's `meta` is another type).
    assert!(!out.text.contains("rc.meta"), "{}", out.text);
    assert!(!out.text.contains("rc.extensions"), "{}", out.text);
}

#[test]
fn a_content_value_annotated_with_the_wrapper_s_builders_is_built_as_typed_content() {
    let src = "use rmcp::model::{CallToolResult, Content, Role};\n\npub fn out(a: String, b: String) -> CallToolResult {\n    CallToolResult::success(vec![\n        Content::text(a).with_audience(vec![Role::Assistant]).with_priority(0.5),\n        Content::image(b, \"image/png\").with_audience(vec![Role::User]),\n    ])\n}\n";
    let r = lint_text(r#"rmcp = "1.5""#, None, src);
    let reported: Vec<_> = r.findings.iter().filter(|f| f.code == "MCP205").collect();
    // One finding per chain, on its last builder.
    assert_eq!(reported.len(), 2, "{reported:#?}");
    assert!(reported[0]
        .message
        .contains("`.with_priority(..)` of a content value"));
    let out = fix_unsafe(src);
    assert!(
        out.text.contains("rmcp::model::ContentBlock::Text(rmcp::model::TextContent::new(a).with_annotations(rmcp::model::Annotations::default().with_audience(vec![Role::Assistant]).with_priority(0.5)))"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("rmcp::model::ContentBlock::Image(rmcp::model::ImageContent::new(b, \"image/png\").with_annotations(rmcp::model::Annotations::default().with_audience(vec![Role::User])))"),
        "{}",
        out.text
    );
    // 3.x's own `Annotations` builder, and a builder on a value the rows cannot see: quiet.
    let quiet = "use rmcp::model::{Annotations, Role, TextContent};\n\npub fn t(a: String, n: Annotations) -> TextContent {\n    let _ = n.with_audience(vec![Role::User]);\n    TextContent::new(a).with_annotations(Annotations::default().with_audience(vec![Role::User]))\n}\n";
    let r = lint_text(r#"rmcp = "3.11""#, None, quiet);
    assert!(
        !r.findings.iter().any(|f| f.code == "MCP205"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_literal_under_a_generated_model_alias_is_its_structs_and_a_namesake_is_not() {
    // `ServerConfig` is rmcp's alias of `InitializeResult` (MODEL_ALIASES, generated with the
    // struct rows); russh has a `Config` imported under the same name.
    let body = "\npub fn a() -> ServerConfig {\n    ServerConfig { instructions: None, ..Default::default() }\n}\n";
    let of_rmcp = lint_text(
        "rmcp = \"0.14\"",
        None,
        &format!("use rmcp::model::ServerConfig;\n{body}"),
    );
    let hits: Vec<&str> = of_rmcp
        .findings
        .iter()
        .filter(|f| f.code == "MCP204")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(hits.len(), 1, "{:#?}", of_rmcp.findings);
    assert!(hits[0].contains("`ServerConfig`"), "{hits:?}");
    let namesake = lint_text(
        "rmcp = \"0.14\"",
        None,
        &format!("use rmcp::model::Tool;\nuse russh::server::Config as ServerConfig;\n{body}"),
    );
    assert!(
        !namesake.findings.iter().any(|f| f.code == "MCP204"),
        "{:#?}",
        namesake.findings
    );
}

/// 0.15 made a sampling message's `content` one block or several: the text of the old single
/// `Content` is the first block's. Only a receiver ending in `message.content` is that field; a
/// content block's own `as_text()` is unchanged.
#[test]
fn a_sampling_result_s_text_read_the_old_way_reads_the_first_block() {
    let src = "use rmcp::model::*;\n\npub fn text(result: CreateMessageResult) -> Option<String> {\n    result.message.content.as_text().map(|t| t.text.clone())\n}\n\npub fn block(c: &Content) -> Option<String> {\n    c.as_text().map(|t| t.text.clone())\n}\n\npub fn other(p: &PromptMessage) -> bool {\n    p.content.as_text().is_some()\n}\n";
    let r = lint_text(r#"rmcp = "0.14""#, None, src);
    let found: Vec<&mcp_lint::finding::Finding> = r
        .findings
        .iter()
        .filter(|f| f.message.contains("as_text"))
        .collect();
    assert_eq!(found.len(), 1, "{:#?}", r.findings);
    assert_eq!(found[0].line, 4);
    let fixed = mcp_lint::fix::apply::apply_fixes(src, &[found[0].fix.as_ref().unwrap()]).text;
    assert!(
        fixed.contains(
            "    result.message.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone())\n"
        ),
        "{fixed}"
    );
    // On the release that made the change, the same read is another API's: quiet.
    let current = src.replace("c: &Content", "c: &ContentBlock");
    let r = lint_text(r#"rmcp = "3.11""#, None, &current);
    assert!(
        !r.findings.iter().any(|f| f.message.contains("as_text")),
        "{:#?}",
        r.findings
    );
}

/// `.raw` of a sampling message's content is not the wrapper's field of a content: since 0.15
/// that content is one block or several, so dropping `.raw` would not fit. The match reads the
/// first block (`Some(SamplingMessageContentBlock::Text(t)) = ...first()`); a plain content's
/// `.raw` is still dropped; an arm that binds the whole value keeps the guidance.
#[test]
fn a_sampling_message_s_raw_content_is_matched_on_its_first_block() {
    let src = "use rmcp::model::*;\n\npub fn sampled(result: &CreateMessageResult) -> String {\n    if let RawContent::Text(t) = &result.message.content.raw {\n        t.text.clone()\n    } else {\n        String::new()\n    }\n}\n\npub fn plain(c: &Content) -> String {\n    if let RawContent::Text(t) = &c.raw {\n        t.text.clone()\n    } else {\n        String::new()\n    }\n}\n\npub fn whole(result: &CreateMessageResult) -> usize {\n    match &result.message.content.raw {\n        RawContent::Text(t) => t.text.len(),\n        other => format!(\"{other:?}\").len(),\n    }\n}\n";
    let r = lint_text(r#"rmcp = "0.14""#, None, src);
    let raw = |line: usize| {
        r.findings
            .iter()
            .find(|f| f.line == line && f.message.contains("`.raw`"))
            .unwrap_or_else(|| panic!("{:#?}", r.findings))
    };
    let sampled = raw(4);
    let fix = sampled.fix.as_ref().unwrap();
    assert_eq!(
        fix.applicability,
        mcp_lint::finding::Applicability::Unsafe,
        "{sampled:#?}"
    );
    let fixed = mcp_lint::fix::apply::apply_fixes(src, &[fix]).text;
    assert!(
        fixed.contains(
            "    if let Some(SamplingMessageContentBlock::Text(t)) = result.message.content.first() {\n"
        ),
        "{fixed}"
    );
    let plain = raw(12);
    assert_eq!(
        plain.fix.as_ref().map(|f| f.applicability),
        Some(mcp_lint::finding::Applicability::Safe),
        "{plain:#?}"
    );
    let whole = raw(20);
    assert_eq!(
        whole.fix.as_ref().map(|f| f.applicability),
        Some(mcp_lint::finding::Applicability::DisplayOnly),
        "{whole:#?}"
    );
    assert!(
        whole
            .help
            .as_deref()
            .unwrap()
            .contains("SamplingMessageContentBlock::Text(t)"),
        "{whole:#?}"
    );
}
