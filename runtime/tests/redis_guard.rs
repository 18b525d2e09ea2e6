//! Single use across instances on one real Redis (feature `redis-guard`): two server instances
//! share a key ring and a Redis. The tests start Debian's `redis-server` on a free loopback
//! port and stop it; without it they are skipped, except under CI (`CI=true`), where that
//! fails.
#![cfg(feature = "redis-guard")]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use mrtr::redis_guard::{RedisReplayGuard, WhenUnavailable};
use mrtr::{
    mrtr_handler, IncomingRequest, KeyRing, Mrtr, MrtrConfig, MrtrError, Outcome, SecretKey,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Counts the deploys that ran: the step after the ask must run once per flow.
#[mrtr_handler]
async fn deploy(deploys: Arc<AtomicUsize>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let confirm = mrtr.elicit::<Confirm>("Deploy?").key("confirm").await?;
    if matches!(
        confirm,
        mrtr::Elicitation::Accept(Confirm { confirm: true })
    ) {
        deploys.fetch_add(1, Ordering::SeqCst);
    }
    Ok(json!("deployed"))
}

/// A `redis-server` this test started, on 127.0.0.1; stopped on drop.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// None (test skipped) when redis-server is not installed, outside CI.
    fn start() -> Option<RedisServer> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        RedisServer::start_on(port)
    }

    fn start_on(port: u16) -> Option<RedisServer> {
        let spawned = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .arg("--dir")
            .arg(std::env::temp_dir())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match spawned {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "redis-server is not installed; CI must install it (.ci/run)"
                );
                eprintln!("skipped: redis-server is not installed");
                return None;
            }
            Err(e) => panic!("cannot start redis-server: {e}"),
        };
        let server = RedisServer { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !server.answers_ping() {
            assert!(Instant::now() < deadline, "redis-server did not come up");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One server instance: the shared key ring, its own guard on the shared Redis.
fn instance(redis: &RedisServer, policy: WhenUnavailable) -> MrtrConfig {
    let ring = KeyRing::single(SecretKey::new("k1", vec![0x5a; 32]).unwrap());
    let guard = RedisReplayGuard::new(&redis.url())
        .unwrap()
        .with_timeout(Duration::from_millis(500))
        .when_unavailable(policy);
    MrtrConfig::new("fleet", ring).with_replay_guard(Arc::new(guard))
}

fn request(state: Option<&str>) -> IncomingRequest {
    let mut request = IncomingRequest::call_tool("deploy", json!({"service": "checkout"}))
        .with_capabilities(json!({ "elicitation": {} }));
    if let Some(state) = state {
        request = request.with_request_state(state.to_string());
        request.input_responses = Some(json!({
            "confirm": { "action": "accept", "content": { "confirm": true } }
        }));
    }
    request
}

fn run(
    config: &MrtrConfig,
    deploys: &Arc<AtomicUsize>,
    state: Option<&str>,
) -> Result<Outcome<Value>, MrtrError> {
    let handler = deploy(deploys.clone(), Mrtr::new(request(state), config));
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(handler)
}

fn start_flow(config: &MrtrConfig, deploys: &Arc<AtomicUsize>) -> String {
    match run(config, deploys, None) {
        Ok(Outcome::InputRequired(result)) => result.request_state.expect("a state"),
        other => panic!("expected input_required, got {other:?}"),
    }
}

#[test]
fn a_flow_started_on_a_resumes_on_b_and_the_state_is_then_refused_on_a() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        instance(&redis, WhenUnavailable::Refuse),
        instance(&redis, WhenUnavailable::Refuse),
    );
    let deploys = Arc::new(AtomicUsize::new(0));
    let state = start_flow(&a, &deploys);
    assert_eq!(
        run(&b, &deploys, Some(&state)).unwrap(),
        Outcome::Complete(json!("deployed"))
    );
    assert_eq!(
        run(&a, &deploys, Some(&state)).unwrap_err(),
        MrtrError::InvalidState
    );
    assert_eq!(
        run(&b, &deploys, Some(&state)).unwrap_err(),
        MrtrError::InvalidState
    );
    assert_eq!(deploys.load(Ordering::SeqCst), 1);

    // The entry lives as long as the state could still verify (TTL 600 s + 30 s skew), no
    // longer, so Redis does not grow.
    let client = redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_connection().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("mrtr:used:*")
        .query(&mut connection)
        .unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let ttl_ms: i64 = redis::cmd("PTTL")
        .arg(&keys[0])
        .query(&mut connection)
        .unwrap();
    assert!((620_000..=630_000).contains(&ttl_ms), "{ttl_ms}");
}

#[test]
fn a_thousand_concurrent_uses_of_one_state_give_exactly_one_success() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let instances = [
        instance(&redis, WhenUnavailable::Refuse),
        instance(&redis, WhenUnavailable::Refuse),
    ];
    let deploys = Arc::new(AtomicUsize::new(0));
    let state = start_flow(&instances[0], &deploys);
    let start = Barrier::new(1000);
    let (completed, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for i in 0..1000 {
            let (config, state, deploys) = (&instances[i % 2], &state, &deploys);
            let (start, completed, refused) = (&start, &completed, &refused);
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(scope, move || {
                    let mrtr = Mrtr::new(request(Some(state)), config);
                    start.wait();
                    let outcome = futures_lite_block_on(deploy(deploys.clone(), mrtr));
                    match outcome {
                        Ok(Outcome::Complete(_)) => completed.fetch_add(1, Ordering::SeqCst),
                        Err(MrtrError::InvalidState) => refused.fetch_add(1, Ordering::SeqCst),
                        other => panic!("unexpected {other:?}"),
                    };
                })
                .unwrap();
        }
    });
    assert_eq!(completed.load(Ordering::SeqCst), 1);
    assert_eq!(refused.load(Ordering::SeqCst), 999);
    assert_eq!(deploys.load(Ordering::SeqCst), 1);
}

/// The handler never awaits anything but the guard (which blocks), so one poll finishes it.
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("the handler is expected to finish in one poll"),
    }
}

#[test]
fn with_redis_stopped_the_guard_fails_closed_and_the_state_survives_or_fails_open_if_told() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let closed = instance(&redis, WhenUnavailable::Refuse);
    let open = instance(&redis, WhenUnavailable::Allow);
    let deploys = Arc::new(AtomicUsize::new(0));
    let state = start_flow(&closed, &deploys);
    let other_state = start_flow(&open, &deploys);
    // Both connected once, so the outage is a dropped connection, not a missing server.
    let warm = start_flow(&closed, &deploys);
    assert!(run(&closed, &deploys, Some(&warm)).is_ok());
    let warm = start_flow(&open, &deploys);
    assert!(run(&open, &deploys, Some(&warm)).is_ok());
    let before = deploys.load(Ordering::SeqCst);

    redis.stop();
    // Fail closed (default): a server error, not "invalid state"; nothing ran.
    match run(&closed, &deploys, Some(&state)) {
        Err(error @ MrtrError::Internal(_)) => {
            assert_eq!(error.code(), -32603);
            assert!(
                error.message().contains("unavailable"),
                "{}",
                error.message()
            );
        }
        other => panic!("expected an internal error, got {other:?}"),
    }
    assert_eq!(deploys.load(Ordering::SeqCst), before);
    // Fail open when configured: the flow completes without single-use enforcement.
    assert_eq!(
        run(&open, &deploys, Some(&other_state)).unwrap(),
        Outcome::Complete(json!("deployed"))
    );
    assert_eq!(deploys.load(Ordering::SeqCst), before + 1);

    // Redis back: the state refused during the outage was never used, so it completes now.
    let port = redis.port;
    drop(redis);
    let Some(_redis) = RedisServer::start_on(port) else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match run(&closed, &deploys, Some(&state)) {
            Ok(outcome) => {
                assert_eq!(outcome, Outcome::Complete(json!("deployed")));
                break;
            }
            Err(MrtrError::Internal(_)) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(other) => panic!("expected the state to complete, got {other:?}"),
        }
    }
    assert_eq!(
        run(&closed, &deploys, Some(&state)).unwrap_err(),
        MrtrError::InvalidState
    );
}
