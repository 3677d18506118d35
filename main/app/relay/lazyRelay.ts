// The UI relay, loaded when first used: the serving cluster starts without parsing the relay, the
// credentials code (exec plugins, proxy tunnels) and the port-forward emulation — most sessions
// never open another cluster. Whether a path is the relay's is decided at once (relayPaths.ts); a
// request or upgrade that arrives before the code is loaded waits for it (its body and socket stay
// paused). The serving cluster's own read-only switch is answered from the same settings without
// loading anything.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../../apiserver/apiError';
import { errorReply } from '../../apiserver/handlers/replies';
import { writeUpgradeRefusal } from '../../apiserver/websocketStreams';
import { sendStatus } from '../ui/uiReplies';
import type { UiRelay, UiRelayWiring } from './index';
import { readOnlyRefusal } from './readOnly';
import { parseRelayPath } from './relayPaths';
import { RelaySettings } from './relaySettings';

export class LazyUiRelay {
  private readonly settings: RelaySettings;
  private loading?: Promise<UiRelay>;
  private relay?: UiRelay;
  private disposed = false;

  constructor(private readonly wiring: UiRelayWiring) {
    this.settings = new RelaySettings(wiring.dataDir);
  }

  /** Answers requests under /ui/clusters; false for every other path. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    if (this.relay) return this.relay.handleRequest(request, response);
    if (parseRelayPath(request.url ?? '/') === undefined) return false;
    this.load().then(
      (relay) => relay.handleRequest(request, response),
      (error: unknown) => sendStatus(response, ApiError.internal(`the relay failed to load: ${error instanceof Error ? error.message : String(error)}`)),
    );
    return true;
  }

  /** Takes WebSocket upgrades under /ui/clusters; false for other paths. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (this.relay) return this.relay.handleUpgrade(request, socket, head);
    if (parseRelayPath(request.url ?? '/') === undefined) return false;
    socket.on('error', () => socket.destroy());
    this.load().then(
      (relay) => relay.handleUpgrade(request, socket, head),
      (error: unknown) => writeUpgradeRefusal(socket, errorReply(ApiError.internal(`the relay failed to load: ${error instanceof Error ? error.message : String(error)}`))),
    );
    return true;
  }

  /** The serving cluster's read-only switch for the UI session's own API writes (UiRelay.selfSessionRefusal). */
  selfSessionRefusal(request: { method: string; path: string }): ApiError | undefined {
    const self = this.wiring.selfContext();
    return readOnlyRefusal(self, this.settings.readOnly(self), request.method, request.path);
  }

  dispose(): void {
    this.disposed = true;
    this.relay?.dispose();
  }

  private load(): Promise<UiRelay> {
    this.loading ??= import('./index').then(({ createUiRelay }) => {
      const relay = createUiRelay({ ...this.wiring, settings: this.settings });
      if (this.disposed) relay.dispose();
      this.relay = relay;
      return relay;
    });
    return this.loading;
  }
}
