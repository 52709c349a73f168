-- gpulint's language server in Neovim, without plugins. Works on Neovim 0.7 and later: it uses
-- vim.lsp.start_client + vim.lsp.buf_attach_client (vim.lsp.start exists only from 0.8).
--
--   vim.opt.rtp:append('/path/to/gpulint/editors/nvim')   -- or copy lua/gpulint/ to your config
--   require('gpulint').setup({
--     cmd = { 'gpulint', 'server' },                       -- default
--     settings = { gpulint = { ignore = { 'DEV003' }, unsafeFixes = false } },
--     on_attach = function(client, bufnr) ... end,         -- your keymaps
--   })
--
-- One server runs per project root (the closest directory holding one of `root_markers`, else
-- the file's directory); every Python buffer under that root attaches to it. Diagnostics appear
-- through vim.diagnostic; fixes through vim.lsp.buf.code_action(); rule docs through
-- vim.lsp.buf.hover().
local M = {}

M.defaults = {
  cmd = { 'gpulint', 'server' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'gpulint.toml', '.gpulint.toml', '.git' },
  -- Sent as initializationOptions and with workspace/didChangeConfiguration:
  -- { gpulint = { select = {...}, extendSelect = {...}, ignore = {...}, unsafeFixes = bool,
  --               configFile = 'path' } }
  settings = { gpulint = {} },
  on_attach = nil,
  capabilities = nil,
}

local clients = {} -- root directory -> client id

--- The closest directory at or above `path`'s directory holding one of `markers`.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local start = dir
  while true do
    for _, marker in ipairs(markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return start
    end
    dir = parent
  end
end

--- Starts (or reuses) the server for `bufnr`'s root and attaches the buffer. Returns the client id.
function M.attach(bufnr, opts)
  opts = opts or M.options or M.defaults
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' then
    return nil
  end
  local root = M.find_root(path, opts.root_markers)
  local id = clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client == nil or client.is_stopped() then
    id = vim.lsp.start_client({
      name = 'gpulint',
      cmd = opts.cmd,
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      init_options = opts.settings.gpulint or {},
      settings = opts.settings,
      capabilities = opts.capabilities,
      on_attach = opts.on_attach,
    })
    if id == nil then
      vim.notify('gpulint: could not start ' .. table.concat(opts.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

function M.setup(opts)
  opts = vim.tbl_deep_extend('force', M.defaults, opts or {})
  M.options = opts
  local group = vim.api.nvim_create_augroup('gpulint_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
  -- Buffers that were already open when setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(opts.filetypes, vim.bo[buf].filetype) then
      M.attach(buf, opts)
    end
  end
end

return M
