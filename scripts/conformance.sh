#!/usr/bin/env bash
# Runs the official MCP conformance suite against examples/conformance-server:
# `server-stateless` and the 14 `input-required-result-*` (MRTR) scenarios.
#
#   bash scripts/conformance.sh            # everything
#   bash scripts/conformance.sh --install  # only install: Node 22, the pinned suite, and the Python
#                                          # mcp SDKs (2.x and 1.x) the wire tests drive (used by .ci/run)
#   CONFORMANCE_SCENARIOS="input-required-result-multi-round" bash scripts/conformance.sh
#
# Installs (pinned, cached under .conformance/, idempotent): a Node 22 when the machine's Node is
# older (the suite requires >= 22), and the suite from scripts/conformance/package-lock.json.
# Results land in target/conformance/<scenario>/checks.json plus summary.txt. Exits non-zero when
# any check reports FAILURE or WARNING, when a scenario produced no checks, or on any setup error.
# The server is always stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

NODE_VERSION=22.23.3
SUITE_VERSION=0.2.0-alpha.12
PYTHON_MCP_VERSION=2.3.0
PYTHON_MCP_LEGACY_VERSION=1.27.0
CACHE=$ROOT/.conformance
RESULTS=$ROOT/target/conformance
SCENARIOS=${CONFORMANCE_SCENARIOS:-"server-stateless
input-required-result-basic-elicitation
input-required-result-basic-sampling
input-required-result-basic-list-roots
input-required-result-request-state
input-required-result-multiple-input-requests
input-required-result-multi-round
input-required-result-missing-input-response
input-required-result-non-tool-request
input-required-result-result-type
input-required-result-unsupported-methods
input-required-result-tampered-state
input-required-result-capability-check
input-required-result-ignore-extra-params
input-required-result-validate-input"}

say() { printf 'conformance: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

node_major() { "$1" --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p'; }

# Sets NODE_BIN to a Node >= 22: the machine's when new enough, else npm's node@22 package.
ensure_node() {
    local system
    system=$(command -v node || true)
    if [[ -n $system && $(node_major "$system") -ge 22 ]]; then
        NODE_BIN=$system
        return
    fi
    command -v npm >/dev/null || die "npm is needed to install Node $NODE_VERSION (found no npm)"
    NODE_BIN=$CACHE/node/node_modules/node/bin/node
    if [[ $("$NODE_BIN" --version 2>/dev/null) != "v$NODE_VERSION" ]]; then
        say "installing Node $NODE_VERSION (machine has ${system:-no node}: $("${system:-false}" --version 2>/dev/null || echo none))"
        rm -rf "$CACHE/node"
        mkdir -p "$CACHE/node"
        npm install --prefix "$CACHE/node" --no-audit --no-fund --loglevel=error "node@$NODE_VERSION" >&2
        [[ $("$NODE_BIN" --version 2>/dev/null) == "v$NODE_VERSION" ]] ||
            die "Node $NODE_VERSION did not install at $NODE_BIN"
    fi
}

# Installs the suite exactly as scripts/conformance/package-lock.json pins it; reinstalls when the
# lock changes.
ensure_suite() {
    local suite=$CACHE/suite stamp
    SUITE_CLI=$suite/node_modules/@modelcontextprotocol/conformance/dist/index.js
    stamp=$(cat scripts/conformance/package.json scripts/conformance/package-lock.json | cksum)
    if [[ -f $SUITE_CLI && -f $suite/.stamp && $(cat "$suite/.stamp") == "$stamp" ]]; then
        return
    fi
    say "installing @modelcontextprotocol/conformance@$SUITE_VERSION"
    rm -rf "$suite"
    mkdir -p "$suite"
    cp scripts/conformance/package.json scripts/conformance/package-lock.json "$suite/"
    # npm runs under the Node 22 found above, so the suite's engine check is met.
    (cd "$suite" && PATH=$(dirname "$NODE_BIN"):$PATH npm ci --no-audit --no-fund --loglevel=error >&2)
    local installed
    installed=$("$NODE_BIN" -p "require('$suite/node_modules/@modelcontextprotocol/conformance/package.json').version")
    [[ $installed == "$SUITE_VERSION" ]] || die "expected suite $SUITE_VERSION, lock installed $installed"
    echo "$stamp" >"$suite/.stamp"
}

# A venv under .conformance/ with one pinned release of the Python mcp SDK, for tests/wire (it
# looks there first): `py` holds the 2.x client (2026-07-28, MRTR), `py-legacy` the 1.x client
# that negotiates 2025-11-25 and answers server-to-client requests.
ensure_python_sdk() {
    local venv=$CACHE/$1 version=$2 python=${PYTHON:-python3}
    local check="import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$version')"
    if "$venv/bin/python" -c "$check" 2>/dev/null; then
        return
    fi
    command -v "$python" >/dev/null || die "$python is needed for the Python mcp SDK (set PYTHON=...)"
    say "installing the Python mcp SDK $version into $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv" || die "could not create a venv with $python (Debian: apt-get install python3-venv)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$version" >&2
    "$venv/bin/python" -c "$check" || die "mcp $version did not install into $venv"
}

SERVER_PID=
stop_server() {
    if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=
}
trap stop_server EXIT
trap 'exit 130' INT TERM

# Starts the server on a free loopback port (port 0) and sets SERVER_URL from its first stdout line.
start_server() {
    local binary=${CARGO_TARGET_DIR:-target}/debug/conformance-server log=$RESULTS/server.log
    # The log exists before the server starts: the child opens its redirect only once it runs,
    # and on a busy machine the first read below came before that (sed: can't read; exit 2).
    : >"$log"
    "$binary" 0 >>"$log" 2>&1 9>&- &
    SERVER_PID=$!
    local i
    for ((i = 0; i < 300; i++)); do
        SERVER_URL=$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$log" | head -n 1)
        [[ -n $SERVER_URL ]] && return
        kill -0 "$SERVER_PID" 2>/dev/null || die "server exited before listening: $(cat "$log")"
        sleep 0.1
    done
    die "server did not report a listening address within 30 s: $(cat "$log")"
}

# Prints "<status> <id> <message>" per check of one scenario's checks.json, then a tally line.
tally_checks() {
    "$NODE_BIN" -e '
        const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const count = {};
        for (const c of checks) {
            count[c.status] = (count[c.status] || 0) + 1;
            if (c.status !== "SUCCESS") console.log(`    ${c.status} ${c.id}: ${c.errorMessage || ""}`);
        }
        console.log(`TALLY ${checks.length} ${count.SUCCESS || 0} ${count.FAILURE || 0} ${count.WARNING || 0} ${count.SKIPPED || 0}`);
    ' "$1"
}

main() {
    ensure_node
    ensure_suite
    say "node $("$NODE_BIN" --version), suite $SUITE_VERSION"
    if [[ ${1:-} == --install ]]; then
        ensure_python_sdk py "$PYTHON_MCP_VERSION"
        ensure_python_sdk py-legacy "$PYTHON_MCP_LEGACY_VERSION"
        say "python mcp $PYTHON_MCP_VERSION at $CACHE/py, $PYTHON_MCP_LEGACY_VERSION at $CACHE/py-legacy"
        return 0
    fi

    # Runs share target/conformance: a second run (another shell, another engineer) waits here.
    mkdir -p "$ROOT/target"
    exec 9>"$ROOT/target/.conformance.lock"
    if command -v flock >/dev/null && ! flock -n 9; then
        say "another conformance run holds target/.conformance.lock; waiting"
        flock 9
    fi
    cargo build --locked -p conformance-server >&2
    rm -rf "$RESULTS"
    mkdir -p "$RESULTS"
    start_server
    say "server at $SERVER_URL"

    local scenario bad=0 total=0 passed=0 report out
    local summary=$RESULTS/summary.txt
    : >"$summary"
    for scenario in $SCENARIOS; do
        total=$((total + 1))
        out=$RESULTS/$scenario
        mkdir -p "$out"
        # The CLI writes <out>/server-<scenario>-<timestamp>/checks.json; its exit status is not
        # trusted on its own: warnings count as failures here.
        "$NODE_BIN" "$SUITE_CLI" server --url "$SERVER_URL" --scenario "$scenario" \
            --output-dir "$out" --verbose >"$out/output.txt" 2>&1 || true
        local checks
        checks=$(find "$out" -name checks.json | head -n 1)
        if [[ -z $checks ]]; then
            printf '%-48s NO RESULTS (see %s)\n' "$scenario" "$out/output.txt" | tee -a "$summary"
            bad=$((bad + 1))
            continue
        fi
        cp "$checks" "$out/checks.json"
        report=$(tally_checks "$checks")
        read -r _ n ok fail warn skip <<<"$(grep '^TALLY' <<<"$report")"
        if [[ $n -gt 0 && $fail -eq 0 && $warn -eq 0 ]]; then
            passed=$((passed + 1))
            printf '%-48s PASS  %2d checks (%d skipped)\n' "$scenario" "$n" "$skip" | tee -a "$summary"
        else
            bad=$((bad + 1))
            printf '%-48s FAIL  %2d checks: %d failure, %d warning\n' "$scenario" "$n" "$fail" "$warn" | tee -a "$summary"
            grep -v '^TALLY' <<<"$report" | tee -a "$summary" || true
        fi
    done
    printf '%d of %d scenarios passed with no failure or warning (suite %s, node %s)\n' \
        "$passed" "$total" "$SUITE_VERSION" "$("$NODE_BIN" --version)" | tee -a "$summary"
    [[ $bad -eq 0 ]]
}

main "$@"
