/**
 * The live socket (/ws/live): a usage_update arrives whenever one of the tenant's scans finishes. The
 * browser sends the session cookie with the upgrade (the tab holds no key). Reconnects with a growing delay
 * while signed in.
 */
import type { UsageUpdate } from './types.js';

type Listener = (message: UsageUpdate) => void;
type StateListener = (connected: boolean) => void;

export class LiveSocket {
  private socket?: WebSocket;
  private retry = 1000;
  private timer?: ReturnType<typeof setTimeout>;
  private closed = false;
  private readonly listeners = new Set<Listener>();
  private readonly stateListeners = new Set<StateListener>();
  connected = false;

  constructor() {
    this.open();
  }

  private open(): void {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${window.location.host}/ws/live`);
    this.socket = socket;
    socket.onopen = () => {
      this.retry = 1000;
      this.setConnected(true);
    };
    socket.onmessage = (event) => {
      try {
        const message = JSON.parse(String(event.data)) as UsageUpdate;
        for (const listener of this.listeners) listener(message);
      } catch {
        /* not a JSON message: ignored */
      }
    };
    socket.onclose = () => {
      this.setConnected(false);
      if (this.closed) return;
      this.timer = setTimeout(() => this.open(), this.retry);
      this.retry = Math.min(this.retry * 2, 30_000);
    };
  }

  private setConnected(value: boolean): void {
    this.connected = value;
    for (const listener of this.stateListeners) listener(value);
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Called at once with the current state (the socket may have opened before the listener came), then on every change. */
  onState(listener: StateListener): () => void {
    this.stateListeners.add(listener);
    listener(this.connected);
    return () => void this.stateListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.socket?.close();
  }
}
