//! Sealing requestState: claims encrypted and authenticated with an AEAD under a per-purpose
//! sub-key, bound to the request through the associated data.
//!
//! Token: `m2.<kid>.<base64url(cipher[1] || nonce || ciphertext || tag[16])>`. The cipher is
//! AES-256-GCM-SIV (12-byte nonce) where the CPU has AES instructions, else XChaCha20-Poly1305
//! (24-byte nonce); every instance opens both, so a fleet of mixed CPUs works. The associated
//! data is the header, the cipher byte and the binding (method, target, argument digest,
//! audience, principal), each length-prefixed, so a token opens only for the request it was
//! sealed for and relabelling its key id or cipher fails. The binding travels in the associated
//! data rather than in the token, which keeps tokens small; the plaintext holds the format
//! version, issue and expiry times and the body, in a compact binary layout (the saved data as
//! JSON).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use aes_gcm_siv::aead::AeadInOut;
use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::config::{MrtrConfig, StateUse};
use crate::context::{McpMethod, StateBody};
use crate::error::MrtrError;
use crate::keys::SubKey;

/// The token format version (header prefix and first plaintext byte).
pub const FORMAT_VERSION: u32 = 2;
const PREFIX: &str = "m2.";
const TAG_LEN: usize = 16;
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The AEAD a token is sealed with (its first payload byte, authenticated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cipher {
    Aes256GcmSiv = 1,
    XChaCha20Poly1305 = 2,
}

impl Cipher {
    fn from_byte(byte: u8) -> Option<Cipher> {
        match byte {
            1 => Some(Cipher::Aes256GcmSiv),
            2 => Some(Cipher::XChaCha20Poly1305),
            _ => None,
        }
    }

    fn nonce_len(self) -> usize {
        match self {
            Cipher::Aes256GcmSiv => 12,
            Cipher::XChaCha20Poly1305 => 24,
        }
    }

    /// AES-256-GCM-SIV when this CPU has AES and carry-less multiply instructions (fast and
    /// constant time there); XChaCha20-Poly1305 otherwise (software AES is slow).
    fn for_this_cpu() -> Cipher {
        static CHOSEN: OnceLock<Cipher> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            if hardware_aes() {
                Cipher::Aes256GcmSiv
            } else {
                Cipher::XChaCha20Poly1305
            }
        })
    }

    fn encrypt(
        self,
        key: &SubKey,
        nonce: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Option<[u8; TAG_LEN]> {
        let tag = match self {
            Cipher::Aes256GcmSiv => key
                .aes_gcm_siv
                .encrypt_inout_detached(nonce.try_into().ok()?, aad, buffer.into())
                .ok()?,
            Cipher::XChaCha20Poly1305 => key
                .xchacha
                .encrypt_inout_detached(nonce.try_into().ok()?, aad, buffer.into())
                .ok()?,
        };
        tag.as_slice().try_into().ok()
    }

    fn decrypt(
        self,
        key: &SubKey,
        nonce: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8],
    ) -> Option<()> {
        let tag: &[u8; TAG_LEN] = tag.try_into().ok()?;
        match self {
            Cipher::Aes256GcmSiv => key.aes_gcm_siv.decrypt_inout_detached(
                nonce.try_into().ok()?,
                aad,
                buffer.into(),
                tag.into(),
            ),
            Cipher::XChaCha20Poly1305 => key.xchacha.decrypt_inout_detached(
                nonce.try_into().ok()?,
                aad,
                buffer.into(),
                tag.into(),
            ),
        }
        .ok()
    }
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn hardware_aes() -> bool {
    std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("pclmulqdq")
}

#[cfg(target_arch = "aarch64")]
fn hardware_aes() -> bool {
    std::arch::is_aarch64_feature_detected!("aes")
        && std::arch::is_aarch64_feature_detected!("pmull")
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
fn hardware_aes() -> bool {
    false
}

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

/// The associated data: everything the token is bound to but does not carry.
fn associated_data(header: &str, cipher: Cipher, binding: &Binding, audience: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(
        header.len()
            + 16
            + binding.target.len()
            + binding.args_digest.len()
            + audience.len()
            + binding.principal.as_ref().map_or(0, String::len),
    );
    aad.extend_from_slice(header.as_bytes());
    aad.push(cipher as u8);
    put_bytes(&mut aad, binding.method.as_str().as_bytes());
    put_bytes(&mut aad, binding.target.as_bytes());
    put_bytes(&mut aad, binding.args_digest.as_bytes());
    put_bytes(&mut aad, audience.as_bytes());
    match &binding.principal {
        None => aad.push(0),
        Some(principal) => {
            aad.push(1);
            put_bytes(&mut aad, principal.as_bytes());
        }
    }
    aad
}

/// A unique nonce per seal without a system call each time: a random base drawn once per
/// process plus a counter. GCM-SIV stays safe even if two processes ever drew overlapping
/// ranges (a repeat only reveals that two plaintexts were equal).
fn next_nonce(out: &mut [u8]) -> Result<(), MrtrError> {
    static BASE: OnceLock<Result<[u8; 24], String>> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = BASE
        .get_or_init(|| {
            let mut base = [0u8; 24];
            getrandom::fill(&mut base)
                .map(|()| base)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| MrtrError::Internal(format!("system random source failed: {e}")))?;
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let len = out.len();
    out.copy_from_slice(&base[..len]);
    let tail: [u8; 8] = out[len - 8..]
        .try_into()
        .expect("nonces are at least 8 bytes");
    let mixed = u64::from_le_bytes(tail).wrapping_add(count);
    out[len - 8..].copy_from_slice(&mixed.to_le_bytes());
    Ok(())
}

/// Seals `body` for `binding` with the newest key.
pub fn seal(config: &MrtrConfig, binding: &Binding, body: &StateBody) -> Result<String, MrtrError> {
    seal_with(config, binding, body, Cipher::for_this_cpu())
}

fn seal_with(
    config: &MrtrConfig,
    binding: &Binding,
    body: &StateBody,
    cipher: Cipher,
) -> Result<String, MrtrError> {
    if let Some(reason) = &config.unusable {
        return Err(MrtrError::Internal(format!(
            "requestState sealing is disabled: {reason}"
        )));
    }
    let key = config.keys.active_state_key();
    let now = config.now();
    let nonce_len = cipher.nonce_len();
    let start = 1 + nonce_len;
    // One buffer holds cipher byte, nonce, plaintext (encrypted in place) and tag.
    let mut raw =
        Vec::with_capacity(start + 64 + body.flow_id.len() + body.fingerprint.len() + 256);
    raw.push(cipher as u8);
    raw.resize(start, 0);
    next_nonce(&mut raw[1..start])?;
    raw.push(FORMAT_VERSION as u8);
    put_varint(&mut raw, now);
    put_varint(&mut raw, now.saturating_add(config.ttl.as_secs()));
    put_varint(&mut raw, u64::from(body.step));
    put_bytes(&mut raw, body.flow_id.as_bytes());
    put_bytes(&mut raw, body.fingerprint.as_bytes());
    serde_json::to_writer(&mut raw, &body.data)
        .map_err(|e| MrtrError::Internal(format!("serializing requestState: {e}")))?;
    // Checked before encrypting, so a runaway state costs no crypto.
    let limit = config.max_state_bytes;
    let header_len = PREFIX.len() + key.kid.len() + 1;
    let size = header_len + b64_len(raw.len() + TAG_LEN);
    if size > limit {
        return Err(MrtrError::StateTooLarge { size, limit });
    }
    let mut token = String::with_capacity(size);
    token.push_str(PREFIX);
    token.push_str(&key.kid);
    token.push('.');
    let aad = associated_data(&token, cipher, binding, &config.server_name);
    let (prefix, plaintext) = raw.split_at_mut(start);
    let tag = cipher
        .encrypt(key, &prefix[1..], &aad, plaintext)
        .ok_or_else(|| MrtrError::Internal("requestState encryption failed".into()))?;
    raw.extend_from_slice(&tag);
    B64.encode_string(&raw, &mut token);
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
    /// SHA-256 of the token exactly as presented; computed only when the configuration has a
    /// replay guard (hashing the whole token is a measurable part of opening one).
    pub token_digest: Option<[u8; 32]>,
    pub expires_at: u64,
}

/// Every check of [`open`] except single use: the replay guard is not consulted, so the state
/// stays usable (until it expires) whatever the handler then does with it.
pub fn verify(config: &MrtrConfig, binding: &Binding, raw: &Value) -> Result<Verified, MrtrError> {
    verify_checked(config, binding, raw).ok_or(MrtrError::InvalidState)
}

/// Uses up a verified state: `InvalidState` when the replay guard has seen it before,
/// `Internal` when the guard's store cannot answer. A configuration without a guard accepts
/// every use.
pub fn consume(config: &MrtrConfig, verified: &Verified) -> Result<(), MrtrError> {
    let Some(guard) = &config.replay_guard else {
        return Ok(());
    };
    // Verified under this same configuration, so the digest is there; if not, refuse.
    let Some(token_digest) = &verified.token_digest else {
        return Err(MrtrError::InvalidState);
    };
    let fresh = guard.try_consume(&StateUse {
        flow_id: &verified.body.flow_id,
        step: verified.body.step,
        token_digest,
        expires_at: verified.expires_at,
        now: config.now(),
    });
    match fresh {
        Ok(true) => Ok(()),
        Ok(false) => Err(MrtrError::InvalidState),
        // Not the client's fault, and the state is still unused: a server error it may retry.
        Err(unavailable) => Err(MrtrError::Internal(unavailable.to_string())),
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
    let mut bytes = B64.decode(payload).ok()?;
    let cipher = Cipher::from_byte(*bytes.first()?)?;
    let start = 1 + cipher.nonce_len();
    if bytes.len() < start + TAG_LEN {
        return None;
    }
    let header = &token[..PREFIX.len() + kid.len() + 1];
    let aad = associated_data(header, cipher, binding, &config.server_name);
    let tag_at = bytes.len() - TAG_LEN;
    let (prefix, sealed) = bytes.split_at_mut(start);
    let (ciphertext, tag) = sealed.split_at_mut(tag_at - start);
    cipher.decrypt(key, &prefix[1..], &aad, ciphertext, tag)?;
    let mut plain = Reader(ciphertext);
    if u32::from(plain.byte()?) != FORMAT_VERSION {
        return None;
    }
    let issued_at = plain.varint()?;
    let expires_at = plain.varint()?;
    let step = u32::try_from(plain.varint()?).ok()?;
    let flow_id = plain.string()?;
    let fingerprint = plain.string()?;
    let data: Map<String, Value> = serde_json::from_slice(plain.0).ok()?;
    let now = config.now();
    let skew = config.clock_skew.as_secs();
    if issued_at > now.saturating_add(skew) || now > expires_at.saturating_add(skew) {
        return None;
    }
    Some(Verified {
        token_digest: config
            .replay_guard
            .as_ref()
            .map(|_| Sha256::digest(token.as_bytes()).into()),
        expires_at,
        body: StateBody {
            flow_id,
            step,
            fingerprint,
            data,
        },
    })
}

/// Appends `value` as a LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `bytes` with a varint length prefix.
fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Reads the binary plaintext; every read is bounds-checked (None ends verification).
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn string(&mut self) -> Option<String> {
        let len = usize::try_from(self.varint()?).ok()?;
        if len > self.0.len() {
            return None;
        }
        let (text, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8(text.to_vec()).ok()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{KeyRing, SecretKey};

    fn config() -> MrtrConfig {
        MrtrConfig::new(
            "server",
            KeyRing::single(SecretKey::new("k1", vec![7u8; 32]).unwrap()),
        )
    }

    fn binding() -> Binding {
        Binding {
            method: McpMethod::CallTool,
            target: "deploy".into(),
            args_digest: args_digest(&Value::Null),
            principal: Some("alice".into()),
        }
    }

    fn body() -> StateBody {
        let mut data = Map::new();
        data.insert("v:plan".into(), serde_json::json!({"steps": [1, 2, 3]}));
        StateBody {
            flow_id: "00112233445566778899aabbccddeeff".into(),
            step: 300,
            fingerprint: "deploy:abc".into(),
            data,
        }
    }

    fn payload(token: &str) -> Vec<u8> {
        B64.decode(token.rsplit('.').next().unwrap()).unwrap()
    }

    #[test]
    fn both_ciphers_round_trip_and_any_instance_opens_either() {
        for cipher in [Cipher::Aes256GcmSiv, Cipher::XChaCha20Poly1305] {
            let token = seal_with(&config(), &binding(), &body(), cipher).unwrap();
            assert_eq!(payload(&token)[0], cipher as u8);
            let opened = verify(&config(), &binding(), &Value::String(token)).unwrap();
            assert_eq!(opened.body, body());
        }
    }

    #[test]
    fn the_cipher_byte_is_authenticated() {
        let token = seal_with(&config(), &binding(), &body(), Cipher::Aes256GcmSiv).unwrap();
        let mut raw = payload(&token);
        raw[0] = Cipher::XChaCha20Poly1305 as u8;
        // Long enough for the XChaCha nonce, so only authentication can refuse it.
        let relabelled = format!("m2.k1.{}", B64.encode(&raw));
        assert!(verify(&config(), &binding(), &Value::String(relabelled)).is_err());
        raw[0] = 9;
        let unknown = format!("m2.k1.{}", B64.encode(&raw));
        assert!(verify(&config(), &binding(), &Value::String(unknown)).is_err());
    }

    #[test]
    fn every_bound_fact_is_in_the_associated_data() {
        let token = Value::String(seal(&config(), &binding(), &body()).unwrap());
        let mut others = vec![
            Binding {
                method: McpMethod::GetPrompt,
                ..binding()
            },
            Binding {
                target: "deploy2".into(),
                ..binding()
            },
            Binding {
                args_digest: args_digest(&serde_json::json!({})),
                ..binding()
            },
            Binding {
                principal: None,
                ..binding()
            },
            Binding {
                principal: Some("alicf".into()),
                ..binding()
            },
        ];
        // Length prefixes: moving bytes between two fields is another binding.
        others.push(Binding {
            target: "deployalice".into(),
            principal: Some(String::new()),
            ..binding()
        });
        for other in others {
            assert!(verify(&config(), &other, &token).is_err(), "{other:?}");
        }
        let other_audience = MrtrConfig::new(
            "server2",
            KeyRing::single(SecretKey::new("k1", vec![7u8; 32]).unwrap()),
        );
        assert!(verify(&other_audience, &binding(), &token).is_err());
        assert!(verify(&config(), &binding(), &token).is_ok());
    }

    #[test]
    fn nonces_never_repeat_within_a_process() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            let mut nonce = [0u8; 12];
            next_nonce(&mut nonce).unwrap();
            assert!(seen.insert(nonce));
        }
    }

    #[test]
    fn varints_round_trip_at_the_edges() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(Reader(&out).varint(), Some(value));
        }
        assert_eq!(Reader(&[0x80; 11]).varint(), None);
        assert_eq!(Reader(&[0x05, b'a']).string(), None);
    }
}
