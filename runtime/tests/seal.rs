//! requestState sealing: round trip, every tamper/binding/expiry case, rotation, budget, replay.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use mrtr::testing::{tamper, ManualClock};
use mrtr::{
    InMemoryReplayGuard, IncomingRequest, KeyRing, Mrtr, MrtrConfig, MrtrError, SecretKey,
    StateBody,
};
use serde_json::{json, Map, Value};

const KEY_A: [u8; 32] = [0x11; 32];
const KEY_B: [u8; 32] = [0x22; 32];

fn ring(keys: &[(&str, [u8; 32])]) -> KeyRing {
    KeyRing::new(
        keys.iter()
            .map(|(kid, bytes)| SecretKey::new(*kid, bytes.to_vec()).unwrap())
            .collect(),
    )
    .unwrap()
}

fn config() -> MrtrConfig {
    MrtrConfig::new("deployer", ring(&[("k1", KEY_A)]))
}

fn body() -> StateBody {
    let mut data = Map::new();
    data.insert(
        "v:plan".into(),
        json!({"steps": ["build", "ship"], "secret": "s3cr3t"}),
    );
    StateBody {
        flow_id: "00112233445566778899aabbccddeeff".into(),
        step: 1,
        fingerprint: "fp-1".into(),
        data,
    }
}

fn request() -> IncomingRequest {
    IncomingRequest::call_tool("deploy", json!({"version": "1.2.3", "env": "prod"}))
        .with_principal("alice")
        .with_capabilities(json!({"elicitation": {}}))
}

fn seal_with(config: &MrtrConfig, request: &IncomingRequest) -> String {
    Mrtr::new(request.clone(), config)
        .seal_state(&body())
        .unwrap()
}

fn open_with(
    config: &MrtrConfig,
    request: IncomingRequest,
    state: Value,
) -> Result<Option<StateBody>, MrtrError> {
    Mrtr::new(request.with_request_state(state), config).open_state()
}

/// Every verification failure is the one indistinguishable wire error.
fn assert_invalid(result: Result<Option<StateBody>, MrtrError>) {
    let error = result.expect_err("the state must be rejected");
    assert_eq!(error, MrtrError::InvalidState);
    assert_eq!(error.code(), -32602);
    assert_eq!(error.message(), "Invalid or expired requestState");
    assert_eq!(error.data(), None);
    #[cfg(feature = "rmcp")]
    {
        let wire: rmcp::ErrorData = error.into();
        assert_eq!(wire.code.0, -32602);
        assert_eq!(wire.message, "Invalid or expired requestState");
    }
}

#[test]
fn round_trip_restores_the_body() {
    let config = config();
    let token = seal_with(&config, &request());
    assert!(token.starts_with("m2.k1."), "{token}");
    let opened = open_with(&config, request(), Value::String(token)).unwrap();
    assert_eq!(opened, Some(body()));
}

#[test]
fn no_state_is_none_not_an_error() {
    assert_eq!(Mrtr::new(request(), &config()).open_state(), Ok(None));
}

#[test]
fn state_is_encrypted_not_just_signed() {
    let token = seal_with(&config(), &request());
    let payload = token.rsplit('.').next().unwrap();
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    let haystack = String::from_utf8_lossy(&raw);
    for secret in ["s3cr3t", "build", "alice", "deploy", "fp-1"] {
        assert!(
            !haystack.contains(secret),
            "`{secret}` readable in the token"
        );
    }
}

#[test]
fn two_seals_of_the_same_body_differ() {
    let config = config();
    assert_ne!(
        seal_with(&config, &request()),
        seal_with(&config, &request())
    );
}

#[test]
fn every_flipped_character_is_rejected() {
    let config = config();
    let token = seal_with(&config, &request());
    for index in 0..token.len() {
        let tampered = tamper::flip_char(&token, index);
        assert_ne!(tampered, token);
        assert_invalid(open_with(&config, request(), Value::String(tampered)));
    }
}

#[test]
fn truncations_are_rejected() {
    let config = config();
    let token = seal_with(&config, &request());
    for len in [0, 1, 3, 6, 20, token.len() / 2, token.len() - 1] {
        assert_invalid(open_with(
            &config,
            request(),
            Value::String(tamper::truncate(&token, len)),
        ));
    }
}

#[test]
fn suffixes_and_reencodings_are_rejected() {
    let config = config();
    let token = seal_with(&config, &request());
    let payload = token.strip_prefix("m2.k1.").unwrap();
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    let standard = base64::engine::general_purpose::STANDARD.encode(&raw);
    let candidates = [
        format!("{token}-TAMPERED"),
        format!("{token}A"),
        format!("{token}="),
        format!(" {token}"),
        format!("m2.k1.{standard}"),
        format!("m1.k1.{payload}"),
        format!("m3.k1.{payload}"),
        format!("m2.k1.{payload}.extra"),
        token.to_uppercase(),
        format!("m2.k1.{}", hex::encode(&raw)),
    ];
    for candidate in candidates {
        assert_invalid(open_with(&config, request(), Value::String(candidate)));
    }
}

#[test]
fn a_non_string_state_is_rejected() {
    let config = config();
    let token = seal_with(&config, &request());
    for state in [
        json!(12345),
        json!(null),
        json!(true),
        json!({"state": token}),
        json!([token]),
    ] {
        assert_invalid(open_with(&config, request(), state));
    }
}

#[test]
fn expiry_uses_the_configured_clock() {
    let clock = ManualClock::new();
    let config = config()
        .with_ttl(Duration::from_secs(600))
        .with_clock_skew(Duration::from_secs(30))
        .with_clock(clock.clone());
    let token = seal_with(&config, &request());

    clock.advance(Duration::from_secs(600 + 30));
    assert!(open_with(&config, request(), Value::String(token.clone())).is_ok());
    clock.advance(Duration::from_secs(1));
    assert_invalid(open_with(&config, request(), Value::String(token.clone())));

    // Issued in the future beyond the skew allowance: another instance's clock is off.
    clock.rewind(Duration::from_secs(631 + 31));
    assert_invalid(open_with(&config, request(), Value::String(token)));
}

#[test]
fn a_state_is_bound_to_its_principal() {
    let config = config();
    let token = Value::String(seal_with(&config, &request()));
    assert_invalid(open_with(
        &config,
        request().with_principal("mallory"),
        token.clone(),
    ));
    let mut anonymous = request();
    anonymous.principal = None;
    assert_invalid(open_with(&config, anonymous, token));

    let mut anonymous = request();
    anonymous.principal = None;
    let unbound = Value::String(seal_with(&config, &anonymous));
    assert_invalid(open_with(&config, request(), unbound));
}

#[test]
fn a_state_is_bound_to_method_and_target() {
    let config = config();
    let token = Value::String(seal_with(&config, &request()));
    let mut other_tool = request();
    other_tool.target = "delete_everything".into();
    assert_invalid(open_with(&config, other_tool, token.clone()));

    let mut as_prompt = request();
    as_prompt.method = mrtr::McpMethod::GetPrompt;
    assert_invalid(open_with(&config, as_prompt, token));
}

#[test]
fn a_state_is_bound_to_the_arguments_canonically() {
    let config = config();
    let token = Value::String(seal_with(&config, &request()));
    let mut changed = request();
    changed.arguments = json!({"version": "6.6.6", "env": "prod"});
    assert_invalid(open_with(&config, changed, token.clone()));

    let mut dropped = request();
    dropped.arguments = Value::Null;
    assert_invalid(open_with(&config, dropped, token.clone()));

    // Same arguments in another key order: same digest.
    let mut reordered = request();
    reordered.arguments = serde_json::from_str(r#"{"env":"prod","version":"1.2.3"}"#).unwrap();
    assert!(open_with(&config, reordered, token).unwrap().is_some());
}

#[test]
fn canonical_digest_sorts_nested_keys() {
    let a: Value = serde_json::from_str(r#"{"b":{"y":1,"x":[{"q":1,"p":2}]},"a":"é\n"}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"a":"é\n","b":{"x":[{"p":2,"q":1}],"y":1}}"#).unwrap();
    assert_eq!(mrtr::seal::args_digest(&a), mrtr::seal::args_digest(&b));
    let mut canonical = String::new();
    mrtr::seal::canonical_json(&a, &mut canonical);
    assert_eq!(canonical, r#"{"a":"é\n","b":{"x":[{"p":2,"q":1}],"y":1}}"#);
    assert_ne!(
        mrtr::seal::args_digest(&json!({"a": 1})),
        mrtr::seal::args_digest(&json!({"a": "1"}))
    );
}

#[test]
fn a_state_is_bound_to_the_audience() {
    let token = Value::String(seal_with(&config(), &request()));
    let other_server = MrtrConfig::new("billing", ring(&[("k1", KEY_A)]));
    assert_invalid(open_with(&other_server, request(), token));
}

#[test]
fn an_unknown_key_id_is_rejected() {
    let token = Value::String(seal_with(&config(), &request()));
    let other_ring = MrtrConfig::new("deployer", ring(&[("k2", KEY_B)]));
    assert_invalid(open_with(&other_ring, request(), token.clone()));
    // The same key bytes under another id do not help: the id is authenticated.
    let renamed = MrtrConfig::new("deployer", ring(&[("k9", KEY_A)]));
    assert_invalid(open_with(&renamed, request(), token.clone()));
    let relabelled = token.as_str().unwrap().replacen("m2.k1.", "m2.k9.", 1);
    assert_invalid(open_with(&renamed, request(), Value::String(relabelled)));
}

#[test]
fn rotation_seals_with_the_newest_and_opens_with_any() {
    let old = MrtrConfig::new("deployer", ring(&[("k1", KEY_A)]));
    let rotated = MrtrConfig::new("deployer", ring(&[("k2", KEY_B), ("k1", KEY_A)]));
    let old_token = seal_with(&old, &request());
    assert_eq!(
        open_with(&rotated, request(), Value::String(old_token.clone())).unwrap(),
        Some(body())
    );
    let new_token = seal_with(&rotated, &request());
    assert!(new_token.starts_with("m2.k2."), "{new_token}");
    assert!(open_with(&rotated, request(), Value::String(new_token.clone())).is_ok());
    assert_invalid(open_with(&old, request(), Value::String(new_token)));
    // After the old key is retired, its states stop opening.
    let retired = MrtrConfig::new("deployer", ring(&[("k2", KEY_B)]));
    assert_invalid(open_with(&retired, request(), Value::String(old_token)));
}

#[test]
fn an_oversized_incoming_state_is_rejected() {
    let roomy = config().with_max_state_bytes(64 * 1024);
    let mut big = body();
    big.data
        .insert("v:blob".into(), Value::String("x".repeat(12 * 1024)));
    let token = Mrtr::new(request(), &roomy).seal_state(&big).unwrap();
    assert!(token.len() > 8 * 1024);
    // A perfectly valid token over the receiving budget is refused.
    assert!(open_with(&roomy, request(), Value::String(token.clone())).is_ok());
    assert_invalid(open_with(&config(), request(), Value::String(token)));
    assert_invalid(open_with(
        &config(),
        request(),
        Value::String("A".repeat(1 << 20)),
    ));
}

#[test]
fn sealing_over_the_budget_is_an_error_the_author_sees() {
    let config = config().with_max_state_bytes(512);
    let mut big = body();
    big.data
        .insert("v:blob".into(), Value::String("x".repeat(600)));
    let error = Mrtr::new(request(), &config).seal_state(&big).unwrap_err();
    match &error {
        MrtrError::StateTooLarge { size, limit } => {
            assert_eq!(*limit, 512);
            assert!(*size > 512);
        }
        other => panic!("expected StateTooLarge, got {other:?}"),
    }
    assert_eq!(error.code(), -32603);
    // Under the budget it seals, and the token respects it.
    let token = Mrtr::new(request(), &config).seal_state(&body()).unwrap();
    assert!(token.len() <= 512);
}

#[test]
fn the_replay_guard_rejects_a_second_use() {
    let guard = Arc::new(InMemoryReplayGuard::new());
    let config = config().with_replay_guard(guard.clone());
    let token = Value::String(seal_with(&config, &request()));
    assert!(open_with(&config, request(), token.clone())
        .unwrap()
        .is_some());
    assert_eq!(guard.len(), 1);
    assert_invalid(open_with(&config, request(), token));
    // Another state of the same flow and step is a different token, and is accepted.
    let again = Value::String(seal_with(&config, &request()));
    assert!(open_with(&config, request(), again).is_ok());
}

#[test]
fn a_rejected_state_does_not_consume_the_guard() {
    let guard = Arc::new(InMemoryReplayGuard::new());
    let config = config().with_replay_guard(guard.clone());
    let token = Value::String(seal_with(&config, &request()));
    assert_invalid(open_with(
        &config,
        request().with_principal("mallory"),
        token.clone(),
    ));
    assert!(guard.is_empty());
    assert!(open_with(&config, request(), token).is_ok());
}

#[test]
fn the_fingerprint_is_checked_by_open_state_for() {
    let config = config();
    let token = seal_with(&config, &request());
    let mrtr = Mrtr::new(request().with_request_state(token), &config);
    assert!(mrtr.open_state_for("fp-1").unwrap().is_some());
    assert_invalid(mrtr.open_state_for("fp-2"));
}

#[test]
fn one_request_counts_as_one_use_however_often_it_is_opened() {
    let guard = Arc::new(InMemoryReplayGuard::new());
    let config = config().with_replay_guard(guard.clone());
    let token = seal_with(&config, &request());
    let mrtr = Mrtr::new(request().with_request_state(token), &config);
    assert!(mrtr.open_state().unwrap().is_some());
    assert!(mrtr.clone().open_state().unwrap().is_some());
    assert!(mrtr.open_state_for("fp-1").unwrap().is_some());
    assert_eq!(guard.len(), 1);
}

#[test]
fn the_in_memory_guard_forgets_expired_tokens() {
    let clock = ManualClock::new();
    let guard = Arc::new(InMemoryReplayGuard::new());
    let config = config()
        .with_ttl(Duration::from_secs(60))
        .with_clock(clock.clone())
        .with_replay_guard(guard.clone());
    for _ in 0..3 {
        let token = Value::String(seal_with(&config, &request()));
        assert!(open_with(&config, request(), token).is_ok());
    }
    assert_eq!(guard.len(), 3);
    clock.advance(Duration::from_secs(3600));
    let token = Value::String(seal_with(&config, &request()));
    assert!(open_with(&config, request(), token).is_ok());
    assert_eq!(guard.len(), 1);
}
