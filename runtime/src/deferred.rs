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
//! step machine cannot go. A handler with asks of its own takes deferred asks in a round that
//! runs from the top (a fresh request, or the retry of a round that ended on deferred asks), and
//! such a round ends on its deferred asks even when a step suspended after them (the retry runs
//! from the top and reaches that step again). A round that resumed at one of its steps refuses
//! them (`Internal`): its retry would resume there again, skipping the code that asked.
//!
//! An ask's `inputRequests` key is a digest of the question (`d.<16 hex>`), so the same question
//! finds the same answer in every round, and an answer can never be applied to another question.
//! The same question asked again in one run (a loop that asks until the answer is valid) is a new
//! ask, as it was a new request before: the n-th is keyed `d.<16 hex>.<n>`, and is asked in the
//! round after the one that answered the (n-1)-th.
//! The sealed state records which keys were asked and the answers of earlier rounds: only an
//! asked key's answer counts, and taking one uses up the state (the replay guard), so one
//! confirmation cannot be replayed into a second run of the code behind the gate.
//!
//! An ask can also come from another task: a gateway's relay answers an upstream server's
//! `elicitation/create` on the upstream connection's task, while the downstream request that
//! caused it waits for the upstream's result. A scope of a 2026-07-28 request whose SDK adapter
//! named its client connection ([`Mrtr::bind_session`]) is listed while the handler runs, and an
//! ask with no scope on its own task looks there by the connection it would be sent on
//! ([`poll_on_session`]): the scope whose state asked this question, else the one request in
//! flight on that connection. With several in flight and none that asked, the ask cannot tell
//! whose it is and fails, rather than put a question into another request's round.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, Weak};
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
    /// The handler resumed at one of its own steps in this round, or this is a helper's frame
    /// (see the module doc).
    refused: bool,
    /// How many times each question was asked in this round's run of the body: the n-th ask of
    /// the same question is its own ask (`<key>.<n>`), as it was a new request to the client
    /// before (a loop that asks again until the answer is valid).
    times: HashMap<String, usize>,
}

impl Book {
    fn from_state(data: &Map<String, Value>, refused: bool) -> Book {
        let mut book = Book {
            refused,
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
        book
    }
}

/// One handler invocation's deferred asks. Cheap to clone.
#[derive(Clone, Debug)]
pub struct DeferredScope {
    inner: Arc<ScopeInner>,
}

#[derive(Debug)]
struct ScopeInner {
    mrtr: Mrtr,
    book: Mutex<Book>,
    /// The connection it is listed under in [`IN_FLIGHT`], until it is dropped.
    listed: Option<usize>,
    /// Set for the scope the SDK adapter opens around a whole request (see
    /// [`crate::rmcp::scope`]), which a `#[mrtr_handler]` below it takes over.
    adapter: Option<AdapterRole>,
}

/// The adapter's scope around a request whose handler may or may not be a `#[mrtr_handler]`.
#[derive(Debug, Default)]
struct AdapterRole {
    /// The request's state was sealed by this scope (a round that ended on deferred asks).
    owns_state: bool,
    /// A `#[mrtr_handler]` below took the request over: its flow carries the rounds, and this
    /// scope refuses asks from then on (they would belong to neither state).
    yielded: std::sync::atomic::AtomicBool,
}

/// The scopes of the 2026-07-28 handlers running now, by client connection (see the module doc).
/// Weak: a handler's scope lives as long as its flow and its body, and no longer.
static IN_FLIGHT: LazyLock<Mutex<HashMap<usize, Vec<Weak<ScopeInner>>>>> =
    LazyLock::new(Mutex::default);

fn in_flight() -> MutexGuard<'static, HashMap<usize, Vec<Weak<ScopeInner>>>> {
    // Each update is one push or one retain, so a poisoned map is still consistent.
    IN_FLIGHT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Drop for ScopeInner {
    fn drop(&mut self) {
        if let Some(session) = self.listed {
            let mut map = in_flight();
            if let Some(scopes) = map.get_mut(&session) {
                scopes.retain(|scope| scope.strong_count() > 0);
                if scopes.is_empty() {
                    map.remove(&session);
                }
            }
        }
    }
}

/// The live scopes listed under `session`. The strong references are made under the lock and
/// returned, so the last one of a scope is never dropped (and its `Drop` never locks) while
/// the lock is held.
fn listed_under(session: usize) -> Vec<DeferredScope> {
    let map = in_flight();
    map.get(&session)
        .into_iter()
        .flatten()
        .filter_map(Weak::upgrade)
        .map(|inner| DeferredScope { inner })
        .collect()
}

thread_local! {
    static CURRENT: RefCell<Option<DeferredScope>> = const { RefCell::new(None) };
}

impl DeferredScope {
    /// A scope for `mrtr`'s request, with what `data` (the opened state's) says was asked and
    /// answered. `refused`: deferred asks fail in it (a round resumed at a step, a helper's
    /// frame; see the module doc).
    pub(crate) fn open(mrtr: &Mrtr, data: &Map<String, Value>, refused: bool) -> DeferredScope {
        DeferredScope::with_book(mrtr, Book::from_state(data, refused), None)
    }

    /// [`DeferredScope::open`] for a handler's own scope: listed under its client connection
    /// when it serves a 2026-07-28 request whose connection is known, so that asks made on
    /// other tasks find it (see the module doc). Only a request's outermost scope is listed: a
    /// helper's nested scope is not one more request in flight.
    pub(crate) fn open_for_request(
        mrtr: &Mrtr,
        data: &Map<String, Value>,
        refused: bool,
    ) -> DeferredScope {
        let listed = mrtr.session().filter(|_| !mrtr.carries_in_process());
        DeferredScope::with_book(mrtr, Book::from_state(data, refused), listed)
    }

    fn with_book(mrtr: &Mrtr, book: Book, listed: Option<usize>) -> DeferredScope {
        DeferredScope::build(mrtr, book, listed, None)
    }

    fn build(
        mrtr: &Mrtr,
        book: Book,
        listed: Option<usize>,
        adapter: Option<AdapterRole>,
    ) -> DeferredScope {
        let scope = DeferredScope {
            inner: Arc::new(ScopeInner {
                mrtr: mrtr.clone(),
                book: Mutex::new(book),
                listed,
                adapter,
            }),
        };
        if let Some(session) = listed {
            in_flight()
                .entry(session)
                .or_default()
                .push(Arc::downgrade(&scope.inner));
        }
        scope
    }

    /// The scope an SDK adapter opens around a whole request (every `tools/call`,
    /// `prompts/get`, `resources/read` its server serves), so that a deferred ask anywhere below
    /// finds its round whatever the handler is. `data` is the opened state's when this scope
    /// sealed it (`owns_state`), else empty; `refused`: the request's state belongs to a
    /// `#[mrtr_handler]` below, and deferred asks outside its flow fail.
    pub(crate) fn open_for_adapter(
        mrtr: &Mrtr,
        data: &Map<String, Value>,
        owns_state: bool,
        refused: bool,
    ) -> DeferredScope {
        let listed = mrtr.session().filter(|_| !mrtr.carries_in_process());
        let role = AdapterRole {
            owns_state,
            ..AdapterRole::default()
        };
        DeferredScope::build(mrtr, Book::from_state(data, refused), listed, Some(role))
    }

    /// True once a `#[mrtr_handler]` below this adapter scope took the request over.
    pub(crate) fn yielded(&self) -> bool {
        self.inner
            .adapter
            .as_ref()
            .is_some_and(|a| a.yielded.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Called as a `#[mrtr_handler]`'s flow starts: the adapter scope current on this task (if
    /// any) hands the request over. `Err` when the adapter sealed this request's state: the
    /// retry answers a deferred ask made before the handler, whose flow cannot take that state.
    pub(crate) fn hand_over_to_handler() -> Result<(), MrtrError> {
        let Some(scope) = CURRENT.with(|current| current.borrow().clone()) else {
            return Ok(());
        };
        let Some(role) = &scope.inner.adapter else {
            return Ok(());
        };
        if role.owns_state {
            return Err(MrtrError::Internal(
                "a #[mrtr_handler] reached after a deferred ask of the same request: the retry \
                 carries the deferred ask's state, which the handler's flow cannot resume; ask \
                 inside the handler (`mrtr.elicit(..)`), or make the handler a plain one"
                    .into(),
            ));
        }
        role.yielded
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(session) = scope.inner.listed {
            // No longer a request in flight of its own: the handler's flow lists itself.
            let mut map = in_flight();
            if let Some(scopes) = map.get_mut(&session) {
                scopes.retain(|s| !std::ptr::eq(s.as_ptr(), Arc::as_ptr(&scope.inner)));
                if scopes.is_empty() {
                    map.remove(&session);
                }
            }
        }
        Ok(())
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
        self.inner
            .book
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// True when this request's state asked `key`, or an earlier round answered it.
    fn knows(&self, key: &str) -> bool {
        let book = self.book();
        book.asked.contains(key) || book.answered.contains_key(key)
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
        if self.yielded() {
            return Deferred::Failed(MrtrError::Internal(
                "a deferred ask after a #[mrtr_handler] of the same request ran: its flow carries \
                 the rounds, so ask inside it (`mrtr.elicit(..)`) or before it"
                    .into(),
            ));
        }
        let mut book = self.book();
        if book.refused {
            return Deferred::Failed(MrtrError::Internal(
                "a deferred ask (a peer's request below the handler) after one of the \
                 #[mrtr_handler]'s own asks: its retry resumes after that ask and would skip this \
                 one; ask it first, or through `mrtr`"
                    .into(),
            ));
        }
        let question = key_of(ask);
        let nth = {
            let times = book.times.entry(question.clone()).or_insert(0);
            *times += 1;
            *times
        };
        let key = occurrence_key(&question, nth);
        if let Some(raw) = book.answered.get(&key) {
            return settle(ask.decode(&key, raw));
        }
        if book.asked.contains(&key) {
            if let Some(raw) = self.inner.mrtr.answer(&key) {
                let decoded = ask.decode(&key, raw);
                if decoded.is_ok() {
                    // The answer opens whatever the ask guards: the state it answers is used
                    // up now, so a second retry with the same state and answer is refused.
                    if let Err(error) = self.inner.mrtr.consume_state() {
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
        if let Err(error) = self.inner.mrtr.check_capability(&ask.required_capability()) {
            return Deferred::Failed(error);
        }
        // An earlier ask of the same question waits for its answer in this round: this one is
        // asked in a later round, once that answer is known (as the client saw them one by one).
        let earlier = (1..nth).any(|k| book.pending.contains_key(&occurrence_key(&question, k)));
        if !earlier {
            book.pending.insert(key, ask.input_request());
        }
        Deferred::Pending
    }
}

fn settle<T>(decoded: Result<T, MrtrError>) -> Deferred<T> {
    match decoded {
        Ok(value) => Deferred::Ready(value),
        Err(error) => Deferred::Failed(error),
    }
}

/// An ask's `inputRequests` key: the one it names, else its question's digest.
fn key_of<T>(ask: &Ask<T>) -> String {
    ask.explicit_key()
        .map(String::from)
        .unwrap_or_else(|| question_key(&ask.input_request()))
}

/// The key of the `nth` ask (from 1) of the question keyed `question` in one run of the body:
/// the question's own key for the first, `<key>.<n>` after it.
fn occurrence_key(question: &str, nth: usize) -> String {
    match nth {
        1 => question.to_string(),
        n => format!("{question}.{n}"),
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

/// True when an ask made here would be answered by the deferred scope of the request running this
/// code (rather than sent): the same test [`poll_on_session`] makes before it builds the ask, on
/// this task only.
pub(crate) fn asks_here() -> bool {
    CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(|scope| !scope.inner.mrtr.carries_in_process())
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
    poll_on_session(|| None, ask)
}

/// [`poll_with`] for an ask that would be sent on a known client connection: with no scope on
/// this task, it looks among the 2026-07-28 requests in flight on `session()` (see the module
/// doc). `session` is called only then.
pub fn poll_on_session<T>(
    session: impl FnOnce() -> Option<usize>,
    ask: impl FnOnce() -> Ask<T>,
) -> Deferred<T> {
    match CURRENT.with(|current| current.borrow().clone()) {
        Some(scope) if scope.inner.mrtr.carries_in_process() => Deferred::InProcess,
        Some(scope) => scope.poll(&ask()),
        None => match session() {
            Some(session) => poll_in_flight(session, ask()),
            None => Deferred::Unscoped,
        },
    }
}

/// An ask from another task, on connection `session`: the request whose state asked it takes
/// its answer; a new question goes to the one request in flight there.
fn poll_in_flight<T>(session: usize, ask: Ask<T>) -> Deferred<T> {
    let scopes = listed_under(session);
    let key = key_of(&ask);
    if let Some(asker) = scopes.iter().find(|scope| scope.knows(&key)) {
        return asker.poll(&ask);
    }
    match scopes.as_slice() {
        [] => Deferred::Unscoped,
        [only] => only.poll(&ask),
        many => Deferred::Failed(MrtrError::Internal(format!(
            "an ask made on another task (a relay) for a connection with {} requests in flight: \
             it cannot tell which request it belongs to",
            many.len()
        ))),
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

#[cfg(test)]
mod tests {
    //! Which request an ask from another task lands in. The end-to-end relay, through rmcp's
    //! own connections, is `tests/relay_asks.rs`.

    use super::*;
    use crate::context::IncomingRequest;
    use crate::testing::test_config;

    fn request(session: Option<usize>) -> Mrtr {
        let incoming = IncomingRequest::call_tool("relay", serde_json::json!({}))
            .with_capabilities(serde_json::json!({ "roots": {} }));
        let mrtr = Mrtr::new(incoming, &test_config("relay-test"));
        if let Some(session) = session {
            mrtr.bind_session(session);
        }
        mrtr
    }

    fn from_another_task(session: usize) -> Deferred<Vec<crate::ask::Root>> {
        // No scope is current on this thread: only the connection can lead to one.
        poll_on_session(|| Some(session), crate::ask::roots_ask)
    }

    #[test]
    fn the_one_request_in_flight_on_the_connection_takes_the_ask() {
        let scope = DeferredScope::open_for_request(&request(Some(7001)), &Map::new(), false);
        assert!(matches!(from_another_task(7001), Deferred::Pending));
        assert!(scope.has_pending());
        // Another connection's ask does not reach it.
        assert!(matches!(from_another_task(7002), Deferred::Unscoped));
    }

    #[test]
    fn a_request_whose_connection_is_unknown_is_not_listed() {
        let scope = DeferredScope::open_for_request(&request(None), &Map::new(), false);
        assert!(matches!(from_another_task(7011), Deferred::Unscoped));
        assert!(!scope.has_pending());
    }

    #[test]
    fn a_finished_request_is_no_longer_in_flight() {
        let scope = DeferredScope::open_for_request(&request(Some(7021)), &Map::new(), false);
        let flow_copy = scope.clone();
        drop(scope);
        assert!(matches!(from_another_task(7021), Deferred::Pending));
        drop(flow_copy);
        assert!(matches!(from_another_task(7021), Deferred::Unscoped));
        assert!(!in_flight().contains_key(&7021));
    }

    #[test]
    fn with_two_requests_in_flight_a_new_question_belongs_to_neither() {
        let first = DeferredScope::open_for_request(&request(Some(7031)), &Map::new(), false);
        let second = DeferredScope::open_for_request(&request(Some(7031)), &Map::new(), false);
        match from_another_task(7031) {
            Deferred::Failed(MrtrError::Internal(why)) => {
                assert!(why.contains("2 requests in flight"), "{why}")
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert!(!first.has_pending() && !second.has_pending());
    }

    #[test]
    fn the_request_whose_state_asked_the_question_takes_it_among_several() {
        let key = key_of(&crate::ask::roots_ask());
        let mut asked = Map::new();
        asked.insert(ASKED.into(), serde_json::json!([key]));
        let other = DeferredScope::open_for_request(&request(Some(7041)), &Map::new(), false);
        let asker = DeferredScope::open_for_request(&request(Some(7041)), &asked, false);
        // The retry carries no answer here, so the question is asked again, of the asker only.
        assert!(matches!(from_another_task(7041), Deferred::Pending));
        assert!(asker.has_pending());
        assert!(!other.has_pending());
    }

    #[test]
    fn a_nested_scope_is_not_one_more_request() {
        let mrtr = request(Some(7051));
        let handler = DeferredScope::open_for_request(&mrtr, &Map::new(), false);
        let _helper = DeferredScope::open(&mrtr, &Map::new(), true);
        assert!(matches!(from_another_task(7051), Deferred::Pending));
        assert!(handler.has_pending());
    }
}
