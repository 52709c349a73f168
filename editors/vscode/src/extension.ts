// VS Code client for `gpulint server` (LSP over stdio). The server does everything (diagnostics,
// quick fixes, `# noqa` actions, source.fixAll.gpulint, hover docs); this file starts it with the
// user's settings and restarts it when `gpulint.path` changes.
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('gpulint');
  return {
    select: c.get<string[]>('select', []),
    extendSelect: c.get<string[]>('extendSelect', []),
    ignore: c.get<string[]>('ignore', []),
    unsafeFixes: c.get<boolean>('unsafeFixes', false),
    configFile: c.get<string>('configFile', ''),
  };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const command = vscode.workspace.getConfiguration('gpulint').get<string>('path', 'gpulint') || 'gpulint';
  // TransportKind.stdio appends `--stdio`, which `gpulint server` accepts.
  const serverOptions: ServerOptions = {
    run: { command, args: ['server'], transport: TransportKind.stdio },
    debug: { command, args: ['server'], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    initializationOptions: serverSettings(),
    synchronize: {
      // workspace/didChangeConfiguration carries the `gpulint` section.
      configurationSection: 'gpulint',
      // Configuration files: the server reloads them on workspace/didChangeWatchedFiles.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{pyproject.toml,gpulint.toml,.gpulint.toml}'),
    },
  };
  client = new LanguageClient('gpulint', 'gpulint', serverOptions, clientOptions);
  await client.start();
}

async function stop(): Promise<void> {
  if (client) {
    const c = client;
    client = undefined;
    await c.stop();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand('gpulint.restart', async () => {
      await stop();
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('gpulint.path')) {
        await stop();
        await start(context);
      }
    }),
  );
  try {
    await start(context);
  } catch (err) {
    void vscode.window.showErrorMessage(
      `gpulint: could not start the language server (${String(err)}). Set "gpulint.path" to the gpulint executable.`,
    );
  }
}

export function deactivate(): Thenable<void> | undefined {
  return stop();
}
