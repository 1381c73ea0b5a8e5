/** A Server-Sent Events client for tests: reads a change stream as EventSource would, keeps every event. */
export interface SseEvent {
  id: string | null;
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body when the answer is not a stream (an error). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body?: any;
  events: SseEvent[];
  /** Comment lines received. */
  comments: number;
  /** Resolves when the server ends the stream (or it fails). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits for an event matching `pred` among those not yet taken; resolves with it. */
  next(pred?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Waits until `cond` holds over all events. */
  until(cond: (events: SseEvent[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** The id of the last event that carried one (what EventSource sends as Last-Event-ID). */
  lastEventId(): string | null;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const events: SseEvent[] = [];
  let taken = 0;
  let ended = false;
  let comments = 0;
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const w of [...waiters]) w();
  };
  const s: SseStream = {
    status: res.status,
    headers: res.headers,
    events,
    get comments() {
      return comments;
    },
    ended: Promise.resolve(),
    isEnded: () => ended,
    async next(pred = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (let i = taken; i < events.length; i++) {
          if (pred(events[i]!)) {
            taken = i + 1;
            return events[i]!;
          }
        }
        if (ended) throw new Error(`stream ended; events: ${events.map((e) => e.event).join(', ')}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no such event within ${timeoutMs} ms; events: ${events.map((e) => e.event).join(', ')}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, left);
          function done() {
            clearTimeout(t);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    async until(cond, timeoutMs = 10_000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      while (!cond(events)) {
        if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms; events: ${events.map((e) => `${e.event}#${e.id}`).join(', ')}`);
        if (ended) throw new Error(`stream ended before ${what}; events: ${events.map((e) => e.event).join(', ')}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, 50);
          function done() {
            clearTimeout(t);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    lastEventId() {
      for (let i = events.length - 1; i >= 0; i--) if (events[i]!.id !== null) return events[i]!.id;
      return null;
    },
    close: () => ac.abort(),
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text();
    try {
      s.body = JSON.parse(text);
    } catch {
      s.body = text;
    }
    ended = true;
    return s;
  }
  s.ended = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          let any = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comments++;
              continue;
            }
            const c = line.indexOf(':');
            const field = c < 0 ? line : line.slice(0, c);
            const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
            if (field === 'id') id = value;
            else if (field === 'event') event = value;
            else if (field === 'data') data.push(value);
            else continue;
            any = true;
          }
          if (any && data.length > 0) events.push({ id, event, data: JSON.parse(data.join('\n')) });
          poke();
        }
      }
    } catch {
      // aborted or reset
    } finally {
      ended = true;
      poke();
    }
  })();
  return s;
}
