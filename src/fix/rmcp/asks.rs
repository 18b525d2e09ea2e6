//! What each legacy rmcp call becomes: the ask written in its place, the value that stands where
//! the old result was used, and what the rewrite changes (for the fix message).

/// A legacy call the rewrite knows.
#[derive(Debug, Clone)]
pub enum Ask {
    /// `elicit::<T>(message)` / `elicit_with_timeout::<T>(message, timeout)`.
    Elicit {
        turbofish: String,
        message: String,
        timeout: bool,
    },
    /// `elicit_url(message, url, id)` / `elicit_url_with_timeout(.., timeout)`.
    ElicitUrl {
        message: String,
        url: String,
        timeout: bool,
    },
    /// `create_elicitation(FormElicitationParams { message, requested_schema, .. })` /
    /// `create_elicitation_with_timeout(.., timeout)`: a schema built at run time.
    ElicitSchema {
        message: String,
        schema: String,
        timeout: bool,
    },
    /// `create_elicitation(params)` with params built elsewhere: rmcp's `ElicitRequestParams`.
    ElicitParams { params: String, timeout: bool },
    /// `list_roots()`.
    Roots,
    /// `create_message(params)`: through the runtime's conversions of rmcp's sampling types
    /// (`From<CreateMessageRequestParams> for SamplingRequest`, `TryFrom<SamplingResponse> for
    /// CreateMessageResult`).
    Sample { params: String },
}

/// Reads a call's method and arguments; `Err` explains why the call has no rewrite.
pub fn read(
    mc: &syn::ExprMethodCall,
    src: &str,
    idx: &crate::reading::source::LineIndex,
) -> Result<Ask, String> {
    let arg = |i: usize| -> Result<String, String> {
        let (s, e) =
            super::text::range_of(&mc.args[i], idx).ok_or("an argument without a position")?;
        Ok(src[s..e].to_string())
    };
    let name = mc.method.to_string();
    Ok(match name.as_str() {
        "elicit" | "elicit_with_timeout" => Ask::Elicit {
            turbofish: match &mc.turbofish {
                Some(t) => {
                    let (s, e) =
                        super::text::range_of(t, idx).ok_or("a turbofish without a position")?;
                    src[s..e].to_string()
                }
                None => String::new(),
            },
            message: arg(0)?,
            timeout: name.ends_with("_with_timeout"),
        },
        "elicit_url" | "elicit_url_with_timeout" => Ask::ElicitUrl {
            message: arg(0)?,
            url: arg(1)?,
            timeout: name.ends_with("_with_timeout"),
        },
        "list_roots" => Ask::Roots,
        "create_message" => Ask::Sample { params: arg(0)? },
        "create_elicitation" | "create_elicitation_with_timeout" => {
            let Some((message, schema)) = mc.args.first().and_then(form_fields) else {
                // Params built elsewhere (a helper assembling the form from data).
                return Ok(Ask::ElicitParams {
                    params: arg(0)?,
                    timeout: name.ends_with("_with_timeout"),
                });
            };
            let text = |e: &syn::Expr| -> Result<String, String> {
                let (s, e) =
                    super::text::range_of(e, idx).ok_or("an argument without a position")?;
                Ok(src[s..e].to_string())
            };
            // `message: "..".into()` was a `String` field; the ask takes `impl Into<String>`.
            let message = match message {
                syn::Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => &*m.receiver,
                other => other,
            };
            Ask::ElicitSchema {
                message: text(message)?,
                schema: text(schema)?,
                timeout: name.ends_with("_with_timeout"),
            }
        }
        other => return Err(format!("`{other}` has no MRTR rewrite")),
    })
}

/// The `message` and `requested_schema` of a `..::FormElicitationParams { .. }` literal.
fn form_fields(arg: &syn::Expr) -> Option<(&syn::Expr, &syn::Expr)> {
    let syn::Expr::Struct(lit) = arg else {
        return None;
    };
    if super::text::path_end(&lit.path) != "FormElicitationParams" || lit.rest.is_some() {
        return None;
    }
    let field = |name: &str| {
        lit.fields.iter().find_map(|f| match &f.member {
            syn::Member::Named(n) if n == name => Some(&f.expr),
            _ => None,
        })
    };
    Some((field("message")?, field("requested_schema")?))
}

impl Ask {
    /// The ask expression, without `.await`.
    pub fn expr(&self, mrtr: &str) -> String {
        match self {
            Ask::Elicit {
                turbofish, message, ..
            } => format!("{mrtr}.elicit{turbofish}({message})"),
            Ask::ElicitUrl { message, url, .. } => format!("{mrtr}.elicit_url({message}, {url})"),
            Ask::ElicitSchema {
                message, schema, ..
            } => format!("{mrtr}.elicit_schema({message}, {schema})"),
            Ask::ElicitParams { params, .. } => format!("{mrtr}.elicit_params({params})"),
            Ask::Roots => format!("{mrtr}.list_roots()"),
            Ask::Sample { params } => {
                format!("{mrtr}.sample(mrtr::SamplingRequest::from({params}))")
            }
        }
    }

    /// The texts of the question's parts (message, URL, schema, params), to rewrite in place.
    pub fn parts_mut(&mut self) -> Vec<&mut String> {
        match self {
            Ask::Elicit { message, .. } => vec![message],
            Ask::ElicitUrl { message, url, .. } => vec![message, url],
            Ask::ElicitSchema {
                message, schema, ..
            } => vec![message, schema],
            Ask::ElicitParams { params, .. } | Ask::Sample { params } => vec![params],
            Ask::Roots => Vec::new(),
        }
    }

    /// The runtime names the rewritten code uses.
    pub fn imports(&self) -> &'static [&'static str] {
        match self {
            Ask::Elicit { .. } | Ask::ElicitSchema { .. } | Ask::ElicitParams { .. } => {
                &["Elicitation"]
            }
            Ask::ElicitUrl { .. } => &["UrlElicitation"],
            Ask::Roots | Ask::Sample { .. } => &[],
        }
    }

    /// An expression of the old call's awaited type (`Result<Option<T>, ElicitationError>`,
    /// `Result<ElicitationAction, ElicitationError>`, `Result<ListRootsResult, ServiceError>`)
    /// built from the answer bound to `answer`, so the code that used the old result is kept.
    /// `root`: the name the file uses the rmcp crate by ([`super::Cx::rmcp`]).
    pub fn legacy_value(&self, answer: &str, indent: &str, root: &str) -> String {
        super::text::rmcp_paths(&self.legacy_value_in_rmcp(answer, indent), root)
    }

    fn legacy_value_in_rmcp(&self, answer: &str, indent: &str) -> String {
        let i = indent;
        match self {
            Ask::Elicit { .. } => format!(
                "match {answer} {{\n\
{i}    Elicitation::Accept(value) => Ok(Some(value)),\n\
{i}    Elicitation::Decline => Err(rmcp::service::ElicitationError::UserDeclined),\n\
{i}    Elicitation::Cancel => Err(rmcp::service::ElicitationError::UserCancelled),\n\
{i}}}"
            ),
            Ask::ElicitUrl { .. } => format!(
                "Ok::<_, rmcp::service::ElicitationError>(match {answer} {{\n\
{i}    UrlElicitation::Accept => rmcp::model::ElicitationAction::Accept,\n\
{i}    UrlElicitation::Decline => rmcp::model::ElicitationAction::Decline,\n\
{i}    UrlElicitation::Cancel => rmcp::model::ElicitationAction::Cancel,\n\
{i}}})"
            ),
            Ask::ElicitSchema { .. } | Ask::ElicitParams { .. } => format!(
                "Ok::<_, rmcp::ServiceError>(match {answer} {{\n\
{i}    Elicitation::Accept(content) => rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)\n\
{i}        .with_content(rmcp::serde_json::Value::Object(content)),\n\
{i}    Elicitation::Decline => rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Decline),\n\
{i}    Elicitation::Cancel => rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Cancel),\n\
{i}}})"
            ),
            Ask::Roots => format!(
                "Ok::<_, rmcp::ServiceError>(rmcp::model::ListRootsResult::new(\n\
{i}    {answer}\n\
{i}        .into_iter()\n\
{i}        .map(|root| match root.name {{\n\
{i}            Some(name) => rmcp::model::Root::new(root.uri).with_name(name),\n\
{i}            None => rmcp::model::Root::new(root.uri),\n\
{i}        }})\n\
{i}        .collect(),\n\
{i}))"
            ),
            Ask::Sample { .. } => format!("rmcp::model::CreateMessageResult::try_from({answer})"),
        }
    }

    /// The value inside the old call's `Ok(..)`, built from the answer, for the asks whose old
    /// result the code reads after a `?` (a run-time form's `ElicitResult`, a `ListRootsResult`).
    pub fn legacy_ok_value(&self, answer: &str, indent: &str, root: &str) -> Option<String> {
        self.legacy_ok_value_in_rmcp(answer, indent)
            .map(|v| super::text::rmcp_paths(&v, root))
    }

    fn legacy_ok_value_in_rmcp(&self, answer: &str, indent: &str) -> Option<String> {
        let i = indent;
        match self {
            Ask::ElicitSchema { .. } | Ask::ElicitParams { .. } => Some(format!(
                "match {answer} {{\n\
{i}    Elicitation::Accept(content) => rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)\n\
{i}        .with_content(rmcp::serde_json::Value::Object(content)),\n\
{i}    Elicitation::Decline => rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Decline),\n\
{i}    Elicitation::Cancel => rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Cancel),\n\
{i}}}"
            )),
            Ask::Roots => Some(format!(
                "rmcp::model::ListRootsResult::new(\n\
{i}    {answer}\n\
{i}        .into_iter()\n\
{i}        .map(|root| match root.name {{\n\
{i}            Some(name) => rmcp::model::Root::new(root.uri).with_name(name),\n\
{i}            None => rmcp::model::Root::new(root.uri),\n\
{i}        }})\n\
{i}        .collect(),\n\
{i})"
            )),
            _ => None,
        }
    }

    /// An expression of the old call's awaited type built from `answer`, the ask's
    /// `Result<_, MrtrError>` awaited without `?` (a helper that handled the request's errors
    /// itself keeps handling them). The runtime's error becomes the old error type only where
    /// `error_read` (the code reads the error) or where the old value's own conversion fails with
    /// it (a sampling answer, an elicitation's decline).
    pub fn legacy_result(
        &self,
        answer: &str,
        indent: &str,
        error_read: bool,
        root: &str,
    ) -> String {
        super::text::rmcp_paths(
            &self.legacy_result_in_rmcp(answer, indent, error_read),
            root,
        )
    }

    fn legacy_result_in_rmcp(&self, answer: &str, indent: &str, error_read: bool) -> String {
        let i = indent;
        let service = "rmcp::ServiceError::McpError(e.into())";
        let elicitation = format!("rmcp::service::ElicitationError::Service({service})");
        let map_err = |to: &str| format!("\n{i}    .map_err(|e| {to})");
        match self {
            Ask::Elicit { .. } => format!(
                "{answer}{}\n\
{i}    .and_then(|answer| match answer {{\n\
{i}        Elicitation::Accept(value) => Ok(Some(value)),\n\
{i}        Elicitation::Decline => Err(rmcp::service::ElicitationError::UserDeclined),\n\
{i}        Elicitation::Cancel => Err(rmcp::service::ElicitationError::UserCancelled),\n\
{i}    }})",
                map_err(&elicitation)
            ),
            Ask::ElicitUrl { .. } => format!(
                "{answer}\n\
{i}    .map(|answer| match answer {{\n\
{i}        UrlElicitation::Accept => rmcp::model::ElicitationAction::Accept,\n\
{i}        UrlElicitation::Decline => rmcp::model::ElicitationAction::Decline,\n\
{i}        UrlElicitation::Cancel => rmcp::model::ElicitationAction::Cancel,\n\
{i}    }}){}",
                if error_read {
                    map_err(&elicitation)
                } else {
                    String::new()
                }
            ),
            Ask::Sample { .. } => format!(
                "{answer}{}\n{i}    .and_then(rmcp::model::CreateMessageResult::try_from)",
                map_err(service)
            ),
            Ask::Roots | Ask::ElicitSchema { .. } | Ask::ElicitParams { .. } => {
                let value = if matches!(self, Ask::Roots) {
                    "roots"
                } else {
                    "answer"
                };
                let inner = format!("{i}    ");
                let built = self
                    .legacy_ok_value_in_rmcp(value, &inner)
                    .expect("roots and run-time forms have one");
                format!(
                    "{answer}\n{i}    .map(|{value}| {built}){}",
                    if error_read {
                        map_err(service)
                    } else {
                        String::new()
                    }
                )
            }
        }
    }

    /// The one-line fix message about this ask (the rule's docs, `cargo mcp-lint rule CODE`,
    /// explain what changes on the wire and why the fix is unsafe).
    pub fn describe(&self, method: &str) -> String {
        let mut s = match self {
            Ask::Elicit { turbofish, .. } => {
                format!("`{method}` becomes `mrtr.elicit{turbofish}(..)` under `#[mrtr_handler]`")
            }
            Ask::ElicitUrl { .. } => format!(
                "`{method}` becomes `mrtr.elicit_url(message, url)` under `#[mrtr_handler]` (the \
elicitation id is dropped)"
            ),
            Ask::ElicitSchema { .. } => format!(
                "`{method}` becomes `mrtr.elicit_schema(message, requested_schema)` under \
`#[mrtr_handler]`"
            ),
            Ask::ElicitParams { .. } => {
                format!("`{method}` becomes `mrtr.elicit_params(params)` under `#[mrtr_handler]`")
            }
            Ask::Roots => format!("`{method}` becomes `mrtr.list_roots()` under `#[mrtr_handler]`"),
            Ask::Sample { .. } => format!(
                "`{method}` becomes `mrtr.sample(mrtr::SamplingRequest::from(params))` under \
`#[mrtr_handler]`"
            ),
        };
        let timeout = matches!(
            self,
            Ask::Elicit { timeout: true, .. }
                | Ask::ElicitUrl { timeout: true, .. }
                | Ask::ElicitSchema { timeout: true, .. }
                | Ask::ElicitParams { timeout: true, .. }
        );
        if timeout {
            s.push_str(&format!(" (the timeout of `{method}` is dropped)"));
        }
        s
    }
}
