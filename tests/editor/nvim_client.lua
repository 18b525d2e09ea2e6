-- Drives `cargo mcp-lint server` from Neovim's own LSP client (0.7 API: start_client and
-- buf_attach_client; later versions keep both). Run by tests/editor_nvim.rs:
--   nvim --headless -u NONE -i NONE -n -c 'luafile nvim_client.lua'
-- with MCP_LINT_BIN, MCP_LINT_ROOT, MCP_LINT_FILE and MCP_LINT_OUT (a JSON report) set.
-- Steps: open the legacy buffer, wait for its diagnostics, apply the safe fix-all, apply the
-- unsafe fix of the legacy ask, wait until the buffer lints clean, write it.

local bin = os.getenv("MCP_LINT_BIN")
local root = os.getenv("MCP_LINT_ROOT")
local file = os.getenv("MCP_LINT_FILE")
local out = os.getenv("MCP_LINT_OUT")
local report = { steps = {} }

local function save_report()
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(report))
  f:close()
end

local function codes(buf)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(list, string.format("%s:%d", tostring(d.code), d.lnum + 1))
  end
  table.sort(list)
  return list
end

local function wait_for(what, pred)
  if not vim.wait(60000, pred, 20) then
    error("timed out waiting for " .. what)
  end
end

local function code_actions(buf, client_id, range, only)
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = range,
    context = { diagnostics = {}, only = only },
  }
  local res = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 60000)
  assert(res and res[client_id], "no answer to textDocument/codeAction")
  assert(not res[client_id].err, vim.inspect(res[client_id].err))
  return res[client_id].result or {}
end

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "mcp-lint",
    cmd = { bin, "server" },
    root_dir = root,
    flags = { debounce_text_changes = 0 },
  })
  assert(client_id, "the client did not start")
  assert(vim.lsp.buf_attach_client(buf, client_id), "cannot attach the client")

  wait_for("the first diagnostics", function() return #vim.diagnostic.get(buf) > 0 end)
  report.steps.opened = codes(buf)

  -- The safe fixes, all at once.
  local whole = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 0 } }
  local actions = code_actions(buf, client_id, whole, { "source.fixAll.mcp-lint" })
  assert(#actions == 1, "fix-all actions: " .. vim.inspect(actions))
  report.steps.fix_all_title = actions[1].title
  report.steps.fix_all_kind = actions[1].kind
  vim.lsp.util.apply_workspace_edit(actions[1].edit, "utf-16")
  wait_for("the diagnostics after fix-all", function()
    local now = codes(buf)
    return #now == 1 and now[1]:match("^MCP001:") ~= nil
  end)
  report.steps.after_fix_all = codes(buf)

  -- The unsafe fix of the legacy ask, chosen by its title as a user would.
  local ask = vim.diagnostic.get(buf)[1]
  local at = { line = ask.lnum, character = ask.col }
  local quick = code_actions(buf, client_id, { start = at, ["end"] = at }, { "quickfix" })
  local chosen
  report.steps.quickfix_titles = {}
  for _, a in ipairs(quick) do
    table.insert(report.steps.quickfix_titles, a.title)
    if a.title:find("changes behaviour", 1, true) then
      chosen = a
    end
  end
  assert(chosen, "no unsafe fix among " .. vim.inspect(report.steps.quickfix_titles))
  vim.lsp.util.apply_workspace_edit(chosen.edit, "utf-16")
  wait_for("a clean buffer", function() return #vim.diagnostic.get(buf) == 0 end)
  report.steps.after_unsafe = codes(buf)

  vim.cmd("write")
  report.ok = true
end

local ok, err = pcall(run)
if not ok then
  report.error = tostring(err)
end
save_report()
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.cmd(ok and "qall!" or "cquit 1")
