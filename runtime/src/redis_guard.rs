//! [`RedisReplayGuard`] (feature `redis-guard`): single use of every requestState across all
//! instances that share one Redis.
//!
//! Each use is one `SET <prefix><token digest> 1 NX PX <ms>`: atomic on the Redis server, so
//! of any number of concurrent uses of one state, on any instances, exactly one gets `OK`. The
//! entry expires with the state's remaining lifetime (plus the clock-skew margin the runtime
//! still accepts it for), so the store holds only live states and does not grow.
//!
//! When Redis cannot answer within the timeout the guard **fails closed** by default
//! ([`WhenUnavailable::Refuse`]): the request fails with an internal error (-32603), the state
//! stays unused, and the client can retry it once Redis is back. [`WhenUnavailable::Allow`]
//! accepts the state instead (single use is then not enforced during the outage; a warning is
//! printed on stderr once per outage).
//!
//! The runtime's guard hook is synchronous (it runs where a flow advances, inside the handler),
//! so the guard owns a small Tokio runtime with one worker that does the Redis I/O; a caller on
//! a multi-threaded Tokio runtime waits through `block_in_place`, so its other tasks keep
//! running.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::runtime::{Runtime, RuntimeFlavor};

use crate::config::{GuardUnavailable, ReplayGuard, StateUse, DEFAULT_CLOCK_SKEW};

/// Default prefix of the guard's Redis keys.
pub const DEFAULT_KEY_PREFIX: &str = "mrtr:used:";
/// Default time to wait for Redis before treating it as unavailable.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// What the guard does when Redis cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenUnavailable {
    /// Fail closed (default): the request fails with -32603 and the state stays unused.
    #[default]
    Refuse,
    /// Fail open: accept the state without single-use enforcement while Redis is down.
    Allow,
}

/// Why a guard could not be built.
#[derive(Debug)]
pub enum RedisGuardError {
    /// The Redis URL does not parse.
    BadUrl(String),
    /// The guard's I/O runtime could not start.
    Runtime(std::io::Error),
}

impl fmt::Display for RedisGuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisGuardError::BadUrl(reason) => write!(f, "bad Redis URL: {reason}"),
            RedisGuardError::Runtime(e) => write!(f, "cannot start the Redis guard's runtime: {e}"),
        }
    }
}

impl std::error::Error for RedisGuardError {}

/// A [`ReplayGuard`] on a shared Redis: give every instance one (same Redis, same key prefix).
pub struct RedisReplayGuard {
    runtime: Option<Runtime>,
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
    margin: Duration,
    when_unavailable: WhenUnavailable,
    /// Set while Redis is failing, so fail-open prints one warning per outage.
    failing: AtomicBool,
}

impl fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("when_unavailable", &self.when_unavailable)
            .finish_non_exhaustive()
    }
}

impl RedisReplayGuard {
    /// A guard on the Redis at `url` (`redis://host:port/db`, `rediss://` for TLS if the redis
    /// crate is built with it). Connects lazily: a Redis that is down at startup is handled
    /// like one that goes down later.
    pub fn new(url: &str) -> Result<RedisReplayGuard, RedisGuardError> {
        let client =
            redis::Client::open(url).map_err(|e| RedisGuardError::BadUrl(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("mrtr-redis-guard")
            .enable_all()
            .build()
            .map_err(RedisGuardError::Runtime)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(DEFAULT_TIMEOUT))
            .set_response_timeout(Some(DEFAULT_TIMEOUT))
            .set_number_of_retries(1);
        let connection = {
            let _entered = runtime.enter();
            ConnectionManager::new_lazy_with_config(client, config)
                .map_err(|e| RedisGuardError::BadUrl(e.to_string()))?
        };
        Ok(RedisReplayGuard {
            runtime: Some(runtime),
            connection,
            prefix: DEFAULT_KEY_PREFIX.to_string(),
            timeout: DEFAULT_TIMEOUT,
            margin: DEFAULT_CLOCK_SKEW,
            when_unavailable: WhenUnavailable::default(),
            failing: AtomicBool::new(false),
        })
    }

    /// What to do when Redis cannot answer (default: [`WhenUnavailable::Refuse`]).
    pub fn when_unavailable(mut self, policy: WhenUnavailable) -> Self {
        self.when_unavailable = policy;
        self
    }

    /// How long to wait for Redis before treating it as unavailable (default 1 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Prefix of the Redis keys (default `mrtr:used:`); instances that share states must
    /// share it.
    pub fn with_key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long past its expiry an entry is kept. Must cover the clock skew the servers
    /// accept (`MrtrConfig::with_clock_skew`; default 30 s, the same as here).
    pub fn with_retention_margin(mut self, margin: Duration) -> Self {
        self.margin = margin;
        self
    }

    /// The Redis key that records a use of the token with this digest.
    pub fn key_for(&self, token_digest: &[u8; 32]) -> String {
        format!("{}{}", self.prefix, hex::encode(token_digest))
    }

    /// Milliseconds the entry must live: until the state can no longer verify anywhere.
    fn lifetime_ms(&self, state: &StateUse<'_>) -> u64 {
        let until = state.expires_at.saturating_add(self.margin.as_secs());
        until.saturating_sub(state.now).saturating_mul(1000).max(1)
    }

    /// One atomic SET NX: Ok(true) for the first use, Ok(false) after; Err when Redis did not
    /// answer in time.
    fn set_once(&self, key: String, lifetime_ms: u64) -> Result<bool, GuardUnavailable> {
        let runtime = self
            .runtime
            .as_ref()
            .ok_or_else(|| GuardUnavailable("the guard is shutting down".into()))?;
        let mut connection = self.connection.clone();
        let timeout = self.timeout;
        let (reply, answer) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            let mut command = redis::cmd("SET");
            command
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(lifetime_ms);
            let set = command.query_async::<Option<String>>(&mut connection);
            let outcome = match tokio::time::timeout(timeout, set).await {
                Ok(Ok(set)) => Ok(set.is_some()),
                Ok(Err(e)) => Err(GuardUnavailable(e.to_string())),
                Err(_) => Err(GuardUnavailable(format!("no answer within {timeout:?}"))),
            };
            let _ = reply.send(outcome);
        });
        // The I/O runs on the guard's own runtime, so blocking here cannot stall it; on a
        // multi-threaded caller runtime, block_in_place lets that runtime move its other tasks.
        let wait = || {
            answer
                .recv_timeout(timeout + Duration::from_millis(100))
                .unwrap_or_else(|_| Err(GuardUnavailable(format!("no answer within {timeout:?}"))))
        };
        match tokio::runtime::Handle::try_current().map(|handle| handle.runtime_flavor()) {
            Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
            _ => wait(),
        }
    }
}

impl ReplayGuard for RedisReplayGuard {
    fn check_and_consume(&self, state: &StateUse<'_>) -> bool {
        self.try_consume(state).unwrap_or(false)
    }

    fn try_consume(&self, state: &StateUse<'_>) -> Result<bool, GuardUnavailable> {
        match self.set_once(self.key_for(state.token_digest), self.lifetime_ms(state)) {
            Ok(fresh) => {
                self.failing.store(false, Ordering::Relaxed);
                Ok(fresh)
            }
            Err(unavailable) => {
                let first = !self.failing.swap(true, Ordering::Relaxed);
                match self.when_unavailable {
                    WhenUnavailable::Refuse => Err(unavailable),
                    WhenUnavailable::Allow => {
                        if first {
                            eprintln!(
                                "WARNING mrtr: {unavailable}; accepting requestStates without \
                                 single-use enforcement until Redis answers again"
                            );
                        }
                        Ok(true)
                    }
                }
            }
        }
    }
}

impl Drop for RedisReplayGuard {
    fn drop(&mut self) {
        // A plain drop would block, which panics when the guard is dropped inside async code.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
