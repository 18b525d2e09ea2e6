//! Asks: the inputRequests they produce, flat form schemas, capability checks, answer decoding.

use mrtr::{
    Elicitation, IncomingRequest, Mrtr, MrtrError, Root, SamplingRequest, SamplingResponse,
    UrlElicitation,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Login {
    /// Your user name
    user_name: String,
    age: Option<u32>,
    subscribe: bool,
    plan: Plan,
    tags: Vec<Color>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Plan {
    Free,
    Pro,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Color {
    Red,
    Green,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Nested {
    name: String,
    address: Address,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Address {
    street: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Confirm {
    confirm: bool,
}

fn mrtr(capabilities: Value) -> Mrtr {
    let request = IncomingRequest::call_tool("t", json!({})).with_capabilities(capabilities);
    Mrtr::new(request, &mrtr::testing::test_config("srv"))
}

fn full() -> Mrtr {
    mrtr(mrtr::testing::all_capabilities())
}

#[test]
fn form_elicitation_request_has_a_flat_schema() {
    let ask = full().elicit::<Login>("Sign in");
    assert!(ask.check().is_ok());
    let request = ask.input_request();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(request["params"]["message"], "Sign in");
    let schema = &request["params"]["requestedSchema"];
    assert_eq!(schema["type"], "object");
    assert!(
        schema.get("$schema").is_none() && schema.get("$defs").is_none(),
        "{schema}"
    );
    let props = &schema["properties"];
    assert_eq!(props["user_name"]["type"], "string");
    assert_eq!(props["user_name"]["description"], "Your user name");
    assert_eq!(props["age"]["type"], "integer");
    assert!(
        props["age"].get("format").is_none(),
        "non-spec format kept: {}",
        props["age"]
    );
    assert_eq!(props["subscribe"]["type"], "boolean");
    assert_eq!(props["plan"]["type"], "string");
    assert_eq!(props["plan"]["enum"], json!(["free", "pro"]));
    assert_eq!(props["tags"]["type"], "array");
    let mut required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort();
    assert_eq!(required, vec!["plan", "subscribe", "tags", "user_name"]);
    for property in props.as_object().unwrap().values() {
        assert!(
            property.get("$ref").is_none() && property.get("anyOf").is_none(),
            "{property}"
        );
    }
    assert_eq!(ask.required_capability(), json!({"elicitation": {}}));
}

#[test]
fn a_nested_form_cannot_be_sent() {
    let ask = full().elicit::<Nested>("Where?");
    let error = ask.check().unwrap_err();
    assert!(
        matches!(&error, MrtrError::Internal(m) if m.contains("address")),
        "{error:?}"
    );
}

#[test]
fn form_answers_decode_to_the_three_actions() {
    let ask = full().elicit::<Confirm>("Sure?");
    let accepted = ask
        .decode(
            "k",
            &json!({"action": "accept", "content": {"confirm": true}}),
        )
        .unwrap();
    assert!(matches!(
        accepted,
        Elicitation::Accept(Confirm { confirm: true })
    ));
    assert!(matches!(
        ask.decode("k", &json!({"action": "decline"})).unwrap(),
        Elicitation::Decline
    ));
    assert!(matches!(
        ask.decode("k", &json!({"action": "cancel"})).unwrap(),
        Elicitation::Cancel
    ));
}

#[test]
fn wrong_shaped_answers_are_invalid_answers_naming_the_key() {
    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Name {
        user_name: String,
    }
    let ask = full().elicit::<Name>("Name?");
    let cases = [
        json!({"action": "accept", "content": {"user_name": 12345}}),
        json!({"action": "accept", "content": {}}),
        json!({"action": "accept", "content": "alice"}),
        json!({"action": "maybe"}),
        json!({"content": {"user_name": "alice"}}),
        json!("accept"),
        json!({"action": 1}),
    ];
    for answer in cases {
        let error = ask.decode("github_login", &answer).unwrap_err();
        match &error {
            MrtrError::InvalidAnswer { key, .. } => assert_eq!(key, "github_login"),
            other => panic!("{answer}: expected InvalidAnswer, got {other:?}"),
        }
        assert_eq!(error.code(), -32602);
        assert!(
            error.message().contains("github_login"),
            "{}",
            error.message()
        );
    }
}

#[test]
fn url_elicitation_needs_the_url_capability() {
    let ask = full().elicit_url("Authorize", "https://example.invalid/authorize");
    assert_eq!(ask.input_request()["params"]["mode"], "url");
    assert_eq!(
        ask.input_request()["params"]["url"],
        "https://example.invalid/authorize"
    );
    assert_eq!(
        ask.required_capability(),
        json!({"elicitation": {"url": {}}})
    );
    assert_eq!(
        ask.decode("k", &json!({"action": "accept"})).unwrap(),
        UrlElicitation::Accept
    );
    assert_eq!(
        ask.decode("k", &json!({"action": "decline"})).unwrap(),
        UrlElicitation::Decline
    );
}

#[test]
fn capabilities_follow_the_spec_mapping() {
    let form = json!({"elicitation": {}});
    let url = json!({"elicitation": {"url": {}}});
    let sampling = json!({"sampling": {}});
    let sampling_tools = json!({"sampling": {"tools": {}}});
    let roots = json!({"roots": {}});

    let empty_elicitation = mrtr(json!({"elicitation": {}}));
    assert!(empty_elicitation.check_capability(&form).is_ok());
    assert!(
        empty_elicitation.check_capability(&url).is_err(),
        "{{}} means form only"
    );
    assert!(
        empty_elicitation.supports_form_elicitation()
            && !empty_elicitation.supports_url_elicitation()
    );

    let url_only = mrtr(json!({"elicitation": {"url": {}}}));
    assert!(url_only.check_capability(&url).is_ok());
    assert!(
        url_only.check_capability(&form).is_err(),
        "modes listed without form"
    );

    let both = mrtr(json!({"elicitation": {"form": {}, "url": {}}}));
    assert!(both.check_capability(&form).is_ok() && both.check_capability(&url).is_ok());

    let plain_sampling = mrtr(json!({"sampling": {}}));
    assert!(plain_sampling.check_capability(&sampling).is_ok());
    assert!(plain_sampling.check_capability(&sampling_tools).is_err());
    assert!(mrtr(json!({"sampling": {"tools": {}}}))
        .check_capability(&sampling_tools)
        .is_ok());

    assert!(mrtr(json!({"roots": {"listChanged": true}}))
        .check_capability(&roots)
        .is_ok());
    assert!(mrtr(json!({})).check_capability(&roots).is_err());

    let none = Mrtr::new(
        IncomingRequest::call_tool("t", json!({})),
        &mrtr::testing::test_config("s"),
    );
    let error = none.check_capability(&form).unwrap_err();
    assert_eq!(error.code(), -32021);
    assert_eq!(
        error.data(),
        Some(json!({"requiredCapabilities": {"elicitation": {}}}))
    );
}

#[test]
fn sampling_asks_carry_their_capability() {
    let mut request = SamplingRequest::new("Summarize", 100).system_prompt("Be brief");
    let ask = full().sample(request.clone());
    assert_eq!(ask.input_request()["method"], "sampling/createMessage");
    assert_eq!(ask.input_request()["params"]["maxTokens"], 100);
    assert_eq!(ask.input_request()["params"]["messages"][0]["role"], "user");
    assert_eq!(ask.required_capability(), json!({"sampling": {}}));
    request.tools = Some(vec![
        json!({"name": "search", "inputSchema": {"type": "object"}}),
    ]);
    assert_eq!(
        full().sample(request).required_capability(),
        json!({"sampling": {"tools": {}}})
    );

    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m", "stopReason": "endTurn"});
    let response: SamplingResponse = ask.decode("s", &answer).unwrap();
    assert_eq!(response.first_text(), Some("Short."));
    assert!(matches!(
        ask.decode("s", &json!({"role": "assistant"})),
        Err(MrtrError::InvalidAnswer { .. })
    ));
}

#[test]
fn roots_asks_decode_the_roots() {
    let ask = full().list_roots();
    assert_eq!(ask.input_request()["method"], "roots/list");
    assert_eq!(ask.required_capability(), json!({"roots": {}}));
    let roots: Vec<Root> = ask
        .decode(
            "r",
            &json!({"roots": [{"uri": "file:///src", "name": "src"}, {"uri": "file:///tmp"}]}),
        )
        .unwrap();
    assert_eq!(roots.len(), 2);
    assert_eq!(roots[0].name.as_deref(), Some("src"));
    assert!(ask.decode("r", &json!({"roots": "nope"})).is_err());
    assert!(ask.decode("r", &json!([])).is_err());
}

#[test]
fn explicit_keys_are_kept_and_answers_are_looked_up_by_key() {
    let ask = full().elicit::<Confirm>("Sure?").key("confirm");
    assert_eq!(ask.explicit_key(), Some("confirm"));
    let request = IncomingRequest::call_tool("t", json!({}))
        .with_input_responses(json!({"confirm": {"action": "decline"}, "extra": 1}));
    let mrtr = Mrtr::new(request, &mrtr::testing::test_config("s"));
    assert_eq!(mrtr.answer("confirm"), Some(&json!({"action": "decline"})));
    assert_eq!(mrtr.answer("missing"), None);
    let not_an_object = IncomingRequest::call_tool("t", json!({})).with_input_responses(json!([1]));
    assert_eq!(
        Mrtr::new(not_an_object, &mrtr::testing::test_config("s")).answer("0"),
        None
    );
}

#[test]
fn input_required_needs_requests_or_state() {
    use std::collections::BTreeMap;
    assert!(mrtr::InputRequired::new(BTreeMap::new(), None).is_err());
    assert!(mrtr::InputRequired::new(BTreeMap::new(), Some(String::new())).is_err());
    let state_only = mrtr::InputRequired::new(BTreeMap::new(), Some("s".into())).unwrap();
    assert_eq!(
        state_only.to_json(),
        json!({"resultType": "input_required", "requestState": "s"})
    );
    let mut requests = BTreeMap::new();
    requests.insert(
        "k".to_string(),
        json!({"method": "roots/list", "params": {}}),
    );
    let asks_only = mrtr::InputRequired::new(requests, None).unwrap();
    assert_eq!(
        asks_only.to_json(),
        json!({"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list", "params": {}}}})
    );
}

#[test]
fn handles_asks_and_configs_cross_threads() {
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<Mrtr>();
    send_sync::<mrtr::MrtrConfig>();
    send_sync::<mrtr::Ask<Elicitation<Confirm>>>();
    send_sync::<mrtr::Ask<Vec<Root>>>();
    send_sync::<mrtr::Ask<SamplingResponse>>();
}

#[test]
fn raw_json_rpc_params_become_an_incoming_request() {
    let params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        },
        "name": "deploy",
        "arguments": {"version": "1"},
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
        "requestState": 42
    });
    let request = IncomingRequest::from_json_rpc("tools/call", &params).unwrap();
    assert_eq!(request.method, mrtr::McpMethod::CallTool);
    assert_eq!(request.target, "deploy");
    assert_eq!(request.arguments, json!({"version": "1"}));
    assert_eq!(
        request.client_capabilities,
        Some(json!({"elicitation": {}}))
    );
    let mrtr = Mrtr::new(request, &mrtr::testing::test_config("s"));
    assert!(mrtr.supports_form_elicitation());
    assert!(mrtr.answer("confirm").is_some());
    assert_eq!(mrtr.open_state(), Err(MrtrError::InvalidState));

    let read =
        IncomingRequest::from_json_rpc("resources/read", &json!({"uri": "file:///a"})).unwrap();
    assert_eq!(
        (read.target.as_str(), &read.arguments),
        ("file:///a", &Value::Null)
    );
    assert!(IncomingRequest::from_json_rpc("tools/list", &json!({})).is_none());
}
