-- Driven by tests/e2e/nvim_lsp.sh (nvim --headless --clean). Environment: GPULINT, ROOT, FILE,
-- OUT. Writes OUT/diagnostics.txt, OUT/fixed-line.txt, OUT/done; exits non-zero on failure.
local gpulint, root, file, out = os.getenv('GPULINT'), os.getenv('ROOT'), os.getenv('FILE'), os.getenv('OUT')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function write(name, lines)
  local f = assert(io.open(out .. '/' .. name, 'w'))
  f:write(table.concat(lines, '\n') .. '\n')
  f:close()
end

vim.opt.rtp:append(root .. '/editors/nvim')
require('gpulint').setup({ cmd = { gpulint, 'server' } })
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

if not vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  return fail('no diagnostics arrived within 20 s')
end
local clients = vim.lsp.buf_get_clients(buf)
local client
for _, c in pairs(clients) do
  if c.name == 'gpulint' then client = c end
end
if not client then return fail('the gpulint client is not attached') end

local diags = vim.diagnostic.get(buf)
local lines = {}
for _, d in ipairs(diags) do
  table.insert(lines, { d.lnum, d.col, string.format('%s:%d:%d', d.code, d.lnum + 1, d.col + 1) })
end
table.sort(lines, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  if a[2] ~= b[2] then return a[2] < b[2] end
  return a[3] < b[3]
end)
local text = {}
for _, l in ipairs(lines) do table.insert(text, l[3]) end
write('diagnostics.txt', text)

-- The first DL002 diagnostic: request code actions for it and apply its quick fix.
local target
for _, d in ipairs(diags) do
  if d.code == 'DL002' and (target == nil or d.lnum < target.lnum) then target = d end
end
if not target then return fail('no DL002 diagnostic') end
local lsp_diag = target.user_data and target.user_data.lsp or {}
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = {
    start = { line = target.lnum, character = target.col },
    ['end'] = { line = target.end_lnum, character = target.end_col },
  },
  context = { diagnostics = { lsp_diag } },
}
local responses = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000)
if not responses then return fail('no answer to textDocument/codeAction') end
local action
local titles = {}
for _, resp in pairs(responses) do
  for _, a in ipairs(resp.result or {}) do
    table.insert(titles, a.title)
    if a.kind == 'quickfix' and a.title:find('pin_memory', 1, true) and not action then action = a end
  end
end
if not action then return fail('no pin_memory quick fix among: ' .. table.concat(titles, ' | ')) end
if not vim.tbl_contains(titles, 'Add `# noqa: DL002` (suppress on this line)') then
  return fail('no noqa action among: ' .. table.concat(titles, ' | '))
end
vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
write('fixed-line.txt', { tostring(target.lnum + 1) })

-- The server re-lints the edited buffer (incremental didChange): that DL002 disappears.
local gone = vim.wait(20000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == 'DL002' and d.lnum == target.lnum then return false end
  end
  return true
end, 20)
if not gone then return fail('the DL002 diagnostic stayed after the fix') end

-- Hover on a remaining diagnostic shows its rule's documentation.
local d = vim.diagnostic.get(buf)[1]
local hover = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = d.lnum, character = d.col },
}, 10000)
local hover_text = ''
for _, resp in pairs(hover or {}) do
  if resp.result and resp.result.contents then hover_text = hover_text .. (resp.result.contents.value or '') end
end
if not hover_text:find('(' .. d.code .. ')', 1, true) then
  return fail('hover on ' .. d.code .. ' did not show its documentation: ' .. hover_text)
end

vim.cmd('write')
write('done', { 'ok' })
print('nvim: ' .. #diags .. ' diagnostics, applied "' .. action.title .. '", hover ok')
vim.cmd('qall!')
