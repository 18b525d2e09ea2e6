//! Sealing requestState: claims bound to the request, encrypted and authenticated with
//! XChaCha20-Poly1305 under a per-purpose sub-key.
//!
//! Token: `m1.<kid>.<base64url(nonce[24] || ciphertext || tag[16])>`. The header `m1.<kid>.` is
//! the AEAD's associated data, so a token re-labelled with another key id fails to open.

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::XChaCha20Poly1305;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::{MrtrConfig, StateUse};
use crate::context::{McpMethod, StateBody};
use crate::error::MrtrError;

/// The token format version (header prefix and claim `v`).
pub const FORMAT_VERSION: u32 = 1;
const PREFIX: &str = "m1.";
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// What a state is bound to: taken from the request it is sealed for and checked on the
/// request that presents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub method: McpMethod,
    pub target: String,
    /// Hex SHA-256 of the canonical JSON of the arguments.
    pub args_digest: String,
    pub principal: Option<String>,
}

/// The claims as sealed: borrowed, so sealing does not copy the saved data.
#[derive(Serialize)]
struct SealedClaims<'a> {
    v: u32,
    kid: &'a str,
    m: &'a str,
    t: &'a str,
    a: &'a str,
    aud: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sub: Option<&'a str>,
    iat: u64,
    exp: u64,
    body: &'a StateBody,
}

/// The sealed claims as opened. Short names keep tokens small; the whole struct is encrypted.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Claims {
    v: u32,
    kid: String,
    m: String,
    t: String,
    a: String,
    aud: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sub: Option<String>,
    iat: u64,
    exp: u64,
    body: StateBody,
}

/// Seals `body` for `binding` with the newest key.
pub fn seal(config: &MrtrConfig, binding: &Binding, body: &StateBody) -> Result<String, MrtrError> {
    if let Some(reason) = &config.unusable {
        return Err(MrtrError::Internal(format!(
            "requestState sealing is disabled: {reason}"
        )));
    }
    let key = config.keys.active_state_key();
    let now = config.now();
    let claims = SealedClaims {
        v: FORMAT_VERSION,
        kid: &key.kid,
        m: binding.method.as_str(),
        t: &binding.target,
        a: &binding.args_digest,
        aud: &config.server_name,
        sub: binding.principal.as_deref(),
        iat: now,
        exp: now.saturating_add(config.ttl.as_secs()),
        body,
    };
    let plaintext = serde_json::to_vec(&claims)
        .map_err(|e| MrtrError::Internal(format!("serializing requestState: {e}")))?;
    // Checked before encrypting too, so a runaway state costs no crypto; the exact check on
    // the token length follows.
    let limit = config.max_state_bytes;
    let predicted =
        PREFIX.len() + key.kid.len() + 1 + b64_len(NONCE_LEN + plaintext.len() + TAG_LEN);
    if predicted > limit {
        return Err(MrtrError::StateTooLarge {
            size: predicted,
            limit,
        });
    }
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce)
        .map_err(|e| MrtrError::Internal(format!("system random source failed: {e}")))?;
    let header = format!("{PREFIX}{}.", key.kid);
    let cipher = XChaCha20Poly1305::new_from_slice(key.key.as_ref())
        .map_err(|_| MrtrError::Internal("bad sub-key length".into()))?;
    let ciphertext = cipher
        .encrypt(
            &nonce.into(),
            Payload {
                msg: &plaintext,
                aad: header.as_bytes(),
            },
        )
        .map_err(|_| MrtrError::Internal("requestState encryption failed".into()))?;
    let mut raw = Vec::with_capacity(NONCE_LEN + ciphertext.len());
    raw.extend_from_slice(&nonce);
    raw.extend_from_slice(&ciphertext);
    let token = format!("{header}{}", B64.encode(&raw));
    if token.len() > limit {
        return Err(MrtrError::StateTooLarge {
            size: token.len(),
            limit,
        });
    }
    Ok(token)
}

/// Opens and verifies a presented requestState, then uses it up with the replay guard (if
/// any). Every failure is the same `InvalidState`.
pub fn open(config: &MrtrConfig, binding: &Binding, raw: &Value) -> Result<StateBody, MrtrError> {
    let verified = verify(config, binding, raw)?;
    consume(config, &verified)?;
    Ok(verified.body)
}

/// A presented state that passed every check but single use, which [`consume`] applies.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    pub body: StateBody,
    /// SHA-256 of the token exactly as presented.
    pub token_digest: [u8; 32],
    pub expires_at: u64,
}

/// Every check of [`open`] except single use: the replay guard is not consulted, so the state
/// stays usable (until it expires) whatever the handler then does with it.
pub fn verify(config: &MrtrConfig, binding: &Binding, raw: &Value) -> Result<Verified, MrtrError> {
    verify_checked(config, binding, raw).ok_or(MrtrError::InvalidState)
}

/// Uses up a verified state: `InvalidState` when the replay guard has seen it before. A
/// configuration without a guard accepts every use.
pub fn consume(config: &MrtrConfig, verified: &Verified) -> Result<(), MrtrError> {
    let Some(guard) = &config.replay_guard else {
        return Ok(());
    };
    let fresh = guard.check_and_consume(&StateUse {
        flow_id: &verified.body.flow_id,
        step: verified.body.step,
        token_digest: &verified.token_digest,
        expires_at: verified.expires_at,
        now: config.now(),
    });
    if fresh {
        Ok(())
    } else {
        Err(MrtrError::InvalidState)
    }
}

fn verify_checked(config: &MrtrConfig, binding: &Binding, raw: &Value) -> Option<Verified> {
    let token = raw.as_str()?;
    // Size first: an oversized token is rejected before any decoding or crypto.
    if token.len() > config.max_state_bytes || config.unusable.is_some() {
        return None;
    }
    let rest = token.strip_prefix(PREFIX)?;
    let (kid, payload) = rest.split_once('.')?;
    let key = config.keys.state_key(kid)?;
    let bytes = B64.decode(payload).ok()?;
    if bytes.len() < NONCE_LEN + TAG_LEN {
        return None;
    }
    let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
    let nonce: [u8; NONCE_LEN] = nonce.try_into().ok()?;
    let header = &token[..PREFIX.len() + kid.len() + 1];
    let cipher = XChaCha20Poly1305::new_from_slice(key.key.as_ref()).ok()?;
    let plaintext = cipher
        .decrypt(
            &nonce.into(),
            Payload {
                msg: ciphertext,
                aad: header.as_bytes(),
            },
        )
        .ok()?;
    let claims: Claims = serde_json::from_slice(&plaintext).ok()?;
    let now = config.now();
    let skew = config.clock_skew.as_secs();
    let bound = claims.v == FORMAT_VERSION
        && claims.kid == kid
        && claims.m == binding.method.as_str()
        && claims.t == binding.target
        && claims.a == binding.args_digest
        && *claims.aud == *config.server_name
        && claims.sub == binding.principal
        && claims.iat <= now.saturating_add(skew)
        && now <= claims.exp.saturating_add(skew);
    if !bound {
        return None;
    }
    Some(Verified {
        token_digest: Sha256::digest(token.as_bytes()).into(),
        expires_at: claims.exp,
        body: claims.body,
    })
}

fn b64_len(bytes: usize) -> usize {
    (bytes * 4).div_ceil(3)
}

/// Hex SHA-256 of the canonical JSON of `value` (object keys sorted by code point at every
/// level, no insignificant whitespace), independent of the map order serde_json was built with.
pub fn args_digest(value: &Value) -> String {
    let mut canonical = String::new();
    canonical_json(value, &mut canonical);
    hex::encode(Sha256::digest(canonical.as_bytes()))
}

/// Writes the canonical JSON of `value` into `out`.
pub fn canonical_json(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_string(key, out);
                out.push(':');
                canonical_json(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        Value::String(s) => push_string(s, out),
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn push_string(s: &str, out: &mut String) {
    // serde_json's string escaping is deterministic; only map order needed fixing.
    out.push_str(&Value::from(s).to_string());
}
