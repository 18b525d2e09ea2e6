//! The key ring: named master keys, zeroized on drop, never printed, with per-purpose sub-keys.

use std::fmt;

use aes_gcm_siv::aead::KeyInit;
use aes_gcm_siv::Aes256GcmSiv;
use base64::Engine as _;
use chacha20poly1305::XChaCha20Poly1305;
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

/// Keys shorter than this are refused: the AEAD key is derived from them and must carry 256 bits.
pub const MIN_KEY_BYTES: usize = 32;
/// Key ids appear in the token header, so they are short and URL-safe.
pub const MAX_KEY_ID_LEN: usize = 32;

const HKDF_SALT: &[u8] = b"mrtr key ring v1";
/// The purpose labels of the requestState sub-keys, one per cipher. A new purpose gets its own
/// label so that a key never serves two uses.
pub(crate) const PURPOSE_STATE_AES_GCM_SIV: &str = "mrtr/requestState/aes256gcmsiv/v2";
pub(crate) const PURPOSE_STATE_XCHACHA: &str = "mrtr/requestState/xchacha20poly1305/v2";

/// Why a key or key ring could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// A key with fewer than 32 bytes.
    TooShort { kid: String, len: usize },
    /// A key id that is empty, too long, or uses characters other than `A-Za-z0-9_-`.
    BadKeyId(String),
    /// The same key id twice in one ring.
    DuplicateKeyId(String),
    /// A ring with no key.
    Empty,
    /// An `MRTR_KEYS` entry that is not `kid:hex` or `kid:base64`.
    BadEntry(String),
    /// The operating system's random source failed.
    Random(String),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::TooShort { kid, len } => write!(
                f,
                "key `{kid}` has {len} bytes; requestState keys need at least {MIN_KEY_BYTES}"
            ),
            KeyError::BadKeyId(kid) => write!(
                f,
                "key id `{kid}` must be 1 to {MAX_KEY_ID_LEN} characters of A-Z a-z 0-9 _ -"
            ),
            KeyError::DuplicateKeyId(kid) => write!(f, "key id `{kid}` appears twice"),
            KeyError::Empty => f.write_str("the key ring has no key"),
            KeyError::BadEntry(entry) => write!(
                f,
                "key entry `{entry}` is not `kid:hex` or `kid:base64` (no key material is echoed)"
            ),
            KeyError::Random(e) => write!(f, "the system random source failed: {e}"),
        }
    }
}

impl std::error::Error for KeyError {}

/// One master key with its id. The bytes are zeroized on drop and hidden from `Debug`.
pub struct SecretKey {
    kid: String,
    bytes: Zeroizing<Vec<u8>>,
}

impl SecretKey {
    /// A key from raw bytes (at least 32).
    pub fn new(kid: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Result<SecretKey, KeyError> {
        let kid = kid.into();
        let bytes = Zeroizing::new(bytes.into());
        check_kid(&kid)?;
        if bytes.len() < MIN_KEY_BYTES {
            return Err(KeyError::TooShort {
                kid,
                len: bytes.len(),
            });
        }
        Ok(SecretKey { kid, bytes })
    }

    /// A fresh random 32-byte key.
    pub fn random(kid: impl Into<String>) -> Result<SecretKey, KeyError> {
        let mut bytes = vec![0u8; MIN_KEY_BYTES];
        getrandom::fill(&mut bytes).map_err(|e| KeyError::Random(e.to_string()))?;
        SecretKey::new(kid, bytes)
    }

    /// Parses `kid:hex` or `kid:base64` (standard or URL-safe alphabet, padded or not).
    pub fn parse(entry: &str) -> Result<SecretKey, KeyError> {
        let entry = entry.trim();
        let (kid, material) = entry
            .split_once(':')
            .ok_or_else(|| KeyError::BadEntry(redact_entry(entry)))?;
        let material = material.trim();
        let bytes =
            decode_material(material).ok_or_else(|| KeyError::BadEntry(redact_entry(entry)))?;
        SecretKey::new(kid.trim(), bytes)
    }

    /// The key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    fn derive(&self, purpose: &str) -> Zeroizing<[u8; 32]> {
        let hkdf = Hkdf::<Sha256>::new(Some(HKDF_SALT), &self.bytes);
        let mut okm = Zeroizing::new([0u8; 32]);
        // 32 bytes is far below HKDF-SHA256's 8160-byte output limit, so expand cannot fail.
        if hkdf.expand(purpose.as_bytes(), okm.as_mut()).is_err() {
            okm.zeroize();
        }
        okm
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("kid", &self.kid)
            .field("bytes", &"<redacted>")
            .finish()
    }
}

fn decode_material(material: &str) -> Option<Vec<u8>> {
    // A 32-byte key is 64 hex characters but only 43-44 base64 ones, so length settles the
    // (rare) strings that are valid in both alphabets.
    let is_hex =
        material.len().is_multiple_of(2) && material.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex && material.len() >= 2 * MIN_KEY_BYTES {
        return hex::decode(material).ok();
    }
    let trimmed = material.trim_end_matches('=');
    let engines = [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let base64 = engines
        .iter()
        .find_map(|engine| engine.decode(trimmed).ok());
    match base64 {
        Some(bytes) if bytes.len() >= MIN_KEY_BYTES || !is_hex => Some(bytes),
        // Too short either way: report the length the author most likely meant (hex).
        _ if is_hex => hex::decode(material).ok(),
        other => other,
    }
}

fn redact_entry(entry: &str) -> String {
    match entry.split_once(':') {
        Some((kid, _)) => format!("{kid}:<redacted>"),
        None => "<redacted>".to_string(),
    }
}

pub(crate) fn check_kid(kid: &str) -> Result<(), KeyError> {
    let ok = !kid.is_empty()
        && kid.len() <= MAX_KEY_ID_LEN
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(KeyError::BadKeyId(kid.to_string()))
    }
}

/// The requestState ciphers of one master key, keyed once (sub-key derivation and key schedules
/// happen when the ring is built, not per seal). Both wipe their key material on drop.
pub(crate) struct SubKey {
    pub(crate) kid: String,
    pub(crate) aes_gcm_siv: Aes256GcmSiv,
    pub(crate) xchacha: XChaCha20Poly1305,
}

impl SubKey {
    fn for_state(key: &SecretKey) -> SubKey {
        let aes_key = key.derive(PURPOSE_STATE_AES_GCM_SIV);
        let xchacha_key = key.derive(PURPOSE_STATE_XCHACHA);
        SubKey {
            kid: key.kid.clone(),
            aes_gcm_siv: Aes256GcmSiv::new((&*aes_key).into()),
            xchacha: XChaCha20Poly1305::new((&*xchacha_key).into()),
        }
    }
}

/// Named keys. The first key is the active one (it seals); every key opens.
/// Rotation: put the new key first and keep the old one after it until old states have expired.
pub struct KeyRing {
    keys: Vec<SecretKey>,
    state_keys: Vec<SubKey>,
}

impl KeyRing {
    /// A ring from keys, newest (sealing) key first.
    pub fn new(keys: Vec<SecretKey>) -> Result<KeyRing, KeyError> {
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        for (i, key) in keys.iter().enumerate() {
            if keys[..i].iter().any(|k| k.kid == key.kid) {
                return Err(KeyError::DuplicateKeyId(key.kid.clone()));
            }
        }
        let state_keys = keys.iter().map(SubKey::for_state).collect();
        Ok(KeyRing { keys, state_keys })
    }

    /// A ring with one key.
    pub fn single(key: SecretKey) -> KeyRing {
        let state_keys = vec![SubKey::for_state(&key)];
        KeyRing {
            keys: vec![key],
            state_keys,
        }
    }

    /// Parses a comma- or whitespace-separated list of `kid:hex` / `kid:base64` entries, newest
    /// first (the format of `MRTR_KEYS`).
    pub fn parse(list: &str) -> Result<KeyRing, KeyError> {
        let keys = list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|entry| !entry.is_empty())
            .map(SecretKey::parse)
            .collect::<Result<Vec<_>, _>>()?;
        KeyRing::new(keys)
    }

    /// The id of the sealing key.
    pub fn active_kid(&self) -> &str {
        &self.keys[0].kid
    }

    /// All key ids, newest first.
    pub fn kids(&self) -> Vec<&str> {
        self.keys.iter().map(|k| k.kid.as_str()).collect()
    }

    pub(crate) fn active_state_key(&self) -> &SubKey {
        &self.state_keys[0]
    }

    pub(crate) fn state_key(&self, kid: &str) -> Option<&SubKey> {
        self.state_keys.iter().find(|k| k.kid == kid)
    }
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyRing")
            .field("kids", &self.kids())
            .field("keys", &"<redacted>")
            .finish()
    }
}
