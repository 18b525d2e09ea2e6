//! Key ring construction, parsing, redaction and configuration from the environment.

use mrtr::{ConfigError, KeyError, KeyRing, MrtrConfig, SecretKey};

#[test]
fn keys_shorter_than_32_bytes_are_refused() {
    assert_eq!(
        SecretKey::new("k1", vec![1u8; 31]).unwrap_err(),
        KeyError::TooShort {
            kid: "k1".into(),
            len: 31
        }
    );
    assert!(SecretKey::new("k1", vec![1u8; 32]).is_ok());
    assert!(SecretKey::new("k1", vec![1u8; 64]).is_ok());
}

#[test]
fn key_ids_are_checked() {
    for kid in [
        "",
        "has space",
        "dot.ted",
        "x".repeat(33).as_str(),
        "ümlaut",
    ] {
        assert!(
            matches!(
                SecretKey::new(kid, vec![0u8; 32]),
                Err(KeyError::BadKeyId(_))
            ),
            "{kid}"
        );
    }
    let a = SecretKey::new("same", vec![1u8; 32]).unwrap();
    let b = SecretKey::new("same", vec![2u8; 32]).unwrap();
    assert_eq!(
        KeyRing::new(vec![a, b]).unwrap_err(),
        KeyError::DuplicateKeyId("same".into())
    );
    assert_eq!(KeyRing::new(vec![]).unwrap_err(), KeyError::Empty);
}

#[test]
fn ring_lists_parse_hex_and_base64_newest_first() {
    let hex_key = "ab".repeat(32);
    let b64_key = "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="; // 32 bytes of 0xab
    let ring = KeyRing::parse(&format!("new:{hex_key}, old:{b64_key}")).unwrap();
    assert_eq!(ring.active_kid(), "new");
    assert_eq!(ring.kids(), vec!["new", "old"]);
    assert!(KeyRing::parse("k1:abcd").is_err());
    // 44 characters valid in both alphabets: read as base64 (33 bytes), since as
    // hex they would be too short.
    let ambiguous = "0123456789abcdef0123456789abcdef0123456789ab";
    assert!(KeyRing::parse(&format!("k1:{ambiguous}")).is_ok());
    assert!(KeyRing::parse(&format!("nocolon{hex_key}")).is_err());
    assert!(KeyRing::parse(&format!("k1:{hex_key}zz")).is_err());
}

#[test]
fn parse_errors_do_not_echo_key_material() {
    let secret = "n0t-v@lid-key-material!".repeat(3);
    let error = KeyRing::parse(&format!("k1:{secret}"))
        .unwrap_err()
        .to_string();
    assert!(!error.contains(&secret), "{error}");
}

#[test]
fn debug_never_prints_key_bytes() {
    let bytes = vec![0xcd; 32];
    let key = SecretKey::new("k1", bytes.clone()).unwrap();
    let ring = KeyRing::single(SecretKey::new("k1", bytes.clone()).unwrap());
    let config = MrtrConfig::new("srv", KeyRing::single(SecretKey::new("k1", bytes).unwrap()));
    for text in [
        format!("{key:?}"),
        format!("{ring:?}"),
        format!("{config:?}"),
        format!("{config:#?}"),
    ] {
        assert!(!text.to_lowercase().contains("cdcd"), "{text}");
        assert!(!text.contains("205"), "{text}");
        assert!(text.contains("redacted") || text.contains("k1"), "{text}");
    }
}

#[test]
fn from_env_reads_keys_and_settings() {
    // The only test touching these variables.
    std::env::set_var(
        "MRTR_KEYS",
        format!("k2:{},k1:{}", "01".repeat(32), "02".repeat(40)),
    );
    std::env::set_var("MRTR_STATE_TTL_SECS", "120");
    std::env::set_var("MRTR_MAX_STATE_BYTES", "4096");
    let config = MrtrConfig::from_env("srv").unwrap();
    assert_eq!(config.key_ring().kids(), vec!["k2", "k1"]);
    assert_eq!(config.ttl().as_secs(), 120);
    assert_eq!(config.max_state_bytes(), 4096);
    assert!(!config.is_ephemeral());

    std::env::set_var("MRTR_STATE_TTL_SECS", "ten minutes");
    assert!(matches!(
        MrtrConfig::from_env("srv"),
        Err(ConfigError::BadSetting { .. })
    ));
    std::env::remove_var("MRTR_STATE_TTL_SECS");
    std::env::remove_var("MRTR_MAX_STATE_BYTES");

    std::env::set_var("MRTR_KEYS", format!("k1:{}", "01".repeat(16)));
    assert!(matches!(
        MrtrConfig::from_env("srv"),
        Err(ConfigError::Key(KeyError::TooShort { len: 16, .. }))
    ));

    std::env::remove_var("MRTR_KEYS");
    let fallback = MrtrConfig::from_env("srv").unwrap();
    assert!(fallback.is_ephemeral());
}

#[test]
fn ephemeral_configs_have_distinct_keys() {
    use mrtr::{IncomingRequest, Mrtr, StateBody};
    let a = MrtrConfig::ephemeral("srv");
    let b = MrtrConfig::ephemeral("srv");
    assert!(a.is_ephemeral());
    let request = IncomingRequest::call_tool("t", serde_json::Value::Null);
    let body = StateBody {
        flow_id: "f".into(),
        step: 1,
        fingerprint: "x".into(),
        data: Default::default(),
    };
    let token = Mrtr::new(request.clone(), &a).seal_state(&body).unwrap();
    assert!(
        Mrtr::new(request.clone().with_request_state(token.clone()), &a)
            .open_state()
            .is_ok()
    );
    assert_eq!(
        Mrtr::new(request.with_request_state(token), &b).open_state(),
        Err(mrtr::MrtrError::InvalidState)
    );
}
