//! Deferred asks: asks made below a `#[mrtr_handler]` by code the macro never sees.
//!
//! Real servers keep some asks where no rewrite can reach them: a confirmation gate behind a
//! `&dyn Confirmer` that the service layer calls before any external IO, or a peer stored in a
//! struct and used three calls down. The macro cannot cut those into steps, so they work by
//! **replay** instead: the handler's body runs inside a [`DeferredScope`]; an ask made anywhere
//! below it (same task) looks for its answer in this request, and when there is none it is
//! queued and fails, the handler unwinds (a gate denies, the caller returns its error), and the
//! round ends with an `InputRequiredResult` for every queued ask, whatever the body returned.
//! The client's retry runs the body again from the top, and this time the ask finds its answer.
//!
//! So code before a deferred ask runs again in each round. That is the contract the pattern
//! already states ("confirm before any IO"), and the reason deferred asks exist only where the
//! step machine cannot go; a handler with asks of its own refuses them (`Internal`), since the
//! steps it skips on a resumed round would hide the deferred asks made in them.
//!
//! An ask's `inputRequests` key is a digest of the question (`d.<16 hex>`), so the same question
//! finds the same answer in every round, and an answer can never be applied to another question.
//! The sealed state records which keys were asked and the answers of earlier rounds: only an
//! asked key's answer counts, and taking one uses up the state (the replay guard), so one
//! confirmation cannot be replayed into a second run of the code behind the gate.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::ask::Ask;
use crate::context::Mrtr;
use crate::error::MrtrError;

/// State data: the keys asked in the round that sealed the state.
const ASKED: &str = "d:asked";
/// State data: `d:a:<key>` is the raw answer an earlier round received for `<key>`.
const ANSWER: &str = "d:a:";

/// What a deferred ask finds.
#[derive(Debug)]
pub enum Deferred<T> {
    /// No `#[mrtr_handler]` is running this code (a spawned task, an unmigrated handler): the
    /// caller sends the request the legacy way.
    Unscoped,
    /// A pre-2026 session: the caller sends the request the legacy way, mid-request.
    InProcess,
    /// The client answered (in this request, or in an earlier round of it).
    Ready(T),
    /// Queued for this round's `inputRequests`; the caller fails and the round ends.
    Pending,
    /// The ask cannot be sent (capability not declared, invalid ask), its answer is malformed,
    /// or the state was used before.
    Failed(MrtrError),
}

#[derive(Debug, Default)]
struct Book {
    /// Answers of earlier rounds (from the sealed state) and the ones taken in this round.
    answered: BTreeMap<String, Value>,
    /// Keys the sealed state says were asked: only their `inputResponses` entries count.
    asked: BTreeSet<String>,
    /// Asks of this round without an answer: the next `inputRequests`.
    pending: BTreeMap<String, Value>,
    /// The handler has asks of its own (see the module doc).
    refused: bool,
}

/// One handler invocation's deferred asks. Cheap to clone.
#[derive(Clone, Debug)]
pub struct DeferredScope {
    mrtr: Mrtr,
    book: Arc<Mutex<Book>>,
}

thread_local! {
    static CURRENT: RefCell<Option<DeferredScope>> = const { RefCell::new(None) };
}

impl DeferredScope {
    /// A scope for `mrtr`'s request, with what `data` (the opened state's) says was asked and
    /// answered. `steps` is the handler's own ask count: a handler with asks refuses deferred ones.
    pub(crate) fn open(mrtr: &Mrtr, data: &Map<String, Value>, steps: u32) -> DeferredScope {
        let mut book = Book {
            refused: steps > 0,
            ..Book::default()
        };
        if let Some(Value::Array(keys)) = data.get(ASKED) {
            book.asked = keys
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect();
        }
        for (name, raw) in data {
            if let Some(key) = name.strip_prefix(ANSWER) {
                book.answered.insert(key.to_string(), raw.clone());
            }
        }
        DeferredScope {
            mrtr: mrtr.clone(),
            book: Arc::new(Mutex::new(book)),
        }
    }

    /// Runs `body` with this scope current: deferred asks made while it is polled (on this task)
    /// land here.
    pub fn run<F: Future>(&self, body: F) -> Scoped<F> {
        Scoped {
            scope: self.clone(),
            body: Box::pin(body),
        }
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        // A panic while holding the lock leaves a book that is still consistent (each update is
        // one insert), so a poisoned lock is taken as is.
        self.book
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// True when asks are queued for this round.
    pub(crate) fn has_pending(&self) -> bool {
        !self.book().pending.is_empty()
    }

    /// The queued asks, and the state data the next round needs (asked keys, answers so far).
    pub(crate) fn take_round(&self) -> (BTreeMap<String, Value>, Map<String, Value>) {
        let mut book = self.book();
        let pending = std::mem::take(&mut book.pending);
        let mut data = Map::new();
        let asked = pending.keys().cloned().map(Value::String).collect();
        data.insert(ASKED.to_string(), Value::Array(asked));
        for (key, raw) in &book.answered {
            data.insert(format!("{ANSWER}{key}"), raw.clone());
        }
        (pending, data)
    }

    /// A 2026-07-28 request's look-up (a pre-2026 session never gets here: see [`poll_with`]).
    fn poll<T>(&self, ask: &Ask<T>) -> Deferred<T> {
        let mut book = self.book();
        if book.refused {
            return Deferred::Failed(MrtrError::Internal(
                "a deferred ask (a peer's request below the handler) in a #[mrtr_handler] that \
                 has asks of its own: ask through `mrtr` in the handler, or move every ask below it"
                    .into(),
            ));
        }
        let key = ask
            .explicit_key()
            .map(String::from)
            .unwrap_or_else(|| question_key(&ask.input_request()));
        if let Some(raw) = book.answered.get(&key) {
            return settle(ask.decode(&key, raw));
        }
        if book.asked.contains(&key) {
            if let Some(raw) = self.mrtr.answer(&key) {
                let decoded = ask.decode(&key, raw);
                if decoded.is_ok() {
                    // The answer opens whatever the ask guards: the state it answers is used
                    // up now, so a second retry with the same state and answer is refused.
                    if let Err(error) = self.mrtr.consume_state() {
                        return Deferred::Failed(error);
                    }
                    book.answered.insert(key, raw.clone());
                }
                return settle(decoded);
            }
        }
        if let Err(error) = ask.check() {
            return Deferred::Failed(error);
        }
        if let Err(error) = self.mrtr.check_capability(&ask.required_capability()) {
            return Deferred::Failed(error);
        }
        book.pending.insert(key, ask.input_request());
        Deferred::Pending
    }
}

fn settle<T>(decoded: Result<T, MrtrError>) -> Deferred<T> {
    match decoded {
        Ok(value) => Deferred::Ready(value),
        Err(error) => Deferred::Failed(error),
    }
}

/// `d.` and the first 64 bits of the question's SHA-256, in hex.
fn question_key(request: &Value) -> String {
    let digest = Sha256::digest(request.to_string().as_bytes());
    format!("d.{}", hex::encode(&digest[..8]))
}

/// True when a deferred ask of the handler running this code is waiting for the client's
/// answer: this round ends with an `InputRequiredResult` whatever the handler returns, so the
/// failure the ask caused is not a real one (skip the audit entry or the warning for it).
pub fn awaiting_answer() -> bool {
    CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(DeferredScope::has_pending)
    })
}

/// Looks up `ask` in the deferred scope of the handler running this code.
pub fn poll<T>(ask: &Ask<T>) -> Deferred<T> {
    poll_with(|| ask.clone())
}

/// [`poll`], building the ask only when a 2026-07-28 scope will read it: outside a handler and on
/// a pre-2026 session the caller sends the peer's own request, and the ask (a form's schema, say)
/// would be built for nothing.
pub fn poll_with<T>(ask: impl FnOnce() -> Ask<T>) -> Deferred<T> {
    match CURRENT.with(|current| current.borrow().clone()) {
        Some(scope) if scope.mrtr.carries_in_process() => Deferred::InProcess,
        Some(scope) => scope.poll(&ask()),
        None => Deferred::Unscoped,
    }
}

/// [`DeferredScope::run`]'s future: sets the scope current around each poll of the body, so it
/// works on any executor and follows the body across threads.
pub struct Scoped<F> {
    scope: DeferredScope,
    body: Pin<Box<F>>,
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let previous = CURRENT.with(|current| current.replace(Some(this.scope.clone())));
        // Restored on the way out, a panic included, so a scope never leaks into other tasks.
        struct Restore(Option<DeferredScope>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|current| *current.borrow_mut() = previous);
            }
        }
        let _restore = Restore(previous);
        this.body.as_mut().poll(cx)
    }
}

/// True when a state's data names deferred asks (the state of a round that ended on them).
pub(crate) fn names_asks(data: &Map<String, Value>) -> bool {
    data.contains_key(ASKED)
}
