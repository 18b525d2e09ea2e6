//! seal + open of one round's requestState: this crate's sealer (XChaCha20-Poly1305, bound
//! claims) against rmcp's `RequestStateCodec` (HMAC-SHA256, associated data + TTL), side by side
//! on the same `StateBody`. Run by hand: `cargo bench -p mrtr --bench seal`.
//!
//! A plain timing loop (no bench framework): calibration, then samples of many iterations that
//! alternate between the two sealers; the median sample of each is reported.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mrtr::{IncomingRequest, KeyRing, Mrtr, MrtrConfig, SecretKey, StateBody};
use rmcp::model::{RequestStateCodec, SealOptions};
use serde_json::{json, Map, Value};

const SAMPLES: usize = 15;
const TARGET_SAMPLE: Duration = Duration::from_millis(200);

fn body(padding: usize) -> StateBody {
    let mut data = Map::new();
    data.insert(
        "v:plan".into(),
        json!({
            "service": "checkout",
            "version": "1.2.3",
            "steps": ["build", "migrate", "canary", "promote"],
            "regions": ["eu-west-1", "us-east-1"],
            "notes": "x".repeat(padding),
        }),
    );
    data.insert("b:0".into(), json!(1));
    data.insert(
        "a:ticket".into(),
        json!({"action": "accept", "content": {"id": "T-42"}}),
    );
    StateBody {
        flow_id: "9f86d081884c7d659a2feaa0c55ad015".into(),
        step: 2,
        fingerprint: "deploy_production:5d41402abc4b2a76".into(),
        data,
    }
}

/// Iterations that take about one sample's time.
fn calibrate(f: &mut impl FnMut()) -> u32 {
    let start = Instant::now();
    let mut count = 0u32;
    while start.elapsed() < Duration::from_millis(100) {
        f();
        count += 1;
    }
    let per_iteration = start.elapsed() / count.max(1);
    (TARGET_SAMPLE.as_nanos() / per_iteration.as_nanos().max(1)).max(10) as u32
}

fn sample(f: &mut impl FnMut(), iterations: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..iterations {
        f();
    }
    t.elapsed() / iterations
}

/// Median time per iteration of `a` and of `b`. Samples alternate between the two so that load
/// from other processes on the machine hits both alike.
fn measure_pair(mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    let (na, nb) = (calibrate(&mut a), calibrate(&mut b));
    let mut samples_a = Vec::with_capacity(SAMPLES);
    let mut samples_b = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        samples_a.push(sample(&mut a, na));
        samples_b.push(sample(&mut b, nb));
    }
    samples_a.sort();
    samples_b.sort();
    (samples_a[SAMPLES / 2], samples_b[SAMPLES / 2])
}

/// Median time per iteration of `f`.
fn measure(mut f: impl FnMut()) -> Duration {
    let n = calibrate(&mut f);
    let mut samples: Vec<Duration> = (0..SAMPLES).map(|_| sample(&mut f, n)).collect();
    samples.sort();
    samples[SAMPLES / 2]
}

fn micros(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1000.0
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let key = [0x42u8; 32];
    let config = MrtrConfig::new(
        "deployer",
        KeyRing::single(SecretKey::new("k1", key.to_vec()).expect("valid key")),
    );
    let codec = RequestStateCodec::try_new(key.to_vec()).expect("valid key");
    let arguments = json!({"service": "checkout", "version": "1.2.3", "dry_run": false});

    println!("seal+open per round, median of {SAMPLES} samples");
    println!(
        "{:>10} | {:>12} {:>9} | {:>12} {:>9} | {:>7}",
        "payload", "mrtr (µs)", "token B", "rmcp (µs)", "token B", "ratio"
    );
    let mut breakdown = Vec::new();
    for padding in [0usize, 1024, 4096] {
        let body = body(padding);
        let payload_len = serde_json::to_vec(&body).map(|v| v.len()).unwrap_or(0);

        // Ours: bind + encrypt + authenticate, then open and verify every claim.
        let request = IncomingRequest::call_tool("deploy_production", arguments.clone())
            .with_principal("alice");
        let sealer = Mrtr::new(request.clone(), &config);
        let our_token = sealer.seal_state(&body).expect("under budget");
        let reader = Mrtr::new(
            request.clone().with_request_state(our_token.clone()),
            &config,
        );
        assert_eq!(reader.open_state().expect("opens"), Some(body.clone()));
        // The binding is computed once per request (in `Mrtr::new`), as the rmcp context is.
        let our_binding = binding(&request);

        // rmcp: HMAC-SHA256 over the JSON payload, the same binding as associated data.
        let context = associated_data(&request);
        let options = SealOptions::new()
            .associated_data(&context)
            .ttl(Duration::from_secs(600));
        let rmcp_token = codec.seal_json_with(&body, &options).expect("seal");
        let reopened: StateBody = codec.open_json_with(&rmcp_token, &context).expect("open");
        assert_eq!(reopened, body);
        let (ours, theirs) = measure_pair(
            || {
                let token = black_box(&sealer)
                    .seal_state(black_box(&body))
                    .expect("seal");
                let state = Value::String(token);
                let opened = mrtr::seal::open(&config, &our_binding, &state).expect("open");
                black_box(opened);
            },
            || {
                let token = codec
                    .seal_json_with(black_box(&body), &options)
                    .expect("seal");
                let opened: StateBody = codec.open_json_with(&token, &context).expect("open");
                black_box(opened);
            },
        );

        let our_state = Value::String(our_token.clone());
        let (our_seal, our_open) = measure_pair(
            || {
                black_box(
                    black_box(&sealer)
                        .seal_state(black_box(&body))
                        .expect("seal"),
                );
            },
            || {
                black_box(
                    mrtr::seal::open(&config, &our_binding, black_box(&our_state)).expect("open"),
                );
            },
        );
        let (rmcp_seal, rmcp_open) = measure_pair(
            || {
                black_box(
                    codec
                        .seal_json_with(black_box(&body), &options)
                        .expect("seal"),
                );
            },
            || {
                let opened: StateBody = codec
                    .open_json_with(black_box(&rmcp_token), &context)
                    .expect("open");
                black_box(opened);
            },
        );
        breakdown.push(format!(
            "{payload_len:>8} B | seal {:>6.2} open {:>6.2} | seal {:>6.2} open {:>6.2}",
            micros(our_seal),
            micros(our_open),
            micros(rmcp_seal),
            micros(rmcp_open)
        ));

        println!(
            "{:>8} B | {:>12.2} {:>9} | {:>12.2} {:>9} | {:>6.2}x",
            payload_len,
            micros(ours),
            our_token.len(),
            micros(theirs),
            rmcp_token.len(),
            micros(ours) / micros(theirs)
        );
    }

    println!("\nseparately (µs): mrtr | rmcp");
    for line in &breakdown {
        println!("{line}");
    }

    // What a round costs on top: building the per-request handle digests the arguments.
    let request = IncomingRequest::call_tool("deploy_production", arguments);
    let handle = measure(|| {
        black_box(Mrtr::new(black_box(request.clone()), &config));
    });
    println!(
        "Mrtr::new (canonical SHA-256 of the arguments): {:.2} µs",
        micros(handle)
    );
}

fn binding(request: &IncomingRequest) -> mrtr::seal::Binding {
    mrtr::seal::Binding {
        method: request.method,
        target: request.target.clone(),
        args_digest: mrtr::seal::args_digest(&request.arguments),
        principal: request.principal.clone(),
    }
}

/// The same facts our claims bind, as rmcp associated data.
fn associated_data(request: &IncomingRequest) -> Vec<u8> {
    format!(
        "{}|{}|{}|deployer|{}",
        request.method.as_str(),
        request.target,
        mrtr::seal::args_digest(&request.arguments),
        request.principal.as_deref().unwrap_or("")
    )
    .into_bytes()
}
