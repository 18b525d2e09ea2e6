//! The lint worker: one thread, off the main loop, so typing is never blocked by a lint.
//!
//! - Debounce: a change asks for a lint `debounce` from now; another change of the same buffer
//!   before then moves the lint back, so a burst of keystrokes costs one run. Opening and saving
//!   ask for one at once.
//! - Out-of-date runs are cancelled: before a run starts, every request waiting in the channel is
//!   taken in (a newer change puts its buffer back in the queue); after it, a result for a
//!   version the buffer no longer has is dropped, never published, and the newer version is
//!   linted instead.
//! - Only open buffers are linted: the worker is only ever asked for buffers the editor opened.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Message, Notification};
use lsp_types::{Diagnostic, PublishDiagnosticsParams};

use super::diagnostics::to_diagnostic;
use super::state::{Linted, Shared};
use super::text::Lines;

pub enum Job {
    /// Lint this buffer after this delay (a newer request for it replaces the older one).
    Lint(String, Duration),
    Stop,
}

/// Counters the `mcp-lint/stats` request returns (tests and the benchmark read them).
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct Stats {
    /// Lints that ran to the end and were published.
    pub published: u64,
    /// Lints whose buffer changed while they ran: their result was dropped.
    pub dropped: u64,
}

pub struct Scheduler {
    pub jobs: Sender<Job>,
    handle: Option<std::thread::JoinHandle<()>>,
    pub stats: Arc<std::sync::Mutex<Stats>>,
}

impl Scheduler {
    pub fn start(shared: Arc<Shared>, out: Sender<Message>) -> Result<Scheduler, String> {
        let (jobs, rx) = crossbeam_channel::unbounded();
        let stats = Arc::new(std::sync::Mutex::new(Stats::default()));
        let worker = Worker {
            shared,
            out,
            rx,
            pending: HashMap::new(),
            stats: stats.clone(),
            last_error: None,
        };
        let handle = std::thread::Builder::new()
            .name("mcp-lint-worker".into())
            .stack_size(crate::lint::STACK_SIZE)
            .spawn(move || worker.run())
            .map_err(|e| format!("cannot start the lint worker: {e}"))?;
        Ok(Scheduler {
            jobs,
            handle: Some(handle),
            stats,
        })
    }

    pub fn lint(&self, uri: &str, delay: Duration) {
        let _ = self.jobs.send(Job::Lint(uri.to_string(), delay));
    }

    pub fn stats(&self) -> Stats {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        let _ = self.jobs.send(Job::Stop);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

struct Worker {
    shared: Arc<Shared>,
    out: Sender<Message>,
    rx: Receiver<Job>,
    /// Buffers waiting for a lint, and when it is due.
    pending: HashMap<String, Instant>,
    stats: Arc<std::sync::Mutex<Stats>>,
    /// The error shown last: a broken configuration fails every lint, and one message about it
    /// is enough until it changes or a lint succeeds.
    last_error: Option<String>,
}

impl Worker {
    fn run(mut self) {
        loop {
            let wait = self
                .pending
                .values()
                .min()
                .map(|due| due.saturating_duration_since(Instant::now()));
            let job = match wait {
                Some(w) => self.rx.recv_timeout(w),
                None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match job {
                Ok(job) => {
                    if !self.take(job) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            // Everything that arrived meanwhile, before deciding what is due.
            while let Ok(job) = self.rx.try_recv() {
                if !self.take(job) {
                    return;
                }
            }
            let now = Instant::now();
            let due = self
                .pending
                .iter()
                .filter(|(_, &at)| at <= now)
                .min_by_key(|(_, &at)| at)
                .map(|(uri, _)| uri.clone());
            if let Some(uri) = due {
                self.pending.remove(&uri);
                self.lint(&uri);
            }
        }
    }

    /// Takes a job in; false on `Stop`.
    fn take(&mut self, job: Job) -> bool {
        match job {
            Job::Lint(uri, delay) => {
                self.pending.insert(uri, Instant::now() + delay);
                true
            }
            Job::Stop => false,
        }
    }

    fn lint(&mut self, uri: &str) {
        let Some(doc) = self.shared.docs().get(uri).cloned() else {
            return;
        };
        let generation = self.shared.workspace().generation;
        if let Some(l) = self.shared.linted().get(uri) {
            if l.version == doc.version && l.generation == generation {
                return;
            }
        }
        let outcome = {
            let mut ws = self.shared.workspace();
            let generation = ws.generation;
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                ws.lint(&doc.path, &doc.text)
            }))
            .map(|r| r.map(|f| (f, generation)))
        };
        let (findings, generation) = match outcome {
            Ok(Ok(ok)) => ok,
            Ok(Err(e)) => return self.show_error(format!("mcp-lint: {e}")),
            Err(_) => {
                return self.show_error(format!(
                    "mcp-lint: internal error while linting {}; please report it",
                    doc.path.display()
                ))
            }
        };
        self.last_error = None;
        let now = self.shared.docs().get(uri).map(|d| d.version);
        if now != Some(doc.version) {
            // Out of date (or closed): a newer version is queued, or nothing is wanted.
            self.stats.lock().unwrap_or_else(|p| p.into_inner()).dropped += 1;
            return;
        }
        let lines = Lines::new(&doc.text);
        let diagnostics: Vec<Diagnostic> = findings
            .iter()
            .map(|f| to_diagnostic(f, &lines, &self.shared.links))
            .collect();
        self.shared.linted().insert(
            uri.to_string(),
            Linted {
                version: doc.version,
                generation,
                text: doc.text.clone(),
                findings: Arc::new(findings),
            },
        );
        self.stats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .published += 1;
        publish(&self.out, uri, diagnostics, Some(doc.version));
    }

    fn show_error(&mut self, message: String) {
        if self.last_error.as_ref() == Some(&message) {
            return;
        }
        self.last_error = Some(message.clone());
        let params = lsp_types::ShowMessageParams {
            typ: lsp_types::MessageType::ERROR,
            message,
        };
        let _ = self.out.send(Message::Notification(Notification::new(
            "window/showMessage".into(),
            params,
        )));
    }
}

pub fn publish(
    out: &Sender<Message>,
    uri: &str,
    diagnostics: Vec<Diagnostic>,
    version: Option<i32>,
) {
    let Ok(uri) = uri.parse() else { return };
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    let _ = out.send(Message::Notification(Notification::new(
        "textDocument/publishDiagnostics".into(),
        params,
    )));
}
