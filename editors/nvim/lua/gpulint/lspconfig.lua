-- An nvim-lspconfig entry for gpulint (nvim-lspconfig's documented way to add a server it does
-- not ship):
--
--   require('gpulint.lspconfig')          -- registers the `gpulint` config once
--   require('lspconfig').gpulint.setup({
--     settings = { gpulint = { ignore = { 'DEV003' } } },
--   })
local configs = require('lspconfig.configs')
local util = require('lspconfig.util')

if not configs.gpulint then
  configs.gpulint = {
    default_config = {
      cmd = { 'gpulint', 'server' },
      filetypes = { 'python' },
      root_dir = util.root_pattern('pyproject.toml', 'gpulint.toml', '.gpulint.toml', '.git'),
      single_file_support = true,
      settings = { gpulint = {} },
    },
    docs = {
      description = [[
https://github.com/gpulint/gpulint

`gpulint server`: diagnostics for PyTorch training code that keeps a GPU idle or wastes its
memory, quick fixes, `# noqa` actions, `source.fixAll.gpulint`, and rule documentation on hover.
Settings (under `gpulint`): `select`, `extendSelect`, `ignore`, `unsafeFixes`, `configFile`.
]],
    },
  }
end

return configs.gpulint
