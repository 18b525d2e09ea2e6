//! Server-wide MRTR settings: keys, audience, TTL, size budget, clock and replay hook.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::keys::{KeyError, KeyRing, SecretKey};

/// Default lifetime of one round's requestState.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
/// Default tolerance for clocks of different instances disagreeing.
pub const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(30);
/// Default size budget of a sealed requestState token, in bytes.
pub const DEFAULT_MAX_STATE_BYTES: usize = 8 * 1024;
/// Default time a pre-2026 client has to answer one ask sent as a real request: the same time a
/// 2026-07-28 client has to answer a round before its state expires.
pub const DEFAULT_ASK_TIMEOUT: Duration = DEFAULT_TTL;
/// The environment variable `MrtrConfig::from_env` reads keys from.
pub const KEYS_ENV: &str = "MRTR_KEYS";

/// Seconds since the Unix epoch; injectable so that expiry can be tested without sleeping.
pub trait Clock: Send + Sync {
    fn now_unix(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_unix(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    }
}

/// One presentation of a verified requestState, handed to the [`ReplayGuard`].
#[derive(Debug, Clone, Copy)]
pub struct StateUse<'a> {
    pub flow_id: &'a str,
    pub step: u32,
    /// SHA-256 of the token exactly as presented.
    pub token_digest: &'a [u8; 32],
    /// When the token expires (Unix seconds); a store may forget it after this (plus skew).
    pub expires_at: u64,
    /// The current time (Unix seconds) by the configured clock.
    pub now: u64,
}

/// Single-use enforcement. Bindings do not stop a client from presenting the same state twice;
/// a server whose flows must not run a step twice backs this with its store.
pub trait ReplayGuard: Send + Sync {
    /// True when this token has not been used before (and records it as used); false rejects
    /// the request with `InvalidState`.
    fn check_and_consume(&self, state: &StateUse<'_>) -> bool;

    /// Like [`ReplayGuard::check_and_consume`], for a guard whose store can be unreachable:
    /// `Err` means "could not tell". The request then fails with an internal error (-32603)
    /// and the state stays unused, so the client can retry it once the store is back. The
    /// runtime calls this one; the default defers to `check_and_consume`.
    fn try_consume(&self, state: &StateUse<'_>) -> Result<bool, GuardUnavailable> {
        Ok(self.check_and_consume(state))
    }
}

/// A replay guard's store could not answer (unreachable, timed out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardUnavailable(pub String);

impl fmt::Display for GuardUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the single-use store is unavailable: {}", self.0)
    }
}

impl std::error::Error for GuardUnavailable {}

/// A process-local [`ReplayGuard`]: right for tests and single-instance servers; several
/// instances need a shared store.
#[derive(Debug, Default)]
pub struct InMemoryReplayGuard {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    /// Token digest -> its expiry.
    tokens: HashMap<[u8; 32], u64>,
    last_prune: u64,
}

/// How often (seconds) expired entries are swept: sweeping on every call would make each
/// check linear in the number of live tokens.
const PRUNE_INTERVAL: u64 = 30;

impl InMemoryReplayGuard {
    pub fn new() -> InMemoryReplayGuard {
        InMemoryReplayGuard::default()
    }

    /// How many used tokens are remembered right now.
    pub fn len(&self) -> usize {
        self.seen.lock().map(|seen| seen.tokens.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn check_and_consume(&self, state: &StateUse<'_>) -> bool {
        let Ok(mut seen) = self.seen.lock() else {
            return false;
        };
        // Expired tokens fail verification anyway, so they need not be remembered (the margin
        // covers any clock-skew allowance up to it).
        if state.now >= seen.last_prune.saturating_add(PRUNE_INTERVAL) {
            let horizon = state
                .now
                .saturating_sub(DEFAULT_CLOCK_SKEW.as_secs().saturating_mul(10));
            seen.tokens.retain(|_, expires_at| *expires_at >= horizon);
            seen.last_prune = state.now;
        }
        if seen.tokens.contains_key(state.token_digest) {
            return false;
        }
        seen.tokens.insert(*state.token_digest, state.expires_at);
        true
    }
}

/// Why a configuration could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    Key(KeyError),
    /// A numeric environment setting that does not parse.
    BadSetting {
        name: String,
        value: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Key(e) => write!(f, "{KEYS_ENV}: {e}"),
            ConfigError::BadSetting { name, value } => {
                write!(f, "{name}={value} is not a whole number")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<KeyError> for ConfigError {
    fn from(e: KeyError) -> Self {
        ConfigError::Key(e)
    }
}

/// Everything the runtime needs to seal and open requestState. Cheap to clone.
#[derive(Clone)]
pub struct MrtrConfig {
    pub(crate) server_name: Arc<str>,
    pub(crate) keys: Arc<KeyRing>,
    pub(crate) ttl: Duration,
    pub(crate) clock_skew: Duration,
    pub(crate) max_state_bytes: usize,
    pub(crate) replay_guard: Option<Arc<dyn ReplayGuard>>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ephemeral: bool,
    /// Set when no safe key could be made; sealing then fails with this reason.
    pub(crate) unusable: Option<Arc<str>>,
    /// How long a pre-2026 client has to answer one ask sent as a real request.
    pub(crate) ask_timeout: Option<Duration>,
}

static EPHEMERAL_WARNING: Once = Once::new();

impl MrtrConfig {
    /// A configuration with the given audience (server name) and key ring.
    pub fn new(server_name: impl Into<String>, keys: KeyRing) -> MrtrConfig {
        MrtrConfig {
            server_name: Arc::from(server_name.into()),
            keys: Arc::new(keys),
            ttl: DEFAULT_TTL,
            clock_skew: DEFAULT_CLOCK_SKEW,
            max_state_bytes: DEFAULT_MAX_STATE_BYTES,
            replay_guard: None,
            clock: Arc::new(SystemClock),
            ephemeral: false,
            unusable: None,
            ask_timeout: Some(DEFAULT_ASK_TIMEOUT),
        }
    }

    /// A per-process random key. States sealed by one process cannot be opened by another, so
    /// this prints a warning once: several instances behind a load balancer need a shared key.
    pub fn ephemeral(server_name: impl Into<String>) -> MrtrConfig {
        // Without an OS random source no key is safe: the config then refuses to seal (an
        // Internal error the author sees) instead of using a guessable key.
        let (key, unusable) = match SecretKey::random("ephemeral") {
            Ok(key) => (key, None),
            Err(e) => (
                SecretKey::new("ephemeral", vec![0u8; 32]).expect("valid id and length"),
                Some(Arc::from(e.to_string())),
            ),
        };
        EPHEMERAL_WARNING.call_once(|| {
            eprintln!(
                "WARNING mrtr: no requestState key configured ({KEYS_ENV} is unset); using a random \
                 per-process key. States sealed here cannot be resumed by another instance or after \
                 a restart. Running several instances requires a shared key: set {KEYS_ENV}=kid:<64 hex chars>."
            );
        });
        let mut config = MrtrConfig::new(server_name, KeyRing::single(key));
        config.ephemeral = true;
        config.unusable = unusable;
        config
    }

    /// Keys from `MRTR_KEYS` (`kid:hex` or `kid:base64` entries separated by commas, newest
    /// first), TTL from `MRTR_STATE_TTL_SECS`, budget from `MRTR_MAX_STATE_BYTES` and the
    /// pre-2026 ask timeout from `MRTR_ASK_TIMEOUT_SECS` (0: none) when set.
    /// Without `MRTR_KEYS` this is [`MrtrConfig::ephemeral`] (with its warning).
    pub fn from_env(server_name: impl Into<String>) -> Result<MrtrConfig, ConfigError> {
        let mut config = match std::env::var(KEYS_ENV) {
            Ok(list) if !list.trim().is_empty() => {
                MrtrConfig::new(server_name, KeyRing::parse(&list)?)
            }
            _ => MrtrConfig::ephemeral(server_name),
        };
        if let Some(secs) = env_number("MRTR_STATE_TTL_SECS")? {
            config.ttl = Duration::from_secs(secs);
        }
        if let Some(bytes) = env_number("MRTR_MAX_STATE_BYTES")? {
            config.max_state_bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        }
        if let Some(secs) = env_number("MRTR_ASK_TIMEOUT_SECS")? {
            config.ask_timeout = (secs > 0).then(|| Duration::from_secs(secs));
        }
        Ok(config)
    }

    /// Lifetime of each round's state (default 600 s).
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Tolerated clock difference between instances (default 30 s).
    pub fn with_clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew;
        self
    }

    /// Size budget of a sealed token in bytes (default 8 KiB).
    pub fn with_max_state_bytes(mut self, limit: usize) -> Self {
        self.max_state_bytes = limit;
        self
    }

    /// Enforces single use of every state through `guard`.
    pub fn with_replay_guard(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.replay_guard = Some(guard);
        self
    }

    /// How long a client on a pre-2026 session has to answer one ask, which goes out to it as a
    /// real `elicitation/create`, `sampling/createMessage` or `roots/list` request (default
    /// [`DEFAULT_ASK_TIMEOUT`]); `None` waits as long as the session lives. A late answer is
    /// [`MrtrError::ClientRequestTimedOut`](crate::MrtrError::ClientRequestTimedOut).
    pub fn with_ask_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.ask_timeout = timeout;
        self
    }

    /// See [`MrtrConfig::with_ask_timeout`].
    pub fn ask_timeout(&self) -> Option<Duration> {
        self.ask_timeout
    }

    /// Replaces the clock (tests of expiry).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The audience states are bound to.
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    pub fn max_state_bytes(&self) -> usize {
        self.max_state_bytes
    }

    pub fn key_ring(&self) -> &KeyRing {
        &self.keys
    }

    /// True when the key is the per-process random one.
    pub fn is_ephemeral(&self) -> bool {
        self.ephemeral
    }

    pub(crate) fn now(&self) -> u64 {
        self.clock.now_unix()
    }
}

impl fmt::Debug for MrtrConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MrtrConfig")
            .field("server_name", &self.server_name)
            .field("keys", &self.keys)
            .field("ttl", &self.ttl)
            .field("clock_skew", &self.clock_skew)
            .field("max_state_bytes", &self.max_state_bytes)
            .field("replay_guard", &self.replay_guard.is_some())
            .field("ephemeral", &self.ephemeral)
            .field("ask_timeout", &self.ask_timeout)
            .finish()
    }
}

fn env_number(name: &str) -> Result<Option<u64>, ConfigError> {
    match std::env::var(name) {
        Ok(value) => value
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| ConfigError::BadSetting {
                name: name.to_string(),
                value,
            }),
        Err(_) => Ok(None),
    }
}
